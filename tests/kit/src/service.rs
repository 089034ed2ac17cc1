//! The service under test: `answers serve` as a child process, started on a free loopback
//! port, its stdout and stderr captured to files, its address read from its `answers serving`
//! log line, stopped with SIGTERM.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long the service may take to listen.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long it may take to stop after SIGTERM, before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the log and the child are looked at while waiting.
const POLL: Duration = Duration::from_millis(50);

/// How to start the service: the binary, its arguments and its environment.
#[derive(Debug, Clone)]
pub struct Spawn {
    bin: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, Option<OsString>)>,
}

impl Spawn {
    /// `bin serve --db DB --listen 127.0.0.1:0`, with `RUST_LOG` and the token variables
    /// (`ANSWERS_TOKENS`, `ANSWERS_TOKENS_FILE`) removed, so the developer's shell changes
    /// nothing.
    #[must_use]
    pub fn serve(bin: &Path, db: &Path) -> Spawn {
        let mut spawn = Spawn {
            bin: bin.to_path_buf(),
            args: Vec::new(),
            env: Vec::new(),
        };
        spawn
            .args
            .extend(["serve".into(), "--db".into(), db.into()]);
        spawn.args.extend(["--listen".into(), "127.0.0.1:0".into()]);
        for name in ["RUST_LOG", "ANSWERS_TOKENS", "ANSWERS_TOKENS_FILE"] {
            spawn.env.push((name.into(), None));
        }
        spawn
    }

