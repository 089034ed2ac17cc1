//! The receiver fed by the real OTLP/HTTP exporter (`opentelemetry-otlp`, protobuf, gzip):
//! spans and log records made through the OpenTelemetry API and SDK, as a service makes them.
//! The exporter's transport is ureq behind `opentelemetry_http::HttpClient`, so the test needs
//! neither reqwest nor hyper's client.

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use opentelemetry::KeyValue;
use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _};
use opentelemetry::trace::{Span as _, Tracer as _, TracerProvider as _};
use opentelemetry_http::{HttpClient, HttpError};
use opentelemetry_otlp::{
    Compression, LogExporter, Protocol, SpanExporter, WithExportConfig as _, WithHttpConfig as _,
};
use opentelemetry_sdk::logs::SdkLoggerProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

use super::{NONCE, PHI, Receiver, marker};

/// A blocking ureq call behind the exporter's async client trait; the SDK's simple processors
/// drive it with a blocking executor.
#[derive(Debug)]
struct Ureq(ureq::Agent);

#[async_trait]
impl HttpClient for Ureq {
    async fn send_bytes(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let mut answer = self
            .0
            .run(http::Request::from_parts(parts, body.to_vec()))?;
        let status = answer.status();
        let body = answer.body_mut().read_to_vec()?;
        Ok(http::Response::builder()
            .status(status)
            .body(Bytes::from(body))?)
    }
}

fn client() -> Ureq {
    Ureq(
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into(),
    )
}

/// Exports, through the real exporter and gzip'd, a start marker span and log record, a span
/// and a log record of a request (with `note` as an attribute and as the log body), and the
/// end markers; then shuts the providers down.
fn export(r: &Receiver, note: &str) {
    let spans = SpanExporter::builder()
        .with_http()
        .with_http_client(client())
        .with_protocol(Protocol::HttpBinary)
        .with_compression(Compression::Gzip)
        .with_endpoint(format!("http://{}/v1/traces", r.addr))
        .build()
        .expect("a span exporter");
    let logs = LogExporter::builder()
        .with_http()
        .with_http_client(client())
        .with_protocol(Protocol::HttpBinary)
        .with_compression(Compression::Gzip)
        .with_endpoint(format!("http://{}/v1/logs", r.addr))
        .build()
        .expect("a log exporter");
    let tracers = SdkTracerProvider::builder()
        .with_simple_exporter(spans)
        .build();
    let loggers = SdkLoggerProvider::builder()
        .with_simple_exporter(logs)
        .build();
    let tracer = tracers.tracer("answers");
    let logger = loggers.logger("answers");
    let log = |body: String| {
        let mut record = logger.create_log_record();
        record.set_body(AnyValue::String(body.into()));
        record.add_attribute("code.module", "answers::http");
        logger.emit(record);
    };

    tracer.in_span(marker("start"), |_| {});
    log(marker("start"));
    let mut span = tracer.start("GET /readings");
    span.set_attribute(KeyValue::new("http.route", "/readings"));
    span.set_attribute(KeyValue::new("reading.comment", note.to_owned()));
    span.end();
    log(format!("answered: {note}"));
    tracer.in_span(marker("end"), |_| {});
    log(marker("end"));

    tracers.shutdown().expect("spans flushed");
    loggers.shutdown().expect("logs flushed");
}

#[test]
fn a_clean_export_from_the_real_exporter_is_clean() {
    let r = Receiver::start(&["--expect-marker", NONCE, "--format", "json"]);
    export(&r, "felt fine after the walk");
    let out = r.stop();
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("json report");
    let streams = &json["sources"][0]["streams"];
    // One request per span and per record with the simple processors.
    assert_eq!(streams[0]["lines"], 3, "{streams}");
    assert_eq!(streams[1]["lines"], 3, "{streams}");
}

#[test]
fn the_real_exporter_leaks_the_canary_in_a_span_attribute_and_a_log_body() {
    let r = Receiver::start(&["--expect-marker", NONCE]);
    export(&r, PHI);
    let out = r.stop();
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(
            "traces request 2: resource 0 > scope 0 > span 0 > attribute \"reading.comment\""
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("logs request 2: resource 0 > scope 0 > record 0 > body"),
        "{}",
        out.stdout
    );
    super::assert_no_echo(&out.stdout);
}
