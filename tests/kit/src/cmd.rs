//! The CLI run harness: a command with a clean environment, and what its run did.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::Write;
use std::path::Path;
use std::process::{self, Command, Stdio};

/// A command to run once: `RUST_LOG` is removed, so no developer setting changes the output.
pub struct Cmd {
    cmd: Command,
    stdin: Option<Vec<u8>>,
}

impl Cmd {
    /// `bin ARGS` (pass `env!("CARGO_BIN_EXE_name")` as `bin`).
    #[must_use]
    pub fn new(bin: impl AsRef<OsStr>, args: &[&str]) -> Cmd {
        let mut cmd = Command::new(bin);
        cmd.args(args).env_remove("RUST_LOG");
        Cmd { cmd, stdin: None }
    }

    /// Adds arguments.
    #[must_use]
    pub fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Cmd {
        self.cmd.args(args);
        self
    }

    /// Sets a variable.
    #[must_use]
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Cmd {
        self.cmd.env(key, value);
        self
    }

    /// Sets several variables.
    #[must_use]
    pub fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Cmd {
        self.cmd.envs(vars);
        self
    }

    /// Removes a variable.
    #[must_use]
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Cmd {
        self.cmd.env_remove(key);
        self
    }

    /// Runs in `dir`.
    #[must_use]
    pub fn current_dir(mut self, dir: &Path) -> Cmd {
        self.cmd.current_dir(dir);
        self
    }

    /// Puts `dir` first on `PATH` (a fake tool shadows the real one).
    #[must_use]
    pub fn path_first(mut self, dir: &Path) -> Cmd {
        let mut path = OsString::from(dir);
        if let Some(rest) = std::env::var_os("PATH") {
            path.push(":");
            path.push(rest);
        }
        self.cmd.env("PATH", path);
        self
    }

    /// Feeds `bytes` on stdin (else stdin is empty).
    #[must_use]
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Cmd {
        self.stdin = Some(bytes.into());
        self
    }

    /// Runs the command to its end. Panics if it cannot start: a test harness's failure.
    #[must_use]
    pub fn run(self) -> Run {
        Run::from(self.output())
    }

    /// Runs the command to its end and returns its raw output.
    #[must_use]
    pub fn output(mut self) -> process::Output {
        let program = self.cmd.get_program().to_string_lossy().into_owned();
        let mut child = self
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            // phi-lint: allow(reason = "test harness: a failing test shows its command and output")
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let mut pipe = child.stdin.take().expect("a piped stdin");
        let bytes = self.stdin.take().unwrap_or_default();
        // A writer thread, so a child that writes much before it reads cannot dead-lock us; a
        // child that exits before reading everything is not our error.
        let writer = std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
        let out = child
            .wait_with_output()
            // phi-lint: allow(reason = "test harness: a failing test shows its command and output")
            .unwrap_or_else(|e| panic!("cannot wait for {program}: {e}"));
        let _ = writer.join();
        out
    }
}

/// What one run of a binary did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// Stdout, UTF-8.
    pub stdout: String,
    /// Stderr, UTF-8.
    pub stderr: String,
}

impl From<process::Output> for Run {
    /// Panics when the process was killed by a signal or wrote something that is not UTF-8:
    /// both are failures of the binary under test.
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
    /// The exit code.
    // An assertion is called for its panic; the returned `&Run` only lets a test chain on.
    #[allow(clippy::must_use_candidate)]
    pub fn assert_code(&self, code: i32) -> &Run {
        // phi-lint: allow(reason = "test harness: a failing test shows its command and output")
        assert_eq!(self.code, code, "{self}");
        self
    }

    /// The exit code, nothing on stderr, and stdout containing every one of `needles`.
    // An assertion is called for its panic; the returned `&Run` only lets a test chain on.
    #[allow(clippy::must_use_candidate)]
    pub fn assert_out(&self, code: i32, needles: &[&str]) -> &Run {
        self.assert_code(code);
        // phi-lint: allow(reason = "test harness: a failing test shows its command and output")
        assert_eq!(self.stderr, "", "{self}");
        for needle in needles {
            // phi-lint: allow(reason = "test harness: a failing test shows its command and output")
            assert!(
                self.stdout.contains(needle),
                "stdout lacks {needle:?}\n{self}"
            );
        }
        self
    }

    /// The exit code, nothing on stdout, and stderr containing every one of `needles`.
    // An assertion is called for its panic; the returned `&Run` only lets a test chain on.
    #[allow(clippy::must_use_candidate)]
    pub fn assert_err(&self, code: i32, needles: &[&str]) -> &Run {
        self.assert_code(code);
        // phi-lint: allow(reason = "test harness: a failing test shows its command and output")
        assert_eq!(self.stdout, "", "{self}");
        for needle in needles {
            // phi-lint: allow(reason = "test harness: a failing test shows its command and output")
            assert!(
                self.stderr.contains(needle),
                "stderr lacks {needle:?}\n{self}"
            );
        }
        self
    }

    /// The last line of stdout: a summary line.
    #[must_use]
    pub fn summary(&self) -> &str {
        self.stdout.lines().last().unwrap_or_default()
    }

    /// Stdout parsed as JSON.
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        // phi-lint: allow(reason = "test harness: a failing test shows its command and output")
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("JSON on stdout: {e}\n{self}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_with_stdin_and_reports_all_three() {
        let run = Cmd::new("sh", &["-c", "cat; echo oops >&2; exit 3"])
            .stdin("fed\n")
            .run();
        assert_eq!(run.code, 3);
        assert_eq!(run.stdout, "fed\n");
        assert_eq!(run.stderr, "oops\n");
        assert_eq!(run.summary(), "fed");
        assert!(
            run.to_string()
                .starts_with("exit code 3\n--- stdout ---\nfed\n")
        );
    }

    #[test]
    fn the_environment_is_clean_and_set() {
        let run = Cmd::new("sh", &["-c", "echo ${RUST_LOG:-unset} $A"])
            .env("A", "b")
            .run();
        run.assert_out(0, &["unset b"]);
        let json = Cmd::new("echo", &[r#"{"n":1}"#]).run().json();
        assert_eq!(json["n"], 1);
    }

    #[test]
    #[should_panic(expected = "stderr lacks")]
    fn a_missing_needle_fails() {
        Cmd::new("sh", &["-c", "echo no >&2; exit 2"])
            .run()
            .assert_err(2, &["yes"]);
    }
}
