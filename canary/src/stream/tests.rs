//! The matcher over streams: every variant, a split at every position around a chunk boundary,
//! two streams interleaved, binary garbage and NUL bytes, a 100 MB single line; random splits
//! against a whole-buffer reference are in `tests/props.rs`.

mod props;

use super::{Event, StreamScanner};
use crate::canary::{self, Canary};
use crate::marker::{MarkerKind, Nonce};
use crate::matcher::{Found, Matcher};
use crate::variant::{Variant, VariantSet};

fn demo_matcher() -> Matcher {
    Matcher::new(vec![Canary::demo(), Canary::core()], VariantSet::All, None).expect("builds")
}

/// The events of `pieces` fed in order to one scanner, and its byte and line counts.
fn scan_pieces<'a>(m: &Matcher, pieces: impl IntoIterator<Item = &'a [u8]>) -> Vec<Event> {
    let mut events = Vec::new();
    let mut s = StreamScanner::new(m);
    for piece in pieces {
        s.feed(piece, &mut |e| events.push(e));
    }
    s.finish(&mut |e| events.push(e));
    events
}

/// Leftmost-longest matches of the whole buffer, the slow and obvious way (not through the
/// matcher's engine): at each position the longest pattern that starts there, else move on.
fn reference(m: &Matcher, hay: &[u8]) -> Vec<Event> {
    let mut events = Vec::new();
    let mut at = 0;
    while at < hay.len() {
        let longest = (0..m.patterns.len())
            .filter(|&i| hay[at..].starts_with(&m.patterns[i]))
            .max_by_key(|&i| m.patterns[i].len());
        match longest {
            Some(i) => {
                events.push(Event {
                    found: m.found[i],
                    line: naive_newlines(&hay[..at]) + 1,
                    offset: at as u64,
                });
                at += m.patterns[i].len();
            }
            None => at += 1,
        }
    }
    events
}

// The reference counts the obvious way on purpose: it checks the scanner's SIMD count.
#[allow(clippy::naive_bytecount)]
fn naive_newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

fn canary_hit(canary: usize, variant: Variant, line: u64, offset: u64) -> Event {
    Event {
        found: Found::Canary { canary, variant },
        line,
        offset,
    }
}

/// A small deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn byte(&mut self) -> u8 {
        self.next().to_le_bytes()[3]
    }
}

#[test]
fn every_variant_of_every_canary_is_found_and_named() {
    let m = demo_matcher();
    for (index, canary) in m.canaries().iter().enumerate() {
        let mut expected_variants = 0;
        for &variant in &Variant::ALL {
            let encoded = variant.encode(canary.text().as_bytes());
            let first = Variant::ALL
                .iter()
                .find(|v| v.encode(canary.text().as_bytes()) == encoded)
                .expect("itself");
            if *first != variant {
                continue; // the same bytes as an earlier variant: reported as that one
            }
            expected_variants += 1;
            let hay = [
                b"{\"msg\":\"ok\"}\n{\"note\":\"" as &[u8],
                &encoded,
                b"\"}\n",
            ]
            .concat();
            let events = m.find_all(&hay);
            assert_eq!(
                events,
                [canary_hit(index, variant, 2, 22)],
                "{} {}",
                canary.id(),
                variant.name()
            );
        }
        assert_eq!(m.pattern_count(index), expected_variants);
    }
}

#[test]
fn base64_of_a_real_line_is_found_at_each_alignment() {
    let m = demo_matcher();
    for (prefix, variant) in [
        ("", Variant::Base64At0),
        ("x", Variant::Base64At1),
        ("xy", Variant::Base64At2),
        ("note: ", Variant::Base64At0),
    ] {
        let plain = format!("{prefix}{} !", canary::DEMO);
        let encoded = standard_base64(plain.as_bytes());
        let events = m.find_all(format!("payload={encoded}\n").as_bytes());
        assert_eq!(events.len(), 1, "{prefix:?}");
        assert_eq!(events[0].found, Found::Canary { canary: 0, variant });
    }
}

fn standard_base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [0, 1, 2].map(|i| chunk.get(i).copied().unwrap_or(0));
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 0x3f) as usize]));
        }
    }
    out
}

