//! The engine under [`Matcher`](super::Matcher), and the patterns it need not look for.
//!
//! **Recovered patterns.** A pattern `P = X·Q` that ends with another pattern `Q` is left out of
//! the engine when no pattern can overlap `P` anywhere but as that `Q`: the engine finds `Q`, and
//! `P` is recovered by comparing the `|X|` bytes before it. The demo canary ends with its core
//! token in every variant, so the default 19 patterns search as 8, and `--variants exact` as one
//! (memmem). The condition makes the result the leftmost-longest matches of the full set:
//!
//! - a pattern starting inside `P`, or ending inside it, would have to agree with `P`'s bytes
//!   there; none does, so no match of the full set overlaps an occurrence of `P` except `Q`;
//! - hence the first pattern found at or after a position is the full set's leftmost match, or
//!   the `Q` of a `P` starting before it, which the lookbehind restores.
//!
//! **Engines.** With two patterns or more, a Teddy SIMD searcher (`packed.rs`: our own on AVX-512
//! or AVX2, else aho-corasick's) finds the leftmost place where a pattern's first 3 bytes occur,
//! and the patterns starting with those bytes are compared there, longest first. Teddy over short,
//! distinct prefixes was measured 30% faster than over whole patterns, 3-byte prefixes 2.5 times
//! faster than 4-byte ones, and unlike the automaton's own prefilter choice (start or rare bytes,
//! measured at 0.3 GB/s on JSON logs for some pattern sets) its speed does not depend on the log.
//! One pattern, or a CPU without Teddy, uses the automaton (memmem for one pattern).
//!
//! **Windows.** The decoder's mixed-case windows (`-3f9`, `-3F9`: see `decode.rs`) are 4 bytes;
//! their first 3 are prefixes like the patterns', and the 4th is compared where one is found, so
//! they ride in the same Teddy: the pass over the log that finds the
//! patterns also reports, to a [`WindowCursor`], every place a window occurs — overlapping ones,
//! and those inside a match, included — instead of a second pass of the decoder's own.

use aho_corasick::{AhoCorasick, Input, MatchKind};

use super::packed::{PREFIX, Packed};

/// The engine, the patterns it looks for, and what each found pattern may extend to.
pub(super) struct Search {
    engine: Engine,
    /// For each pattern, the patterns recovered from it, longest first.
    extenders: Vec<Vec<usize>>,
    lookbehind: usize,
}

enum Engine {
    /// Teddy over the patterns' prefixes, then a comparison: two patterns or more.
    Teddy(Prefixes),
    /// The automaton: memmem for one pattern, or no Teddy on this CPU. Its pattern ids index
    /// `searched`.
    Automaton {
        ac: AhoCorasick,
        searched: Vec<usize>,
    },
}

impl Search {
    /// The search for `patterns`, which also reports the 4-byte `windows` when Teddy can hold
    /// them all (see [`finds_windows`](Self::finds_windows)).
    pub(super) fn new(
        patterns: &[Vec<u8>],
        windows: &[Vec<u8>],
    ) -> Result<Search, aho_corasick::BuildError> {
        let mut extenders = vec![Vec::new(); patterns.len()];
        let mut recovered = vec![false; patterns.len()];
        let mut order: Vec<usize> = (0..patterns.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(patterns[i].len()));
        for &p in &order {
            // The longest proper suffix that the engine looks for.
            let suffix = order.iter().copied().find(|&q| {
                q != p
                    && !recovered[q]
                    && patterns[q].len() < patterns[p].len()
                    && patterns[p].ends_with(&patterns[q])
            });
            if let Some(q) = suffix
                && extenders[p].is_empty()
                && alone(patterns, p, q)
            {
                recovered[p] = true;
                extenders[q].push(p);
            }
        }
        for list in &mut extenders {
            list.sort_by_key(|&i| std::cmp::Reverse(patterns[i].len()));
        }
        let lookbehind = (0..patterns.len())
            .flat_map(|q| extenders[q].iter().map(move |&p| (p, q)))
            .map(|(p, q)| patterns[p].len() - patterns[q].len())
            .max()
            .unwrap_or(0);
        let searched: Vec<usize> = (0..patterns.len()).filter(|&i| !recovered[i]).collect();
        let prefixes = if searched.len() > 1 {
            Prefixes::new(patterns, &searched, windows)
                .or_else(|| Prefixes::new(patterns, &searched, &[]))
        } else {
            None
        };
        let engine = match prefixes {
            Some(prefixes) => Engine::Teddy(prefixes),
            None => Engine::Automaton {
                ac: AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(searched.iter().map(|&i| &patterns[i]))?,
                searched,
            },
        };
        Ok(Search {
            engine,
            extenders,
            lookbehind,
        })
    }

    pub(super) fn lookbehind(&self) -> usize {
        self.lookbehind
    }

