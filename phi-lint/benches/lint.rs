//! Benchmark: phi-lint against a parse-only floor, over a generated corpus (and real code, if
//! given), in one run.
//!
//! Run with `cargo bench -p phi-lint --bench lint`. Environment:
//!
//! - `PHI_BENCH_ROUNDS`: the number of measured rounds (default 7);
//! - `PHI_BENCH_KEEP=1`: keep the generated corpus and print where it is, e.g. to run
//!   `phi-lint check` or another tool over the same files;
//! - `PHI_BENCH_GENERATED=0`: skip the generated corpus;
//! - `PHI_LINT_CORPORA=dir[:dir…]`: also time real code, each directory on its own (absent ones
//!   are skipped with a message), and `PHI_LINT_BIN=path[:path…]`: also time those phi-lint
//!   binaries, as processes, against the same floor (see `lint/corpora.rs`).
//!
//! The benchmark
//!
//! 1. generates a deterministic corpus of service code (structs, impls, async fns, `tracing` and
//!    `log` events with every field form, `#[instrument]`, `span.record`, `println!`, logging in
//!    closures and inside `tokio::select!`, `futures::join!`, `vec![]` and `macro_rules!` bodies,
//!    and plenty of ordinary code) into a temporary directory: at least 200k lines;
//! 2. times two passes over the same files, alternating which one goes first in each round:
//!    - **parse-only**, the floor: read every file, `syn::parse_file` it and walk the whole tree
//!      with a trivial `syn::visit::Visit` visitor, on all cores with rayon;
//!    - **phi-lint**: `Scan::new` (the directory walk) followed by `lint` (all cores);
//! 3. prints every round (wall clock and the process's CPU time), the medians, throughput, and
//!    the median of the rounds' ratios phi-lint / parse-only against the 1.5× target.
//!
//! The machine this runs on may be shared and noisy, so only the ratio *within one run* is
//! meaningful; medians over several interleaved rounds damp the noise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use std::{env, fs, hint::black_box};

/// Seed of the corpus generator; fixed so every run measures the same corpus.
const SEED: u64 = 0x5eed_f1ce_2025_0042;
/// Number of generated service modules (`mod.rs` and `lib.rs` files come on top).
const MODULES: usize = 420;
/// Each module is generated up to a random length in this range (lines).
const MODULE_LINES: (usize, usize) = (300, 900);
/// The issue asks for at least this many lines.
const MIN_CORPUS_LINES: usize = 200_000;
/// phi-lint must take at most this many times the parse-only floor.
const TARGET_RATIO: f64 = 1.5;
/// Measured rounds unless `PHI_BENCH_ROUNDS` says otherwise.
const DEFAULT_ROUNDS: usize = 7;

#[path = "lint/corpora.rs"]
mod corpora;
#[path = "lint/floor.rs"]
mod floor;

use floor::parse_only;

fn main() -> ExitCode {
    let rounds = rounds();
    let generated = if env::var_os("PHI_BENCH_GENERATED").is_some_and(|v| v == "0") {
        println!("generated corpus: skipped (PHI_BENCH_GENERATED=0)");
        ExitCode::SUCCESS
    } else {
        generated_corpus(rounds)
    };
    if corpora::run_all(rounds) {
        generated
    } else {
        ExitCode::FAILURE
    }
}

/// Generates the corpus and times both passes over it.
fn generated_corpus(rounds: usize) -> ExitCode {
    let tmp = match tempfile::Builder::new().prefix("phi-lint-bench-").tempdir() {
        Ok(tmp) => tmp,
        Err(e) => {
            eprintln!("cannot create a temporary directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Not under `tests/`, `benches/` or `examples/`, which the scanner skips by default.
    let root = tmp.path().join("corpus");

    let started = Instant::now();
    let corpus = match Corpus::generate(&root) {
        Ok(corpus) => corpus,
        Err(e) => {
            eprintln!("cannot write the corpus under {}: {e}", root.display());
            return ExitCode::FAILURE;
        }
    };
    let generated_in = started.elapsed();
    let root = if env::var_os("PHI_BENCH_KEEP").is_some_and(|v| v == "1") {
        let kept = tmp.keep();
        println!("keeping the corpus: {}", kept.join("corpus").display());
        kept.join("corpus")
    } else {
        root
    };

    println!(
        "phi-lint benchmark: {} rayon threads, {rounds} rounds (+1 warm-up each)",
        rayon::current_num_threads()
    );
    println!(
        "corpus: {} files, {} lines, {:.1} MB under {} (generated in {:.2} s)",
        corpus.files.len(),
        thousands(corpus.lines),
        mb(corpus.bytes),
        root.display(),
        generated_in.as_secs_f64()
    );
    println!(
        "        ~{} logging statements, 1 per {:.1} lines",
        thousands(corpus.logging_statements),
        ratio(corpus.lines, corpus.logging_statements)
    );
    if corpus.lines < MIN_CORPUS_LINES {
        eprintln!(
            "corpus too small: {} lines < {MIN_CORPUS_LINES}",
            corpus.lines
        );
        return ExitCode::FAILURE;
    }

    // Warm-up: fills the page cache and rayon's pool, and checks that the corpus parses.
    let macros = match parse_only(&corpus.files) {
        Ok(macros) => macros,
        Err(e) => {
            eprintln!("generated corpus does not parse: {e}");
            return ExitCode::FAILURE;
        }
    };
    let warm = match phi_lint_pass(&root) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("phi-lint cannot scan the corpus: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "warm-up: parse-only saw {} macro invocations; phi-lint linted {} files, {} statements",
        thousands(macros),
        thousands(warm.files),
        thousands(warm.statements)
    );
    if warm.files != corpus.files.len() {
        println!(
            "warning: phi-lint scanned {} files, the parse-only pass reads {}",
            warm.files,
            corpus.files.len()
        );
    }

    println!();
    println!("        -------- wall clock --------    --------- CPU time ---------");
    println!("round   parse-only   phi-lint  ratio    parse-only  phi-lint  ratio");
    let mut parse = Vec::with_capacity(rounds);
    let mut lint = Vec::with_capacity(rounds);
    for round in 0..rounds {
        // Alternate the order so that drift in the machine's load hits both passes alike.
        let (p, l) = if round % 2 == 0 {
            let p = Sample::take(|| parse_only(&corpus.files));
            (p, Sample::take(|| phi_lint_pass(&root)))
        } else {
            let l = Sample::take(|| phi_lint_pass(&root));
            (Sample::take(|| parse_only(&corpus.files)), l)
        };
        println!("{:>5}   {}", round + 1, Sample::row(p, l));
        parse.push(p);
        lint.push(l);
    }
    // Rounds pair passes that ran under about the same load, so the median of the rounds' ratios
    // is steadier than the ratio of the medians when the load comes and goes.
    let wall_ratio = median_f64(
        parse
            .iter()
            .zip(&lint)
            .map(|(p, l)| l.wall.as_secs_f64() / p.wall.as_secs_f64()),
    )
    .expect("at least one round");
    let cpu_ratio = median_f64(
        parse
            .iter()
            .zip(&lint)
            .filter_map(|(p, l)| Some(l.cpu?.as_secs_f64() / p.cpu?.as_secs_f64())),
    );
    let (parse, lint) = (Sample::median(&parse), Sample::median(&lint));
    println!("median  {}", Sample::row(parse, lint));
    println!("        (each column's median; its ratios are ratios of those medians)");
    println!();
    match cpu_ratio {
        Some(cpu) => println!(
            "ratio, median of the rounds' ratios: {wall_ratio:.2}× wall clock, {cpu:.2}× CPU time"
        ),
        None => println!("ratio, median of the rounds' ratios: {wall_ratio:.2}× wall clock"),
    }
    for (name, took) in [("parse-only", parse.wall), ("phi-lint", lint.wall)] {
        let secs = took.as_secs_f64();
        println!(
            "{name:>10}: {:>6.1} MB/s  {:>9} lines/s  (median wall clock)",
            mb(corpus.bytes) / secs,
            thousands(per_second(corpus.lines, secs))
        );
    }
    println!();
    report_findings(&warm);
    let verdict = if wall_ratio <= TARGET_RATIO {
        "PASS"
    } else {
        "FAIL"
    };
    println!(
        "target: phi-lint ≤ {TARGET_RATIO:.1}× parse-only \
         (median of the rounds' wall-clock ratios): {verdict} ({wall_ratio:.2}×)"
    );

    let bins = corpora::external_binaries();
    if !bins.is_empty() {
        println!();
        corpora::measure(&root, &corpus.files, rounds, &bins);
    }

    if warm.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        // The corpus is meant to be valid; an error here is a bug in the generator or the engine.
        ExitCode::FAILURE
    }
}

/// The number of measured rounds: `PHI_BENCH_ROUNDS` if it is a positive integer.
fn rounds() -> usize {
    match env::var("PHI_BENCH_ROUNDS") {
        Ok(value) => value
            .trim()
            .parse()
            .ok()
            .filter(|&r| r > 0)
            .unwrap_or_else(|| {
                eprintln!("ignoring PHI_BENCH_ROUNDS={value:?}: not a positive integer");
                DEFAULT_ROUNDS
            }),
        Err(_) => DEFAULT_ROUNDS,
    }
}

// ---------------------------------------------------------------------------------------------
// The two passes
// ---------------------------------------------------------------------------------------------

/// The measured pass: the directory walk and the lint, as `phi-lint check` does them.
fn phi_lint_pass(root: &Path) -> Result<phi_lint::LintResult, phi_lint::Error> {
    let scan = phi_lint::Scan::new(&[root.to_path_buf()], None)?;
    Ok(phi_lint::lint(black_box(&scan)))
}

/// One timed pass: wall clock, and the CPU time of the whole process (all rayon threads). On a
/// shared machine the CPU time is the steadier of the two: other processes stretch a pass's wall
/// clock but barely change the work it does.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Option<Duration>,
}

impl Sample {
    /// Times `pass`, keeping its result alive until the clocks stop.
    fn take<T, E: std::fmt::Display>(pass: impl FnOnce() -> Result<T, E>) -> Self {
        let cpu_before = process_cpu_time();
        let started = Instant::now();
        let result = black_box(pass());
        let wall = started.elapsed();
        let cpu = process_cpu_time()
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before));
        if let Err(e) = result {
            // The warm-up ran the same pass successfully over the same files.
            panic!("a measured pass failed after a successful warm-up: {e}");
        }
        Self { wall, cpu }
    }

    /// The median of each clock on its own (the upper one for an even count).
    fn median(samples: &[Self]) -> Self {
        let mut wall: Vec<Duration> = samples.iter().map(|s| s.wall).collect();
        let mut cpu: Vec<Duration> = samples.iter().filter_map(|s| s.cpu).collect();
        wall.sort_unstable();
        cpu.sort_unstable();
        Self {
            wall: wall[wall.len() / 2],
            cpu: (cpu.len() == samples.len()).then(|| cpu[cpu.len() / 2]),
        }
    }

    /// `parse-only  phi-lint  ratio`, for both clocks.
    fn row(parse: Self, lint: Self) -> String {
        let wall = format!(
            "{:>8.3} s {:>8.3} s {:>5.2}×",
            parse.wall.as_secs_f64(),
            lint.wall.as_secs_f64(),
            lint.wall.as_secs_f64() / parse.wall.as_secs_f64()
        );
        match parse.cpu.zip(lint.cpu) {
            Some((p, l)) => format!(
                "{wall}   {:>8.2} s {:>8.2} s {:>5.2}×",
                p.as_secs_f64(),
                l.as_secs_f64(),
                l.as_secs_f64() / p.as_secs_f64()
            ),
            None => format!("{wall}   (no /proc/self/stat)"),
        }
    }
}

