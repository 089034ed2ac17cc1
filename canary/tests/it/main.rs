//! phi-canary's integration tests, one binary so the suite links once: the exit-code contract
//! on fixture logs, the no-echo guarantee across every format, `--help`, and the docker source
//! against a fake `docker` first on `PATH` (no daemon needed).

mod decode;
mod docker;
mod exit_codes;
mod help;
mod no_echo;
mod otlp;
mod podman;

use std::path::{Path, PathBuf};

use phi_testkit::{Cmd, Run};

/// The nonce the fixture logs carry in their marker lines.
const NONCE: &str = "fixture-0001";

/// `canary/tests/fixtures/NAME`.
fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `phi-canary ARGS`, with `RUST_LOG` removed; `PATH` is the machine's unless the test sets it.
/// The demo canary is used only when asked for: the fixtures carry it, so a `scan` or `docker`
/// that names no canary asks for it here.
fn cli(args: &[&str]) -> Cmd {
    let names_canary = args
        .iter()
        .any(|a| matches!(*a, "--canary" | "--canary-file" | "--demo"));
    let mut full: Vec<&str> = Vec::with_capacity(args.len() + 1);
    match args.split_first() {
        Some((&sub @ ("scan" | "docker"), rest)) if !names_canary => {
            full.push(sub);
            full.push("--demo");
            full.extend_from_slice(rest);
        }
        _ => full.extend_from_slice(args),
    }
    Cmd::new(env!("CARGO_BIN_EXE_phi-canary"), &full)
}

/// A temporary directory holding files a test writes.
struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new() -> Dir {
        Dir {
            dir: tempfile::tempdir().expect("create a temporary directory"),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let path: PathBuf = self.path().join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {name}: {e}"));
        path.to_string_lossy().into_owned()
    }
}
