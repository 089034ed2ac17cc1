//! The MCP surfaces, driven by the official Python client (`mcp`, pinned): the record server
//! at `/mcp` on `answers serve` for `mom` and `you` in both protocol generations, and the
//! vocabulary server `answers mcp` on stdio. The client script asserts; this side runs it and
//! checks that no log line of the server carries the canary or a token.

use std::process::Command;

use crate::e2e::{BIN, Server, seeded, token};
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
    let checked = run_client(&["http", &url, tokens]);
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
