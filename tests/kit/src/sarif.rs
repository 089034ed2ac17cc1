//! The official SARIF 2.1.0 schema (`fixtures/sarif-schema-2.1.0.json`, see its notice),
//! compiled once per test binary, for every crate that writes SARIF (phi-lint, phi-canary).

use std::sync::OnceLock;

use serde_json::Value;

const SCHEMA: &str = include_str!("../fixtures/sarif-schema-2.1.0.json");

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(SCHEMA).expect("the SARIF schema is JSON");
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft4)
            .should_validate_formats(true)
            .build(&schema)
            .expect("the official schema compiles offline")
    })
}

/// Where `sarif` breaks the schema, one line each (`instance path: error`); empty when it
/// matches.
///
/// ```
/// let errors = phi_testkit::sarif::schema_errors(&serde_json::json!({ "version": "2.1.0" }));
/// assert!(errors.iter().any(|e| e.contains("runs")), "{errors:?}");
/// ```
#[must_use]
pub fn schema_errors(sarif: &Value) -> Vec<String> {
    validator()
        .iter_errors(sarif)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect()
}

/// Asserts that `sarif` matches the schema, naming every place it does not.
///
/// ```
/// phi_testkit::sarif::assert_valid(&serde_json::json!({ "version": "2.1.0", "runs": [] }));
/// ```
///
/// # Panics
///
/// When `sarif` does not match the schema.
#[track_caller]
pub fn assert_valid(sarif: &Value) {
    let errors = schema_errors(sarif);
    // phi-lint: allow(reason = "test harness: a failing test shows where the SARIF, the tool's own output, breaks the schema")
    assert!(
        errors.is_empty(),
        "SARIF does not match the schema:\n{}",
        errors.join("\n")
    );
}
