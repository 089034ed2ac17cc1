//! `render_compact`: the text a model reads.

use std::fmt::Write as _;

use super::{call_text, error_line};
use crate::envelope::Envelope;
use crate::envelope::kinds::Status;
use crate::envelope::table::{Cell, Table};

/// The envelope as text for a model.
///
/// Each table is a pipe table whose constant columns (one value on every row) are hoisted into
/// one `(constants: unit=mmol/L)` line, because a client pays per token for the unit repeated
/// on 200 rows. Then the window and its semantics, the view, the cut, provenance, the
/// assumptions and the next steps. An error is one line naming the kind and the parameter or
/// the tool and the error's type, then the next steps.
///
/// ```
/// use answers_protocol::{ArgProblem, Envelope, ToolId, render_compact};
///
/// let env = Envelope::refusal(ToolId::QueryHealthIndicators, Some("kind"), ArgProblem::UnknownParameter);
/// assert_eq!(
///     render_compact(&env),
///     "error (invalid_arguments): kind: unknown parameter. Fix the arguments and try once more."
/// );
/// ```
#[must_use]
pub fn render_compact(env: &Envelope) -> String {
    let mut out = String::new();
    if let Some(line) = error_line(env) {
        out.push_str(&line);
    } else {
        answer(env, &mut out);
    }
    if !env.next_steps().is_empty() {
        out.push_str("\nnext steps:");
        for step in env.next_steps() {
            let _ = write!(out, "\n- {}: {}", step.action, call_text(step));
        }
    }
    out
}

/// Everything but the next steps, for an envelope that is not an error.
fn answer(env: &Envelope, out: &mut String) {
    let meta = env.meta();
    let mut lines: Vec<String> = Vec::new();
    if env.status() == Status::Partial {
        lines.push("status: partial".into());
    }
    for table in env.data() {
        lines.push(pipe_table(table));
    }
    if env.data().is_empty() {
        lines.push("no rows".into());
    }
    let zone = if meta.tz.is_empty() {
        String::new()
    } else {
        format!("{}, ", meta.tz)
    };
    // An answer with no zone read no record (a terminology tool's): it has no window to state.
    if !meta.tz.is_empty() {
        lines.push(format!(
            "window: {} ({zone}{})",
            meta.window, meta.window_semantics
        ));
    }
    if let Some(view) = meta.view {
        lines.push(format!("view: {view}"));
    }
    if let Some(total) = meta.catalog_total {
        lines.push(format!(
            "catalogue: {} listed of {total} recorded",
            meta.row_count
        ));
    }
    if meta.truncated {
        lines.push("truncated: yes, a cap cut the rows".into());
    }
    if !env.provenance().is_empty() {
        let items: Vec<String> = env
            .provenance()
            .iter()
            .map(|(indicator, p)| format!("{indicator}={p}"))
            .collect();
        lines.push(format!("provenance: {}", items.join(", ")));
    }
    if !env.assumptions().is_empty() {
        let mut block = String::from("assumptions:");
        for a in env.assumptions() {
            let _ = write!(block, "\n- {}", a.text());
        }
        lines.push(block);
    }
    out.push_str(&lines.join("\n"));
}

/// A table as `name: N rows`, the constants line, the header and the rows.
///
/// A column is hoisted when it has one value on at least two rows and some other column varies:
/// hoisting every column, or the only row, would save nothing.
fn pipe_table(table: &Table) -> String {
    let rows = table.rows();
    let plural = if rows.len() == 1 { "row" } else { "rows" };
    let mut out = format!("{}: {} {plural}", table.name(), rows.len());
    if rows.is_empty() {
        return out;
    }
    let constant: Vec<bool> = (0..table.columns().len())
        .map(|c| rows.len() > 1 && rows.iter().all(|r| r[c] == rows[0][c]))
        .collect();
    let hoist = if constant.iter().all(|&c| c) {
        vec![false; constant.len()]
    } else {
        constant
    };
    let constants: Vec<String> = table
        .columns()
        .iter()
        .zip(&hoist)
        .enumerate()
        .filter(|(_, (_, h))| **h)
        .map(|(c, (name, _))| format!("{name}={}", constant_text(&rows[0][c])))
        .collect();
    if !constants.is_empty() {
        let _ = write!(out, "\n(constants: {})", constants.join(", "));
    }
    let keep = |r: &[Cell]| -> Vec<String> {
        r.iter()
            .zip(&hoist)
            .filter(|(_, h)| !**h)
            .map(|(cell, _)| escape(&cell.to_string()))
            .collect()
    };
    let header: Vec<String> = table
        .columns()
        .iter()
        .zip(&hoist)
        .filter(|(_, h)| !**h)
        .map(|(name, _)| escape(name))
        .collect();
    let _ = write!(out, "\n{}", header.join(" | "));
    for row in rows {
        let _ = write!(out, "\n{}", keep(row).join(" | "));
    }
    out
}

/// A hoisted value: a null shows as `(none)` rather than nothing after the `=`.
fn constant_text(cell: &Cell) -> String {
    match cell {
        Cell::Null => "(none)".into(),
        other => escape(&other.to_string()),
    }
}

/// A cell that cannot break the table: `|` escaped, line breaks as `\n`.
fn escape(text: &str) -> String {
    if !text.contains(['|', '\n', '\r']) {
        return text.to_owned();
    }
    text.replace('|', "\\|")
        .replace("\r\n", "\\n")
        .replace(['\n', '\r'], "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hoists_constant_columns_but_not_all_of_them() {
        let t = Table::new("t", ["a", "b"])
            .with_row(["x".into(), 1.into()])
            .unwrap()
            .with_row(["x".into(), 2.into()])
            .unwrap();
        assert_eq!(pipe_table(&t), "t: 2 rows\n(constants: a=x)\nb\n1\n2");
        let same = Table::new("t", ["a"])
            .with_row(["x".into()])
            .unwrap()
            .with_row(["x".into()])
            .unwrap();
        assert_eq!(pipe_table(&same), "t: 2 rows\na\nx\nx");
        let one = Table::new("t", ["a", "b"])
            .with_row(["x".into(), Cell::Null])
            .unwrap();
        assert_eq!(pipe_table(&one), "t: 1 row\na | b\nx | ");
    }

    #[test]
    fn escapes_what_would_break_a_row() {
        assert_eq!(escape("a|b\nc"), "a\\|b\\nc");
        assert_eq!(escape("plain"), "plain");
    }
}
