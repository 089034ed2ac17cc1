//! What phiguard's tests and pipelines share, once:
//!
//! - [`Cmd`] and [`Run`]: run a binary and assert on its exit code, stdout and stderr together;
//! - [`Service`]: `answers serve` as a child process, its address read from its log line, its
//!   stdout and stderr captured to files, stopped with SIGTERM;
//! - [`http`]: a blocking HTTP/1.1 client (ureq) for loopback calls; a non-2xx status is an
//!   answer, not an error;
//! - `sarif` (feature `sarif`): the official SARIF 2.1.0 schema, for the crates that write SARIF.
//!
//! ```no_run
//! use phi_testkit::{Service, Spawn, http};
//!
//! let dir = std::env::temp_dir();
//! let service = Service::start(&Spawn::serve("target/debug/answers".as_ref(), "record.db".as_ref()), &dir)?;
//! let answer = http::get(service.addr, "/healthz", None)?;
//! assert_eq!(answer.status, 200);
//! assert!(service.stop()?.clean);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cmd;
pub mod http;
#[cfg(feature = "sarif")]
pub mod sarif;
mod service;

pub use cmd::{Cmd, Run};
pub use service::{
    Service, ServiceError, ShutdownFigures, Spawn, Stopped, listen_addr, shutdown_figures,
};
