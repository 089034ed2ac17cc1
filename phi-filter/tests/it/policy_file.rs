//! `PhiPolicy::from_toml` and `from_file`: the runtime reads the same `phiguard.toml` as phi-lint.

use phi_filter::{DEFAULT_MARKER, PhiPolicy, PolicyError, PseudonymKey};
use serde_json::json;
use tracing::info;

use crate::support::capture;

const FILE: &str = r#"
[names]
allow = ["listen_addr"]
deny-stems = ["tenant"]

[lint]
safe-functions = ["plural"]

[runtime]
pseudonymize = ["mrn"]
max-message-bytes = 20
"#;

#[test]
fn the_file_is_the_policy() {
    let key = PseudonymKey::new(&[5; 32]).expect("a key");
    let policy = PhiPolicy::from_toml(FILE)
        .expect("a valid file")
        .pseudonym_key(key.clone());
    let stats = policy.stats();
    let buf = capture(policy, || {
        info!(
            listen_addr = "127.0.0.1:8080",
            tenant_id = 4,
            mrn = "MRN-0042",
            "a message longer than twenty bytes"
        );
    });
    let fields = &buf.json_lines()[0]["fields"];
    assert_eq!(fields["listen_addr"], json!("127.0.0.1:8080"));
    assert_eq!(
        fields["tenant_id"],
        json!(DEFAULT_MARKER),
        "a deny stem from the file"
    );
    assert_eq!(
        fields["mrn"],
        json!(phi_filter::pseudonym(&key, "MRN-0042"))
    );
    assert_eq!(stats.snapshot().messages_cut, 1);
}

#[test]
fn a_pseudonymized_name_in_the_file_still_needs_a_key() {
    let policy = PhiPolicy::from_toml(FILE).expect("a valid file");
    assert_eq!(
        policy.try_wrap(()).err(),
        Some(PolicyError::NoKey("mrn".to_owned()))
    );
}

#[test]
fn unknown_keys_are_errors_with_line_and_column() {
    let e = PhiPolicy::from_toml("[names]\nallow = []\n\n[runtime]\npseudonymise = [\"mrn\"]\n")
        .expect_err("a typo");
    assert!(
        e.to_string()
            .starts_with("phiguard.toml:5:1: unknown field `pseudonymise`"),
        "{e}"
    );
    let e = PhiPolicy::from_toml("[nmaes]\n").expect_err("an unknown table");
    assert!(e.to_string().starts_with("phiguard.toml:1:2:"), "{e}");
}

#[test]
fn from_file_reads_a_policy_file_or_cargo_metadata() {
    let dir = std::env::temp_dir().join(format!("phi-filter-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let file = dir.join("phiguard.toml");
    std::fs::write(&file, FILE).expect("write");
    assert!(PhiPolicy::from_file(&file).is_ok());
    let manifest = dir.join("Cargo.toml");
    std::fs::write(
        &manifest,
        "[workspace]\n[workspace.metadata.phiguard.names]\nallow = [\"listen_addr\"]\n",
    )
    .expect("write");
    assert!(PhiPolicy::from_file(&manifest).is_ok());
    std::fs::write(&manifest, "[workspace]\n").expect("write");
    assert!(matches!(
        PhiPolicy::from_file(&manifest),
        Err(PolicyError::NoPolicy(_))
    ));
    assert!(matches!(
        PhiPolicy::from_file(dir.join("missing.toml")),
        Err(PolicyError::Read { .. })
    ));
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn this_workspace_policy_file_loads() {
    let text = include_str!("../../../phiguard.toml");
    let policy = PhiPolicy::from_toml(text).expect("the workspace's phiguard.toml");
    let buf = capture(policy, || info!(listen_addr = "127.0.0.1:9", "serving"));
    assert_eq!(
        buf.json_lines()[0]["fields"]["listen_addr"],
        json!("127.0.0.1:9")
    );
}
