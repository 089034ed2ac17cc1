//! The `human` format: rustc-style diagnostics with the source line and a caret under the value,
//! then one summary line. Also the wording the other formats share (summary, counts, keys).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use super::{Growth, Report, Stale};
use crate::finding::{FileError, Finding, FindingKey};
use crate::rules::Rule;

/// The headline code of a baseline growth, which is not a rule: it is checked only in CI against
/// `--baseline-ref`, and cannot be suppressed.
pub(super) const GROWTH_CODE: &str = "baseline-growth";

/// What to do about baseline growth.
pub(super) const GROWTH_HELP: &str = "the baseline may only shrink: fix the finding, or suppress it with a reason, instead of adding it to the baseline";

/// Writes every new finding, stale entry, growth and file error as a diagnostic, then the summary.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut sources = Sources::new(&report.root);
    for finding in report.new_findings() {
        let line = sources.line(&finding.file, finding.start.line);
        write_finding(out, finding, line)?;
    }
    let baseline = report.baseline_path.as_deref();
    for stale in &report.stale {
        let help = Rule::StaleBaseline.info().help;
        let headline = format!(
            "error[{}]: {}",
            Rule::StaleBaseline.code(),
            stale_message(stale)
        );
        write_entry(out, &headline, baseline, &stale.key, help)?;
    }
    for growth in &report.growth {
        let message = growth_message(growth, report.baseline_ref.as_deref());
        let headline = format!("error[{GROWTH_CODE}]: {message}");
        write_entry(out, &headline, baseline, &growth.key, GROWTH_HELP)?;
    }
    for error in &report.errors {
        writeln!(out, "error: {}", clean(&file_error_message(error)))?;
        writeln!(out)?;
    }
    if report.no_statements() {
        writeln!(out, "error: {}", no_statements_message(report))?;
        writeln!(out)?;
    }
    writeln!(out, "{}", summary(report))
}

/// Why a scan that checked no statement fails.
pub(super) fn no_statements_message(report: &Report) -> String {
    format!(
        "no logging statement was checked in {}: is the gate pointed at the right directory? if this is expected, set `allow-no-statements = true` or pass --allow-no-statements",
        count(report.files, "file", "files")
    )
}

/// A character that must not reach a terminal as it is: a control character, a Unicode line
/// separator, a bidirectional override or isolate.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` safe to print on one terminal line: control characters (line breaks, escape
/// sequences), Unicode line separators and bidirectional overrides are shown as `\n`,
/// `\u{1b}`, …, so a crafted file name or expression cannot start a line of its own (a forged
/// `::error` in GitHub Actions) or reorder what the reader sees.
pub(super) fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// One finding: headline, location, source line with carets (when the file can be read), help.
fn write_finding(out: &mut dyn Write, finding: &Finding, line: Option<&str>) -> io::Result<()> {
    let info = finding.rule.info();
    let (line_no, column) = (finding.start.line, finding.start.column);
    let pad = " ".repeat(line_no.to_string().len());
    writeln!(out, "error[{}]: {}", info.code, clean(&finding.message))?;
    writeln!(out, "{pad}--> {}:{line_no}:{column}", clean(&finding.file))?;
    writeln!(out, "{pad} |")?;
    if let Some(text) = line {
        let end = (finding.end.line == line_no).then_some(finding.end.column);
        let marked = mark(text, column, end);
        if marked.text.is_empty() {
            writeln!(out, "{line_no} |")?;
        } else {
            writeln!(out, "{line_no} | {}", marked.text)?;
        }
        let carets = "^".repeat(marked.len);
        writeln!(out, "{pad} | {}{carets}", " ".repeat(marked.offset))?;
        writeln!(out, "{pad} |")?;
    }
    writeln!(out, "{pad} = help: {}", info.help)?;
    if finding.fix.is_some() {
        writeln!(
            out,
            "{pad} = fix: `phi-lint fix` rewrites this (`--dry-run` shows the diff)"
        )?;
    }
    writeln!(out)
}

