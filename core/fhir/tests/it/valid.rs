//! The fixtures are FHIR an independent validator accepts: `fhir.resources` (pinned in
//! `core/tests/requirements.txt`) run by `PHI_PYTHON`. Without it the test fails; it is never
//! skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::fixtures::{self, write_bundle, write_ndjson};

const VALIDATOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/validate_fhir.py");

fn python() -> PathBuf {
    let Some(p) = std::env::var_os("PHI_PYTHON") else {
        panic!(
            "PHI_PYTHON is not set: point it at a Python with core/tests/requirements.txt \
             installed (fhir.resources validates the FHIR fixtures; this test is never skipped)"
        );
    };
    PathBuf::from(p)
}

/// Runs the validator over `files`; returns its exit success, stdout and stderr.
pub(crate) fn validate(files: &[&Path]) -> (bool, String, String) {
    let out = Command::new(python())
        .arg(VALIDATOR)
        .args(files)
        .output()
        .expect("run PHI_PYTHON");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_fixture_is_valid_fhir() {
    let dir = tempfile::tempdir().unwrap();
    let record = fixtures::record();
    let bundle = write_bundle(dir.path(), "record.json", &record);
    let ndjson = write_ndjson(dir.path(), "record.ndjson", &record);
    let minutes: Vec<_> = (0..60)
        .map(|m| {
            fixtures::heart_rate(
                &format!("hr-{m}"),
                &format!("2026-03-01T07:{m:02}:00Z"),
                60.0,
            )
        })
        .collect();
    let minutes = write_ndjson(dir.path(), "minutes.ndjson", &minutes);
    let (ok, stdout, stderr) = validate(&[&bundle, &ndjson, &minutes]);
    assert!(ok, "{stderr}");
    let n = record.len();
    assert_eq!(stdout, format!("valid {n}\nvalid {n}\nvalid 60\n"));
}

#[test]
fn the_validator_refuses_what_fhir_refuses() {
    // The precondition for the test above to mean anything: the validator does check.
    let dir = tempfile::tempdir().unwrap();
    let mut bad_time = fixtures::heart_rate("hr-1", "2026-03-01T07:00:00Z", 61.0);
    bad_time["effectiveDateTime"] = json!("2026-03-01T07:00");
    let mut no_status = fixtures::heart_rate("hr-1", "2026-03-01T07:00:00Z", 61.0);
    no_status.as_object_mut().unwrap().remove("status");
    for (name, bad) in [("time.json", bad_time), ("status.json", no_status)] {
        let path = write_bundle(dir.path(), name, &[bad]);
        let (ok, _, _) = validate(&[&path]);
        assert!(!ok, "{name} was accepted");
    }
}
