//! A reading or reported entry as the write side takes it ([`NewReading`]), and the checks it
//! must pass before anything of its batch is written.

use jiff::Timestamp;
use phi_macros::ClosedEnum;

use answers_protocol::envelope::kinds::Source;
use answers_vocab::{CodeRef, CodeSystem};

/// Whether a series row was measured or reported: the `series.kind` column.
///
/// ```
/// use answers_store::EntryKind;
///
/// assert_eq!(EntryKind::VARIANTS, ["measured", "reported"]);
/// assert_eq!(EntryKind::Reported.system().as_str(), "icpc");
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKind {
    /// A device or a lab measured it; coded on LOINC.
    Measured,
    /// The person reported it (a symptom felt, a diagnosis given); coded on ICPC.
    Reported,
}

impl EntryKind {
    /// The code system entries of this kind are coded on.
    ///
    /// ```
    /// use answers_store::EntryKind;
    /// use answers_vocab::CodeSystem;
    ///
    /// assert_eq!(EntryKind::Measured.system(), CodeSystem::Loinc);
    /// ```
    #[must_use]
    pub const fn system(self) -> CodeSystem {
        match self {
            EntryKind::Measured => CodeSystem::Loinc,
            EntryKind::Reported => CodeSystem::Icpc,
        }
    }
}

/// One row for [`Store::upsert_readings`](crate::Store::upsert_readings).
///
/// Rows upsert on `(subject_id, code, source, start)`: writing the same key again replaces the
/// row. `start` and `end` are kept to the second. `comment` is PHI: no tool returns it.
///
/// ```
/// use answers_protocol::Source;
/// use answers_store::{EntryKind, NewReading};
/// use answers_vocab::CodeRef;
///
/// let r = NewReading::measured("s1", "heartRate", CodeRef::loinc("8867-4"), 61.0, "bpm",
///     "2026-09-14T06:30:00Z".parse().unwrap(), Source::Watch);
/// assert_eq!(r.kind, EntryKind::Measured);
/// assert_eq!(r.check(), Ok(()));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct NewReading {
    /// The subject's id.
    pub subject_id: String,
    /// Measured (LOINC) or reported (ICPC).
    pub kind: EntryKind,
    /// The name as recorded (a device's catalogue name, a lab report's, what the person typed).
    pub name: String,
    /// The code; its system must be the one `kind` is coded on.
    pub code: CodeRef,
    /// A numeric value.
    pub value_num: Option<f64>,
    /// A text value.
    pub value_text: Option<String>,
    /// The unit as printed; stored in its UCUM spelling when the vocabulary knows it.
    pub unit: Option<String>,
    /// When it was measured or felt, UTC.
    pub start: Timestamp,
    /// When it ended, for a reading over a period.
    pub end: Option<Timestamp>,
    /// Where it came from.
    pub source: Source,
    /// Free text. PHI: never returned by a tool, never logged.
    pub comment: Option<String>,
    /// A row from before the local day was stored: written with no local day.
    pub legacy: bool,
}

impl NewReading {
    /// A measured numeric reading with a unit, no end, no comment, not legacy.
    ///
    /// ```
    /// use answers_protocol::Source;
    /// use answers_store::NewReading;
    /// use answers_vocab::CodeRef;
    ///
    /// let r = NewReading::measured("s1", "bodyMass", CodeRef::loinc("29463-7"), 70.2, "kg",
    ///     "2026-09-14T05:10:00Z".parse().unwrap(), Source::Scale);
    /// assert_eq!((r.value_num, r.unit.as_deref(), r.legacy), (Some(70.2), Some("kg"), false));
    /// ```
    #[must_use]
    pub fn measured(
        subject_id: &str,
        name: &str,
        code: CodeRef,
        value: f64,
        unit: &str,
        start: Timestamp,
        source: Source,
    ) -> NewReading {
        NewReading {
            subject_id: subject_id.to_owned(),
            kind: EntryKind::Measured,
            name: name.to_owned(),
            code,
            value_num: Some(value),
            value_text: None,
            unit: Some(unit.to_owned()),
            start,
            end: None,
            source,
            comment: None,
            legacy: false,
        }
    }

    /// A reported entry with no value (its presence is the datum), entered by hand.
    ///
    /// ```
    /// use answers_store::{EntryKind, NewReading};
    /// use answers_vocab::CodeRef;
    ///
    /// let r = NewReading::reported("s1", "头疼", CodeRef::icpc("N01"),
    ///     "2026-08-03T10:00:00Z".parse().unwrap());
    /// assert_eq!(r.kind, EntryKind::Reported);
    /// assert_eq!(r.check(), Ok(()));
    /// ```
    #[must_use]
    pub fn reported(subject_id: &str, name: &str, code: CodeRef, start: Timestamp) -> NewReading {
        NewReading {
            subject_id: subject_id.to_owned(),
            kind: EntryKind::Reported,
            name: name.to_owned(),
            code,
            value_num: None,
            value_text: None,
            unit: None,
            start,
            end: None,
            source: Source::Manual,
            comment: None,
            legacy: false,
        }
    }

