//! A blocking HTTP/1.1 client for loopback calls to the service under test, on ureq: one
//! request per connection (no pool, so a call is exactly one request the service counts), no
//! TLS, no redirects, a timeout on every call. A 4xx or 5xx status is an answer, not an error.

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

/// How long a call may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The largest body read.
const BODY_MAX: u64 = 64 * 1024 * 1024;

/// A request: method, target (path and query), bearer token, JSON body, and further headers
/// (an `Accept` among them replaces the default `application/json`).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// `GET` or `POST`.
    pub method: Method,
    /// The path and query, already percent-encoded.
    pub target: &'a str,
    /// Sent as `Authorization: Bearer TOKEN`.
    pub bearer: Option<&'a str>,
    /// Sent with `Content-Type: application/json`.
    pub json_body: Option<&'a [u8]>,
    /// Further headers.
    pub headers: &'a [(&'a str, &'a str)],
}

/// The methods the service answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
}

/// An answer: its status, headers and body.
#[derive(Debug, Clone)]
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// Every header that is text, names in lower case, in order.
    pub headers: Vec<(String, String)>,
    /// The whole body.
    pub body: Vec<u8>,
}

impl Response {
    /// The first header called `name` (any case).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON, if it is JSON.
    #[must_use]
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The body as text, invalid UTF-8 replaced.
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// The call could not be made or its answer not read. The message names the address, never
/// a body or a token.
#[derive(Debug, thiserror::Error)]
#[error("HTTP call to {addr}: {source}")]
pub struct HttpError {
    addr: SocketAddr,
    source: ureq::Error,
}

fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_idle_connections(0)
            .timeout_global(Some(TIMEOUT))
            .accept("application/json")
            .build()
            .into()
    })
}

/// Sends `req` to `addr` and reads the whole answer.
pub fn send(addr: SocketAddr, req: &Request<'_>) -> Result<Response, HttpError> {
    let error = |source| HttpError { addr, source };
    let uri = format!("http://{addr}{}", req.target);
    let mut headers: Vec<(&str, String)> = req
        .headers
        .iter()
        .map(|(k, v)| (*k, (*v).to_owned()))
        .collect();
    if let Some(token) = req.bearer {
        headers.push(("Authorization", format!("Bearer {token}")));
    }
    let answer = match (req.method, req.json_body) {
        (Method::Get, _) => {
            let mut b = agent().get(&uri);
            for (k, v) in &headers {
                b = b.header(*k, v);
            }
            b.call()
        }
        (Method::Post, body) => {
            let mut b = agent().post(&uri);
            for (k, v) in &headers {
                b = b.header(*k, v);
            }
            match body {
                Some(body) => b.content_type("application/json").send(body),
                None => b.send_empty(),
            }
        }
    }
    .map_err(error)?;
    let status = answer.status().as_u16();
    let content_type = answer
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let headers = answer
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect();
    let body = answer
        .into_body()
        .with_config()
        .limit(BODY_MAX)
        .read_to_vec()
        .map_err(error)?;
    Ok(Response {
        status,
        content_type,
        headers,
        body,
    })
}

/// `GET target`, with a bearer token if given.
pub fn get(addr: SocketAddr, target: &str, bearer: Option<&str>) -> Result<Response, HttpError> {
    send(
        addr,
        &Request {
            method: Method::Get,
            target,
            bearer,
            json_body: None,
            headers: &[],
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    /// A one-shot server: reads one request, answers `raw`, returns the request's head.
    fn serve_once(raw: &'static [u8]) -> (SocketAddr, std::thread::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = n.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            head.push_str(&String::from_utf8(body).unwrap());
            reader.get_mut().write_all(raw).unwrap();
            head
        });
        (addr, handle)
    }

    #[test]
    fn a_chunked_error_answer_is_read_whole_and_not_an_error() {
        let (addr, server) = serve_once(
            b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=y\r\n\":1}\r\n0\r\n\r\n",
        );
        let r = get(addr, "/api?x=a%20b", Some("tok-1")).unwrap();
        assert_eq!(r.status, 400);
        assert_eq!(r.json().unwrap()["a"], 1);
        assert_eq!(r.content_type.as_deref(), Some("application/json"));
        assert_eq!(r.header("Transfer-Encoding"), Some("chunked"));
        let head = server.join().unwrap().to_ascii_lowercase();
        assert!(head.starts_with("get /api?x=a%20b http/1.1\r\n"), "{head}");
        assert!(head.contains("authorization: bearer tok-1\r\n"), "{head}");
        assert!(head.contains("accept: application/json\r\n"), "{head}");
    }

    #[test]
    fn a_post_sends_its_json_and_headers() {
        let (addr, server) = serve_once(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
        let r = send(
            addr,
            &Request {
                method: Method::Post,
                target: "/mcp",
                bearer: None,
                json_body: Some(b"{\"id\":1}"),
                headers: &[("Accept", "application/json, text/event-stream")],
            },
        )
        .unwrap();
        assert_eq!((r.status, r.body.as_slice()), (200, b"{}".as_slice()));
        let head = server.join().unwrap().to_ascii_lowercase();
        assert!(
            head.contains("content-type: application/json\r\n"),
            "{head}"
        );
        assert!(
            head.contains("accept: application/json, text/event-stream\r\n"),
            "{head}"
        );
        assert!(head.ends_with("{\"id\":1}"), "{head}");
    }

    #[test]
    fn a_cut_body_and_a_closed_port_are_errors() {
        let (addr, server) = serve_once(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc");
        assert!(get(addr, "/", None).is_err());
        server.join().unwrap();
        let closed = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let err = get(closed, "/", Some("secret-token")).unwrap_err();
        assert!(!err.to_string().contains("secret-token"), "{err}");
    }
}
