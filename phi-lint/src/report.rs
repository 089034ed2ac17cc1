//! The result of a check, and its four renderings: `human`, `json`, `sarif` and `github`.

use std::io::{self, Write};
use std::path::PathBuf;

use serde::Serialize;

use crate::finding::{FileError, Finding, FindingKey};
use crate::walk::ScanCounts;

mod github;
mod human;
mod json;
mod sarif;
#[cfg(test)]
mod tests;

/// A baseline entry that grandfathers more findings than exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stale {
    /// The entry's key.
    #[serde(flatten)]
    pub key: FindingKey,
    /// The count in the baseline.
    pub baseline_count: usize,
    /// How many findings with that key the code has now.
    pub found_count: usize,
}

/// A baseline entry that is new, or larger, than in the baseline at `--baseline-ref`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Growth {
    /// The entry's key.
    #[serde(flatten)]
    pub key: FindingKey,
    /// The count at the reference (0 when the entry is new).
    pub ref_count: usize,
    /// The count in the working tree's baseline.
    pub count: usize,
}

/// Everything one `phi-lint check` found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The scan root; every path in the report is relative to it.
    pub root: PathBuf,
    /// The baseline file, relative to the root, when one was read.
    pub baseline_path: Option<String>,
    /// The git ref the baseline was compared with, if any.
    pub baseline_ref: Option<String>,
    /// Files linted.
    pub files: usize,
    /// Logging statements (sink macro calls, `#[instrument]`s and `.record` calls) checked.
    pub statements: usize,
    /// Findings, in file and source order; baselined ones have `baselined = true`.
    pub findings: Vec<Finding>,
    /// Stale baseline entries.
    pub stale: Vec<Stale>,
    /// Baseline growth against `--baseline-ref`.
    pub growth: Vec<Growth>,
    /// Files that could not be read or parsed.
    pub errors: Vec<FileError>,
    /// Suppression comments that suppressed at least one finding.
    pub suppressions: usize,
    /// Findings those comments suppressed.
    pub suppressed: usize,
    /// How the linted files were found, and what was counted but not linted.
    pub scope: ScanCounts,
    /// Files matched by `exclude`, root-relative: counted, not linted.
    pub excluded: Vec<String>,
    /// Whether a report that checked no logging statement fails (exit 2). [`crate::check`] sets
    /// it unless `allow-no-statements` is configured.
    pub require_statements: bool,
}

/// `text` safe to print on one terminal line: control characters (line breaks, escape
/// sequences), Unicode line separators and bidi overrides are shown escaped (`\n`, `\u{1b}`).
///
/// ```
/// assert_eq!(phi_lint::report::printable("a\n::error::x"), "a\\n::error::x");
/// ```
#[must_use]
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    human::clean(text)
}

/// The exit code of `phi-lint check`: a contract, documented in `--help` and the README.
pub mod exit {
    /// No new finding, no stale entry, no growth.
    pub const CLEAN: i32 = 0;
    /// New findings, stale baseline entries, or baseline growth.
    pub const FINDINGS: i32 = 1;
    /// The tool could not do its job: usage, config, I/O, a file that cannot be read, resolved or
    /// parsed, no Rust file, or no logging statement checked (unless allowed).
    pub const ERROR: i32 = 2;
}

impl Report {
    /// Findings the baseline does not cover.
    pub fn new_findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| !f.baselined)
    }

    /// How many findings the baseline covers.
    #[must_use]
    pub fn baselined(&self) -> usize {
        self.findings.iter().filter(|f| f.baselined).count()
    }

    /// Whether the report fails because it checked no logging statement at all (and no file
    /// failed, which would explain it).
    #[must_use]
    pub fn no_statements(&self) -> bool {
        self.require_statements && self.statements == 0 && self.errors.is_empty()
    }

    /// Errors: files that could not be checked, plus one when no statement was checked.
    #[must_use]
    pub fn error_count(&self) -> usize {
        self.errors.len() + usize::from(self.no_statements())
    }

    /// The exit code this report calls for (see [`exit`]).
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        if self.error_count() > 0 {
            exit::ERROR
        } else if self.new_findings().next().is_some()
            || !self.stale.is_empty()
            || !self.growth.is_empty()
        {
            exit::FINDINGS
        } else {
            exit::CLEAN
        }
    }

    /// Writes the report in `format`.
    pub fn write(&self, format: Format, out: &mut dyn Write) -> io::Result<()> {
        match format {
            Format::Human => human::write(self, out),
            Format::Json => json::write(self, out),
            Format::Sarif => sarif::write(self, out),
            Format::Github => github::write(self, out),
        }
    }
}

/// An output format of `phi-lint check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style diagnostics: source line, caret, rule, fix.
    Human,
    /// One JSON document (see the README for its schema).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// GitHub Actions `::error` annotations, most important first, then the full list.
    Github,
}
