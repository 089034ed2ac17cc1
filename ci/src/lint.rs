//! The static layer: phi-lint's library on the workspace, against its baseline, as
//! `phi-lint check` does it.

use std::path::Path;

use anyhow::Context;
use phi_lint::{CheckOptions, Report};

use crate::report::Layer;

/// Lints `root` against `ROOT/phi-lint.baseline.json` with phi-lint's own pipeline
/// ([`phi_lint::check`]); with `baseline_ref`, also fails on a baseline entry that is new or
/// larger than at that git ref.
pub(crate) fn check(root: &Path, baseline_ref: Option<&str>) -> anyhow::Result<Report> {
    phi_lint::check(&CheckOptions {
        paths: vec![root.to_path_buf()],
        baseline_ref: baseline_ref.map(str::to_owned),
        ..CheckOptions::default()
    })
    .with_context(|| format!("cannot lint {}", root.display()))
}

/// The static layer's line of the report.
pub(crate) fn layer(report: &Report) -> Layer {
    let mut layer = Layer::new("static");
    let new = report.new_findings().count();
    layer.figure("files linted", report.files);
    layer.figure("files reached by a crate", report.scope.reached);
    layer.figure("files unreached", report.scope.unreached);
    layer.figure("test files not linted", report.scope.test_files);
    layer.figure("files excluded", report.scope.excluded);
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
            "phi-lint: {} file(s) could not be read, resolved or parsed",
            report.errors.len()
        ));
    }
    if report.no_statements() {
        layer.fail("phi-lint checked no logging statement: wrong --root?");
    }
    if report.files == 0 {
        layer.fail("phi-lint linted no file: wrong --root?");
    }
    layer
}
