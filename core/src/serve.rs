//! `answers serve`: the record over HTTP.
//!
//! - `GET /api/v1/health-indicators?indicators=…&view=…&start=…&end=…` answers with the REST
//!   rendering of `query_health_indicators`. Repeated `keywords`/`indicators` make a list.
//! - Every request is authenticated by a per-subject bearer token (`Authorization: Bearer …`),
//!   checked against the store (tokens are stored hashed, never logged).
//! - `POST /mcp` (and `/mcp/u/SECRET`) is the MCP record server ([`crate::mcp::RecordMcp`]),
//!   authenticated the same way or by a personal URL secret.
//! - `GET /healthz` answers `ok` without authentication.
//!
//! The log says how many subjects there are and where the server listens at start, and per
//! request the route, the status and the duration: never a query string, a token or a value.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

mod mcp;

use crate::store::{Store, StoreError};
use crate::{Envelope, ErrorKind, Status};
use phi_marker::{MarkerKind, Nonce};

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

struct App {
    store: Arc<Mutex<Store>>,
    request_count: AtomicU64,
}

/// Runs the server until SIGINT or SIGTERM.
pub fn serve(db: &Path, listen: SocketAddr) -> Result<(), ServeError> {
    serve_with(db, listen, &ServeOptions::default())
}

/// Runs the server until SIGINT or SIGTERM, with the marker lines and the shutdown figures of
/// `options` (see [`ServeOptions`]).
pub fn serve_with(db: &Path, listen: SocketAddr, options: &ServeOptions) -> Result<(), ServeError> {
    let store = Store::open(db)?;
    let subject_count = store.subjects()?.len();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ServeError::Io {
            op: "start the runtime",
            kind: e.kind(),
        })?;
    let app = Arc::new(App {
        store: Arc::new(Mutex::new(store)),
        request_count: AtomicU64::new(0),
    });
    let (mcp_routes, end_mcp_streams) = mcp::routes(Arc::clone(&app), &options.allowed_hosts);
    let counters = Arc::clone(&app);
    runtime.block_on(async move {
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
        tracing::info!(subject_count, listen_addr = %listen_addr, "answers serving");
        if let Some(nonce) = &options.marker {
            nonce.emit(MarkerKind::Start).map_err(|e| ServeError::Io {
                op: "write the start marker",
                kind: e.kind(),
            })?;
        }
        let router = Router::new()
            .route("/healthz", get(|| async { "ok" }))
            .route("/api/v1/health-indicators", get(health_indicators))
            .with_state(app)
            .merge(mcp_routes);
        let router = match options.hook {
            Some(hook) => hook(router, db),
            None => router,
        };
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown().await;
                end_mcp_streams();
            })
            .await
            .map_err(|e| ServeError::Io {
                op: "serve",
                kind: e.kind(),
            })?;
        let request_count = counters.request_count.load(Ordering::Relaxed);
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
        if let Some(nonce) = &options.marker {
            nonce.emit(MarkerKind::End).map_err(|e| ServeError::Io {
                op: "write the end marker",
                kind: e.kind(),
            })?;
        }
        Ok(())
    })
}

/// What `answers serve` adds around the service for a pipeline.
///
/// ```
/// use phi_marker::Nonce;
/// use answers::serve::ServeOptions;
///
/// let options = ServeOptions {
///     marker: Some(Nonce::new("run-0001")?),
///     filter_stats: Some(phi_filter::PhiPolicy::default().stats()),
///     allowed_hosts: vec!["records.example.org".into()],
///     hook: None,
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
}

/// A function that wraps the service's router, given the database file it serves.
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

