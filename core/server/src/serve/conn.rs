//! The accept loop of `answers serve`: hyper's HTTP/1 connections under the service's limits.
//!
//! `axum::serve` (axum 0.8) sets no header read timeout and admits every connection, so idle
//! sockets could hold every file descriptor (issue #13: 300 idle connections under a 256-file
//! limit kept a request from being answered). Here:
//!
//! - a request's head must arrive within [`Limits::header_read`] and its body within
//!   [`Limits::body_read`], or the connection is closed (head) or refused `408` (body);
//! - at most [`Limits::max_connections`] connections are served; as many more are answered
//!   `503 overloaded` with `Retry-After` and closed, and beyond that a connection is closed at
//!   once, so the descriptors in use stay bounded;
//! - at shutdown the requests in flight are drained for up to [`Limits::drain`], new requests are
//!   answered `503 shutting_down` with `Retry-After`, then every connection is closed.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// The largest request body read (a JSON-RPC call or a REST query is a few kilobytes).
const MAX_BODY_BYTES: usize = 1 << 20;
/// The `Retry-After` of a `503`, in seconds.
const RETRY_AFTER_SECONDS: &str = "1";
/// How often the drain looks at the requests in flight.
const DRAIN_POLL: Duration = Duration::from_millis(10);

/// The limits of the accept loop; [`Limits::from_env`] reads them from the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How long a request's head may take to arrive, idle keep-alive time included.
    pub header_read: Duration,
    /// How long a request's body may take to arrive.
    pub body_read: Duration,
    /// How many connections are served at once.
    pub max_connections: usize,
    /// How long the requests in flight may take to finish at shutdown.
    pub drain: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(10),
            max_connections: 64,
            drain: Duration::from_secs(10),
        }
    }
}

impl Limits {
    /// The defaults, each overridden by its variable when it holds a number:
    /// `ANSWERS_HEADER_TIMEOUT_MS`, `ANSWERS_BODY_TIMEOUT_MS`, `ANSWERS_MAX_CONNECTIONS`,
    /// `ANSWERS_DRAIN_MS`.
    #[must_use]
    pub fn from_env() -> Limits {
        let number = |name: &str| std::env::var(name).ok()?.trim().parse::<u64>().ok();
        let ms =
            |name: &str, default: Duration| number(name).map_or(default, Duration::from_millis);
        let d = Limits::default();
        Limits {
            header_read: ms("ANSWERS_HEADER_TIMEOUT_MS", d.header_read),
            body_read: ms("ANSWERS_BODY_TIMEOUT_MS", d.body_read),
            max_connections: number("ANSWERS_MAX_CONNECTIONS")
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| *n > 0)
                .unwrap_or(d.max_connections),
            drain: ms("ANSWERS_DRAIN_MS", d.drain),
        }
    }
}

/// What the connections and the requests share: the counts and the drain flag.
#[derive(Debug, Default)]
struct Gate {
    draining: AtomicBool,
    in_flight: AtomicUsize,
    served: AtomicUsize,
    shed: AtomicUsize,
}

/// What the loop did, for the shutdown log line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LoopFigures {
    /// Connections answered `503 overloaded`, or closed at once beyond that.
    pub shed_count: u64,
    /// Requests still in flight when the drain's grace ran out.
    pub abandoned_count: usize,
}

/// A `503` (or other) refusal with the service's refusal body, `{"error": "…"}`, closing the
/// connection.
fn refusal(status: StatusCode, error: &'static str) -> Response {
    let mut r = (status, axum::Json(serde_json::json!({ "error": error }))).into_response();
    let headers = r.headers_mut();
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        headers.insert(
            header::RETRY_AFTER,
            HeaderValue::from_static(RETRY_AFTER_SECONDS),
        );
    }
    r
}

/// Counts the request in flight, or refuses it during the drain; reads its body within the
/// limit first.
async fn admit(
    State((gate, limits)): State<(Arc<Gate>, Limits)>,
    request: Request,
    next: Next,
) -> Response {
    if gate.draining.load(Ordering::SeqCst) {
        return refusal(StatusCode::SERVICE_UNAVAILABLE, "shutting_down");
    }
    gate.in_flight.fetch_add(1, Ordering::SeqCst);
    let _done = InFlight(Arc::clone(&gate));
    let (parts, body) = request.into_parts();
    let read = tokio::time::timeout(limits.body_read, axum::body::to_bytes(body, MAX_BODY_BYTES));
    match read.await {
        Err(_) => refusal(StatusCode::REQUEST_TIMEOUT, "body_timeout"),
        Ok(Err(_)) => refusal(StatusCode::BAD_REQUEST, "body_unreadable"),
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}

/// Ends a request's count in flight when it is dropped (answered or abandoned).
struct InFlight(Arc<Gate>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves `router` on `listener` under `limits` until `shutdown` completes, then drains.
pub(crate) async fn run(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> LoopFigures {
    let gate = Arc::new(Gate::default());
    let app = router.layer(middleware::from_fn_with_state(
        (Arc::clone(&gate), limits),
        admit,
    ));
    let busy =
        Router::new().fallback(|| async { refusal(StatusCode::SERVICE_UNAVAILABLE, "overloaded") });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shed_count = 0u64;
    let mut shutdown = std::pin::pin!(shutdown);
    let mut drain_until: Option<Instant> = None;
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown, if drain_until.is_none() => {
                gate.draining.store(true, Ordering::SeqCst);
                drain_until = Some(Instant::now() + limits.drain);
                continue;
            }
            () = tokio::time::sleep(DRAIN_POLL), if drain_until.is_some() => {
                let idle = gate.in_flight.load(Ordering::SeqCst) == 0;
                if idle || drain_until.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                continue;
            }
            accepted = listener.accept() => accepted,
        };
        // An accept error (a descriptor limit, a reset before accept) ends that connection only.
        let Ok((stream, _)) = accepted else {
            tokio::time::sleep(DRAIN_POLL).await;
            continue;
        };
        let served = gate.served.load(Ordering::SeqCst) < limits.max_connections;
        if !served {
            shed_count += 1;
            if gate.shed.load(Ordering::SeqCst) >= limits.max_connections {
                drop(stream);
                continue;
            }
        }
        let count = if served { &gate.served } else { &gate.shed };
        count.fetch_add(1, Ordering::SeqCst);
        let service = if served { app.clone() } else { busy.clone() };
        let gate = Arc::clone(&gate);
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read)
                .keep_alive(served);
            let conn =
                builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stop.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            let count = if served { &gate.served } else { &gate.shed };
            count.fetch_sub(1, Ordering::SeqCst);
        });
    }
    drop(listener);
    let abandoned_count = gate.in_flight.load(Ordering::SeqCst);
    let _ = stop_tx.send(true);
    let closing = Instant::now() + limits.drain.min(Duration::from_secs(1));
    while gate.served.load(Ordering::SeqCst) + gate.shed.load(Ordering::SeqCst) > 0
        && Instant::now() < closing
    {
        tokio::time::sleep(DRAIN_POLL).await;
    }
    LoopFigures {
        shed_count,
        abandoned_count,
    }
}

#[cfg(test)]
mod tests;
