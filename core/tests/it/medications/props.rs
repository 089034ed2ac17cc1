//! The medications tool never panics and never raises on arbitrary arguments: it answers with
//! the view's note, or refuses with `invalid_arguments` and next steps the validator accepts.

use answers_protocol::args::medications::{MedicationView, QUERY_MEDICATIONS};
use answers_protocol::{Assumption, MedicationsAssumption, Status};
use answers_store::{NewDose, Store, Subject};
use answers_tools::query_medications;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{assert_steps_accepted, one_plan, refusal};
use crate::props::object_of;

/// A small record: one plan with one dose, so every view has rows to answer with.
fn record() -> (Store, Subject) {
    let (mut store, s) = one_plan("Europe/Berlin", "2024-01-01");
    let at = "2024-01-02T20:00:00Z".parse().unwrap();
    store
        .upsert_doses(&[NewDose::taken("p1", "s1", at)])
        .unwrap();
    (store, s)
}

fn value_for(name: &str) -> BoxedStrategy<Value> {
    let any_json = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        ".{0,10}".prop_map(Value::from),
        Just(json!([1, "a"])),
        Just(json!({"a": 1})),
    ];
    match name {
        "view" => prop_oneof![
            4 => prop::sample::select(MedicationView::VARIANTS).prop_map(Value::from),
            1 => prop::sample::select(answers_protocol::View::VARIANTS).prop_map(Value::from),
            1 => any_json,
        ]
        .boxed(),
        "keywords" => prop_oneof![
            Just(json!(["atorvastatin"])),
            Just(json!("statin, aspirin")),
            Just(json!(["rxnorm:83367"])),
            Just(json!([])),
            Just(json!(" ")),
            any_json,
        ]
        .boxed(),
        "start" | "end" => prop_oneof![
            4 => "202[3-5]-(0[1-9]|1[0-2])-(0[1-9]|2[0-9])".prop_map(Value::from),
            1 => Just(json!("2024-02-30")),
            1 => Just(json!("March")),
            1 => any_json,
        ]
        .boxed(),
        _ => any_json.boxed(),
    }
}

fn arguments() -> impl Strategy<Value = Value> {
    let params = ["view", "keywords", "start", "end"];
    let present = params.map(|p| prop::option::weighted(0.5, value_for(p)));
    let extra = prop::option::weighted(
        0.15,
        (
            prop::sample::select(vec!["kind", "indicators", "limit", "View", ""]),
            value_for("other"),
        ),
    );
    (present, extra).prop_map(move |(values, extra)| {
        object_of(&params, values, extra.map(|(k, v)| (k.to_owned(), v)))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_call_answers_with_its_note_or_a_repairable_refusal(args in arguments()) {
        let (store, s) = record();
        let env = query_medications(&store, &s, &args);
        if env.status() == Status::Error {
            refusal(&env);
            prop_assert!(assert_steps_accepted(&env) >= 1, "{args}: no next step");
        } else {
            let view = QUERY_MEDICATIONS
                .validate(&args)
                .ok()
                .and_then(|v| v.choice("view"))
                .unwrap_or("plan");
            let note = if view == "log" {
                Assumption::Medications(MedicationsAssumption::MissingDoseNotEvidence)
            } else {
                Assumption::Medications(MedicationsAssumption::PlanIsIntent)
            };
            prop_assert!(env.assumptions().contains(&note), "{args}");
            prop_assert!(
                !env.data().is_empty()
                    || env.assumptions().contains(&Assumption::Medications(MedicationsAssumption::NoMedicationRecorded))
                    || env.assumptions().contains(&Assumption::Medications(MedicationsAssumption::NoMedicationMatch)),
                "{args}: an empty answer says why"
            );
        }
    }
}
