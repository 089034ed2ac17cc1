//! One policy in front of several sinks: a JSON fmt layer and an OpenTelemetry layer exporting
//! to the SDK's in-memory exporter, with a per-layer filter inside; and the span-cache collision
//! between a wrapped and an unwrapped fmt layer.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use phi_filter::{DEFAULT_MARKER, PhiPolicy};
use serde_json::json;
use tracing::{debug, info, info_span};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::prelude::*;

use crate::support::{Buf, PHI, assert_no_phi};

#[test]
fn json_and_opentelemetry_both_see_only_redacted_values() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let otel = tracing_opentelemetry::layer().with_tracer(provider.tracer("phi-filter-test"));
    let buf = Buf::default();
    let json = phi_filter::json_layer(buf.0.clone()).with_filter(LevelFilter::INFO);
    let layer = PhiPolicy::default().wrap(json.and_then(otel));

    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
        let span = info_span!("load_record", record_id = "r-42", patient = PHI);
        let _e = span.enter();
        info!(row_count = 3, note = PHI, "loaded");
        debug!(
            user_id = 1,
            "filtered out of the JSON layer by its own LevelFilter"
        );
    });
    provider.force_flush().expect("flush");

    // The JSON sink: redacted, allowlisted fields intact, its per-layer filter still in force.
    let text = buf.text();
    assert_no_phi(&text);
    let lines = buf.json_lines();
    assert_eq!(
        lines.len(),
        1,
        "the DEBUG event must not pass the JSON layer's INFO filter"
    );
    assert_eq!(lines[0]["fields"]["row_count"], json!(3));
    assert_eq!(lines[0]["span"]["record_id"], json!("r-42"));
    assert_eq!(lines[0]["span"]["patient"], json!(DEFAULT_MARKER));

    // The OpenTelemetry sink: the exported span and its events.
    let spans = exporter.get_finished_spans().expect("spans");
    assert_eq!(spans.len(), 1);
    let span_debug = format!("{:?}", spans[0]);
    assert!(
        !span_debug.contains(PHI),
        "PHI reached OpenTelemetry: {span_debug}"
    );
    let attr = |key: &str| {
        spans[0]
            .attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.to_string())
    };
    assert_eq!(attr("record_id").as_deref(), Some("r-42"));
    assert_eq!(attr("patient").as_deref(), Some(DEFAULT_MARKER));
    let events: Vec<_> = spans[0].events.iter().collect();
    assert_eq!(
        events.len(),
        2,
        "both events reach OpenTelemetry, which has no level filter"
    );
    let event_attr = |key: &str| {
        events[0]
            .attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.to_string())
    };
    assert_eq!(event_attr("row_count").as_deref(), Some("3"));
    assert_eq!(event_attr("note").as_deref(), Some(DEFAULT_MARKER));
}

#[test]
fn a_wrapped_layer_does_not_share_the_span_cache_of_an_unwrapped_one() {
    let raw = Buf::default();
    let redacted = Buf::default();
    // An unwrapped JSON layer first, so it formats (and caches) the span's fields first.
    let unwrapped = tracing_subscriber::fmt::layer()
        .json()
        .with_writer(raw.0.clone());
    let wrapped = PhiPolicy::default().wrap(phi_filter::json_layer(redacted.0.clone()));
    let subscriber = tracing_subscriber::registry().with(unwrapped).with(wrapped);

    tracing::subscriber::with_default(subscriber, || {
        let span = info_span!("visit", patient = PHI, visit_id = "v-1");
        let _e = span.enter();
        info!(row_count = 1, "inside");
    });

    // Precondition: the unwrapped layer really saw the raw value.
    assert!(
        raw.text().contains(PHI),
        "the unwrapped layer should show the raw value"
    );
    assert_no_phi(&redacted.text());
    let line = &redacted.json_lines()[0];
    assert_eq!(line["span"]["patient"], json!(DEFAULT_MARKER));
    assert_eq!(line["span"]["visit_id"], json!("v-1"));
}

#[test]
fn text_format_is_redacted_too() {
    let buf = Buf::default();
    let layer = PhiPolicy::default().wrap(phi_filter::text_layer(buf.0.clone()));
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
        let span = info_span!("visit", patient = PHI, visit_id = "v-1");
        let _e = span.enter();
        span.record("patient", PHI);
        info!(row_count = 1, note = %PHI, "inside");
    });
    let text = buf.text();
    assert_no_phi(&text);
    assert!(text.contains("visit_id=\"v-1\""), "{text}");
    assert!(text.contains("row_count=1"), "{text}");
    assert!(text.contains("note=\"[redacted]\""), "{text}");
}
