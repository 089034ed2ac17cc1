//! Random logs cut at random places give the events of the naive whole-buffer reference, and
//! report every mixed-case window once.

use proptest::prelude::*;

use super::{StreamScanner, reference, scan_pieces};
use crate::canary::{self, Canary};
use crate::marker::Nonce;
use crate::matcher::Matcher;
use crate::variant::{Variant, VariantSet};

/// `hay` cut at `cuts` (clamped and sorted).
fn cut(hay: &[u8], cuts: Vec<usize>) -> Vec<&[u8]> {
    let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(hay.len())).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut last = 0;
    for c in cuts.into_iter().chain([hay.len()]) {
        pieces.push(&hay[last..c]);
        last = c;
    }
    pieces
}

/// Pieces a log is made of: filler, newlines, NULs, and parts and wholes of the patterns.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    let demo = canary::DEMO.as_bytes().to_vec();
    prop_oneof![
        Just(b"plain text ".to_vec()),
        Just(b"\n".to_vec()),
        Just(vec![0u8, 0xff]),
        Just(demo.clone()),
        Just(canary::CORE.as_bytes().to_vec()),
        Just(Variant::Percent.encode(&demo)),
        Just(Variant::Base64At1.encode(&demo)),
        Just(b"self-tracked PHI-CAN".to_vec()),
        Just(b"PHI-CANARY-3f9".to_vec()),
        Just(b"ARY-3f9a".to_vec()),
        Just(Variant::HexLower.encode(&demo)),
        Just(Variant::UnicodeEscape.encode(&demo)),
        Just(Variant::Upper.encode(&demo)),
        Just(b"self-tracked ".to_vec()),
        Just(b"self-tracked%20".to_vec()),
        Just(Variant::HexLower.encode(b"self-tracked ")),
        Just(b"phiguard-marker start nonce-123\n".to_vec()),
        Just(b"phiguard-marker end nonce-123".to_vec()),
    ]
}

/// The events and the windows of `pieces` fed to a scanner that reports windows, taking them
/// after each piece as the decoder does.
fn scan_windows<'a>(
    m: &Matcher,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> (Vec<super::Event>, Vec<(u64, usize)>) {
    let mut events = Vec::new();
    let mut windows = Vec::new();
    let mut s = StreamScanner::with_windows(m);
    for piece in pieces {
        s.feed(piece, &mut |e| events.push(e));
        windows.extend(s.take_windows().expect("windows reported"));
    }
    s.finish(&mut |e| events.push(e));
    windows.extend(s.take_windows().expect("windows reported"));
    (events, windows)
}

/// Every place a window occurs, overlapping ones too, the obvious way.
fn naive_windows(m: &Matcher, hay: &[u8]) -> Vec<(u64, usize)> {
    let patterns = m.decoder().expect("decoding").window_patterns();
    (0..hay.len())
        .filter_map(|at| {
            let w = patterns.iter().position(|p| hay[at..].starts_with(p))?;
            Some((at as u64, w))
        })
        .collect()
}

/// Pieces with mixed-case canaries and their windows, whole, cut and overlapping.
fn mixed_fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        fragment(),
        Just(b"Phi-Canary-3F9a".to_vec()),
        Just(b"self-tracked phi-CANARY-3f9A".to_vec()),
        Just(b"-3F9".to_vec()),
        Just(b"-3f9-3F9-3f".to_vec()),
        Just(b"-3".to_vec()),
        Just(b"F9a ".to_vec()),
        // A window's first 3 bytes (Teddy's prefix) without its 4th, and with it in the next
        // piece.
        Just(b"-3f8-3Fx".to_vec()),
        Just(b"-3F".to_vec()),
        Just(b"9".to_vec()),
        Just(b"pHi-cAnArY".to_vec()),
    ]
}

/// Pieces for two canaries, one inside the other.
fn nested_fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"xxabcdefghyy".to_vec()),
        Just(b"xxabcdefgh".to_vec()),
        Just(b"abcdefgh".to_vec()),
        Just(b"yy".to_vec()),
        Just(b"x".to_vec()),
        Just(b"\n".to_vec()),
    ]
}

/// Two canaries, one inside the other's variants; every window of each is all letters.
fn nested_matcher() -> Matcher {
    let texts = ["abcdefgh".to_owned(), "xxabcdefghyy".to_owned()];
    Matcher::new(
        canary::select(&texts, false).expect("valid"),
        VariantSet::All,
        None,
    )
    .expect("builds")
}

/// The demo and core canaries, every variant, with `nonce`'s markers when given.
fn demo_and_core(nonce: Option<Nonce>) -> Matcher {
    Matcher::new(vec![Canary::demo(), Canary::core()], VariantSet::All, nonce).expect("builds")
}

/// The pieces of `parts` cut at `cuts` give the whole buffer's events.
fn same_events_under_split(
    m: &Matcher,
    parts: &[Vec<u8>],
    cuts: Vec<usize>,
) -> Result<(), TestCaseError> {
    let hay = parts.concat();
    prop_assert_eq!(scan_pieces(m, cut(&hay, cuts)), reference(m, &hay));
    Ok(())
}

/// The same, and every window of the whole buffer is reported once.
fn same_windows_under_split(
    m: &Matcher,
    parts: &[Vec<u8>],
    cuts: Vec<usize>,
) -> Result<(), TestCaseError> {
    let hay = parts.concat();
    let (events, windows) = scan_windows(m, cut(&hay, cuts));
    prop_assert_eq!(events, reference(m, &hay));
    prop_assert_eq!(windows, naive_windows(m, &hay));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn nested_canaries_under_any_split(
        parts in proptest::collection::vec(nested_fragment(), 0..40),
        cuts in proptest::collection::vec(0usize..400, 0..12),
    ) {
        let m = nested_matcher();
        same_events_under_split(&m, &parts, cuts)?;
    }

    #[test]
    fn any_split_gives_the_whole_buffer_events(
        parts in proptest::collection::vec(fragment(), 0..40),
        cuts in proptest::collection::vec(0usize..2000, 0..12),
    ) {
        let m = demo_and_core(Some(Nonce::new("nonce-123").expect("nonce")));
        same_events_under_split(&m, &parts, cuts)?;
    }

    #[test]
    fn every_window_is_reported_once_under_any_split(
        parts in proptest::collection::vec(mixed_fragment(), 0..40),
        cuts in proptest::collection::vec(0usize..2000, 0..12),
    ) {
        let m = demo_and_core(None);
        prop_assert!(m.finds_windows());
        same_windows_under_split(&m, &parts, cuts)?;
    }

    #[test]
    fn windows_inside_matches_are_reported_too(
        parts in proptest::collection::vec(nested_fragment(), 0..40),
        cuts in proptest::collection::vec(0usize..400, 0..12),
    ) {
        // Every window of these canaries is all letters: 16 cases each, some inside the
        // matches of the other canary's variants.
        let m = nested_matcher();
        prop_assert!(m.finds_windows());
        same_windows_under_split(&m, &parts, cuts)?;
    }
}
