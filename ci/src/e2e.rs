//! The end-to-end layer: the canary is in the record (asked of `answers canary-present`, which
//! never prints it), and phi-canary finds no canary in the captured logs while finding the
//! start and end marker lines on every stream (the positive control).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};
use phi_canary::source::Source;
use phi_canary::{Matcher, Nonce, VariantSet, canary, scan, source};

use crate::report::Layer;

/// Whether `canary` is in the record at `db`, asked of `answers canary-present`.
pub(crate) fn present(answers: &Path, db: &Path, canary: &str) -> anyhow::Result<bool> {
    let out = Command::new(answers)
        .arg("canary-present")
        .arg("--db")
        .arg(db)
        .env("PHIGUARD_CANARY", canary)
        .env_remove("RUST_LOG")
        .output()
        .with_context(|| format!("cannot run {} canary-present", answers.display()))?;
    match (out.status.code(), out.stdout.as_slice()) {
        (Some(0), b"present\n") => Ok(true),
        (Some(1), b"absent\n") => Ok(false),
        _ => bail!(
            "answers canary-present failed ({}); stdout {} bytes",
            out.status,
            out.stdout.len()
        ),
    }
}

/// Scans `sources` (paths, or `docker:NAME`) for the per-run canary and the demo canary with
/// every encoding, requiring the marker lines of `nonce` on every stream.
pub(crate) fn scan(
    sources: &[String],
    run_canary: &str,
    nonce: &Nonce,
) -> anyhow::Result<phi_canary::Report> {
    let canaries = canary::select(&[run_canary.to_owned()], true)?;
    let matcher = Matcher::new(canaries, VariantSet::All, Some(nonce.clone()))?;
    let sources = sources
        .iter()
        .map(|s| source::parse(s))
        .collect::<Result<Vec<Box<dyn Source>>, _>>()?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let settings = scan::Settings {
        threads,
        progress: &|_| {},
    };
    Ok(scan::scan(&matcher, sources, &settings))
}

/// Hits listed in the report; the rest are counted.
pub(crate) const LISTED_HITS: usize = 5;

/// The end-to-end layer's line of the report.
pub(crate) fn layer(present: bool, report: &phi_canary::Report) -> Layer {
    let mut layer = Layer::new("end-to-end");
    let bytes: u64 = report
        .sources
        .iter()
        .flat_map(|s| &s.streams)
        .map(|s| s.bytes)
        .sum();
    let streams = report
        .sources
        .iter()
        .map(|s| s.streams.len())
        .sum::<usize>();
    layer.figure("canary present", if present { "yes" } else { "no" });
    layer.figure("log bytes scanned", bytes);
    layer.figure("streams", streams);
    layer.figure(
        "markers proven",
        format!("{}/{streams}", report.proven_streams()),
    );
    layer.figure("hits", report.hits_total);
    layer.figure("verdict", format!("{:?}", report.verdict()).to_lowercase());
    if !present {
        layer.fail("the per-run canary is not in the record, so clean logs would prove nothing");
    }
    for hit in report.hits.iter().take(LISTED_HITS) {
        layer.fail(format!(
            "leak: canary {} ({}) in {} {} line {} byte {}",
            hit.canary,
            hit.variant.name(),
            hit.source,
            hit.stream,
            hit.line,
            hit.offset
        ));
    }
    fail_on_the_rest(&mut layer, report);
    layer
}

/// Fails `layer` on what a scan report says besides its listed hits: a source it could not
/// read, a precondition it could not prove, and the hits past the [`LISTED_HITS`] listed.
pub(crate) fn fail_on_the_rest(layer: &mut Layer, report: &phi_canary::Report) {
    for source in &report.sources {
        if let Some(error) = &source.error {
            layer.fail(format!("{}: unreadable: {error}", source.name));
        }
    }
    for why in report.unproven() {
        layer.fail(format!("inconclusive: {why}"));
    }
    let listed = report.hits.len().min(LISTED_HITS) as u64;
    if report.hits_total > listed {
        layer.fail(format!(
            "and {} more hit(s) (positions only, as above)",
            report.hits_total - listed
        ));
    }
}
