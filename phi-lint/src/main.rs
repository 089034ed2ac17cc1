//! The `phi-lint` command: `check`, `baseline` and `explain`.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use phi_lint::baseline::{self, Baseline};
use phi_lint::report::{Format, Report, exit, printable};
use phi_lint::{CheckOptions, Rule, Scan};

const EXIT_CODES: &str = "\
Exit codes:
  0  no new finding, no stale baseline entry, no baseline growth
  1  new findings, stale baseline entries, or baseline growth
  2  the tool could not do its job: usage, config, I/O, a file that cannot be read, resolved
     or parsed (a missing module, a #[path] outside the root, a FIFO, a dangling symlink, a
     file over max-file-size or nested too deep), a file of more findings than
     max-file-findings (its first ones are reported), no Rust file found, or no logging
     statement checked (unless --allow-no-statements)";

const FIX_EXIT_CODES: &str = "\
Exit codes:
  0  no error-message finding is left: all were fixed, or there was nothing to fix
  1  error-message findings are left that have no certain rewrite (listed on stderr)
  2  the tool could not do its job: usage, config, I/O, or a file that does not parse;
     nothing is written";

/// Fails a change that logs anything but opaque ids, counts, durations, status codes or type
/// names.
#[derive(Parser)]
#[command(name = "phi-lint", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint the files under PATHs (default: the current directory) against the baseline.
    #[command(after_help = EXIT_CODES)]
    Check {
        /// Files or directories; a single directory is the scan root.
        paths: Vec<PathBuf>,
        /// Configuration file [default: ROOT/phiguard.toml, Cargo.toml metadata or phi-lint.toml].
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Baseline file [default: ROOT/phi-lint.baseline.json].
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// Also fail if any baseline entry is new or larger than at this git ref (the PR gate).
        #[arg(long, value_name = "REF")]
        baseline_ref: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Write the report to FILE instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Do not fail when no logging statement is checked (as `allow-no-statements = true`).
        #[arg(long)]
        allow_no_statements: bool,
    },
    /// Prune stale baseline entries; refuses to add or raise one without --allow-growth.
    #[command(after_help = "\
Exit codes:
  0  the baseline was written (or was already exact)
  1  covering the findings would add or raise entries, and --allow-growth was not given
  2  the tool could not do its job: usage, config, I/O, or a file that does not parse")]
    Baseline {
        /// Files or directories; a single directory is the scan root.
        paths: Vec<PathBuf>,
        /// Configuration file.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Baseline file [default: ROOT/phi-lint.baseline.json].
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// Create the first baseline from the current findings.
        #[arg(long, conflicts_with = "allow_growth")]
        init: bool,
        /// Add or raise entries to cover new findings (requires --reason).
        #[arg(long, requires = "reason")]
        allow_growth: bool,
        /// Why the baseline grows; recorded on each entry added or raised.
        #[arg(long, value_name = "TEXT", requires = "allow_growth")]
        reason: Option<String>,
    },
    /// Rewrite each error logged by value as `error_type = %phi_filter::error_type(&e)`.
    #[command(after_help = FIX_EXIT_CODES)]
    Fix {
        /// Files or directories; a single directory is the scan root.
        paths: Vec<PathBuf>,
        /// Configuration file.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Write nothing; print the rewrite as a unified diff on stdout.
        #[arg(long)]
        dry_run: bool,
    },
    /// Show a rule's documentation, or list the rules.
    Explain {
        /// A rule code, with or without `phi::` (e.g. `phi::error-message`).
        rule: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(2)),
        Err(err) => {
            // phi-lint: allow(phi::print, reason = "its errors name config keys, paths and git refs, never scanned values; escaped for the terminal")
            eprintln!("phi-lint: error: {}", printable(&format!("{err:#}")));
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Check {
            paths,
            config,
            baseline,
            baseline_ref,
            format,
            output,
            allow_no_statements,
        } => {
            let report = phi_lint::check(&CheckOptions {
                paths,
                config,
                baseline,
                baseline_ref,
                allow_no_statements,
            })?;
            emit(&report, format, output.as_deref())?;
            Ok(report.exit_code())
        }
        Command::Baseline {
            paths,
            config,
            baseline,
            init,
            allow_growth: _,
            reason,
        } => update_baseline(
            &paths,
            config.as_deref(),
            baseline.as_deref(),
            init,
            reason.as_deref(),
        ),
        Command::Fix {
            paths,
            config,
            dry_run,
        } => {
            let scan = Scan::new(&paths, config.as_deref())?;
            let mut out = BufWriter::new(io::stdout().lock());
            Ok(phi_lint::fix::run(
                &scan,
                dry_run,
                &mut out,
                &mut io::stderr().lock(),
            )?)
        }
        Command::Explain { rule } => explain(rule.as_deref()),
    }
}

