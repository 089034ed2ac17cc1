//! Integration tests of the answers crate: one binary, one module per topic.

mod backends;
mod capture;
mod cli;
mod database;
mod e2e;
mod fhir;
mod fixtures;
mod genetics;
mod governance;
mod instances;
mod leniency;
mod mcp;
mod medications;
mod next_steps;
mod pipeline_hooks;
mod props;
mod python;
mod raw;
mod readings;
mod render;
mod schemas;
mod serde_wire;
mod serve_load;
mod telemetry;
// The store's write side and the demo record (the vocabularies' tests are answers-vocab's).
mod demo;
mod store_write;
// The terminology tools and the vocabulary server's own.
mod terminology;

use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
use answers_protocol::{
    ArgProblem, Envelope, ErrorClass, ErrorDetail, ErrorKind, NextStep, ParamType, Status,
    ToolSchema,
};
use serde_json::{Value, json};

/// The values a caller might choose for a supplied parameter of type `ty`, given the call's
/// other arguments: each must be one a model could sensibly pick. A date that is supplied
/// alone takes the other bound, so a window stays in order.
fn choices(schema: &ToolSchema, name: &str, args: &serde_json::Map<String, Value>) -> Vec<Value> {
    let ty = schema
        .param(name)
        .expect("a step supplies only declared parameters")
        .ty;
    match ty {
        ParamType::Text => vec![json!("cholesterol")],
        ParamType::TextBatch => vec![json!(["mg/dl"]), json!(["HbA1c", "HbA1c"])],
        ParamType::TextList => vec![
            json!(["LDL Cholesterol"]),
            json!(["1,25-Dihydroxyvitamin D", "Resting Heart Rate"]),
        ],
        ParamType::Date => {
            let other = if name == "start" { "end" } else { "start" };
            match args.get(other) {
                Some(v) => vec![v.clone()],
                None if name == "start" => vec![json!("2024-01-01"), json!("2024-02-01")],
                None => vec![json!("2024-02-01"), json!("2024-03-31")],
            }
        }
        ParamType::Number => vec![json!(1), json!(2.5)],
        ParamType::OneOf(domain) => domain.values().iter().map(|v| json!(v)).collect(),
    }
}

/// Every follow-up call `step` stands for: its arguments with each combination of the choices
/// for its supplied parameters.
fn follow_ups(schema: &ToolSchema, step: &NextStep) -> Vec<Value> {
    let mut calls: Vec<serde_json::Map<String, Value>> =
        vec![step.args.clone().into_iter().collect()];
    for name in &step.supply {
        let mut next = Vec::new();
        for call in &calls {
            for value in choices(schema, name, call) {
                let mut c = call.clone();
                c.insert(name.clone(), value);
                next.push(c);
            }
        }
        calls = next;
    }
    calls
        .into_iter()
        .map(|c| {
            let filled = step
                .apply(c.iter().map(|(k, v)| (k.as_str(), v.clone())))
                .expect("every supplied parameter has a value");
            assert_eq!(filled, Value::Object(c), "apply keeps the step's arguments");
            filled
        })
        .collect()
}

/// Asserts that every next step of `env` is accepted by the readings tool's validator,
/// whatever valid values the caller supplies. Returns how many calls were checked.
fn assert_steps_accepted(env: &Envelope, context: &str) -> usize {
    let schema = &QUERY_HEALTH_INDICATORS;
    let mut checked = 0;
    for step in env.next_steps() {
        assert_eq!(step.tool, schema.tool, "{context}: {step:?}");
        for call in follow_ups(schema, step) {
            if let Err(refusal) = schema.validate(&call) {
                panic!(
                    "{context}: next step {} leads to {call} which is refused: {}",
                    step.action,
                    answers_protocol::render_compact(&refusal)
                );
            }
            checked += 1;
        }
    }
    checked
}

/// Asserts that `env` is a refusal: status error, recoverable, `invalid_arguments`, a refusal
/// detail from the readings tool. Returns its problem.
fn assert_refusal(env: &Envelope) -> ArgProblem {
    assert_eq!(env.status(), Status::Error);
    assert_eq!(env.error_class(), Some(ErrorClass::Recoverable));
    assert_eq!(env.error_kind(), Some(ErrorKind::InvalidArguments));
    match env.error_detail() {
        Some(ErrorDetail::Refusal { tool, problem, .. }) => {
            assert_eq!(*tool, QUERY_HEALTH_INDICATORS.tool);
            *problem
        }
        other => panic!("not a refusal: {other:?}"),
    }
}
