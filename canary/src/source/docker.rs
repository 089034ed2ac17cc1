//! A Docker or Podman container's logs, through the `docker` or `podman` CLI (Podman's CLI
//! answers the same `inspect` template and `logs` call; its drivers differ, see
//! [`Engine::readable_drivers`]).
//!
//! 1. `docker inspect` reads the logging driver, its options, `Config.Tty` and the state, with a
//!    `--format` template that asks for those fields only (never `Config.Env`).
//! 2. A driver that cannot give its logs back completely is refused: only `json-file`, `local`
//!    and `journald` are read. Every other driver (`syslog`, `fluentd`, `awslogs`, `gelf`, …) is
//!    readable only through Docker's dual-logging cache, a ring buffer that drops old lines, and
//!    `none` keeps nothing. `mode=non-blocking` and a still-running container are warnings.
//! 3. `docker logs CONTAINER`, never with `-t` or `--details` (which would put a timestamp in the
//!    middle of a canary split at a 16 KiB boundary) and never `--follow`. Its stdout and stderr
//!    are the container's stdout and stderr, read as separate streams concurrently. A TTY
//!    container has one merged stream: its stdout is reported as `tty`.
//! 4. The exit status: a daemon error reported in-band after the logs began ("error from daemon
//!    in stream") makes `docker logs` exit non-zero, which fails the source. Its message is not
//!    shown, because it shares stderr with the container's log.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::process::{Child, Command, ExitStatus, Stdio};

use serde::Deserialize;

use super::{Opened, ReadChunks, Source, SourceError, Stream};

/// The drivers whose logs `docker logs` gives back completely.
pub const READABLE_DRIVERS: [&str; 3] = ["json-file", "local", "journald"];

/// The drivers whose logs `podman logs` gives back completely: `k8s-file` (Podman's default,
/// which `json-file` also selects) and `journald`. `passthrough` hands the streams to whoever
/// started the container and keeps nothing; `none` keeps nothing.
pub const PODMAN_READABLE_DRIVERS: [&str; 3] = ["k8s-file", "json-file", "journald"];

/// The container engine whose CLI is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// `docker`.
    Docker,
    /// `podman`.
    Podman,
}

impl Engine {
    /// The CLI's name, the source's kind and its prefix (`docker:NAME`, `podman:NAME`).
    #[must_use]
    pub fn cli(self) -> &'static str {
        match self {
            Engine::Docker => "docker",
            Engine::Podman => "podman",
        }
    }

    /// The logging drivers whose logs the engine gives back completely.
    #[must_use]
    pub fn readable_drivers(self) -> &'static [&'static str] {
        match self {
            Engine::Docker => &READABLE_DRIVERS,
            Engine::Podman => &PODMAN_READABLE_DRIVERS,
        }
    }
}

/// Only the fields the checks need, as one JSON object.
const INSPECT_FORMAT: &str = concat!(
    r#"{"driver":{{json .HostConfig.LogConfig.Type}},"#,
    r#""options":{{json .HostConfig.LogConfig.Config}},"#,
    r#""tty":{{json .Config.Tty}},"status":{{json .State.Status}}}"#,
);

/// A container, by name or id.
///
/// ```
/// use phi_canary::source::{DockerSource, Source};
///
/// let web = DockerSource::new("web-1")?;
/// assert_eq!((web.name(), web.kind()), ("docker:web-1", "docker"));
/// assert!(DockerSource::new("--rm").is_err());
/// # Ok::<(), phi_canary::source::SourceError>(())
/// ```
pub struct DockerSource {
    engine: Engine,
    container: String,
    name: String,
    program: OsString,
    child: Option<Child>,
}

/// What `docker inspect` told us.
#[derive(Debug, Deserialize)]
struct Inspect {
    driver: String,
    #[serde(default)]
    options: Option<BTreeMap<String, String>>,
    tty: bool,
    status: String,
}

