//! Decode and rescan: the candidate runs of a log line that can decode are decoded, and the
//! result is searched for every canary (ASCII case-insensitively) and decoded again, to
//! [`MAX_DEPTH`] steps. A hit reports its chain (`base64>gzip>exact`).
//!
//! The pre-computed variants ([`Variant`](crate::Variant)) stay the fast path; this pass only
//! touches bytes that can decode:
//! - maximal runs of the base64 alphabets (standard and URL-safe), `=`, `:` of at least
//!   ⌈4·shortest canary/3⌉ bytes: decoded as base64 at all four alignments and, for their
//!   hex digits (`:` and `-` separators left out), as hex at both;
//! - the token (up to a blank, quote, comma, `<` or `>`) around a `%XX`, `\u`, `&#` or `&name;`:
//!   percent-decoded, unescaped, or its character references replaced;
//! - a region of NUL-interleaved bytes: UTF-16LE/BE of ASCII text;
//! - in decoded bytes, a gzip or zlib header: decompressed, at most [`INFLATE_CAP`] bytes.
//!
//! Mixed case (`Phi-Canary-3F9a`) in the log itself is found through a 4-byte window of each
//! canary with the fewest letters, searched in every case: a plain, case-sensitive search.
//!
//! **Invariant:** memory is bounded. A run or token is decoded only up to [`TOKEN_CAP`] bytes,
//! a decompression only to [`INFLATE_CAP`] bytes, and at most [`MAX_DEPTH`] buffers are alive.
//! Past a cap the scan fails with the position (exit 2); it never skips silently.

mod lines;
mod runs;
mod steps;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, Input, MatchKind, Span, packed};
use memchr::memmem;

pub use lines::{DecodeError, LineDecoder, StreamHit};

use crate::canary::Canary;
use runs::RunFinder;
use steps::Inflated;

/// The most decoding steps in one chain.
pub const MAX_DEPTH: usize = 4;

/// The longest run or token decoded; a longer one is an error, not a skip.
pub const TOKEN_CAP: usize = 4 << 20;

/// The most bytes one decompression may produce; more is a decompression bomb.
pub const INFLATE_CAP: usize = 4 << 20;

/// One decoding step of a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Base64, standard or URL-safe, padded or not.
    Base64,
    /// Hex digits, with or without `:`/`-` separators.
    Hex,
    /// `%XX` escapes.
    Percent,
    /// JSON `\u0050` and Rust `\u{50}` escapes.
    Unicode,
    /// HTML character references.
    Html,
    /// UTF-16 (LE or BE) of ASCII text.
    Utf16,
    /// A gzip stream.
    Gzip,
    /// A zlib stream.
    Zlib,
}

impl Step {
    /// The name in a chain.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Step::Base64 => "base64",
            Step::Hex => "hex",
            Step::Percent => "percent",
            Step::Unicode => "unicode",
            Step::Html => "html",
            Step::Utf16 => "utf16",
            Step::Gzip => "gzip",
            Step::Zlib => "zlib",
        }
    }
}

/// The steps that led to a hit, outermost first.
///
/// ```
/// use phi_canary::decode::{Chain, Step};
///
/// let chain = Chain::default().then(Step::Base64).then(Step::Gzip);
/// assert_eq!(chain.render("exact"), "base64>gzip>exact");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Chain {
    steps: [Option<Step>; MAX_DEPTH],
    len: usize,
}

impl Chain {
    /// This chain with `step` added after its last step.
    #[must_use]
    pub fn then(mut self, step: Step) -> Chain {
        if self.len < MAX_DEPTH {
            self.steps[self.len] = Some(step);
            self.len += 1;
        }
        self
    }

    /// How many steps.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// No step at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The steps joined by `>`, then `last` (how the decoded bytes matched).
    #[must_use]
    pub fn render(&self, last: &str) -> String {
        let mut out = String::new();
        for step in self.steps.iter().flatten() {
            out.push_str(step.name());
            out.push('>');
        }
        out.push_str(last);
        out
    }
}

/// A canary found by decoding: where the outermost run is in the haystack, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The canary's index, as in [`Matcher::canaries`](crate::Matcher::canaries).
    pub canary: usize,
    /// Where the run that decoded to it starts.
    pub start: usize,
    /// Where that run ends.
    pub end: usize,
    /// The decoding steps; empty for mixed case in the log itself.
    pub chain: Chain,
    /// The decoded bytes differ from the canary in case.
    pub mixed_case: bool,
}

/// Why decoding stopped: a cap was reached, at this position of the haystack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A decompression went past [`INFLATE_CAP`].
    Bomb(usize),
    /// A run or token longer than [`TOKEN_CAP`].
    TooLong(usize),
}

