//! End to end, through the `answers` binary: seed the demo record, ask from the CLI, serve over
//! HTTP, and check that the canary is in the record while no output and no log line carries it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use answers_demo::PHI_CANARY;
use answers_store::Store;

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_answers");

pub(crate) struct Record {
    _dir: tempfile::TempDir,
    pub(crate) db: PathBuf,
    pub(crate) tokens: PathBuf,
}

pub(crate) fn seeded() -> Record {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("record.db");
    let tokens = dir.path().join("tokens");
    let out = answers(&[
        "seed",
        "--db",
        s(&db),
        "--demo",
        "--tokens-file",
        s(&tokens),
    ]);
    assert!(
        out.status.success(),
        "seed failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean(&out);
    Record {
        _dir: dir,
        db,
        tokens,
    }
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// The words of `answers COMMAND --db DB --subject SUBJECT REST…`: every command that reads or
/// writes one person's record (`query`, `import-genotypes`) starts so.
pub(crate) fn subject_argv<'a>(
    command: &'a str,
    db: &'a str,
    subject: &'a str,
    rest: &[&'a str],
) -> Vec<&'a str> {
    [&[command, "--db", db, "--subject", subject][..], rest].concat()
}

/// Runs `answers ARGS` (without `RUST_LOG` from the caller's environment).
pub(crate) fn answers(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run answers")
}

/// The output (stdout and stderr: a container's logs) carries neither canary nor token.
pub(crate) fn assert_clean(out: &Output) {
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains("PHI-CANARY"), "the canary leaked:\n{text}");
    }
}

pub(crate) fn token(record: &Record, handle: &str) -> String {
    let text = std::fs::read_to_string(&record.tokens).expect("tokens file");
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{handle}=")))
        .expect("a token per demo account")
        .to_owned()
}

#[test]
fn the_canary_is_in_the_record_and_the_tokens_file_is_private() {
    let r = seeded();
    let store = Store::open(&r.db).expect("open");
    assert!(
        store.comment_contains(PHI_CANARY).expect("query"),
        "precondition: the canary is in the record"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&r.tokens)
            .expect("tokens")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
    assert_ne!(token(&r, "you"), token(&r, "mom"));
}

#[test]
fn the_cli_answers_and_refuses_without_leaking() {
    let r = seeded();
    let db = s(&r.db);
    // `answers query … query_health_indicators REST…` for `who`.
    let qhi = |who: &str, rest: &[&str]| {
        answers(&subject_argv(
            "query",
            db,
            who,
            &[&["query_health_indicators"], rest].concat(),
        ))
    };
    let catalogue = qhi("mom", &[]);
    assert!(catalogue.status.success());
    assert_clean(&catalogue);
    let text = String::from_utf8_lossy(&catalogue.stdout);
    assert!(
        text.contains("no data for an indicator means it was never recorded"),
        "{text}"
    );

    let refused = qhi("you", &[r#"{"kind":"medications","view":"day"}"#]);
    assert_eq!(refused.status.code(), Some(1));
    assert_clean(&refused);
    assert!(String::from_utf8_lossy(&refused.stdout).starts_with(
        "error (invalid_arguments): kind: unknown parameter. Fix the arguments and try once more."
    ));

    let json = qhi(
        "you",
        &[r#"{"keywords":["steps"],"view":"stats"}"#, "--json"],
    );
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("REST JSON");
    assert_eq!(v["status"], "ok");

    let unknown = qhi("nobody", &[]);
    assert_eq!(unknown.status.code(), Some(2));

    let no_tool = answers(&subject_argv("query", db, "you", &["query_everything"]));
    assert_eq!(no_tool.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&no_tool.stderr);
    assert!(
        stderr.contains("unknown tool `query_everything`; the tools are: query_health_indicators"),
        "{stderr}"
    );
}

/// A running `answers serve`, its logs collected line by line.
pub(crate) struct Server {
    child: Child,
    pub(crate) addr: String,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Server {
    pub(crate) fn start(db: &Path) -> Server {
        Server::start_with(db, &[])
    }

    pub(crate) fn start_with(db: &Path, env: &[(&str, &str)]) -> Server {
        Server::start_full(db, env, &[])
    }

    pub(crate) fn start_full(db: &Path, env: &[(&str, &str)], args: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--db", s(db), "--listen", "127.0.0.1:0"])
            .args(args)
            .env_remove("RUST_LOG")
            .env_remove("ANSWERS_TOKENS")
            .env_remove("ANSWERS_TOKENS_FILE")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start answers serve");
        let (tx, lines) = mpsc::channel();
        for stream in [
            Box::new(child.stdout.take().expect("stdout")) as Box<dyn Read + Send>,
            Box::new(child.stderr.take().expect("stderr")),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
        }
        let mut seen = Vec::new();
        let addr = loop {
            let line = lines
                .recv_timeout(Duration::from_secs(30))
                .expect("the server logs its address");
            seen.push(line.clone());
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line)
                && let Some(a) = v["fields"]["listen_addr"].as_str()
            {
                assert_eq!(v["fields"]["subject_count"], 2, "{line}");
                break a.to_owned();
            }
        };
        Server {
            child,
            addr,
            lines,
            seen,
        }
    }

    pub(crate) fn get(
        &self,
        path_and_query: &str,
        token: Option<&str>,
    ) -> (u16, serde_json::Value) {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        write!(
            stream,
            "GET {path_and_query} HTTP/1.1\r\nHost: test\r\n{auth}Connection: close\r\n\r\n"
        )
        .expect("send");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("read");
        let text = String::from_utf8_lossy(&raw).into_owned();
        let status: u16 = text
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("status line");
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        (
            status,
            serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
        )
    }

    /// Stops the server with SIGTERM and returns every log line it wrote.
    pub(crate) fn stop(mut self) -> Vec<String> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "a clean shutdown exits 0: {status}");
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(500)) {
            self.seen.push(line);
        }
        self.seen
    }
}