    /// Whether the row can be written.
    ///
    /// ```
    /// use answers_protocol::Source;
    /// use answers_store::{NewReading, ReadingProblem};
    /// use answers_vocab::CodeRef;
    ///
    /// let at = "2026-09-14T06:30:00Z".parse().unwrap();
    /// let mut r = NewReading::measured("s1", "hr", CodeRef::icpc("N01"), 1.0, "", at, Source::Watch);
    /// assert_eq!(r.check(), Err(ReadingProblem::CodeSystemForKind));
    /// r.code = CodeRef::loinc("8867-4");
    /// r.value_num = Some(f64::NAN);
    /// assert_eq!(r.check(), Err(ReadingProblem::NonFiniteValue));
    /// ```
    pub fn check(&self) -> Result<(), ReadingProblem> {
        if self.name.trim().is_empty() {
            return Err(ReadingProblem::EmptyName);
        }
        if self.code.code.trim().is_empty() || self.code.code.trim() != self.code.code {
            return Err(ReadingProblem::EmptyCode);
        }
        if self.code.system != self.kind.system() {
            return Err(ReadingProblem::CodeSystemForKind);
        }
        if self.value_num.is_some_and(|v| !v.is_finite()) {
            return Err(ReadingProblem::NonFiniteValue);
        }
        if self.kind == EntryKind::Measured && self.value_num.is_none() && self.value_text.is_none()
        {
            return Err(ReadingProblem::MissingValue);
        }
        if self
            .end
            .is_some_and(|end| end.as_second() < self.start.as_second())
        {
            return Err(ReadingProblem::EndBeforeStart);
        }
        Ok(())
    }
}

/// Why a reading cannot be written. A kind, never a value.
///
/// ```
/// use answers_store::ReadingProblem;
///
/// assert_eq!(ReadingProblem::EndBeforeStart.to_string(), "end before start");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReadingProblem {
    /// The name is empty.
    #[error("empty name")]
    EmptyName,
    /// The code is empty or padded with whitespace.
    #[error("empty or padded code")]
    EmptyCode,
    /// A measured row not coded on LOINC, or a reported one not coded on ICPC.
    #[error("code system does not match the kind")]
    CodeSystemForKind,
    /// The numeric value is NaN or infinite.
    #[error("non-finite value")]
    NonFiniteValue,
    /// A measured row with neither a numeric nor a text value.
    #[error("measured row without a value")]
    MissingValue,
    /// The end is before the start.
    #[error("end before start")]
    EndBeforeStart,
}

/// A timestamp as the store writes it: UTC, to the second, `YYYY-MM-DDTHH:MM:SSZ`. Text in
/// this form sorts chronologically.
///
/// ```
/// let t: jiff::Timestamp = "2026-09-14T06:30:59.999+02:00".parse().unwrap();
/// assert_eq!(answers_store::utc_text(t), "2026-09-14T04:30:59Z");
/// ```
#[must_use]
pub fn utc_text(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn hr() -> NewReading {
        NewReading::measured(
            "s",
            "hr",
            CodeRef::loinc("8867-4"),
            60.0,
            "/min",
            at("2026-01-01T00:00:00Z"),
            Source::Watch,
        )
    }

    #[test]
    fn every_problem_is_found() {
        type Change = fn(&mut NewReading);
        let cases: [(Change, ReadingProblem); 6] = [
            (|r| r.name = " ".into(), ReadingProblem::EmptyName),
            (
                |r| r.code.code = "8867-4 ".into(),
                ReadingProblem::EmptyCode,
            ),
            (
                |r| r.kind = EntryKind::Reported,
                ReadingProblem::CodeSystemForKind,
            ),
            (
                |r| r.value_num = Some(f64::INFINITY),
                ReadingProblem::NonFiniteValue,
            ),
            (|r| r.value_num = None, ReadingProblem::MissingValue),
            (
                |r| r.end = Some(at("2025-12-31T23:59:59Z")),
                ReadingProblem::EndBeforeStart,
            ),
        ];
        for (change, want) in cases {
            let mut r = hr();
            change(&mut r);
            assert_eq!(r.check(), Err(want));
        }
        let mut r = hr();
        r.end = Some(at("2026-01-01T00:00:00.5Z"));
        assert_eq!(r.check(), Ok(()), "same second is not before");
    }

    #[test]
    fn utc_text_is_second_precision_utc() {
        assert_eq!(
            utc_text(at("2026-03-29T01:30:00+01:00")),
            "2026-03-29T00:30:00Z"
        );
        assert_eq!(
            utc_text(at("1999-12-31T23:59:59.9Z")),
            "1999-12-31T23:59:59Z"
        );
    }
}
