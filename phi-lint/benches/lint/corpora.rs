//! The same floor and ratio on real code: directories named by `PHI_LINT_CORPORA`.
//!
//! - `PHI_LINT_CORPORA=/a/dir:/another`: each directory is timed like the generated corpus
//!   (parse-only floor and phi-lint, alternating, over the rounds), and a directory that does not
//!   exist is skipped with a message, so the benchmark never depends on these files;
//! - `PHI_LINT_BIN=/path/to/phi-lint`: also time that binary's `check --format json` as a
//!   process, over the same files and against the same floor. This measures another build of
//!   phi-lint (a branch, a release) without rebuilding the benchmark; its ratio includes process
//!   start-up and the JSON report, so it is a little above the in-process one.
//!
//! The floor reads and parses every `.rs` file under the directory (skipping `target/` and
//! hidden directories), which is what phi-lint reads when no configuration excludes any.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::{env, fs};

use super::{Sample, median_f64, parse_only, phi_lint_pass, thousands};

/// Times every directory in `PHI_LINT_CORPORA`; `false` if one of them could not be measured.
pub(crate) fn run_all(rounds: usize) -> bool {
    let Some(list) = env::var_os("PHI_LINT_CORPORA") else {
        println!("real corpora: none (set PHI_LINT_CORPORA=dir[:dir…] to time phi-lint on them)");
        return true;
    };
    let bin = external_binary();
    let mut ok = true;
    for dir in env::split_paths(&list) {
        println!();
        if !dir.is_dir() {
            println!("skipped: corpus {} is absent", dir.display());
            continue;
        }
        let files = match rust_files(&dir) {
            Ok(files) => files,
            Err(e) => {
                eprintln!("cannot list the files under {}: {e}", dir.display());
                ok = false;
                continue;
            }
        };
        ok &= measure(&dir, &files, rounds, bin.as_deref());
    }
    ok
}

/// `PHI_LINT_BIN`, if set and non-empty.
pub(crate) fn external_binary() -> Option<PathBuf> {
    env::var_os("PHI_LINT_BIN")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Times the floor, the in-process phi-lint and, if given, an external phi-lint binary over one
/// directory, and prints the rounds and the medians of their ratios. `false` on a failure.
pub(crate) fn measure(root: &Path, files: &[PathBuf], rounds: usize, bin: Option<&Path>) -> bool {
    let (lines, bytes) = size(files);
    println!(
        "corpus: {} ({} files, {} lines, {:.1} MB)",
        root.display(),
        files.len(),
        thousands(lines),
        super::mb(bytes)
    );
    // Warm-up of each pass, which also checks that each one succeeds.
    if let Err(e) = parse_only(files) {
        eprintln!("  the parse-only pass fails: {e}");
        return false;
    }
    match phi_lint_pass(root) {
        Ok(warm) => println!(
            "  phi-lint (this build): {} files, {} statements, {} findings",
            thousands(warm.files),
            thousands(warm.statements),
            thousands(warm.findings.len())
        ),
        Err(e) => {
            eprintln!("  phi-lint cannot scan it: {e}");
            return false;
        }
    }
    if let Some(bin) = bin
        && let Err(e) = external_pass(bin, root)
    {
        eprintln!("  {e}");
        return false;
    }

    let mut lib_ratios = Vec::with_capacity(rounds);
    let mut bin_ratios = Vec::with_capacity(rounds);
    println!(
        "  round   parse-only   phi-lint  ratio{}",
        if bin.is_some() {
            "   binary  ratio"
        } else {
            ""
        }
    );
    for round in 0..rounds {
        // Alternate the order so that drift in the machine's load hits the passes alike.
        let (parse, lint) = if round % 2 == 0 {
            let p = Sample::take(|| parse_only(files));
            (p, Sample::take(|| phi_lint_pass(root)))
        } else {
            let l = Sample::take(|| phi_lint_pass(root));
            (Sample::take(|| parse_only(files)), l)
        };
        let p = parse.wall.as_secs_f64();
        let l = lint.wall.as_secs_f64();
        lib_ratios.push(l / p);
        let mut row = format!("  {:>5}   {p:>8.3} s {l:>8.3} s {:>5.2}×", round + 1, l / p);
        if let Some(bin) = bin {
            let b = Sample::take(|| external_pass(bin, root)).wall.as_secs_f64();
            bin_ratios.push(b / p);
            // Writing to a String cannot fail.
            let _ = write!(row, " {b:>8.3} s {:>5.2}×", b / p);
        }
        println!("{row}");
    }
    let lib = median_f64(lib_ratios.into_iter()).unwrap_or(f64::NAN);
    print!("  ratio, median of the rounds' ratios: phi-lint {lib:.2}× the parse-only floor");
    if let Some(bin) = bin {
        let external = median_f64(bin_ratios.into_iter()).unwrap_or(f64::NAN);
        print!("; {} {external:.2}×", bin.display());
    }
    println!();
    true
}

/// One run of an external phi-lint over `root`, its report discarded. Exit 0 (clean) and 1
/// (findings) are both a finished scan.
fn external_pass(bin: &Path, root: &Path) -> Result<(), String> {
    let status = Command::new(bin)
        .args([
            OsString::from("check"),
            "--format".into(),
            "json".into(),
            root.into(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    match status.code() {
        Some(0 | 1) => Ok(()),
        code => Err(format!("{} exited with {code:?}", bin.display())),
    }
}

/// Every `.rs` file under `root`, sorted, skipping `target/` and hidden directories.
fn rust_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            let name = entry.file_name();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                if name != "target" && !name.to_string_lossy().starts_with('.') {
                    dirs.push(path);
                }
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Lines and bytes of the files (unreadable ones count as empty: the warm-up reports them).
fn size(files: &[PathBuf]) -> (usize, usize) {
    files
        .iter()
        .filter_map(|f| fs::read_to_string(f).ok())
        .fold((0, 0), |(lines, bytes), text| {
            (lines + text.lines().count(), bytes + text.len())
        })
}
