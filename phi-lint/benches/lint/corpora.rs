//! The same floor and ratio on real code: directories named by `PHI_LINT_CORPORA`.
//!
//! - `PHI_LINT_CORPORA=/a/dir:/another`: each directory is timed like the generated corpus
//!   (parse-only floor and phi-lint, alternating, over the rounds), and a directory that does not
//!   exist is skipped with a message, so the benchmark never depends on these files;
//! - `PHI_LINT_BIN=/path/to/phi-lint[:/another/phi-lint…]`: also time each binary's
//!   `check --format json` as a process, over the same files and against the same floor. This
//!   measures another build of phi-lint (a branch, a release) without rebuilding the benchmark; its
//!   ratio includes process start-up and the JSON report, so it is a little above the in-process
//!   one.
//!
//! The floor reads and parses every `.rs` file under the directory (skipping `target/` and
//! hidden directories), which is what phi-lint reads when no configuration excludes any.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::{env, fs};

use super::floor::rust_files;
use super::{Sample, median_f64, parse_only, phi_lint_pass, thousands};

/// Each timed pass reads at least this many bytes (the corpus, several times if it is smaller).
const MIN_PASS_BYTES: usize = 4_000_000;

/// Times every directory in `PHI_LINT_CORPORA`; `false` if one of them could not be measured.
pub(crate) fn run_all(rounds: usize) -> bool {
    let Some(list) = env::var_os("PHI_LINT_CORPORA") else {
        println!("real corpora: none (set PHI_LINT_CORPORA=dir[:dir…] to time phi-lint on them)");
        return true;
    };
    let bins = external_binaries();
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
        ok &= measure(&dir, &files, rounds, &bins);
    }
    ok
}

/// The binaries listed in `PHI_LINT_BIN` (`:`-separated), if any.
pub(crate) fn external_binaries() -> Vec<PathBuf> {
    env::var_os("PHI_LINT_BIN")
        .map(|list| {
            env::split_paths(&list)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Times the floor, the in-process phi-lint and the given external phi-lint binaries over one
/// directory, and prints the rounds and the medians of their ratios. `false` on a failure.
pub(crate) fn measure(root: &Path, files: &[PathBuf], rounds: usize, bins: &[PathBuf]) -> bool {
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
    for (i, bin) in bins.iter().enumerate() {
        if let Err(e) = external_pass(bin, root) {
            eprintln!("  {e}");
            return false;
        }
        println!("  binary {}: {}", i + 1, bin.display());
    }

    // A small corpus is timed several times per pass, so that each pass takes long enough for
    // the 10 ms resolution of the CPU clock.
    let reps = (MIN_PASS_BYTES / bytes.max(1)).max(1);
    if reps > 1 {
        println!("  each pass below runs {reps} times over the files");
    }
    let mut wall = Ratios::new(bins.len());
    let mut cpu = Ratios::new(bins.len());
    let (mut columns, mut cpu_columns) = (String::new(), String::new());
    for i in 1..=bins.len() {
        // Writing to a String cannot fail.
        let _ = write!(columns, " binary {i}  ratio");
        let _ = write!(cpu_columns, " bin {i} ratio");
    }
    println!(
        "  round   parse-only   phi-lint  ratio{columns}   (CPU: parse-only phi-lint ratio{cpu_columns})"
    );
    for round in 0..rounds {
        // Alternate the order so that drift in the machine's load hits the passes alike.
        let parse_pass = || (0..reps).try_for_each(|_| parse_only(files).map(drop));
        let lint_pass = || (0..reps).try_for_each(|_| phi_lint_pass(root).map(drop));
        let (parse, lint) = if round % 2 == 0 {
            let p = Sample::take(parse_pass);
            (p, Sample::take(lint_pass))
        } else {
            let l = Sample::take(lint_pass);
            (Sample::take(parse_pass), l)
        };
        let (p, l) = (parse.wall.as_secs_f64(), lint.wall.as_secs_f64());
        wall.lib.push(l / p);
        let mut row = format!("  {:>5}   {p:>8.3} s {l:>8.3} s {:>5.2}×", round + 1, l / p);
        let mut cpu_row = String::new();
        if let (Some(pc), Some(lc)) = (parse.cpu, lint.cpu) {
            let (pc, lc) = (pc.as_secs_f64(), lc.as_secs_f64());
            cpu.lib.push(lc / pc);
            // Writing to a String cannot fail.
            let _ = write!(cpu_row, "   {pc:>6.2} s {lc:>6.2} s {:>5.2}×", lc / pc);
            for (i, bin) in bins.iter().enumerate() {
                let children = children_cpu_time();
                let b = Sample::take(|| (0..reps).try_for_each(|_| external_pass(bin, root)))
                    .wall
                    .as_secs_f64();
                wall.bins[i].push(b / p);
                let _ = write!(row, " {b:>8.3} s {:>5.2}×", b / p);
                if let Some(bc) = children_cpu_time()
                    .zip(children)
                    .map(|(after, before)| after.saturating_sub(before).as_secs_f64())
                {
                    cpu.bins[i].push(bc / pc);
                    let _ = write!(cpu_row, " {bc:>6.2} s {:>5.2}×", bc / pc);
                }
            }
        }
        println!("{row}{cpu_row}");
    }
    let median = |v: Vec<f64>| median_f64(v.into_iter());
    print!("  ratio, median of the rounds' ratios: phi-lint ");
    print_ratio(median(wall.lib), median(cpu.lib));
    for (i, (w, c)) in wall.bins.into_iter().zip(cpu.bins).enumerate() {
        print!("; binary {} ", i + 1);
        print_ratio(median(w), median(c));
    }
    println!(" the parse-only floor");
    true
}

/// Each round's ratio to the floor: the in-process lint, and each external binary.
struct Ratios {
    lib: Vec<f64>,
    bins: Vec<Vec<f64>>,
}

impl Ratios {
    fn new(bins: usize) -> Self {
        Self {
            lib: Vec::new(),
            bins: vec![Vec::new(); bins],
        }
    }
}

fn print_ratio(wall: Option<f64>, cpu: Option<f64>) {
    match (wall, cpu) {
        (Some(w), Some(c)) => print!("{w:.2}× wall clock, {c:.2}× CPU time"),
        (Some(w), None) => print!("{w:.2}× wall clock"),
        _ => print!("(no rounds)"),
    }
}

/// CPU time (user + system) of the process's waited-for children, from `/proc/self/stat`
/// (fields 16 and 17, in ticks of 1/100 s); `None` where that file does not exist.
fn children_cpu_time() -> Option<std::time::Duration> {
    let stat = fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_ascii_whitespace();
    let children_user: u64 = fields.nth(13)?.parse().ok()?;
    let children_system: u64 = fields.next()?.parse().ok()?;
    Some(std::time::Duration::from_millis(
        (children_user + children_system) * 10,
    ))
}

/// One run of an external phi-lint over `root`, its report discarded. Exit 0 (clean), 1
/// (findings) and 2 (file errors, such as the bench targets that an exported corpus's manifests
/// name and the export left out) are all a finished scan.
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
        Some(0..=2) => Ok(()),
        code => Err(format!("{} exited with {code:?}", bin.display())),
    }
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
