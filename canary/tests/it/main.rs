//! phi-canary's integration tests, one binary so the suite links once: the exit-code contract
//! on fixture logs, the no-echo guarantee across every format, `--help`, and the docker source
//! against a fake `docker` first on `PATH` (no daemon needed).

mod decode;
mod docker;
mod exit_codes;
mod help;
mod no_echo;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process;

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

/// A `phi-canary` command with a clean environment: `PATH` is the given one, or the machine's.
struct Cmd {
    cmd: assert_cmd::Command,
}

impl Cmd {
    fn new(args: &[&str]) -> Cmd {
        let mut cmd = assert_cmd::Command::cargo_bin("phi-canary").expect("the phi-canary binary");
        // The demo canary is used only when asked for: the fixtures carry it, so a scan that
        // names no canary asks for it here.
        let names_canary = args
            .iter()
            .any(|a| matches!(*a, "--canary" | "--canary-file" | "--demo"));
        match args.split_first() {
            Some((&sub @ ("scan" | "docker"), rest)) if !names_canary => {
                cmd.arg(sub).arg("--demo").args(rest);
            }
            _ => {
                cmd.args(args);
            }
        }
        Cmd { cmd }
    }

    /// Puts `dir` first on `PATH`.
    fn path_first(mut self, dir: &Path) -> Cmd {
        let mut path = OsString::from(dir);
        if let Some(rest) = std::env::var_os("PATH") {
            path.push(":");
            path.push(rest);
        }
        self.cmd.env("PATH", path);
        self
    }

    fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Cmd {
        self.cmd.env(key, value);
        self
    }

    fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Cmd {
        self.cmd.write_stdin(bytes.into());
        self
    }

    fn run(mut self) -> Run {
        Run::from(self.cmd.output().expect("run phi-canary"))
    }
}

/// What one run of the binary did.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<process::Output> for Run {
    fn from(out: process::Output) -> Run {
        Run {
            code: out.status.code().expect("exited, not killed by a signal"),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        }
    }
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "exit code {}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl Run {
    /// The exit code and an empty stderr.
    fn assert_out(&self, code: i32) -> &Run {
        assert_eq!(self.code, code, "{self}");
        assert_eq!(self.stderr, "", "{self}");
        self
    }

    /// The exit code, nothing on stdout, and stderr containing `needle`.
    fn assert_err(&self, code: i32, needle: &str) -> &Run {
        assert_eq!(self.code, code, "{self}");
        assert_eq!(self.stdout, "", "{self}");
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}\n{self}"
        );
        self
    }

    /// The last line of stdout: the human format's summary.
    fn summary(&self) -> &str {
        self.stdout.lines().last().unwrap_or_default()
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("JSON report: {e}\n{self}"))
    }
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
