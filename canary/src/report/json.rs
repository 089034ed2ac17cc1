//! The `json` format: one object, stable, versioned by `version`. Field by field in the README.

use std::io::{self, Write};

use serde::Serialize;

use super::{CanarySummary, Hit, Report, SourceReport, Verdict};
use crate::marker::{MarkerKind, PREFIX};

/// Bump when a field changes meaning or goes away; new fields do not bump it.
const VERSION: u32 = 1;

#[derive(Serialize)]
struct Json<'a> {
    version: u32,
    verdict: Verdict,
    exit_code: u8,
    canaries: &'a [CanarySummary],
    variants: &'static str,
    marker: Option<Marker>,
    sources: &'a [SourceReport],
    hits: &'a [Hit],
    hits_total: u64,
    unproven: Vec<String>,
}

#[derive(Serialize)]
struct Marker {
    nonce: String,
    start: String,
    end: String,
}

pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let verdict = report.verdict();
    let json = Json {
        version: VERSION,
        verdict,
        exit_code: verdict.exit_code(),
        canaries: &report.canaries,
        variants: report.variants.name(),
        marker: report.marker.as_ref().map(|nonce| {
            let line = |kind: MarkerKind| format!("{PREFIX} {} {nonce}", kind.word());
            Marker {
                nonce: nonce.clone(),
                start: line(MarkerKind::Start),
                end: line(MarkerKind::End),
            }
        }),
        sources: &report.sources,
        hits: &report.hits,
        hits_total: report.hits_total,
        unproven: report.unproven(),
    };
    serde_json::to_writer_pretty(&mut *out, &json)?;
    writeln!(out)
}
