//! A minimal HTTP/1.1 client for loopback calls to the service: one request per connection
//! (`Connection: close`), `Content-Length` or chunked bodies. No TLS, no redirects: the
//! pipeline only talks to the service it started.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use anyhow::{Context, bail};

/// How long a call may take before the pipeline gives up on it.
const TIMEOUT: Duration = Duration::from_secs(30);

/// An answer: its status and body.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

/// A request: method, target (path and query), bearer token, body, and any further headers
/// (an `Accept` among them replaces the default `application/json`).
pub(crate) struct Request<'a> {
    pub(crate) method: &'static str,
    pub(crate) target: &'a str,
    pub(crate) bearer: Option<&'a str>,
    pub(crate) json_body: Option<&'a [u8]>,
    pub(crate) headers: &'a [(&'a str, &'a str)],
}

/// Sends `req` to `addr` and reads the whole answer.
pub(crate) fn send(addr: SocketAddr, req: &Request<'_>) -> anyhow::Result<Response> {
    let mut stream = TcpStream::connect_timeout(&addr, TIMEOUT)
        .with_context(|| format!("cannot connect to {addr}"))?;
    stream.set_read_timeout(Some(TIMEOUT))?;
    stream.set_write_timeout(Some(TIMEOUT))?;
    let mut head = format!(
        "{} {} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n",
        req.method, req.target
    );
    if !req
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("accept"))
    {
        head.push_str("Accept: application/json\r\n");
    }
    for (name, value) in req.headers {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    if let Some(token) = req.bearer {
        head.push_str("Authorization: Bearer ");
        head.push_str(token);
        head.push_str("\r\n");
    }
    if let Some(body) = req.json_body {
        head.push_str("Content-Type: application/json\r\n");
        let _ = write!(head, "Content-Length: {}\r\n", body.len());
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if let Some(body) = req.json_body {
        stream.write_all(body)?;
    }
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .with_context(|| format!("cannot read the answer from {addr}"))?;
    parse(&raw)
}

/// Parses a whole HTTP/1.1 response.
pub(crate) fn parse(raw: &[u8]) -> anyhow::Result<Response> {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        bail!("an HTTP answer without a header end ({} bytes)", raw.len());
    };
    let head = std::str::from_utf8(&raw[..split]).context("HTTP headers are not UTF-8")?;
    let rest = &raw[split + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("a bad HTTP status line: {status_line:?}"))?;
    let mut chunked = false;
    let mut length = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") && value.eq_ignore_ascii_case("chunked") {
            chunked = true;
        } else if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse::<usize>().context("a bad Content-Length")?);
        }
    }
    let body = if chunked {
        dechunk(rest)?
    } else if let Some(n) = length {
        if rest.len() < n {
            bail!("the body was cut: {} of {n} bytes", rest.len());
        }
        rest[..n].to_vec()
    } else {
        rest.to_vec()
    };
    Ok(Response { status, body })
}

fn dechunk(mut rest: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") else {
            bail!("a chunked body without a chunk size line");
        };
        let size_text = std::str::from_utf8(&rest[..eol])?;
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).context("a bad chunk size")?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Ok(body);
        }
        let Some(need) = size.checked_add(2) else {
            bail!("a bad chunk size");
        };
        if rest.len() < need {
            bail!("a chunked body was cut");
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_length_and_chunked_bodies() {
        let r = parse(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 4\r\n\r\n{}{}extra").unwrap();
        assert_eq!((r.status, r.body.as_slice()), (400, b"{}{}".as_slice()));
        let r = parse(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!((r.status, r.body.as_slice()), (200, b"abcde".as_slice()));
        assert!(parse(b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nabc").is_err());
        assert!(parse(b"garbage").is_err());
        assert!(parse(b"HTTP/1.1 xx OK\r\n\r\n").is_err());
    }
}
