//! The hooks the pipeline (phi-ci) uses, through the `answers` binary: `canary-present` answers
//! present/absent without printing the canary, and `serve` writes the marker lines on both
//! streams at start and at a clean shutdown.

use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_answers");
const RUN_CANARY: &str = "PHI-CANARY-0f1e2d3c4b5a69788796a5b4c3d2e1f0";

fn run(args: &[&str], canary_env: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("RUST_LOG")
        .env_remove("PHIGUARD_CANARY")
        .env_remove("PHIGUARD_MARKER_NONCE");
    if let Some(c) = canary_env {
        cmd.env("PHIGUARD_CANARY", c);
    }
    cmd.output().expect("run answers")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

fn seed(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("record.db");
    let tokens = dir.join("tokens");
    let out = run(
        &[
            "seed",
            "--db",
            s(&db),
            "--demo",
            "--canary",
            RUN_CANARY,
            "--tokens-file",
            s(&tokens),
        ],
        None,
    );
    assert!(out.status.success(), "seed: {out:?}");
    db
}

fn assert_never_printed(out: &Output, canary: &str) {
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains(canary), "printed the canary: {text}");
    }
}

#[test]
fn canary_present_answers_present_absent_or_error_and_never_prints_the_canary() {
    let dir = tempfile::tempdir().unwrap();
    let db = seed(dir.path());

    let present = run(&["canary-present", "--db", s(&db)], Some(RUN_CANARY));
    assert_eq!(present.status.code(), Some(0), "{present:?}");
    assert_eq!(present.stdout, b"present\n");
    assert_never_printed(&present, RUN_CANARY);

    let other = "PHI-CANARY-ffffffffffffffffffffffffffffffff";
    let absent = run(&["canary-present", "--db", s(&db)], Some(other));
    assert_eq!(absent.status.code(), Some(1), "{absent:?}");
    assert_eq!(absent.stdout, b"absent\n");
    assert_never_printed(&absent, other);

    // From a file; every canary in it must be present.
    let file = dir.path().join("canaries");
    std::fs::write(&file, format!("{RUN_CANARY}\n")).unwrap();
    let from_file = run(
        &["canary-present", "--db", s(&db), "--canary-file", s(&file)],
        None,
    );
    assert_eq!(from_file.status.code(), Some(0), "{from_file:?}");
    std::fs::write(&file, format!("{RUN_CANARY}\n{other}\n")).unwrap();
    let one_missing = run(
        &["canary-present", "--db", s(&db), "--canary-file", s(&file)],
        None,
    );
    assert_eq!(one_missing.status.code(), Some(1), "{one_missing:?}");
    assert_eq!(one_missing.stdout, b"absent\n");

    // Errors are 2, with nothing on stdout: no canary, an empty one, a missing database.
    for (args, env) in [
        (vec!["canary-present", "--db", s(&db)], None),
        (vec!["canary-present", "--db", s(&db)], Some("  ")),
    ] {
        let out = run(&args, env);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains("present") && !text.contains("absent"),
            "{text}"
        );
    }
    let missing = dir.path().join("missing.db");
    let out = run(&["canary-present", "--db", s(&missing)], Some(RUN_CANARY));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!missing.exists(), "the check created a database");
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn serve_writes_start_and_end_markers_on_both_streams_and_refuses_a_bad_nonce() {
    let dir = tempfile::tempdir().unwrap();
    let db = seed(dir.path());

    for bad in ["short", "has space in it", "under_score", &"a".repeat(129)] {
        let out = run(
            &[
                "serve",
                "--db",
                s(&db),
                "--listen",
                "127.0.0.1:0",
                "--marker-nonce",
                bad,
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {out:?}");
    }

    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let nonce = "it-marker-0123456789";
    let mut child = Command::new(BIN)
        .args(["serve", "--db", s(&db), "--listen", &listen])
        .env("PHIGUARD_MARKER_NONCE", nonce)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serve");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(&listen).is_err() {
        assert!(Instant::now() < deadline, "serve did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let code = child.wait().unwrap();
    assert!(code.success(), "{code:?} {err}");

    let start = format!("phiguard-marker start {nonce}\n");
    let end = format!("phiguard-marker end {nonce}\n");
    for (name, text) in [("stdout", &out), ("stderr", &err)] {
        let s = text
            .find(&start)
            .unwrap_or_else(|| panic!("{name}: no start: {text}"));
        let e = text
            .find(&end)
            .unwrap_or_else(|| panic!("{name}: no end: {text}"));
        assert!(s < e, "{name}: end before start");
        // Each marker is a whole line, and the end marker is the last line written.
        assert!(s == 0 || text.as_bytes()[s - 1] == b'\n', "{name}");
        assert!(
            text.ends_with(&end),
            "{name}: output after the end marker: {text}"
        );
    }
    // The shutdown line carries the figures phi-ci reports.
    let stopped = out
        .lines()
        .find(|l| l.contains("\"answers stopped\""))
        .expect("a shutdown line");
    let v: serde_json::Value = serde_json::from_str(stopped).unwrap();
    assert_eq!(v["fields"]["request_count"], 0);
    assert_eq!(v["fields"]["redacted_count"], 0);
}
