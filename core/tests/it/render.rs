//! Snapshots of both renderings of every fixture, and the properties the snapshots rely on.

use answers_protocol::{
    Assumption, MedicationsAssumption, ReadingsAssumption, render_compact, render_rest,
};

use super::fixtures;

#[test]
fn compact_snapshots() {
    for (name, env) in fixtures::all() {
        insta::assert_snapshot!(format!("compact_{name}"), render_compact(&env));
    }
}

#[test]
fn rest_snapshots() {
    for (name, env) in fixtures::all() {
        let rest = serde_json::to_string_pretty(&render_rest(&env)).unwrap();
        insta::assert_snapshot!(format!("rest_{name}"), rest);
    }
}

#[test]
fn constant_columns_are_hoisted_once() {
    let text = render_compact(&fixtures::raw_truncated());
    assert!(text.contains(
        "(constants: indicator=Glucose [Moles/volume] in Blood, code=15074-8, unit=mmol/L, source=cgm)"
    ));
    assert_eq!(text.matches("mmol/L").count(), 1, "{text}");
    assert!(text.contains("date | time | value\n"), "{text}");
}

#[test]
fn every_readings_answer_carries_the_absence_note_verbatim() {
    let note =
        "no data for an indicator means it was never recorded, not that the condition is absent";
    assert_eq!(
        Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence).text(),
        note
    );
    for env in [
        fixtures::catalogue(),
        fixtures::raw_truncated(),
        fixtures::stats(),
        fixtures::latest(),
    ] {
        assert!(env.assumptions().contains(&Assumption::Readings(
            ReadingsAssumption::AbsenceNotEvidence
        )));
        assert!(render_compact(&env).contains(note));
        let rest = render_rest(&env);
        let texts: Vec<&str> = rest["assumptions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a["text"].as_str())
            .collect();
        assert!(texts.contains(&note), "{texts:?}");
    }
}

#[test]
fn the_medication_notes_are_verbatim() {
    assert_eq!(
        Assumption::Medications(MedicationsAssumption::PlanIsIntent).text(),
        "a plan is what the person intends to take; it is not a record of doses taken"
    );
    assert_eq!(
        Assumption::Medications(MedicationsAssumption::MissingDoseNotEvidence).text(),
        "a missing dose is not evidence it was not taken"
    );
}

#[test]
fn a_fault_is_told_by_tool_kind_and_type_never_its_message() {
    let env = fixtures::fault();
    let text = render_compact(&env);
    assert_eq!(
        text,
        "error (store_fault): query_health_indicators failed with it::fixtures::StoreError. \
         Do not repeat this call; answer from what you have."
    );
    let rest = serde_json::to_string(&render_rest(&env)).unwrap();
    let wire = serde_json::to_string(&env).unwrap();
    for out in [&text, &rest, &wire] {
        assert!(out.contains("it::fixtures::StoreError"), "{out}");
        assert!(
            !out.contains("PHI-CANARY") && !out.contains("SELECT"),
            "{out}"
        );
    }
}

#[test]
fn rest_rows_are_objects_keyed_by_column() {
    let rest = render_rest(&fixtures::stats());
    let rows = rest["data"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["indicator"], "LDL Cholesterol");
    assert_eq!(rows[0]["avg"], 131.5);
    assert_eq!(rows[1]["unit"], "mg/dL");
    assert_eq!(rest["meta"]["view"], "stats");
    assert_eq!(rest["meta"]["window_semantics"], "date_padded_naive");
}
