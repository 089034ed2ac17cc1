//! FHIR `dateTime` and `instant` values: a year, a month, a day, or a time with its offset.

use jiff::Timestamp;
use jiff::civil::Date;

use answers_protocol::LocalDate;
use answers_store::Subject;

/// A FHIR `dateTime` as written: as precise as the source knew it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FhirTime {
    /// `YYYY` or `YYYY-MM`: too coarse to place a reading or a day.
    Coarse,
    /// `YYYY-MM-DD`: a day, in the subject's zone.
    Day(Date),
    /// `YYYY-MM-DDThh:mm:ss[.fff](Z|±hh:mm)`: an instant.
    At(Timestamp),
}

impl FhirTime {
    /// Parses a FHIR `dateTime`; `None` when the text is not one (a time without its offset,
    /// a day that does not exist, another layout).
    pub(crate) fn parse(text: &str) -> Option<FhirTime> {
        let b = text.as_bytes();
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        match b.len() {
            4 if digits(0..4) => Some(FhirTime::Coarse),
            7 if digits(0..4) && b[4] == b'-' && digits(5..7) => {
                let month: u8 = text[5..7].parse().ok()?;
                (1..=12).contains(&month).then_some(FhirTime::Coarse)
            }
            10 => day(text).map(FhirTime::Day),
            n if n >= 20 => {
                let shape = b[10] == b'T'
                    && b[13] == b':'
                    && b[16] == b':'
                    && digits(11..13)
                    && digits(14..16)
                    && digits(17..19);
                // The offset is required with a time (`Z` or `±hh:mm`).
                let zoned = text.ends_with('Z') || (b[n - 6] == b'+' || b[n - 6] == b'-');
                if !(shape && zoned && day(&text[..10]).is_some()) {
                    return None;
                }
                text.parse::<Timestamp>().ok().map(FhirTime::At)
            }
            _ => None,
        }
    }

    /// The instant a reading starts at: a day's start in the subject's zone for a day.
    pub(crate) fn instant(self, subject: &Subject) -> Option<Timestamp> {
        match self {
            FhirTime::Coarse => None,
            FhirTime::At(t) => Some(t),
            FhirTime::Day(d) => subject
                .tz
                .to_timestamp(d.to_datetime(jiff::civil::Time::midnight()))
                .ok(),
        }
    }

    /// The instant a period that ends at this time ends at: a day is included whole (FHIR's
    /// rule for a `Period.end`), so it ends at the next day's start in the subject's zone.
    pub(crate) fn end_instant(self, subject: &Subject) -> Option<Timestamp> {
        match self {
            FhirTime::Day(d) => FhirTime::Day(d.tomorrow().ok()?).instant(subject),
            other => other.instant(subject),
        }
    }

    /// Whether it places a day or an instant (not only a year or a month).
    pub(crate) fn is_precise(self) -> bool {
        self != FhirTime::Coarse
    }

    /// The local day it falls on in the subject's zone.
    pub(crate) fn local_day(self, subject: &Subject) -> Option<LocalDate> {
        let date = match self {
            FhirTime::Coarse => return None,
            FhirTime::Day(d) => d,
            FhirTime::At(t) => subject.local_date(t),
        };
        LocalDate::try_from(date).ok()
    }
}

fn day(text: &str) -> Option<Date> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i16> {
        b[r.clone()]
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| text[r].parse().ok())
            .flatten()
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    Date::new(y, i8::try_from(m).ok()?, i8::try_from(d).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_precisions_fhir_allows() {
        assert_eq!(FhirTime::parse("2026"), Some(FhirTime::Coarse));
        assert_eq!(FhirTime::parse("2026-02"), Some(FhirTime::Coarse));
        assert_eq!(
            FhirTime::parse("2026-02-28"),
            Some(FhirTime::Day(Date::constant(2026, 2, 28)))
        );
        let t = FhirTime::parse("2026-02-28T07:30:00.250+01:00").unwrap();
        assert_eq!(t, FhirTime::At("2026-02-28T06:30:00.25Z".parse().unwrap()));
        assert!(FhirTime::parse("2026-02-28T07:30:00Z").is_some());
    }

    #[test]
    fn a_day_ends_a_period_at_the_next_days_start() {
        let subject = Subject {
            id: "s".into(),
            handle: "h".into(),
            tz: jiff::tz::TimeZone::UTC,
        };
        let day = FhirTime::parse("2026-03-01").unwrap();
        let end = day.end_instant(&subject).unwrap();
        assert_eq!(end.to_string(), "2026-03-02T00:00:00Z");
        assert_eq!(
            day.instant(&subject).unwrap().to_string(),
            "2026-03-01T00:00:00Z"
        );
        let at = FhirTime::parse("2026-03-01T10:00:00Z").unwrap();
        assert_eq!(at.end_instant(&subject), at.instant(&subject));
        assert!(at.is_precise() && day.is_precise());
        assert!(!FhirTime::parse("2019").unwrap().is_precise());
    }

    #[test]
    fn what_fhir_refuses_is_refused() {
        for bad in [
            "",
            "26",
            "2026-13",
            "2026-02-30",
            "2026-2-28",
            "2026-02-28T07:30:00",
            "2026-02-28T07:30Z",
            "2026-02-28 07:30:00Z",
            "yesterday",
            "2026-02-28T25:30:00Z",
        ] {
            assert_eq!(FhirTime::parse(bad), None, "{bad}");
        }
    }
}
