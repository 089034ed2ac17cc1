//! The lint pipeline, once for every caller (the CLI, phi-ci, the dogfood test): resolve the
//! files, lint them, apply the baseline, compare it with a git ref, and report.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::baseline::{self, Baseline};
use crate::report::Report;
use crate::walk::Scan;

/// What to check, as `phi-lint check` takes it.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Files or directories; a single directory is the scan root (default: the current
    /// directory).
    pub paths: Vec<PathBuf>,
    /// Configuration file [default: ROOT/phiguard.toml, else Cargo.toml metadata, else the older
    /// ROOT/phi-lint.toml].
    pub config: Option<PathBuf>,
    /// Baseline file [default: ROOT/phi-lint.baseline.json].
    pub baseline: Option<PathBuf>,
    /// Also fail on a baseline entry that is new or larger than at this git ref (the PR gate).
    pub baseline_ref: Option<String>,
    /// A scan that checks no logging statement is clean (as `allow-no-statements = true`).
    pub allow_no_statements: bool,
}

/// Runs the whole check. Findings are in the report; `Err` means the check could not run.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir(dir.path().join("src"))?;
/// std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"a\"\n")?;
/// std::fs::write(
///     dir.path().join("src/lib.rs"),
///     "fn f(user: User) { tracing::info!(user_id = %user.id, \"{}\", user.email); }",
/// )?;
/// let report = phi_lint::check(&phi_lint::CheckOptions {
///     paths: vec![dir.path().to_path_buf()],
///     ..Default::default()
/// })?;
/// assert_eq!(report.exit_code(), 1);
/// assert_eq!(report.scope.reached, 1);
/// assert_eq!(report.findings[0].expr, "user.email");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check(options: &CheckOptions) -> Result<Report, Error> {
    let scan = Scan::new(&options.paths, options.config.as_deref())?;
    if let Some(notice) = scan.config_source.notice() {
        // phi-lint: allow(phi::print, reason = "the notice names the configuration file's path")
        eprintln!("phi-lint: notice: {notice}");
    }
    let result = crate::lint(&scan);
    let path = options
        .baseline
        .clone()
        .unwrap_or_else(|| scan.root.join(baseline::FILE_NAME));
    let current = Baseline::load(&path)?;
    let mut findings = result.findings;
    let stale = current
        .as_ref()
        .map(|b| b.apply(&mut findings))
        .unwrap_or_default();
    let growth = match &options.baseline_ref {
        Some(r) => {
            let old = Baseline::at_git_ref(&path, r)?.unwrap_or_default();
            current.clone().unwrap_or_default().growth_since(&old)
        }
        None => Vec::new(),
    };
    Ok(Report {
        baseline_path: current
            .as_ref()
            .map(|_| relative_display(&scan.root, &path)),
        baseline_ref: options.baseline_ref.clone(),
        files: result.files,
        statements: result.statements,
        findings,
        stale,
        growth,
        errors: result.errors,
        suppressions: result.suppressions,
        suppressed: result.suppressed,
        scope: scan.counts,
        excluded: scan.excluded,
        require_statements: !(options.allow_no_statements || scan.config.allow_no_statements),
        root: scan.root,
    })
}

fn relative_display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .trim_start_matches("./")
        .to_owned()
}
