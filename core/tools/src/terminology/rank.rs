//! Ranked candidates for a name: every code whose search key (a code, an official name, a
//! synonym) is the name, starts with it, contains it, or is found inside it.

use std::cmp::Reverse;

use crate::vocab::{CodeRef, CodeSystem, Vocabulary, fold};

/// How a candidate's key matched the name, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Match {
    /// The key is the name (folded).
    Exact,
    /// The key starts with the name.
    Prefix,
    /// The name is found inside the key.
    Contains,
    /// The key is found inside the name, as whole words where the key is written in ASCII
    /// (`"my fasting glucose"` finds `fasting glucose`; `"我头疼"` finds `头疼`).
    Within,
}

impl Match {
    /// The name shown in an answer.
    ///
    /// ```
    /// assert_eq!(answers_tools::terminology::rank::Match::Within.as_str(), "within");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Match::Exact => "exact",
            Match::Prefix => "prefix",
            Match::Contains => "contains",
            Match::Within => "within",
        }
    }
}

/// A code a name may mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The code.
    pub code: CodeRef,
    /// How it matched.
    pub how: Match,
    /// The key it matched through (folded).
    pub key: String,
}

/// The most candidates an answer lists.
pub const CANDIDATE_CAP: usize = 10;

/// The candidates for `name` in `system` (or any system), best first, one per code, at most
/// [`CANDIDATE_CAP`]. Exact matches come first in code order; then prefix and contains matches,
/// the shortest key first; then keys found inside the name, the longest first.
///
/// ```
/// use answers_tools::terminology::rank::{Match, candidates};
/// use answers_vocab::{CodeRef, CodeSystem, Vocabulary};
///
/// let v = Vocabulary::bundled();
/// let found = candidates(v, "我头疼", Some(CodeSystem::Icpc));
/// assert_eq!((found[0].code.clone(), found[0].how), (CodeRef::icpc("N01"), Match::Within));
/// assert!(candidates(v, "unobtainium", None).is_empty());
/// ```
#[must_use]
pub fn candidates(vocab: &Vocabulary, name: &str, system: Option<CodeSystem>) -> Vec<Candidate> {
    let query = fold(name);
    if query.is_empty() {
        return Vec::new();
    }
    let wanted = |c: &CodeRef| system.is_none_or(|s| c.system == s);
    let mut found: Vec<(Match, Reverse<usize>, usize, String, CodeRef)> = Vec::new();
    for (key, codes) in vocab.keywords() {
        let Some(how) = matches(&query, key) else {
            continue;
        };
        let len = key.chars().count();
        // Shorter keys first for prefix and contains; longer first for keys inside the name.
        let (longer, shorter) = if how == Match::Within {
            (Reverse(len), 0)
        } else {
            (Reverse(0), len)
        };
        for code in codes.iter().filter(|c| wanted(c)) {
            found.push((how, longer, shorter, key.to_owned(), code.clone()));
        }
    }
    found.sort_by(|a, b| (a.0, a.1, a.2, &a.4, &a.3).cmp(&(b.0, b.1, b.2, &b.4, &b.3)));
    let mut out: Vec<Candidate> = Vec::new();
    for (how, _, _, key, code) in found {
        if out.len() == CANDIDATE_CAP {
            break;
        }
        if !out.iter().any(|c| c.code == code) {
            out.push(Candidate { code, how, key });
        }
    }
    out
}

fn matches(query: &str, key: &str) -> Option<Match> {
    if key == query {
        Some(Match::Exact)
    } else if key.starts_with(query) {
        Some(Match::Prefix)
    } else if key.contains(query) {
        Some(Match::Contains)
    } else if within(query, key) {
        Some(Match::Within)
    } else {
        None
    }
}

/// Whether `key` is inside `query`: as whole words when the key is ASCII (so `hr` is not found
/// in `three`), anywhere otherwise (Chinese has no spaces between words).
fn within(query: &str, key: &str) -> bool {
    if key.chars().count() < 2 {
        return false;
    }
    if !key.is_ascii() {
        return query.contains(key);
    }
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (q, k) = (words(query), words(key));
    !k.is_empty() && q.windows(k.len()).any(|w| w == k.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_for_ascii_keys() {
        assert!(within("my fasting glucose today", "fasting glucose"));
        assert!(!within("three", "hr"));
        assert!(within("我今天头疼", "头疼"));
        assert!(!within("x", "x"));
    }

    #[test]
    fn exact_before_prefix_before_contains_before_within() {
        let v = Vocabulary::bundled();
        let found = candidates(v, "glucose", Some(CodeSystem::Loinc));
        assert_eq!(found[0].how, Match::Exact);
        let order: Vec<Match> = found.iter().map(|c| c.how).collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted);
        assert!(found.len() <= CANDIDATE_CAP);
    }
}
