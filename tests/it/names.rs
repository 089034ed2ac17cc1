//! One source of truth for names: on a shared table, phi-lint's verdict on a logged variable,
//! phi-filter's classifier and phi-filter's running layer all agree.

use phi_filter::names::NamePolicy;
use phi_filter::{MemoryWriter, PhiPolicy};
use tracing_subscriber::prelude::*;

/// `(name, allowed, an event logging the number 7 under that name)`.
type Row = (&'static str, bool, fn());

macro_rules! table {
    ($($name:ident => $allowed:expr),* $(,)?) => {
        &[$((stringify!($name), $allowed, (|| tracing::info!($name = 7u64)) as fn())),*]
    };
}

const TABLE: &[Row] = table![
    id => true, user_id => true, request_id => true, trace_ids => true, session_uuid => true,
    userId => true,
    row_count => true, n_rows => true, num_files => true, total => true, body_bytes => true,
    retries => true, limit => true, index => true, page_size => true, pack_idx => true, indent => true,
    pid => true, child_pid => true, port => true, http_port => true, oid => true, control_oid => true,
    size_hint => true,
    elapsed => true, elapsed_ms => true, latency => true, timeout => true, backoff => true,
    status => true, http_status => true, exit_code => true, status_code => true,
    error_kind => true, kind => true, level => true, row_type => true,
    attribute_name => true, namespace => true, attribute_value => false, patient_namespace => false,
    member_id => false, patient_id => false, mrn => false, blood_type => false, email_count => false,
    comment_len => false, first_name => false, dob => false, zip => false, diagnosis_code => false,
    medication_id => false,
    passport => false, paranoid => false, hint => false, height => false, width => false, year => false,
    value => false, glucose => false, note => false, reading => false, n => false, ms => false,
];

fn runtime_passes(emit: fn(), name: &str) -> bool {
    let logs = MemoryWriter::default();
    let layer = PhiPolicy::default().wrap(phi_filter::json_layer(logs.clone()));
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), emit);
    let text = logs.text();
    let line: serde_json::Value = serde_json::from_str(text.trim()).expect("one JSON line");
    let value = &line["fields"][name];
    assert!(
        !value.is_null(),
        "the field {name} is in the output: {text}"
    );
    *value == serde_json::json!(7)
}

fn lint_passes(name: &str) -> bool {
    let src = format!("fn f({name}: u64) {{ tracing::info!(x = {name}); }}");
    let out =
        phi_lint::lint_source(&phi_lint::Config::default(), "src/a.rs", &src).expect("parses");
    out.findings.is_empty()
}

#[test]
fn lint_classifier_and_layer_agree_on_the_shared_table() {
    let classifier = NamePolicy::default();
    let mut disagreements = Vec::new();
    for &(name, allowed, emit) in TABLE {
        let verdicts = (
            lint_passes(name),
            classifier.classify(name).is_allowed(),
            runtime_passes(emit, name),
        );
        if verdicts != (allowed, allowed, allowed) {
            disagreements.push(format!(
                "{name}: expected {allowed}, lint/classifier/layer said {verdicts:?}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
