//! The accept loop under idle sockets, overload and a drain, in-process on a loopback port with
//! small limits. No timing is asserted beyond generous bounds.

use std::net::SocketAddr;
use std::time::Duration;

use axum::routing::get;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use super::*;

/// A bound no healthy loopback exchange comes near; only a hang reaches it.
const GENEROUS: Duration = Duration::from_secs(20);

fn small(max_connections: usize) -> Limits {
    Limits {
        header_read: Duration::from_millis(300),
        body_read: Duration::from_millis(300),
        max_connections,
        drain: Duration::from_secs(5),
    }
}

/// A router with `/fast` and `/slow` (which takes 300 ms).
fn app() -> Router {
    Router::new().route("/fast", get(|| async { "ok" })).route(
        "/slow",
        get(|| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            "ok"
        }),
    )
}

/// Stops the loop `start` began and waits (within `GENEROUS`) for its figures.
async fn stop_and_join(
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<LoopFigures>,
) -> LoopFigures {
    stop.send(()).expect("stop");
    tokio::time::timeout(GENEROUS, task)
        .await
        .expect("stops")
        .expect("joins")
}

/// Starts the loop; the sender ends it (a SIGTERM's part).
async fn start(
    limits: Limits,
) -> (
    SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<LoopFigures>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(run(listener, app(), limits, async move {
        let _ = rx.await;
    }));
    (addr, tx, task)
}

/// Sends `GET path` and reads the whole answer: its status and its text.
async fn get_once(addr: SocketAddr, path: &str) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr).await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    s.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    tokio::time::timeout(GENEROUS, s.read_to_end(&mut raw))
        .await
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
    Ok((status, text))
}

/// Whether the server closed `s` (EOF or reset) within the generous bound.
async fn closed_by_server(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 64];
    matches!(
        tokio::time::timeout(GENEROUS, s.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_are_shed_with_503_and_closed_after_the_header_timeout() {
    let (addr, stop, task) = start(small(4)).await;
    // Beyond the limit: four are served (and idle), two more wait to be answered 503.
    let mut idle = Vec::new();
    for _ in 0..6 {
        idle.push(TcpStream::connect(addr).await.expect("connect"));
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (status, text) = get_once(addr, "/fast")
        .await
        .expect("answered, not dropped");
    assert!(
        status == 200 || status == 503,
        "a legitimate request is answered or shed: {text}"
    );
    if status == 503 {
        assert!(
            text.to_ascii_lowercase().contains("retry-after: 1"),
            "{text}"
        );
        assert!(text.contains(r#"{"error":"overloaded"}"#), "{text}");
    }
    // The idle sockets send nothing: every one is closed by the header read timeout.
    for s in &mut idle {
        assert!(closed_by_server(s).await, "an idle socket is closed");
    }
    // Then the service has room again.
    let (status, text) = get_once(addr, "/fast").await.expect("answered");
    assert_eq!(status, 200, "{text}");
    let figures = stop_and_join(stop, task).await;
    assert!(
        figures.shed_count >= 2,
        "the two beyond the limit: {figures:?}"
    );
    assert_eq!(figures.abandoned_count, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_the_limit_a_request_is_shed_with_a_structured_503() {
    let (addr, stop, task) = start(small(1)).await;
    let _held = TcpStream::connect(addr).await.expect("connect");
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (status, text) = get_once(addr, "/fast")
        .await
        .expect("answered, not dropped");
    assert_eq!(status, 503, "{text}");
    assert!(
        text.to_ascii_lowercase().contains("retry-after: 1"),
        "{text}"
    );
    assert!(text.contains(r#"{"error":"overloaded"}"#), "{text}");
    stop_and_join(stop, task).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_never_arrives_is_refused_408() {
    let (addr, stop, task) = start(small(4)).await;
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let head = "POST /fast HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{";
    s.write_all(head.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(GENEROUS, s.read_to_end(&mut raw)).await;
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains(r#"{"error":"body_timeout"}"#), "{text}");
    stop_and_join(stop, task).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_drains_in_flight_requests_and_refuses_new_ones_with_503() {
    let (addr, stop, task) = start(small(64)).await;
    let in_flight: Vec<_> = (0..8)
        .map(|_| tokio::spawn(get_once(addr, "/slow")))
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).expect("stop");
    tokio::time::sleep(Duration::from_millis(50)).await;
    // During the drain a new request is refused, never dropped.
    let (status, text) = get_once(addr, "/fast")
        .await
        .expect("answered during the drain");
    assert_eq!(status, 503, "{text}");
    assert!(text.contains(r#"{"error":"shutting_down"}"#), "{text}");
    assert!(
        text.to_ascii_lowercase().contains("retry-after: 1"),
        "{text}"
    );
    for request in in_flight {
        let (status, text) = request.await.expect("joins").expect("answered, not reset");
        assert_eq!(status, 200, "an in-flight request is drained: {text}");
    }
    let figures = tokio::time::timeout(GENEROUS, task)
        .await
        .expect("stops")
        .expect("joins");
    assert_eq!(figures.abandoned_count, 0);
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "stopped: nothing listens"
    );
}
