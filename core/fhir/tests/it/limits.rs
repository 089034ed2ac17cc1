//! A file too large, a line too long or JSON nested too deep is a clear error, not a crash.

use answers_fhir::{Limits, Rule};
use serde_json::json;

use crate::fixtures::{self, write_bundle, write_ndjson};
use crate::support::Record;

#[test]
fn a_bundle_over_the_size_limit_is_refused_before_it_is_parsed() {
    let mut r = Record::new();
    let path = write_bundle(r.dir.path(), "big.json", &fixtures::record());
    let limits = Limits {
        max_bundle_bytes: 1024,
        ..Limits::default()
    };
    let err = r.import_with(&path, limits).unwrap_err();
    assert_eq!(err.rule(), Some(Rule::BundleTooLarge { limit: 1024 }));
    assert!(err.to_string().contains("export NDJSON"), "{err}");
    // The default admits it.
    assert!(r.import(&path).is_ok());
}

#[test]
fn an_ndjson_line_over_the_limit_is_named() {
    let mut r = Record::new();
    let mut long = fixtures::heart_rate("hr-1", "2026-03-01T07:00:00Z", 61.0);
    long["note"] = json!([{"text": "x".repeat(4096)}]);
    let path = write_ndjson(r.dir.path(), "long.ndjson", &[fixtures::patient(), long]);
    let limits = Limits {
        max_line_bytes: 2048,
        ..Limits::default()
    };
    let err = r.import_with(&path, limits).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 2: an NDJSON line may be at most 2048 bytes"
    );
}

#[test]
fn deep_nesting_is_refused_in_both_formats() {
    let mut r = Record::new();
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let line =
        format!("{{\"resourceType\":\"Observation\",\"status\":\"final\",\"extension\":{deep}}}\n");
    let ndjson = r.dir.path().join("deep.ndjson");
    std::fs::write(&ndjson, &line).unwrap();
    let err = r.import(&ndjson).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 1: JSON nested deeper than 128 levels"
    );
    let bundle = r.dir.path().join("deep.json");
    std::fs::write(
        &bundle,
        format!("{{\"resourceType\":\"Bundle\",\"type\":\"collection\",\"entry\":[{{\"resource\":{}}}]}}", line.trim()),
    )
    .unwrap();
    let err = r.import(&bundle).unwrap_err();
    assert_eq!(err.rule(), Some(Rule::TooDeep), "{err}");
}
