//! The HTTP side: axum on tokio (the workspace's server), `POST /v1/traces`, `/v1/logs` and
//! `/v1/metrics`, until the receiver has been idle long enough or is told to stop.
//!
//! Every request is answered as OTLP/HTTP says, in the request's own encoding: 200 with an
//! empty export response (no partial success) when it was scanned, 400, 413 or 415 with a
//! `google.rpc.Status` when it was not (none of which an exporter retries: the error is in the
//! report instead), and 503 when [`MAX_IN_FLIGHT`] requests are already being read (retried).

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use prost::Message;

use super::{BODY_CAP, Encoding, MAX_IN_FLIGHT, PayloadError, Receiver, Signal};
use crate::matcher::Matcher;
use crate::report::Report;

#[cfg(unix)]
type Terminate = tokio::signal::unix::Signal;
#[cfg(not(unix))]
type Terminate = ();

/// How long requests still being read at a stop may take to finish.
const GRACE: Duration = Duration::from_secs(5);

/// How often the idle timeout is checked.
const TICK: Duration = Duration::from_millis(50);

/// How the receiver listens and when it stops.
#[derive(Clone, Debug)]
pub struct Options {
    /// The address to listen on (`127.0.0.1:4318`; port 0 picks a free one).
    pub listen: String,
    /// Stop this long after the last request, once one has arrived; `None`: only on SIGTERM
    /// or SIGINT.
    pub idle: Option<Duration>,
    /// Span names to count in the report ([`Receiver::count_spans`]).
    pub span_names: Vec<String>,
}

/// `google.rpc.Status`, the body of an OTLP/HTTP error answer.
#[derive(Clone, PartialEq, Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
}

/// `google.rpc.Code.INVALID_ARGUMENT`.
const INVALID_ARGUMENT: i32 = 3;

/// `google.rpc.Code.UNAVAILABLE`.
const UNAVAILABLE: i32 = 14;

struct Shared {
    receiver: Mutex<Option<Receiver>>,
    last: Mutex<Option<Instant>>,
    in_flight: AtomicUsize,
}

impl Shared {
    fn receiver(&self) -> MutexGuard<'_, Option<Receiver>> {
        self.receiver.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn touch(&self) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }

    fn idle_for(&self, idle: Duration) -> bool {
        let last = *self.last.lock().unwrap_or_else(PoisonError::into_inner);
        last.is_some_and(|t| t.elapsed() >= idle) && self.in_flight.load(Ordering::SeqCst) == 0
    }
}

/// Counts a request in flight while it lives.
struct InFlight<'s>(&'s AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves OTLP/HTTP on `options.listen` with `matcher`, calling `on_bound` with the address
/// bound, until idle or stopped, and reports what was received.
pub fn serve(
    matcher: Matcher,
    options: &Options,
    on_bound: &mut dyn FnMut(SocketAddr),
) -> io::Result<Report> {
    serve_until(matcher, options, on_bound, std::future::pending())
}

/// [`serve`], also stopping when `stop` completes: the entry point of a pipeline that runs the
/// receiver in-process and stops it once the service it watches has exited (and so flushed).
///
/// ```
/// use phi_canary::otlp::{Options, serve_until};
/// use phi_canary::{Canary, Matcher, VariantSet};
///
/// let m = Matcher::new(vec![Canary::core()], VariantSet::All, None)?;
/// let options = Options { listen: "127.0.0.1:0".into(), idle: None, span_names: Vec::new() };
/// let report = serve_until(m, &options, &mut |_| {}, async {})?;
/// assert_eq!(report.exit_code(), 3, "no request arrived: inconclusive");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn serve_until(
    matcher: Matcher,
    options: &Options,
    on_bound: &mut dyn FnMut(SocketAddr),
    stop: impl Future<Output = ()> + Send,
) -> io::Result<Report> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run(matcher, options, on_bound, stop))
}

