//! `phi-lint fix`: applies the machine-applicable rewrites findings carry ([`Finding::fix`]),
//! re-lints each rewritten file in memory, and writes it or shows it as a unified diff.
//!
//! Fixes are applied in file order; one whose edits overlap an earlier one's is left for the next
//! run. A rewritten file that would not parse is never written. The rewrite is idempotent: a
//! fixed statement logs `phi_filter::error_type(&e)`, a type name, and has nothing left to fix.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let file = dir.path().join("lib.rs");
//! std::fs::write(&file, "fn f(e: E) { tracing::error!(\"save failed: {e}\"); }\n")?;
//! let scan = phi_lint::Scan::new(&[dir.path().to_path_buf()], None)?;
//! let plan = phi_lint::fix::plan(&scan);
//! assert_eq!((plan.applied, plan.remaining.len()), (1, 0));
//! assert_eq!(
//!     plan.files[0].after,
//!     "fn f(e: E) { tracing::error!(error_type = %phi_filter::error_type(&e), \"save failed\"); }\n"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Finding::fix`]: crate::Finding::fix

use std::io::{self, Write};
use std::path::PathBuf;

use crate::finding::{Edit, FileError, Finding};
use crate::rules::Rule;
use crate::source::SourceFile;
use crate::walk::{Scan, io_message};

/// The exit codes of `phi-lint fix`: a contract, documented in `--help` and the README.
pub mod exit {
    /// No error-message finding is left (everything was fixed, or there was nothing to fix).
    pub const CLEAN: i32 = 0;
    /// Error-message findings are left that have no certain rewrite: fix them by hand.
    pub const LEFT: i32 = 1;
    /// The tool could not do its job: usage, config, I/O, or a file that does not parse.
    /// Nothing is written.
    pub const ERROR: i32 = 2;
}

/// One file's rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFix {
    /// The file on disk.
    pub path: PathBuf,
    /// The file relative to the scan root, `/` separators.
    pub file: String,
    /// Its text before.
    pub before: String,
    /// Its text after the rewrite.
    pub after: String,
    /// Findings the rewrite fixed.
    pub fixed: usize,
}

/// What `phi-lint fix` would do to a scan.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Files that change, in scan order.
    pub files: Vec<FileFix>,
    /// Findings fixed.
    pub applied: usize,
    /// Error-message findings left after the rewrite, in file order.
    pub remaining: Vec<Finding>,
    /// Files that could not be read, parsed, or re-parsed after the rewrite.
    pub errors: Vec<FileError>,
}

impl Plan {
    /// The exit code (see [`exit`]).
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() {
            exit::ERROR
        } else if self.remaining.is_empty() {
            exit::CLEAN
        } else {
            exit::LEFT
        }
    }

    /// Writes every changed file.
    pub fn write(&self) -> io::Result<()> {
        for f in &self.files {
            std::fs::write(&f.path, &f.after)?;
        }
        Ok(())
    }

    /// The rewrite as one unified diff, `a/FILE` and `b/FILE` relative to the scan root (as
    /// `git apply` and `patch -p1` take it). A file given by an absolute path under the current
    /// directory is named relative to it, as git apply needs.
    #[must_use]
    pub fn diff(&self) -> String {
        let cwd = std::env::current_dir().ok();
        let mut out = String::new();
        for f in &self.files {
            let name = cwd
                .as_deref()
                .and_then(|d| std::path::Path::new(&f.file).strip_prefix(d).ok())
                .and_then(|p| p.to_str())
                .map_or_else(|| f.file.clone(), str::to_owned);
            let diff = similar::TextDiff::from_lines(&f.before, &f.after);
            out.push_str(
                &diff
                    .unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{name}"), &format!("b/{name}"))
                    .to_string(),
            );
        }
        out
    }
}

/// Lints the scan and rewrites, in memory, every finding that carries a fix.
#[must_use]
pub fn plan(scan: &Scan) -> Plan {
    let result = crate::lint(scan);
    let mut plan = Plan {
        errors: result.errors,
        ..Plan::default()
    };
    let mut findings = result.findings.into_iter().peekable();
    for (path, rel) in &scan.files {
        let mut mine = Vec::new();
        while let Some(f) = findings.next_if(|f| f.file == *rel) {
            mine.push(f);
        }
        if !mine.iter().any(|f| f.fix.is_some()) {
            plan.remaining
                .extend(mine.into_iter().filter(|f| f.rule == Rule::ErrorMessage));
            continue;
        }
        let before = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                plan.errors.push(FileError {
                    file: rel.clone(),
                    pos: None,
                    message: format!("cannot read: {}", io_message(&e)),
                });
                continue;
            }
        };
        let (after, applied) = apply_marked(&before, &mine);
        let fixed = applied.iter().filter(|&&a| a).count();
        // The re-lint proves the rewrite parses. What is left is what the scan found and no
        // fix took: the file alone, without the scan's type index, would miss findings that
        // depend on types of other files, and report fewer than a second run does.
        match crate::lint_source(&scan.config, rel, &after) {
            Ok(_) => {
                plan.applied += fixed;
                let edits: Vec<Edit> = mine
                    .iter()
                    .zip(&applied)
                    .filter(|(_, a)| **a)
                    .filter_map(|(f, _)| f.fix.as_deref())
                    .flat_map(|fix| fix.edits.iter().cloned())
                    .collect();
                let (old, new) = (SourceFile::new(&before), SourceFile::new(&after));
                let moved = |p: crate::Pos| {
                    let at = old.offset(proc_macro2::LineColumn {
                        line: p.line as usize,
                        column: p.column.saturating_sub(1) as usize,
                    });
                    new.pos_at(shifted(at, &edits))
                };
                plan.remaining.extend(
                    mine.into_iter()
                        .zip(applied)
                        .filter(|(f, a)| !a && f.rule == Rule::ErrorMessage)
                        .map(|(mut f, _)| {
                            (f.start, f.end) = (moved(f.start), moved(f.end));
                            f
                        }),
                );
                plan.files.push(FileFix {
                    path: path.clone(),
                    file: rel.clone(),
                    before,
                    after,
                    fixed,
                });
            }
            Err(e) => plan.errors.push(FileError {
                message: format!(
                    "the rewrite would not parse, so it is not written: {}",
                    e.message
                ),
                ..e
            }),
        }
    }
    plan
}

