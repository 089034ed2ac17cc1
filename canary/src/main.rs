//! The `phi-canary` command: `scan`, `docker`, `otlp` and `new`.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};
use phi_canary::progress::Progress;
use phi_canary::report::exit;
use phi_canary::source::{self, Source};
use phi_canary::{Canary, Format, Matcher, Nonce, Report, VariantSet, Verdict, canary, otlp, scan};

const EXIT_CODES: &str = "\
Exit codes:
  0  clean: no canary found, and every precondition proven
  1  leak: a canary was found (wins over 2 and 3)
  2  the logs could not be read completely, or a usage error (fails closed)
  3  inconclusive: nothing found, but a precondition was not proven (a marker line
     missing, a source that gave no bytes)";

const SCAN_HELP: &str = "\
Sources:
  PATH         a log file, one stream named `file`; gzip is recognised by its magic bytes
  -            standard input, one stream named `stdin`
  docker:NAME  a container's logs through the docker CLI: streams stdout and stderr, or
               `tty` for a TTY container (see `phi-canary docker --help`)
  podman:NAME  the same through the podman CLI; drivers k8s-file, json-file and journald

Positive control (--expect-marker NONCE): every stream must carry the lines
  phiguard-marker start NONCE
  phiguard-marker end NONCE
each ended by a newline, the start before the end. A file or stdin is one stream: capture
a service's stdout and stderr to separate files and pass both.

Reports give the source, stream, line, byte offset, variant and canary id of each hit;
never a byte of the line.";

/// Scans logs for canaries planted in the record, and proves the logs were read whole.
#[derive(Parser)]
#[command(name = "phi-canary", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Scan logs for canaries; report where they are, never the lines.
    #[command(after_help = format!("{SCAN_HELP}\n\n{EXIT_CODES}"))]
    Scan {
        /// A path, `-` for stdin, `docker:NAME` or `podman:NAME`.
        #[arg(required = true, value_name = "SOURCE")]
        sources: Vec<String>,
        #[command(flatten)]
        options: ScanOptions,
    },
    /// Scan a Docker container's logs: `scan docker:CONTAINER`.
    #[command(after_help = format!("{DOCKER_HELP}\n\n{EXIT_CODES}"))]
    Docker {
        /// The container's name or id.
        container: String,
        #[command(flatten)]
        options: ScanOptions,
    },
    /// Receive OTLP/HTTP exports and scan every string they carry.
    #[command(after_help = format!("{OTLP_HELP}\n\n{EXIT_CODES}"))]
    Otlp {
        /// The address to listen on, `HOST:PORT` (port 0 picks a free one, printed on stderr).
        #[arg(long, value_name = "ADDR")]
        listen: String,
        /// Stop SECONDS after the last request [default: only on SIGTERM or SIGINT].
        #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
        idle: Option<Duration>,
        #[command(flatten)]
        common: CommonOptions,
    },
    /// Print a fresh per-run canary: PHI-CANARY- and 32 hex digits from the OS RNG.
    #[command(after_help = "Exit codes:\n  0  printed\n  2  the OS random number generator failed")]
    New,
}

const OTLP_HELP: &str = "\
Serves OTLP/HTTP: POST /v1/traces, /v1/logs and /v1/metrics, as application/x-protobuf or
application/json, gzip'd or not; answers as OTLP says, so exporters do not retry. Every
string a request carries is scanned (resource and scope attributes, span names, attributes,
events and links, log bodies and attributes, metric names, attributes and exemplars; keys
as well as values). On start it prints `phi-canary: otlp: listening on ADDR` on stderr.

Positive control (--expect-marker NONCE): traces and logs (each that received a request;
both when none did) must carry a span or log record named `phiguard-marker start NONCE`
and, after it, one named `phiguard-marker end NONCE`.

A body is read up to 16 MiB and decompressed up to 64 MiB; past either, a body that does
not decode or a request cut off is unreadable (2). No request at all is inconclusive (3).";

const DOCKER_HELP: &str = "\
Runs `docker inspect` (refuses a logging driver other than json-file, local or journald;
warns on mode=non-blocking and on a running container), then `docker logs CONTAINER` without
-t, --details or --follow, reading stdout and stderr as separate streams (one `tty` stream
for a TTY container), and fails if `docker logs` exits non-zero. With --expect-marker, stdout
and stderr (or tty) must each carry the start and end marker lines.";

