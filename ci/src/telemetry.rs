//! The telemetry layer: phi-canary's OTLP receiver, in-process on a loopback port, takes what
//! `answers serve --otlp-endpoint` exports while it is driven, and is stopped once the service
//! has exited (and so flushed). It must be clean, with the marker span and log record of the
//! run's nonce on both signals, and hold for each route driven at least one span of that route
//! per call made to it: a clean verdict on an export that carried nothing cannot pass, and
//! neither can one where another route's extra spans stand in for a route's missing ones.

use std::collections::BTreeMap;

use anyhow::Context;
use phi_canary::otlp::{Background, Signal};
use phi_canary::report::StreamReport;
use phi_canary::{Matcher, Nonce, Report, VariantSet, canary};

use crate::e2e::LISTED_HITS;
use crate::report::Layer;

/// The routes the pipelines drive, by the names of the spans the service runs them in.
pub(crate) const ROUTES: [&str; 2] = [crate::drive::SPAN, crate::mcp::ROUTE];

/// Starts the receiver on a free loopback port, scanning for the per-run canary and the demo
/// canary with every encoding and decoding, requiring the markers of `nonce`, and counting the
/// spans of each of `routes` (span names).
pub(crate) fn start(
    run_canary: &str,
    nonce: &Nonce,
    routes: &[&str],
) -> anyhow::Result<Background> {
    let canaries = canary::select(&[run_canary.to_owned()], true)?;
    let matcher = Matcher::new(canaries, VariantSet::All, Some(nonce.clone()))?;
    let routes = routes.iter().map(|&r| r.to_owned()).collect();
    Background::start(matcher, routes).context("the OTLP receiver could not listen")
}

/// Stops the receiver (the service has exited) and gives its report.
pub(crate) fn stop(receiver: Background) -> anyhow::Result<Report> {
    receiver.stop().context("the OTLP receiver failed")
}

fn stream(report: &Report, signal: Signal) -> Option<&StreamReport> {
    report
        .sources
        .iter()
        .flat_map(|s| &s.streams)
        .find(|s| s.name == signal.name())
}

