//! Synthetic FHIR R4 fixtures, generated here (nothing large is committed): one resource of
//! every mapped type, and the files they are written to.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The canary every imported note carries.
pub(crate) const CANARY: &str = "self-tracked PHI-CANARY-3f9a";

pub(crate) const PATIENT: &str = "Patient/p-synthetic-1";

fn loinc(code: &str) -> Value {
    json!({"coding": [{"system": "http://loinc.org", "code": code}]})
}

fn ucum(value: f64, code: &str, printed: &str) -> Value {
    json!({"value": value, "unit": printed, "system": "http://unitsofmeasure.org", "code": code})
}

fn observation(code: &str, at: &str) -> Value {
    json!({
        "resourceType": "Observation",
        "status": "final",
        "code": loinc(code),
        "subject": {"reference": PATIENT},
        "effectiveDateTime": at,
    })
}

/// A heart rate from a watch, by minute.
pub(crate) fn heart_rate(id: &str, at: &str, bpm: f64) -> Value {
    let mut o = observation("8867-4", at);
    o["id"] = json!(id);
    o["device"] = json!({"display": "Synthetic Watch S2"});
    o["valueQuantity"] = ucum(bpm, "/min", "beats/minute");
    o
}

/// A blood-pressure panel (85354-9) from a cuff, with its two components and a note.
pub(crate) fn blood_pressure(at: &str, systolic: f64, diastolic: f64) -> Value {
    let mut o = observation("85354-9", at);
    o["id"] = json!("bp-1");
    o["category"] = json!([{"coding": [{
        "system": "http://terminology.hl7.org/CodeSystem/observation-category",
        "code": "vital-signs"}]}]);
    o["device"] = json!({"reference": "Device/cuff-1", "display": "Upper-arm blood pressure cuff"});
    o["note"] = json!([{"text": format!("after the stairs {CANARY}")}]);
    o["component"] = json!([
        {"code": loinc("8480-6"), "valueQuantity": ucum(systolic, "mm[Hg]", "mmHg")},
        {"code": loinc("8462-4"), "valueQuantity": ucum(diastolic, "mm[Hg]", "mmHg")},
    ]);
    o
}

/// A body weight in pounds (the code's unit is kg): converted when answered.
pub(crate) fn weight_lb(at: &str, pounds: f64) -> Value {
    let mut o = observation("29463-7", at);
    o["id"] = json!("weight-1");
    o["device"] = json!({"display": "bathroom scale"});
    o["valueQuantity"] = ucum(pounds, "[lb_av]", "lb");
    o
}

/// A blood glucose in mg/dL on the molar code 15074-8 (mmol/L): converted through the
/// molar mass when answered. Measured by a lab.
pub(crate) fn glucose_mg_dl(at: &str, mg_dl: f64) -> Value {
    let mut o = observation("15074-8", at);
    o["id"] = json!("glucose-1");
    o["performer"] = json!([{"reference": "Organization/lab-1"}]);
    o["valueQuantity"] = ucum(mg_dl, "mg/dL", "mg/dL");
    o
}

/// An Observation coded on a LOINC code the vocabulary does not bundle (sodium).
pub(crate) fn unknown_code(at: &str) -> Value {
    let mut o = observation("2951-2", at);
    o["valueQuantity"] = ucum(140.0, "mmol/L", "mmol/L");
    o
}

/// A heart rate in a unit the vocabulary does not know.
pub(crate) fn unknown_unit(at: &str) -> Value {
    let mut o = observation("8867-4", at);
    o["valueQuantity"] = ucum(1.1, "Hz", "Hz");
    o
}

/// A headache the person was told about (SNOMED CT), with a note.
pub(crate) fn headache(onset: &str) -> Value {
    json!({
        "resourceType": "Condition",
        "id": "cond-1",
        "clinicalStatus": {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/condition-clinical",
            "code": "active"}]},
        "code": {"coding": [{"system": "http://snomed.info/sct", "code": "25064002",
                              "display": "Headache"}]},
        "subject": {"reference": PATIENT},
        "onsetDateTime": onset,
        "note": [{"text": format!("worse in the mornings {CANARY}")}],
    })
}

/// A cough the person reported themselves (a survey answer, ICPC-2 coded).
pub(crate) fn reported_cough(at: &str) -> Value {
    json!({
        "resourceType": "Observation",
        "id": "survey-1",
        "status": "final",
        "category": [{"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/observation-category",
            "code": "survey"}]}],
        "code": {"coding": [{"system": "http://hl7.org/fhir/sid/icpc-2", "code": "R05"}]},
        "subject": {"reference": PATIENT},
        "performer": [{"reference": PATIENT}],
        "effectiveDateTime": at,
    })
}

