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
//! **Engines.** With two patterns or more, aho-corasick's packed (Teddy) SIMD searcher finds the
//! leftmost place where a pattern's first 4 bytes occur, and the patterns starting with those
//! bytes are compared there, longest first. Teddy over short, distinct prefixes was measured 30%
//! faster than over whole patterns, and unlike the automaton's own prefilter choice (start or
//! rare bytes, measured at 0.3 GB/s on JSON logs for some pattern sets) its speed does not depend
//! on the log. One pattern, or a CPU without Teddy, uses the automaton (memmem for one pattern).

use aho_corasick::{AhoCorasick, Input, MatchKind, Span, packed};

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
    pub(super) fn new(patterns: &[Vec<u8>]) -> Result<Search, aho_corasick::BuildError> {
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
            Prefixes::new(patterns, &searched)
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

    pub(super) fn engine(&self) -> &'static str {
        match self.engine {
            Engine::Teddy(_) => "teddy",
            Engine::Automaton { .. } => "automaton",
        }
    }

    /// The engine's leftmost-longest match at or after `at`, as (start, end, pattern index).
    pub(super) fn find(
        &self,
        patterns: &[Vec<u8>],
        haystack: &[u8],
        at: usize,
    ) -> Option<(usize, usize, usize)> {
        match &self.engine {
            Engine::Teddy(p) => p.find(patterns, haystack, at),
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

/// How many leading bytes of each pattern Teddy looks for (patterns are at least 8 bytes).
const PREFIX: usize = 4;

/// Teddy over the distinct prefixes of the searched patterns, and for each prefix the patterns
/// that start with it, longest first.
struct Prefixes {
    teddy: packed::Searcher,
    by_prefix: Vec<Vec<usize>>,
}

impl Prefixes {
    fn new(patterns: &[Vec<u8>], searched: &[usize]) -> Option<Prefixes> {
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
        // All prefixes have the same length, so at most one occurs at any position.
        let teddy = packed::Config::new().builder().extend(&prefixes).build()?;
        Some(Prefixes { teddy, by_prefix })
    }

    fn find(
        &self,
        patterns: &[Vec<u8>],
        haystack: &[u8],
        mut at: usize,
    ) -> Option<(usize, usize, usize)> {
        loop {
            let m = self
                .teddy
                .find_in(haystack, Span::from(at..haystack.len()))?;
            let start = m.start();
            for &i in &self.by_prefix[m.pattern().as_usize()] {
                if haystack[start..].starts_with(&patterns[i]) {
                    return Some((start, start + patterns[i].len(), i));
                }
            }
            at = start + 1;
        }
    }
}
