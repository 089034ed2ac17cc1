//! The year of device readings per account: weekly weight, daily resting heart rate and
//! steps, home blood pressure every `k` days, and sleep where the profile tracks it.

use jiff::Timestamp;
use jiff::civil::{Date, Weekday};
use jiff::tz::TimeZone;

use super::profile::Profile;
use super::rng::SplitMix64;
use answers_protocol::envelope::kinds::Source;
use answers_store::NewReading;
use answers_vocab::CodeRef;

/// The last day of the device window.
pub(crate) const END: Date = Date::constant(2026, 9, 14);

/// How many days the device window spans.
pub(crate) const DAYS: usize = 365;

/// Days on which the watch did not sync steps, so the phone's count is the one elected.
pub(crate) const WATCH_OFF: [Date; 2] = [Date::constant(2026, 9, 5), Date::constant(2026, 9, 6)];

/// The days of the window, oldest first.
pub(crate) fn days() -> Vec<Date> {
    let mut days = vec![END];
    while days.len() < DAYS {
        let prev = days[days.len() - 1].yesterday().expect("2025 is in range");
        days.push(prev);
    }
    days.reverse();
    days
}

/// One account's readings and the zone their local times are in.
pub(crate) struct Writer<'a> {
    pub(crate) profile: &'a Profile,
    pub(crate) tz: TimeZone,
    pub(crate) rows: Vec<NewReading>,
}

impl Writer<'_> {
    /// The instant of local `hour:minute` on `day` in the account's zone.
    pub(crate) fn at(&self, day: Date, hour: i8, minute: i8) -> Timestamp {
        self.tz
            .to_timestamp(day.at(hour, minute, 0, 0))
            .expect("a 2025-2026 local time is in range")
    }

    /// The series' random stream.
    pub(crate) fn rng(&self, indicator: &str) -> SplitMix64 {
        SplitMix64::for_series(self.profile.handle, indicator)
    }

    /// Adds a measured reading.
    pub(crate) fn push(
        &mut self,
        name: &str,
        loinc: &str,
        value: f64,
        unit: &str,
        at: Timestamp,
        source: Source,
    ) -> &mut NewReading {
        let id = self.profile.id;
        self.rows.push(NewReading::measured(
            id,
            name,
            CodeRef::loinc(loinc),
            value,
            unit,
            at,
            source,
        ));
        let last = self.rows.len() - 1;
        &mut self.rows[last]
    }

    /// Weight on Mondays at 07:10, from the scale.
    pub(crate) fn weight(&mut self, days: &[Date]) {
        let mondays: Vec<Date> = days
            .iter()
            .copied()
            .filter(|d| d.weekday() == Weekday::Monday)
            .collect();
        let mut rng = self.rng("weight");
        for (i, day) in mondays.iter().enumerate() {
            let v = self.profile.weight.at(i, mondays.len()) + rng.jitter(0.35);
            let at = self.at(*day, 7, 10);
            self.push("bodyMass", "29463-7", round(v, 1), "kg", at, Source::Scale);
        }
    }

    /// Resting heart rate daily at 08:00, from the watch.
    pub(crate) fn resting_hr(&mut self, days: &[Date]) {
        let mut rng = self.rng("resting_hr");
        for (i, day) in days.iter().enumerate() {
            let v = self.profile.resting_hr.at(i, days.len()) + rng.jitter(2.0);
            let at = self.at(*day, 8, 0);
            let name = "dailyRestingHeartRates";
            self.push(name, "40443-4", round(v, 0), "bpm", at, Source::Watch);
        }
    }

    /// Steps at 23:59 from the watch (except on [`WATCH_OFF`]); on the last three weeks the
    /// phone counts too, at 23:58, fewer (it stays on the desk).
    pub(crate) fn steps(&mut self, days: &[Date]) {
        let (median, spread) = self.profile.steps;
        let mut rng = self.rng("steps");
        let mut phone = self.rng("steps_phone");
        let phone_from = days.len().saturating_sub(21);
        for (i, day) in days.iter().enumerate() {
            let weekend = matches!(day.weekday(), Weekday::Saturday | Weekday::Sunday);
            let factor = if weekend { 0.75 } else { 1.0 };
            let steps = (rng.gauss(median, spread) * factor).max(500.0).round();
            if !WATCH_OFF.contains(day) {
                let at = self.at(*day, 23, 59);
                self.push("stepCount", "41950-7", steps, "steps", at, Source::Watch);
            }
            if i >= phone_from {
                let v = (steps * (0.70 + 0.25 * phone.unit())).round();
                let at = self.at(*day, 23, 58);
                self.push("steps", "41950-7", v, "steps", at, Source::Phone);
            }
        }
    }

    /// Home blood pressure at 08:15 every `k` days from the first, from the cuff.
    pub(crate) fn blood_pressure(&mut self, days: &[Date]) {
        let (sys, dia, every) = self.profile.bp;
        let mut rng_sys = self.rng("bp_systolic");
        let mut rng_dia = self.rng("bp_diastolic");
        for day in days.iter().step_by(every) {
            let at = self.at(*day, 8, 15);
            let (ds, dd) = super::medications::bp_shift(self.profile, *day);
            let s = round(sys + ds + rng_sys.jitter(5.0), 0);
            let d = round(dia + dd + rng_dia.jitter(4.0), 0);
            self.push(
                "bloodPressureSystolic",
                "8480-6",
                s,
                "mmHg",
                at,
                Source::Cuff,
            );
            self.push(
                "bloodPressureDiastolic",
                "8462-4",
                d,
                "mmHg",
                at,
                Source::Cuff,
            );
        }
    }

    /// Sleep, hours, at 07:00 from the watch, where the profile tracks it.
    pub(crate) fn sleep(&mut self, days: &[Date]) {
        let Some(drift) = self.profile.sleep else {
            return;
        };
        let mut rng = self.rng("sleep");
        for (i, day) in days.iter().enumerate() {
            let v = drift.at(i, days.len()) + rng.jitter(0.8);
            let at = self.at(*day, 7, 0);
            self.push(
                "sleepDuration",
                "93832-4",
                round(v, 1),
                "h",
                at,
                Source::Watch,
            );
        }
    }
}

/// `v` rounded to `places` decimals.
pub(crate) fn round(v: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (v * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_365_literal_days_ending_2026_09_14() {
        let d = days();
        assert_eq!(d.len(), 365);
        assert_eq!(d[0], Date::constant(2025, 9, 15));
        assert_eq!(d[364], END);
        assert_eq!(END.weekday(), Weekday::Monday);
    }

    #[test]
    fn rounding() {
        assert!((round(70.449, 1) - 70.4).abs() < 1e-12);
        assert!((round(56.5, 0) - 57.0).abs() < 1e-12);
    }
}