impl DockerSource {
    /// The Docker container `container`: a name or id, `[A-Za-z0-9][A-Za-z0-9_.-]*`.
    pub fn new(container: &str) -> Result<DockerSource, SourceError> {
        DockerSource::of(Engine::Docker, container)
    }

    /// The Podman container `container`, read through the `podman` CLI.
    ///
    /// ```
    /// use phi_canary::source::{DockerSource, Source};
    ///
    /// let web = DockerSource::podman("web-1")?;
    /// assert_eq!((web.name(), web.kind()), ("podman:web-1", "podman"));
    /// # Ok::<(), phi_canary::source::SourceError>(())
    /// ```
    pub fn podman(container: &str) -> Result<DockerSource, SourceError> {
        DockerSource::of(Engine::Podman, container)
    }

    /// The container `container` of `engine`.
    pub fn of(engine: Engine, container: &str) -> Result<DockerSource, SourceError> {
        let mut bytes = container.bytes();
        let valid = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
            && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        if !valid || container.len() > 128 {
            return Err(SourceError::Container(container.to_owned()));
        }
        Ok(DockerSource {
            engine,
            container: container.to_owned(),
            name: format!("{}:{container}", engine.cli()),
            program: OsString::from(engine.cli()),
            child: None,
        })
    }

    /// Runs `program` instead of the `docker` or `podman` found on `PATH` (for a wrapper).
    #[must_use]
    pub fn program(mut self, program: impl Into<OsString>) -> DockerSource {
        self.program = program.into();
        self
    }

