//! `phi-ci pr --base REF` on this workspace.

use super::phi_ci;

#[test]
fn pr_gate_writes_sarif_and_annotations_and_passes_on_a_clean_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("phi-lint.sarif");
    let notes = dir.path().join("annotations.txt");
    let out = phi_ci(&[
        "pr",
        "--base",
        "HEAD",
        "--sarif",
        sarif.to_str().unwrap(),
        "--annotations",
        notes.to_str().unwrap(),
    ]);
    out.assert_code(0);
    let stdout = out.stdout.as_str();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    assert_eq!(doc["runs"][0]["tool"]["driver"]["name"], "phi-lint");
    assert!(notes.is_file());
    assert!(stdout.contains("1. static  PASS"), "{stdout}");
}

#[test]
fn pr_gate_with_an_unknown_ref_is_an_error() {
    let out = phi_ci(&["pr", "--base", "no-such-ref-phi-ci", "--sarif", "/dev/null"]);
    out.assert_code(2);
}