/// The telemetry layer's line: what arrived, the markers, the hits, and for each route (span
/// name) of `calls`, at least one span of it per call the pipeline made to it.
pub(crate) fn layer(report: &Report, calls: &BTreeMap<&'static str, u64>) -> Layer {
    let mut layer = Layer::new("telemetry");
    let traces = stream(report, Signal::Traces);
    let logs = stream(report, Signal::Logs);
    let items = |s: Option<&StreamReport>| s.and_then(|s| s.items).unwrap_or(0);
    let markers =
        |s: Option<&StreamReport>| s.map_or(0, |s| u64::from(s.markers.start + s.markers.end));
    let requests: u64 = report
        .sources
        .iter()
        .flat_map(|s| &s.streams)
        .map(|s| s.lines)
        .sum();
    let spans = items(traces).saturating_sub(markers(traces));
    let named = traces.and_then(|s| s.spans_named.as_ref());
    let per_route: Vec<(&str, u64, u64)> = calls
        .iter()
        .map(|(&route, &n)| {
            let seen = named.and_then(|m| m.get(route)).copied().unwrap_or(0);
            (route, seen, n)
        })
        .collect();
    layer.figure("export requests", requests);
    layer.figure("spans", spans);
    layer.figure(
        "spans per route",
        per_route
            .iter()
            .map(|(route, seen, n)| format!("{route} {seen}/{n}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    layer.figure("log records", items(logs).saturating_sub(markers(logs)));
    layer.figure("markers proven", format!("{}/2", report.proven_streams()));
    layer.figure("hits", report.hits_total);
    layer.figure("verdict", format!("{:?}", report.verdict()).to_lowercase());
    for (signal, s) in [(Signal::Traces, traces), (Signal::Logs, logs)] {
        if s.is_none_or(|s| s.lines == 0) {
            layer.fail(format!("the service exported no {}", signal.name()));
        }
    }
    if calls.is_empty() {
        layer.fail("no route was driven: there is nothing to compare the spans with");
    }
    for (route, seen, n) in per_route {
        if seen < n {
            layer.fail(format!(
                "{seen} spans of `{route}` for {n} calls to it: a request was not traced"
            ));
        }
    }
    for hit in report.hits.iter().take(LISTED_HITS) {
        layer.fail(format!("leak: {hit}"));
    }
    crate::e2e::fail_on_the_rest(&mut layer, report);
    layer
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use phi_canary::otlp::{Receiver, Signal};
    use phi_canary::{Canary, Matcher, Nonce, VariantSet};

    use super::layer;

    const NONCE: &str = "phi-ci-test-0001";
    const REST: &str = crate::drive::SPAN;
    const MCP: &str = crate::mcp::ROUTE;

    /// An OTLP/JSON traces request with these span names.
    fn spans(names: &[&str]) -> String {
        let spans: Vec<String> = names
            .iter()
            .map(|n| format!(r#"{{"name":"{n}"}}"#))
            .collect();
        format!(
            r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{}]}}]}}]}}"#,
            spans.join(",")
        )
    }

    /// An OTLP/JSON logs request with these bodies.
    fn records(bodies: &[&str]) -> String {
        let records: Vec<String> = bodies
            .iter()
            .map(|b| format!(r#"{{"body":{{"stringValue":"{b}"}}}}"#))
            .collect();
        format!(
            r#"{{"resourceLogs":[{{"scopeLogs":[{{"logRecords":[{}]}}]}}]}}"#,
            records.join(",")
        )
    }

    fn receiver() -> Receiver {
        let nonce = Nonce::new(NONCE).unwrap();
        Receiver::new(Matcher::new(vec![Canary::core()], VariantSet::All, Some(nonce)).unwrap())
            .count_spans([REST.to_owned(), MCP.to_owned()])
    }

    fn receive(r: &mut Receiver, signal: Signal, body: &str) {
        r.receive(signal, Some("application/json"), None, body.as_bytes())
            .unwrap();
    }

    /// A run whose export carried the markers on both signals and `names` as spans between.
    fn exported(names: &[&str]) -> Receiver {
        let (start, end) = (
            format!("phiguard-marker start {NONCE}"),
            format!("phiguard-marker end {NONCE}"),
        );
        let mut r = receiver();
        let mut all = vec![start.as_str()];
        all.extend(names);
        all.push(&end);
        receive(&mut r, Signal::Traces, &spans(&all));
        receive(
            &mut r,
            Signal::Logs,
            &records(&[&start, "answers serving", &end]),
        );
        r
    }

    fn calls(per_route: &[(&'static str, u64)]) -> BTreeMap<&'static str, u64> {
        per_route.iter().copied().collect()
    }

    #[test]
    fn a_span_per_call_of_each_route_with_both_markers_passes() {
        let report = exported(&[REST, MCP, MCP]).report("otlp:test");
        let l = layer(&report, &calls(&[(REST, 1), (MCP, 2)]));
        assert!(l.passed(), "{:?}", l.failures);
        let figures: Vec<String> = l.figures.iter().map(|(k, v)| format!("{k} {v}")).collect();
        assert_eq!(
            figures,
            [
                "export requests 2",
                "spans 3",
                "spans per route /mcp 2/2, GET /api/v1/health-indicators 1/1",
                "log records 1",
                "markers proven 2/2",
                "hits 0",
                "verdict clean"
            ]
        );
    }

    #[test]
    fn fewer_spans_than_calls_fails_though_the_verdict_is_clean() {
        let report = exported(&[MCP]).report("otlp:test");
        assert_eq!(report.exit_code(), 0);
        let l = layer(&report, &calls(&[(REST, 1), (MCP, 1)]));
        assert_eq!(
            l.failures,
            [
                "0 spans of `GET /api/v1/health-indicators` for 1 calls to it: a request was not traced"
            ]
        );
    }

    #[test]
    fn another_routes_extra_spans_cannot_stand_in_for_a_missing_one() {
        // Three spans for three calls in all, but none of the REST route's.
        let report = exported(&[MCP, MCP, MCP, "GET /other"]).report("otlp:test");
        assert_eq!(report.exit_code(), 0);
        let l = layer(&report, &calls(&[(REST, 1), (MCP, 2)]));
        assert_eq!(
            l.failures,
            [
                "0 spans of `GET /api/v1/health-indicators` for 1 calls to it: a request was not traced"
            ]
        );
        // The other direction: every REST span there, the MCP route's missing.
        let report = exported(&[REST, REST, REST]).report("otlp:test");
        let l = layer(&report, &calls(&[(REST, 1), (MCP, 2)]));
        assert_eq!(
            l.failures,
            ["0 spans of `/mcp` for 2 calls to it: a request was not traced"]
        );
    }

    #[test]
    fn an_export_without_logs_or_without_anything_fails() {
        let mut r = receiver();
        let (start, end) = (
            format!("phiguard-marker start {NONCE}"),
            format!("phiguard-marker end {NONCE}"),
        );
        receive(&mut r, Signal::Traces, &spans(&[&start, MCP, &end]));
        let report = r.report("otlp:test");
        // The receiver asks logs for markers only once some arrived: the layer asks for them.
        assert_eq!(report.exit_code(), 0);
        let l = layer(&report, &calls(&[(MCP, 1)]));
        assert_eq!(l.failures, ["the service exported no logs"]);

        let l = layer(&receiver().report("otlp:test"), &BTreeMap::new());
        for expected in [
            "the service exported no traces",
            "no route was driven: there is nothing to compare the spans with",
        ] {
            assert!(
                l.failures.contains(&expected.to_owned()),
                "{:?}",
                l.failures
            );
        }
        assert!(
            l.failures.iter().any(|f| f.starts_with("inconclusive")),
            "{:?}",
            l.failures
        );
    }

    #[test]
    fn a_leak_is_named_by_its_place_never_its_value() {
        let report = exported(&[MCP, "lookup Zebediah PHI-CANARY-3f9a"]).report("otlp:test");
        let l = layer(&report, &calls(&[(MCP, 1)]));
        let text = l.failures.join("\n");
        assert!(text.contains("leak: canary `core` found"), "{text}");
        assert!(
            text.contains("traces request 1, resource 0 > scope 0 > span 2 > name"),
            "{text}"
        );
        assert!(
            !text.contains("PHI-CANARY") && !text.contains("Zebediah"),
            "{text}"
        );
    }
}
