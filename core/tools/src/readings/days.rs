//! The day authority: what `day`, `week`, `month` and `stats` count, per series and local day.
//!
//! Where the write side elected a source for a day (`day_elected`), that day is its one elected
//! value: a watch and a phone reporting the same Tuesday, or forty intraday samples, count once.
//! A day nothing elected (a file upload, a typed-in entry) keeps every reading, so a morning and
//! an evening blood pressure both count. A legacy row (no stored local day) is never covered by
//! an election and always counts, on the day it falls on in the subject's zone.
//!
//! The readings of days without an election are read only from the gaps between elected days,
//! so a year of minute data whose every day was elected costs one index probe per gap, not a
//! scan of half a million rows.

use std::sync::LazyLock;

use rusqlite::named_params;

use crate::store::EntryKind;
use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::readings::rows::{COLUMNS, OF_CODE, Reading};
use crate::readings::window::next_day;
use crate::vocab::CodeRef;

/// One value the day authority counts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Point {
    pub(crate) kind: EntryKind,
    pub(crate) unit: Option<String>,
    pub(crate) day: String,
    /// Orders the points of one day: the timestamp of a reading; the day of an elected value.
    pub(crate) at: String,
    pub(crate) num: Option<f64>,
    pub(crate) text: Option<String>,
    /// Where the value came from: the elected source, or the reading's source.
    pub(crate) source: String,
    /// Whether the value is an elected day's.
    pub(crate) elected: bool,
    pub(crate) legacy: bool,
}

impl From<Reading> for Point {
    fn from(r: Reading) -> Self {
        Self {
            kind: r.kind,
            unit: r.unit,
            day: r.day,
            at: r.start_utc,
            num: r.num,
            text: r.text,
            source: r.source,
            elected: false,
            legacy: r.legacy,
        }
    }
}

/// The elected days of a code in the window, oldest first, each with its unit.
pub(crate) const ELECTED: &str = "\
SELECT e.local_day, e.value, e.source, e.unit
  FROM day_elected e
 WHERE e.subject_id = :subject AND e.system = :system AND e.code = :code
   AND e.local_day BETWEEN :day_lo AND :day_hi
 ORDER BY e.local_day";

/// Every point of `code` in the window, ordered by day and time.
pub(crate) fn points(ctx: &Ctx<'_>, code: &CodeRef) -> Result<Vec<Point>, ToolError> {
    let b = &ctx.bounds;
    let mut points = Vec::new();
    let mut stmt = ctx.conn.prepare_cached(ELECTED)?;
    let mut rows = stmt.query(named_params! {
        ":subject": ctx.subject_id,
        ":system": code.system.as_str(),
        ":code": &code.code,
        ":day_lo": &b.day_lo,
        ":day_hi": &b.day_hi,
    })?;
    while let Some(row) = rows.next()? {
        let day: String = row.get(0)?;
        points.push(Point {
            kind: EntryKind::Measured,
            unit: row.get(3)?,
            at: day.clone(),
            day,
            num: Some(row.get(1)?),
            text: None,
            source: row.get(2)?,
            elected: true,
            legacy: false,
        });
    }
    drop(rows);
    let elected: Vec<String> = points.iter().map(|p| p.day.clone()).collect();
    for (from, before) in gaps(&elected, &b.day_lo, &b.day_hi) {
        readings_between(ctx, code, &from, &before, &mut points)?;
    }
    legacy(ctx, code, &mut points)?;
    points.sort_by(|a, b| (&a.day, &a.at).cmp(&(&b.day, &b.at)));
    Ok(points)
}

/// The ranges of days `[from, before)` in `[day_lo, day_hi]` that no elected day covers.
/// Elected days are sorted. A day plus `~` sorts after that day and before the next.
fn gaps(elected: &[String], day_lo: &str, day_hi: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut push = |from: String, before: String| {
        // `X~` up to the day after `X` holds no day.
        let empty = from.strip_suffix('~').and_then(next_day).as_deref() == Some(before.as_str());
        if from < before && !empty {
            out.push((from, before));
        }
    };
    let mut from = day_lo.to_owned();
    for day in elected {
        push(from, day.clone());
        from = format!("{day}~");
    }
    push(from, format!("{day_hi}~"));
    out
}

