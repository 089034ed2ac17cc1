//! The `human` format: one rustc-style block per hit (no source line: that is the PHI), then
//! notes, warnings, errors, unproven preconditions, and a summary line.

use std::io::{self, Write};

use super::{Report, Verdict};

pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for hit in &report.hits {
        match &hit.chain {
            Some(chain) => writeln!(
                out,
                "error[leak]: canary `{}` found, decoded `{chain}`",
                hit.canary
            )?,
            None => writeln!(
                out,
                "error[leak]: canary `{}` found, variant `{}`",
                hit.canary,
                hit.variant.name()
            )?,
        }
        match &hit.field {
            Some(field) => writeln!(
                out,
                " --> {} {} request {}: {field} (byte {})",
                hit.source, hit.stream, hit.line, hit.offset
            )?,
            None => writeln!(
                out,
                " --> {}:{} (stream {}, byte {})",
                hit.source, hit.line, hit.stream, hit.offset
            )?,
        }
        writeln!(out)?;
    }
    if report.hits_total > 0 {
        writeln!(
            out,
            "note: a line with a hit is never shown: it may hold protected health information"
        )?;
    }
    let unlisted = report.hits_total - report.hits.len() as u64;
    if unlisted > 0 {
        writeln!(
            out,
            "note: {} not listed",
            plural(unlisted, "more hit", "more hits")
        )?;
    }
    for source in &report.sources {
        for warning in &source.warnings {
            writeln!(out, "warning: {}: {warning}", source.name)?;
        }
        if let Some(error) = &source.error {
            writeln!(out, "error: {}: {error}", source.name)?;
        }
    }
    let unproven = report.unproven();
    for reason in &unproven {
        writeln!(out, "inconclusive: {reason}")?;
    }
    let anything_above = report.hits_total > 0
        || !unproven.is_empty()
        || report
            .sources
            .iter()
            .any(|s| s.error.is_some() || !s.warnings.is_empty());
    if anything_above {
        writeln!(out)?;
    }
    writeln!(out, "{}", summary(report))
}

/// `phi-canary: VERDICT: …; N sources, N streams, N bytes, N lines; canaries …; markers …`.
pub(super) fn summary(report: &Report) -> String {
    let verdict = match report.verdict() {
        Verdict::Clean => "clean",
        Verdict::Leak => "leak",
        Verdict::Unreadable => "unreadable",
        Verdict::Inconclusive => "inconclusive",
    };
    let found = if report.hits_total == 0 {
        "no canary found".to_owned()
    } else {
        plural(report.hits_total, "hit", "hits")
    };
    let streams: Vec<_> = report.sources.iter().flat_map(|s| &s.streams).collect();
    let bytes: u64 = streams.iter().map(|s| s.bytes).sum();
    let lines: u64 = streams.iter().map(|s| s.lines).sum();
    let ids: Vec<&str> = report.canaries.iter().map(|c| c.id.as_str()).collect();
    let variants = match report.variants {
        crate::VariantSet::All => "all variants",
        crate::VariantSet::Exact => "exact only",
    };
    let markers = if report.marker.is_some() {
        format!(
            "markers proven on {} of {} streams",
            report.proven_streams(),
            report.expecting_streams().count()
        )
    } else {
        "markers not requested".to_owned()
    };
    format!(
        "phi-canary: {verdict}: {found}; {}, {}, {}, {}; {} {} ({variants}); {markers}",
        plural(report.sources.len() as u64, "source", "sources"),
        plural(streams.len() as u64, "stream", "streams"),
        plural(bytes, "byte", "bytes"),
        if !report.sources.is_empty() && report.sources.iter().all(|s| s.kind == "otlp") {
            plural(lines, "request", "requests")
        } else {
            plural(lines, "line", "lines")
        },
        if ids.len() == 1 { "canary" } else { "canaries" },
        ids.join(", "),
    )
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