/// Applies the fixes of `findings` to `text` in file order, skipping a fix whose edits overlap
/// one already taken. Returns the new text and the number of fixes applied.
#[must_use]
pub fn apply_fixes(text: &str, findings: &[Finding]) -> (String, usize) {
    let (out, applied) = apply_marked(text, findings);
    (out, applied.iter().filter(|&&a| a).count())
}

/// Where byte `at` of the text before lands after `edits` (none overlapping).
fn shifted(at: usize, edits: &[Edit]) -> usize {
    let (mut grown, mut shrunk) = (0, 0);
    for e in edits.iter().filter(|e| e.end_byte <= at) {
        grown += e.replacement.len();
        shrunk += e.end_byte - e.start_byte;
    }
    (at + grown).saturating_sub(shrunk)
}

/// [`apply_fixes`], saying which findings' fixes were applied.
fn apply_marked(text: &str, findings: &[Finding]) -> (String, Vec<bool>) {
    let mut fixes: Vec<(usize, &[Edit])> = findings
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((i, f.fix.as_ref()?.edits.as_slice())))
        .filter(|(_, edits)| !edits.is_empty())
        .collect();
    fixes.sort_by_key(|(_, edits)| edits[0].start_byte);
    let mut taken: Vec<&Edit> = Vec::new();
    let mut applied = vec![false; findings.len()];
    for (i, edits) in fixes {
        let sound = edits.windows(2).all(|w| w[0].end_byte <= w[1].start_byte)
            && edits.iter().all(|e| {
                e.start_byte <= e.end_byte
                    && text.is_char_boundary(e.start_byte)
                    && text.is_char_boundary(e.end_byte)
                    && e.end_byte <= text.len()
            });
        let clear = edits.iter().all(|e| {
            taken
                .iter()
                .all(|t| e.end_byte <= t.start_byte || t.end_byte <= e.start_byte)
                && !taken
                    .iter()
                    .any(|t| t.start_byte == e.start_byte && t.end_byte == e.end_byte)
        });
        if sound && clear {
            taken.extend(edits);
            applied[i] = true;
        }
    }
    taken.sort_by_key(|e| (e.start_byte, e.end_byte));
    let mut out = String::with_capacity(text.len() + 64 * taken.len());
    let mut at = 0;
    for e in taken {
        out.push_str(&text[at..e.start_byte]);
        out.push_str(&e.replacement);
        at = e.end_byte;
    }
    out.push_str(&text[at..]);
    (out, applied)
}

/// `phi-lint fix`: plans the rewrite, writes it (or, with `dry_run`, writes the unified diff to
/// `out`), and reports on `diag`. Returns the exit code (see [`exit`]).
pub fn run(
    scan: &Scan,
    dry_run: bool,
    out: &mut dyn Write,
    diag: &mut dyn Write,
) -> io::Result<i32> {
    let plan = plan(scan);
    if !plan.errors.is_empty() {
        for e in &plan.errors {
            let at = e.pos.map(|p| format!(":{}:{}", p.line, p.column));
            writeln!(
                diag,
                "phi-lint: error: {}{}: {}",
                e.file.escape_debug(),
                at.unwrap_or_default(),
                e.message
            )?;
        }
        writeln!(diag, "phi-lint: nothing was written")?;
        return Ok(plan.exit_code());
    }
    if dry_run {
        // A reader that goes away early (`phi-lint fix --dry-run | head`) is not an error.
        match out
            .write_all(plan.diff().as_bytes())
            .and_then(|()| out.flush())
        {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => return Err(e),
            _ => {}
        }
    } else {
        plan.write()?;
    }
    let verb = if dry_run { "would fix" } else { "fixed" };
    writeln!(
        diag,
        "phi-lint: {verb} {} in {}; {} left to fix by hand",
        plural(plan.applied, "finding"),
        plural(plan.files.len(), "file"),
        plural(plan.remaining.len(), "error-message finding"),
    )?;
    for f in plan.remaining.iter().take(LISTED) {
        writeln!(
            diag,
            "  {}:{}:{} {} `{}`",
            f.file.escape_debug(),
            f.start.line,
            f.start.column,
            f.rule.code(),
            f.expr.escape_debug()
        )?;
    }
    if plan.remaining.len() > LISTED {
        writeln!(
            diag,
            "  ... and {} more (`phi-lint check` lists them all)",
            plan.remaining.len() - LISTED
        )?;
    }
    Ok(plan.exit_code())
}

/// How many findings left to fix by hand the summary lists.
const LISTED: usize = 20;

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}
