//! The static layer: phi-lint's library on the workspace, against its baseline, as
//! `phi-lint check` does it.

use std::path::{Path, PathBuf};

use anyhow::Context;
use phi_lint::baseline::{self, Baseline};
use phi_lint::{Report, Scan};

use crate::report::Layer;

/// Lints `root` against `ROOT/phi-lint.baseline.json`; with `baseline_ref`, also fails on a
/// baseline entry that is new or larger than at that git ref.
pub(crate) fn check(root: &Path, baseline_ref: Option<&str>) -> anyhow::Result<Report> {
    let scan = Scan::new(&[root.to_path_buf()], None)
        .with_context(|| format!("cannot scan {}", root.display()))?;
    let result = phi_lint::lint(&scan);
    let path: PathBuf = scan.root.join(baseline::FILE_NAME);
    let current = Baseline::load(&path).context("cannot load the phi-lint baseline")?;
    let mut findings = result.findings;
    let stale = current
        .as_ref()
        .map(|b| b.apply(&mut findings))
        .unwrap_or_default();
    let growth = match baseline_ref {
        Some(r) => {
            let old = Baseline::at_git_ref(&path, r)
                .with_context(|| format!("cannot read the baseline at {r}"))?
                .unwrap_or_default();
            current.clone().unwrap_or_default().growth_since(&old)
        }
        None => Vec::new(),
    };
    Ok(Report {
        baseline_path: current.as_ref().map(|_| baseline::FILE_NAME.to_owned()),
        baseline_ref: baseline_ref.map(str::to_owned),
        root: scan.root,
        files: result.files,
        statements: result.statements,
        findings,
        stale,
        growth,
        errors: result.errors,
        suppressions: result.suppressions,
        suppressed: result.suppressed,
    })
}

/// The static layer's line of the report.
pub(crate) fn layer(report: &Report) -> Layer {
    let mut layer = Layer::new("static");
    let new = report.new_findings().count();
    layer.figure("files linted", report.files);
    layer.figure("statements linted", report.statements);
    layer.figure("new findings", new);
    layer.figure("baselined", report.baselined());
    layer.figure("suppressions", report.suppressions);
    if new > 0 {
        layer.fail(format!(
            "phi-lint: {new} new finding(s); run `cargo run -p phi-lint -- check .`"
        ));
    }
    if !report.stale.is_empty() {
        layer.fail(format!(
            "phi-lint: {} stale baseline entr(ies)",
            report.stale.len()
        ));
    }
    if !report.growth.is_empty() {
        layer.fail(format!(
            "phi-lint: the baseline grew ({} entr(ies))",
            report.growth.len()
        ));
    }
    if !report.errors.is_empty() {
        layer.fail(format!(
            "phi-lint: {} file(s) could not be read or parsed",
            report.errors.len()
        ));
    }
    if report.files == 0 {
        layer.fail("phi-lint linted no file: wrong --root?");
    }
    layer
}
