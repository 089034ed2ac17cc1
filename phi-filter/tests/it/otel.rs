//! OpenTelemetry's own API: what `OpenTelemetrySpanExt::set_attribute`, span events, span names
//! and log records carry reaches the SDK's in-memory exporters judged by the same policy.

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _};
use opentelemetry::trace::{Span as _, Status, Tracer as _, TracerProvider as _};
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::logs::{InMemoryLogExporter, SdkLoggerProvider, SimpleLogProcessor};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SimpleSpanProcessor};
use phi_filter::{CANARY_MARKER, DEFAULT_MARKER, ERROR_MARKER, PhiPolicy, PseudonymKey};
use tracing::{info, info_span};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::prelude::*;

use crate::support::PHI;

const CANARY: &str = "self-tracked PHI-CANARY-3f9a";

fn policy() -> PhiPolicy {
    PhiPolicy::default()
        .tripwire(["PHI-CANARY-3f9a"])
        .pseudonym_key(PseudonymKey::new(&[3; 32]).expect("a key"))
        .pseudonymize("mrn")
}

fn tracer(policy: PhiPolicy) -> (InMemorySpanExporter, SdkTracerProvider) {
    let exporter = InMemorySpanExporter::default();
    let processor =
        phi_filter::PhiSpanProcessor::new(policy, SimpleSpanProcessor::new(exporter.clone()))
            .expect("a valid policy");
    let provider = SdkTracerProvider::builder()
        .with_span_processor(processor)
        .build();
    (exporter, provider)
}

fn attr(attributes: &[KeyValue], key: &str) -> Option<Value> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.clone())
}

#[test]
fn set_attribute_through_the_tracing_bridge_reaches_the_exporter_judged() {
    let policy = policy();
    let stats = policy.stats();
    let (exporter, provider) = tracer(policy.clone());
    let otel = tracing_opentelemetry::layer().with_tracer(provider.tracer("phi-filter-test"));
    // The tracing layer is wrapped too: the processor is the net for what bypasses it.
    let layer = policy.wrap(otel);
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
        let span = info_span!("load_record", record_id = "r-42");
        span.set_attribute("comment", CANARY);
        span.set_attribute("note", PHI);
        span.set_attribute("row_count", 3i64);
        span.set_attribute("request_id", "req-9f3a7c21d4e5b6a8");
        span.set_attribute("mrn", "MRN-0042");
        // An event name is a message: kept (bounded) unless strict, scanned by the tripwire.
        span.add_event(format!("seen {CANARY}"), vec![KeyValue::new("note", PHI)]);
        span.set_status(Status::error(format!("lookup failed for {PHI}")));
        let _e = span.enter();
        info!(row_count = 3, "loaded");
    });
    provider.force_flush().expect("flush");
    let spans = exporter.get_finished_spans().expect("spans");
    assert_eq!(spans.len(), 1);
    let span = &spans[0];
    let debug = format!("{span:?}");
    assert!(
        !debug.contains("PHI-CANARY-3f9a"),
        "canary exported: {debug}"
    );
    assert!(!debug.contains(PHI), "PHI exported: {debug}");
    assert!(!debug.contains("MRN-0042"), "mrn exported: {debug}");
    let a = |k| attr(&span.attributes, k);
    // `comment` is not an allowed name, so it is redacted before the tripwire is asked.
    assert_eq!(a("comment"), Some(Value::from(DEFAULT_MARKER)));
    assert_eq!(a("note"), Some(Value::from(DEFAULT_MARKER)));
    assert_eq!(a("row_count"), Some(Value::I64(3)));
    assert_eq!(a("request_id"), Some(Value::from("req-9f3a7c21d4e5b6a8")));
    assert_eq!(a("record_id"), Some(Value::from("r-42")));
    let token = phi_filter::pseudonym(&PseudonymKey::new(&[3; 32]).expect("key"), "MRN-0042");
    assert_eq!(a("mrn"), Some(Value::from(token)));
    // tracing-opentelemetry's own keys pass.
    assert!(a("code.file.path").is_some() || a("target").is_some() || a("level").is_some());
    assert_eq!(span.name, "load_record");
    assert_eq!(span.status, Status::error(ERROR_MARKER));
    let otel_event = span
        .events
        .iter()
        .find(|e| attr(&e.attributes, "note").is_some())
        .expect("the OTel-API event");
    assert_eq!(
        attr(&otel_event.attributes, "note"),
        Some(Value::from(DEFAULT_MARKER))
    );
    assert_eq!(otel_event.name, CANARY_MARKER);
    let s = stats.snapshot();
    assert!(s.fields_redacted >= 3, "{s:?}");
    assert_eq!(s.fields_pseudonymized, 1);
    assert_eq!(s.errors_scrubbed, 1);
}

