//! `phi-canary scan` against `rg -F -c` and `grep -F -c` on a generated JSON-lines log with
//! planted canaries, in one run; then stdin streaming with its peak memory.
//!
//! ```sh
//! cargo bench -p phi-canary --bench compare            # 1 GiB in /tmp, deleted afterwards
//! cargo bench -p phi-canary --bench compare -- 256     # 256 MiB
//! ```
//!
//! Needs `rg` (`cargo install ripgrep`), GNU grep and `/usr/bin/time`. Each command runs once to
//! warm the page cache, then `REPS` times, interleaved; MB/s is 10^6 bytes per second of wall
//! time, median and best. The log is `$TMPDIR/phi-canary-bench.jsonl` unless
//! `PHI_CANARY_BENCH_FILE` names another path; it is deleted at the end unless
//! `PHI_CANARY_BENCH_KEEP` is set. `PHI_CANARY_BENCH_BEFORE=BINARY` also times an earlier
//! build of phi-canary (all variants and decoding) in the same run.

// Byte counts far below 2^52 become MB/s figures.
#![allow(clippy::cast_precision_loss)]

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use base64::Engine as _;

const REPS: usize = 5;
const DEMO: &str = "self-tracked PHI-CANARY-3f9a";
const CORE: &str = "PHI-CANARY-3f9a";

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` does not, and must not write a
    // gigabyte.
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run it with `cargo bench -p phi-canary --bench compare`");
        return;
    }
    let mib: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1024);
    let path = std::env::var_os("PHI_CANARY_BENCH_FILE").map_or_else(
        || std::env::temp_dir().join("phi-canary-bench.jsonl"),
        PathBuf::from,
    );
    let bin = env!("CARGO_BIN_EXE_phi-canary");
    let started = Instant::now();
    let size = generate(&path, mib << 20);
    println!(
        "generated {} ({size} bytes) in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    let file = path.to_string_lossy().into_owned();

    // The phi-canary cases, flags between `scan --demo` and `--format json FILE`; the last two
    // (all variants and decoding) are the ones an earlier build is timed on too.
    let canary: [(&str, &[&str]); 5] = [
        (
            "scan --variants exact (2 patterns, 1 searched)",
            &["--variants", "exact"],
        ),
        (
            "scan --variants exact --threads 1",
            &["--variants", "exact", "--threads", "1"],
        ),
        (
            "scan --no-decode (all variants: 19 patterns, 8 searched)",
            &["--no-decode"],
        ),
        ("scan (all variants and decoding)", &[]),
        (
            "scan --threads 1 (all variants and decoding)",
            &["--threads", "1"],
        ),
    ];
    let argv = |words: &[&str]| -> Vec<String> { words.iter().map(|w| (*w).to_owned()).collect() };
    let scan = |bin: &str, flags: &[&str]| {
        argv(
            &[
                &[bin, "scan", "--demo"],
                flags,
                &["--format", "json", &file],
            ]
            .concat(),
        )
    };
    let mut cases: Vec<(String, Vec<String>)> = vec![
        (
            "rg -F -c".to_owned(),
            argv(&["rg", "-F", "-c", CORE, &file]),
        ),
        (
            "grep -F -c (LC_ALL=C)".to_owned(),
            argv(&["grep", "-F", "-c", CORE, &file]),
        ),
    ];
    for (name, flags) in canary {
        cases.push((format!("phi-canary {name}"), scan(bin, flags)));
    }
    // `PHI_CANARY_BENCH_BEFORE=BINARY`: an earlier phi-canary, timed in the same run.
    if let Ok(before) = std::env::var("PHI_CANARY_BENCH_BEFORE") {
        for (name, flags) in &canary[3..] {
            cases.push((format!("before: phi-canary {name}"), scan(&before, flags)));
        }
    }
    for (name, argv) in &cases {
        println!("{name}: {}", count(argv));
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for _ in 0..REPS {
        for (i, (_, argv)) in cases.iter().enumerate() {
            let t = Instant::now();
            run(argv, None);
            times[i].push(t.elapsed().as_secs_f64());
        }
    }
    println!("\n| command | median s | median MB/s | best MB/s | × rg (median) |");
    println!("|---|---|---|---|---|");
    let mb = size as f64 / 1e6;
    let rg_median = median(&times[0]);
    for ((name, _), t) in cases.iter().zip(&times) {
        let med = median(t);
        let best = t.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "| `{name}` | {med:.3} | {:.0} | {:.0} | {:.2} |",
            mb / med,
            mb / best,
            rg_median / med
        );
    }

    println!("\nstdin streaming (`cat FILE | phi-canary scan -`), peak RSS of phi-canary:");
    for (name, args) in [
        ("all variants and decoding", vec!["scan", "--demo", "-"]),
        ("exact", vec!["scan", "--demo", "--variants", "exact", "-"]),
    ] {
        let (secs, kib) = stdin_rss(bin, &args, &path);
        println!(
            "| stdin, {name} | {secs:.3} s | {:.0} MB/s | peak RSS {:.1} MiB |",
            mb / secs,
            kib as f64 / 1024.0
        );
    }
    for threads in ["1", "2"] {
        let (secs, kib) = file_rss(bin, &file, threads);
        println!(
            "| file, all variants, --threads {threads} | {secs:.3} s | {:.0} MB/s | peak RSS {:.1} MiB |",
            mb / secs,
            kib as f64 / 1024.0
        );
    }
    let (secs, _) = pipe_rg(&path);
    println!(
        "| `cat FILE | rg -F -c` | {secs:.3} s | {:.0} MB/s | |",
        mb / secs
    );

    if std::env::var_os("PHI_CANARY_BENCH_KEEP").is_none() {
        std::fs::remove_file(&path).expect("remove the generated log");
        println!("\nremoved {}", path.display());
    }
}

/// Writes about `target` bytes of JSON lines like a service's tracing output, with canaries
/// planted at fixed fractions: 5 exact, 1 upper case, 1 base64, 1 percent-encoded, and a
/// near miss (`3f9b`) that must not count. Returns the size.
fn generate(path: &Path, target: u64) -> u64 {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).expect("create the log"));
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let levels = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"];
    let targets = [
        "answers::http",
        "answers::tool",
        "answers::store",
        "answers::mcp",
    ];
    let messages = [
        "request handled",
        "tool call finished",
        "view rendered",
        "store query",
        "unknown parameter",
        "token refused",
    ];
    // (where, in thousandths of the file; what)
    let percent: String = CORE.bytes().fold(String::new(), |mut s, b| {
        let _ = write!(s, "%{b:02X}");
        s
    });
    let plants: [(u64, String); 11] = [
        (10, format!("\"comment\":\"{DEMO}\"")),
        (200, format!("\"comment\":\"{DEMO}\"")),
        (400, format!("\"note\":\"{}\"", DEMO.to_uppercase())),
        (500, format!("\"comment\":\"{DEMO}\"")),
        (
            600,
            format!("\"payload\":\"{}\"", base64(format!("x{DEMO}!").as_bytes())),
        ),
        (
            700,
            "\"url\":\"/q?c=self-tracked%20PHI-CANARY-3f9a\"".to_owned(),
        ),
        (800, format!("\"comment\":\"{DEMO}\"")),
        (850, format!("\"q\":\"{percent}\"")),
        (
            870,
            format!(
                "\"body\":\"{}\"",
                base64(&gzip(
                    format!("{{\"pad\":\"{}\",\"c\":\"{DEMO}\"}}", "abc".repeat(30)).as_bytes()
                ))
            ),
        ),
        (900, "\"comment\":\"PHI-CANARY-3f9b near miss\"".to_owned()),
        (990, format!("\"comment\":\"{DEMO}\"")),
    ];
    let mut written = 0u64;
    let mut planted = 0;
    let mut line = String::with_capacity(512);
    while written < target {
        line.clear();
        let r = next();
        let extra = if planted < plants.len() && written * 1000 >= plants[planted].0 * target {
            planted += 1;
            format!(",{}", plants[planted - 1].1)
        } else {
            String::new()
        };
        let _ = writeln!(
            line,
            "{{\"timestamp\":\"2025-03-01T09:{:02}:{:02}.{:06}Z\",\"level\":\"{}\",\"target\":\"{}\",\
             \"fields\":{{\"message\":\"{}\",\"status\":{},\"latency_ms\":{},\"request_id\":\"{:016x}\"{extra}}},\
             \"span\":{{\"name\":\"request\",\"route\":\"/v1/answers/{}\"}}}}",
            r % 60,
            (r >> 8) % 60,
            (r >> 16) % 1_000_000,
            levels[(r >> 36) as usize % levels.len()],
            targets[(r >> 40) as usize % targets.len()],
            messages[(r >> 44) as usize % messages.len()],
            [200, 200, 200, 400, 404, 500][(r >> 48) as usize % 6],
            (r >> 52) % 900,
            next(),
            (r >> 20) % 10_000,
        );
        out.write_all(line.as_bytes()).expect("write the log");
        written += line.len() as u64;
    }
    out.flush().expect("flush the log");
    written
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).expect("compress");
    e.finish().expect("compress")
}

/// Standard base64 with padding, as a logger would write it.
fn base64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// Runs `argv` with stdout captured; returns stdout.
fn run(argv: &[String], stdin: Option<File>) -> String {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .env("LC_ALL", "C")
        .stderr(Stdio::null());
    if let Some(f) = stdin {
        cmd.stdin(f);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", argv[0]));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What a command counted: rg and grep print a line count, phi-canary a JSON report.
fn count(argv: &[String]) -> String {
    let out = run(argv, None);
    match serde_json::from_str::<serde_json::Value>(&out) {
        Ok(json) if json.is_object() => {
            let variants: Vec<String> = json["hits"]
                .as_array()
                .map(|hits| {
                    hits.iter()
                        .map(|h| match h["chain"].as_str() {
                            Some(chain) => format!("{}/{chain}", h["canary"]),
                            None => format!("{}/{}", h["canary"], h["variant"]),
                        })
                        .collect()
                })
                .unwrap_or_default();
            format!(
                "{} hits {}",
                json["hits_total"],
                variants.join(" ").replace('"', "")
            )
        }
        _ => format!("{} lines", out.trim()),
    }
}

fn median(t: &[f64]) -> f64 {
    let mut v = t.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `cmd` with stdout discarded, fed `cat FILE` on stdin when `stdin` is given: wall
/// seconds and its stderr.
fn timed(cmd: &mut Command, stdin: Option<&Path>) -> (f64, String) {
    let t = Instant::now();
    let mut cat = stdin.map(|path| {
        Command::new("cat")
            .arg(path)
            .stdout(Stdio::piped())
            .spawn()
            .expect("cat")
    });
    if let Some(cat) = &mut cat {
        cmd.stdin(cat.stdout.take().expect("piped"));
    }
    let out = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run the timed command");
    if let Some(mut cat) = cat {
        cat.wait().expect("cat ends");
    }
    (
        t.elapsed().as_secs_f64(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `cat FILE | /usr/bin/time -v phi-canary ARGS`: wall seconds and peak RSS (KiB).
fn stdin_rss(bin: &str, args: &[&str], path: &Path) -> (f64, u64) {
    let (secs, stderr) = timed(
        Command::new("/usr/bin/time").arg("-v").arg(bin).args(args),
        Some(path),
    );
    (secs, max_rss(&stderr))
}

/// `/usr/bin/time -v phi-canary scan --threads N FILE`.
fn file_rss(bin: &str, file: &str, threads: &str) -> (f64, u64) {
    let (secs, stderr) = timed(
        Command::new("/usr/bin/time").args([
            "-v",
            bin,
            "scan",
            "--demo",
            "--threads",
            threads,
            file,
        ]),
        None,
    );
    (secs, max_rss(&stderr))
}

/// `cat FILE | rg -F -c CORE`: wall seconds only.
fn pipe_rg(path: &Path) -> (f64, u64) {
    (
        timed(Command::new("rg").args(["-F", "-c", CORE]), Some(path)).0,
        0,
    )
}

fn max_rss(time_output: &str) -> u64 {
    time_output
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|n| n.trim().parse().ok())
        .expect("/usr/bin/time -v reports the peak RSS")
}
