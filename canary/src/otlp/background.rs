//! The receiver in-process: served on a thread of its own, on a free loopback port, until the
//! caller stops it once the service it watches has exited (and so flushed). What a pipeline and
//! a test that drive a service with `--otlp-endpoint` both need.

use std::io;
use std::net::SocketAddr;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::server::{Options, serve_until};
use crate::matcher::Matcher;
use crate::report::Report;

/// How long the receiver may take to bind.
const BIND_TIMEOUT: Duration = Duration::from_secs(30);

/// A receiver serving on a thread of its own until [`stop`](Self::stop).
///
/// ```
/// use phi_canary::otlp::Background;
/// use phi_canary::{Canary, Matcher, VariantSet};
///
/// let m = Matcher::new(vec![Canary::core()], VariantSet::All, None)?;
/// let receiver = Background::start(m, vec!["/mcp".to_owned()])?;
/// assert!(receiver.endpoint().starts_with("http://127.0.0.1:"));
/// let report = receiver.stop()?;
/// assert_eq!(report.exit_code(), 3, "no request arrived: inconclusive");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Background {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    thread: JoinHandle<io::Result<Report>>,
}

impl Background {
    /// Listens on a free loopback port with `matcher`, counting the spans named each of
    /// `span_names` ([`Receiver::count_spans`](super::Receiver::count_spans)); returns once it
    /// listens.
    pub fn start(matcher: Matcher, span_names: Vec<String>) -> io::Result<Background> {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (bound, address) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let options = Options {
                listen: "127.0.0.1:0".into(),
                idle: None,
                span_names,
            };
            serve_until(
                matcher,
                &options,
                &mut |addr| {
                    // The caller waits for it, or has given up (then nobody listens).
                    let _ = bound.send(addr);
                },
                async {
                    let _ = stopped.await;
                },
            )
        });
        match address.recv_timeout(BIND_TIMEOUT) {
            Ok(addr) => Ok(Background { addr, stop, thread }),
            // The thread ended before binding: its error says why.
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(match thread.join() {
                Ok(Err(e)) => e,
                Ok(Ok(_)) => io::Error::other("the OTLP receiver stopped before it listened"),
                Err(_) => io::Error::other("the OTLP receiver panicked"),
            }),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the OTLP receiver did not listen within {} s",
                    BIND_TIMEOUT.as_secs()
                ),
            )),
        }
    }

    /// The address it listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `--otlp-endpoint` for a service on this machine.
    #[must_use]
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops the receiver and gives its report.
    pub fn stop(self) -> io::Result<Report> {
        // The receiver may have stopped on its own (SIGTERM): then nobody listens.
        let _ = self.stop.send(());
        self.thread
            .join()
            .map_err(|_| io::Error::other("the OTLP receiver panicked"))?
    }
}
