//! `phi-ci pr --base REF`: the PR gate.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use phi_lint::Format;

use crate::{default_root, lint};

pub(crate) const HELP: &str = "\
Runs phi-lint on the workspace against phi-lint.baseline.json and fails on a new finding,
a stale baseline entry, or a baseline entry that is new or larger than at --base REF.
Writes SARIF 2.1.0 (for github/codeql-action/upload-sarif) to --sarif and GitHub Actions
annotations to stdout (or --annotations FILE); neither carries source text.";

/// Options of `phi-ci pr`.
#[derive(Args)]
pub(crate) struct Options {
    /// The git ref the PR is merged into (e.g. `origin/main`).
    #[arg(long, value_name = "REF")]
    pub(crate) base: String,
    /// The workspace [default: the workspace phi-ci was built in].
    #[arg(long, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
    /// Where to write the SARIF report.
    #[arg(long, value_name = "FILE", default_value = "phi-lint.sarif")]
    pub(crate) sarif: PathBuf,
    /// Write the GitHub annotations to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub(crate) annotations: Option<PathBuf>,
}

pub(crate) fn run(options: &Options) -> anyhow::Result<u8> {
    let root = options.root.clone().unwrap_or_else(default_root);
    let report = lint::check(&root, Some(&options.base))?;
    let mut sarif = Vec::new();
    report.write(Format::Sarif, &mut sarif)?;
    std::fs::write(&options.sarif, &sarif)
        .with_context(|| format!("cannot write {}", options.sarif.display()))?;
    let mut annotations = Vec::new();
    report.write(Format::Github, &mut annotations)?;
    match &options.annotations {
        Some(path) => std::fs::write(path, &annotations)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => {
            use std::io::Write;
            // phi-lint: allow(phi::print, reason = "the lint's annotations name rules, paths and code, never record data")
            std::io::stdout().lock().write_all(&annotations)?;
        }
    }
    let layer = lint::layer(&report);
    let gate = crate::report::Report {
        title: format!("phi-ci pr --base {}", options.base),
        layers: vec![layer],
    };
    // phi-lint: allow(phi::print, reason = "the report holds counts and the verdict of the lint")
    println!("{gate}");
    // The gate fails when the lint fails, and also when the layer fails for a reason of its own
    // (no file linted: a wrong --root).
    let lint_exit = u8::try_from(report.exit_code())
        .unwrap_or(crate::report::exit::ERROR)
        .min(crate::report::exit::ERROR);
    Ok(lint_exit.max(gate.exit_code()))
}
