//! A dose whose prescription came in an earlier import: resolved against the plans the record
//! holds, by the identity the earlier import recorded; refused when it resolves nowhere.

use answers_fhir::{Position, Rule, Skip};
use serde_json::json;

use crate::fixtures::{self, write_bundle, write_ndjson};
use crate::support::{Record, rows};
use crate::valid::validate;

fn dose(id: &str, at: &str) -> serde_json::Value {
    let mut d = fixtures::metoprolol_dose(at);
    d["id"] = json!(id);
    d
}

#[test]
fn a_dose_resolves_against_the_plan_an_earlier_import_wrote() {
    for ndjson in [false, true] {
        let mut r = Record::new();
        let write = |r: &Record, name: &str, resources: &[serde_json::Value]| {
            if ndjson {
                write_ndjson(r.dir.path(), &format!("{name}.ndjson"), resources)
            } else {
                write_bundle(r.dir.path(), &format!("{name}.json"), resources)
            }
        };
        let plans = write(
            &r,
            "plans",
            &[fixtures::patient(), fixtures::metoprolol_request()],
        );
        let doses = write(
            &r,
            "doses",
            &[
                fixtures::patient(),
                dose("ma-1", "2026-03-01T06:45:00Z"),
                dose("ma-2", "2026-03-01T18:50:00Z"),
            ],
        );
        let (ok, _, stderr) = validate(&[&plans, &doses]);
        assert!(ok, "{stderr}");
        assert_eq!(r.import(&plans).unwrap().plans, 1);
        let s = r.import(&doses).unwrap();
        assert_eq!((s.plans, s.doses, s.skipped_total()), (0, 2, 1), "{s}");
        let after = r.dump();
        assert_eq!(rows(&after, "medication_dose"), 2);
        // Idempotent: the same doses again change nothing.
        assert_eq!(r.import(&doses).unwrap(), s);
        assert_eq!(r.dump(), after);
    }
}

#[test]
fn a_dose_whose_plan_is_nowhere_is_refused_by_its_position() {
    let mut r = Record::new();
    let path = write_ndjson(
        r.dir.path(),
        "doses.ndjson",
        &[
            fixtures::patient(),
            fixtures::heart_rate("hr-1", "2026-03-01T07:00:00Z", 61.0),
            dose("ma-1", "2026-03-01T06:45:00Z"),
        ],
    );
    let (ok, _, stderr) = validate(&[&path]);
    assert!(ok, "{stderr}");
    let empty = r.dump();
    let err = r.import(&path).unwrap_err();
    assert_eq!(err.rule(), Some(Rule::UnknownPlan));
    assert!(
        err.to_string()
            .starts_with("line 3 (MedicationAdministration): its `request` names no"),
        "{err}"
    );
    assert_eq!(r.dump(), empty, "nothing is written");
}

#[test]
fn another_subjects_plan_does_not_resolve_a_dose() {
    let mut r = Record::new();
    let other = r
        .store
        .upsert_subject("subj-other-2", "other", "Europe/Berlin")
        .unwrap();
    let plans = write_bundle(
        r.dir.path(),
        "plans.json",
        &[fixtures::patient(), fixtures::metoprolol_request()],
    );
    answers_fhir::import_file(
        &mut r.store,
        &other,
        &plans,
        answers_fhir::Format::Bundle,
        answers_fhir::Limits::default(),
    )
    .unwrap();
    let doses = write_bundle(
        r.dir.path(),
        "doses.json",
        &[fixtures::patient(), dose("ma-1", "2026-03-01T06:45:00Z")],
    );
    let err = r.import(&doses).unwrap_err();
    let answers_fhir::ImportError::Refused { at, rule, .. } = err else {
        panic!("{err}");
    };
    assert_eq!((at, rule), (Some(Position::Entry(1)), Rule::UnknownPlan));
}

#[test]
fn a_dose_of_a_plan_left_out_of_the_same_file_is_counted_not_refused() {
    let mut r = Record::new();
    let mut request = fixtures::metoprolol_request();
    let obj = request.as_object_mut().unwrap();
    obj.remove("medicationCodeableConcept");
    obj.insert(
        "medicationReference".into(),
        json!({"reference": "Medication/med-1"}),
    );
    let path = write_bundle(
        r.dir.path(),
        "left-out.json",
        &[
            fixtures::patient(),
            request,
            dose("ma-1", "2026-03-01T06:45:00Z"),
        ],
    );
    let (ok, _, stderr) = validate(&[&path]);
    assert!(ok, "{stderr}");
    let s = r.import(&path).unwrap();
    assert_eq!((s.plans, s.doses), (0, 0), "{s}");
    assert_eq!(s.skipped(Skip::MedicationName), 1, "{s}");
    assert_eq!(s.skipped(Skip::DosePlan), 1, "{s}");
}
