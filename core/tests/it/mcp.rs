//! The MCP surfaces, driven by the official Python client (`mcp`, pinned): the record server
//! at `/mcp` on `answers serve` for `mom` and `you` in both protocol generations, and the
//! vocabulary server `answers mcp` on stdio. The client script asserts; this side runs it and
//! checks that no log line of the server carries the canary or a token.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::e2e::{BIN, Server, s, seeded, token};
use crate::python::python;

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py");

fn run_client(args: &[&str]) -> String {
    let out = Command::new(python())
        .arg(CLIENT)
        .args(args)
        .output()
        .expect("run the Python MCP client");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the MCP client failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("ok: "),
        "the client checked nothing:\n{stdout}"
    );
    assert!(
        !stdout.contains("PHI-CANARY"),
        "a tool answered with the canary:\n{stdout}"
    );
    stdout
}

#[test]
fn the_record_server_speaks_mcp_to_the_official_client() {
    let r = seeded();
    let server = Server::start(&r.db);
    let url = format!("http://{}/mcp", server.addr);
    let tokens = r.tokens.to_str().expect("utf-8 path");
    let checked = run_client(&["http", &url, tokens, BIN]);
    assert!(
        checked.contains("mom/legacy: negotiated 2025-11-25"),
        "{checked}"
    );
    assert!(
        checked.contains("you/auto: negotiated 2026-07-28"),
        "{checked}"
    );
    let logs = server.stop().join("\n");
    assert!(
        logs.contains("\"/mcp\""),
        "the MCP requests are logged: {logs}"
    );
    assert!(
        !logs.contains("PHI-CANARY"),
        "the canary leaked into the logs"
    );
    for handle in ["you", "mom"] {
        let t = token(&r, handle);
        assert!(!logs.contains(&t[4..]), "a token leaked into the logs");
    }
}

#[test]
fn the_vocabulary_server_speaks_mcp_on_stdio_without_a_database() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Run from an empty directory: `answers mcp` needs no database and creates none.
    let out = Command::new(python())
        .arg(CLIENT)
        .args(["stdio", BIN])
        .current_dir(dir.path())
        .output()
        .expect("run the Python MCP client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the MCP client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("stdio/legacy: negotiated 2025-11-25"),
        "{stdout}"
    );
    assert!(
        stdout.contains("stdio/auto: negotiated 2026-07-28"),
        "{stdout}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).expect("list").collect();
    assert!(left.is_empty(), "answers mcp wrote files: {left:?}");
}

/// `tools/list` on the 2025-11-25 generation (stateless: no handshake needed), raw; the status.
pub(crate) fn list_tools_status(addr: &str, path: &str, token: Option<&str>) -> u16 {
    list_tools_status_at(addr, "127.0.0.1", path, token)
}

/// The same, with the `Host` header `host`.
fn list_tools_status_at(addr: &str, host: &str, path: &str, token: Option<&str>) -> u16 {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\n{auth}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read");
    raw.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status line")
}

#[test]
fn an_issued_secret_works_until_it_is_revoked() {
    let r = seeded();
    let server = Server::start(&r.db);
    let issued = Command::new(BIN)
        .args([
            "token",
            "issue",
            "--db",
            s(&r.db),
            "--subject",
            "mom",
            "--ttl-days",
            "1",
        ])
        .output()
        .expect("issue a token");
    assert!(issued.status.success());
    let secret = String::from_utf8(issued.stdout)
        .expect("utf-8")
        .trim()
        .to_owned();
    assert!(secret.starts_with("phg_"), "a token is printed once");

    assert_eq!(list_tools_status(&server.addr, "/mcp", Some(&secret)), 200);
    assert_eq!(
        list_tools_status(&server.addr, &format!("/mcp/u/{secret}"), None),
        200
    );
    assert_eq!(list_tools_status(&server.addr, "/mcp", None), 401);
    assert_eq!(
        list_tools_status(&server.addr, "/mcp/u/phg_not-issued", None),
        401
    );

    let mut revoke = Command::new(BIN)
        .args(["token", "revoke", "--db", s(&r.db)])
        .stdin(Stdio::piped())
        .spawn()
        .expect("revoke");
    writeln!(revoke.stdin.take().expect("stdin"), "{secret}").expect("send the token");
    assert!(
        revoke.wait().expect("wait").success(),
        "a live token was revoked"
    );

    assert_eq!(list_tools_status(&server.addr, "/mcp", Some(&secret)), 401);
    assert_eq!(
        list_tools_status(&server.addr, &format!("/mcp/u/{secret}"), None),
        401
    );
    let logs = server.stop().join("\n");
    assert!(
        !logs.contains(&secret[4..]),
        "the secret leaked into the logs"
    );
}

#[test]
fn mcp_answers_only_the_host_names_it_is_reached_by() {
    let r = seeded();
    let mom = token(&r, "mom");
    let server = Server::start(&r.db);
    assert_eq!(
        list_tools_status_at(&server.addr, "localhost", "/mcp", Some(&mom)),
        200
    );
    assert_eq!(
        list_tools_status_at(&server.addr, "records.example.test", "/mcp", Some(&mom)),
        403,
        "a foreign Host is refused (DNS rebinding)"
    );
    drop(server.stop());
    let server = Server::start_full(&r.db, &[], &["--allowed-host", "records.example.test"]);
    assert_eq!(
        list_tools_status_at(&server.addr, "records.example.test", "/mcp", Some(&mom)),
        200,
        "a deployment's own name is answered"
    );
    drop(server.stop());
}

/// Renames `series` away from outside the running server (a second connection, as a broken
/// migration would leave it): every later statement of the service on it fails in `SQLite`.
fn break_series(db: &std::path::Path) {
    let conn = rusqlite::Connection::open(db).expect("open the record");
    conn.busy_timeout(Duration::from_secs(10))
        .expect("busy timeout");
    conn.execute_batch("ALTER TABLE series RENAME TO series_gone")
        .expect("rename the table away");
}

#[test]
fn a_permanent_store_fault_is_unrecoverable_over_rest_and_mcp() {
    let r = seeded();
    let mom = token(&r, "mom");
    let server = Server::start(&r.db);
    let path = "/api/v1/health-indicators?indicators=steps&view=stats";
    assert_eq!(server.get(path, Some(&mom)).0, 200, "the store works first");

    break_series(&r.db);
    let (status, body) = server.get(path, Some(&mom));
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["error"]["kind"], "store_fault", "{body}");
    assert_eq!(body["error"]["class"], "unrecoverable", "{body}");

    let url = format!("http://{}/mcp", server.addr);
    let tokens = r.tokens.to_str().expect("utf-8 path");
    let checked = run_client(&["fault", &url, tokens, BIN]);
    assert!(
        checked.contains("mom/auto/broken: the fault is store_fault, unrecoverable"),
        "{checked}"
    );
    assert!(
        checked.contains("you/legacy/broken: visibility undecided, tools/list lists every tool"),
        "{checked}"
    );
    let logs = server.stop().join("\n");
    assert!(
        logs.contains("tool visibility undecided"),
        "the undecided check is logged: {logs}"
    );
    assert!(!logs.contains("no such table"), "a driver message leaked");
}
