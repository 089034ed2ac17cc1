//! `phi-canary otlp`: the receiver as a process on a free port, fed OTLP/HTTP requests built
//! from `opentelemetry-proto`'s messages and posted with ureq (the test kit's client), or by
//! the real exporter (`exporter`), then stopped with SIGTERM or by `--idle`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use flate2::Compression;
use flate2::write::GzEncoder;
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::metrics::v1::{
    Exemplar, Gauge, Metric, NumberDataPoint, ResourceMetrics, ScopeMetrics, metric,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

use super::NONCE;

mod exporter;

/// PHI-like text around the canary; none of it may appear in a report.
const PHI: &str = "Zebediah Quintwell-Fauxman self-tracked PHI-CANARY-3f9a dob 1961-04-07";

/// A receiver process on a free loopback port.
struct Receiver {
    child: Child,
    addr: SocketAddr,
    /// The rest of stderr, read as it comes so the receiver never blocks on it.
    stderr: std::thread::JoinHandle<String>,
}

/// What the receiver gave when it stopped.
struct Stopped {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Receiver {
    /// `phi-canary otlp --listen 127.0.0.1:0 --demo ARGS`, once it has printed its address.
    fn start(args: &[&str]) -> Receiver {
        let mut child = Command::new(env!("CARGO_BIN_EXE_phi-canary"))
            .args(["otlp", "--listen", "127.0.0.1:0", "--demo"])
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start phi-canary otlp");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr piped"));
        let mut line = String::new();
        stderr
            .read_line(&mut line)
            .expect("read the first stderr line");
        let addr = line
            .trim()
            .strip_prefix("phi-canary: otlp: listening on ")
            .unwrap_or_else(|| panic!("no address on stderr: {line:?}"))
            .parse()
            .expect("a socket address");
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Receiver {
            child,
            addr,
            stderr,
        }
    }

    /// Posts `body` to `path` and gives the status and the answer's body.
    fn post(&self, path: &str, content_type: &str, gzip: bool, body: &[u8]) -> (u16, Vec<u8>) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let mut req = agent
            .post(format!("http://{}{path}", self.addr))
            .header("Content-Type", content_type);
        if gzip {
            req = req.header("Content-Encoding", "gzip");
        }
        let mut answer = req.send(body).expect("post to the receiver");
        let status = answer.status().as_u16();
        let body = answer.body_mut().read_to_vec().expect("read the answer");
        (status, body)
    }

    fn traces(&self, req: &ExportTraceServiceRequest) -> u16 {
        self.post("/v1/traces", PROTOBUF, false, &req.encode_to_vec())
            .0
    }

    fn logs(&self, req: &ExportLogsServiceRequest) -> u16 {
        self.post("/v1/logs", PROTOBUF, false, &req.encode_to_vec())
            .0
    }

    /// SIGTERM, then what it printed and its exit code.
    fn stop(self) -> Stopped {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill failed");
        self.wait()
    }

    fn wait(self) -> Stopped {
        let output = self
            .child
            .wait_with_output()
            .expect("wait for the receiver");
        let stderr = self.stderr.join().expect("stderr reader");
        Stopped {
            code: output.status.code().expect("exited, not killed"),
            stdout: String::from_utf8(output.stdout).expect("utf-8 report"),
            stderr,
        }
    }
}

const PROTOBUF: &str = "application/x-protobuf";

fn string(v: &str) -> AnyValue {
    AnyValue {
        value: Some(Value::StringValue(v.to_owned())),
    }
}

fn kv(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(string(value)),
        ..KeyValue::default()
    }
}

fn resource() -> Resource {
    Resource {
        attributes: vec![kv("service.name", "answers")],
        ..Resource::default()
    }
}

fn scope() -> InstrumentationScope {
    InstrumentationScope {
        name: "answers".to_owned(),
        ..InstrumentationScope::default()
    }
}

