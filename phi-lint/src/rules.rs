//! The rules: stable codes, each documented in one file under `rules/` (What it does / Why is
//! this bad / Example / Use instead), shown by `phi-lint explain RULE`.

use std::fmt;

use serde::{Serialize, Serializer};

pub(crate) mod error_message;
mod instrument_arg;
mod instrument_ret;
mod interpolation;
mod print;
mod stale_baseline;
mod suppression_reason;
mod unchecked_wrapper;
mod unparsed_macro;
mod unused_suppression;

/// The documentation of one rule.
#[derive(Debug)]
pub struct RuleInfo {
    /// Stable code, e.g. `phi::interpolation`.
    pub code: &'static str,
    /// One line, lower-case, for SARIF `shortDescription` and listings.
    pub summary: &'static str,
    /// The suggested fix, shown under each finding.
    pub help: &'static str,
    /// The full documentation, in Markdown.
    pub docs: &'static str,
}

/// A rule phi-lint checks. The codes are stable: baselines, suppressions and SARIF alerts use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// An error's message is logged.
    ErrorMessage,
    /// `#[instrument]` records an argument that is not safe.
    InstrumentArg,
    /// `#[instrument(ret)]` records a return value that is not safe.
    InstrumentRet,
    /// An interpolated expression is not an id, count, duration, status or type name.
    Interpolation,
    /// stdout, stderr or a panic message receives an unsafe value.
    Print,
    /// A logging macro's arguments could not be parsed.
    UnparsedMacro,
    /// A `macro_rules!` forwards its arguments to a logging macro but is not configured.
    UncheckedWrapper,
    /// A suppression comment has no reason.
    SuppressionReason,
    /// A suppression comment suppresses nothing.
    UnusedSuppression,
    /// A baseline entry grandfathers more findings than exist.
    StaleBaseline,
}

impl Rule {
    /// Every rule, most important first (the order of GitHub annotations).
    pub const ALL: &'static [Rule] = &[
        Rule::ErrorMessage,
        Rule::InstrumentArg,
        Rule::InstrumentRet,
        Rule::Interpolation,
        Rule::Print,
        Rule::UnparsedMacro,
        Rule::UncheckedWrapper,
        Rule::SuppressionReason,
        Rule::UnusedSuppression,
        Rule::StaleBaseline,
    ];

    /// The rule's documentation.
    #[must_use]
    pub fn info(self) -> &'static RuleInfo {
        match self {
            Rule::ErrorMessage => &error_message::INFO,
            Rule::InstrumentArg => &instrument_arg::INFO,
            Rule::InstrumentRet => &instrument_ret::INFO,
            Rule::Interpolation => &interpolation::INFO,
            Rule::Print => &print::INFO,
            Rule::UnparsedMacro => &unparsed_macro::INFO,
            Rule::UncheckedWrapper => &unchecked_wrapper::INFO,
            Rule::SuppressionReason => &suppression_reason::INFO,
            Rule::UnusedSuppression => &unused_suppression::INFO,
            Rule::StaleBaseline => &stale_baseline::INFO,
        }
    }

    /// The stable code, e.g. `phi::interpolation`.
    #[must_use]
    pub fn code(self) -> &'static str {
        self.info().code
    }

    /// Looks a rule up by code, with or without the `phi::` prefix.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Rule> {
        let code = code.trim();
        let bare = code.strip_prefix("phi::").unwrap_or(code);
        Rule::ALL
            .iter()
            .copied()
            .find(|r| r.code().strip_prefix("phi::") == Some(bare))
    }

    /// Index in [`Rule::ALL`], used to order output by importance.
    #[must_use]
    pub fn rank(self) -> usize {
        Rule::ALL
            .iter()
            .position(|r| *r == self)
            .unwrap_or(usize::MAX)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn codes_are_unique_and_round_trip() {
        for r in Rule::ALL {
            assert_eq!(Rule::from_code(r.code()), Some(*r));
            let info = r.info();
            for heading in [
                "### What it does",
                "### Why is this bad",
                "### Example",
                "### Use instead",
            ] {
                assert!(info.docs.contains(heading), "{} lacks {heading}", r.code());
            }
            assert!(!info.summary.ends_with('.'), "{}", r.code());
        }
        let mut codes: Vec<_> = Rule::ALL.iter().map(|r| r.code()).collect();
        codes.dedup();
        assert_eq!(codes.len(), Rule::ALL.len());
    }
}
