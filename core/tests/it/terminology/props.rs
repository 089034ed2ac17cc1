//! The vocabulary server's five tools never fault on arbitrary arguments: every call answers
//! `ok` or refuses with `invalid_arguments`, and the answer survives the wire.

use answers_protocol::{Envelope, ErrorKind, Status, ToolId, render_compact};
use answers_tools::registry::vocab_call;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("mg/dL".to_owned()),
        Just("mmol/L".to_owned()),
        Just("bpm".to_owned()),
        Just("[degF]".to_owned()),
        Just("10*9/L".to_owned()),
        Just("{steps}".to_owned()),
        Just("glucose".to_owned()),
        Just("血糖".to_owned()),
        Just("头疼".to_owned()),
        Just("2024-03-01".to_owned()),
        Just("2024-03-01T08:30:00+01:00".to_owned()),
        "[a-zA-Z0-9/.*\\[\\]{}^ -]{0,12}",
        ".{0,12}",
    ]
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        text().prop_map(Value::from),
        any::<f64>().prop_map(|x| serde_json::Number::from_f64(x).map_or(Value::Null, Value::from)),
        any::<i32>().prop_map(Value::from),
        Just(Value::Null),
        Just(json!(["mg/dL"])),
    ]
}

fn args() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("name".to_owned()),
        Just("value".to_owned()),
        Just("unit".to_owned()),
        Just("from".to_owned()),
        Just("to".to_owned()),
        Just("indicator".to_owned()),
        Just("time".to_owned()),
        Just("text".to_owned()),
        "[a-z]{1,6}",
    ];
    prop::collection::btree_map(key, value(), 0..5)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>()))
}

fn assert_sound(tool: ToolId, args: &Value, env: &Envelope) {
    let text = render_compact(env);
    match env.status() {
        Status::Error => assert_eq!(
            env.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{tool} {args}: {text}"
        ),
        Status::Ok => assert!(!env.data().is_empty(), "{tool} {args}: {text}"),
        Status::Partial => panic!("{tool} {args}: nothing here is cut: {text}"),
    }
    let wire = serde_json::to_value(env).expect("serializes");
    let back: Envelope = serde_json::from_value(wire).expect("the wire form reads back");
    assert_eq!(&back, env, "{tool} {args}");
}

/// The vocabulary server's tools, from the registry.
fn vocab_tools() -> Vec<ToolId> {
    answers_tools::registry::on(answers_tools::registry::Surface::VocabMcp)
        .map(|spec| spec.id)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_call_answers_or_refuses(
        tool in prop::sample::select(vocab_tools()),
        args in args(),
    ) {
        let env = vocab_call(tool.as_str(), &args).expect("served");
        assert_sound(tool, &args, &env);
    }
}
