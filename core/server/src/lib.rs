//! `answers-server`: the record over HTTP and the vocabulary server on stdio.
//!
//! - [`router`]: the service as an [`axum::Router`], for `answers serve` ([`serve_with`]) and
//!   for tests, which call it in-process (`tower::ServiceExt::oneshot`):
//!   - `GET /api/v1/health-indicators?…`: the REST rendering of `query_health_indicators`,
//!     readings only; `GET /api/v1/journal?…`: the same for the reported entries;
//!   - `POST /mcp` (and `/mcp/u/SECRET`): the MCP record server ([`mcp::RecordMcp`]);
//!   - `GET /healthz`: `ok`, without authentication.
//! - [`Authenticated`]: the one authentication, an extractor REST and `/mcp` both use.
//! - [`StorePool`]: a handle of the store per request, bounded ([`PoolOptions`]), on one
//!   `SQLite` file or `PostgreSQL` database, instead of one mutex.
//! - [`mcp::VocabMcp`]: the database-free vocabulary server (`answers mcp`, stdio).
//! - [`chat`]: the record tools bound for a governed chat turn (`answers-governance`).
//!
//! Per request the log names the route, the status and the duration: never a query string, a
//! token or a value. Each record request runs in a span of that route's name (its only field
//! the status), which [`telemetry`] exports as a trace.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use answers_db::OpenOptions;
use answers_store::StoreError;
use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use rmcp::transport::StreamableHttpServerConfig;
use tracing::Instrument as _;
use tracing::field::Empty;

mod auth;
pub mod chat;
pub mod mcp;
mod pool;
mod rest;
mod serve;
pub mod telemetry;

pub use self::auth::{Authenticated, Refusal};
pub use self::pool::{PoolOptions, PooledStore, StorePool, VALIDATE_AFTER};
pub use self::serve::{Limits, RouterHook, ServeError, ServeOptions, serve, serve_with};

// What the `answers` command reaches through the server, so that the binary depends on the
// server and the demo only (ARCHITECTURE.md, `core/src`): where a record lives and how it is
// opened (`db`), the record it opens, seeds, imports into, copies and queries, the registry it
// prints and calls, the renderings it prints, and the marker nonce of `serve`.
pub use answers_db as db;
pub use answers_fhir as fhir;
pub use answers_protocol as protocol;
pub use answers_store as store;
pub use answers_tools as tools;
pub use phi_marker::Nonce;

/// What every request of the service shares: the store's handles, the request count, and the
/// MCP transport's configuration (whose token ends its streams at shutdown).
#[derive(Debug)]
pub struct AppState {
    pool: Arc<StorePool>,
    request_count: AtomicU64,
    mcp_config: StreamableHttpServerConfig,
}

impl AppState {
    /// The state of a service on the database file `db`, reached by the loopback names and
    /// `allowed_hosts` (the `Host` names `/mcp` accepts, against DNS rebinding).
    pub fn open(db: &Path, allowed_hosts: &[String]) -> Result<Arc<AppState>, StoreError> {
        AppState::open_with(db, allowed_hosts, OpenOptions::default())
    }

    /// [`AppState::open`], the store's handles opened with `store` (see [`OpenOptions`]).
    pub fn open_with(
        db: &Path,
        allowed_hosts: &[String],
        store: OpenOptions,
    ) -> Result<Arc<AppState>, StoreError> {
        Ok(AppState::with_pool(
            StorePool::open_with(db, store)?,
            allowed_hosts,
        ))
    }

    /// The state of a service on the handles of `pool`, reached by the loopback names and
    /// `allowed_hosts`.
    #[must_use]
    pub fn with_pool(pool: Arc<StorePool>, allowed_hosts: &[String]) -> Arc<AppState> {
        Arc::new(AppState {
            pool,
            request_count: AtomicU64::new(0),
            mcp_config: mcp::http::config(allowed_hosts),
        })
    }

    /// The store's handles.
    #[must_use]
    pub fn pool(&self) -> &Arc<StorePool> {
        &self.pool
    }

    /// How many requests the record routes have served (`/healthz` is not counted).
    #[must_use]
    pub fn request_count(&self) -> u64 {
        self.request_count.load(Ordering::Relaxed)
    }

    /// Ends the open MCP streams, so a graceful shutdown does not wait on them.
    pub fn end_streams(&self) {
        self.mcp_config.cancellation_token.cancel();
    }
}

/// The service: every route, authenticated where it reads a record, each record route counted
/// and logged by its pattern (never its path, which can hold a URL secret).
pub fn router(state: Arc<AppState>) -> Router {
    let rest = Router::new()
        .route("/api/v1/health-indicators", get(rest::health_indicators))
        .route_layer(middleware::from_fn_with_state(Arc::clone(&state), log_rest));
    let journal = Router::new()
        .route("/api/v1/journal", get(rest::journal))
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            log_journal,
        ));
    let mcp = mcp::http::routes(&state)
        .route_layer(middleware::from_fn_with_state(Arc::clone(&state), log_mcp));
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .merge(rest)
        .merge(journal)
        .merge(mcp)
        .with_state(state)
}

/// Counts a request and runs it; its status and duration in milliseconds.
async fn counted(state: &AppState, request: Request, next: Next) -> (Response, u16, u128) {
    let started = Instant::now();
    state.request_count.fetch_add(1, Ordering::Relaxed);
    let response = next.run(request).await;
    let status = response.status().as_u16();
    (response, status, started.elapsed().as_millis())
}

/// Runs the request inside `span` (a span per request, exported as a trace with
/// `--otlp-endpoint`), which gets its status; the log line comes after it, outside it.
async fn spanned(
    state: &AppState,
    span: tracing::Span,
    request: Request,
    next: Next,
) -> (Response, u16, u128) {
    let (response, http_status, elapsed_ms) =
        counted(state, request, next).instrument(span.clone()).await;
    span.record("http_status", http_status);
    (response, http_status, elapsed_ms)
}

// Each route's middleware runs the request in a span named after the route, then writes one
// log line with its status and duration. The name is the route's pattern (tracing wants it as a
// literal), never the request's path, which for `/mcp/u/SECRET` carries a secret.

async fn log_rest(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let span = tracing::info_span!("GET /api/v1/health-indicators", http_status = Empty);
    let (response, http_status, elapsed_ms) = spanned(&state, span, request, next).await;
    tracing::info!(http_status, elapsed_ms, "GET /api/v1/health-indicators");
    response
}

async fn log_journal(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let span = tracing::info_span!("GET /api/v1/journal", http_status = Empty);
    let (response, http_status, elapsed_ms) = spanned(&state, span, request, next).await;
    tracing::info!(http_status, elapsed_ms, "GET /api/v1/journal");
    response
}

async fn log_mcp(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let span = tracing::info_span!("/mcp", http_status = Empty);
    let (response, http_status, elapsed_ms) = spanned(&state, span, request, next).await;
    tracing::info!(http_status, elapsed_ms, "/mcp");
    response
}

#[cfg(test)]
mod tests;