    fn program_name(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    fn inspect(&self) -> Result<Inspect, SourceError> {
        let out = Command::new(&self.program)
            .args(["inspect", "--type", "container", "--format", INSPECT_FORMAT])
            .arg(&self.container)
            .stdin(Stdio::null())
            .output()
            .map_err(|error| SourceError::Spawn {
                program: self.program_name(),
                error,
            })?;
        if !out.status.success() {
            // inspect's stderr holds the CLI's own message ("No such container"), never logs.
            let said = String::from_utf8_lossy(&out.stderr);
            let first = said.lines().map(str::trim).find(|l| !l.is_empty());
            return Err(SourceError::Failed {
                command: format!("{} inspect {}", self.engine.cli(), self.container),
                status: describe(out.status),
                detail: first.map_or_else(String::new, |l| format!(": {}", clip(l, 200))),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(text.trim()).map_err(|e| SourceError::Inspect(e.to_string()))
    }
}

impl Source for DockerSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        self.engine.cli()
    }

    fn open(&mut self) -> Result<Opened, SourceError> {
        let inspect = self.inspect()?;
        let warnings = check(self.engine, &inspect)?;
        let mut child = Command::new(&self.program)
            .arg("logs")
            .arg(&self.container)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| SourceError::Spawn {
                program: self.program_name(),
                error,
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        self.child = Some(child);
        let streams = if inspect.tty {
            // A TTY merges the container's streams into docker's stdout; docker's own stderr
            // then carries only its errors, but is scanned all the same.
            vec![
                Stream {
                    name: "tty",
                    expects_markers: true,
                    chunks: Box::new(ReadChunks::new(stdout)),
                },
                Stream {
                    name: "stderr",
                    expects_markers: false,
                    chunks: Box::new(ReadChunks::new(stderr)),
                },
            ]
        } else {
            vec![
                Stream {
                    name: "stdout",
                    expects_markers: true,
                    chunks: Box::new(ReadChunks::new(stdout)),
                },
                Stream {
                    name: "stderr",
                    expects_markers: true,
                    chunks: Box::new(ReadChunks::new(stderr)),
                },
            ]
        };
        Ok(Opened { streams, warnings })
    }

    fn finish(&mut self) -> Result<(), SourceError> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let status = child.wait().map_err(|error| SourceError::Spawn {
            program: self.program_name(),
            error,
        })?;
        if status.success() {
            return Ok(());
        }
        Err(SourceError::Failed {
            command: format!("{} logs {}", self.engine.cli(), self.container),
            status: describe(status),
            detail: "; its message is not shown: it shares stderr with the container's log"
                .to_owned(),
        })
    }
}

/// Refuses a driver that cannot be read back; returns the warnings.
fn check(engine: Engine, inspect: &Inspect) -> Result<Vec<String>, SourceError> {
    let driver = inspect.driver.as_str();
    if !engine.readable_drivers().contains(&driver) {
        let why = if driver == "none" {
            "it keeps no logs"
        } else if engine == Engine::Podman {
            if driver == "passthrough" {
                "it hands the streams to whoever started the container and keeps nothing"
            } else {
                "podman gives back only k8s-file, json-file and journald logs"
            }
        } else {
            "docker gives other drivers' logs back only from its dual-logging cache, which \
             drops old lines; run the container with json-file, local or journald"
        };
        return Err(SourceError::Driver {
            driver: clip(driver, 64),
            why,
        });
    }
    let mut warnings = Vec::new();
    let options = inspect.options.clone().unwrap_or_default();
    if options.get("mode").map(String::as_str) == Some("non-blocking") {
        warnings.push(
            "logging mode is non-blocking: docker drops lines when its buffer is full, so a \
             leak can be missing from the log; run the container with --log-opt mode=blocking"
                .to_owned(),
        );
    }
    if matches!(inspect.status.as_str(), "running" | "restarting" | "paused") {
        warnings.push(format!(
            "the container is {}: lines it writes after this read are not scanned; stop it \
             first, or check with --expect-marker that its end marker was read",
            clip(&inspect.status, 32)
        ));
    }
    Ok(warnings)
}

fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_owned(),
    }
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn clip(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inspect(json: &str) -> Inspect {
        serde_json::from_str(json).expect("inspect JSON")
    }

    #[test]
    fn drivers_are_refused_or_accepted_with_warnings() {
        let ok = inspect(r#"{"driver":"json-file","options":{},"tty":false,"status":"exited"}"#);
        assert_eq!(
            check(Engine::Docker, &ok).expect("readable"),
            Vec::<String>::new()
        );
        let none = inspect(r#"{"driver":"none","options":null,"tty":false,"status":"exited"}"#);
        assert_eq!(
            check(Engine::Docker, &none)
                .expect_err("refused")
                .to_string(),
            "logging driver `none` cannot be read back: it keeps no logs"
        );
        let syslog = inspect(r#"{"driver":"syslog","options":{},"tty":true,"status":"exited"}"#);
        assert!(check(Engine::Docker, &syslog).is_err());
        let lossy = inspect(
            r#"{"driver":"local","options":{"mode":"non-blocking"},"tty":false,"status":"running"}"#,
        );
        let warnings = check(Engine::Docker, &lossy).expect("readable");
        assert_eq!(warnings.len(), 2);
        assert!(warnings[0].starts_with("logging mode is non-blocking"));
        assert!(warnings[1].starts_with("the container is running"));
    }

    #[test]
    fn podman_reads_its_own_drivers_and_refuses_passthrough() {
        let k8s = inspect(r#"{"driver":"k8s-file","options":null,"tty":false,"status":"exited"}"#);
        assert!(check(Engine::Podman, &k8s).is_ok());
        assert!(check(Engine::Docker, &k8s).is_err(), "not a docker driver");
        let pass =
            inspect(r#"{"driver":"passthrough","options":null,"tty":false,"status":"exited"}"#);
        assert!(
            check(Engine::Podman, &pass)
                .expect_err("refused")
                .to_string()
                .contains("keeps nothing")
        );
        let local = inspect(r#"{"driver":"local","options":{},"tty":false,"status":"exited"}"#);
        assert!(
            check(Engine::Podman, &local).is_err(),
            "not a podman driver"
        );
    }

    #[test]
    fn the_inspect_format_asks_for_four_fields_only() {
        assert!(!INSPECT_FORMAT.contains("Env"));
        for field in [".HostConfig.LogConfig.Type", ".Config.Tty", ".State.Status"] {
            assert!(INSPECT_FORMAT.contains(field));
        }
    }
}
