//! `LocalDate`: a calendar date in the subject's zone, written `YYYY-MM-DD`.
//!
//! A window bound is a date the person can read, never an instant: "on the 3rd" in the zone the
//! person lives in. It is a newtype over `jiff::civil::Date` (so the tools' date arithmetic needs
//! no conversions) that keeps its own strict parser and the years 0000–9999.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A calendar date (proleptic Gregorian, years 0000–9999), ordered chronologically.
///
/// Parsed strictly from `YYYY-MM-DD`: four-digit year, two-digit month and day, a day that
/// exists in that month (leap years included), nothing before or after.
///
/// ```
/// use answers_protocol::LocalDate;
///
/// let d: LocalDate = "2024-02-29".parse().unwrap();
/// assert_eq!(d.to_string(), "2024-02-29");
/// assert!("2023-02-29".parse::<LocalDate>().is_err());
/// assert!("2024-3-1".parse::<LocalDate>().is_err());
/// assert!(LocalDate::new(2024, 3, 1).unwrap() > d);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalDate(jiff::civil::Date);

/// Why a text is not a [`LocalDate`]. The offending text is never included: a date can be PHI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DateError {
    /// Not of the form `YYYY-MM-DD` with ASCII digits.
    #[error("expected a date as YYYY-MM-DD")]
    Format,
    /// The year is past 9999 (only from [`LocalDate::new`]; text has four digits).
    #[error("year out of range 0000-9999")]
    Year,
    /// The month is not 01–12.
    #[error("month out of range 01-12")]
    Month,
    /// The day does not exist in that month.
    #[error("day out of range for the month")]
    Day,
}

impl LocalDate {
    /// The date `year-month-day`, if it exists.
    ///
    /// ```
    /// use answers_protocol::{DateError, LocalDate};
    ///
    /// assert_eq!(LocalDate::new(2024, 4, 31), Err(DateError::Day));
    /// assert_eq!(LocalDate::new(2024, 4, 30).unwrap().to_string(), "2024-04-30");
    /// ```
    pub fn new(year: u16, month: u8, day: u8) -> Result<Self, DateError> {
        if year > 9999 {
            return Err(DateError::Year);
        }
        if !(1..=12).contains(&month) {
            return Err(DateError::Month);
        }
        let (Ok(y), Ok(m), Ok(d)) = (i16::try_from(year), i8::try_from(month), i8::try_from(day))
        else {
            return Err(DateError::Day);
        };
        jiff::civil::Date::new(y, m, d)
            .map(Self)
            .map_err(|_| DateError::Day)
    }

    /// The same day as a `jiff` civil date, for arithmetic.
    #[must_use]
    pub const fn date(self) -> jiff::civil::Date {
        self.0
    }

    /// The year, 0–9999.
    ///
    /// ```
    /// assert_eq!("2024-03-01".parse::<answers_protocol::LocalDate>().unwrap().year(), 2024);
    /// ```
    #[must_use]
    pub fn year(self) -> u16 {
        // `new` and `TryFrom` admit years 0–9999 only, so the conversion is lossless.
        u16::try_from(self.0.year()).unwrap_or(0)
    }

    /// The month, 1–12.
    ///
    /// ```
    /// assert_eq!("2024-03-01".parse::<answers_protocol::LocalDate>().unwrap().month(), 3);
    /// ```
    #[must_use]
    pub fn month(self) -> u8 {
        self.0.month().unsigned_abs()
    }

    /// The day of the month, 1–31.
    ///
    /// ```
    /// assert_eq!("2024-03-01".parse::<answers_protocol::LocalDate>().unwrap().day(), 1);
    /// ```
    #[must_use]
    pub fn day(self) -> u8 {
        self.0.day().unsigned_abs()
    }
}

impl From<LocalDate> for jiff::civil::Date {
    fn from(day: LocalDate) -> Self {
        day.0
    }
}

impl TryFrom<jiff::civil::Date> for LocalDate {
    type Error = DateError;

    /// A `jiff` date in the years 0000–9999.
    fn try_from(date: jiff::civil::Date) -> Result<Self, DateError> {
        if (0..=9999).contains(&date.year()) {
            Ok(Self(date))
        } else {
            Err(DateError::Year)
        }
    }
}

/// The value of a run of ASCII digits, or `None` if any byte is not one.
fn digits(bytes: &[u8]) -> Option<u16> {
    bytes.iter().try_fold(0u16, |acc, b| {
        b.is_ascii_digit().then(|| acc * 10 + u16::from(b - b'0'))
    })
}

impl FromStr for LocalDate {
    type Err = DateError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return Err(DateError::Format);
        }
        let (Some(year), Some(month), Some(day)) =
            (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..]))
        else {
            return Err(DateError::Format);
        };
        // Two digits are at most 99, so the narrowing is lossless.
        Self::new(year, month as u8, day as u8)
    }
}

impl fmt::Display for LocalDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}",
            self.year(),
            self.month(),
            self.day()
        )
    }
}

impl Serialize for LocalDate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for LocalDate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_round_trip() {
        for text in [
            "0000-02-29",
            "0001-01-01",
            "2000-02-29",
            "2024-12-31",
            "9999-12-31",
        ] {
            let d: LocalDate = text.parse().unwrap();
            assert_eq!(d.to_string(), text);
        }
    }

    #[test]
    fn refuses_malformed_and_impossible_dates() {
        let cases = [
            ("2024-03-1", DateError::Format),
            ("2024/03/01", DateError::Format),
            (" 2024-03-01", DateError::Format),
            ("2024-03-01T00:00", DateError::Format),
            ("２０２４-03-01", DateError::Format),
            ("+024-03-01", DateError::Format),
            ("2024-13-01", DateError::Month),
            ("2024-00-10", DateError::Month),
            ("2024-04-31", DateError::Day),
            ("1900-02-29", DateError::Day),
            ("2024-01-00", DateError::Day),
        ];
        for (text, want) in cases {
            assert_eq!(text.parse::<LocalDate>(), Err(want), "{text}");
        }
    }

    #[test]
    fn converts_to_and_from_jiff_within_the_years_it_admits() {
        let d: LocalDate = "2024-02-29".parse().unwrap();
        assert_eq!(jiff::civil::Date::from(d), jiff::civil::date(2024, 2, 29));
        assert_eq!(LocalDate::try_from(d.date()), Ok(d));
        assert_eq!(
            LocalDate::try_from(jiff::civil::date(-1, 1, 1)),
            Err(DateError::Year)
        );
    }

    #[test]
    fn orders_chronologically() {
        let a: LocalDate = "2023-12-31".parse().unwrap();
        let b: LocalDate = "2024-01-01".parse().unwrap();
        let c: LocalDate = "2024-01-02".parse().unwrap();
        assert!(a < b && b < c);
    }
}