/// CPU time (user + system, all threads) the process has used so far, from `/proc/self/stat`;
/// `None` where that file does not exist. Resolution: one clock tick, 10 ms.
fn process_cpu_time() -> Option<Duration> {
    /// `USER_HZ`: `/proc` counts times in ticks of 1/100 s on every Linux architecture.
    const TICKS_PER_SECOND: u64 = 100;
    let stat = fs::read_to_string("/proc/self/stat").ok()?;
    // Field 2, the command name, is in parentheses and may contain spaces: skip past it. The rest
    // starts at field 3; utime and stime are fields 14 and 15.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_ascii_whitespace();
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis(
        (utime + stime) * 1000 / TICKS_PER_SECOND,
    ))
}

/// Prints what phi-lint found in the corpus, by rule.
fn report_findings(result: &phi_lint::LintResult) {
    let mut by_rule = BTreeMap::<&str, usize>::new();
    for finding in &result.findings {
        *by_rule.entry(finding.rule.code()).or_default() += 1;
    }
    println!(
        "phi-lint: {} files, {} logging statements, {} findings, {} file errors",
        thousands(result.files),
        thousands(result.statements),
        thousands(result.findings.len()),
        result.errors.len()
    );
    for (rule, count) in by_rule {
        println!("    {rule:<28} {count:>7}");
    }
    for error in result.errors.iter().take(5) {
        let line = error.pos.map_or(0, |pos| pos.line);
        println!("    error: {}:{line}: {}", error.file, error.message);
    }
}

// ---------------------------------------------------------------------------------------------
// Small numeric helpers
// ---------------------------------------------------------------------------------------------

/// The median of `values` (the upper one for an even count); `None` for none.
fn median_f64(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut values: Vec<f64> = values.collect();
    values.sort_unstable_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

#[expect(
    clippy::cast_precision_loss,
    reason = "corpus sizes are far below 2^52"
)]
fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

#[expect(
    clippy::cast_precision_loss,
    reason = "corpus sizes are far below 2^52"
)]
fn ratio(a: usize, b: usize) -> f64 {
    a as f64 / b.max(1) as f64
}

#[expect(
    clippy::cast_precision_loss,
    clippy::cast_sign_loss,
    reason = "corpus sizes are far below 2^52 and the result is positive"
)]
fn per_second(count: usize, secs: f64) -> usize {
    (count as f64 / secs).round() as usize
}

/// `1234567` → `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Corpus generation
// ---------------------------------------------------------------------------------------------

/// The generated corpus: its files in a fixed order, and its size.
struct Corpus {
    files: Vec<PathBuf>,
    lines: usize,
    bytes: usize,
    /// Approximate: counts logging call sites by their spelling.
    logging_statements: usize,
}

impl Corpus {
    /// Writes the corpus under `root` as a crate: `src/lib.rs`, one `mod.rs` per area and
    /// [`MODULES`] service modules.
    fn generate(root: &Path) -> std::io::Result<Self> {
        let mut rng = Rng(SEED);
        let mut corpus = Self {
            files: Vec::new(),
            lines: 0,
            bytes: 0,
            logging_statements: 0,
        };

        // Every (area, entity, role) triple names one module; take a shuffled selection.
        let mut triples: Vec<(usize, usize, usize)> = (0..AREAS.len())
            .flat_map(|a| {
                (0..ENTITIES.len()).flat_map(move |e| (0..ROLES.len()).map(move |r| (a, e, r)))
            })
            .collect();
        rng.shuffle(&mut triples);
        triples.truncate(MODULES);
        triples.sort_unstable();

        let src = root.join("src");
        let mut lib = String::from("//! Generated services crate.\n\n");
        for (area_index, area) in AREAS.iter().enumerate() {
            let in_area: Vec<_> = triples
                .iter()
                .filter(|(a, _, _)| *a == area_index)
                .collect();
            if in_area.is_empty() {
                continue;
            }
            declare_module(&mut lib, area);
            let dir = src.join(area);
            fs::create_dir_all(&dir)?;
            let mut area_mod = format!("//! The `{area}` area.\n\n");
            for &&(_, entity, role) in &in_area {
                let entity = &ENTITIES[entity];
                let role = &ROLES[role];
                let module = format!("{}_{}", entity.var, role.file);
                declare_module(&mut area_mod, &module);
                let text = generate_module(&mut rng, area, entity, role);
                corpus.write(&dir.join(format!("{module}.rs")), &text)?;
            }
            corpus.write(&dir.join("mod.rs"), &area_mod)?;
        }
        corpus.write(&src.join("lib.rs"), &lib)?;
        corpus.files.sort();
        Ok(corpus)
    }

