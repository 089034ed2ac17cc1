//! The telemetry layer: phi-canary's OTLP receiver, in-process on a loopback port, takes what
//! `answers serve --otlp-endpoint` exports while it is driven, and is stopped once the service
//! has exited (and so flushed). It must be clean, with the marker span and log record of the
//! run's nonce on both signals, and hold at least one span per call the pipeline made: a clean
//! verdict on an export that carried nothing cannot pass.

use std::net::SocketAddr;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, anyhow};
use phi_canary::otlp::{self, Options, Signal};
use phi_canary::report::StreamReport;
use phi_canary::{Matcher, Nonce, Report, VariantSet, canary};

use crate::e2e::LISTED_HITS;
use crate::report::Layer;

/// How long the receiver may take to bind.
const BIND_TIMEOUT: Duration = Duration::from_secs(30);

/// The receiver, serving on a thread of its own until [`Receiver::stop`].
pub(crate) struct Receiver {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    thread: JoinHandle<std::io::Result<Report>>,
}

impl Receiver {
    /// Listens on a free loopback port, scanning for the per-run canary and the demo canary
    /// with every encoding and decoding, and requiring the markers of `nonce`.
    pub(crate) fn start(run_canary: &str, nonce: &Nonce) -> anyhow::Result<Receiver> {
        let canaries = canary::select(&[run_canary.to_owned()], true)?;
        let matcher = Matcher::new(canaries, VariantSet::All, Some(nonce.clone()))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (bound, address) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let options = Options {
                listen: "127.0.0.1:0".into(),
                idle: None,
            };
            otlp::serve_until(
                matcher,
                &options,
                &mut |addr| {
                    let _ = bound.send(addr);
                },
                async {
                    let _ = stopped.await;
                },
            )
        });
        match address.recv_timeout(BIND_TIMEOUT) {
            Ok(addr) => Ok(Receiver { addr, stop, thread }),
            Err(_) => Err(match thread.join() {
                Ok(Err(e)) => anyhow!(e).context("the OTLP receiver could not listen"),
                _ => anyhow!("the OTLP receiver did not listen"),
            }),
        }
    }

    /// `--otlp-endpoint` for a service on this machine's network.
    pub(crate) fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops the receiver (the service has exited) and gives its report.
    pub(crate) fn stop(self) -> anyhow::Result<Report> {
        let _ = self.stop.send(());
        self.thread
            .join()
            .map_err(|_| anyhow!("the OTLP receiver panicked"))?
            .context("the OTLP receiver failed")
    }
}

fn stream(report: &Report, signal: Signal) -> Option<&StreamReport> {
    report
        .sources
        .iter()
        .flat_map(|s| &s.streams)
        .find(|s| s.name == signal.name())
}

/// The telemetry layer's line: what arrived, the markers, the hits, and at least one span per
/// call among the `calls` the pipeline made.
pub(crate) fn layer(report: &Report, calls: u64) -> Layer {
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
    layer.figure("export requests", requests);
    layer.figure("spans", spans);
    layer.figure("log records", items(logs).saturating_sub(markers(logs)));
    layer.figure("markers proven", format!("{}/2", report.proven_streams()));
    layer.figure("hits", report.hits_total);
    layer.figure("verdict", format!("{:?}", report.verdict()).to_lowercase());
    for (signal, s) in [(Signal::Traces, traces), (Signal::Logs, logs)] {
        if s.is_none_or(|s| s.lines == 0) {
            layer.fail(format!("the service exported no {}", signal.name()));
        }
    }
    if spans < calls {
        layer.fail(format!(
            "{spans} spans besides the markers for {calls} calls: a request was not traced"
        ));
    }
    for hit in report.hits.iter().take(LISTED_HITS) {
        layer.fail(format!("leak: {hit}"));
    }
    crate::e2e::fail_on_the_rest(&mut layer, report);
    layer
}

#[cfg(test)]
mod tests {
    use phi_canary::otlp::{Receiver, Signal};
    use phi_canary::{Canary, Matcher, Nonce, VariantSet};

    use super::layer;

    const NONCE: &str = "phi-ci-test-0001";

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

    #[test]
    fn a_span_per_call_with_both_markers_passes() {
        let report = exported(&["GET /api/v1/health-indicators", "/mcp"]).report("otlp:test");
        let l = layer(&report, 2);
        assert!(l.passed(), "{:?}", l.failures);
        let figures: Vec<String> = l.figures.iter().map(|(k, v)| format!("{k} {v}")).collect();
        assert_eq!(
            figures,
            [
                "export requests 2",
                "spans 2",
                "log records 1",
                "markers proven 2/2",
                "hits 0",
                "verdict clean"
            ]
        );
    }

    #[test]
    fn fewer_spans_than_calls_fails_though_the_verdict_is_clean() {
        let report = exported(&["/mcp"]).report("otlp:test");
        assert_eq!(report.exit_code(), 0);
        let l = layer(&report, 2);
        assert!(!l.passed());
        assert!(
            l.failures[0].contains("1 spans besides the markers for 2 calls"),
            "{:?}",
            l.failures
        );
    }

    #[test]
    fn an_export_without_logs_or_without_anything_fails() {
        let mut r = receiver();
        let (start, end) = (
            format!("phiguard-marker start {NONCE}"),
            format!("phiguard-marker end {NONCE}"),
        );
        receive(&mut r, Signal::Traces, &spans(&[&start, "/mcp", &end]));
        let report = r.report("otlp:test");
        // The receiver asks logs for markers only once some arrived: the layer asks for them.
        assert_eq!(report.exit_code(), 0);
        let l = layer(&report, 1);
        assert_eq!(l.failures, ["the service exported no logs"]);

        let l = layer(&receiver().report("otlp:test"), 0);
        assert!(
            l.failures
                .contains(&"the service exported no traces".to_owned()),
            "{:?}",
            l.failures
        );
        assert!(
            l.failures.iter().any(|f| f.starts_with("inconclusive")),
            "{:?}",
            l.failures
        );
    }

    #[test]
    fn a_leak_is_named_by_its_place_never_its_value() {
        let report = exported(&["/mcp", "lookup Zebediah PHI-CANARY-3f9a"]).report("otlp:test");
        let l = layer(&report, 1);
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