/// The canaries, compiled for decoded bytes.
///
/// ```
/// use phi_canary::Canary;
/// use phi_canary::decode::Decoder;
///
/// let d = Decoder::new(&[Canary::core()])?;
/// let hits = d.find(b"q=%50%48%49%2D%43%41%4E%41%52%59%2D%33%66%39%61 ok").expect("in bounds");
/// assert_eq!(hits[0].chain.render("exact"), "percent>exact");
/// assert!(d.find(b"PHI-CANARY-3f9b").expect("in bounds").is_empty());
/// # Ok::<(), aho_corasick::BuildError>(())
/// ```
pub struct Decoder {
    texts: Vec<Vec<u8>>,
    /// Every canary, ASCII case-insensitive, over decoded bytes (short).
    rescan: AhoCorasick,
    /// Every case of each canary's 4-byte window, case-sensitive, over the log itself, when the
    /// fast path does not report them.
    windows: Windows,
    /// Those windows' patterns.
    window_patterns: Vec<Vec<u8>>,
    /// For each window pattern: (canary, offset of the window in it).
    owners: Vec<Vec<(usize, usize)>>,
    /// The shortest base64 run worth decoding.
    min_run: usize,
    /// The search for such runs.
    run_finder: RunFinder,
    /// The shortest token worth decoding: the shortest canary.
    min_len: usize,
}