fn span(name: &str, attributes: Vec<KeyValue>) -> Span {
    Span {
        trace_id: vec![1; 16],
        span_id: vec![2; 8],
        name: name.to_owned(),
        attributes,
        ..Span::default()
    }
}

fn traces(spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(resource()),
            scope_spans: vec![ScopeSpans {
                scope: Some(scope()),
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}

fn logs(bodies: &[&str]) -> ExportLogsServiceRequest {
    ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(resource()),
            scope_logs: vec![ScopeLogs {
                scope: Some(scope()),
                log_records: bodies
                    .iter()
                    .map(|b| LogRecord {
                        body: Some(string(b)),
                        severity_text: "INFO".to_owned(),
                        attributes: vec![kv("code.module", "answers::http")],
                        ..LogRecord::default()
                    })
                    .collect(),
                ..ScopeLogs::default()
            }],
            ..ResourceLogs::default()
        }],
    }
}

fn marker(kind: &str) -> String {
    format!("phiguard-marker {kind} {NONCE}")
}

/// The report never shows the PHI around a canary: no word of it.
fn assert_no_echo(text: &str) {
    for word in [
        "Zebediah",
        "Quintwell",
        "Fauxman",
        "1961-04-07",
        "self-tracked",
    ] {
        assert!(!text.contains(word), "the report shows {word:?}:\n{text}");
    }
}

#[test]
fn a_clean_export_with_both_markers_is_clean() {
    let r = Receiver::start(&["--expect-marker", NONCE, "--format", "json"]);
    assert_eq!(r.traces(&traces(vec![span(&marker("start"), vec![])])), 200);
    assert_eq!(r.logs(&logs(&[&marker("start"), "GET /readings 200"])), 200);
    let (status, answer) = r.post(
        "/v1/traces",
        PROTOBUF,
        false,
        &traces(vec![span(
            "GET /readings",
            vec![kv("http.route", "/readings")],
        )])
        .encode_to_vec(),
    );
    assert_eq!(status, 200);
    // The proper export response: it decodes, with no partial success.
    let answer = ExportTraceServiceResponse::decode(&answer[..]).expect("an export response");
    assert_eq!(answer.partial_success, None);
    assert_eq!(r.traces(&traces(vec![span(&marker("end"), vec![])])), 200);
    assert_eq!(r.logs(&logs(&[&marker("end")])), 200);
    let out = r.stop();
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("json report");
    assert_eq!(json["verdict"], "clean");
    let streams = &json["sources"][0]["streams"];
    assert_eq!(streams[0]["name"], "traces");
    assert_eq!(streams[0]["lines"], 3, "three trace requests");
    assert_eq!(streams[1]["markers"]["start"], 1);
    assert_eq!(streams[1]["markers"]["end"], 1);
    assert_eq!(json["sources"][0]["kind"], "otlp");
}

#[test]
fn a_canary_in_a_span_attribute_is_a_leak_named_by_its_place() {
    let r = Receiver::start(&[]);
    let leak = span(
        "GET /readings",
        vec![kv("http.route", "/readings"), kv("patient.note", PHI)],
    );
    assert_eq!(r.traces(&traces(vec![span("ok", vec![]), leak])), 200);
    let out = r.stop();
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "traces request 1: resource 0 > scope 0 > span 1 > attribute \"patient.note\""
        ),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("canary `demo` found, variant `exact`"));
    assert_no_echo(&out.stdout);
    assert_no_echo(&out.stderr);
}

#[test]
fn a_canary_in_an_attribute_key_is_found_and_the_key_not_named() {
    let r = Receiver::start(&["--format", "sarif"]);
    let leak = span("GET /readings", vec![kv("ok", "1"), kv(PHI, "x")]);
    assert_eq!(r.traces(&traces(vec![leak])), 200);
    let out = r.stop();
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("span 0 > attribute #1 (its key)"),
        "{}",
        out.stdout
    );
    assert_no_echo(&out.stdout);
}

