//! `Matcher`: one aho-corasick automaton over every (canary, variant) pattern and the marker
//! lines, with a table from pattern to what it stands for.
//!
//! How the search runs (which patterns an engine looks for, and how the others are recovered)
//! is in `matcher/search.rs`.
//!
//! The search uses leftmost-longest semantics: where two patterns start at the same byte the
//! longer wins, and where they overlap the one starting first wins, so `self-tracked
//! PHI-CANARY-3f9a` is one `demo` hit, not a `demo` and a `core` hit. Identical patterns (the
//! lower-case form of an already lower-case canary, the percent form of a canary with no byte to
//! escape) are kept once, under the first variant in [`Variant::ALL`] order.

use std::collections::HashMap;

mod packed;
mod search;

pub(crate) use search::{WINDOW_CAP, WindowCursor};

use crate::canary::Canary;
use crate::decode::Decoder;
use crate::marker::{MarkerKind, Nonce};
use crate::stream::{Event, StreamScanner};
use crate::variant::{Variant, VariantSet};
use search::Search;

/// What a pattern stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A canary, by its index in [`Matcher::canaries`], in one variant.
    Canary {
        /// Index into [`Matcher::canaries`].
        canary: usize,
        /// The encoding that matched.
        variant: Variant,
    },
    /// A marker line.
    Marker(MarkerKind),
}

/// Why a matcher could not be built.
#[derive(Debug, thiserror::Error)]
pub enum MatcherError {
    /// No canary to search for.
    #[error("no canary to scan for")]
    NoCanary,
    /// A marker line and a canary pattern contain one another, so one could hide the other.
    #[error("the marker nonce and canary `{0}` overlap; pick a nonce that shares no text with it")]
    MarkerOverlap(String),
    /// aho-corasick refused the patterns.
    #[error("cannot build the automaton: {0}")]
    Build(#[from] aho_corasick::BuildError),
}

/// The compiled search: canaries in a set of variants, and optionally the marker lines.
///
/// **Invariant:** no pattern holds a newline except as its last byte (canaries are printable
/// ASCII and every variant keeps them so; marker lines end in `\n`), so no match crosses the
/// point just after a newline, and a stream cut there can be scanned in parts.
///
/// ```
/// use phi_canary::{Canary, Found, Matcher, Variant, VariantSet};
///
/// let m = Matcher::new(vec![Canary::demo(), Canary::core()], VariantSet::All, None)?;
/// let events = m.find_all(b"note=self-tracked%20PHI-CANARY-3f9a\n");
/// assert_eq!(events.len(), 1);
/// assert_eq!(events[0].found, Found::Canary { canary: 0, variant: Variant::Percent });
/// assert_eq!((events[0].line, events[0].offset), (1, 5));
/// # Ok::<(), phi_canary::MatcherError>(())
/// ```
pub struct Matcher {
    search: Search,
    pub(crate) patterns: Vec<Vec<u8>>,
    pub(crate) found: Vec<Found>,
    canaries: Vec<Canary>,
    variants: VariantSet,
    marker: Option<Nonce>,
    decoder: Option<Decoder>,
}

impl Matcher {
    /// Compiles `canaries` in every variant of `variants`, and the marker lines of `marker`.
    /// With [`VariantSet::All`], streams are also decoded and rescanned (see
    /// [`decode`](crate::decode)).
    pub fn new(
        canaries: Vec<Canary>,
        variants: VariantSet,
        marker: Option<Nonce>,
    ) -> Result<Matcher, MatcherError> {
        if canaries.is_empty() {
            return Err(MatcherError::NoCanary);
        }
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut found = Vec::new();
        let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
        for (i, canary) in canaries.iter().enumerate() {
            for &variant in variants.variants() {
                let bytes = variant.encode(canary.text().as_bytes());
                if seen.contains_key(&bytes) {
                    continue;
                }
                seen.insert(bytes.clone(), patterns.len());
                patterns.push(bytes);
                found.push(Found::Canary { canary: i, variant });
            }
        }
        if let Some(nonce) = &marker {
            for (kind, bytes) in nonce.patterns() {
                let line = &bytes[..nonce.line(kind).len()];
                for (p, f) in patterns.iter().zip(&found) {
                    if let Found::Canary { canary, .. } = f
                        && (contains(line, p) || contains(p, line))
                    {
                        let id = canaries[*canary].id().to_owned();
                        return Err(MatcherError::MarkerOverlap(id));
                    }
                }
                patterns.push(bytes);
                found.push(Found::Marker(kind));
            }
        }
        let decoder = match variants {
            VariantSet::All => Some(Decoder::new(&canaries)?),
            VariantSet::Exact => None,
        };
        let windows = decoder.as_ref().map_or(&[][..], Decoder::window_patterns);
        let search = Search::new(&patterns, windows)?;
        Ok(Matcher {
            search,
            patterns,
            found,
            canaries,
            variants,
            marker,
            decoder,
        })
    }

