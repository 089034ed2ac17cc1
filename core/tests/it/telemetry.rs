//! `answers serve --otlp-endpoint`: the binary exports its traces and logs over OTLP/HTTP to
//! phi-canary's receiver (its library, on a loopback port in this process), which scans them for
//! the demo canary the record holds and requires the run's markers on both signals.

use phi_canary::otlp::{Background, Signal};
use phi_canary::report::StreamReport;
use phi_canary::{Canary, Matcher, Nonce, Report, VariantSet};

use crate::e2e::{BIN, Server, seeded, token};
use crate::mcp::list_tools_status;

const NONCE: &str = "otel-test-0001";

const ROUTE: &str = "/api/v1/health-indicators";

/// The spans the service runs each route's requests in, by name (the route's pattern).
const REST_SPAN: &str = "GET /api/v1/health-indicators";
const JOURNAL_SPAN: &str = "GET /api/v1/journal";
const MCP_SPAN: &str = "/mcp";

/// A receiver on a loopback port, scanning for the demo canaries and each of `secrets` (a
/// bearer token, a URL secret), none of which may reach an export, and counting the spans of
/// each route.
fn receiver(secrets: &[&str]) -> Background {
    let nonce = Nonce::new(NONCE).expect("a nonce");
    let mut canaries = vec![Canary::demo(), Canary::core()];
    for (i, secret) in secrets.iter().enumerate() {
        canaries.push(Canary::from_text(secret, i + 2).expect("a token is a valid canary"));
    }
    let matcher = Matcher::new(canaries, VariantSet::All, Some(nonce)).expect("a matcher");
    let routes = [REST_SPAN, JOURNAL_SPAN, MCP_SPAN].map(str::to_owned);
    Background::start(matcher, routes.to_vec()).expect("the receiver listens")
}

fn stream(report: &Report, signal: Signal) -> &StreamReport {
    report.sources[0]
        .streams
        .iter()
        .find(|s| s.name == signal.name())
        .expect("a stream per signal")
}

#[test]
fn serve_exports_a_span_per_request_and_both_markers_to_a_clean_receiver() {
    let record = seeded();
    let (mom, you) = (token(&record, "mom"), token(&record, "you"));
    let receiver = receiver(&[&mom, &you]);
    let endpoint = receiver.endpoint();
    let server = Server::start_full(
        &record.db,
        &[],
        &["--marker-nonce", NONCE, "--otlp-endpoint", &endpoint],
    );
    for _ in 0..2 {
        let (status, _) = server.get(ROUTE, Some(&mom));
        assert_eq!(status, 200);
    }
    let (status, _) = server.get(ROUTE, Some(&mom));
    assert_eq!(status, 200);
    let (status, _) = server.get(ROUTE, None);
    assert_eq!(status, 401, "a refusal is a request too");
    assert_eq!(list_tools_status(&server.addr, "/mcp", Some(&mom)), 200);
    assert_eq!(list_tools_status(&server.addr, "/mcp", None), 401);
    // The journal's route is traced too, and a URL secret never reaches a span: the receiver
    // scans for both tokens.
    let (status, _) = server.get("/api/v1/journal", Some(&mom));
    assert_eq!(status, 200);
    let secret_route = format!("/mcp/u/{you}");
    assert_eq!(list_tools_status(&server.addr, &secret_route, None), 200);
    let calls = 8;
    // Per route, by the name of its span: each MCP list is one call here.
    let per_route = [(REST_SPAN, 4), (JOURNAL_SPAN, 1), (MCP_SPAN, 3)];
    let logs = server.stop();
    let report = receiver.stop().expect("the receiver runs");

    assert_eq!(
        report.exit_code(),
        0,
        "unproven {:?}, hits {:?}, sources {:?}",
        report.unproven(),
        report.hits,
        report.sources
    );
    let traces = stream(&report, Signal::Traces);
    let records = stream(&report, Signal::Logs);
    for s in [traces, records] {
        assert!(s.expects_markers && s.markers.bracketed(), "{s:?}");
        assert_eq!((s.markers.start, s.markers.end), (1, 1), "{s:?}");
    }
    let spans = traces.items.expect("an otlp stream counts its spans") - 2;
    assert!(
        spans >= calls,
        "{spans} spans for {calls} requests: {traces:?}"
    );
    // Each route has its own spans: another route's extra ones cannot stand in for them.
    let named = traces
        .spans_named
        .as_ref()
        .expect("the routes' spans are counted");
    for (route, n) in per_route {
        let seen = named.get(route).copied().unwrap_or(0);
        assert!(
            seen >= n,
            "{seen} spans of {route} for {n} calls: {named:?}"
        );
    }
    // Each request's log line is exported too, beside `answers serving` and `answers stopped`.
    let lines = records.items.expect("an otlp stream counts its records") - 2;
    assert!(lines >= calls + 2, "{lines} records: {records:?}");
    // The stdout log is what it is without telemetry, markers included.
    assert!(
        logs.iter()
            .any(|l| l == &format!("phiguard-marker end {NONCE}"))
    );
    assert!(logs.iter().all(|l| !l.contains("PHI-CANARY")));
}

#[test]
fn an_endpoint_that_is_not_plain_http_is_a_usage_error() {
    let record = seeded();
    for (url, why) in [
        (
            "https://user:s3cr3t@collector:4318",
            "https is not supported",
        ),
        (
            "http://user:s3cr3t@collector:4318",
            "must not carry credentials",
        ),
        ("collector:4318", "must be an http:// URL"),
    ] {
        let out = std::process::Command::new(BIN)
            .args(["serve", "--db"])
            .arg(&record.db)
            .args(["--otlp-endpoint", url])
            .env_remove("RUST_LOG")
            .output()
            .expect("run answers");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {stderr}");
        assert!(stderr.contains(why), "{url}: {stderr}");
    }
}
