//! Snapshots of the three formats for a leak, an inconclusive and an unreadable report, the
//! verdict order, and the SARIF validated against the official SARIF 2.1.0 schema.

use serde_json::Value;

use super::{CanarySummary, Format, Hit, Report, SourceReport, StreamReport, Verdict, exit};
use crate::marker::MarkerTally;
use crate::variant::{Variant, VariantSet};

fn tally(start: Option<u64>, end: Option<u64>) -> MarkerTally {
    MarkerTally {
        start: u32::from(start.is_some()),
        end: u32::from(end.is_some()),
        first_start: start,
        last_end: end,
        last_start: start,
    }
}

fn stream(name: &'static str, bytes: u64, markers: MarkerTally, hits: u64) -> StreamReport {
    StreamReport {
        name,
        bytes,
        lines: bytes / 40,
        expects_markers: name != "stderr" || bytes > 0,
        markers,
        hits,
        items: None,
        spans_named: None,
    }
}

fn hit(source: &str, stream: &'static str, line: u64, offset: u64, variant: Variant) -> Hit {
    Hit {
        source: source.to_owned(),
        stream,
        line,
        offset,
        variant,
        chain: None,
        canary: "demo".to_owned(),
        field: None,
    }
}

/// Two sources: a file with a hit, and a container with a hit on stderr and a warning.
fn leak_report() -> Report {
    let proven = tally(Some(0), Some(4000));
    Report {
        canaries: vec![
            CanarySummary {
                id: "demo".to_owned(),
                patterns: 11,
            },
            CanarySummary {
                id: "core".to_owned(),
                patterns: 8,
            },
        ],
        variants: VariantSet::All,
        marker: Some("run-0042".to_owned()),
        sources: vec![
            SourceReport {
                name: "logs/app out.log".to_owned(),
                kind: "file",
                streams: vec![stream("file", 4040, proven, 1)],
                warnings: Vec::new(),
                error: None,
            },
            SourceReport {
                name: "docker:answers".to_owned(),
                kind: "docker",
                streams: vec![
                    stream("stdout", 8000, proven, 0),
                    stream("stderr", 6000, proven, 2),
                ],
                warnings: vec!["logging mode is non-blocking: docker drops lines".to_owned()],
                error: None,
            },
        ],
        hits: vec![
            hit("logs/app out.log", "file", 12, 480, Variant::Exact),
            hit("docker:answers", "stderr", 3, 97, Variant::Base64At2),
        ],
        hits_total: 3,
    }
}

/// A file without its end marker, and a container whose `docker logs` failed.
fn unproven_report(with_error: bool) -> Report {
    let mut report = leak_report();
    report.hits.clear();
    report.hits_total = 0;
    for source in &mut report.sources {
        for s in &mut source.streams {
            s.hits = 0;
        }
        source.warnings.clear();
    }
    report.sources[0].streams[0].markers = tally(Some(0), None);
    if with_error {
        report.sources[1].error = Some("`docker logs answers` failed (exit status 1)".to_owned());
    }
    report
}

fn render(report: &Report, format: Format) -> String {
    let mut out = Vec::new();
    report.write(format, &mut out).expect("writing to a Vec");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn verdicts_rank_leak_then_unreadable_then_inconclusive() {
    let leak = leak_report();
    assert_eq!(
        (leak.verdict(), leak.exit_code()),
        (Verdict::Leak, exit::LEAK)
    );
    let mut leak_and_error = leak.clone();
    leak_and_error.sources[1].error = Some("boom".to_owned());
    assert_eq!(leak_and_error.verdict(), Verdict::Leak);
    let unreadable = unproven_report(true);
    assert_eq!(unreadable.exit_code(), exit::UNREADABLE);
    let inconclusive = unproven_report(false);
    assert_eq!(inconclusive.exit_code(), exit::INCONCLUSIVE);
    let mut clean = inconclusive.clone();
    clean.sources[0].streams[0].markers = tally(Some(0), Some(9));
    assert_eq!(clean.exit_code(), exit::CLEAN);
    // Markers out of order prove nothing.
    clean.sources[0].streams[0].markers = tally(Some(50), Some(9));
    assert_eq!(clean.unproven().len(), 1, "{:?}", clean.unproven());
    // Without markers, a source with no bytes is not proof of anything.
    let mut empty = Report {
        marker: None,
        ..clean
    };
    for s in &mut empty.sources[0].streams {
        s.bytes = 0;
    }
    assert_eq!(empty.unproven(), ["logs/app out.log: no bytes were read"]);
}

#[test]
fn snapshots_leak() {
    let report = leak_report();
    insta::assert_snapshot!("human_leak", render(&report, Format::Human));
    insta::assert_snapshot!("json_leak", render(&report, Format::Json));
    insta::assert_snapshot!("sarif_leak", render(&report, Format::Sarif));
}

#[test]
fn snapshots_unproven() {
    for (name, report) in [
        ("inconclusive", unproven_report(false)),
        ("unreadable", unproven_report(true)),
    ] {
        insta::assert_snapshot!(format!("human_{name}"), render(&report, Format::Human));
        insta::assert_snapshot!(format!("sarif_{name}"), render(&report, Format::Sarif));
    }
}

#[test]
fn sarif_matches_the_official_schema() {
    for report in [leak_report(), unproven_report(false), unproven_report(true)] {
        let sarif: Value = serde_json::from_str(&render(&report, Format::Sarif)).expect("JSON");
        phi_testkit::sarif::assert_valid(&sarif);
        let text = sarif.to_string();
        assert!(!text.contains("snippet") && !text.contains("contextRegion"));
    }
    // The validator is not vacuous: it rejects a region that starts on line 0.
    let mut sarif: Value =
        serde_json::from_str(&render(&leak_report(), Format::Sarif)).expect("JSON");
    sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        Value::from(0);
    assert!(!phi_testkit::sarif::schema_errors(&sarif).is_empty());
}