#[test]
fn the_otel_api_directly_is_judged_too() {
    let (exporter, provider) = tracer(policy());
    let tracer = provider.tracer("direct");
    let mut span = tracer.start(format!("GET /patients/{CANARY}"));
    span.set_attribute(KeyValue::new("user_id", "jsmith"));
    span.set_attribute(KeyValue::new("status", "ok"));
    span.set_attribute(KeyValue::new(
        "trace_ids",
        Value::Array(opentelemetry::Array::String(vec![
            "9f3a7c21d4e5b6a8".into(),
            "alice@example.org".into(),
        ])),
    ));
    span.add_event("checked", vec![KeyValue::new("elapsed_ms", 12i64)]);
    span.end();
    provider.force_flush().expect("flush");
    let spans = exporter.get_finished_spans().expect("spans");
    let span = &spans[0];
    assert_eq!(span.name, CANARY_MARKER, "the span name is scanned");
    assert_eq!(
        attr(&span.attributes, "user_id"),
        Some(Value::from(DEFAULT_MARKER))
    );
    assert_eq!(attr(&span.attributes, "status"), Some(Value::from("ok")));
    let ids = attr(&span.attributes, "trace_ids")
        .expect("kept")
        .to_string();
    assert!(
        ids.contains("9f3a7c21d4e5b6a8") && !ids.contains("alice"),
        "{ids}"
    );
    assert_eq!(span.events[0].name, "checked");
    assert_eq!(
        attr(&span.events[0].attributes, "elapsed_ms"),
        Some(Value::I64(12))
    );
}

#[test]
fn log_records_are_judged() {
    let exporter = InMemoryLogExporter::default();
    let processor =
        phi_filter::PhiLogProcessor::new(policy(), SimpleLogProcessor::new(exporter.clone()))
            .expect("a valid policy");
    let provider = SdkLoggerProvider::builder()
        .with_log_processor(processor)
        .build();
    let logger = provider.logger("phi-filter-test");
    let mut record = logger.create_log_record();
    record.set_body(format!("stored for {CANARY}").into());
    record.set_severity_text("INFO");
    record.add_attribute("comment", PHI);
    record.add_attribute("row_count", 3);
    record.add_attribute("mrn", "MRN-0042");
    record.add_attribute("tags", AnyValue::ListAny(Box::new(vec![PHI.into()])));
    logger.emit(record);
    let mut plain = logger.create_log_record();
    plain.set_body("stored".into());
    plain.add_attribute("user_id", "usr_01h8xg7k2m3n4p5q6r7s8t9v0w");
    logger.emit(plain);
    let logs = exporter.get_emitted_logs().expect("logs");
    assert_eq!(logs.len(), 2);
    let debug = format!("{:?}", logs[0].record);
    assert!(
        !debug.contains(PHI) && !debug.contains("PHI-CANARY"),
        "{debug}"
    );
    assert!(!debug.contains("MRN-0042"), "{debug}");
    let get = |i: usize, k: &str| {
        logs[i]
            .record
            .attributes_iter()
            .find(|(key, _)| key.as_str() == k)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(logs[0].record.body(), Some(&AnyValue::from(CANARY_MARKER)));
    assert_eq!(logs[0].record.severity_text(), Some("INFO"));
    assert_eq!(get(0, "comment"), Some(AnyValue::from(DEFAULT_MARKER)));
    assert_eq!(get(0, "row_count"), Some(AnyValue::Int(3)));
    assert_eq!(get(0, "tags"), Some(AnyValue::from(DEFAULT_MARKER)));
    let token = phi_filter::pseudonym(&PseudonymKey::new(&[3; 32]).expect("key"), "MRN-0042");
    assert_eq!(get(0, "mrn"), Some(AnyValue::from(token)));
    assert_eq!(logs[1].record.body(), Some(&AnyValue::from("stored")));
    assert_eq!(
        get(1, "user_id"),
        Some(AnyValue::from("usr_01h8xg7k2m3n4p5q6r7s8t9v0w"))
    );
}

#[test]
fn a_processor_refuses_a_pseudonym_without_a_key() {
    let refused = phi_filter::PhiSpanProcessor::new(
        PhiPolicy::default().pseudonymize("mrn"),
        SimpleSpanProcessor::new(InMemorySpanExporter::default()),
    );
    assert!(matches!(refused, Err(phi_filter::PolicyError::NoKey(_))));
}
