//! A [`Window`] as the bounds the readings queries bind, and the calendar arithmetic the views
//! need (the day before and after, the Monday of a week, the month of a day).
//!
//! Every row with a stored local day is matched on that day exactly. A legacy row (no local
//! day) is matched by its naive timestamp padded a day either side, which is what
//! `date_padded_naive` reports. Both are bounded by one range on `start_utc`, so the
//! `(subject_id, code, start_utc)` index serves every query: a local day `D` in any zone
//! (offsets are within ±14 h) starts and ends within `[D-1, D+2)` UTC.

use jiff::civil::Date;

use crate::date::LocalDate;
use crate::window::Window;

/// The lowest and highest text a day bound can be compared with: `''` sorts before every
/// date and `'~'` after every digit.
const LOWEST: &str = "";
const HIGHEST: &str = "~";

/// The bounds of a window as SQL text parameters.
///
/// - `day_lo..=day_hi`: the stored local day, inclusive;
/// - `utc_lo..utc_hi`: `start_utc`, half-open: the padded range, and for a legacy row exactly
///   its naive date within a day of the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) day_lo: String,
    pub(crate) day_hi: String,
    pub(crate) utc_lo: String,
    pub(crate) utc_hi: String,
}

impl Bounds {
    /// The bounds of `window`; an open side matches everything on that side.
    pub(crate) fn of(window: &Window) -> Self {
        let (day_lo, utc_lo) = match window.start() {
            Some(s) => (s.to_string(), shift(s, -1)),
            None => (LOWEST.to_owned(), LOWEST.to_owned()),
        };
        let (day_hi, utc_hi) = match window.end() {
            Some(e) => (e.to_string(), shift(e, 2)),
            None => (HIGHEST.to_owned(), HIGHEST.to_owned()),
        };
        Self {
            day_lo,
            day_hi,
            utc_lo,
            utc_hi,
        }
    }
}

/// The SQL condition a series row (aliased `s`) must meet to be in the window, with the
/// bounds bound as `:day_lo`, `:day_hi`, `:utc_lo`, `:utc_hi`.
pub(crate) const IN_WINDOW: &str = "s.start_utc >= :utc_lo AND s.start_utc < :utc_hi \
     AND (s.local_day BETWEEN :day_lo AND :day_hi OR s.local_day IS NULL)";

/// `day` shifted by `days`, as text; saturates at the ends of the calendar.
fn shift(day: LocalDate, days: i64) -> String {
    let date = day.date();
    let shifted = date
        .checked_add(jiff::Span::new().days(days))
        .unwrap_or(date);
    shifted.to_string()
}

/// Parses a stored day, `YYYY-MM-DD` (the first ten characters of a timestamp work too).
pub(crate) fn parse_day(text: &str) -> Option<Date> {
    let day: LocalDate = text.get(..10)?.parse().ok()?;
    Some(day.date())
}

/// The day after `day`, as text, if it is a day.
pub(crate) fn next_day(day: &str) -> Option<String> {
    parse_day(day)?.tomorrow().ok().map(|d| d.to_string())
}

/// The Monday of the week `day` is in, as text.
pub(crate) fn week_of(day: &str) -> Option<String> {
    let date = parse_day(day)?;
    let back = i64::from(date.weekday().to_monday_zero_offset());
    let monday = date.checked_sub(jiff::Span::new().days(back)).ok()?;
    Some(monday.to_string())
}

/// The month `day` is in, `YYYY-MM`.
pub(crate) fn month_of(day: &str) -> Option<String> {
    parse_day(day).map(|d| format!("{:04}-{:02}", d.year(), d.month()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: Option<&str>, e: Option<&str>) -> Window {
        Window::between(s.map(|d| d.parse().unwrap()), e.map(|d| d.parse().unwrap())).unwrap()
    }

    #[test]
    fn pads_a_day_before_and_a_day_after() {
        let b = Bounds::of(&w(Some("2024-03-01"), Some("2024-12-31")));
        assert_eq!(b.day_lo, "2024-03-01");
        assert_eq!(b.day_hi, "2024-12-31");
        assert_eq!(b.utc_lo, "2024-02-29");
        assert_eq!(b.utc_hi, "2025-01-02");
        // A legacy row on the last padded day is in; a day later is out.
        assert!("2025-01-01T23:59:59Z" < b.utc_hi.as_str());
        assert!("2025-01-02T00:00:00Z" >= b.utc_hi.as_str());
    }

    #[test]
    fn an_open_window_matches_every_text() {
        let b = Bounds::of(&Window::ALL_RECORDED);
        for t in ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
            assert!(b.utc_lo.as_str() <= t && t < b.utc_hi.as_str());
            assert!(b.day_lo.as_str() <= &t[..10] && &t[..10] <= b.day_hi.as_str());
        }
    }

    #[test]
    fn calendar_arithmetic() {
        assert_eq!(week_of("2026-09-13").as_deref(), Some("2026-09-07"));
        assert_eq!(week_of("2026-09-14").as_deref(), Some("2026-09-14"));
        assert_eq!(month_of("2026-09-14").as_deref(), Some("2026-09"));
        assert_eq!(next_day("2024-02-28").as_deref(), Some("2024-02-29"));
        assert_eq!(next_day("2024-12-31").as_deref(), Some("2025-01-01"));
        assert_eq!(parse_day("2024-13-01"), None);
    }
}
