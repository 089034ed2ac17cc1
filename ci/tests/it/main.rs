//! Integration tests of `phi-ci`: one binary, one module per pipeline.
//!
//! The `answers` binaries these pipelines run are built by the tests themselves with cargo
//! (the build lock is free while tests run), into the same target directory as this test:
//! the plain debug build and the leak drill (`answers-leak-drill`). Each is copied out under
//! phi-ci's lock on the target directory (`phi-ci-build.lock`), because `phi-ci release` links
//! the same path statically for a moment. A build that fails fails the test; nothing is
//! skipped, except the Docker tests with `PHI_SKIP_DOCKER=1`.

mod local;
mod pr;
mod release;

use std::path::{Path, PathBuf};
use std::process::Command;

use phi_testkit::{Cmd, Run};
use std::sync::OnceLock;

const PHI_CI: &str = env!("CARGO_BIN_EXE_phi-ci");

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("ci/ has a parent")
        .to_path_buf()
}

/// The target directory this test was built in: `TARGET/debug/phi-ci`.
fn target_dir() -> PathBuf {
    Path::new(PHI_CI)
        .parent()
        .and_then(Path::parent)
        .expect("TARGET/debug/phi-ci")
        .to_path_buf()
}

/// Builds `package` (debug) and copies its binary to `TARGET/phi-ci-it/PACKAGE`, holding
/// phi-ci's build lock from the build to the copy; returns the copy. The copy is renamed into
/// place, so another test run that is executing the previous copy keeps it.
fn cargo_build(package: &str) -> PathBuf {
    let target = target_dir();
    let lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target.join("phi-ci-build.lock"))
        .expect("open phi-ci's build lock");
    lock.lock().expect("take phi-ci's build lock");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root())
        .args(["build", "-p", package])
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo build -p {package} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bin = target.join("debug").join(package);
    assert!(bin.is_file(), "no {}", bin.display());
    let dir = target.join("phi-ci-it");
    std::fs::create_dir_all(&dir).expect("create TARGET/phi-ci-it");
    let partial = dir.join(format!("{package}.{}", std::process::id()));
    std::fs::copy(&bin, &partial).expect("copy the binary out");
    let copy = dir.join(package);
    std::fs::rename(&partial, &copy).expect("rename the copy into place");
    copy
}

/// The debug `answers`, built once per test run.
fn answers_debug() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| cargo_build("answers"))
}

/// The debug leak drill (`answers-leak-drill`, the answers CLI with one leaking layer), in the
/// same target directory: a package of its own, so it shares the dependencies' build and
/// cannot be mistaken for `answers`.
fn answers_leak_drill() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| cargo_build("answers-leak-drill"))
}

/// A binary's path as an argument.
fn utf8(path: &'static Path) -> &'static str {
    path.to_str().expect("utf-8 path")
}

fn phi_ci(args: &[&str]) -> Run {
    Cmd::new(PHI_CI, args).run()
}

/// The line of layer `n` in a report.
fn layer_line(stdout: &str, n: u8) -> &str {
    stdout
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{n}. ")))
        .unwrap_or_else(|| panic!("no layer {n} in:\n{stdout}"))
}

/// No output of a pipeline may carry the demo comment around the canary, nor a per-run canary:
/// the report gives positions and ids only.
fn assert_no_canary_text(run: &Run) {
    for t in [&run.stdout, &run.stderr] {
        assert!(!t.contains("self-tracked"), "{t}");
        assert!(!t.contains("PHI-CANARY-"), "{t}");
    }
}

#[test]
fn help_documents_the_exit_codes() {
    for args in [
        &["--help"][..],
        &["local", "--help"],
        &["release", "--help"],
        &["pr", "--help"],
    ] {
        let run = phi_ci(args);
        run.assert_code(0);
        let stdout = run.stdout.as_str();
        for code in [
            "0  every layer passed",
            "1  a layer failed",
            "2  the pipeline could not run",
        ] {
            assert!(stdout.contains(code), "{args:?}: {stdout}");
        }
    }
    phi_ci(&["local", "--no-such-flag"]).assert_code(2);
}
