//! The original's leniency for list arguments, and the refusal texts, exactly.

use answers_protocol::args::FromArgs;
use answers_protocol::args::health_indicators::{
    IndicatorQuery, QUERY_HEALTH_INDICATORS, Selector,
};
use answers_protocol::{ArgProblem, render_compact};
use serde_json::{Value, json};

use super::assert_refusal;

fn indicators(args: &Value) -> Vec<String> {
    match IndicatorQuery::from_args(args).expect("accepted").selector {
        Selector::Indicators(names) | Selector::Keywords(names) => names,
        Selector::Catalogue => panic!("no selector"),
    }
}

#[test]
fn a_json_array_passed_as_a_string_is_accepted() {
    assert_eq!(
        indicators(&json!({"indicators": r#"["Resting Heart Rate"]"#})),
        ["Resting Heart Rate"]
    );
    assert_eq!(
        indicators(&json!({"indicators": r#"["LDL Cholesterol", "HDL Cholesterol"]"#})),
        ["LDL Cholesterol", "HDL Cholesterol"]
    );
}

#[test]
fn a_bare_string_splits_on_commas() {
    assert_eq!(
        indicators(&json!({"indicators": "LDL, HDL"})),
        ["LDL", "HDL"]
    );
    assert_eq!(
        indicators(&json!({"keywords": "cholesterol"})),
        ["cholesterol"]
    );
}

#[test]
fn an_element_of_a_real_array_never_splits() {
    assert_eq!(
        indicators(&json!({"indicators": ["1,25-Dihydroxyvitamin D"]})),
        ["1,25-Dihydroxyvitamin D"]
    );
    // Inside a string that holds an array, elements do not split either.
    assert_eq!(
        indicators(&json!({"indicators": r#"["1,25-Dihydroxyvitamin D"]"#})),
        ["1,25-Dihydroxyvitamin D"]
    );
}

#[test]
fn null_is_absent() {
    let q =
        IndicatorQuery::from_args(&json!({"keywords": null, "view": null, "start": null})).unwrap();
    assert_eq!(q.selector, Selector::Catalogue);
    assert!(q.window.is_all_recorded());
}

#[test]
fn the_unknown_parameter_refusal_matches_the_original_exactly() {
    let env = QUERY_HEALTH_INDICATORS
        .validate(&json!({"kind": "medications", "view": "day"}))
        .unwrap_err();
    assert_eq!(assert_refusal(&env), ArgProblem::UnknownParameter);
    let text = render_compact(&env);
    assert_eq!(
        text.lines().next(),
        Some(
            "error (invalid_arguments): kind: unknown parameter. Fix the arguments and try once more."
        )
    );
    // With nothing else wrong, the refusal's next step is the call without it.
    let alone = QUERY_HEALTH_INDICATORS
        .validate(&json!({"kind": "medications"}))
        .unwrap_err();
    assert_eq!(
        render_compact(&alone),
        "error (invalid_arguments): kind: unknown parameter. Fix the arguments and try once more.\n\
         next steps:\n\
         - remove_parameter: query_health_indicators()"
    );
}

#[test]
fn each_refusal_names_its_parameter() {
    let cases = [
        (
            json!({"view": "daily", "indicators": ["LDL"]}),
            "view: expected one of raw, minute, hour, day, week, month, stats, latest",
        ),
        (
            json!({"start": "March 2024"}),
            "start: expected a date as YYYY-MM-DD",
        ),
        (
            json!({"end": "2024-02-30"}),
            "end: expected a date as YYYY-MM-DD",
        ),
        (
            json!({"indicators": 5}),
            "indicators: expected a list of strings",
        ),
        (json!({"keywords": " , "}), "keywords: empty"),
        (
            json!({"view": "stats"}),
            "view: needs keywords or indicators; without them the call lists the catalogue",
        ),
        (
            json!({"keywords": ["a"], "indicators": ["b"]}),
            "indicators: give keywords or indicators, not both",
        ),
        (
            json!({"start": "2024-03-02", "end": "2024-03-01"}),
            "end: before start",
        ),
        (json!(["LDL"]), "arguments must be a JSON object"),
    ];
    for (args, reason) in cases {
        let env = QUERY_HEALTH_INDICATORS.validate(&args).unwrap_err();
        assert_refusal(&env);
        let first = render_compact(&env).lines().next().unwrap().to_owned();
        assert_eq!(
            first,
            format!("error (invalid_arguments): {reason}. Fix the arguments and try once more."),
            "{args}"
        );
    }
}

#[test]
fn a_parameter_name_that_is_not_an_identifier_is_not_repeated() {
    let env = QUERY_HEALTH_INDICATORS
        .validate(&json!({"my blood sugar was 14 this morning": true}))
        .unwrap_err();
    assert_eq!(assert_refusal(&env), ArgProblem::UnknownParameter);
    let text = render_compact(&env);
    assert!(!text.contains("blood sugar"), "{text}");
    assert!(!serde_json::to_string(&env).unwrap().contains("blood sugar"));
    assert!(text.starts_with(
        "error (invalid_arguments): a parameter whose name is not an identifier: unknown parameter."
    ));
}

#[test]
fn an_accepted_call_is_normalised_to_strict_form() {
    let valid = QUERY_HEALTH_INDICATORS
        .validate(
            &json!({"indicators": " LDL , HDL,LDL ", "start": " 2024-01-01 ", "view": "stats"}),
        )
        .unwrap();
    assert_eq!(
        valid.to_json(),
        json!({"indicators": ["LDL", "HDL"], "start": "2024-01-01", "view": "stats"})
    );
}
