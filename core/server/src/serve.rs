//! `answers serve`: [`router`] on a listener, until SIGINT or SIGTERM.
//!
//! The log says how many subjects there are and where the server listens at start, and per
//! request the route, the status and the duration: never a query string, a token or a value.
//!
//! Connections are served under [`Limits`] (read timeouts, a connection limit with load
//! shedding, a drain at shutdown), read from the environment: see [`Limits::from_env`].

use std::net::SocketAddr;
use std::path::Path;

use std::sync::Arc;

use answers_db::{Location, PgOptions};
use answers_store::StoreError;
use axum::Router;
use phi_marker::{MarkerKind, Nonce};

use crate::telemetry::Telemetry;
use crate::{AppState, PoolOptions, StorePool, router};

mod conn;

pub use self::conn::Limits;
use self::conn::LoopFigures;

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The runtime or the listener failed; the I/O error kind.
    #[error("cannot {op} ({kind:?})")]
    Io {
        /// What the server was doing.
        op: &'static str,
        /// The I/O error kind.
        kind: std::io::ErrorKind,
    },
}

/// Runs the server on the record at `db` until SIGINT or SIGTERM.
pub fn serve(db: &Location, listen: SocketAddr) -> Result<(), ServeError> {
    serve_with(db, listen, &ServeOptions::default())
}

/// Runs the server until SIGINT or SIGTERM, with the marker lines and the shutdown figures of
/// `options` (see [`ServeOptions`]).
pub fn serve_with(
    db: &Location,
    listen: SocketAddr,
    options: &ServeOptions,
) -> Result<(), ServeError> {
    let pool = StorePool::open_location(db, options.store, &options.pg, options.pool)?;
    let app = AppState::with_pool(pool, &options.allowed_hosts);
    let subject_count = app.pool().get()?.subjects()?.len();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ServeError::Io {
            op: "start the runtime",
            kind: e.kind(),
        })?;
    let counters = Arc::clone(&app);
    // The last handle on the store goes outside the runtime: a PostgreSQL client closes its
    // connection on its own runtime, which cannot start inside this one.
    let keep = Arc::clone(&app);
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| ServeError::Io {
                op: "listen",
                kind: e.kind(),
            })?;
        let bound = listener.local_addr().map_err(|e| ServeError::Io {
            op: "listen",
            kind: e.kind(),
        })?;
        let listen_addr = bound.to_string();
        if let (Some(telemetry), Some(nonce)) = (&options.telemetry, &options.marker) {
            telemetry.marker(nonce, MarkerKind::Start);
        }
        tracing::info!(subject_count, listen_addr = %listen_addr, "answers serving");
        if let Some(nonce) = &options.marker {
            nonce.emit(MarkerKind::Start).map_err(|e| ServeError::Io {
                op: "write the start marker",
                kind: e.kind(),
            })?;
        }
        let router = router(Arc::clone(&app));
        let router = match options.hook {
            Some(hook) => hook(router, db.sqlite_path().unwrap_or(Path::new(""))),
            None => router,
        };
        let limits = Limits::from_env();
        let figures = conn::run(listener, router, limits, shutdown()).await;
        app.end_streams();
        let LoopFigures {
            shed_count,
            abandoned_count,
        } = figures;
        if shed_count > 0 || abandoned_count > 0 {
            tracing::warn!(shed_count, abandoned_count, "answers drained under load");
        }
        let request_count = counters.request_count();
        match &options.filter_stats {
            Some(stats) => {
                let s = stats.snapshot();
                let (redacted_count, shape_failure_count, cut_count) =
                    (s.fields_redacted, s.shape_failures, s.messages_cut);
                let (scrubbed_count, blocked_count) = (s.errors_scrubbed, s.canaries_blocked);
                tracing::info!(
                    request_count,
                    redacted_count,
                    shape_failure_count,
                    cut_count,
                    scrubbed_count,
                    blocked_count,
                    "answers stopped"
                );
            }
            None => tracing::info!(request_count, "answers stopped"),
        }
        if let Some(telemetry) = &options.telemetry {
            flush(telemetry, options.marker.as_ref());
        }
        if let Some(nonce) = &options.marker {
            nonce.emit(MarkerKind::End).map_err(|e| ServeError::Io {
                op: "write the end marker",
                kind: e.kind(),
            })?;
        }
        Ok(())
    });
    drop(runtime);
    drop(keep);
    served
}

/// What `answers serve` adds around the service for a pipeline.
///
/// ```
/// use phi_marker::Nonce;
/// use answers_server::ServeOptions;
///
/// let options = ServeOptions {
///     marker: Some(Nonce::new("run-0001")?),
///     filter_stats: Some(phi_filter::PhiPolicy::default().stats()),
///     allowed_hosts: vec!["records.example.org".into()],
///     hook: None,
///     store: answers_db::OpenOptions { must_exist: true, ..Default::default() },
///     pool: answers_server::PoolOptions { size: 16, ..Default::default() },
///     pg: answers_db::PgOptions::default(),
///     telemetry: None,
/// };
/// assert!(options.marker.is_some());
/// # Ok::<(), phi_marker::NonceError>(())
/// ```
#[derive(Debug, Default, Clone)]
pub struct ServeOptions {
    /// Write the marker lines with this nonce on stdout and stderr: `start` once listening,
    /// `end` at a clean shutdown after the last log line (see `phi_marker`).
    pub marker: Option<Nonce>,
    /// The log filter's counters: logged at shutdown (`redacted_count`, `cut_count`, …) beside
    /// the number of requests served (`request_count`).
    pub filter_stats: Option<phi_filter::Stats>,
    /// Host names (or `host:port`) `/mcp` accepts in the `Host` header beside the loopback
    /// names: the names a deployment is reached by. The check guards against DNS rebinding.
    pub allowed_hosts: Vec<String>,
    /// Wraps the router before it serves, given the database file. `answers` never sets it; a
    /// pipeline instrument does (the leak drill adds its one leaking layer this way).
    pub hook: Option<RouterHook>,
    /// How the store's handles open the file: `answers serve` asks for a record that exists,
    /// and passes `--allow-shared-permissions` on.
    pub store: answers_db::OpenOptions,
    /// How many handles the pool keeps and how long a request waits for one
    /// (`--db-pool-size`, `--db-timeout`).
    pub pool: PoolOptions,
    /// How a `PostgreSQL` connection is opened and each statement bounded
    /// (`--db-connect-timeout`, `--db-statement-timeout`); unused on `SQLite`.
    pub pg: PgOptions,
    /// Export traces and logs (`answers serve --otlp-endpoint`, see [`crate::telemetry`]): the
    /// marker span and log record at start and at a clean shutdown, then a flush, before the
    /// `end` marker line.
    pub telemetry: Option<Telemetry>,
}

/// The end of the export at a clean shutdown: the `end` marker span and record after the last
/// log line, then both providers flushed. A flush that fails is logged (to standard output
/// only, the log export being stopped); the receiver then misses the `end` marker.
fn flush(telemetry: &Telemetry, marker: Option<&Nonce>) {
    if let Some(nonce) = marker {
        telemetry.marker(nonce, MarkerKind::End);
    }
    if let Err(e) = telemetry.shutdown() {
        tracing::warn!(error_type = %phi_filter::error_type(&e), "telemetry not flushed");
    }
}

/// A function that wraps the service's router, given the `SQLite` file it serves (an empty path
/// on `PostgreSQL`).
pub type RouterHook = fn(Router, &Path) -> Router;

async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