#[test]
fn a_canary_in_a_log_body_is_a_leak() {
    let r = Receiver::start(&[]);
    assert_eq!(r.logs(&logs(&["started", PHI])), 200);
    let out = r.stop();
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("logs request 1: resource 0 > scope 0 > record 1 > body"),
        "{}",
        out.stdout
    );
    assert_no_echo(&out.stdout);
}

#[test]
fn a_canary_in_a_metric_exemplar_is_a_leak() {
    let point = NumberDataPoint {
        attributes: vec![kv("http.route", "/readings")],
        exemplars: vec![Exemplar {
            filtered_attributes: vec![kv("comment", PHI)],
            ..Exemplar::default()
        }],
        ..NumberDataPoint::default()
    };
    let req = ExportMetricsServiceRequest {
        resource_metrics: vec![ResourceMetrics {
            resource: Some(resource()),
            scope_metrics: vec![ScopeMetrics {
                scope: Some(scope()),
                metrics: vec![Metric {
                    name: "http.server.duration".to_owned(),
                    data: Some(metric::Data::Gauge(Gauge {
                        data_points: vec![point],
                    })),
                    ..Metric::default()
                }],
                ..ScopeMetrics::default()
            }],
            ..ResourceMetrics::default()
        }],
    };
    let r = Receiver::start(&["--format", "json"]);
    assert_eq!(
        r.post("/v1/metrics", PROTOBUF, false, &req.encode_to_vec())
            .0,
        200
    );
    let out = r.stop();
    assert_eq!(out.code, 1);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("json report");
    let hit = &json["hits"][0];
    assert_eq!(hit["stream"], "metrics");
    assert_eq!(
        hit["field"],
        "resource 0 > scope 0 > metric 0 > point 0 > exemplar 0 > attribute \"comment\""
    );
    assert_no_echo(&out.stdout);
}

#[test]
fn a_base64_canary_in_an_attribute_is_found_by_decoding_with_its_chain() {
    use base64::Engine as _;
    // A gzip'd request body, base64'd into an attribute: no pre-computed variant matches it.
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    // Long enough to be Huffman-coded: a short body would be stored as it is, and its base64
    // would then hold a base64 variant of the canary.
    let body = format!("{{\"n\":\"{PHI}\"}}\n").repeat(20);
    gz.write_all(body.as_bytes()).expect("gzip");
    let encoded = base64::engine::general_purpose::STANDARD.encode(gz.finish().expect("gzip"));
    let r = Receiver::start(&[]);
    assert_eq!(
        r.traces(&traces(vec![span(
            "POST /x",
            vec![kv("http.request.body", &encoded)]
        )])),
        200
    );
    let out = r.stop();
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("decoded `base64>gzip>exact`"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("attribute \"http.request.body\""));
}

#[test]
fn a_gzip_body_is_decompressed_and_scanned() {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(&logs(&[PHI]).encode_to_vec()).expect("gzip");
    let body = gz.finish().expect("gzip");
    let r = Receiver::start(&[]);
    assert_eq!(r.post("/v1/logs", PROTOBUF, true, &body).0, 200);
    let out = r.stop();
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("record 0 > body"), "{}", out.stdout);
}

#[test]
fn a_json_body_is_read_and_answered_in_json() {
    // OTLP/JSON as the spec writes it: camelCase, hex ids, enum and int64 as they come.
    let body = format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"answers"}}}}]}},
        "scopeSpans":[{{"scope":{{"name":"answers"}},"spans":[{{"traceId":"5b8efff798038103d269b633813fc60c",
        "spanId":"eee19b7ec3c1b174","name":"GET /readings","kind":2,"startTimeUnixNano":"1544712660000000000",
        "attributes":[{{"key":"retries","value":{{"intValue":"3"}}}},{{"key":"note","value":{{"stringValue":"{PHI}"}}}}]}}]}}]}}]}}"#
    );
    let r = Receiver::start(&[]);
    let (status, answer) = r.post("/v1/traces", "application/json", false, body.as_bytes());
    assert_eq!(status, 200);
    assert_eq!(answer, b"{}");
    let out = r.stop();
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("span 0 > attribute \"note\""),
        "{}",
        out.stdout
    );
}