impl Decoder {
    /// Compiles `canaries` for decoding.
    pub fn new(canaries: &[Canary]) -> Result<Decoder, aho_corasick::BuildError> {
        let texts: Vec<Vec<u8>> = canaries
            .iter()
            .map(|c| c.text().as_bytes().to_vec())
            .collect();
        let rescan = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&texts)?;
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut owners: Vec<Vec<(usize, usize)>> = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let off = window_offset(text);
            for case in cases(&text[off..off + 4]) {
                match patterns.iter().position(|p| *p == case) {
                    Some(at) => owners[at].push((i, off)),
                    None => {
                        patterns.push(case);
                        owners.push(vec![(i, off)]);
                    }
                }
            }
        }
        let windows = Windows::new(&patterns)?;
        let min_len = texts.iter().map(Vec::len).min().unwrap_or(1);
        let min_run = (4 * min_len).div_ceil(3);
        Ok(Decoder {
            texts,
            rescan,
            windows,
            window_patterns: patterns,
            owners,
            min_run,
            run_finder: RunFinder::new(min_run),
            min_len,
        })
    }

    /// The mixed-case windows, all 4 bytes long; the fast path's Teddy can report where they
    /// occur (`matcher/search.rs`), so the log is not searched twice.
    pub(crate) fn window_patterns(&self) -> &[Vec<u8>] {
        &self.window_patterns
    }

    /// Every canary found by decoding `haystack` (a whole number of lines), or mixed case in
    /// it, in order of position; or the cap that stopped the search.
    pub fn find(&self, haystack: &[u8]) -> Result<Vec<Decoded>, Limit> {
        self.find_with(haystack, None)
    }

    /// [`find`](Self::find), given where the windows of
    /// [`window_patterns`](Self::window_patterns) occur in `haystack` (every occurrence, as
    /// (position, window index) in order), or searching them itself.
    pub(crate) fn find_with(
        &self,
        haystack: &[u8],
        windows: Option<&[(usize, usize)]>,
    ) -> Result<Vec<Decoded>, Limit> {
        let mut out = Vec::new();
        match windows {
            Some(found) => {
                for &(at, pattern) in found {
                    self.mixed_case_at(haystack, at, pattern, &mut out);
                }
            }
            None => self.windows.each(haystack, |at, pattern| {
                self.mixed_case_at(haystack, at, pattern, &mut out);
            }),
        }
        self.explore(haystack, Chain::default(), None, &mut out)?;
        out.sort_by_key(|d| {
            (
                d.start,
                std::cmp::Reverse(d.end),
                std::cmp::Reverse(d.chain.len()),
            )
        });
        // One hit per run: the longest run, and of its chains the longest (a short gzip body
        // is stored as it is, so `base64>exact` finds it too; `base64>gzip>exact` says more).
        let mut kept: Vec<Decoded> = Vec::with_capacity(out.len());
        for d in out {
            if kept.last().is_none_or(|k| d.start >= k.end) {
                kept.push(d);
            }
        }
        Ok(kept)
    }

    /// The mixed-case canaries in the log itself around window `pattern` at `at`: exact, lower
    /// and upper case are variants of the fast path, so they are left to it.
    fn mixed_case_at(&self, hay: &[u8], at: usize, pattern: usize, out: &mut Vec<Decoded>) {
        for &(canary, off) in &self.owners[pattern] {
            let text = &self.texts[canary];
            let Some(start) = at.checked_sub(off) else {
                continue;
            };
            let Some(seen) = hay.get(start..start + text.len()) else {
                continue;
            };
            if seen.eq_ignore_ascii_case(text)
                && seen != text.as_slice()
                && seen != text.to_ascii_lowercase().as_slice()
                && seen != text.to_ascii_uppercase().as_slice()
            {
                out.push(Decoded {
                    canary,
                    start,
                    end: start + text.len(),
                    chain: Chain::default(),
                    mixed_case: true,
                });
            }
        }
    }

    /// Decodes every candidate in `hay` and what it decodes to, depth first. `span` is the
    /// outermost run, once inside a decoding.
    fn explore(
        &self,
        hay: &[u8],
        chain: Chain,
        span: Option<(usize, usize)>,
        out: &mut Vec<Decoded>,
    ) -> Result<(), Limit> {
        if let Some((start, end)) = span {
            for m in self.rescan.find_iter(hay) {
                let canary = m.pattern().as_usize();
                out.push(Decoded {
                    canary,
                    start,
                    end,
                    chain,
                    mixed_case: hay[m.range()] != *self.texts[canary],
                });
            }
            if chain.len() == MAX_DEPTH {
                return Ok(());
            }
            self.inflate_all(hay, chain, (start, end), out)?;
        }
        let mut candidates = Vec::new();
        self.candidates(hay, &mut candidates);
        for (start, end, step) in candidates {
            let outer = span.unwrap_or((start, end));
            if end - start > TOKEN_CAP {
                return Err(Limit::TooLong(outer.0));
            }
            let run = &hay[start..end];
            let next = chain.then(step);
            match step {
                Step::Base64 => {
                    for part in run.split(|&b| b == b':' || b == b'=') {
                        if part.len() < self.min_run {
                            continue;
                        }
                        for skip in 0..4 {
                            let decoded = steps::base64(&part[skip..]);
                            self.explore(&decoded, next, Some(outer), out)?;
                        }
                    }
                }
                Step::Hex => {
                    for digits in steps::hex_segments(run) {
                        if digits.len() < 2 * self.min_len {
                            continue;
                        }
                        for skip in 0..2 {
                            self.explore(&steps::hex(&digits, skip), next, Some(outer), out)?;
                        }
                    }
                }
                Step::Percent => self.explore(&steps::percent(run), next, Some(outer), out)?,
                Step::Unicode => self.explore(&steps::unicode(run), next, Some(outer), out)?,
                Step::Html => self.explore(&steps::html(run), next, Some(outer), out)?,
                Step::Utf16 => self.explore(&steps::utf16(run), next, Some(outer), out)?,
                Step::Gzip | Step::Zlib => {}
            }
        }
        Ok(())
    }

    /// Decompresses every gzip or zlib stream that can start in `hay`.
    fn inflate_all(
        &self,
        hay: &[u8],
        chain: Chain,
        span: (usize, usize),
        out: &mut Vec<Decoded>,
    ) -> Result<(), Limit> {
        let gzip = memmem::find_iter(hay, b"\x1f\x8b\x08").map(|at| (at, true));
        let zlib = memchr::memchr_iter(0x78, hay)
            .filter(|&at| steps::zlib_header(&hay[at..]))
            .map(|at| (at, false));
        let starts: Vec<(usize, bool)> = gzip.chain(zlib).collect();
        for (at, is_gzip) in starts {
            match steps::inflate(&hay[at..], is_gzip, INFLATE_CAP) {
                Inflated::OverCap => return Err(Limit::Bomb(span.0)),
                Inflated::Bytes(bytes) if bytes.len() >= self.min_len => {
                    let step = if is_gzip { Step::Gzip } else { Step::Zlib };
                    self.explore(&bytes, chain.then(step), Some(span), out)?;
                }
                Inflated::Bytes(_) => {}
            }
        }
        Ok(())
    }

    /// The runs and tokens of `hay` that can decode, with the step to try.
    fn candidates(&self, hay: &[u8], out: &mut Vec<(usize, usize, Step)>) {
        // The run search's pass also gives every `%`, `\`, `&` and NUL, in order.
        let specials = self.runs(hay, out);
        let mut at = 0;
        for &i in specials.iter().filter(|&&i| hay[i] != 0) {
            if i < at {
                continue;
            }
            let step = match hay[i] {
                b'%' if hay
                    .get(i + 1..i + 3)
                    .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
                {
                    Some(Step::Percent)
                }
                b'\\' if hay.get(i + 1) == Some(&b'u') => Some(Step::Unicode),
                b'&' if hay
                    .get(i + 1)
                    .is_some_and(|&b| b == b'#' || b.is_ascii_alphabetic()) =>
                {
                    Some(Step::Html)
                }
                _ => None,
            };
            let Some(step) = step else {
                at = i + 1;
                continue;
            };
            let start = hay[..i]
                .iter()
                .rposition(|&b| is_delimiter(b))
                .map_or(0, |p| p + 1);
            let end = hay[i..]
                .iter()
                .position(|&b| is_delimiter(b))
                .map_or(hay.len(), |p| p + i);
            if end - start >= self.min_len {
                out.push((start, end, step));
            }
            at = end.max(i + 1);
        }
        let mut at = 0;
        for &i in specials.iter().filter(|&&i| hay[i] == 0) {
            if i < at {
                continue;
            }
            // NUL-interleaved: no two non-NUL bytes in a row.
            let mut start = i;
            while start > 0 && (hay[start - 1] == 0 || hay.get(start.wrapping_sub(2)) == Some(&0)) {
                start -= 1;
            }
            let mut end = i + 1;
            while end < hay.len() && (hay[end] == 0 || hay[end - 1] == 0) {
                end += 1;
            }
            if end - start >= 2 * self.min_len {
                out.push((start, end, Step::Utf16));
            }
            at = end;
        }
    }

    /// Maximal runs of the base64 alphabets, `=` and `:`, at least `min_run` long (see
    /// [`runs`]): each as a base64 candidate and, with enough hex digits, a hex one. Returns
    /// the positions of the `%`, `\`, `&` and NUL bytes, which the same pass finds.
    fn runs(&self, hay: &[u8], out: &mut Vec<(usize, usize, Step)>) -> Vec<usize> {
        let mut specials = Vec::new();
        let mut on = |start: usize, end: usize| {
            out.push((start, end, Step::Base64));
            let digits = hay[start..end]
                .iter()
                .filter(|b| b.is_ascii_hexdigit())
                .count();
            if digits >= 2 * self.min_len {
                out.push((start, end, Step::Hex));
            }
        };
        self.run_finder.find(hay, &mut on, &mut specials);
        specials
    }
}

