//! `install()`, each scenario in its own process: the global subscriber can be set only once
//! per process. The parent test re-runs this binary with one scenario selected.

use std::process::{Command, Output};

use phi_filter::InstallError;

const SCENARIO: &str = "PHI_FILTER_INSTALL_SCENARIO";

/// Runs in a child process only; a no-op in the normal test run.
#[test]
fn scenario() {
    let Ok(which) = std::env::var(SCENARIO) else {
        return;
    };
    match which.as_str() {
        "idempotent" => {
            phi_filter::install().expect("first install");
            phi_filter::install().expect("a second install is Ok");
            tracing::info!(user_id = 1, note = "Jane-Q-Sentinel-7731", "installed");
            log::info!("through the log bridge, row {}", 5);
        }
        "foreign" => {
            tracing::subscriber::set_global_default(tracing_subscriber::registry())
                .expect("a foreign subscriber");
            let err = phi_filter::install().expect_err("must refuse");
            assert_eq!(err, InstallError::ForeignSubscriber);
            println!("refused: {err}");
        }
        "bad-filter" => {
            let err = phi_filter::install().expect_err("must refuse");
            assert!(matches!(err, InstallError::Filter(_)), "{err:?}");
            println!("refused: {err}");
        }
        "no-key" => {
            let policy = phi_filter::PhiPolicy::default().pseudonymize("mrn");
            let err = phi_filter::install_with(policy).expect_err("must refuse");
            assert!(matches!(err, InstallError::Policy(_)), "{err:?}");
            // Refused before anything was installed: the process can still set its own.
            assert!(!tracing_core::dispatcher::has_been_set());
            println!("refused: {err}");
        }
        other => panic!("unknown scenario {other}"),
    }
}

fn run(which: &str, rust_log: Option<&str>) -> Output {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = Command::new(exe);
    cmd.args([
        "install::scenario",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(SCENARIO, which)
    .env_remove("RUST_LOG");
    if let Some(filter) = rust_log {
        cmd.env("RUST_LOG", filter);
    }
    let out = cmd.output().expect("run the scenario");
    assert!(
        out.status.success(),
        "scenario {which} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        // The test harness prints "test install::scenario ... " before the first line.
        .filter_map(|l| l.find("{\"timestamp\"").map(|at| &l[at..]))
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn install_is_idempotent_and_redacts_stdout() {
    let out = run("idempotent", None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("Jane-Q-Sentinel-7731"), "{stdout}");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0]["fields"]["user_id"], 1);
    assert_eq!(lines[0]["fields"]["note"], phi_filter::DEFAULT_MARKER);
    assert_eq!(
        lines[1]["fields"]["message"],
        "through the log bridge, row 5"
    );
}

#[test]
fn a_foreign_subscriber_is_a_clear_error() {
    let out = run("foreign", None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("refused: another global tracing subscriber is already set"),
        "{stdout}"
    );
}

#[test]
fn a_bad_rust_log_is_a_clear_error() {
    let out = run("bad-filter", Some("info,=[{"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("refused: invalid RUST_LOG filter"),
        "{stdout}"
    );
}

#[test]
fn a_pseudonymized_name_without_a_key_is_a_clear_error() {
    let out = run("no-key", None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("refused: invalid phi-filter policy: the field `mrn` is pseudonymized"),
        "{stdout}"
    );
}