    fn write(&mut self, path: &Path, text: &str) -> std::io::Result<()> {
        fs::write(path, text)?;
        self.files.push(path.to_path_buf());
        self.lines += text.lines().count();
        self.bytes += text.len();
        self.logging_statements += LOGGING_SPELLINGS
            .iter()
            .map(|s| text.matches(s).count())
            .sum::<usize>();
        Ok(())
    }
}

/// Appends `pub mod {name};` to a module's declarations.
fn declare_module(declarations: &mut String, name: &str) {
    declarations.push_str("pub mod ");
    declarations.push_str(name);
    declarations.push_str(";\n");
}

/// How logging call sites are spelled in the corpus, for the statistics line. Qualified paths
/// (`tracing::info!(`) contain the bare spelling, so each call counts once.
const LOGGING_SPELLINGS: &[&str] = &[
    "info!(",
    "warn!(",
    "debug!(",
    "error!(",
    "trace!(",
    "event!(",
    "info_span!(",
    "println!(",
    "eprintln!(",
    "dbg!(",
    ".record(",
    "#[instrument",
    "#[tracing::instrument",
    "audit!(",
    "reject!(",
];

/// splitmix64: tiny, fast, and plenty to vary generated code deterministically.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` for `n > 0` (the modulo bias is irrelevant here).
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo)
    }

    /// True with the given probability in percent.
    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Fisher–Yates.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// A domain type the services handle, with the fields that must never be logged.