#[test]
fn a_split_at_every_position_around_a_chunk_boundary() {
    let m = demo_matcher();
    let filler: Vec<u8> = b"{\"level\":\"INFO\",\"msg\":\"served\"}\n"
        .iter()
        .copied()
        .cycle()
        .take(330)
        .collect();
    let newlines_in_filler = naive_newlines(&filler);
    for (index, canary) in m.canaries().iter().enumerate() {
        for &variant in VariantSet::All.variants() {
            let encoded = variant.encode(canary.text().as_bytes());
            let hay = [&filler[..], b"comment=", &encoded, b" end\n", &filler[..]].concat();
            let start = filler.len() + b"comment=".len();
            let expected = m.find_all(&hay);
            assert_eq!(expected.len(), 1);
            assert_eq!(expected[0].offset, start as u64);
            assert_eq!(expected[0].line, newlines_in_filler + 1);
            assert!(matches!(expected[0].found, Found::Canary { canary, .. } if canary == index));
            // Every boundary from well before the match to well after it, in two pieces and
            // in three (a piece shorter than the carry-over in the middle).
            let lo = start - m.longest() - 2;
            let hi = start + encoded.len() + m.longest() + 2;
            for cut in lo..=hi {
                let (a, b) = hay.split_at(cut);
                assert_eq!(scan_pieces(&m, [a, b]), expected, "cut {cut}");
                let (b1, b2) = b.split_at(3);
                assert_eq!(scan_pieces(&m, [a, b1, b2]), expected, "cut {cut}+3");
            }
        }
    }
}

#[test]
fn both_engines_agree_with_the_reference() {
    let hay = format!(
        "x {} y {} z {}\n{}",
        canary::DEMO,
        canary::CORE.to_lowercase(),
        Variant::HexUpper
            .encode(canary::CORE.as_bytes())
            .escape_ascii(),
        canary::CORE
    );
    let teddy = demo_matcher();
    assert_eq!(teddy.engine(), "teddy");
    let automaton =
        Matcher::new(vec![Canary::core()], VariantSet::Exact, None).expect("one pattern");
    assert_eq!(automaton.engine(), "automaton");
    for m in [&teddy, &automaton] {
        let expected = reference(m, hay.as_bytes());
        assert!(!expected.is_empty());
        assert_eq!(m.find_all(hay.as_bytes()), expected, "{}", m.engine());
    }
}

#[test]
fn one_byte_at_a_time() {
    let m = demo_matcher();
    let hay = format!(
        "a\nb {} c\nPHI-CANARY-3f9a\n{}",
        canary::DEMO,
        canary::DEMO.to_uppercase()
    );
    let events = scan_pieces(&m, hay.as_bytes().chunks(1));
    assert_eq!(
        events,
        [
            canary_hit(0, Variant::Exact, 2, 4),
            canary_hit(1, Variant::Exact, 3, 35),
            canary_hit(0, Variant::Upper, 4, 51),
        ]
    );
    assert_eq!(events, reference(&m, hay.as_bytes()));
}

#[test]
fn two_streams_interleaved_keep_their_own_carry_over() {
    let m = demo_matcher();
    let mut out = StreamScanner::new(&m);
    let mut err = StreamScanner::new(&m);
    let (mut out_events, mut err_events) = (Vec::new(), Vec::new());
    // stdout ends in the first half of the core token and stderr starts with the second half:
    // together they would spell it, but they are different streams.
    out.feed(b"GET /x\nuser PHI-CAN", &mut |e| out_events.push(e));
    err.feed(b"ARY-3f9a warn\n", &mut |e| err_events.push(e));
    out.feed(b"dummy\n", &mut |e| out_events.push(e));
    err.feed(b"x self-tracked PHI-", &mut |e| err_events.push(e));
    out.feed(b"then PHI-CANARY-", &mut |e| out_events.push(e));
    err.feed(b"CANARY-3f9a\n", &mut |e| err_events.push(e));
    out.feed(b"3f9a\n", &mut |e| out_events.push(e));
    out.finish(&mut |e| out_events.push(e));
    err.finish(&mut |e| err_events.push(e));
    assert_eq!(out_events, [canary_hit(1, Variant::Exact, 3, 30)]);
    assert_eq!(err_events, [canary_hit(0, Variant::Exact, 2, 16)]);
    assert_eq!((out.bytes(), out.lines()), (46, 3));
    assert_eq!((err.bytes(), err.lines()), (45, 2));
}

