//! The rules: stable codes, each documented in one file under `rules/` (What it does / Why is
//! this bad / Example / Use instead), shown by `phi-lint explain RULE`.
//!
//! The rule list is a [`phi_macros::ClosedEnum`]: its wire names are the codes, and
//! [`RuleTable`] (one field per rule) is the registry, so a rule without documentation does not
//! compile. Each file under `rules/` holds the rule's documentation, its messages and, where the
//! rule has one, the code that decides or fixes it (`error_message/fix.rs`).

use phi_macros::ClosedEnum;

pub(crate) mod error_message;
pub(crate) mod instrument_arg;
pub(crate) mod instrument_ret;
pub(crate) mod interpolation;
mod print;
mod stale_baseline;
mod suppression_reason;
mod unchecked_wrapper;
pub(crate) mod unparsed_macro;
pub(crate) mod unused_suppression;

/// The documentation of one rule.
#[derive(Debug)]
pub struct RuleInfo {
    /// Stable code, e.g. `phi::interpolation`: `phi::` and the rule's wire name.
    pub code: &'static str,
    /// One line, lower-case, for SARIF `shortDescription` and listings.
    pub summary: &'static str,
    /// The suggested fix, shown under each finding.
    pub help: &'static str,
    /// The full documentation, in Markdown.
    pub docs: &'static str,
}

/// A rule phi-lint checks. The codes are stable: baselines, suppressions and SARIF alerts use
/// them. The wire name (`as_str`, `Display`, serde) is the code without `phi::`
/// (`error-message`); [`Rule::code`] is the full code. Declaration order is importance order (the
/// order of GitHub annotations and SARIF's `ruleIndex`).
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[closed(rename_all = "kebab-case")]
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

/// The registry: each rule's documentation, from its own file.
static INFO: RuleTable<&RuleInfo> = RuleTable {
    error_message: &error_message::INFO,
    instrument_arg: &instrument_arg::INFO,
    instrument_ret: &instrument_ret::INFO,
    interpolation: &interpolation::INFO,
    print: &print::INFO,
    unparsed_macro: &unparsed_macro::INFO,
    unchecked_wrapper: &unchecked_wrapper::INFO,
    suppression_reason: &suppression_reason::INFO,
    unused_suppression: &unused_suppression::INFO,
    stale_baseline: &stale_baseline::INFO,
};

impl Rule {
    /// The rule's documentation.
    #[must_use]
    pub fn info(self) -> &'static RuleInfo {
        INFO.get(self)
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
        code.strip_prefix("phi::").unwrap_or(code).parse().ok()
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

/// Serializes a rule as its full code (`phi::error-message`), as [`crate::Finding`] does.
#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `serialize_with` passes a reference
pub(crate) fn serialize_code<S: serde::Serializer>(rule: &Rule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(rule.code())
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
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), Rule::ALL.len());
        assert_eq!(Rule::ALL.len(), Rule::VARIANTS.len());
        for r in Rule::ALL {
            assert_eq!(r.code(), format!("phi::{}", r.as_str()), "{r:?}");
        }
        assert_eq!(Rule::from_code("stale-baseline"), Some(Rule::StaleBaseline));
        assert_eq!(Rule::from_code("phi::phi::print"), None);
        let mut json = Vec::new();
        super::serialize_code(
            &Rule::ErrorMessage,
            &mut serde_json::Serializer::new(&mut json),
        )
        .expect("serializes");
        assert_eq!(json, b"\"phi::error-message\"");
    }
}