#[derive(Args)]
struct ScanOptions {
    #[command(flatten)]
    common: CommonOptions,
    /// Threads for the parts of a large file, cut at newlines [default: the CPUs available].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

/// The options `scan`, `docker` and `otlp` share: the canaries, the variants, the positive
/// control and the report.
#[derive(Args)]
struct CommonOptions {
    /// A canary to scan for (repeatable).
    #[arg(long, value_name = "TEXT")]
    canary: Vec<String>,
    /// Read canaries from FILE, one per line, out of the process list; none is a usage error.
    #[arg(long, value_name = "FILE")]
    canary_file: Option<PathBuf>,
    /// Scan for the demo canary and its core token (as well as any given).
    #[arg(long)]
    demo: bool,
    /// The encodings to match; `all` also decodes and rescans candidate runs.
    #[arg(long, value_enum, default_value_t = VariantSet::All)]
    variants: VariantSet,
    /// With `--variants all`, only the pre-computed encodings: no decoding.
    #[arg(long)]
    no_decode: bool,
    /// Require the marker lines carrying NONCE on every stream, or exit 3.
    #[arg(long, value_name = "NONCE")]
    expect_marker: Option<String>,
    /// The report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the report to FILE (and a summary line to stderr) instead of stdout.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // phi-lint: allow(phi::error-message, reason = "its errors name paths, flags and commands, never scanned log lines")
            eprintln!("phi-canary: error: {err:#}");
            ExitCode::from(exit::UNREADABLE)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Scan { sources, options } => scan(&sources, &options),
        Command::Docker { container, options } => scan(&[format!("docker:{container}")], &options),
        Command::Otlp {
            listen,
            idle,
            common,
        } => otlp(listen, idle, &common),
        Command::New => {
            let fresh = Canary::generate()?;
            let mut stdout = io::stdout().lock();
            // phi-lint: allow(phi::print, reason = "printing a fresh random canary is this command's job; it is not record data")
            ignore_broken_pipe(writeln!(stdout, "{}", fresh.text()))?;
            Ok(exit::CLEAN)
        }
    }
}

/// The matcher the options ask for: the canaries (none is a usage error), the variants, the
/// decoder and the marker nonce.
fn matcher(options: &CommonOptions) -> anyhow::Result<Matcher> {
    let mut texts = options.canary.clone();
    if let Some(path) = &options.canary_file {
        let list = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let before = texts.len();
        texts.extend(
            list.lines()
                .map(str::trim_end)
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned),
        );
        if texts.len() == before {
            // A per-run canary that never reached the file must not turn into a clean scan.
            bail!("{} holds no canary (it is empty or blank)", path.display());
        }
    }
    let canaries = canary::select(&texts, options.demo)?;
    let nonce = options
        .expect_marker
        .as_deref()
        .map(Nonce::new)
        .transpose()?;
    Ok(Matcher::new(canaries, options.variants, nonce)?.decoding(!options.no_decode))
}

/// Opens the report file first: a bad path fails before a long scan, not after it.
fn open_output(options: &CommonOptions) -> anyhow::Result<Option<(&Path, File)>> {
    match &options.output {
        Some(path) => Ok(Some((
            path.as_path(),
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
        ))),
        None => Ok(None),
    }
}

fn otlp(listen: String, idle: Option<Duration>, options: &CommonOptions) -> anyhow::Result<u8> {
    let matcher = matcher(options)?;
    let output = open_output(options)?;
    let settings = otlp::Options {
        listen,
        idle,
        span_names: Vec::new(),
    };
    let report = otlp::serve(matcher, &settings, &mut |addr| {
        // phi-lint: allow(phi::print, reason = "the bound address, for a caller that asked for port 0")
        eprintln!("phi-canary: otlp: listening on {addr}");
    })
    .with_context(|| format!("cannot serve OTLP on {}", settings.listen))?;
    finish(&report, options.format, output)
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("`{text}` is not a duration"))
}

fn scan(specs: &[String], options: &ScanOptions) -> anyhow::Result<u8> {
    let matcher = matcher(&options.common)?;
    if specs.iter().filter(|s| *s == "-").count() > 1 {
        bail!("standard input (`-`) can be scanned once");
    }
    let sources = specs
        .iter()
        .map(|s| source::parse(s))
        .collect::<Result<Vec<Box<dyn Source>>, _>>()?;
    let output = open_output(&options.common)?;

    let threads = options.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let progress = Progress::new(io::stderr().is_terminal());
    let settings = scan::Settings {
        threads,
        progress: &|n| progress.advance(n),
    };
    let report = scan::scan(&matcher, sources, &settings);
    progress.finish();
    finish(&report, options.common.format, output)
}

/// Writes the report and gives the exit code.
fn finish(report: &Report, format: Format, output: Option<(&Path, File)>) -> anyhow::Result<u8> {
    let written = emit(report, format, output);
    let code = report.exit_code();
    match written {
        Ok(()) => Ok(code),
        // A leak stays a leak even when its report cannot be written.
        Err(err) if report.verdict() == Verdict::Leak => {
            // phi-lint: allow(phi::error-message, reason = "an I/O error writing the report names the report path")
            eprintln!("phi-canary: error: {err:#}");
            Ok(code)
        }
        Err(err) => Err(err),
    }
}

fn emit(report: &Report, format: Format, output: Option<(&Path, File)>) -> anyhow::Result<()> {
    match output {
        Some((path, file)) => {
            let mut w = BufWriter::new(file);
            report
                .write(format, &mut w)
                .and_then(|()| w.flush())
                .with_context(|| format!("cannot write {}", path.display()))?;
            let mut stderr = io::stderr().lock();
            // phi-lint: allow(phi::print, reason = "the summary holds counts, canary ids and the verdict only")
            ignore_broken_pipe(writeln!(stderr, "{}", report.summary()))?;
        }
        None => {
            let mut w = BufWriter::new(io::stdout().lock());
            ignore_broken_pipe(report.write(format, &mut w).and_then(|()| w.flush()))?;
        }
    }
    Ok(())
}

/// A closed pipe (`phi-canary scan … | head`) is not an error.
fn ignore_broken_pipe(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
