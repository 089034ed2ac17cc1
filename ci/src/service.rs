//! `answers serve` as a child process of the pipeline: started on a free loopback port with a
//! marker nonce, its stdout and stderr captured to files, stopped with SIGTERM.

use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// How long the service may take to listen, and to stop.
const START_TIMEOUT: Duration = Duration::from_secs(60);
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// A running `answers serve`.
pub(crate) struct Service {
    child: Option<Child>,
    pub(crate) addr: SocketAddr,
    pub(crate) stdout: PathBuf,
}

/// How the service stopped.
#[derive(Debug)]
pub(crate) struct Stopped {
    /// Exit status 0 after SIGTERM, within the timeout.
    pub(crate) clean: bool,
    /// What happened, for the report.
    pub(crate) how: String,
}

impl Service {
    /// Starts `bin serve --db DB --listen 127.0.0.1:0` with `nonce` in the environment, and
    /// waits for the address it logs.
    pub(crate) fn start(bin: &Path, db: &Path, nonce: &str, dir: &Path) -> anyhow::Result<Service> {
        let stdout = dir.join("answers.stdout.log");
        let stderr = dir.join("answers.stderr.log");
        let child = Command::new(bin)
            .arg("serve")
            .arg("--db")
            .arg(db)
            .args(["--listen", "127.0.0.1:0"])
            .env("PHIGUARD_MARKER_NONCE", nonce)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(File::create(&stdout).context("cannot create the stdout log")?)
            .stderr(File::create(&stderr).context("cannot create the stderr log")?)
            .spawn()
            .with_context(|| format!("cannot start {}", bin.display()))?;
        let mut service = Service {
            child: Some(child),
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            stdout,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let text = std::fs::read_to_string(&service.stdout).unwrap_or_default();
            if let Some(addr) = listen_addr(&text) {
                service.addr = addr;
                return Ok(service);
            }
            if let Some(child) = service.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                bail!("answers serve exited before it listened ({status})");
            }
            if Instant::now() > deadline {
                bail!("answers serve did not listen within {START_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends SIGTERM and waits for the exit; kills it after the timeout.
    pub(crate) fn stop(mut self) -> anyhow::Result<Stopped> {
        let Some(mut child) = self.child.take() else {
            bail!("the service was already stopped");
        };
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .context("cannot run `kill`")?;
        if !sent.success() {
            let _ = child.kill();
            let _ = child.wait();
            bail!("`kill -TERM` failed ({sent})");
        }
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok(stopped(status));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(Stopped {
                    clean: false,
                    how: format!("did not stop within {STOP_TIMEOUT:?} of SIGTERM; killed"),
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
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

fn stopped(status: ExitStatus) -> Stopped {
    Stopped {
        clean: status.success(),
        how: format!("exited after SIGTERM ({status})"),
    }
}

/// The address from the service's `answers serving` log line.
fn listen_addr(stdout: &str) -> Option<SocketAddr> {
    stdout.lines().find_map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let fields = v.get("fields")?;
        if fields.get("message")?.as_str()? != "answers serving" {
            return None;
        }
        fields.get("listen_addr")?.as_str()?.parse().ok()
    })
}

/// The figures of the service's `answers stopped` line: requests served and the log filter's
/// counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ShutdownFigures {
    pub(crate) requests: u64,
    pub(crate) redacted: u64,
    pub(crate) cut: u64,
    pub(crate) scrubbed: u64,
    pub(crate) blocked: u64,
}

/// Reads the `answers stopped` line from the service's stdout (JSON lines).
pub(crate) fn shutdown_figures(stdout: &str) -> Option<ShutdownFigures> {
    stdout.lines().find_map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let f = v.get("fields")?;
        if f.get("message")?.as_str()? != "answers stopped" {
            return None;
        }
        let n = |k: &str| f.get(k).and_then(serde_json::Value::as_u64);
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
}
