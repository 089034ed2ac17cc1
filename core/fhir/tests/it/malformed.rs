//! A bad resource refuses the whole import: the error names its position and the rule it
//! broke, quotes no value of it, and nothing is written.

use answers_fhir::{ImportError, Position, Rule};
use answers_store::{MedicationProblem, ReadingProblem};
use serde_json::{Value, json};

use crate::fixtures::{self, write_bundle, write_ndjson};
use crate::support::Record;

/// Every string and number of `v` (three characters or more), but its `resourceType`.
fn values(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.len() >= 3 => out.push(s.clone()),
        Value::Number(n) if n.to_string().len() >= 3 => out.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|i| values(i, out)),
        Value::Object(o) => {
            for (k, v) in o {
                if k != "resourceType" {
                    values(v, out);
                }
            }
        }
        _ => {}
    }
}

/// Imports the record with `bad` at entry 3 (and line 4), as a Bundle and as NDJSON; both
/// must be refused for `rule` at that position, without a value of `bad`, writing nothing.
fn refused(bad: &Value, resource: Option<&str>, rule: Rule) {
    let mut record = fixtures::record();
    record.insert(3, bad.clone());
    let mut secrets = Vec::new();
    values(bad, &mut secrets);
    assert!(!secrets.is_empty());
    for (bundle, at) in [(true, Position::Entry(3)), (false, Position::Line(4))] {
        let mut r = Record::new();
        let empty = r.dump();
        let path = if bundle {
            write_bundle(r.dir.path(), "bad.json", &record)
        } else {
            write_ndjson(r.dir.path(), "bad.ndjson", &record)
        };
        let err = r.import(&path).unwrap_err();
        let ImportError::Refused {
            at: found,
            resource: ty,
            rule: broke,
        } = &err
        else {
            panic!("{err}");
        };
        assert_eq!((*found, *ty, *broke), (Some(at), resource, rule), "{err}");
        let text = format!("{err} {err:?}");
        assert!(text.starts_with(&at.to_string()), "{text}");
        for s in &secrets {
            assert!(!text.contains(s.as_str()), "{s} in {text}");
        }
        assert_eq!(r.dump(), empty, "{err}: something was written");
    }
}

fn hr() -> Value {
    fixtures::heart_rate("hr-bad", "2026-04-01T07:00:00Z", 61.0)
}

#[test]
fn a_time_that_is_not_a_fhir_date_time() {
    let mut bad = hr();
    bad["effectiveDateTime"] = json!("2026-02-30T07:00:00Z");
    refused(
        &bad,
        Some("Observation"),
        Rule::DateTime {
            field: "effectiveDateTime",
        },
    );
}

#[test]
fn a_missing_status() {
    let mut bad = hr();
    bad.as_object_mut().unwrap().remove("status");
    refused(&bad, Some("Observation"), Rule::Missing { field: "status" });
}

#[test]
fn a_value_that_is_not_a_number() {
    let mut bad = hr();
    bad["valueQuantity"]["value"] = json!("sixty-one");
    refused(
        &bad,
        Some("Observation"),
        Rule::FieldType {
            field: "valueQuantity.value",
            expected: "a number",
        },
    );
}

#[test]
fn a_period_that_ends_before_it_starts() {
    let mut bad = hr();
    bad.as_object_mut().unwrap().remove("effectiveDateTime");
    bad["effectivePeriod"] =
        json!({"start": "2026-04-01T08:00:00Z", "end": "2026-04-01T07:00:00Z"});
    refused(
        &bad,
        Some("Observation"),
        Rule::PeriodOrder {
            field: "effectivePeriod",
        },
    );
}

#[test]
fn a_condition_that_abates_before_its_onset() {
    let mut bad = fixtures::headache("2026-04-03T09:00:00Z");
    bad["abatementDateTime"] = json!("2026-04-02T09:00:00Z");
    refused(
        &bad,
        Some("Condition"),
        Rule::Reading(ReadingProblem::EndBeforeStart),
    );
}

#[test]
fn a_dose_amount_that_is_not_positive() {
    let mut bad = fixtures::metoprolol_request();
    bad["id"] = json!("mr-2");
    bad["dosageInstruction"][0]["doseAndRate"][0]["doseQuantity"]["value"] = json!(-50);
    refused(
        &bad,
        Some("MedicationRequest"),
        Rule::Medication(MedicationProblem::DoseAmount),
    );
}

#[test]
fn a_resource_about_another_patient() {
    let mut bad = hr();
    bad["subject"] = json!({"reference": "Patient/p-synthetic-2"});
    refused(&bad, None, Rule::SeveralPatients);
}

#[test]
fn a_resource_without_its_type() {
    let mut bad = hr();
    bad.as_object_mut().unwrap().remove("resourceType");
    refused(&bad, None, Rule::NoResourceType);
}

#[test]
fn a_medication_without_an_id_in_ndjson() {
    // In a Bundle its entry's fullUrl identifies it; an NDJSON line has nothing else.
    let mut bad = fixtures::metoprolol_request();
    bad.as_object_mut().unwrap().remove("id");
    let mut r = Record::new();
    let path = write_ndjson(r.dir.path(), "noid.ndjson", &[bad.clone()]);
    let err = r.import(&path).unwrap_err();
    assert_eq!(err.rule(), Some(Rule::NoId), "{err}");
    assert_eq!(
        err.to_string(),
        "line 1 (MedicationRequest): a medication resource needs an `id`"
    );
    let path = write_bundle(r.dir.path(), "noid.json", &[bad]);
    assert_eq!(r.import(&path).unwrap().plans, 1);
}

#[test]
fn a_line_that_is_not_json_is_named_by_its_number() {
    let mut r = Record::new();
    let path = r.dir.path().join("broken.ndjson");
    let good = serde_json::to_string(&hr()).unwrap();
    std::fs::write(
        &path,
        format!("{good}\n\n{{\"resourceType\": \"Observation\", \"status\": fin-PHI\n"),
    )
    .unwrap();
    let err = r.import(&path).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("line 3: not JSON (syntax error at line 1, column"),
        "{text}"
    );
    assert!(!text.contains("fin-PHI"), "{text}");
    assert!(
        !r.store.has_entries(&r.you.id).unwrap(),
        "the good line was written"
    );
}

#[test]
fn a_bundle_entry_that_is_not_an_object() {
    let mut r = Record::new();
    let path = r.dir.path().join("entry.json");
    let mut bundle = fixtures::bundle(&[hr()]);
    bundle["entry"]
        .as_array_mut()
        .unwrap()
        .push(json!("PHI-in-an-entry"));
    std::fs::write(&path, bundle.to_string()).unwrap();
    let err = r.import(&path).unwrap_err();
    assert_eq!(err.to_string(), "Bundle.entry[1]: not a JSON object");
}

#[test]
fn a_json_file_that_is_not_a_bundle() {
    let mut r = Record::new();
    let path = r.dir.path().join("one.json");
    std::fs::write(&path, hr().to_string()).unwrap();
    let err = r.import(&path).unwrap_err();
    assert_eq!(err.rule(), Some(Rule::NotABundle), "{err}");
}