/// A baseline entry (stale or grown): headline, the baseline file, the key, help.
fn write_entry(
    out: &mut dyn Write,
    headline: &str,
    baseline: Option<&str>,
    key: &FindingKey,
    help: &str,
) -> io::Result<()> {
    writeln!(out, "{}", clean(headline))?;
    if let Some(path) = baseline {
        writeln!(out, " --> {}", clean(path))?;
    }
    writeln!(out, "  |")?;
    writeln!(out, "  = note: {}", clean(&key_note(key)))?;
    writeln!(out, "  = help: {help}")?;
    writeln!(out)
}

/// A source line as shown, and where the carets go under it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Marked {
    /// The line with tabs expanded to four spaces, control characters replaced, trailing
    /// whitespace removed.
    pub(super) text: String,
    /// Display columns before the first caret.
    pub(super) offset: usize,
    /// Number of carets, at least one.
    pub(super) len: usize,
}

/// Characters of a source line shown at most; a longer line is cut to a window around the value,
/// with `...` where it was cut. A generated file of one 5 MB line, with a finding every few
/// characters, printed the whole line under each finding.
pub(super) const SHOWN: usize = 160;

/// Characters shown before the value when a line is cut.
const LEAD: usize = 40;

/// Marks 1-based character columns `start..end` of `line` (to the end of the line when `end` is
/// `None`, because the value goes on to a later line). Out-of-range columns are clamped. A line
/// longer than [`SHOWN`] characters is cut to a window that starts [`LEAD`] characters before the
/// value, and the carets to the part of the value inside it.
pub(super) fn mark(line: &str, start: u32, end: Option<u32>) -> Marked {
    let total = line.chars().count();
    let start = (start.max(1) as usize - 1).min(total);
    let end = end.map_or(total, |e| (e.max(1) as usize - 1).clamp(start, total));
    let (from, to) = if total <= SHOWN {
        (0, total)
    } else {
        let from = start.saturating_sub(LEAD);
        (from, (from + SHOWN).min(total))
    };
    let width = |c: char| if c == '\t' { 4 } else { 1 };
    let mut text = String::with_capacity(4 * (to - from) + 6);
    let mut offset = 0;
    let mut len = 0;
    if from > 0 {
        text.push_str("...");
        offset += 3;
    }
    for (i, c) in line.chars().enumerate().skip(from).take(to - from) {
        match c {
            '\t' => text.push_str("    "),
            // A source line shown under a finding: a bidirectional override in it would reorder
            // what the reader sees (the "Trojan Source" trick), a line separator break the line.
            c if unsafe_char(c) => text.push('\u{fffd}'),
            c => text.push(c),
        }
        if i < start {
            offset += width(c);
        } else if i < end {
            len += width(c);
        }
    }
    if to < total {
        text.push_str("...");
    }
    text.truncate(text.trim_end().len());
    Marked {
        text,
        offset,
        len: len.max(1),
    }
}

/// Source files read on demand, each at most once.
struct Sources<'a> {
    root: &'a Path,
    files: HashMap<String, Option<Vec<String>>>,
}

impl<'a> Sources<'a> {
    fn new(root: &'a Path) -> Self {
        Sources {
            root,
            files: HashMap::new(),
        }
    }

    /// Line `line` (1-based) of `file`, or `None` if the file cannot be read or is shorter.
    fn line(&mut self, file: &str, line: u32) -> Option<&str> {
        let root = self.root;
        let lines = self.files.entry(file.to_owned()).or_insert_with(|| {
            let bytes = std::fs::read(root.join(file)).ok()?;
            let text = String::from_utf8_lossy(&bytes);
            // A byte-order mark is no column (see `SourceFile`).
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            Some(text.lines().map(str::to_owned).collect())
        });
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        lines.as_ref()?.get(index).map(String::as_str)
    }
}

