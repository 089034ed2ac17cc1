//! Local wall-clock time in the subject's zone, for `raw` times and `minute`/`hour` buckets.
//!
//! A stored `start_utc` is UTC, a legacy row's too: what a legacy row lacks is the local day
//! decided when it was written, so its day here is the one it falls on in the subject's zone
//! today, and approximate (the answer says `date_padded_naive`). Conversion parses the fixed
//! `YYYY-MM-DDTHH:MM:SS` form by hand and keeps the zone's current offset with the instants it
//! holds between, so a scan of a million readings asks the zone database a few times a year
//! of data, not once per row.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::{Offset, TimeZone};

/// The subject's zone, with the offset last used and the instants it holds for.
#[derive(Debug, Clone)]
pub(crate) struct Clock {
    tz: TimeZone,
    /// `[lo, hi)` in Unix seconds, and the offset throughout it.
    held: Option<(i64, i64, Offset)>,
    /// Look-ups the held range missed: the range costs two searches of the zone's
    /// transitions, which a call that converts one instant does not need.
    misses: u32,
}

impl Clock {
    /// The clock of the zone `tz`.
    pub(crate) fn new(tz: TimeZone) -> Self {
        Self {
            tz,
            held: None,
            misses: 0,
        }
    }

    /// The local date and time of a stored UTC timestamp in the zone; `None` when the text is
    /// not a timestamp.
    pub(crate) fn local(&mut self, start_utc: &str) -> Option<DateTime> {
        let utc = parse(start_utc)?;
        let ts = Offset::UTC.to_timestamp(utc).ok()?;
        Some(self.offset(ts).to_datetime(ts))
    }

    fn offset(&mut self, ts: Timestamp) -> Offset {
        let s = ts.as_second();
        if let Some((lo, hi, off)) = self.held
            && lo <= s
            && s < hi
        {
            return off;
        }
        let off = self.tz.to_offset(ts);
        self.misses += 1;
        if self.misses == 1 {
            self.held = Some((s, s + 1, off));
            return off;
        }
        // The offset holds from the transition that set it to the next one; where the zone
        // database cannot say, hold it for this instant only.
        let lo = self
            .tz
            .preceding(ts)
            .next()
            .filter(|t| t.offset() == off)
            .map_or(s, |t| t.timestamp().as_second());
        let hi = self
            .tz
            .following(ts)
            .next()
            .map_or(i64::MAX, |t| t.timestamp().as_second());
        self.held = Some((lo, hi.max(s + 1), off));
        off
    }
}

/// `YYYY-MM-DDTHH:MM[:SS]…` (a space for the `T` too) as a civil date-time; what follows the
/// seconds (a fraction, `Z`) is ignored.
fn parse(text: &str) -> Option<DateTime> {
    let b = text.as_bytes();
    if b.len() < 16
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b' ')
        || b[13] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i16> {
        b.get(r)?.iter().try_fold(0i16, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i16::from(c - b'0'))
        })
    };
    let second = if b.len() >= 19 && b[16] == b':' {
        num(17..19)?
    } else {
        0
    };
    let small = |v: i16| i8::try_from(v).ok();
    DateTime::new(
        num(0..4)?,
        small(num(5..7)?)?,
        small(num(8..10)?)?,
        small(num(11..13)?)?,
        small(num(14..16)?)?,
        small(second)?,
        0,
    )
    .ok()
}

/// `YYYY-MM-DD HH:MM`.
pub(crate) fn minute_label(t: DateTime) -> String {
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute()
    )
}

/// `YYYY-MM-DD HH:00`.
pub(crate) fn hour_label(t: DateTime) -> String {
    format!(
        "{:04}-{:02}-{:02} {:02}:00",
        t.year(),
        t.month(),
        t.day(),
        t.hour()
    )
}

/// `HH:MM`.
pub(crate) fn time_label(t: DateTime) -> String {
    let two = |n: i8| {
        let n = n.unsigned_abs();
        [char::from(b'0' + n / 10 % 10), char::from(b'0' + n % 10)]
    };
    let mut out = String::with_capacity(5);
    out.extend(two(t.hour()));
    out.push(':');
    out.extend(two(t.minute()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_across_a_transition_in_either_direction() {
        let mut c = Clock::new(TimeZone::get("Europe/Berlin").unwrap());
        let at = |c: &mut Clock, t: &str| minute_label(c.local(t).unwrap());
        // Newest first, as a scan goes: CEST in October, CET after the fall-back.
        assert_eq!(at(&mut c, "2025-10-26T01:30:00Z"), "2025-10-26 02:30");
        assert_eq!(at(&mut c, "2025-10-26T00:30:00Z"), "2025-10-26 02:30");
        assert_eq!(at(&mut c, "2025-10-25T22:00:00Z"), "2025-10-26 00:00");
        assert_eq!(at(&mut c, "2025-07-01T12:00:00Z"), "2025-07-01 14:00");
        assert_eq!(at(&mut c, "2025-01-01T12:00:00Z"), "2025-01-01 13:00");
        assert_eq!(at(&mut c, "2025-10-26T01:30:00Z"), "2025-10-26 02:30");
        assert_eq!(at(&mut c, "2025-10-26T02:30:00Z"), "2025-10-26 03:30");
    }

    #[test]
    fn labels_a_bucket_and_a_time() {
        let mut c = Clock::new(TimeZone::get("America/New_York").unwrap());
        let t = c.local("2025-03-03 13:15:00").unwrap();
        assert_eq!(hour_label(t), "2025-03-03 08:00");
        assert_eq!(time_label(t), "08:15");
    }

    #[test]
    fn refuses_what_is_not_a_timestamp() {
        let mut c = Clock::new(TimeZone::UTC);
        assert!(c.local("2025-03-03").is_none());
        assert!(c.local("2025-02-30T00:00:00Z").is_none());
        assert!(c.local("yesterday morning").is_none());
    }
}
