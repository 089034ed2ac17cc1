//! `next_steps` never suggests something the argument matrix would refuse: every step of every
//! refusal and truncation path, applied with the values a caller could supply, validates.

use std::collections::BTreeSet;

use answers_protocol::args::FromArgs;
use answers_protocol::args::health_indicators::{IndicatorQuery, QUERY_HEALTH_INDICATORS};
use answers_protocol::{ArgProblem, Domain, Envelope, NextAction, View};
use serde_json::{Value, json};

use super::{assert_refusal, assert_steps_accepted, fixtures};

/// Refused calls covering every problem the readings tool can report, alone and combined.
fn refused_calls() -> Vec<Value> {
    vec![
        // not an object
        json!(null),
        json!("LDL"),
        json!(["LDL"]),
        json!(42),
        // unknown parameters
        json!({"kind": "medications", "view": "day"}),
        json!({"kind": "medications"}),
        json!({"limit": 50, "indicators": ["LDL Cholesterol"], "view": "raw"}),
        json!({"member": "x", "resolution": "day", "aggregate": "avg"}),
        json!({"my blood sugar was 14 this morning": true}),
        // a value of the wrong type or shape
        json!({"indicators": 5}),
        json!({"indicators": [1, 2]}),
        json!({"keywords": ""}),
        json!({"keywords": [" ", ""], "view": "stats"}),
        json!({"indicators": r#"["LDL", 3]"#}),
        json!({"start": "March 2024"}),
        json!({"start": "2024-02-30", "indicators": ["LDL Cholesterol"]}),
        json!({"end": 20_240_301, "keywords": ["glucose"], "view": "day"}),
        json!({"view": "daily", "indicators": ["Body weight"]}),
        json!({"view": "daily"}),
        json!({"view": 3, "start": "2024-01-01"}),
        // the matrix
        json!({"view": "stats"}),
        json!({"view": "day", "start": "2024-01-01", "end": "2024-01-31"}),
        json!({"keywords": ["cholesterol"], "indicators": ["LDL Cholesterol"]}),
        json!({"keywords": ["cholesterol"], "indicators": ["LDL Cholesterol"], "view": "stats"}),
        json!({"indicators": ["LDL Cholesterol"], "start": "2024-03-31", "end": "2024-03-01"}),
        json!({"start": "2024-03-31", "end": "2024-03-01", "view": "raw"}),
        // several problems at once
        json!({"kind": "medications", "view": "weekly", "start": "yesterday", "end": "2024-01-01"}),
        json!({"keywords": 7, "indicators": "LDL", "view": "stats", "end": "2024-13-01"}),
    ]
}

#[test]
fn every_refusal_path_suggests_only_calls_the_validator_accepts() {
    let mut problems = BTreeSet::new();
    let mut checked = 0;
    for call in refused_calls() {
        let env = QUERY_HEALTH_INDICATORS
            .validate(&call)
            .expect_err(&format!("{call} should be refused"));
        problems.insert(assert_refusal(&env).to_string());
        assert!(
            !env.next_steps().is_empty(),
            "{call}: a refusal with no way forward"
        );
        checked += assert_steps_accepted(&env, &call.to_string());
    }
    // Precondition: the calls above reach every problem this tool can report.
    let reachable: BTreeSet<String> = [
        ArgProblem::NotAnObject,
        ArgProblem::UnknownParameter,
        ArgProblem::NotTextList,
        ArgProblem::Empty,
        ArgProblem::NotDate,
        ArgProblem::NotOneOf(Domain::View),
        ArgProblem::NeedsSelector,
        ArgProblem::SelectorConflict,
        ArgProblem::EndBeforeStart,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(problems, reachable);
    assert!(checked > 100, "only {checked} follow-up calls were checked");
}

/// Every selector and view a valid query can have, over three windows.
fn queries() -> Vec<IndicatorQuery> {
    let mut args = vec![json!({})];
    for selector in [
        json!({"keywords": ["cholesterol"]}),
        json!({"indicators": ["LDL Cholesterol", "HDL Cholesterol"]}),
    ] {
        args.push(selector.clone());
        for view in View::VARIANTS {
            let mut a = selector.clone();
            a["view"] = json!(view);
            args.push(a);
        }
    }
    let windows = [
        json!({}),
        json!({"start": "2024-01-01"}),
        json!({"start": "2024-01-01", "end": "2024-03-31"}),
    ];
    let mut out = Vec::new();
    for a in &args {
        for w in &windows {
            let mut call = a.clone();
            for (k, v) in w.as_object().unwrap() {
                call[k] = v.clone();
            }
            out.push(IndicatorQuery::from_args(&call).expect("a valid query"));
        }
    }
    out
}

#[test]
fn every_truncation_path_suggests_only_calls_the_validator_accepts() {
    let queries = queries();
    assert_eq!(queries.len(), 3 * (1 + 2 * (1 + View::VARIANTS.len())));
    for q in queries {
        let steps = q.next_steps_when_truncated();
        assert!(!steps.is_empty(), "{q:?}");
        let env = Envelope::ok(answers_protocol::Meta::none())
            .truncated()
            .with_next_steps(steps);
        assert!(assert_steps_accepted(&env, &format!("{q:?}")) > 0);
    }
}

#[test]
fn a_cut_catalogue_is_told_to_use_indicators_and_narrow_the_window_never_stats() {
    let env = fixtures::catalogue();
    let actions: Vec<NextAction> = env.next_steps().iter().map(|s| s.action).collect();
    assert_eq!(
        actions,
        [NextAction::UseIndicators, NextAction::NarrowWindow]
    );
    for step in env.next_steps() {
        assert!(
            !step.args.contains_key("view") && !step.supply.iter().any(|s| s == "view"),
            "{step:?}"
        );
    }
    // And what it avoids is indeed refused.
    let stats = QUERY_HEALTH_INDICATORS
        .validate(&json!({"view": "stats"}))
        .unwrap_err();
    assert_eq!(assert_refusal(&stats), ArgProblem::NeedsSelector);
}

#[test]
fn the_fixtures_next_steps_are_accepted() {
    for (name, env) in fixtures::all() {
        assert_steps_accepted(&env, name);
    }
}

#[test]
fn the_originals_example_suggests_the_catalogue_or_indicators() {
    let env = fixtures::refusal();
    let steps: Vec<(NextAction, Value, Vec<String>)> = env
        .next_steps()
        .iter()
        .map(|s| (s.action, json!(s.args), s.supply.clone()))
        .collect();
    assert_eq!(
        steps,
        [
            (NextAction::CallCatalogue, json!({}), vec![]),
            (
                NextAction::UseIndicators,
                json!({"view": "day"}),
                vec!["indicators".to_owned()]
            ),
        ]
    );
}
