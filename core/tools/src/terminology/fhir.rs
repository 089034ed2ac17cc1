//! FHIR R4 JSON, hand-built with `serde_json` (a FHIR model crate is tens of megabytes of
//! generated source for the one resource needed here).

use serde_json::{Value, json};

use crate::date::LocalDate;
use crate::vocab::CodeSystem;

/// The FHIR system URI of LOINC.
pub const LOINC_SYSTEM: &str = "http://loinc.org";
/// The FHIR system URI of UCUM.
pub const UCUM_SYSTEM: &str = "http://unitsofmeasure.org";
/// The FHIR system URI of ICPC-2 (HL7 terminology, `CodeSystem/v3-icpc2E`), the edition the
/// bundled subset holds.
pub const ICPC2_SYSTEM: &str = "http://hl7.org/fhir/sid/icpc-2";

/// The FHIR system URI of a bundled code system.
///
/// ```
/// use answers_tools::terminology::fhir::system_uri;
/// use answers_vocab::CodeSystem;
///
/// assert_eq!(system_uri(CodeSystem::Loinc), "http://loinc.org");
/// ```
#[must_use]
pub const fn system_uri(system: CodeSystem) -> &'static str {
    match system {
        CodeSystem::Loinc => LOINC_SYSTEM,
        CodeSystem::Icpc => ICPC2_SYSTEM,
    }
}

/// A reading coded for an `Observation`.
#[derive(Debug, Clone, PartialEq)]
pub struct CodedReading<'a> {
    /// The LOINC code.
    pub loinc: &'a str,
    /// The official LOINC long common name.
    pub display: &'a str,
    /// The name as printed (`code.text`).
    pub text: &'a str,
    /// The value as printed.
    pub value: f64,
    /// The unit as printed (`valueQuantity.unit`).
    pub unit: &'a str,
    /// The unit's UCUM code (`valueQuantity.code`).
    pub ucum: &'a str,
    /// `effectiveDateTime`, already a FHIR `dateTime`.
    pub effective: Option<&'a str>,
}

/// A final FHIR R4 `Observation` for `reading`.
///
/// ```
/// use answers_tools::terminology::fhir::{CodedReading, observation};
///
/// let obs = observation(&CodedReading {
///     loinc: "8867-4", display: "Heart rate", text: "pulse",
///     value: 61.0, unit: "bpm", ucum: "/min", effective: None,
/// });
/// assert_eq!(obs["resourceType"], "Observation");
/// assert_eq!(obs["code"]["coding"][0]["system"], "http://loinc.org");
/// assert_eq!(obs["valueQuantity"]["code"], "/min");
/// assert!(obs.get("effectiveDateTime").is_none());
/// ```
#[must_use]
pub fn observation(reading: &CodedReading<'_>) -> Value {
    let mut obs = json!({
        "resourceType": "Observation",
        "status": "final",
        "code": {
            "coding": [{
                "system": LOINC_SYSTEM,
                "code": reading.loinc,
                "display": reading.display,
            }],
            "text": reading.text,
        },
        "valueQuantity": {
            "value": reading.value,
            "unit": reading.unit,
            "system": UCUM_SYSTEM,
            "code": reading.ucum,
        },
    });
    if let (Some(effective), Some(obj)) = (reading.effective, obs.as_object_mut()) {
        obj.insert("effectiveDateTime".into(), effective.into());
    }
    obs
}

/// A time as given, as a FHIR `dateTime`: a date `YYYY-MM-DD` as it is, or a date-time with an
/// offset (RFC 3339) as the same instant in UTC; `None` for anything else (a date-time without
/// an offset names no instant).
///
/// ```
/// use answers_tools::terminology::fhir::effective_date_time;
///
/// assert_eq!(effective_date_time("2024-03-01").as_deref(), Some("2024-03-01"));
/// assert_eq!(
///     effective_date_time("2024-03-01T08:30:00+01:00").as_deref(),
///     Some("2024-03-01T07:30:00Z")
/// );
/// assert_eq!(effective_date_time("2024-03-01T08:30:00"), None);
/// assert_eq!(effective_date_time("yesterday"), None);
/// ```
#[must_use]
pub fn effective_date_time(time: &str) -> Option<String> {
    let time = time.trim();
    if let Ok(date) = time.parse::<LocalDate>() {
        return Some(date.to_string());
    }
    time.parse::<jiff::Timestamp>().ok().map(|t| t.to_string())
}