/// `1 finding`, `2 findings`.
pub(super) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The headline of a stale entry, e.g. `baseline entry grandfathers 2 findings but 1 remains`.
pub(super) fn stale_message(stale: &Stale) -> String {
    let remain = match stale.found_count {
        0 => "none remain".to_owned(),
        1 => "1 remains".to_owned(),
        n => format!("{n} remain"),
    };
    let grandfathered = count(stale.baseline_count, "finding", "findings");
    format!("baseline entry grandfathers {grandfathered} but {remain}")
}

/// The headline of a growth, e.g. `baseline entry grew from 0 to 1 since origin/main`.
pub(super) fn growth_message(growth: &Growth, baseline_ref: Option<&str>) -> String {
    let since = baseline_ref.unwrap_or("the reference baseline");
    format!(
        "baseline entry grew from {} to {} since {since}",
        growth.ref_count, growth.count
    )
}

/// A baseline key, every part named: ``path `src/db.rs`, rule `phi::error-message`, ...``.
pub(super) fn key_note(key: &FindingKey) -> String {
    let function = if key.function.is_empty() {
        "(none)"
    } else {
        key.function.as_str()
    };
    format!(
        "path `{}`, rule `{}`, macro `{}`, field `{}`, function `{function}`, expr `{}`",
        key.path, key.rule, key.macro_name, key.field, key.expr
    )
}

/// `file:line:column: message`, or `file: message` when the position is unknown.
pub(super) fn file_error_message(error: &FileError) -> String {
    match error.pos {
        Some(pos) => format!(
            "{}:{}:{}: {}",
            error.file, pos.line, pos.column, error.message
        ),
        None => format!("{}: {}", error.file, error.message),
    }
}

/// The last line of `human` and `github` output, e.g.
/// `phi-lint: clean; 12 files, 40 statements, 1 suppression covering 1 finding, 3 baselined`.
pub(super) fn summary(report: &Report) -> String {
    let mut line = String::from("phi-lint: ");
    let baselined = report.baselined();
    if report.exit_code() == super::exit::CLEAN {
        line.push_str("clean; ");
    } else {
        let new = report.findings.len() - baselined;
        line.push_str(&count(new, "new finding", "new findings"));
        let _ = write!(line, ", {baselined} baselined, ");
        line.push_str(&count(
            report.stale.len(),
            "stale baseline entry",
            "stale baseline entries",
        ));
        line.push_str(", ");
        line.push_str(&count(
            report.growth.len(),
            "grown baseline entry",
            "grown baseline entries",
        ));
        line.push_str(", ");
        line.push_str(&count(report.error_count(), "error", "errors"));
        line.push_str("; ");
    }
    line.push_str(&count(report.files, "file", "files"));
    line.push_str(", ");
    line.push_str(&count(report.statements, "statement", "statements"));
    line.push_str(", ");
    if report.suppressions == 0 {
        line.push_str("no suppressions");
    } else {
        line.push_str(&count(report.suppressions, "suppression", "suppressions"));
        line.push_str(" covering ");
        line.push_str(&count(report.suppressed, "finding", "findings"));
    }
    if report.exit_code() == super::exit::CLEAN && baselined > 0 {
        let _ = write!(line, ", {baselined} baselined");
    }
    line.push_str("; ");
    line.push_str(&scope(report));
    line
}

/// Where the linted files came from, and what was found but not linted: `2 reached by a crate,
/// 1 unreached, 3 test files not linted, 1 excluded`.
pub(super) fn scope(report: &Report) -> String {
    let s = &report.scope;
    let mut parts = vec![
        format!("{} reached by a crate", s.reached),
        format!("{} unreached", s.unreached),
    ];
    if s.given > 0 {
        parts.push(format!("{} given by path", s.given));
    }
    if s.test_files > 0 {
        parts.push(format!(
            "{} not linted",
            count(s.test_files, "test file", "test files")
        ));
    }
    if s.excluded > 0 {
        parts.push(format!("{} excluded", s.excluded));
    }
    parts.join(", ")
}