fn update_baseline(
    paths: &[PathBuf],
    config: Option<&Path>,
    baseline: Option<&Path>,
    init: bool,
    reason: Option<&str>,
) -> anyhow::Result<i32> {
    let scan = Scan::new(paths, config)?;
    let result = phi_lint::lint(&scan);
    if !result.errors.is_empty() {
        let mut msg = String::from(
            "cannot update the baseline while files have errors (a report that stops short would drop their findings):",
        );
        for e in &result.errors {
            let _ = write!(msg, "\n  {}: {}", printable(&e.file), printable(&e.message));
        }
        bail!(msg);
    }
    let path = baseline.map_or_else(|| scan.root.join(baseline::FILE_NAME), Path::to_path_buf);
    let shown = path.display().to_string();
    let shown = printable(&shown);
    let existing = Baseline::load(&path)?;
    let mut stdout = io::stdout().lock();
    if init {
        if existing.is_some() {
            bail!("{shown} already exists; run `phi-lint baseline` to prune it");
        }
        let b = Baseline::from_findings(&result.findings);
        b.save(&path)?;
        // phi-lint: allow(phi::print, reason = "the baseline file's own path, never record data")
        ignore_broken_pipe(writeln!(
            stdout,
            "phi-lint: wrote {shown}: {} covering {}",
            plural(b.entries.len(), "entry", "entries"),
            plural(result.findings.len(), "finding", "findings")
        ))?;
        return Ok(exit::CLEAN);
    }
    let Some(existing) = existing else {
        bail!("no baseline at {shown}; create one with `phi-lint baseline --init`");
    };
    let (mut pruned, growth) = existing.prune(&result.findings);
    if !growth.is_empty() {
        let Some(reason) = reason.map(str::trim).filter(|r| !r.is_empty()) else {
            let mut out = format!(
                "phi-lint: refusing to grow {shown}: {} would be added or raised\n",
                plural(growth.len(), "entry", "entries")
            );
            for g in &growth {
                let _ = writeln!(
                    out,
                    "  {} {} in {} ({}): `{}` {} -> {}",
                    g.key.rule,
                    printable(&g.key.field),
                    printable(&g.key.path),
                    printable(&g.key.function),
                    printable(&g.key.expr),
                    g.ref_count,
                    g.count
                );
            }
            out.push_str(
                "fix the findings, or pass --allow-growth --reason \"...\" to grandfather them\n",
            );
            // phi-lint: allow(phi::print, reason = "baseline keys and counts: paths, rules and code, never record data")
            ignore_broken_pipe(stdout.write_all(out.as_bytes()))?;
            return Ok(exit::FINDINGS);
        };
        pruned.grow(&growth, reason);
    }
    let before_count: usize = existing.entries.iter().map(|e| e.count).sum();
    let after_count: usize = pruned.entries.iter().map(|e| e.count).sum();
    pruned.save(&path)?;
    // phi-lint: allow(phi::print, reason = "the baseline file's own path, never record data")
    ignore_broken_pipe(writeln!(
        stdout,
        "phi-lint: wrote {shown}: {} covering {} (was {before_count})",
        plural(pruned.entries.len(), "entry", "entries"),
        plural(after_count, "finding", "findings")
    ))?;
    Ok(exit::CLEAN)
}

fn explain(rule: Option<&str>) -> anyhow::Result<i32> {
    let mut stdout = io::stdout().lock();
    let text = match rule {
        Some(code) => {
            let Some(rule) = Rule::from_code(code) else {
                let known: Vec<_> = Rule::ALL.iter().map(|r| r.code()).collect();
                bail!("unknown rule `{code}`; the rules are: {}", known.join(", "));
            };
            let info = rule.info();
            format!("# {}\n\n{}\n\n{}", info.code, info.summary, info.docs)
        }
        None => {
            let mut list = String::new();
            for r in Rule::ALL {
                let _ = writeln!(list, "{:<26} {}", r.code(), r.info().summary);
            }
            list
        }
    };
    // phi-lint: allow(phi::print, reason = "help text and rule documentation")
    ignore_broken_pipe(stdout.write_all(text.as_bytes()))?;
    Ok(exit::CLEAN)
}

fn emit(report: &Report, format: Format, output: Option<&Path>) -> anyhow::Result<()> {
    if let Some(path) = output {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut w = BufWriter::new(file);
        report
            .write(format, &mut w)
            .and_then(|()| w.flush())
            .with_context(|| format!("cannot write {}", path.display()))?;
    } else {
        let mut w = BufWriter::new(io::stdout().lock());
        ignore_broken_pipe(report.write(format, &mut w).and_then(|()| w.flush()))?;
    }
    Ok(())
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A closed pipe (`phi-lint check | head`) is not an error.
fn ignore_broken_pipe(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
