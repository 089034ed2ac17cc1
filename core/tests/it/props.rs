//! Validation never panics: arbitrary JSON is either accepted, in a form the published schema
//! accepts, or refused with an `invalid_arguments` envelope whose next steps are accepted.

use std::sync::LazyLock;

use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
use answers_protocol::render_compact;
use proptest::prelude::*;
use serde_json::{Map, Value};

use super::{assert_refusal, assert_steps_accepted};

/// Strings that hit the validator's branches: names, dates good and bad, views, lists in text.
fn interesting_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("LDL, HDL".to_owned()),
        Just(r#"["Resting Heart Rate"]"#.to_owned()),
        Just(r#"["a", 1]"#.to_owned()),
        Just("[broken".to_owned()),
        Just("2024-01-01".to_owned()),
        Just("2024-12-31".to_owned()),
        Just("2024-02-30".to_owned()),
        Just("stats".to_owned()),
        Just("raw".to_owned()),
        prop::sample::select(answers_protocol::View::VARIANTS).prop_map(str::to_owned),
        "[0-9]{4}-[0-9]{2}-[0-9]{2}",
        ".{0,12}",
    ]
}

/// Keys: mostly the tool's parameters, sometimes not.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["keywords", "indicators", "start", "end", "view"]).prop_map(str::to_owned),
        1 => prop::sample::select(vec!["kind", "limit", "member", "Start", ""]).prop_map(str::to_owned),
        1 => ".{0,8}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        interesting_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Names, as lists, strings holding lists, or comma-separated strings.
fn names() -> impl Strategy<Value = Value> {
    let name = prop::sample::select(vec![
        "LDL Cholesterol",
        "1,25-Dihydroxyvitamin D",
        "Resting Heart Rate",
        " ",
        "",
    ]);
    prop_oneof![
        prop::collection::vec(name.clone(), 0..3).prop_map(Value::from),
        name.prop_map(Value::from),
        interesting_string().prop_map(Value::String),
    ]
}

/// A value for parameter `key`: usually of its type, sometimes anything.
fn value_for(key: &str) -> BoxedStrategy<Value> {
    let typed = match key {
        "keywords" | "indicators" => names().boxed(),
        "start" | "end" => prop::sample::select(vec![
            "2024-01-01",
            "2024-03-31",
            "2023-12-31",
            "2024-02-30",
            "March",
        ])
        .prop_map(Value::from)
        .boxed(),
        "view" => prop_oneof![
            4 => prop::sample::select(answers_protocol::View::VARIANTS).prop_map(Value::from),
            1 => Just(Value::from("daily")),
        ]
        .boxed(),
        _ => json_value().boxed(),
    };
    prop_oneof![4 => typed, 1 => json_value()].boxed()
}

/// Objects with each parameter present or not, with plausible values, and sometimes a key the
/// tool does not have: they reach the rules between parameters as often as the values.
fn argument_object() -> impl Strategy<Value = Value> {
    let params = ["keywords", "indicators", "start", "end", "view"];
    let present = params.map(|p| prop::option::weighted(0.4, value_for(p)));
    let extra = prop::option::weighted(0.15, (key(), json_value()));
    (present, extra).prop_map(move |(values, extra)| object_of(&params, values, extra))
}

/// The object holding each of `params` whose value is present, and `extra`, if any: what an
/// argument strategy builds from its draws.
pub(crate) fn object_of(
    params: &[&str],
    values: impl IntoIterator<Item = Option<Value>>,
    extra: Option<(String, Value)>,
) -> Value {
    let mut obj: Map<String, Value> = params
        .iter()
        .zip(values)
        .filter_map(|(k, v)| v.map(|v| ((*k).to_owned(), v)))
        .collect();
    if let Some((k, v)) = extra {
        obj.insert(k, v);
    }
    Value::Object(obj)
}

/// The published schema, compiled once.
fn schema_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&QUERY_HEALTH_INDICATORS.json_schema())
            .expect("the schema compiles")
    });
    &VALIDATOR
}

fn check(args: &Value, validator: &jsonschema::Validator) {
    match QUERY_HEALTH_INDICATORS.validate(args) {
        Ok(valid) => {
            let strict = valid.to_json();
            assert!(
                validator.is_valid(&strict),
                "{args} accepted as {strict}, which the schema refuses"
            );
            let again = QUERY_HEALTH_INDICATORS
                .validate(&strict)
                .expect("strict form is accepted");
            assert_eq!(again, valid, "strict form is a fixed point");
        }
        Err(env) => {
            assert_refusal(&env);
            assert!(render_compact(&env).starts_with("error (invalid_arguments): "));
            assert!(
                !env.next_steps().is_empty(),
                "{args}: a refusal with no way forward"
            );
            assert_steps_accepted(&env, &args.to_string());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_json_is_accepted_or_refused_never_a_panic(args in json_value()) {
        check(&args, schema_validator());
    }

    #[test]
    fn arbitrary_argument_objects_are_accepted_or_refused(args in argument_object()) {
        check(&args, schema_validator());
    }

    #[test]
    fn what_the_schema_accepts_the_validator_accepts_unless_a_rule_refuses(args in argument_object()) {
        if schema_validator().is_valid(&args)
            && let Err(env) = QUERY_HEALTH_INDICATORS.validate(&args)
        {
            let problem = assert_refusal(&env);
            prop_assert!(
                matches!(problem, answers_protocol::ArgProblem::NeedsSelector | answers_protocol::ArgProblem::SelectorConflict | answers_protocol::ArgProblem::EndBeforeStart),
                "{} passes the schema but is refused: {}", args, render_compact(&env)
            );
        }
    }
}

/// Precondition for the properties above: the generated objects are often accepted and often
/// refused, by values and by rules alike, so neither branch of `check` is vacuous.
#[test]
fn the_generator_reaches_both_outcomes() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let (mut accepted, mut by_rule, mut by_value) = (0, 0, 0);
    for _ in 0..512 {
        let args = argument_object().new_tree(&mut runner).unwrap().current();
        match QUERY_HEALTH_INDICATORS.validate(&args) {
            Ok(_) => accepted += 1,
            Err(env) => match assert_refusal(&env) {
                answers_protocol::ArgProblem::NeedsSelector
                | answers_protocol::ArgProblem::SelectorConflict
                | answers_protocol::ArgProblem::EndBeforeStart => by_rule += 1,
                _ => by_value += 1,
            },
        }
    }
    assert!(
        accepted >= 20 && by_rule >= 10 && by_value >= 20,
        "{accepted} {by_rule} {by_value}"
    );
}