async fn run(
    matcher: Matcher,
    options: &Options,
    on_bound: &mut dyn FnMut(SocketAddr),
    stop: impl Future<Output = ()> + Send,
) -> io::Result<Report> {
    let listener = tokio::net::TcpListener::bind(&options.listen).await?;
    let addr = listener.local_addr()?;
    // Before the address is printed: a caller may send SIGTERM as soon as it has read it.
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    #[cfg(not(unix))]
    let term = ();
    on_bound(addr);
    let shared = Arc::new(Shared {
        receiver: Mutex::new(Some(
            Receiver::new(matcher).count_spans(options.span_names.iter().cloned()),
        )),
        last: Mutex::new(None),
        in_flight: AtomicUsize::new(0),
    });
    let mut app = Router::new();
    for signal in Signal::ALL {
        app = app.route(
            signal.path(),
            post(move |State(s): State<Arc<Shared>>, req: Request| export(s, signal, req)),
        );
    }
    let app = app
        .layer(DefaultBodyLimit::max(BODY_CAP))
        .with_state(Arc::clone(&shared));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stop_rx.await;
            })
            .await
    });
    tokio::select! {
        r = stopped(&shared, options.idle, term) => r?,
        () = stop => {}
    }
    let _ = stop_tx.send(());
    let unfinished = match tokio::time::timeout(GRACE, server).await {
        Ok(joined) => {
            joined.map_err(io::Error::other)??;
            0
        }
        Err(_) => shared.in_flight.load(Ordering::SeqCst),
    };
    let mut receiver = shared
        .receiver()
        .take()
        .expect("the receiver is taken once, at the end");
    if unfinished > 0 {
        receiver.unfinished(unfinished);
    }
    Ok(receiver.report(&format!("otlp:{addr}")))
}

/// Returns on SIGTERM, on SIGINT, or once the receiver has been idle for `idle`.
async fn stopped(shared: &Shared, idle: Option<Duration>, term: Terminate) -> io::Result<()> {
    #[cfg(unix)]
    let mut term = term;
    #[cfg(unix)]
    let terminate = term.recv();
    #[cfg(not(unix))]
    let terminate = {
        let () = term;
        std::future::pending::<Option<()>>()
    };
    // SIGINT too, installed now: tokio's handler stays for the rest of the process.
    let interrupt = tokio::signal::ctrl_c();
    let idle = async {
        loop {
            tokio::time::sleep(TICK).await;
            if idle.is_some_and(|d| shared.idle_for(d)) {
                return;
            }
        }
    };
    tokio::select! {
        _ = terminate => {}
        r = interrupt => r?,
        () = idle => {}
    }
    Ok(())
}

async fn export(shared: Arc<Shared>, signal: Signal, req: Request) -> Response {
    shared.touch();
    if shared.in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
        shared.in_flight.fetch_sub(1, Ordering::SeqCst);
        return status(
            StatusCode::SERVICE_UNAVAILABLE,
            Encoding::Protobuf,
            UNAVAILABLE,
            "too many requests at once; retry",
        );
    }
    let _in_flight = InFlight(&shared.in_flight);
    let headers = req.headers().clone();
    let content_type = text(&headers, &header::CONTENT_TYPE);
    let encoding = content_type
        .and_then(Encoding::from_content_type)
        .unwrap_or(Encoding::Protobuf);
    let body = Bytes::from_request(req, &()).await;
    shared.touch();
    let result = match body {
        Ok(body) => match shared.receiver().as_mut() {
            Some(r) => r.receive(
                signal,
                content_type,
                text(&headers, &header::CONTENT_ENCODING),
                &body,
            ),
            None => {
                return status(
                    StatusCode::SERVICE_UNAVAILABLE,
                    encoding,
                    UNAVAILABLE,
                    "the receiver is stopping",
                );
            }
        },
        Err(rejection) => {
            let error = if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                PayloadError::TooLarge { cap: BODY_CAP }
            } else {
                PayloadError::CutOff
            };
            if let Some(r) = shared.receiver().as_mut() {
                r.fail(signal, &error);
            }
            Err(error)
        }
    };
    match result {
        Ok(encoding) => {
            let body = match encoding {
                // An empty export response: everything accepted, no partial success.
                Encoding::Protobuf => Body::empty(),
                Encoding::Json => Body::from("{}"),
            };
            respond(StatusCode::OK, encoding, body)
        }
        Err(e) => status(
            StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST),
            encoding,
            INVALID_ARGUMENT,
            &e.to_string(),
        ),
    }
}

fn text<'h>(headers: &'h HeaderMap, name: &header::HeaderName) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn status(code: StatusCode, encoding: Encoding, rpc: i32, message: &str) -> Response {
    let body = match encoding {
        Encoding::Protobuf => Body::from(
            RpcStatus {
                code: rpc,
                message: message.to_owned(),
            }
            .encode_to_vec(),
        ),
        Encoding::Json => {
            Body::from(serde_json::json!({ "code": rpc, "message": message }).to_string())
        }
    };
    respond(code, encoding, body)
}

fn respond(code: StatusCode, encoding: Encoding, body: Body) -> Response {
    Response::builder()
        .status(code)
        .header(header::CONTENT_TYPE, encoding.content_type())
        .body(body)
        .expect("a status and a fixed header make a valid response")
}
