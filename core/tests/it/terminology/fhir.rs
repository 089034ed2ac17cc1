//! `standardize_reading`: a reading as printed to a FHIR R4 Observation.

use answers_protocol::{ArgProblem, Assumption, Status, TerminologyAssumption, render_compact};
use answers_tools::terminology::standardize_reading;
use serde_json::{Value, json};

use super::refused;

/// The Observation an answer carries (`resource`, last column of the `observation` table).
fn observation(args: &Value) -> Value {
    let env = standardize_reading(args);
    assert_eq!(env.status(), Status::Ok, "{args}: {}", render_compact(&env));
    let table = &env.data()[0];
    assert_eq!(table.name(), "observation");
    assert_eq!(table.columns().last().map(String::as_str), Some("resource"));
    table.rows()[0].last().expect("a resource").to_json()
}

#[test]
fn an_english_device_name_becomes_a_whole_observation() {
    let obs = observation(&json!({
        "name": "pulse", "value": 61, "unit": "bpm", "time": "2024-03-01T08:30:00+01:00"
    }));
    assert_eq!(
        obs,
        json!({
            "resourceType": "Observation",
            "status": "final",
            "code": {
                "coding": [{"system": "http://loinc.org", "code": "8867-4", "display": "Heart rate"}],
                "text": "pulse",
            },
            "valueQuantity": {
                "value": 61.0,
                "unit": "bpm",
                "system": "http://unitsofmeasure.org",
                "code": "/min",
            },
            "effectiveDateTime": "2024-03-01T07:30:00Z",
        })
    );
}

#[test]
fn a_chinese_name_is_coded_by_the_unit_it_is_printed_in() {
    let mass =
        observation(&json!({"name": "血糖", "value": 98, "unit": "mg/dl", "time": "2024-03-01"}));
    let coding = &mass["code"]["coding"][0];
    assert_eq!(
        coding["display"]
            .as_str()
            .map(|d| d.contains("[Mass/volume]")),
        Some(true)
    );
    assert_eq!(mass["valueQuantity"]["code"], "mg/dL");
    assert_eq!(mass["valueQuantity"]["unit"], "mg/dl");
    assert_eq!(mass["code"]["text"], "血糖");
    assert_eq!(mass["effectiveDateTime"], "2024-03-01");

    let molar = observation(&json!({"name": "空腹血糖", "value": 5.4, "unit": "mmol/L"}));
    assert_eq!(molar["code"]["coding"][0]["code"], "14771-0");
    assert_eq!(
        molar["code"]["coding"][0]["display"],
        "Fasting glucose [Moles/volume] in Serum or Plasma"
    );
    assert!(molar.get("effectiveDateTime").is_none());

    // 血糖 reaches serum and blood codes in both units: the others are listed, and said so.
    let env = standardize_reading(&json!({"name": "血糖", "value": 98, "unit": "mg/dl"}));
    assert_eq!(env.data().len(), 2);
    assert_eq!(env.data()[1].name(), "candidates");
    assert!(env.assumptions().contains(&Assumption::Terminology(
        TerminologyAssumption::CodingChosenByUnit
    )));
}

#[test]
fn a_lab_report_name_reaches_its_loinc_code() {
    let obs = observation(&json!({"name": "Glycated Hemoglobin-HbA1c", "value": 6.1, "unit": "%"}));
    assert_eq!(obs["code"]["coding"][0]["code"], "4548-4");
    assert_eq!(
        obs["code"]["coding"][0]["display"],
        "Hemoglobin A1c/Hemoglobin.total in Blood"
    );
    assert_eq!(obs["valueQuantity"]["value"], 6.1);
    insta::assert_snapshot!(
        "standardize_hba1c",
        render_compact(&standardize_reading(
            &json!({"name": "Glycated Hemoglobin-HbA1c", "value": 6.1, "unit": "%", "time": "2024-05-02"})
        ))
    );
}

#[test]
fn a_reading_that_cannot_be_coded_is_refused_by_parameter() {
    let cases = [
        (
            json!({"name": "unobtainium", "value": 1, "unit": "mg/dL"}),
            "name",
            ArgProblem::UnknownIndicator,
        ),
        (
            json!({"name": "pulse", "value": 61, "unit": "furlongs"}),
            "unit",
            ArgProblem::UnknownUnit,
        ),
        (
            json!({"name": "pulse", "value": 61, "unit": "kg"}),
            "unit",
            ArgProblem::UnitNotForIndicator,
        ),
        (
            json!({"name": "pulse", "value": "sixty", "unit": "bpm"}),
            "value",
            ArgProblem::NotNumber,
        ),
        (
            json!({"name": "pulse", "value": 61, "unit": "bpm", "time": "yesterday"}),
            "time",
            ArgProblem::NotDateTime,
        ),
        (
            json!({"name": "pulse", "value": 61, "unit": "bpm", "time": "2024-03-01T08:30:00"}),
            "time",
            ArgProblem::NotDateTime,
        ),
        (
            json!({"name": "pulse", "unit": "bpm"}),
            "value",
            ArgProblem::Missing,
        ),
    ];
    for (args, param, problem) in cases {
        let env = standardize_reading(&args);
        assert_eq!(refused(&env), (Some(param.to_owned()), problem), "{args}");
        // No part of the reading is repeated in the refusal.
        let text = render_compact(&env);
        assert!(
            !text.contains("unobtainium") && !text.contains("sixty"),
            "{text}"
        );
    }
}