#[test]
fn binary_garbage_and_nul_bytes() {
    let m = demo_matcher();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut hay: Vec<u8> = (0..1 << 20).map(|_| rng.byte()).collect();
    // NULs and invalid UTF-8 right around the canaries.
    let plants = [
        (1000, canary::DEMO.as_bytes().to_vec()),
        (400_000, Variant::HexUpper.encode(canary::CORE.as_bytes())),
        (1_048_000, canary::CORE.as_bytes().to_vec()),
    ];
    for (at, bytes) in &plants {
        hay[at - 2..*at].copy_from_slice(&[0, 0xff]);
        hay[*at..at + bytes.len()].copy_from_slice(bytes);
        hay[at + bytes.len()] = 0;
    }
    let expected = reference(&m, &hay);
    let offsets: Vec<u64> = expected.iter().map(|e| e.offset).collect();
    assert_eq!(offsets, [1000, 400_000, 1_048_000]);
    assert_eq!(
        expected[1].found,
        Found::Canary {
            canary: 1,
            variant: Variant::HexUpper
        }
    );
    let mut pieces = Vec::new();
    let mut rest = &hay[..];
    while !rest.is_empty() {
        let n = (rng.next() % 70_000) as usize + 1;
        let (piece, tail) = rest.split_at(n.min(rest.len()));
        pieces.push(piece);
        rest = tail;
    }
    assert_eq!(scan_pieces(&m, pieces), expected);
}

#[test]
fn a_100_mb_single_line_streamed() {
    const TOTAL: usize = 100_000_000;
    const PIECE: usize = 64 * 1024;
    let m = demo_matcher();
    let demo = canary::DEMO.as_bytes();
    // Planted at the start, across a piece boundary, in the middle and at the very end.
    let plants = [0, 5 * PIECE - 10, TOTAL / 2, TOTAL - demo.len()];
    let filler = b"lorem ipsum dolor sit amet, consectetur adipiscing elit; ";
    let mut s = StreamScanner::new(&m);
    let mut events = Vec::new();
    let cycled: Vec<u8> = filler
        .iter()
        .copied()
        .cycle()
        .take(PIECE + filler.len())
        .collect();
    let mut piece = vec![0u8; PIECE];
    let mut at = 0;
    while at < TOTAL {
        let n = PIECE.min(TOTAL - at);
        let phase = at % filler.len();
        piece[..n].copy_from_slice(&cycled[phase..phase + n]);
        for &p in &plants {
            // Write the part of each planted canary that falls in this piece.
            for (k, &b) in demo.iter().enumerate() {
                if (at..at + n).contains(&(p + k)) {
                    piece[p + k - at] = b;
                }
            }
        }
        s.feed(&piece[..n], &mut |e| events.push(e));
        at += n;
    }
    s.finish(&mut |e| events.push(e));
    let expected: Vec<Event> = plants
        .iter()
        .map(|&p| canary_hit(0, Variant::Exact, 1, p as u64))
        .collect();
    assert_eq!(events, expected);
    assert_eq!((s.bytes(), s.lines()), (TOTAL as u64, 1));
    assert!(
        s.tail.capacity() < 4 * m.longest(),
        "the carry-over stays small"
    );
}

#[test]
fn a_cut_off_long_match_is_not_lost_to_a_short_one_after_it() {
    // `abcdefgh` is complete inside a piece that cuts `xxabcdefghyy` off: the long one, which
    // starts first, must win once the next piece arrives.
    let canaries =
        canary::select(&["abcdefgh".to_owned(), "xxabcdefghyy".to_owned()], false).expect("valid");
    let m = Matcher::new(canaries, VariantSet::Exact, None).expect("builds");
    let hay = b"0123456789 0123456789 0123456789 xxabcdefghyy tail\n";
    let expected = reference(&m, hay);
    assert_eq!(
        expected,
        [Event {
            found: Found::Canary {
                canary: 1,
                variant: Variant::Exact
            },
            line: 1,
            offset: 33
        }]
    );
    for cut in 0..hay.len() {
        let (a, b) = hay.split_at(cut);
        assert_eq!(scan_pieces(&m, [a, b]), expected, "cut {cut}");
    }
    assert_eq!(scan_pieces(&m, hay.chunks(1)), expected);
}

#[test]
fn marker_lines_need_their_line_ending() {
    let nonce = Nonce::new("run-0001-ab").expect("nonce");
    let m = Matcher::new(vec![Canary::core()], VariantSet::Exact, Some(nonce)).expect("builds");
    let hay = b"2025-01-01T00:00:00Z phiguard-marker start run-0001-ab\r\n\
                phiguard-marker start run-0001-abc\n\
                phiguard-marker end run-0001-ab";
    let found: Vec<Found> = m.find_all(hay).iter().map(|e| e.found).collect();
    // The second line carries another nonce, the last was cut before its newline.
    assert_eq!(found, [Found::Marker(MarkerKind::Start)]);
    let mut complete = hay.to_vec();
    complete.push(b'\n');
    let events = m.find_all(&complete);
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].found, Found::Marker(MarkerKind::End));
    assert_eq!(events[1].line, 3);
}