    /// How many patterns the engine looks for.
    #[cfg(test)]
    pub(super) fn searched(&self) -> usize {
        self.extenders.len() - self.extenders.iter().map(Vec::len).sum::<usize>()
    }

    /// Whether [`find`](Self::find) reports the windows given to [`new`](Self::new).
    pub(super) fn finds_windows(&self) -> bool {
        matches!(&self.engine, Engine::Teddy(p) if p.windows)
    }

    /// Reports the windows of `haystack` that start at or after `cursor.scanned` and were not
    /// reported yet, to its end.
    pub(super) fn windows_to_end(&self, haystack: &[u8], cursor: &mut WindowCursor) {
        if let Engine::Teddy(p) = &self.engine {
            let last = haystack.len().saturating_sub(WINDOW - 1);
            p.windows_in(haystack, cursor.scanned, last, cursor);
        }
    }

    pub(super) fn engine(&self) -> &'static str {
        match self.engine {
            Engine::Teddy(_) => "teddy",
            Engine::Automaton { .. } => "automaton",
        }
    }

    /// The engine's leftmost-longest match at or after `at`, as (start, end, pattern index).
    /// With a cursor, the windows before it (and any left over before `at`) are reported.
    pub(super) fn find(
        &self,
        patterns: &[Vec<u8>],
        haystack: &[u8],
        at: usize,
        windows: Option<&mut WindowCursor>,
    ) -> Option<(usize, usize, usize)> {
        match &self.engine {
            Engine::Teddy(p) => p.find(patterns, haystack, at, windows),
            Engine::Automaton { ac, searched } => {
                let m = ac.find(Input::new(haystack).span(at..haystack.len()))?;
                Some((m.start(), m.end(), searched[m.pattern().as_usize()]))
            }
        }
    }

    /// The match the engine's find of `pattern` at `at` stands for: a recovered pattern that
    /// ends there and starts at or after `lower`, else itself. `text` is the bytes before the
    /// haystack and the haystack; the start is in haystack coordinates.
    pub(super) fn extend(
        &self,
        patterns: &[Vec<u8>],
        pattern: usize,
        text: (&[u8], &[u8]),
        at: usize,
        lower: isize,
    ) -> (isize, usize) {
        for &p in &self.extenders[pattern] {
            let x = &patterns[p][..patterns[p].len() - patterns[pattern].len()];
            let start = at.cast_signed() - x.len().cast_signed();
            if start >= lower && preceded_by(text, at, x) {
                return (start, p);
            }
        }
        (at.cast_signed(), pattern)
    }
}

/// Whether the bytes just before `at` in `haystack` (continuing into `before`) are `x`.
fn preceded_by((before, haystack): (&[u8], &[u8]), at: usize, x: &[u8]) -> bool {
    if at >= x.len() {
        return &haystack[at - x.len()..at] == x;
    }
    let from_before = x.len() - at;
    before.len() >= from_before
        && before[before.len() - from_before..] == x[..from_before]
        && haystack[..at] == x[from_before..]
}

/// Whether `p` can be recovered from its suffix `q`: no pattern agrees with `p`'s bytes where it
/// would overlap `p`, except `q` at the end (and `p` itself in place).
fn alone(patterns: &[Vec<u8>], p: usize, q: usize) -> bool {
    let pat = &patterns[p];
    let len = pat.len().cast_signed();
    for (r, other) in patterns.iter().enumerate() {
        let olen = other.len().cast_signed();
        for d in (1 - olen)..len {
            if (r == p && d == 0) || (r == q && d == len - olen) {
                continue;
            }
            let (a, b) = (d.max(0), (d + olen).min(len));
            let mine = &pat[a.cast_unsigned()..b.cast_unsigned()];
            let theirs = &other[(a - d).cast_unsigned()..(b - d).cast_unsigned()];
            if mine == theirs {
                return false;
            }
        }
    }
    true
}

/// The length of the decoder's mixed-case windows.
const WINDOW: usize = 4;

/// The most windows one cursor holds; past it, the cursor gives up and the decoder searches
/// windows itself (a log full of windows costs bounded memory, never a miss).
pub(crate) const WINDOW_CAP: usize = 1 << 16;

/// Where windows were found in one haystack, and how far it has been searched for them.
pub(crate) struct WindowCursor {
    /// The stream offset of the haystack's first byte.
    pub(crate) base: u64,
    /// Every window starting before this position of the haystack has been reported.
    pub(crate) scanned: usize,
    /// (stream offset, window index), in stream order.
    pub(crate) found: Vec<(u64, usize)>,
    /// More than [`WINDOW_CAP`] windows: `found` is incomplete.
    pub(crate) full: bool,
}

