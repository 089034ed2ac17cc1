//! The `json` format: one pretty-printed document, fields in a stable order (declaration order of
//! the structs below). Documented in the README; `version` changes when a field changes meaning.

use std::io::{self, Write};

use serde::Serialize;

use super::{Growth, Report, Stale};
use crate::finding::{FileError, Finding};

/// The version of the document's schema.
const VERSION: u32 = 1;

/// The whole document.
#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    summary: Summary,
    findings: Findings<'a>,
    stale: &'a [Stale],
    growth: &'a [Growth],
    errors: Vec<ErrorOut<'a>>,
    /// Files matched by `exclude`.
    excluded: &'a [String],
}

/// The counts, and the exit code the report calls for.
#[derive(Serialize)]
struct Summary {
    files: usize,
    reached: usize,
    unreached: usize,
    given: usize,
    test_files: usize,
    excluded: usize,
    statements: usize,
    /// All findings, new and baselined.
    findings: usize,
    new: usize,
    baselined: usize,
    stale: usize,
    growth: usize,
    errors: usize,
    suppressions: usize,
    suppressed: usize,
    /// The scan checked no statement and that is not allowed: an error.
    no_statements: bool,
    exit_code: i32,
}

/// One finding; lines and columns are 1-based, columns count characters, `end_column` is
/// exclusive.
#[derive(Serialize)]
struct FindingOut<'a> {
    rule: &'static str,
    file: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    #[serde(rename = "macro")]
    macro_path: &'a str,
    field: &'a str,
    expr: &'a str,
    message: &'a str,
    function: &'a str,
    fingerprint: &'a str,
    baselined: bool,
    help: &'static str,
    /// The rewrite `phi-lint fix` would apply, when there is a certain one.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<FixOut<'a>>,
}

/// A finding's machine-applicable rewrite: edits with 1-based lines and character columns
/// (`end_column` exclusive), in file order; an edit whose end is its start is an insertion.
#[derive(Serialize)]
struct FixOut<'a> {
    description: &'a str,
    edits: Vec<EditOut<'a>>,
}

#[derive(Serialize)]
struct EditOut<'a> {
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    replacement: &'a str,
}

/// A file that could not be read or parsed; `line` and `column` are `null` when unknown.
#[derive(Serialize)]
struct ErrorOut<'a> {
    file: &'a str,
    line: Option<u32>,
    column: Option<u32>,
    message: &'a str,
}

impl<'a> From<&'a Finding> for FindingOut<'a> {
    fn from(f: &'a Finding) -> Self {
        let info = f.rule.info();
        FindingOut {
            rule: f.rule.code(),
            file: &f.file,
            line: f.start.line,
            column: f.start.column,
            end_line: f.end.line,
            end_column: f.end.column,
            macro_path: &f.macro_path,
            field: &f.field,
            expr: &f.expr,
            message: &f.message,
            function: &f.function,
            fingerprint: &f.fingerprint,
            baselined: f.baselined,
            help: info.help,
            fix: f.fix.as_ref().map(|fix| FixOut {
                description: &fix.description,
                edits: fix
                    .edits
                    .iter()
                    .map(|e| EditOut {
                        line: e.start.line,
                        column: e.start.column,
                        end_line: e.end.line,
                        end_column: e.end.column,
                        replacement: &e.replacement,
                    })
                    .collect(),
            }),
        }
    }
}

impl<'a> From<&'a FileError> for ErrorOut<'a> {
    fn from(e: &'a FileError) -> Self {
        ErrorOut {
            file: &e.file,
            line: e.pos.map(|p| p.line),
            column: e.pos.map(|p| p.column),
            message: &e.message,
        }
    }
}

/// The findings, each turned into its [`FindingOut`] as it is written: a report with a finding
/// on every statement of a large file is not held a second time as views.
struct Findings<'a>(&'a [Finding]);

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(FindingOut::from))
    }
}

/// Writes the report as one JSON document and a newline.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let baselined = report.baselined();
    let document = Document {
        version: VERSION,
        summary: Summary {
            files: report.files,
            reached: report.scope.reached,
            unreached: report.scope.unreached,
            given: report.scope.given,
            test_files: report.scope.test_files,
            excluded: report.scope.excluded,
            statements: report.statements,
            findings: report.findings.len(),
            new: report.findings.len() - baselined,
            baselined,
            stale: report.stale.len(),
            growth: report.growth.len(),
            errors: report.error_count(),
            suppressions: report.suppressions,
            suppressed: report.suppressed,
            no_statements: report.no_statements(),
            exit_code: report.exit_code(),
        },
        findings: Findings(&report.findings),
        stale: &report.stale,
        growth: &report.growth,
        errors: report.errors.iter().map(ErrorOut::from).collect(),
        excluded: &report.excluded,
    };
    // Through a buffer: straight into `&mut dyn Write`, every one of the serializer's small
    // writes would be a dynamic call; into the buffer they inline. Not the whole document in
    // memory: a report is often ten times the size of the source it is about.
    let mut buf = io::BufWriter::with_capacity(64 << 10, out);
    serde_json::to_writer_pretty(&mut buf, &document)?;
    buf.write_all(b"\n")?;
    buf.flush()
}
