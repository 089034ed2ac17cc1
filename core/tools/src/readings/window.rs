//! The calendar arithmetic the views need (the day before and after, the Monday of a week, the
//! month of a day). The window's bounds are the store's ([`Bounds`](crate::store::Bounds)).

use jiff::civil::Date;

use crate::date::LocalDate;

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
