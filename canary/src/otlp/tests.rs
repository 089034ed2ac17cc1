//! Unit tests of the receiver, without a network: where a hit is named, the depth bound, the
//! near miss, the markers' order, and what is refused.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::{AnyValue, ArrayValue, KeyValue, KeyValueList};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

use super::{Encoding, MAX_VALUE_DEPTH, PayloadError, Receiver, Signal};
use crate::report::Format;
use crate::{Canary, Matcher, Nonce, VariantSet};

fn receiver(nonce: Option<&str>) -> Receiver {
    let nonce = nonce.map(|n| Nonce::new(n).expect("a valid nonce"));
    let m = Matcher::new(vec![Canary::demo(), Canary::core()], VariantSet::All, nonce)
        .expect("a matcher");
    Receiver::new(m)
}

fn text(s: &str) -> AnyValue {
    AnyValue {
        value: Some(Value::StringValue(s.to_owned())),
    }
}

fn kv(key: &str, value: AnyValue) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(value),
        ..KeyValue::default()
    }
}

fn request(spans: Vec<Span>) -> Vec<u8> {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            scope_spans: vec![ScopeSpans {
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
    .encode_to_vec()
}

fn span(name: &str, attributes: Vec<KeyValue>) -> Span {
    Span {
        name: name.to_owned(),
        attributes,
        ..Span::default()
    }
}

fn send(r: &mut Receiver, body: &[u8]) -> Result<Encoding, PayloadError> {
    r.receive(Signal::Traces, Some("application/x-protobuf"), None, body)
}

#[test]
fn a_hit_deep_in_a_kvlist_is_named_by_its_path() {
    let inner = AnyValue {
        value: Some(Value::KvlistValue(KeyValueList {
            values: vec![kv("note", text("PHI-CANARY-3f9a"))],
        })),
    };
    let array = AnyValue {
        value: Some(Value::ArrayValue(ArrayValue {
            values: vec![text("x"), inner],
        })),
    };
    let mut r = receiver(None);
    send(
        &mut r,
        &request(vec![span("GET", vec![kv("items", array)])]),
    )
    .expect("scanned");
    let report = r.report("otlp:test");
    assert_eq!(report.hits_total, 1);
    assert_eq!(
        report.hits[0].field.as_deref(),
        Some("resource 0 > scope 0 > span 0 > attribute \"items\" > [1] > attribute \"note\"")
    );
    assert_eq!((report.hits[0].line, report.hits[0].offset), (1, 0));
}

#[test]
fn a_value_nested_past_the_bound_is_an_error_not_a_skip() {
    let mut value = text("PHI-CANARY-3f9b");
    for _ in 0..=MAX_VALUE_DEPTH {
        value = AnyValue {
            value: Some(Value::ArrayValue(ArrayValue {
                values: vec![value],
            })),
        };
    }
    let mut r = receiver(None);
    let err =
        send(&mut r, &request(vec![span("GET", vec![kv("deep", value)])])).expect_err("too deep");
    assert!(matches!(err, PayloadError::TooDeep { .. }), "{err}");
    assert_eq!(r.report("otlp:test").exit_code(), 2);
}

#[test]
fn the_near_miss_is_not_a_hit_in_any_field() {
    let mut r = receiver(None);
    let near = "self-tracked PHI-CANARY-3f9b";
    send(
        &mut r,
        &request(vec![span(near, vec![kv(near, text(near))])]),
    )
    .expect("scanned");
    let report = r.report("otlp:test");
    assert_eq!(report.exit_code(), 0, "{:?}", report.hits);
}

#[test]
fn an_end_marker_before_the_start_does_not_prove_the_export() {
    let nonce = "fixture-0001";
    let mut r = receiver(Some(nonce));
    let end = format!("phiguard-marker end {nonce}");
    let start = format!("phiguard-marker start {nonce}");
    send(
        &mut r,
        &request(vec![span(&end, vec![]), span(&start, vec![])]),
    )
    .expect("scanned");
    let report = r.report("otlp:test");
    assert_eq!(report.exit_code(), 3);
    // Logs got no request, traces did: only traces must carry the markers.
    let streams = &report.sources[0].streams;
    assert!(streams[0].expects_markers && !streams[1].expects_markers);
}

#[test]
fn a_restart_shows_a_start_without_its_end() {
    let nonce = "fixture-0001";
    let mut r = receiver(Some(nonce));
    let names = ["start", "end", "start"].map(|k| format!("phiguard-marker {k} {nonce}"));
    for name in &names {
        send(&mut r, &request(vec![span(name, vec![])])).expect("scanned");
    }
    let report = r.report("otlp:test");
    assert_eq!(report.exit_code(), 3);
    assert!(
        report.unproven()[0].contains("2 start and 1 end"),
        "{:?}",
        report.unproven()
    );
}

#[test]
fn an_unknown_content_type_or_encoding_is_refused() {
    let mut r = receiver(None);
    let body = request(vec![span("GET", vec![])]);
    let e = r
        .receive(Signal::Traces, Some("text/plain"), None, &body)
        .expect_err("refused");
    assert_eq!(e.status(), 415);
    let e = r
        .receive(
            Signal::Traces,
            Some("application/x-protobuf"),
            Some("br"),
            &body,
        )
        .expect_err("refused");
    assert_eq!(e.status(), 415);
    let report = r.report("otlp:test");
    assert_eq!(report.exit_code(), 2);
    assert_eq!(
        report.sources[0].streams[0].lines, 2,
        "both requests counted"
    );
}

#[test]
fn a_hit_wins_over_an_error() {
    let mut r = receiver(None);
    send(&mut r, b"\xff\xff").expect_err("not protobuf");
    send(
        &mut r,
        &request(vec![span("GET", vec![kv("q", text("PHI-CANARY-3F9A"))])]),
    )
    .expect("scanned");
    let report = r.report("otlp:test");
    assert_eq!(report.exit_code(), 1);
    assert_eq!(report.hits[0].line, 2, "the second request");
}

#[test]
fn spans_are_counted_by_the_names_asked_for_and_no_other_name_is_reported() {
    let mut r = receiver(None).count_spans(["/mcp".to_owned(), "GET /a".to_owned()]);
    let leaking = "lookup Zebediah PHI-CANARY-3f9a";
    for spans in [
        vec![span("/mcp", vec![]), span(leaking, vec![])],
        vec![span("/mcp", vec![]), span("/mcp2", vec![])],
    ] {
        send(&mut r, &request(spans)).expect("scanned");
    }
    let report = r.report("otlp:test");
    assert_eq!(report.hits_total, 1, "the span name is scanned as ever");
    let traces = &report.sources[0].streams[0];
    let named: Vec<(&str, u64)> = traces
        .spans_named
        .iter()
        .flatten()
        .map(|(n, c)| (n.as_str(), *c))
        .collect();
    assert_eq!(named, [("/mcp", 2), ("GET /a", 0)]);
    // Only traces count names; no name read from a payload reaches a report.
    assert!(
        report.sources[0].streams[1..]
            .iter()
            .all(|s| s.spans_named.is_none())
    );
    for format in [Format::Json, Format::Human, Format::Sarif] {
        let mut out = Vec::new();
        report.write(format, &mut out).expect("written");
        let out = String::from_utf8(out).expect("utf-8");
        assert!(!out.contains("Zebediah") && !out.contains("/mcp2"), "{out}");
    }
    let mut json = Vec::new();
    report.write(Format::Json, &mut json).expect("written");
    let json: serde_json::Value = serde_json::from_slice(&json).expect("json");
    assert_eq!(
        json["sources"][0]["streams"][0]["spans_named"],
        serde_json::json!({"/mcp": 2, "GET /a": 0})
    );
}