/// The windows' search: every place one of them occurs, leftmost first. Teddy (aho-corasick's
/// packed SIMD searcher) where the CPU has it: the automaton's own choice for such patterns is a
/// prefilter on their first byte, and `-` (the core token's window starts with one) is in every
/// timestamp.
enum Windows {
    Teddy(packed::Searcher),
    Automaton(AhoCorasick),
}

impl Windows {
    fn new(patterns: &[Vec<u8>]) -> Result<Windows, aho_corasick::BuildError> {
        let teddy = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(patterns)
            .build();
        Ok(match teddy {
            Some(teddy) => Windows::Teddy(teddy),
            None => Windows::Automaton(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(patterns)?,
            ),
        })
    }

    /// Calls `on(start, pattern)` for every match in order, overlapping ones included: the
    /// search starts again at the byte after each match's start, as the fast path's does, so a
    /// window that begins inside another's match is seen (`xxAbCdefgh` holds `xxAb` and `AbCd`).
    fn each(&self, hay: &[u8], mut on: impl FnMut(usize, usize)) {
        let mut at = 0;
        while at < hay.len() {
            let found = match self {
                Windows::Teddy(teddy) => teddy.find_in(hay, Span::from(at..hay.len())),
                Windows::Automaton(ac) => ac.find(Input::new(hay).span(at..hay.len())),
            };
            let Some(m) = found else { break };
            on(m.start(), m.pattern().as_usize());
            at = m.start() + 1;
        }
    }
}

/// Where a token to percent-decode, unescape or dereference ends.
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'<' | b'>' | b',' | 0)
}

/// The offset of the 4-byte window of `text` with the fewest ASCII letters (the first such).
fn window_offset(text: &[u8]) -> usize {
    (0..=text.len().saturating_sub(4))
        .min_by_key(|&i| {
            text[i..i + 4]
                .iter()
                .filter(|b| b.is_ascii_alphabetic())
                .count()
        })
        .unwrap_or(0)
}

/// Every ASCII case of `window`.
fn cases(window: &[u8]) -> Vec<Vec<u8>> {
    let letters: Vec<usize> = (0..window.len())
        .filter(|&i| window[i].is_ascii_alphabetic())
        .collect();
    (0..1u32 << letters.len())
        .map(|mask| {
            let mut w = window.to_ascii_lowercase();
            for (bit, &i) in letters.iter().enumerate() {
                if mask & (1 << bit) != 0 {
                    w[i] = w[i].to_ascii_uppercase();
                }
            }
            w
        })
        .collect()
}

#[cfg(test)]
mod tests;