/// An active twice-daily oral prescription, `RxNorm` coded, with a note.
pub(crate) fn metoprolol_request() -> Value {
    json!({
        "resourceType": "MedicationRequest",
        "id": "mr-1",
        "status": "active",
        "intent": "order",
        "medicationCodeableConcept": {"coding": [{
            "system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "6918",
            "display": "Metoprolol tartrate"}]},
        "subject": {"reference": PATIENT},
        "authoredOn": "2026-02-27",
        "note": [{"text": format!("take with food {CANARY}")}],
        "dosageInstruction": [{
            "timing": {"repeat": {"frequency": 2, "period": 1, "periodUnit": "d",
                                  "boundsPeriod": {"start": "2026-03-01"}}},
            "route": {"coding": [{"system": "http://snomed.info/sct", "code": "26643006"}]},
            "doseAndRate": [{"doseQuantity": {"value": 50, "unit": "mg",
                "system": "http://unitsofmeasure.org", "code": "mg"}}],
        }],
    })
}

/// A completed once-daily course the person reported taking.
pub(crate) fn antibiotic_statement() -> Value {
    json!({
        "resourceType": "MedicationStatement",
        "id": "ms-1",
        "status": "completed",
        "medicationCodeableConcept": {"text": "Nitrofurantoin",
            "coding": [{"system": "http://www.whocc.no/atc", "code": "J01XE01"}]},
        "subject": {"reference": PATIENT},
        "effectivePeriod": {"start": "2026-02-09", "end": "2026-02-13"},
        "dosage": [{
            "timing": {"code": {"coding": [{
                "system": "http://terminology.hl7.org/CodeSystem/v3-GTSAbbreviation",
                "code": "QD"}]}},
            "route": {"coding": [{"system": "http://snomed.info/sct", "code": "26643006"}]},
        }],
    })
}

/// A dose of the prescription, taken, with a note.
pub(crate) fn metoprolol_dose(at: &str) -> Value {
    json!({
        "resourceType": "MedicationAdministration",
        "id": "ma-1",
        "status": "completed",
        "medicationCodeableConcept": {"text": "Metoprolol tartrate"},
        "subject": {"reference": PATIENT},
        "effectiveDateTime": at,
        "request": {"reference": "MedicationRequest/mr-1"},
        "note": [{"text": format!("a little late {CANARY}")}],
    })
}

/// The patient (not imported: the record's subject is given on the command line).
pub(crate) fn patient() -> Value {
    json!({"resourceType": "Patient", "id": "p-synthetic-1", "gender": "other"})
}

/// One of every mapped resource, the patient, and one unknown code and one unknown unit.
pub(crate) fn record() -> Vec<Value> {
    vec![
        patient(),
        heart_rate("hr-1", "2026-03-01T07:00:00Z", 61.0),
        blood_pressure("2026-03-01T07:05:00+01:00", 128.0, 82.0),
        weight_lb("2026-03-01T06:30:00Z", 154.3),
        glucose_mg_dl("2026-03-02", 99.0),
        unknown_code("2026-03-02T08:00:00Z"),
        unknown_unit("2026-03-02T08:01:00Z"),
        headache("2026-03-03T09:00:00Z"),
        reported_cough("2026-03-04T20:00:00Z"),
        metoprolol_request(),
        antibiotic_statement(),
        metoprolol_dose("2026-03-01T06:45:00Z"),
    ]
}

/// A `collection` Bundle of `resources`, each entry with a `urn:uuid:` full URL.
pub(crate) fn bundle(resources: &[Value]) -> Value {
    let entry: Vec<Value> = resources
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({"fullUrl": format!("urn:uuid:00000000-0000-4000-8000-{i:012}"), "resource": r})
        })
        .collect();
    json!({"resourceType": "Bundle", "type": "collection", "entry": entry})
}

/// Writes `resources` as a Bundle file `name` (`.json`) in `dir`.
pub(crate) fn write_bundle(dir: &Path, name: &str, resources: &[Value]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&bundle(resources)).unwrap(),
    )
    .unwrap();
    path
}

/// Writes `resources` as NDJSON `name` (`.ndjson`) in `dir`.
pub(crate) fn write_ndjson(dir: &Path, name: &str, resources: &[Value]) -> PathBuf {
    let path = dir.join(name);
    let mut text = String::new();
    for r in resources {
        text.push_str(&serde_json::to_string(r).unwrap());
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    path
}