    /// Keeps decoding on (as built) or turns it off: the pre-computed variants only.
    ///
    /// ```
    /// use phi_canary::{Canary, Matcher, VariantSet};
    ///
    /// let m = Matcher::new(vec![Canary::core()], VariantSet::All, None)?;
    /// assert!(m.decoder().is_some());
    /// assert!(m.decoding(false).decoder().is_none());
    /// # Ok::<(), phi_canary::MatcherError>(())
    /// ```
    #[must_use]
    pub fn decoding(mut self, on: bool) -> Matcher {
        if !on && self.decoder.take().is_some() {
            // The same patterns built once already; without the windows, Teddy has fewer.
            if let Ok(search) = Search::new(&self.patterns, &[]) {
                self.search = search;
            }
        }
        self
    }

    /// The decoder streams are rescanned with, if decoding is on.
    #[must_use]
    pub fn decoder(&self) -> Option<&Decoder> {
        self.decoder.as_ref()
    }

    /// The canaries, in the order [`Found::Canary`] indexes them.
    #[must_use]
    pub fn canaries(&self) -> &[Canary] {
        &self.canaries
    }

    /// The variant set it was built with.
    #[must_use]
    pub fn variants(&self) -> VariantSet {
        self.variants
    }

    /// The marker nonce, if the positive control was requested.
    #[must_use]
    pub fn marker(&self) -> Option<&Nonce> {
        self.marker.as_ref()
    }

    /// How many distinct patterns canary `index` contributes.
    ///
    /// ```
    /// use phi_canary::{Canary, Matcher, VariantSet};
    ///
    /// let m = Matcher::new(vec![Canary::core()], VariantSet::All, None)?;
    /// // Percent, plus and \u0020 forms of a canary without a space are the exact form.
    /// assert_eq!(m.pattern_count(0), 8);
    /// # Ok::<(), phi_canary::MatcherError>(())
    /// ```
    #[must_use]
    pub fn pattern_count(&self, index: usize) -> usize {
        self.found
            .iter()
            .filter(|f| matches!(f, Found::Canary { canary, .. } if *canary == index))
            .count()
    }

    /// The longest pattern in bytes; a stream carries over one byte less.
    #[must_use]
    pub fn longest(&self) -> usize {
        self.patterns.iter().map(Vec::len).max().unwrap_or(1)
    }

    /// How far before the pattern the engine finds a recovered match can start.
    pub(crate) fn lookbehind(&self) -> usize {
        self.search.lookbehind()
    }

    /// Every hit and marker in one complete stream held in memory. Streams use
    /// [`StreamScanner`] instead, which gives the same events for any split of the input.
    #[must_use]
    pub fn find_all(&self, haystack: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        let mut scanner = StreamScanner::new(self);
        scanner.feed(haystack, &mut |e| events.push(e));
        scanner.finish(&mut |e| events.push(e));
        events
    }

    /// Whether the fast path reports the decoder's mixed-case windows (see
    /// `matcher/search.rs`): decoding is on and Teddy holds them.
    pub(crate) fn finds_windows(&self) -> bool {
        self.decoder.is_some() && self.search.finds_windows()
    }

    /// Reports the windows in `haystack` from `cursor.scanned` to its end.
    pub(crate) fn windows_to_end(&self, haystack: &[u8], cursor: &mut WindowCursor) {
        self.search.windows_to_end(haystack, cursor);
    }

    /// Leftmost-longest matches of every pattern that the engine finds at or after `from` in
    /// `haystack`. A match may start up to [`lookbehind`](Self::lookbehind) bytes before the
    /// engine's find, in `before` (the bytes that precede `haystack` in the stream) when it
    /// reaches past `haystack`'s start, but never before `lower` (in `haystack` coordinates).
    /// With a cursor, the windows the search passes are reported to it.
    pub(crate) fn matches_from<'h>(
        &'h self,
        before: &'h [u8],
        haystack: &'h [u8],
        from: usize,
        lower: isize,
        mut windows: Option<&'h mut WindowCursor>,
    ) -> impl Iterator<Item = Match> + 'h {
        let mut at = from;
        let mut lower = lower;
        std::iter::from_fn(move || {
            let (found_at, end, pattern) =
                self.search
                    .find(&self.patterns, haystack, at, windows.as_deref_mut())?;
            let (start, pattern) =
                self.search
                    .extend(&self.patterns, pattern, (before, haystack), found_at, lower);
            // Patterns are never empty, so every match moves the search forward.
            at = end;
            lower = end.cast_signed();
            Some(Match {
                start,
                end,
                found_at,
                found: self.found[pattern],
            })
        })
    }

    /// Which search runs: `teddy` or `automaton`.
    ///
    /// ```
    /// use phi_canary::{Canary, Matcher, VariantSet};
    ///
    /// let one = Matcher::new(vec![Canary::core()], VariantSet::Exact, None)?;
    /// assert_eq!(one.engine(), "automaton");
    /// # Ok::<(), phi_canary::MatcherError>(())
    /// ```
    #[must_use]
    pub fn engine(&self) -> &'static str {
        self.search.engine()
    }
}

