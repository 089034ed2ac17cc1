//! The rows beyond the year of device readings that make every read path real: intraday heart
//! rate, the lab panel with its canary, a legacy row, typed-in blood pressure, and reported
//! symptoms.

use jiff::civil::Date;

use super::series::{END, Writer, round};
use answers_protocol::envelope::kinds::Source;
use answers_store::NewReading;
use answers_vocab::{CodeRef, Vocabulary};

/// The day of the lab panel (printed at 09:15 local).
pub(crate) const LAB_DAY: Date = Date::constant(2025, 11, 12);

/// Days with intraday heart rate, every 5 minutes from the watch.
pub(crate) const INTRADAY_DAYS: [Date; 3] = [
    Date::constant(2026, 9, 12),
    Date::constant(2026, 9, 13),
    END,
];

/// The minutes between intraday heart-rate samples.
pub(crate) const INTRADAY_EVERY_MIN: i8 = 5;

impl Writer<'_> {
    /// Heart rate every [`INTRADAY_EVERY_MIN`] minutes on [`INTRADAY_DAYS`]: low at night,
    /// higher in the day.
    pub(crate) fn intraday_hr(&mut self) {
        let base = self.profile.resting_hr.last;
        let mut rng = self.rng("heart_rate");
        for day in INTRADAY_DAYS {
            for hour in 0..24i8 {
                let awake = if (7..23).contains(&hour) { 14.0 } else { 2.0 };
                for minute in (0..60).step_by(INTRADAY_EVERY_MIN as usize) {
                    let at = self.at(day, hour, minute);
                    let v = round(base + awake + rng.gauss(0.0, 4.0), 0);
                    self.push("heartRate", "8867-4", v, "bpm", at, Source::Watch);
                }
            }
        }
    }

    /// The lab panel, printed in mg/dL where the vocabulary's unit for the code is mmol/L,
    /// under the names the report prints. That is on purpose, as in the original's demo: the
    /// readings tool converts such a reading to its code's unit when it answers, so a later
    /// panel printed in mmol/L is the same series. The first reading carries `extra_canary`, the
    /// last `last_comment`.
    pub(crate) fn lab_panel(&mut self, extra_canary: Option<&str>, last_comment: Option<&str>) {
        let vocab = Vocabulary::bundled();
        let (hba1c, fbg, tc) = self.profile.lab;
        // mg/dL = mmol/L × g/mol ÷ 10
        let mg_dl = |mmol: f64, loinc: &str| {
            let mass = vocab.molar_mass(loinc).expect("bundled molar mass");
            round(mmol * mass / 10.0, 1)
        };
        let at = self.at(LAB_DAY, 9, 15);
        let fasted = Some("fasted since 21:00 the evening before");
        let panel = [
            (
                "Glycated Hemoglobin-HbA1c",
                "4548-4",
                hba1c,
                "%",
                extra_canary,
            ),
            (
                "Fasting Blood Glucose",
                "14771-0",
                mg_dl(fbg, "14771-0"),
                "mg/dL",
                fasted,
            ),
            (
                "Total Cholesterol",
                "14647-2",
                mg_dl(tc, "14647-2"),
                "mg/dL",
                last_comment,
            ),
        ];
        for (name, loinc, value, unit, comment) in panel {
            let row = self.push(name, loinc, value, unit, at, Source::Lab);
            row.comment = comment.map(str::to_owned);
        }
    }

    /// A body temperature typed in before local days were stored: no local day.
    pub(crate) fn legacy_temperature(&mut self) {
        let at = self.at(Date::constant(2025, 10, 2), 7, 40);
        let row = self.push("Body temperature", "8310-5", 36.8, "°C", at, Source::Manual);
        row.legacy = true;
    }

    /// A morning and an evening blood pressure typed in by hand on one day: nothing is elected
    /// that day, so both count.
    pub(crate) fn typed_blood_pressure(&mut self, day: Date) {
        let (sys, dia, _) = self.profile.bp;
        let (ds, dd) = super::medications::bp_shift(self.profile, day);
        let (sys, dia) = (sys + ds, dia + dd);
        let mut rng = self.rng("bp_typed");
        for (hour, minute) in [(7, 30), (21, 30)] {
            let at = self.at(day, hour, minute);
            let s = round(sys + rng.jitter(5.0), 0);
            let d = round(dia + rng.jitter(4.0), 0);
            self.push("收缩压", "8480-6", s, "mmHg", at, Source::Manual);
            self.push("舒张压", "8462-4", d, "mmHg", at, Source::Manual);
        }
    }

    /// A symptom the person reported, as typed, with an optional severity and note.
    pub(crate) fn symptom(
        &mut self,
        typed: &str,
        icpc: &str,
        when: (Date, i8, i8),
        severity: Option<&str>,
        note: Option<&str>,
    ) {
        let at = self.at(when.0, when.1, when.2);
        let mut row = NewReading::reported(self.profile.id, typed, CodeRef::icpc(icpc), at);
        row.value_text = severity.map(str::to_owned);
        row.comment = note.map(str::to_owned);
        self.rows.push(row);
    }
}