#[test]
fn http_answers_per_subject_and_refuses_by_name() {
    let r = seeded();
    let server = Server::start(&r.db);
    let (you, mom) = (token(&r, "you"), token(&r, "mom"));
    let path = "/api/v1/health-indicators";

    assert_eq!(server.get(path, None).0, 401);
    assert_eq!(server.get(path, Some("not-a-token")).0, 401);

    let (status, catalogue) = server.get(path, Some(&you));
    assert_eq!(status, 200, "{catalogue}");
    let (status, mom_catalogue) = server.get(path, Some(&mom));
    assert_eq!(status, 200);
    assert_ne!(catalogue, mom_catalogue, "two people, two records");

    // Over a real socket: the indicators list answers readings only, and the journal has its
    // own route (mom's record holds reported entries).
    let tables = |v: &serde_json::Value| -> Vec<String> {
        v["data"]
            .as_array()
            .map(|ts| {
                ts.iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(tables(&mom_catalogue), ["indicators"], "{mom_catalogue}");
    let (status, journal) = server.get("/api/v1/journal", Some(&mom));
    assert_eq!(status, 200, "{journal}");
    assert_eq!(tables(&journal), ["reported"], "{journal}");
    assert!(
        journal["data"][0]["rows"]
            .as_array()
            .is_some_and(|rows| !rows.is_empty()),
        "{journal}"
    );
    assert_eq!(server.get("/api/v1/journal", None).0, 401);

    let (status, summary) = server.get(
        &format!("{path}?keywords=resting%20heart%20rate&view=stats"),
        Some(&you),
    );
    assert_eq!(status, 200, "{summary}");
    assert_eq!(summary["status"], "ok", "{summary}");

    let (status, refused) = server.get(&format!("{path}?kind=medications&view=day"), Some(&you));
    assert_eq!(status, 400);
    assert!(refused.to_string().contains("kind"), "{refused}");
    let (status, _) = server.get(&format!("{path}?view=stats"), Some(&you));
    assert_eq!(status, 400, "a view without a selector is refused");
    let (status, _) = server.get(
        &format!("{path}?indicators=steps&start=2026-13-40"),
        Some(&you),
    );
    assert_eq!(status, 400, "a bad date is refused");

    // A browser's reading list has its own row budget: more than a model's 50 rows of a
    // year of daily steps, and still a cut one, saying so.
    let (status, steps) = server.get(&format!("{path}?indicators=steps&view=raw"), Some(&you));
    assert_eq!(status, 200, "{steps}");
    let rows = steps["data"][0]["rows"].as_array().expect("rows").len();
    assert!(
        rows > answers_tools::readings::ROW_CAP && rows <= answers_tools::readings::REST_ROW_MAX,
        "a browser's raw view answered {rows} rows"
    );
    let cli = answers(&subject_argv(
        "query",
        s(&r.db),
        "you",
        &[
            "query_health_indicators",
            r#"{"indicators":["steps"],"view":"raw"}"#,
            "--json",
        ],
    ));
    assert_clean(&cli);
    let cli: serde_json::Value = serde_json::from_slice(&cli.stdout).expect("REST JSON");
    assert_eq!(
        cli["data"][0]["rows"].as_array().expect("rows").len(),
        answers_tools::readings::ROW_CAP,
        "the CLI answers with a model's budget"
    );

    let logs = server.stop().join("\n");
    assert!(logs.contains("answers stopped"), "{logs}");
    assert!(
        !logs.contains("PHI-CANARY"),
        "the canary leaked into the logs:\n{logs}"
    );
    for t in [&you, &mom] {
        assert!(!logs.contains(t.as_str()), "a token leaked into the logs");
    }
}

#[test]
fn tokens_from_the_environment_authenticate_and_are_never_logged() {
    let r = seeded();
    let own = "phg_deployment-token-for-mom-0123456789abcdef";
    let server = Server::start_with(
        &r.db,
        &[("ANSWERS_TOKENS", &format!("# deploy\nmom={own}\n"))],
    );
    let (status, answer) = server.get("/api/v1/health-indicators", Some(own));
    assert_eq!(status, 200, "{answer}");
    let (status, _) = server.get(
        "/api/v1/health-indicators",
        Some("phg_deployment-token-for-nobody-000000"),
    );
    assert_eq!(status, 401);
    let logs = server.stop().join("\n");
    assert!(logs.contains("token_count"), "the count is logged: {logs}");
    assert!(
        !logs.contains("deployment-token"),
        "a token leaked into the logs"
    );

    // A weak token refuses to start the server, naming the line and not the token.
    let out = Command::new(BIN)
        .args(["serve", "--db", s(&r.db), "--listen", "127.0.0.1:0"])
        .env_remove("ANSWERS_TOKENS_FILE")
        .env("ANSWERS_TOKENS", "mom=hunter2")
        .output()
        .expect("run answers serve");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("tokens line 1"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

#[test]
fn answers_tools_json_prints_the_registry_and_nothing_else() {
    let out = Command::new(BIN)
        .args(["tools", "--json"])
        .output()
        .expect("run answers tools --json");
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(json, answers_tools::registry::to_json());
    let names: Vec<&str> = json["tools"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names.len(), 9, "{names:?}");
    assert_eq!(
        json["tools"][1],
        serde_json::json!({"name": "query_medications", "surfaces": ["record_mcp", "chat"], "visible_when": "has_medications"})
    );
}

#[test]
fn serve_arms_the_tripwire_with_the_per_run_canary_from_the_environment() {
    let r = seeded();
    let you = token(&r, "you");
    // A canary the service is known to log: the REST route's request line carries it.
    let canary = "v1/health-indicators";
    let server = Server::start_with(&r.db, &[("PHIGUARD_CANARY", canary)]);
    assert_eq!(server.get("/api/v1/health-indicators", Some(&you)).0, 200);
    let logs = server.stop();
    let all = logs.join("\n");
    assert!(!all.contains(canary), "a line carried the canary: {all}");
    assert!(all.contains("[canary blocked]"), "{all}");
    let stopped = logs
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["fields"]["message"] == "answers stopped")
        .expect("the shutdown figures");
    assert!(
        stopped["fields"]["blocked_count"].as_u64() >= Some(1),
        "{stopped}"
    );
}