struct Entity {
    ty: &'static str,
    var: &'static str,
    plural: &'static str,
    /// Personal or clinical data: logging any of these is a finding.
    pii: [&'static str; 3],
    /// One more, harmless, field and its type.
    extra: (&'static str, &'static str),
}

const ENTITIES: &[Entity] = &[
    Entity {
        ty: "Patient",
        var: "patient",
        plural: "patients",
        pii: ["email", "full_name", "date_of_birth"],
        extra: ("ward", "WardId"),
    },
    Entity {
        ty: "Appointment",
        var: "appointment",
        plural: "appointments",
        pii: ["patient_name", "reason", "phone"],
        extra: ("slot_minutes", "u16"),
    },
    Entity {
        ty: "Reading",
        var: "reading",
        plural: "readings",
        pii: ["comment", "device_owner", "location"],
        extra: ("value", "f64"),
    },
    Entity {
        ty: "Order",
        var: "order",
        plural: "orders",
        pii: ["shipping_address", "customer_email", "notes"],
        extra: ("amount_cents", "i64"),
    },
    Entity {
        ty: "Invoice",
        var: "invoice",
        plural: "invoices",
        pii: ["billing_address", "payer_name", "iban"],
        extra: ("total_cents", "i64"),
    },
    Entity {
        ty: "Claim",
        var: "claim",
        plural: "claims",
        pii: ["diagnosis", "member_name", "policy_holder"],
        extra: ("amount_cents", "i64"),
    },
    Entity {
        ty: "Prescription",
        var: "prescription",
        plural: "prescriptions",
        pii: ["medication", "dosage_notes", "prescriber_name"],
        extra: ("refills", "u8"),
    },
    Entity {
        ty: "Referral",
        var: "referral",
        plural: "referrals",
        pii: ["clinical_notes", "referrer_email", "patient_phone"],
        extra: ("urgency", "u8"),
    },
    Entity {
        ty: "Device",
        var: "device",
        plural: "devices",
        pii: ["owner_name", "home_address", "owner_email"],
        extra: ("firmware", "u32"),
    },
    Entity {
        ty: "Account",
        var: "account",
        plural: "accounts",
        pii: ["email", "display_name", "phone"],
        extra: ("plan", "PlanId"),
    },
    Entity {
        ty: "Shipment",
        var: "shipment",
        plural: "shipments",
        pii: ["recipient_name", "delivery_address", "contact_phone"],
        extra: ("weight_grams", "u32"),
    },
    Entity {
        ty: "Message",
        var: "message",
        plural: "messages",
        pii: ["body", "sender_email", "subject"],
        extra: ("channel", "Channel"),
    },
];

/// What a module does with its entity: type-name suffix, file-name suffix, purpose.
struct Role {
    ty: &'static str,
    file: &'static str,
    purpose: &'static str,
}

const ROLES: &[Role] = &[
    Role {
        ty: "Service",
        file: "service",
        purpose: "the business operations behind the public API",
    },
    Role {
        ty: "Handler",
        file: "handler",
        purpose: "request handlers and their error mapping",
    },
    Role {
        ty: "Repository",
        file: "repository",
        purpose: "persistence with a read-through cache",
    },
    Role {
        ty: "Worker",
        file: "worker",
        purpose: "a background loop that drains the inbox",
    },
    Role {
        ty: "Importer",
        file: "importer",
        purpose: "bulk imports from partner systems",
    },
    Role {
        ty: "Syncer",
        file: "sync",
        purpose: "reconciliation with the upstream system of record",
    },
    Role {
        ty: "Scheduler",
        file: "scheduler",
        purpose: "time-based triage and reminders",
    },
    Role {
        ty: "Notifier",
        file: "notifier",
        purpose: "notifications over mail, SMS and push",
    },
    Role {
        ty: "Gateway",
        file: "gateway",
        purpose: "the client for the upstream HTTP API",
    },
];

const AREAS: &[&str] = &[
    "api",
    "billing",
    "clinical",
    "devices",
    "ingest",
    "messaging",
    "scheduling",
    "storage",
];

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

/// Values substituted into templates, where `$name` or `${name}` stands for a value and `$$` for a
/// literal `$`. A multi-line value is indented like the line it is substituted into.
#[derive(Default)]
struct Vars(Vec<(&'static str, String)>);

impl Vars {
    fn set(&mut self, key: &'static str, value: impl Into<String>) {
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    fn get(&self, key: &str) -> &str {
        match self.0.iter().find(|(k, _)| *k == key) {
            Some((_, value)) => value,
            None => panic!("template variable `{key}` is not set"),
        }
    }

    /// Substitutes the variables into `template`.
    fn fill(&self, template: &str) -> String {
        let mut out = String::with_capacity(template.len() + template.len() / 4);
        let mut rest = template;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (key, tail) = if let Some(tail) = after.strip_prefix('$') {
                out.push('$');
                rest = tail;
                continue;
            } else if let Some(braced) = after.strip_prefix('{') {
                let end = braced.find('}').expect("unclosed `${` in template");
                (&braced[..end], &braced[end + 1..])
            } else {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                assert!(end > 0, "stray `$` in template");
                after.split_at(end)
            };
            let value = self.get(key);
            if value.contains('\n') {
                let line_start = out.rfind('\n').map_or(0, |i| i + 1);
                let indent: String = out[line_start..]
                    .chars()
                    .take_while(|c| *c == ' ')
                    .collect();
                out.push_str(&value.replace('\n', &format!("\n{indent}")));
            } else {
                out.push_str(value);
            }
            rest = tail;
        }
        out.push_str(rest);
        out
    }
}

/// Accumulates a module's text, indenting template output and dropping the lines that optional
/// template values left empty.
struct Module {
    text: String,
    lines: usize,
}

impl Module {
    /// Appends `code` (a filled template written at column 0) indented by `indent` spaces,
    /// followed by a blank line.
    fn item(&mut self, indent: usize, code: &str) {
        for line in code.trim_matches('\n').lines() {
            if line.is_empty() {
                self.text.push('\n');
            } else if line.trim().is_empty() {
                // An optional statement that was not chosen.
                continue;
            } else {
                self.text.extend(std::iter::repeat_n(' ', indent));
                self.text.push_str(line);
                self.text.push('\n');
            }
            self.lines += 1;
        }
        self.text.push('\n');
        self.lines += 1;
    }

    /// Closes the open `impl` block (drops the blank line after its last item).
    fn close_impl(&mut self) {
        if self.text.ends_with("\n\n") {
            self.text.pop();
            self.lines -= 1;
        }
        self.text.push_str("}\n\n");
        self.lines += 2;
    }
}

/// Generates one service module.
fn generate_module(rng: &mut Rng, area: &str, entity: &Entity, role: &Role) -> String {
    let other = loop {
        let other = &ENTITIES[rng.below(ENTITIES.len())];
        if other.ty != entity.ty {
            break other;
        }
    };
    let target_lines = rng.range(MODULE_LINES.0, MODULE_LINES.1);
    let mut vars = Vars::default();
    vars.set("area", area);
    vars.set("E", entity.ty);
    vars.set("e", entity.var);
    vars.set("es", entity.plural);
    vars.set("table", entity.plural);
    vars.set("O", other.ty);
    vars.set("o", other.var);
    vars.set("os", other.plural);
    vars.set("Svc", format!("{}{}", entity.ty, role.ty));
    vars.set("role", role.file);
    vars.set("purpose", role.purpose);
    vars.set("a_e", with_article(entity.var));
    vars.set("A_e", capitalise(&with_article(entity.var)));
    vars.set("a_role", with_article(role.file));
    vars.set("pii1", entity.pii[0]);
    vars.set("pii2", entity.pii[1]);
    vars.set("pii3", entity.pii[2]);
    vars.set("extra", entity.extra.0);
    vars.set("extra_ty", entity.extra.1);
    vars.set("batch", (rng.range(1, 9) * 50).to_string());
    vars.set("retries", rng.range(2, 8).to_string());
    vars.set("base_ms", (rng.range(1, 10) * 25).to_string());
    vars.set("poll", rng.range(1, 60).to_string());
    vars.set("stale", (rng.range(1, 48) * 3600).to_string());
    vars.set("cap", (rng.range(1, 64) * 1024).to_string());
    let has_macros = rng.chance(50);

    let mut module = Module {
        text: String::with_capacity(target_lines * 40),
        lines: 0,
    };
    randomise(rng, &mut vars, entity);
    module.item(0, &vars.fill(HEADER));
    module.item(0, &vars.fill(TYPES));
    if has_macros {
        module.item(0, &vars.fill(MACROS));
    }
    module.item(0, &vars.fill(SERVICE));

    // Methods fill about three quarters of the module, free items the rest. Templates are used in
    // a shuffled order and only repeat, with a suffix, once all have been used.
    let mut methods: Vec<&str> = METHODS.to_vec();
    if has_macros {
        methods.push(METHOD_AUDITED_UPDATE);
    }
    let mut frees: Vec<&str> = FREE_ITEMS.to_vec();
    let (mut method_round, mut free_round) = (0, 0);
    let mut method_queue = Vec::new();
    let mut free_queue = Vec::new();

    module.item(0, &vars.fill(IMPL_START));
    while module.lines < target_lines * 3 / 4 {
        if method_queue.is_empty() {
            rng.shuffle(&mut methods);
            method_queue.extend(methods.iter().copied());
            method_round += 1;
        }
        let template = method_queue.pop().expect("refilled above");
        randomise(rng, &mut vars, entity);
        vars.set("sfx", suffix(method_round));
        module.item(4, &vars.fill(template));
    }
    module.close_impl();
    module.item(0, &vars.fill(TRY_FROM_ROW));
    while module.lines < target_lines {
        if free_queue.is_empty() {
            rng.shuffle(&mut frees);
            free_queue.extend(frees.iter().copied());
            free_round += 1;
        }
        let template = free_queue.pop().expect("refilled above");
        randomise(rng, &mut vars, entity);
        vars.set("sfx", suffix(free_round));
        module.item(0, &vars.fill(template));
    }
    module.text.truncate(module.text.trim_end().len());
    module.text.push('\n');
    module.text
}

/// `"order"` → `"an order"`.
fn with_article(noun: &str) -> String {
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {noun}")
}

/// `"an order"` → `"An order"`.
fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

/// Name suffix for the `round`-th use of a template in one module.
fn suffix(round: usize) -> String {
    if round <= 1 {
        String::new()
    } else {
        format!("_v{round}")
    }
}

/// Re-draws the per-item random values: events, attributes and small constants.
fn randomise(rng: &mut Rng, vars: &mut Vars, entity: &Entity) {
    let pii = rng.pick(&entity.pii);
    vars.set("pii", pii);
    vars.set("n", rng.range(3, 50).to_string());
    vars.set("max", (rng.range(1, 20) * 64).to_string());
    vars.set(
        "weight",
        format!("{}.{}", rng.range(0, 4), rng.range(0, 10)),
    );
    vars.set("verb", rng.pick(&["load", "fetch", "get", "read", "find"]));
    vars.set("instr", vars.fill(rng.pick(INSTRUMENT_ATTRS)));
    // Events are built from the variables above, so they come last.
    let ev = event(rng, vars, None);
    vars.set("ev", ev);
    let ev = event(rng, vars, None);
    vars.set("ev2", ev);
    let ev = event(rng, vars, Some("debug!"));
    vars.set("dbg_ev", ev);
    let ev = event(rng, vars, Some("warn!"));
    vars.set("warn_ev", ev);
    let ev = log_event(rng, vars);
    vars.set("log_ev", ev);
    // Optional statements: an empty value drops the line.
    let optional = |rng: &mut Rng, percent, template: &str| {
        if rng.chance(percent) {
            vars.fill(template)
        } else {
            String::new()
        }
    };
    let record = optional(rng, 30, r#"span.record("$pii", req.$pii.as_str());"#);
    let print = optional(
        rng,
        35,
        "if let Some(first) = ${es}.first() {\n    \
         eprintln!(\"first ${e}: {} <{}>\", first.id, first.$pii);\n}",
    );
    let dbg = optional(rng, 10, "dbg!(&${es}[0].status);");
    let audit = optional(
        rng,
        25,
        r#"audit!("${e}.contact_changed", ${e}_id = %id, $pii = %${e}.$pii);"#,
    );
    let fmt = vars.fill(rng.pick(NOTIFY_FORMATS));
    vars.set("record_opt", record);
    vars.set("print_opt", print);
    vars.set("dbg_opt", dbg);
    vars.set("audit_opt", audit);
    vars.set("fmt_ev", fmt);
}

/// A `tracing` event over the variables in scope in the method templates (`${e}`, `${es}`,
/// `started`, `attempt`, `total`), with a random macro path, prefix, fields and message; about
/// one value in ten is one that must not be logged.
fn event(rng: &mut Rng, vars: &Vars, level: Option<&str>) -> String {
    let mac = level.unwrap_or_else(|| rng.pick(EVENT_MACROS));
    let mut args: Vec<String> = Vec::new();
    if rng.chance(10) {
        args.push(vars.fill(r#"target: "$area::$role""#));
    } else if rng.chance(4) {
        args.push("parent: &Span::current()".to_owned());
    }
    for _ in 0..rng.below(4) {
        let pool = if rng.chance(10) {
            UNSAFE_FIELDS
        } else {
            SAFE_FIELDS
        };
        args.push(vars.fill(rng.pick(pool)));
    }
    if args.is_empty() || rng.chance(85) {
        let pool = if rng.chance(10) {
            UNSAFE_MESSAGES
        } else {
            SAFE_MESSAGES
        };
        args.push(vars.fill(rng.pick(pool)));
    }
    layout(mac, &args)
}

/// A `log` event, with structured key-values half of the time.
fn log_event(rng: &mut Rng, vars: &Vars) -> String {
    let level = rng.pick(&["info", "warn", "debug"]);
    let message = vars.fill(rng.pick(SAFE_MESSAGES));
    if rng.chance(50) {
        let kvs: Vec<String> = (0..rng.range(1, 4))
            .map(|_| {
                let pool = if rng.chance(15) {
                    UNSAFE_LOG_KVS
                } else {
                    SAFE_LOG_KVS
                };
                vars.fill(rng.pick(pool))
            })
            .collect();
        format!("log::{level}!({}; {message});", kvs.join(", "))
    } else {
        format!(
            r#"log::{level}!(target: "{}", {message});"#,
            vars.fill("$area::$role")
        )
    }
}

/// Lays out a macro call the way rustfmt would: on one line if it fits, else one argument per
/// line.
fn layout(mac: &str, args: &[String]) -> String {
    let one_line = format!("{mac}({});", args.join(", "));
    if one_line.len() <= 88 {
        return one_line;
    }
    let mut out = format!("{mac}(\n");
    for arg in args {
        out.push_str("    ");
        out.push_str(arg);
        out.push_str(",\n");
    }
    out.push_str(");");
    out
}

const EVENT_MACROS: &[&str] = &[
    "info!",
    "info!",
    "info!",
    "debug!",
    "debug!",
    "warn!",
    "error!",
    "tracing::info!",
    "tracing::debug!",
    "tracing::trace!",
    "tracing::warn!",
];

/// Field forms whose values are ids, counts, durations, statuses or type names.
const SAFE_FIELDS: &[&str] = &[
    "${e}_id = %${e}.id",
    "${e}_id = ?${e}.id",
    "tenant_id = %${e}.tenant_id",
    "status = ?${e}.status",
    "status = ${e}.status.as_str()",
    "version = ${e}.version",
    "count = ${es}.len()",
    "elapsed_ms = started.elapsed().as_millis() as u64",
    "elapsed = ?started.elapsed()",
    "kind = std::any::type_name::<$E>()",
    "retries = ${e}.retries",
    "%${e}.id",
    "?${e}.status",
    "${e}.id = %${e}.id",
    "db.table = \"$table\"",
    "db.rows = ${es}.len()",
    "\"${e}.version\" = ${e}.version",
    "attempt",
    "total",
    "?attempt",
    "outcome = if ${es}.is_empty() { \"empty\" } else { \"ok\" }",
];

/// Field forms that log personal data.
const UNSAFE_FIELDS: &[&str] = &[
    "$pii = %${e}.$pii",
    "$pii = ${e}.$pii.as_str()",
    "?${e}",
    "${e} = ?${e}",
    "\"${e}.$pii\" = %${e}.$pii",
    "%${e}.$pii",
    "${e}.$pii = ?${e}.$pii",
];

const SAFE_MESSAGES: &[&str] = &[
    "\"${e} processed\"",
    "\"done\"",
    "\"loaded {} ${es} in {:?}\", ${es}.len(), started.elapsed()",
    "\"${e} {} is now {:?}\", ${e}.id, ${e}.status",
    "\"{0} updated, cache entry for {0} evicted\", ${e}.id",
    "\"{total} ${es} pending\"",
    "\"took {:>8.2} ms\", started.elapsed().as_secs_f64() * 1000.0",
    "\"batch of {n} done\", n = ${es}.len()",
    "\"retrying {} (attempt {attempt})\", ${e}.id",
    "\"{} v{} saved\", std::any::type_name::<$E>(), ${e}.version",
];

const UNSAFE_MESSAGES: &[&str] = &[
    "\"processing {who}\", who = ${e}.$pii",
    "\"contact for {}: {}\", ${e}.id, ${e}.$pii",
    "\"{:#?}\", ${e}",
    "\"{${e}:?} rejected\"",
    "\"{}\", ${e}.$pii",
];

const SAFE_LOG_KVS: &[&str] = &[
    "${e}_id = ${e}.id.to_string()",
    "count = ${es}.len()",
    "status:? = ${e}.status",
    "version = ${e}.version",
    "elapsed_ms = started.elapsed().as_millis() as u64",
    "attempt",
];

const UNSAFE_LOG_KVS: &[&str] = &[
    "$pii:% = ${e}.$pii",
    "${e}:? = ${e}",
    "$pii = ${e}.$pii.as_str()",
];

/// `#[instrument]` attributes for methods whose arguments vary (`self` plus ids or entities).
const INSTRUMENT_ATTRS: &[&str] = &[
    "#[instrument(skip_all)]",
    "#[instrument(skip(self))]",
    "#[instrument(skip(self), err)]",
    "#[instrument(level = \"debug\", skip(self))]",
    "#[tracing::instrument(skip_all, fields(tenant_id = %self.tenant_id))]",
    "#[instrument]",
    "#[instrument(skip(self), fields(service = \"$Svc\"))]",
    "#[instrument(name = \"${table}.$verb\", skip_all, err(Display))]",
    "#[instrument(skip(self), ret)]",
];

/// The success lines of `notify`, in every format-string form.
const NOTIFY_FORMATS: &[&str] = &[
    "info!(\"delivered {} notification {} in {:?}\", channel, receipt.id, started.elapsed());",
    "debug!(\"{0} bytes, attempt {attempt}, receipt {0}\", message.len());",
    "info!(\"sent {kind} to {to}\", kind = channel, to = ${e}.id);",
    "info!(\"sent to {to}\", to = ${e}.$pii);",
    "info!(\"hello {}, your ${e} is ready\", ${e}.$pii);",
    "debug!(\"{receipt:?} for {:>12}\", ${e}.id);",
];

const HEADER: &str = r"
//! $Svc: $purpose for $es.
//!
//! Owns the `$table` table for the `$area` area; other areas go through this module.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::{mpsc, watch};
use tracing::{Span, debug, error, info, instrument, warn};

use crate::db::{Pool, Row, StorageError};
use crate::metrics::Metrics;
use crate::notify::{Channel, Sender, Templates};
use crate::types::{${E}Id, ${O}Id, TenantId};
";

const TYPES: &str = r#"
/// ${A_e} as stored in the `$table` table.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct $E {
    pub id: ${E}Id,
    pub tenant_id: TenantId,
    pub status: ${E}Status,
    pub version: u32,
    pub retries: u32,
    pub $pii1: String,
    pub $pii2: String,
    pub $pii3: String,
    pub $extra: $extra_ty,
    pub created_at: SystemTime,
    pub updated_at: SystemTime,
}

/// The lifecycle of [`$E`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ${E}Status {
    Pending,
    Active,
    Suspended,
    Archived,
}

impl ${E}Status {
    /// The status as stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Active => "active",
            Self::Suspended => "suspended",
            Self::Archived => "archived",
        }
    }

    /// Whether ${a_e} may move from `self` to `next`.
    pub fn can_move_to(self, next: Self) -> bool {
        matches!(
            (self, next),
            (Self::Pending, Self::Active)
                | (Self::Active, Self::Suspended | Self::Archived)
                | (Self::Suspended, Self::Active | Self::Archived)
        )
    }
}

/// A partial update of [`$E`]; `None` leaves a field as it is.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ${E}Patch {
    pub status: Option<${E}Status>,
    pub $pii1: Option<String>,
    pub $pii2: Option<String>,
    pub $pii3: Option<String>,
}

/// Why ${a_e} operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ${E}Error {
    #[error("$e {0} not found")]
    NotFound(${E}Id),
    #[error("$e {0} was modified concurrently")]
    Conflict(${E}Id),
    #[error("invalid $e: {0}")]
    Invalid(&'static str),
    #[error("storage: {0}")]
    Storage(String),
    #[error("delivery: {0}")]
    Delivery(String),
}

impl ${E}Error {
    /// Whether retrying the operation may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Storage(_) | Self::Delivery(_))
    }
}

