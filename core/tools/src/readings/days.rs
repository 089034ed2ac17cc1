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

use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::readings::rows::Reading;
use crate::readings::units::Units;
use crate::readings::window::next_day;
use crate::store::{EntryKind, Flow};
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

/// Every point of `code` in the window, ordered by day and time, each in the unit `units`
/// answers it in.
pub(crate) fn points(
    ctx: &Ctx<'_>,
    code: &CodeRef,
    units: &mut Units,
) -> Result<Vec<Point>, ToolError> {
    let b = &ctx.bounds;
    let mut points: Vec<Point> = ctx
        .store
        .elected_days(ctx.subject_id, code, b)?
        .into_iter()
        .map(|e| Point {
            kind: EntryKind::Measured,
            unit: e.unit,
            at: e.day.clone(),
            day: e.day,
            num: Some(e.value),
            text: None,
            source: e.source,
            elected: true,
            legacy: false,
        })
        .collect();
    let elected: Vec<String> = points.iter().map(|p| p.day.clone()).collect();
    for (from, before) in gaps(&elected, b.day_lo(), b.day_hi()) {
        readings_between(ctx, code, &from, &before, &mut points)?;
    }
    legacy(ctx, code, &mut points)?;
    for p in &mut points {
        let (unit, num) = units.convert(p.unit.as_deref(), p.num);
        if unit != p.unit.as_deref() {
            let unit = unit.map(str::to_owned);
            p.unit = unit;
        }
        p.num = num;
    }
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
    ctx.store
        .visit_days(ctx.subject_id, code, (from, before), |r| {
            points.push(Reading::from_row(&r, &mut clock)?.into());
            Ok::<_, ToolError>(Flow::Continue)
        })
}

/// Adds the legacy rows of the window.
fn legacy(ctx: &Ctx<'_>, code: &CodeRef, points: &mut Vec<Point>) -> Result<(), ToolError> {
    let mut clock = ctx.clock.clone();
    ctx.store
        .visit_legacy(ctx.subject_id, code, &ctx.bounds, |r| {
            points.push(Reading::from_row(&r, &mut clock)?.into());
            Ok::<_, ToolError>(Flow::Continue)
        })
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
