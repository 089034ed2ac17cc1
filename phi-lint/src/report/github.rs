//! The `github` format: GitHub Actions workflow commands.
//!
//! GitHub shows only the first few `::error` annotations of a step, so new findings come most
//! important first ([`Rule::rank`], then file, line, column), followed by stale baseline entries,
//! growth and unreadable files; then the full list of new findings in a collapsed group, and the
//! summary line. Every text that came from the code under check is escaped, so it cannot start a
//! workflow command of its own.
//!
//! [`Rule::rank`]: crate::rules::Rule::rank

use std::io::{self, Write};

use super::Report;
use super::human::{
    GROWTH_CODE, clean, file_error_message, growth_message, key_note, no_statements_message,
    stale_message, summary,
};
use crate::finding::Finding;
use crate::rules::Rule;

/// Writes the annotations, the grouped full list and the summary line.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut new: Vec<&Finding> = report.new_findings().collect();
    new.sort_by(|a, b| {
        (a.rule.rank(), &a.file, a.start.line, a.start.column).cmp(&(
            b.rule.rank(),
            &b.file,
            b.start.line,
            b.start.column,
        ))
    });
    for f in &new {
        let properties = [
            ("file", f.file.to_string()),
            ("line", f.start.line.to_string()),
            ("endLine", f.end.line.to_string()),
            ("col", f.start.column.to_string()),
            ("endColumn", f.end.column.to_string()),
            ("title", f.rule.code().to_owned()),
        ];
        annotate(out, &properties, &f.message)?;
    }
    let baseline = report.baseline_path.as_deref();
    for stale in &report.stale {
        let title = Rule::StaleBaseline.code();
        let message = format!("{}: {}", stale_message(stale), key_note(&stale.key));
        annotate(out, &baseline_properties(baseline, title), &message)?;
    }
    for growth in &report.growth {
        let message = growth_message(growth, report.baseline_ref.as_deref());
        let message = format!("{message}: {}", key_note(&growth.key));
        annotate(out, &baseline_properties(baseline, GROWTH_CODE), &message)?;
    }
    for error in &report.errors {
        let mut properties = vec![("file", error.file.clone())];
        if let Some(pos) = error.pos {
            properties.push(("line", pos.line.to_string()));
            properties.push(("col", pos.column.to_string()));
        }
        properties.push(("title", "phi-lint: cannot check file".to_owned()));
        annotate(out, &properties, &file_error_message(error))?;
    }
    if report.no_statements() {
        let properties = [("title", "phi-lint: no statement checked".to_owned())];
        annotate(out, &properties, &no_statements_message(report))?;
    }

    writeln!(out, "::group::phi-lint: full list ({})", new.len())?;
    for f in report.new_findings() {
        let (line, column, code) = (f.start.line, f.start.column, f.rule.code());
        writeln!(
            out,
            "{}:{line}:{column}: {code}: {}",
            plain(&f.file).replace(':', "%3A"),
            plain(&f.message)
        )?;
    }
    writeln!(out, "::endgroup::")?;
    writeln!(out, "{}", summary(report))
}

/// `file=<baseline>,line=1,title=<title>`, without the file when there is no baseline path.
fn baseline_properties(baseline: Option<&str>, title: &str) -> Vec<(&'static str, String)> {
    let mut properties = Vec::new();
    if let Some(path) = baseline {
        properties.push(("file", path.to_owned()));
        properties.push(("line", "1".to_owned()));
    }
    properties.push(("title", title.to_owned()));
    properties
}

/// One `::error <properties>::<message>` line.
fn annotate(out: &mut dyn Write, properties: &[(&str, String)], message: &str) -> io::Result<()> {
    let properties: Vec<String> = properties
        .iter()
        .map(|(name, value)| format!("{name}={}", escape_property(value)))
        .collect();
    writeln!(
        out,
        "::error {}::{}",
        properties.join(","),
        escape_data(message)
    )
}

/// Escapes a workflow command's message: `%`, `\r`, `\n` as `%25`, `%0D`, `%0A`, then any
/// other control character as the `human` format shows it.
pub(super) fn escape_data(text: &str) -> String {
    let escaped = text
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    clean(&escaped).into_owned()
}

/// Escapes a workflow command's property value: as [`escape_data`], plus `:` and `,`.
pub(super) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Text for a plain log line: escaped as a workflow command's message, so it stays one line; the
/// file name at the start of a line also has its `:` escaped, so it cannot start a command.
fn plain(text: &str) -> String {
    escape_data(text)
}