impl From<StorageError> for ${E}Error {
    fn from(e: StorageError) -> Self {
        Self::Storage(e.to_string())
    }
}

/// Storage of [`$E`]s.
#[async_trait::async_trait]
pub trait ${E}Repository: Send + Sync {
    async fn find(&self, id: ${E}Id) -> Result<Option<$E>, ${E}Error>;
    async fn save(&self, $e: &$E) -> Result<(), ${E}Error>;
    async fn upsert(&self, $e: &$E) -> Result<(), ${E}Error>;
    async fn search(&self, filter: &${E}Filter) -> Result<Vec<$E>, ${E}Error>;
}
"#;

const MACROS: &str = r#"
/// Emits an audit event for ${a_e} change; every call site lists its own fields.
macro_rules! audit {
    ($$event:literal, $$($$field:tt)*) => {
        tracing::info!(target: "audit", event = $$event, $$($$field)*)
    };
}

/// Logs and counts a rejected request in one go.
macro_rules! reject {
    ($$reason:expr, $$id:expr) => {{
        warn!(reason = $$reason, id = %$$id, "request rejected");
        metrics::counter!("${table}_rejected_total").increment(1);
    }};
}
"#;

const SERVICE: &str = r"
/// Tunables for [`$Svc`].
#[derive(Debug, Clone)]
pub struct ${Svc}Config {
    pub batch_size: usize,
    pub max_retries: u32,
    pub retry_base: Duration,
    pub poll_interval: Duration,
    pub stale_after: Duration,
    pub cache_capacity: usize,
}