impl WindowCursor {
    /// Records window `window` at `at`, unless it was reported already.
    fn record(&mut self, at: usize, window: usize) {
        if at < self.scanned {
            return;
        }
        self.scanned = at + 1;
        if self.found.len() == WINDOW_CAP {
            self.full = true;
        } else {
            self.found.push((self.base + at as u64, window));
        }
    }

    /// Every window starting before `to` has been reported.
    fn reach(&mut self, to: usize) {
        self.scanned = self.scanned.max(to);
    }
}

/// Teddy over the distinct prefixes of the searched patterns and the windows, and for each
/// prefix the patterns that start with it, longest first, and the windows that start with it.
struct Prefixes {
    teddy: Packed,
    by_prefix: Vec<Vec<usize>>,
    /// For each prefix, the windows starting with it: (window index, its bytes).
    window_of: Vec<Vec<(usize, [u8; WINDOW])>>,
    /// Some prefix is a window.
    windows: bool,
}

impl Prefixes {
    fn new(patterns: &[Vec<u8>], searched: &[usize], windows: &[Vec<u8>]) -> Option<Prefixes> {
        let mut prefixes: Vec<&[u8]> = Vec::new();
        let mut by_prefix: Vec<Vec<usize>> = Vec::new();
        for &i in searched {
            let prefix = patterns[i].get(..PREFIX)?;
            match prefixes.iter().position(|q| *q == prefix) {
                Some(k) => by_prefix[k].push(i),
                None => {
                    prefixes.push(prefix);
                    by_prefix.push(vec![i]);
                }
            }
        }
        for group in &mut by_prefix {
            group.sort_by_key(|&i| std::cmp::Reverse(patterns[i].len()));
        }
        let mut window_of = vec![Vec::new(); prefixes.len()];
        for (w, window) in windows.iter().enumerate() {
            let bytes: [u8; WINDOW] = window.as_slice().try_into().ok()?;
            let prefix = &window[..PREFIX];
            match prefixes.iter().position(|q| *q == prefix) {
                Some(k) => window_of[k].push((w, bytes)),
                None => {
                    prefixes.push(prefix);
                    by_prefix.push(Vec::new());
                    window_of.push(vec![(w, bytes)]);
                }
            }
        }
        // All prefixes have the same length, so at most one occurs at any position.
        let teddy = Packed::new(&prefixes)?;
        Some(Prefixes {
            teddy,
            by_prefix,
            window_of,
            windows: !windows.is_empty(),
        })
    }

    fn find(
        &self,
        patterns: &[Vec<u8>],
        haystack: &[u8],
        mut at: usize,
        mut windows: Option<&mut WindowCursor>,
    ) -> Option<(usize, usize, usize)> {
        if let Some(cursor) = windows.as_deref_mut() {
            // The windows inside the last match, which the search skipped.
            let scanned = cursor.scanned;
            self.windows_in(haystack, scanned, at, cursor);
        }
        // A window starting from here would be cut by the end: it is left to the next search.
        let fits = haystack.len().saturating_sub(WINDOW - 1);
        loop {
            let Some((start, prefix)) = self.teddy.find_in(haystack, at, haystack.len()) else {
                if let Some(cursor) = windows {
                    cursor.reach(fits);
                }
                return None;
            };
            if let Some(cursor) = windows.as_deref_mut() {
                self.record_window(haystack, start, prefix, fits, cursor);
                cursor.reach((start + 1).min(fits));
            }
            for &i in &self.by_prefix[prefix] {
                if haystack[start..].starts_with(&patterns[i]) {
                    return Some((start, start + patterns[i].len(), i));
                }
            }
            at = start + 1;
        }
    }

    /// Reports the windows that start in `from..to` and end inside `haystack`; afterwards every
    /// window starting before `to` (or before the last one that fits) has been reported.
    fn windows_in(&self, haystack: &[u8], from: usize, to: usize, cursor: &mut WindowCursor) {
        let fits = haystack.len().saturating_sub(WINDOW - 1);
        let to = to.min(fits);
        let end = (to + PREFIX - 1).min(haystack.len());
        let mut at = from;
        while at < to {
            let Some((start, prefix)) = self.teddy.find_in(haystack, at, end) else {
                break;
            };
            if start >= to {
                break;
            }
            self.record_window(haystack, start, prefix, fits, cursor);
            at = start + 1;
        }
        cursor.reach(to);
    }

    /// Records the window at `start`, where `prefix` was found, if one is there whole (`start`
    /// below `fits`). At most one is: the windows are distinct and of one length.
    fn record_window(
        &self,
        haystack: &[u8],
        start: usize,
        prefix: usize,
        fits: usize,
        cursor: &mut WindowCursor,
    ) {
        if start >= fits {
            return;
        }
        let seen = &haystack[start..start + WINDOW];
        if let Some(&(w, _)) = self.window_of[prefix].iter().find(|(_, b)| b == seen) {
            cursor.record(start, w);
        }
    }
}