#[test]
fn a_body_that_does_not_decode_is_unreadable() {
    let r = Receiver::start(&[]);
    let (status, _) = r.post(
        "/v1/traces",
        PROTOBUF,
        false,
        b"\xff\xff\xff\xff not protobuf",
    );
    assert_eq!(status, 400);
    let (status, _) = r.post(
        "/v1/logs",
        "application/json",
        false,
        br#"{"resourceLogs": [{"scopeLogs": "Zebediah"}]}"#,
    );
    assert_eq!(status, 400);
    let out = r.stop();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stdout.contains("does not decode as protobuf"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("does not decode as OTLP/JSON"),
        "{}",
        out.stdout
    );
    // serde's message would quote the value; the report does not.
    assert!(!out.stdout.contains("Zebediah"), "{}", out.stdout);
}

#[test]
fn a_body_over_the_cap_is_unreadable() {
    let r = Receiver::start(&[]);
    let body = vec![b'x'; phi_canary::otlp::BODY_CAP + 1];
    // The receiver may answer 413 and close before the whole body is sent: either way the
    // request is refused.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let answer = agent
        .post(format!("http://{}/v1/traces", r.addr))
        .header("Content-Type", PROTOBUF)
        .send(&body[..]);
    if let Ok(answer) = answer {
        assert_eq!(answer.status().as_u16(), 413);
    }
    let out = r.stop();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("larger than the cap"), "{}", out.stdout);
}

#[test]
fn a_gzip_bomb_is_unreadable_not_a_crash() {
    // 66 gzip members of 1 MiB of zeros each: about 66 KiB that inflate past the 64 MiB cap.
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(&vec![0u8; 1 << 20]).expect("gzip");
    let member = gz.finish().expect("gzip");
    let body: Vec<u8> = member.repeat(66);
    let r = Receiver::start(&[]);
    assert_eq!(r.post("/v1/logs", PROTOBUF, true, &body).0, 413);
    let out = r.stop();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("decompression bomb"), "{}", out.stdout);
}

#[test]
fn a_request_cut_off_is_unreadable() {
    let r = Receiver::start(&[]);
    let mut stream = TcpStream::connect(r.addr).expect("connect");
    write!(
        stream,
        "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: {PROTOBUF}\r\nContent-Length: 1000\r\n\r\n0123456789"
    )
    .expect("send a partial request");
    stream.shutdown(std::net::Shutdown::Write).expect("close");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let out = r.stop();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("cut off"), "{}", out.stdout);
}

#[test]
fn no_request_is_inconclusive() {
    let r = Receiver::start(&["--expect-marker", NONCE]);
    let out = r.stop();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(out.stdout.contains("no request arrived"), "{}", out.stdout);
}

#[test]
fn a_missing_end_marker_is_inconclusive() {
    let r = Receiver::start(&["--expect-marker", NONCE]);
    assert_eq!(r.traces(&traces(vec![span(&marker("start"), vec![])])), 200);
    assert_eq!(r.traces(&traces(vec![span("GET /readings", vec![])])), 200);
    let out = r.stop();
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("(traces): no `phiguard-marker end fixture-0001` span or log record"),
        "{}",
        out.stdout
    );
}

#[test]
fn it_stops_by_itself_once_idle() {
    let r = Receiver::start(&["--idle", "0.3"]);
    assert_eq!(r.logs(&logs(&["GET /readings 200"])), 200);
    let out = r.wait();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("1 request"), "{}", out.stdout);
}