async fn health_indicators(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let started = Instant::now();
    app.request_count.fetch_add(1, Ordering::Relaxed);
    let args = query_args(query.as_deref().unwrap_or(""));
    let token = bearer(&headers).map(ToOwned::to_owned);
    let outcome = tokio::task::spawn_blocking(move || -> Result<Envelope, Refusal> {
        let store = app.store.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(token) = token else {
            return Err(Refusal::Unauthorized);
        };
        let subject = store
            .subject_for_token(&token)
            .map_err(|_| Refusal::Unavailable)?
            .ok_or(Refusal::Unauthorized)?;
        Ok(crate::tools::readings::query_health_indicators_within(
            &store,
            &subject,
            &args,
            crate::tools::readings::RowBudget::REST,
        ))
    })
    .await
    .unwrap_or(Err(Refusal::Unavailable));
    let response = match outcome {
        Ok(envelope) => {
            let status = http_status(&envelope);
            (status, axum::Json(crate::render_rest(&envelope))).into_response()
        }
        Err(refusal) => refusal.into_response(),
    };
    let elapsed_ms = started.elapsed().as_millis();
    let http_status = response.status().as_u16();
    tracing::info!(http_status, elapsed_ms, "GET /api/v1/health-indicators");
    response
}

/// Why a request got no envelope at all.
pub(crate) enum Refusal {
    Unauthorized,
    Unavailable,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, error) = match self {
            Refusal::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            Refusal::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "store_unavailable"),
        };
        let mut r = (status, axum::Json(serde_json::json!({ "error": error }))).into_response();
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
        }
        r
    }
}

/// The HTTP status of an envelope: a refusal is the caller's to fix, a fault is ours.
fn http_status(e: &Envelope) -> StatusCode {
    if e.status() != Status::Error {
        return StatusCode::OK;
    }
    match e.error_kind() {
        Some(ErrorKind::InvalidArguments) => StatusCode::BAD_REQUEST,
        Some(ErrorKind::Unauthorized) => StatusCode::UNAUTHORIZED,
        Some(ErrorKind::NotFound) => StatusCode::NOT_FOUND,
        Some(ErrorKind::StoreUnavailable | ErrorKind::Timeout) => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?;
    let token = token.trim();
    (!token.is_empty()).then_some(token)
}

/// The query string as tool arguments: `keywords` and `indicators` collect into lists (repeat
/// the key, or give one comma-separated value); every other key is a string. Unknown keys pass
/// through, so the tool refuses them by name.
fn query_args(query: &str) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        let k = k.into_owned();
        let v = v.into_owned();
        if k == "keywords" || k == "indicators" {
            match map
                .entry(k)
                .or_insert_with(|| serde_json::Value::Array(Vec::new()))
            {
                serde_json::Value::Array(list) => list.push(serde_json::Value::String(v)),
                other => *other = serde_json::Value::String(v),
            }
        } else {
            map.insert(k, serde_json::Value::String(v));
        }
    }
    // A single value keeps the lenient comma splitting of a bare string.
    for key in ["keywords", "indicators"] {
        if let Some(serde_json::Value::Array(list)) = map.get(key)
            && list.len() == 1
        {
            let only = list[0].clone();
            map.insert(key.to_owned(), only);
        }
    }
    serde_json::Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_become_tool_arguments() {
        let a = query_args(
            "indicators=Resting%20Heart%20Rate&indicators=Steps&view=stats&start=2026-01-01",
        );
        assert_eq!(
            a,
            serde_json::json!({"indicators": ["Resting Heart Rate", "Steps"], "view": "stats", "start": "2026-01-01"})
        );
        let b = query_args("keywords=LDL%2C%20HDL&kind=medications");
        assert_eq!(
            b,
            serde_json::json!({"keywords": "LDL, HDL", "kind": "medications"})
        );
        assert_eq!(query_args(""), serde_json::json!({}));
    }

    #[test]
    fn bearer_tokens() {
        let mut h = HeaderMap::new();
        assert_eq!(bearer(&h), None);
        h.insert(header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        assert_eq!(bearer(&h), Some("abc"));
        h.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer(&h), None);
    }
}