impl Default for ${Svc}Config {
    fn default() -> Self {
        Self {
            batch_size: $batch,
            max_retries: $retries,
            retry_base: Duration::from_millis($base_ms),
            poll_interval: Duration::from_secs($poll),
            stale_after: Duration::from_secs($stale),
            cache_capacity: $cap,
        }
    }
}

/// Summary of one import run.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportSummary {
    pub total: usize,
    pub imported: usize,
    pub skipped: usize,
    pub elapsed: Duration,
}

/// The $e $role.
pub struct $Svc {
    name: Arc<str>,
    tenant_id: TenantId,
    pool: Pool,
    repo: Arc<dyn ${E}Repository>,
    ${o}_repo: Arc<dyn crate::${os}::${O}Repository>,
    cache: HashMap<${E}Id, $E>,
    inbox: mpsc::Receiver<$E>,
    sender: Sender,
    templates: Templates,
    metrics: Metrics,
    config: ${Svc}Config,
}
";

const IMPL_START: &str = r#"
impl $Svc {
    /// Creates ${a_role}; `inbox` receives the $es other areas hand over.
    pub fn new(
        tenant_id: TenantId,
        pool: Pool,
        repo: Arc<dyn ${E}Repository>,
        ${o}_repo: Arc<dyn crate::${os}::${O}Repository>,
        inbox: mpsc::Receiver<$E>,
        config: ${Svc}Config,
    ) -> Self {
        info!(
            %tenant_id,
            batch_size = config.batch_size,
            max_retries = config.max_retries,
            "$role configured"
        );
        Self {
            name: Arc::from("$area.$role"),
            tenant_id,
            pool,
            repo,
            ${o}_repo,
            cache: HashMap::with_capacity(config.cache_capacity),
            inbox,
            sender: Sender::default(),
            templates: Templates::default(),
            metrics: Metrics::new("$table"),
            config,
        }
    }
"#;

/// Method templates (inside `impl $Svc`).
const METHODS: &[&str] = &[
    // Read-through cache with error mapping in a closure.
    r#"
/// Loads one $e, serving repeated reads from the cache.
$instr
pub async fn ${verb}_${e}${sfx}(&mut self, id: ${E}Id) -> Result<$E, ${E}Error> {
    let started = Instant::now();
    if let Some(hit) = self.cache.get(&id) {
        debug!(${e}_id = %id, "cache hit");
        return Ok(hit.clone());
    }
    let row = self
        .pool
        .query_one("SELECT * FROM $table WHERE tenant_id = $$1 AND id = $$2", &[&self.tenant_id, &id])
        .await
        .map_err(|e| {
            error!(error = %e, ${e}_id = %id, "query failed");
            ${E}Error::Storage(e.to_string())
        })?;
    let $e = $E::try_from(row)?;
    let ${es} = [&$e];
    $ev
    self.cache.insert(id, $e.clone());
    self.metrics.observe("$table.get", started.elapsed());
    Ok($e)
}
"#,
    // Batch import loop with validation and per-row error handling.
    r#"
/// Imports a batch of $es, skipping the rows that fail validation.
#[instrument(skip_all, fields(batch = ${es}.len()))]
pub async fn import_${es}${sfx}(&self, ${es}: Vec<$E>) -> Result<ImportSummary, ${E}Error> {
    let started = Instant::now();
    let total = ${es}.len();
    let (mut imported, mut skipped) = (0_usize, 0_usize);
    for $e in &${es} {
        if let Err(reason) = validate(&$e) {
            skipped += 1;
            warn!(${e}_id = %$e.id, %reason, "skipping invalid $e");
            continue;
        }
        match self.repo.upsert(&$e).await {
            Ok(()) => imported += 1,
            Err(e) => {
                error!(error = %e, ${e}_id = %$e.id, "failed to upsert $e");
                skipped += 1;
            }
        }
    }
    let elapsed = started.elapsed();
    info!(total, imported, skipped, elapsed_ms = elapsed.as_millis() as u64, "import finished");
    Ok(ImportSummary { total, imported, skipped, elapsed })
}
"#,
    // Retry loop with backoff.
    r#"
/// Runs `op` until it succeeds, fails permanently or runs out of retries.
async fn with_retry${sfx}<T, F, Fut>(&self, op: &'static str, mut f: F) -> Result<T, ${E}Error>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, ${E}Error>>,
{
    let mut attempt = 0_u32;
    loop {
        attempt += 1;
        match f().await {
            Ok(value) => {
                if attempt > 1 {
                    debug!(op, attempt, "succeeded after retry");
                }
                return Ok(value);
            }
            Err(e) if attempt < self.config.max_retries && e.is_transient() => {
                let delay = self.config.retry_base * 2_u32.pow(attempt.min(6));
                warn!(
                    op,
                    attempt,
                    delay_ms = delay.as_millis() as u64,
                    error = %e,
                    "transient failure, retrying"
                );
                tokio::time::sleep(delay).await;
            }
            Err(e) => {
                error!(op, attempt, error = ?e, "giving up");
                return Err(e);
            }
        }
    }
}
"#,
    // tokio::select! loop.
    r#"
/// Runs the $role loop until shutdown is signalled.
#[instrument(skip_all, fields(worker = %self.name))]
pub async fn run${sfx}(mut self, mut shutdown: watch::Receiver<bool>) {
    let mut ticker = tokio::time::interval(self.config.poll_interval);
    info!(interval = ?self.config.poll_interval, "$role started");
    loop {
        tokio::select! {
            _ = ticker.tick() => {
                let started = Instant::now();
                match self.poll_once().await {
                    Ok(0) => debug!("nothing to do"),
                    Ok(n) => info!(processed = n, elapsed = ?started.elapsed(), "poll cycle done"),
                    Err(e) => error!(error = %e, "poll cycle failed"),
                }
            }
            Some($e) = self.inbox.recv() => {
                let started = Instant::now();
                let ${es} = [&$e];
                $ev2
                self.handle(&$e).await;
            }
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    info!(pending = self.inbox.len(), "shutting down $role");
                    break;
                }
            }
        }
    }
}
"#,
    // futures::join! with logging in an async block and in a closure.
    r#"
/// Loads ${a_e} together with its $os and audit history.
#[instrument(skip(self), fields(${e}_id = %id))]
pub async fn ${e}_details${sfx}(&self, id: ${E}Id) -> Result<${E}Details, ${E}Error> {
    let started = Instant::now();
    let ($e, ${os}, history) = futures::join!(
        self.repo.find(id),
        self.${o}_repo.for_${e}(id),
        async {
            let history = self.pool.audit_history("$table", id).await;
            debug!(entries = history.as_ref().map_or(0, Vec::len), "audit history loaded");
            history
        },
    );
    let $e = $e?.ok_or(${E}Error::NotFound(id))?;
    let ${os} = ${os}.unwrap_or_else(|e| {
        warn!(error = %e, "$os unavailable, continuing without them");
        Vec::new()
    });
    let ${es} = [&$e];
    $ev
    Ok(${E}Details { $e, ${os}, history: history.unwrap_or_default() })
}
"#,
    // Iterator chain with logging in closures.
    r#"
/// Returns the $es that need attention, highest priority first.
pub fn triage${sfx}(&self, ${es}: &[$E]) -> Vec<Triaged> {
    let now = SystemTime::now();
    let mut out: Vec<Triaged> = ${es}
        .iter()
        .filter(|$e| $e.status != ${E}Status::Archived)
        .filter_map(|$e| {
            let age = now.duration_since($e.updated_at).ok()?;
            if age < self.config.stale_after {
                return None;
            }
            let started = Instant::now();
            $dbg_ev
            Some(Triaged { id: $e.id, score: priority_score(age, $e.retries, $weight) })
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    if let Some(top) = out.first() {
        debug!(top_id = %top.id, top_score = top.score, candidates = out.len(), "triage done");
    }
    out
}
"#,
    // vec![] of closures that log.
    r#"
/// Health checks of the $role, evaluated in order.
fn checks${sfx}(&self) -> Vec<Check<'_>> {
    vec![
        Check::new("pool", || {
            let idle = self.pool.idle_connections();
            debug!(idle, max = self.pool.max_size(), "pool check");
            idle > 0
        }),
        Check::new("cache", || {
            let len = self.cache.len();
            if len > self.config.cache_capacity {
                warn!(len, capacity = self.config.cache_capacity, "cache over capacity");
            }
            true
        }),
        Check::new("backlog", || self.inbox.len() < $max),
    ]
}
"#,
    // log crate, with key-values, inside a match.
    r#"
/// Reconciles local $es with the upstream system of record.
pub fn reconcile${sfx}(&self, local: &[$E], remote: &[$E]) -> ReconcileReport {
    let started = Instant::now();
    let remote_by_id: HashMap<_, _> = remote.iter().map(|r| (r.id, r)).collect();
    let mut report = ReconcileReport::default();
    for $e in local {
        let ${es} = local;
        match remote_by_id.get(&$e.id) {
            None => {
                log::warn!(${e}_id = $e.id.to_string(); "missing upstream");
                report.missing.push($e.id);
            }
            Some(remote) if remote.version > $e.version => {
                log::info!(
                    target: "$area::reconcile",
                    "{} is behind upstream ({} < {})",
                    $e.id,
                    $e.version,
                    remote.version
                );
                report.stale.push($e.id);
            }
            Some(remote) if remote.$pii != $e.$pii => {
                $log_ev
                report.drifted.push($e.id);
            }
            Some(_) => report.in_sync += 1,
        }
    }
    log::info!("reconciled {} $es in {:?}: {:?}", local.len(), started.elapsed(), report.summary());
    report
}
"#,
    // span.record on the current span.
    r#"
/// Handles one search request and annotates the current span with its outcome.
#[instrument(skip_all, fields(${e}_id, status = tracing::field::Empty, rows = tracing::field::Empty))]
pub async fn handle_search${sfx}(&self, req: ${E}Request) -> Response {
    let span = Span::current();
    span.record("${e}_id", tracing::field::display(&req.${e}_id));
    let rows = match self.repo.search(&req.filter).await {
        Ok(rows) => rows,
        Err(e) => {
            span.record("status", 500_u16);
            error!(error = %e, "search failed");
            return Response::internal_error();
        }
    };
    span.record("rows", rows.len());
    $record_opt
    span.record("status", 200_u16);
    Response::ok(rows)
}
"#,
    // println!/eprintln!/dbg! in an admin command.
    r#"
/// Prints a summary for the `$area` admin command.
pub fn print_summary${sfx}(&self, ${es}: &[$E]) {
    println!("{} $es for tenant {}", ${es}.len(), self.tenant_id);
    for (i, $e) in ${es}.iter().enumerate().take($n) {
        println!("{i:>4}  {}  {:?}  v{}", $e.id, $e.status, $e.version);
    }
    if ${es}.len() > $n {
        println!("... and {} more", ${es}.len() - $n);
    }
    $print_opt
    $dbg_opt
}
"#,
    // match and if expressions with logging in their arms and as field values.
    r#"
/// Maps an upstream response onto ${a_e} status, logging anything unexpected.
fn status_from_response${sfx}(&self, id: ${E}Id, code: u16, body: &str) -> Option<${E}Status> {
    let status = match code {
        200 | 201 => Some(${E}Status::Active),
        202 => Some(${E}Status::Pending),
        404 => {
            info!(${e}_id = %id, http.status = code, "upstream does not know this $e");
            None
        }
        409 => Some(${E}Status::Suspended),
        c if c >= 500 => {
            warn!(${e}_id = %id, http.status = c, "upstream error");
            None
        }
        other => {
            error!(${e}_id = %id, http.status = other, body_len = body.len(), "unexpected response");
            None
        }
    };
    debug!(
        ${e}_id = %id,
        outcome = if status.is_some() { "mapped" } else { "dropped" },
        "status mapping"
    );
    status
}
"#,
    // Format strings of every kind.
    r#"
/// Sends the $e's owner a notification and logs the delivery.
#[instrument(skip(self, $e), fields(${e}_id = %$e.id, channel = %channel))]
pub async fn notify${sfx}(&self, $e: &$E, channel: Channel) -> Result<(), ${E}Error> {
    let started = Instant::now();
    let template = self.templates.get(channel).ok_or(${E}Error::Invalid("no template"))?;
    let message = template.render($e);
    let attempt = 1;
    match self.sender.send(channel, &message).await {
        Ok(receipt) => {
            $fmt_ev
            self.metrics.observe("$table.notify", started.elapsed());
            Ok(())
        }
        Err(e) => {
            error!(error = %e, "delivery via {channel:?} failed after {} ms", started.elapsed().as_millis());
            Err(${E}Error::Delivery(e.to_string()))
        }
    }
}
"#,
    // Explicit spans and event! with a level.
    r#"
/// Pushes one page of $es upstream inside its own span.
pub fn sync_page${sfx}(&self, page: usize, ${es}: &[$E]) -> usize {
    let span = tracing::info_span!("${table}.sync_page", page, size = ${es}.len());
    let _guard = span.enter();
    let mut synced = 0;
    for chunk in ${es}.chunks(self.config.batch_size.max(1)) {
        let result = self.pool.push_batch("$table", chunk);
        tracing::event!(tracing::Level::DEBUG, chunk = chunk.len(), ok = result.is_ok(), "chunk pushed");
        if result.is_ok() {
            synced += chunk.len();
        }
    }
    if synced < ${es}.len() {
        warn!(parent: &span, skipped = ${es}.len() - synced, "page partially synced");
    }
    synced
}
"#,
    // Error handling with `if let Err(e)`, and a plain #[instrument] over an entity argument.
    r#"
/// Archives ${a_e} and drops it from the cache.
#[instrument]
pub async fn archive${sfx}(&mut self, $e: $E, reason: ArchiveReason) -> Result<(), ${E}Error> {
    let started = Instant::now();
    if !$e.status.can_move_to(${E}Status::Archived) {
        warn!(${e}_id = %$e.id, status = ?$e.status, "cannot archive in this status");
        return Err(${E}Error::Conflict($e.id));
    }
    let archived = $E { status: ${E}Status::Archived, version: $e.version + 1, ..$e };
    if let Err(e) = self.repo.save(&archived).await {
        error!(error = %e, ${e}_id = %archived.id, "failed to archive $e");
        return Err(e);
    }
    self.cache.remove(&archived.id);
    info!(${e}_id = %archived.id, ?reason, elapsed = ?started.elapsed(), "$e archived");
    Ok(())
}
"#,
    // Plain code with one event at the end.
    r#"
/// Counts the tenant's $es by status.
#[instrument(level = "debug", skip(self))]
pub async fn count_by_status${sfx}(&self) -> Result<HashMap<${E}Status, usize>, ${E}Error> {
    let started = Instant::now();
    let ${es} = self.repo.search(&${E}Filter::tenant(self.tenant_id)).await?;
    let mut counts = HashMap::new();
    for $e in &${es} {
        *counts.entry($e.status).or_insert(0) += 1;
    }
    let total = ${es}.len();
    let active = counts.get(&${E}Status::Active).copied().unwrap_or(0);
    let ratio = if total == 0 { 0.0 } else { active as f64 / total as f64 };
    debug!(total, active, ratio, elapsed = ?started.elapsed(), "counted $es");
    Ok(counts)
}
"#,
    // A method with a generated random event and no other logging.
    r"
/// Applies the retention policy to one $e.
#[instrument(skip_all, fields(${e}_id = %$e.id))]
pub fn apply_retention${sfx}(&self, $e: &mut $E, now: SystemTime) -> bool {
    let started = Instant::now();
    let ${es} = [&*$e];
    let age = now.duration_since($e.created_at).unwrap_or_default();
    let keep = match $e.status {
        ${E}Status::Active | ${E}Status::Pending => true,
        ${E}Status::Suspended => age < self.config.stale_after * 4,
        ${E}Status::Archived => age < self.config.stale_after,
    };
    if !keep {
        $e.$pii1.clear();
        $e.$pii2.clear();
        $e.retries = 0;
        $ev
    }
    keep
}
",
];

/// Uses the file's `audit!` and `reject!` macros; only in modules that define them.
const METHOD_AUDITED_UPDATE: &str = r#"
/// Applies a partial update and records what changed.
$instr
pub async fn update_${e}${sfx}(&self, id: ${E}Id, patch: ${E}Patch) -> Result<$E, ${E}Error> {
    let mut $e = self.repo.find(id).await?.ok_or(${E}Error::NotFound(id))?;
    let mut changed = Vec::new();
    if let Some(value) = patch.$pii {
        $e.$pii = value;
        changed.push("$pii");
    }
    if let Some(status) = patch.status {
        if !$e.status.can_move_to(status) {
            reject!("illegal status transition", id);
            return Err(${E}Error::Conflict(id));
        }
        $e.status = status;
        changed.push("status");
    }
    $e.version += 1;
    self.repo.save(&$e).await?;
    audit!("${e}.updated", ${e}_id = %id, version = $e.version, changed = ?changed);
    $audit_opt
    Ok($e)
}
"#;

const TRY_FROM_ROW: &str = r#"
impl TryFrom<Row> for $E {
    type Error = ${E}Error;