/// A match of [`Matcher::matches_from`].
pub(crate) struct Match {
    /// Where it starts in the haystack; negative in the bytes before it.
    pub(crate) start: isize,
    /// Where it ends in the haystack.
    pub(crate) end: usize,
    /// Where the engine found it: `start`, or later for a recovered match.
    pub(crate) found_at: usize,
    /// What matched.
    pub(crate) found: Found,
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_patterns_are_kept_once_under_the_first_variant() {
        let canary = Canary::from_text("abcdefgh12", 1).expect("valid");
        let m = Matcher::new(vec![canary], VariantSet::All, None).expect("builds");
        // exact = lower = percent = plus = \u0020, and its hex has no letter, so hex-upper =
        // hex-lower: exact, upper, 3 × base64 and hex-lower remain.
        assert_eq!(m.pattern_count(0), 6);
        let events = m.find_all(b"abcdefgh12");
        assert_eq!(
            events[0].found,
            Found::Canary {
                canary: 0,
                variant: Variant::Exact
            }
        );
    }

    #[test]
    fn many_canaries_share_prefixes_and_still_match() {
        let texts: Vec<String> = (0..12)
            .map(|i: u128| format!("PHI-CANARY-{:032x}", (i + 1) << 96))
            .collect();
        let canaries = crate::canary::select(&texts, true).expect("valid");
        let m = Matcher::new(canaries, VariantSet::All, None).expect("builds");
        assert!(m.patterns.len() > 64, "{}", m.patterns.len());
        assert_eq!(m.engine(), "teddy");
        let hay = format!("a {} b {}", texts[11].to_lowercase(), crate::canary::DEMO);
        let found: Vec<Found> = m.find_all(hay.as_bytes()).iter().map(|e| e.found).collect();
        let lower = Found::Canary {
            canary: 13,
            variant: Variant::Lower,
        };
        let demo = Found::Canary {
            canary: 0,
            variant: Variant::Exact,
        };
        assert_eq!(found, [lower, demo]);
    }

    #[test]
    fn too_many_distinct_prefixes_fall_back_to_the_automaton() {
        // 80 distinct 3-byte prefixes (Teddy's).
        let texts: Vec<String> = (0..80).map(|i| format!("{i:03}-canary")).collect();
        let canaries = crate::canary::select(&texts, false).expect("valid");
        let m = Matcher::new(canaries, VariantSet::Exact, None).expect("builds");
        assert_eq!(m.engine(), "automaton");
        let events = m.find_all(b"x 079-canary 000-canary");
        assert_eq!(events.len(), 2);
        assert_eq!((events[0].offset, events[1].offset), (2, 13));
    }

    #[test]
    fn the_demo_canary_is_recovered_from_its_core_token() {
        let exact = Matcher::new(
            vec![Canary::demo(), Canary::core()],
            VariantSet::Exact,
            None,
        )
        .expect("builds");
        assert_eq!((exact.search.searched(), exact.engine()), (1, "automaton"));
        assert_eq!(exact.lookbehind(), "self-tracked ".len());
        let all = Matcher::new(
            vec![Canary::demo(), Canary::core()],
            VariantSet::All,
            Some(Nonce::new("run-1234").expect("nonce")),
        )
        .expect("builds");
        // The core token's 8 patterns and the 4 marker lines; the demo's 11 are recovered.
        assert_eq!((all.search.searched(), all.engine()), (12, "teddy"));
        let hex_prefix = Variant::HexLower.encode(b"self-tracked ").len();
        assert_eq!(all.lookbehind(), hex_prefix);
    }

    #[test]
    fn newlines_only_end_patterns() {
        let nonce = Nonce::new("run-1234").expect("nonce");
        let m = Matcher::new(
            vec![Canary::demo(), Canary::core()],
            VariantSet::All,
            Some(nonce),
        )
        .expect("builds");
        for p in &m.patterns {
            assert!(!p[..p.len() - 1].contains(&b'\n'));
        }
    }

    #[test]
    fn a_nonce_that_overlaps_a_canary_is_refused() {
        let nonce = Nonce::new("PHI-CANARY-3f9a").expect("valid nonce");
        let err = Matcher::new(vec![Canary::core()], VariantSet::Exact, Some(nonce))
            .err()
            .expect("overlap");
        assert_eq!(
            err.to_string(),
            "the marker nonce and canary `core` overlap; pick a nonce that shares no text with it"
        );
    }
}
