//! Two `answers serve` processes on one database (issue #16): a bounded concurrent load of REST
//! and MCP reads through both, answered as one instance answers them, with no request failed;
//! a token revoked in the shared record refused by both at once; a genotype set imported while
//! they serve read through both. Run on one `SQLite` file (two processes on one WAL file), then
//! on one `PostgreSQL` database.

use std::net::SocketAddr;
use std::path::Path;

use phi_testkit::http::{self, Method, Request};
use serde_json::{Value, json};

use crate::backends::{Backend, OnBackend, answers, demo_on};
use crate::e2e::{Server, s, token};

/// Client threads, and requests each sends.
const CLIENTS: usize = 6;
const REQUESTS: usize = 30;

/// One request of the load: REST or an MCP tool call, as a subject.
#[derive(Debug, Clone)]
enum Call {
    Rest(&'static str),
    Mcp(&'static str, Value),
}

/// The calls the load cycles through.
fn calls() -> Vec<Call> {
    vec![
        Call::Rest("/api/v1/health-indicators"),
        Call::Rest("/api/v1/health-indicators?keywords=steps&view=stats"),
        Call::Rest("/api/v1/health-indicators?keywords=heart%20rate&view=day"),
        Call::Rest("/api/v1/journal"),
        Call::Mcp(
            "query_health_indicators",
            json!({"keywords": ["weight"], "view": "week"}),
        ),
        Call::Mcp("query_medications", json!({"view": "history"})),
        Call::Mcp("query_genetic_data", json!({"rsids": ["rs4149056"]})),
    ]
}

fn addr(server: &Server) -> SocketAddr {
    server.addr.parse().expect("a loopback address")
}

/// `call` as the holder of `bearer` on `at`: the status and the body (an MCP answer's result).
fn send(at: SocketAddr, bearer: &str, call: &Call) -> (u16, String) {
    let body;
    let request = match call {
        Call::Rest(target) => Request {
            method: Method::Get,
            target,
            bearer: Some(bearer),
            json_body: None,
            headers: &[],
        },
        Call::Mcp(tool, args) => {
            body = json!({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": tool, "arguments": args},
            })
            .to_string();
            Request {
                method: Method::Post,
                target: "/mcp",
                bearer: Some(bearer),
                json_body: Some(body.as_bytes()),
                headers: &[
                    ("Accept", "application/json, text/event-stream"),
                    ("MCP-Protocol-Version", "2025-11-25"),
                ],
            }
        }
    };
    let response = http::send(at, &request).expect("the service answers");
    (response.status, response.text())
}

/// What one instance answers to every call, for each demo account.
fn reference(server: &Server, tokens: &[String]) -> Vec<Vec<(u16, String)>> {
    tokens
        .iter()
        .map(|t| calls().iter().map(|c| send(addr(server), t, c)).collect())
        .collect()
}

fn two_instances(backend: &Backend) {
    let Some(on) = demo_on(backend) else {
        return;
    };
    let OnBackend { record, url, .. } = &on;
    let db = Path::new(url);
    let tokens = [token(record, "you"), token(record, "mom")];
    let today = [("ANSWERS_TODAY", "2026-09-14")];

    let single = Server::start_with(db, &today);
    let expected = reference(&single, &tokens);
    drop(single.stop());
    for answers in &expected {
        for (status, body) in answers {
            assert_eq!(*status, 200, "{body}");
        }
    }

    let (a, b) = (
        Server::start_with(db, &today),
        Server::start_with(db, &today),
    );
    let targets = [addr(&a), addr(&b)];
    let load: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (tokens, expected) = (tokens.clone(), expected.clone());
            std::thread::spawn(move || {
                let calls = calls();
                let mut failed = Vec::new();
                for i in 0..REQUESTS {
                    let n = client + i;
                    let which = n % calls.len();
                    // The genotype read is `mom`'s: `you`'s set changes under the load.
                    let who = match calls[which] {
                        Call::Mcp("query_genetic_data", _) => 1,
                        _ => n % 2,
                    };
                    let at = targets[(client + i / 3) % 2];
                    let got = send(at, &tokens[who], &calls[which]);
                    if got != expected[who][which] {
                        failed.push((at, calls[which].clone(), got.0));
                    }
                }
                failed
            })
        })
        .collect();

    // While the load runs: a token issued in the shared record works on both, and once revoked
    // there, neither takes it.
    let issued = answers(&["token", "issue", "--database", url, "--subject", "you"]);
    issued.assert_code(0);
    let extra = issued.stdout.trim().to_owned();
    let first = Call::Rest("/api/v1/health-indicators");
    for at in targets {
        assert_eq!(send(at, &extra, &first), expected[0][0]);
    }
    let revoked = phi_testkit::Cmd::new(crate::e2e::BIN, &["token", "revoke", "--database", url])
        .stdin(format!("{extra}\n"))
        .run();
    revoked.assert_code(0);
    for at in targets {
        assert_eq!(
            send(at, &extra, &first).0,
            401,
            "revoked in the shared record"
        );
    }

    // A genotype set imported into the shared record is read through both.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("genome.txt");
    std::fs::write(
        &file,
        "# reference human assembly build 38\nrs4244285\t10\t94781859\tGA\n",
    )
    .expect("write");
    let import = answers(&[
        "import-genotypes",
        "--database",
        url,
        "--subject",
        "you",
        s(&file),
    ]);
    import.assert_code(0);
    let read = Call::Mcp("query_genetic_data", json!({"rsids": ["rs4244285"]}));
    let through_a = send(targets[0], &tokens[0], &read);
    assert_eq!(through_a.0, 200);
    assert!(through_a.1.contains("GA"), "{}", through_a.1);
    assert_eq!(send(targets[1], &tokens[0], &read), through_a);

    let mut failed = Vec::new();
    for client in load {
        failed.extend(client.join().expect("a load client"));
    }
    assert!(failed.is_empty(), "requests answered otherwise: {failed:?}");
    let mut served = 0;
    for server in [a, b] {
        let lines = server.stop();
        served += lines
            .iter()
            .filter(|l| l.contains("\"http_status\":200"))
            .count();
    }
    assert!(
        served >= CLIENTS * REQUESTS,
        "the load went through both instances: {served} answered"
    );
}

#[test]
fn two_instances_share_one_sqlite_file() {
    two_instances(&Backend::Sqlite);
}

#[test]
fn two_instances_share_one_postgres_database() {
    two_instances(&Backend::Postgres);
}