fn readings_between(
    ctx: &Ctx<'_>,
    code: &CodeRef,
    from: &str,
    before: &str,
    points: &mut Vec<Point>,
) -> Result<(), ToolError> {
    let mut clock = ctx.clock.clone();
    let sql = gap_sql();
    let mut stmt = ctx.conn.prepare_cached(sql)?;
    let mut rows = stmt.query(named_params! {
        ":subject": ctx.subject_id,
        ":code": &code.code,
        ":from": from,
        ":before": before,
        ":system": code.system.as_str(),
    })?;
    while let Some(row) = rows.next()? {
        points.push(Reading::from_row(row, &mut clock)?.into());
    }
    Ok(())
}

/// Adds the legacy rows of the window.
fn legacy(ctx: &Ctx<'_>, code: &CodeRef, points: &mut Vec<Point>) -> Result<(), ToolError> {
    let mut clock = ctx.clock.clone();
    let sql = legacy_sql();
    let mut stmt = ctx.conn.prepare_cached(sql)?;
    let mut rows = stmt.query(named_params! {
        ":subject": ctx.subject_id,
        ":code": &code.code,
        ":utc_lo": &ctx.bounds.utc_lo,
        ":utc_hi": &ctx.bounds.utc_hi,
        ":system": code.system.as_str(),
    })?;
    while let Some(row) = rows.next()? {
        points.push(Reading::from_row(row, &mut clock)?.into());
    }
    Ok(())
}

/// The readings of a code on the days `[:from, :before)`.
pub(crate) fn gap_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {COLUMNS} FROM series s \
             WHERE {OF_CODE} AND s.local_day >= :from AND s.local_day < :before"
        )
    });
    &SQL
}

/// The legacy rows of a code in the window. The unary `+` keeps the planner on the local-day
/// index (`local_day IS NULL` is a handful of rows), not the time index (every row of the window).
pub(crate) fn legacy_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {COLUMNS} FROM series s \
             WHERE {OF_CODE} AND s.local_day IS NULL \
               AND +s.start_utc >= :utc_lo AND +s.start_utc < :utc_hi"
        )
    });
    &SQL
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(elected: &[&str], lo: &str, hi: &str) -> Vec<(String, String)> {
        let elected: Vec<String> = elected.iter().map(|d| (*d).to_owned()).collect();
        gaps(&elected, lo, hi)
    }

    #[test]
    fn consecutive_elected_days_leave_no_gap_between_them() {
        let out = g(
            &["2024-03-01", "2024-03-02", "2024-03-03"],
            "2024-03-01",
            "2024-03-31",
        );
        assert_eq!(out, [("2024-03-03~".to_owned(), "2024-03-31~".to_owned())]);
    }

    #[test]
    fn a_missing_day_is_a_gap() {
        let out = g(&["2024-03-02", "2024-03-04"], "2024-03-01", "2024-03-04");
        let want = [("2024-03-01", "2024-03-02"), ("2024-03-02~", "2024-03-04")];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        assert_eq!(out, want);
        // The gaps hold exactly the days nothing elected.
        let inside = |d: &str| out.iter().any(|(a, b)| a.as_str() <= d && d < b.as_str());
        assert!(inside("2024-03-01") && inside("2024-03-03"));
        assert!(!inside("2024-03-02") && !inside("2024-03-04") && !inside("2024-03-05"));
    }

    #[test]
    fn an_open_window_has_open_ends() {
        let out = g(&[], "", "~");
        assert_eq!(out, [(String::new(), "~~".to_owned())]);
        let inside = |d: &str| out.iter().any(|(a, b)| a.as_str() <= d && d < b.as_str());
        assert!(inside("0001-01-01") && inside("9999-12-31"));
    }
}