    fn try_from(row: Row) -> Result<Self, Self::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            tenant_id: row.try_get("tenant_id")?,
            status: row.try_get::<&str>("status")?.parse().map_err(|_| ${E}Error::Invalid("status"))?,
            version: row.try_get("version")?,
            retries: row.try_get("retries")?,
            $pii1: row.try_get("$pii1")?,
            $pii2: row.try_get("$pii2")?,
            $pii3: row.try_get("$pii3")?,
            $extra: row.try_get("$extra")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }
}
"#;

/// Module-level items after the `impl` block: mostly plain code.
const FREE_ITEMS: &[&str] = &[
    r#"
/// Checks the invariants ${a_e} must hold before it is persisted.
fn validate${sfx}($e: &$E) -> Result<(), &'static str> {
    if $e.tenant_id.is_nil() {
        return Err("tenant_id is required");
    }
    if $e.version == 0 {
        return Err("version starts at 1");
    }
    let len = $e.$pii.trim().len();
    if len == 0 || len > $max {
        return Err("$pii has an invalid length");
    }
    match $e.status {
        ${E}Status::Active | ${E}Status::Pending | ${E}Status::Suspended => Ok(()),
        ${E}Status::Archived => Err("archived $es are read-only"),
    }
}
"#,
    r"
/// Priority of ${a_e} from its age and retry history; higher is more urgent.
fn priority_score${sfx}(age: Duration, retries: u32, weight: f64) -> f64 {
    let hours = age.as_secs_f64() / 3600.0;
    let mut score = weight * hours.ln_1p();
    for step in 0..retries.min($n) {
        score *= 1.0 + f64::from(step) / 10.0;
    }
    if score.is_nan() { 0.0 } else { score.clamp(0.0, $max.0) }
}
",
    r"