    /// Adds an argument.
    #[must_use]
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Spawn {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Sets a variable.
    #[must_use]
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Spawn {
        self.env
            .push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }
}

/// A running service; killed if dropped before [`Service::stop`].
#[derive(Debug)]
pub struct Service {
    child: Option<Child>,
    /// The address it listens on, from its log line.
    pub addr: SocketAddr,
    /// The file its stdout goes to.
    pub stdout: PathBuf,
    /// The file its stderr goes to.
    pub stderr: PathBuf,
}

/// How the service stopped, and everything it wrote.
#[derive(Debug)]
pub struct Stopped {
    /// Exit status 0 after SIGTERM, within the timeout.
    pub clean: bool,
    /// What happened, for a report: a status, or that it was killed.
    pub how: String,
    /// All of its stdout.
    pub stdout: String,
    /// All of its stderr.
    pub stderr: String,
}

/// Why the service could not be started or stopped. Messages name paths and statuses, never
/// the service's output.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A file or the process could not be created, read or waited for.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// It exited before it logged its address.
    #[error("the service exited before it listened ({0})")]
    Exited(ExitStatus),
    /// It logged no address in time.
    #[error("the service did not listen within {0:?}")]
    NoAddress(Duration),
    /// SIGTERM could not be sent.
    #[error("`kill -TERM` failed ({0})")]
    Signal(ExitStatus),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> ServiceError {
    let what = what.into();
    move |source| ServiceError::Io { what, source }
}

impl Service {
    /// Starts `spawn` with stdout and stderr captured to `DIR/answers.stdout.log` and
    /// `DIR/answers.stderr.log`, and waits until it logs the address it listens on.
    pub fn start(spawn: &Spawn, dir: &Path) -> Result<Service, ServiceError> {
        let stdout = dir.join("answers.stdout.log");
        let stderr = dir.join("answers.stderr.log");
        let mut cmd = Command::new(&spawn.bin);
        cmd.args(&spawn.args);
        for (key, value) in &spawn.env {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(File::create(&stdout).map_err(io("cannot create the stdout log"))?)
            .stderr(File::create(&stderr).map_err(io("cannot create the stderr log"))?)
            .spawn()
            .map_err(io(format!("cannot start {}", spawn.bin.display())))?;
        let mut service = Service {
            child: Some(child),
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            stdout,
            stderr,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let text = std::fs::read_to_string(&service.stdout).unwrap_or_default();
            if let Some(addr) = listen_addr(&text) {
                service.addr = addr;
                return Ok(service);
            }
            if let Some(child) = service.child.as_mut()
                && let Some(status) = child
                    .try_wait()
                    .map_err(io("cannot wait for the service"))?
            {
                return Err(ServiceError::Exited(status));
            }
            if Instant::now() > deadline {
                return Err(ServiceError::NoAddress(START_TIMEOUT));
            }
            std::thread::sleep(POLL);
        }
    }

    /// What it has written to stdout so far.
    #[must_use]
    pub fn stdout_text(&self) -> String {
        std::fs::read_to_string(&self.stdout).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the exit; kills it after the timeout. Then reads what it
    /// wrote.
    pub fn stop(mut self) -> Result<Stopped, ServiceError> {
        let mut child = self.child.take().expect("a service is stopped once");
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        if !matches!(sent, Ok(status) if status.success()) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(match sent {
                Ok(status) => ServiceError::Signal(status),
                Err(e) => io("cannot run `kill`")(e),
            });
        }
        let deadline = Instant::now() + STOP_TIMEOUT;
        let (clean, how) = loop {
            if let Some(status) = child
                .try_wait()
                .map_err(io("cannot wait for the service"))?
            {
                break (status.success(), format!("exited after SIGTERM ({status})"));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break (
                    false,
                    format!("did not stop within {STOP_TIMEOUT:?} of SIGTERM; killed"),
                );
            }
            std::thread::sleep(POLL);
        };
        let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
        Ok(Stopped {
            clean,
            how,
            stdout: read(&self.stdout),
            stderr: read(&self.stderr),
        })
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The JSON log lines of `text` whose `fields.message` is `message`.
fn lines_with<'a>(text: &'a str, message: &'a str) -> impl Iterator<Item = serde_json::Value> + 'a {
    text.lines().filter_map(move |line| {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        (v.pointer("/fields/message")?.as_str()? == message).then_some(v)
    })
}

/// The address from the service's `answers serving` log line (JSON lines on stdout).
#[must_use]
pub fn listen_addr(stdout: &str) -> Option<SocketAddr> {
    lines_with(stdout, "answers serving")
        .find_map(|v| v.pointer("/fields/listen_addr")?.as_str()?.parse().ok())
}

/// The figures of the service's `answers stopped` line: requests served and the log filter's
/// counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShutdownFigures {
    /// Requests served.
    pub requests: u64,
    /// Fields the log filter redacted.
    pub redacted: u64,
    /// Messages it cut.
    pub cut: u64,
    /// Errors it scrubbed.
    pub scrubbed: u64,
    /// Events it blocked.
    pub blocked: u64,
}

/// Reads the `answers stopped` line from the service's stdout (JSON lines).
#[must_use]
pub fn shutdown_figures(stdout: &str) -> Option<ShutdownFigures> {
    lines_with(stdout, "answers stopped").find_map(|v| {
        let n = |k: &str| v.pointer(&format!("/fields/{k}"))?.as_u64();
        Some(ShutdownFigures {
            requests: n("request_count")?,
            redacted: n("redacted_count")?,
            cut: n("cut_count").unwrap_or(0),
            scrubbed: n("scrubbed_count").unwrap_or(0),
            blocked: n("blocked_count").unwrap_or(0),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_address_and_the_shutdown_figures() {
        let log = r#"{"level":"INFO","fields":{"message":"answers serving","subject_count":2,"listen_addr":"127.0.0.1:41234"}}
phiguard-marker start abcdefgh
not json
{"level":"INFO","fields":{"message":"answers stopped","request_count":37,"redacted_count":2,"shape_failure_count":0,"cut_count":1,"scrubbed_count":0,"blocked_count":0}}
"#;
        assert_eq!(listen_addr(log), Some("127.0.0.1:41234".parse().unwrap()));
        let f = shutdown_figures(log).unwrap();
        assert_eq!((f.requests, f.redacted, f.cut), (37, 2, 1));
        assert_eq!(listen_addr("nothing"), None);
        assert_eq!(
            shutdown_figures("{\"fields\":{\"message\":\"answers stopped\"}}"),
            None
        );
    }

    #[test]
    fn a_service_that_never_listens_is_an_error() {
        let dir = std::env::temp_dir().join(format!("phi-testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let spawn = Spawn {
            bin: "sh".into(),
            args: vec!["-c".into(), "echo not-an-address; exit 4".into()],
            env: Vec::new(),
        };
        let err = Service::start(&spawn, &dir).unwrap_err();
        assert!(
            matches!(err, ServiceError::Exited(s) if s.code() == Some(4)),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn sigterm_stops_a_service_and_its_output_is_returned() {
        let dir = std::env::temp_dir().join(format!("phi-testkit-stop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let line = r#"{"fields":{"message":"answers serving","listen_addr":"127.0.0.1:9"}}"#;
        let script = format!(
            "trap 'echo bye >&2; exit 0' TERM; echo '{line}'; while :; do sleep 0.05; done"
        );
        let spawn = Spawn {
            bin: "sh".into(),
            args: vec!["-c".into(), script.into()],
            env: Vec::new(),
        };
        let service = Service::start(&spawn, &dir).unwrap();
        assert_eq!(service.addr.port(), 9);
        let stopped = service.stop().unwrap();
        assert!(stopped.clean, "{}", stopped.how);
        assert_eq!(stopped.stderr, "bye\n");
        assert!(stopped.stdout.contains("answers serving"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