/// Groups $es by tenant, keeping their order within each tenant.
pub fn group_by_tenant${sfx}(${es}: &[$E]) -> HashMap<TenantId, Vec<&$E>> {
    let mut groups: HashMap<TenantId, Vec<&$E>> = HashMap::new();
    for $e in ${es} {
        groups.entry($e.tenant_id).or_default().push($e);
    }
    groups
}
",
    r"
/// The half-open index range of page `page` (0-based) of `per_page` items out of `total`.
pub fn page_bounds${sfx}(total: usize, page: usize, per_page: usize) -> (usize, usize) {
    let start = page.saturating_mul(per_page).min(total);
    let end = start.saturating_add(per_page).min(total);
    (start, end)
}
",
    r#"
/// Parses a status as the upstream API spells it.
pub fn status_from_code${sfx}(code: &str) -> Option<${E}Status> {
    Some(match code.trim().to_ascii_lowercase().as_str() {
        "new" | "pending" | "queued" => ${E}Status::Pending,
        "active" | "open" | "ok" => ${E}Status::Active,
        "hold" | "suspended" | "paused" => ${E}Status::Suspended,
        "closed" | "archived" | "deleted" => ${E}Status::Archived,
        _ => return None,
    })
}
"#,
    r#"
/// A support-safe one-line description of ${a_e} (no personal data).
pub fn describe${sfx}($e: &$E) -> String {
    format!("{}:{}:v{}", $e.id, $e.status.as_str(), $e.version)
}
"#,
    r#"
/// Starts the $role on the runtime and logs when it stops.
pub fn spawn${sfx}(svc: $Svc, shutdown: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let started = Instant::now();
        svc.run(shutdown).await;
        info!(uptime = ?started.elapsed(), "$role stopped");
    })
}
"#,
    r#"
/// Warns about an operation that took longer than `limit`.
fn log_if_slow${sfx}(op: &'static str, started: Instant, limit: Duration) {
    let elapsed = started.elapsed();
    if elapsed > limit {
        warn!(op, elapsed_ms = elapsed.as_millis() as u64, limit_ms = limit.as_millis() as u64, "slow operation");
    }
}
"#,
    r"
/// Merges two versions of ${a_e}, preferring the newer one field by field.
pub fn merge${sfx}(older: &$E, newer: &$E) -> $E {
    let mut merged = newer.clone();
    if merged.$pii1.is_empty() {
        merged.$pii1.clone_from(&older.$pii1);
    }
    if merged.$pii2.is_empty() {
        merged.$pii2.clone_from(&older.$pii2);
    }
    merged.version = older.version.max(newer.version) + 1;
    merged.retries = older.retries.min(newer.retries);
    merged.updated_at = older.updated_at.max(newer.updated_at);
    merged
}
",
    r#"
#[cfg(test)]
mod tests${sfx} {
    use super::*;

    #[test]
    fn page_bounds_clamps_to_total() {
        assert_eq!(page_bounds(10, 0, 4), (0, 4));
        assert_eq!(page_bounds(10, 2, 4), (8, 10));
        assert_eq!(page_bounds(10, 9, 4), (10, 10));
    }

    #[test]
    fn archived_is_terminal() {
        for next in [${E}Status::Pending, ${E}Status::Active, ${E}Status::Suspended] {
            assert!(!${E}Status::Archived.can_move_to(next), "{next:?}");
        }
    }
}
"#,
];
