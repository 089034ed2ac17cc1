//! The `answers` command: seed the demo record, ask a tool a question, or serve the record over
//! HTTP. Logs go through phi-filter (`phi_filter::install`), so they carry ids, counts,
//! durations, statuses and type names only.
//!
//! [`main`] is the whole command; the `answers` binary calls it with no router hook. A
//! pipeline instrument built on this package (the leak drill, `ci/leak-drill`) passes its own
//! [`RouterHook`](answers_server::RouterHook); no build of `answers` carries one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use answers_server::db::{DbError, Location, OpenOptions, PgOptions};
use answers_server::store::{Store, StoreError};
use anyhow::{Context, anyhow, bail};
use clap::{Parser, Subcommand};

/// The answers layer of a personal health record.
#[derive(Parser)]
#[command(
    name = "answers",
    version,
    after_help = "\
Exit codes:
  0  done
  1  the tool answered with an error envelope (`query`)
  2  usage error, or the store could not be opened, read or written

The record is --database URL (alias --db; else env ANSWERS_DATABASE_URL, else answers.db):
a SQLite file (a path or sqlite:PATH) or a PostgreSQL database
(postgres://USER:PASSWORD@HOST/DB). A password in the URL is never printed or logged.

The database must exist for every command but `seed`, which creates it (a file: mode 0600). A
database file that group or others can access is refused unless --allow-shared-permissions
is given."
)]
struct Cli {
    /// Open a database file that group or others can access (refused by default: the record is
    /// PHI), and leave the modes of it and its -wal/-shm files as they are.
    #[arg(long, global = true)]
    allow_shared_permissions: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Seed a record (today: the demo record).
    Seed {
        #[command(flatten)]
        db: Database,
        /// Seed the demo record: `you` and `mom`, a year of readings ending 2026-09-14.
        #[arg(long)]
        demo: bool,
        /// Also put this per-run canary in a reading's comment (release checks).
        #[arg(long, value_name = "STRING")]
        canary: Option<String>,
        /// Leave the fixed demo canary out (with --canary: the per-run canary only).
        #[arg(long)]
        no_demo_canary: bool,
        /// Write a bearer token per demo account to FILE (`handle=token` lines, mode 0600; each
        /// valid 90 days, revocable with `answers token revoke`).
        #[arg(long, value_name = "FILE")]
        tokens_file: Option<PathBuf>,
    },
    /// Ask one tool one question as a subject; prints the compact rendering.
    Query {
        #[command(flatten)]
        db: Database,
        /// The subject's handle (`you`, `mom`).
        #[arg(long, value_name = "HANDLE")]
        subject: String,
        /// The tool, e.g. `query_health_indicators`.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        args: String,
        /// Print the REST rendering (JSON) instead of the compact one.
        #[arg(long)]
        json: bool,
    },
    /// Serve the vocabulary tools over MCP on stdio: no database, no key. Logs go to stderr.
    Mcp,
    /// List the tool registry: each tool with the surfaces that publish it and when a person is
    /// shown it (`always`, `has_readings`, `has_medications`, `has_genotypes`).
    Tools {
        /// Print `{"tools":[{"name":…,"surfaces":[…],"visible_when":…}, …]}`.
        #[arg(long)]
        json: bool,
    },
    /// Issue or revoke a person's bearer token (also their personal MCP URL secret).
    Token {
        #[command(subcommand)]
        action: TokenAction,
    },
    /// Import a consumer-array raw-data file (23andMe or Ancestry DNA text) as a subject's
    /// genotype set, replacing any set the subject has. A malformed line is named by number.
    ImportGenotypes {
        #[command(flatten)]
        db: Database,
        /// The subject's handle (`you`, `mom`).
        #[arg(long, value_name = "HANDLE")]
        subject: String,
        /// The raw-data file.
        file: PathBuf,
    },
    /// Import a person's FHIR R4 record (a Bundle or an NDJSON export) into a subject's.
    ///
    /// A Bundle (JSON) is read whole, up to 64 MiB; an NDJSON bulk export (`*.ndjson`) is
    /// streamed. Prints what was imported and what was left out, by kind; a bad resource
    /// refuses it all, named by its position and rule.
    #[command(after_help = "\
Importing the same file again changes nothing. Observations, Conditions, MedicationStatements,
MedicationRequests and MedicationAdministrations are read; other resources are counted.
A new subject needs --time-zone (a FHIR Patient has no zone); it is created only if the whole
file imports.")]
    ImportFhir {
        #[command(flatten)]
        db: Database,
        /// The subject's handle (`you`, `mom`).
        #[arg(long, value_name = "HANDLE")]
        subject: String,
        /// Create the subject, its local days in this IANA zone, if the handle is new.
        #[arg(long, value_name = "ZONE")]
        time_zone: Option<String>,
        /// The Bundle (`*.json`) or NDJSON export (`*.ndjson`).
        file: PathBuf,
    },
    /// Serve the record over HTTP.
    Serve {
        #[command(flatten)]
        db: Database,
        /// Create the database (mode 0600, no subjects) if it is missing, instead of refusing.
        #[arg(long)]
        create: bool,
        #[command(flatten)]
        pool: PoolArgs,
        /// Arm the log filter's tripwire with the per-run canaries in FILE (one per line), or
        /// with env `PHIGUARD_CANARY`: a log value or message carrying one is blocked.
        #[arg(long, value_name = "FILE")]
        canary_file: Option<PathBuf>,
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
        /// Register the bearer tokens in FILE (`handle=token` lines) before serving; also read
        /// from the file named by `ANSWERS_TOKENS_FILE`, or from the lines in `ANSWERS_TOKENS`.
        /// Tokens issued by `seed --tokens-file` are already registered.
        #[arg(long, value_name = "FILE")]
        tokens_file: Option<PathBuf>,
        /// Write `phiguard-marker start|end NONCE` on stdout and stderr at start and at a clean
        /// shutdown (8-128 of A-Z a-z 0-9 -) [env: `PHIGUARD_MARKER_NONCE`].
        #[arg(long, value_name = "NONCE")]
        marker_nonce: Option<String>,
        /// A host name (or `host:port`) clients reach `/mcp` by, beside the loopback names;
        /// repeat for several. Other `Host` headers are refused (DNS rebinding).
        #[arg(long = "allowed-host", value_name = "HOST")]
        allowed_hosts: Vec<String>,
        /// Also export traces and logs over OTLP/HTTP to this base URL (`http://HOST:PORT`;
        /// `/v1/traces` and `/v1/logs` are appended), through the log's policy; with a marker
        /// nonce, a marker span and log record at start and at a clean shutdown.
        #[arg(long, value_name = "URL")]
        otlp_endpoint: Option<answers_server::telemetry::Endpoint>,
    },
    /// Copy a whole record to another database (e.g. a `SQLite` file into `PostgreSQL`), in one
    /// transaction on the target: every table's row count and checksum are compared with the
    /// source's before it commits, so a failed copy leaves the target as it was. Progress
    /// (counts only) goes to stderr.
    #[command(after_help = "\
Exit codes:
  0  copied and verified
  2  usage error, a store could not be opened, the target is not empty (without --replace),
     or the copy failed or did not verify (nothing was written)")]
    Migrate {
        /// The record to copy: `sqlite:PATH` (or a path) or `postgres://…`; it must exist.
        #[arg(long, value_name = "URL")]
        from: String,
        /// Where to copy it: `postgres://…` or a `SQLite` file (created 0600 if missing).
        #[arg(long, value_name = "URL")]
        to: String,
        /// Empty a target that holds rows first, in the same transaction (refused otherwise).
        #[arg(long)]
        replace: bool,
    },
    /// Say whether a canary is in the record's comments: prints `present` or `absent`, never the
    /// canary. The canary comes from env `PHIGUARD_CANARY` or `--canary-file`.
    #[command(after_help = "\
Exit codes:
  0  present (with several canaries in the file: every one is present)
  1  absent
  2  usage error, no canary given, or the store could not be read")]
    CanaryPresent {
        #[command(flatten)]
        db: Database,
        /// Read the canary from FILE (one per line) instead of env `PHIGUARD_CANARY`.
        #[arg(long, value_name = "FILE")]
        canary_file: Option<PathBuf>,
    },
}

/// Where the record is, for every command that opens one: `--database`, else
/// `ANSWERS_DATABASE_URL`, else `answers.db`.
#[derive(clap::Args, Debug, Clone, Default)]
struct Database {
    /// The record: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`, `sqlite:PATH` or a file path
    /// [env: `ANSWERS_DATABASE_URL`] [default: `answers.db`]
    #[arg(long = "database", visible_alias = "db", value_name = "URL")]
    url: Option<String>,
}

/// The environment variable a command reads its database from when `--database` is not given.
const DATABASE_ENV: &str = "ANSWERS_DATABASE_URL";

impl Database {
    /// The location: the flag, else the variable, else `answers.db`. A variable that is set
    /// but empty is refused rather than taken as unset, so a deployment whose URL did not reach
    /// the service never serves a new empty file instead. Errors never quote the URL.
    fn location(&self) -> anyhow::Result<Location> {
        let (text, from) = match &self.url {
            Some(text) => (text.clone(), "--database"),
            None => match std::env::var(DATABASE_ENV) {
                Ok(text) => (text, DATABASE_ENV),
                Err(std::env::VarError::NotPresent) => (
                    answers_server::db::DEFAULT_DATABASE.to_owned(),
                    "the default",
                ),
                Err(std::env::VarError::NotUnicode(_)) => bail!("{DATABASE_ENV} is not UTF-8"),
            },
        };
        Location::parse(&text).map_err(|e| anyhow!("bad database location in {from}: {e}"))
    }
}

/// How `serve` holds its database handles (`answers_server::PoolOptions`) and bounds a
/// `PostgreSQL` connection (`answers_server::db::PgOptions`).
#[derive(clap::Args, Debug, Clone)]
struct PoolArgs {
    /// The most database handles (`PostgreSQL` connections) open at once.
    #[arg(long = "db-pool-size", value_name = "N", default_value_t = 8,
          value_parser = clap::value_parser!(u16).range(1..=1024))]
    size: u16,
    /// Seconds a request waits for a free handle before it is refused as `store_unavailable`.
    #[arg(long = "db-timeout", value_name = "SECS", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    checkout: u64,
    /// Seconds a `PostgreSQL` connection may take to open.
    #[arg(long = "db-connect-timeout", value_name = "SECS", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    connect: u64,
    /// Seconds one `PostgreSQL` statement may run before the server cancels it (0: no limit).
    #[arg(long = "db-statement-timeout", value_name = "SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(0..=3600))]
    statement: u64,
}

impl PoolArgs {
    fn pool(&self) -> answers_server::PoolOptions {
        answers_server::PoolOptions {
            size: usize::from(self.size),
            checkout_timeout: std::time::Duration::from_secs(self.checkout),
        }
    }

    fn pg(&self) -> PgOptions {
        PgOptions {
            connect_timeout: std::time::Duration::from_secs(self.connect),
            statement_timeout: std::time::Duration::from_secs(self.statement),
        }
    }
}

#[derive(Subcommand)]
enum TokenAction {
    /// Print a new token for a subject, once; only its hash is stored.
    Issue {
        #[command(flatten)]
        db: Database,
        /// The subject's handle (`you`, `mom`).
        #[arg(long, value_name = "HANDLE")]
        subject: String,
        /// Days until the token expires.
        #[arg(long, value_name = "DAYS", default_value_t = TOKEN_TTL_DAYS,
              value_parser = clap::value_parser!(u32).range(1..=3650))]
        ttl_days: u32,
        /// Issue a token that never expires (it can still be revoked).
        #[arg(long, conflicts_with = "ttl_days")]
        no_expiry: bool,
    },
    /// Revoke the token read from standard input (never from the command line, where other
    /// users of the machine could read it). Exit 0 if a live token was revoked, 1 if none was.
    Revoke {
        #[command(flatten)]
        db: Database,
    },
}

/// The environment variable `canary-present` reads the canary from.
const CANARY_ENV: &str = "PHIGUARD_CANARY";

/// Days a token lives unless told otherwise: issued by `token issue` or `seed --tokens-file`.
const TOKEN_TTL_DAYS: u32 = 90;

fn days(n: u32) -> std::time::Duration {
    std::time::Duration::from_secs(u64::from(n) * 86_400)
}

/// The workspace's `phiguard.toml`, shared with phi-lint (`[names]` and `[runtime]` are the
/// runtime's part).
const POLICY: &str = include_str!("../../phiguard.toml");

/// Runs the `answers` command line; `hook`, if any, wraps the router `serve` serves.
#[must_use]
pub fn main(hook: Option<answers_server::RouterHook>) -> ExitCode {
    quiet_panics();
    let cli = Cli::parse();
    // The workspace's one policy file, compiled in: phi-lint reads the same file, so the names
    // this service logs beyond the classes (`listen_addr`, `tool_id`) are allowed in one place.
    let policy = match phi_filter::PhiPolicy::from_toml(POLICY) {
        Ok(policy) => policy,
        Err(err) => {
            // phi-lint: allow(phi::error-message, reason = "a PolicyError names a key and its line in the compiled-in policy file, never record data")
            eprintln!("answers: the compiled-in phiguard.toml is invalid: {err}");
            return ExitCode::from(2);
        }
    };
    let policy = match armed(policy, &cli.command) {
        Ok(policy) => policy,
        Err(err) => {
            // phi-lint: allow(phi::error-message, reason = "the error names the canary file's path and an I/O error kind, never the canary")
            eprintln!("answers: {err:#}");
            return ExitCode::from(2);
        }
    };
    // rmcp logs each session's start and end at `info`, and at `warn` a rejected request's
    // `Host` and `Origin` values, which the client chose; the PostgreSQL driver logs the
    // server's notices, whose text the server chose: a service keeps its own lines only.
    let stream = log_stream(&cli.command);
    let endpoint = match &cli.command {
        Command::Serve { otlp_endpoint, .. } => otlp_endpoint.as_ref(),
        _ => None,
    };
    let installed = answers_server::telemetry::install(
        policy,
        stream,
        "info,rmcp=off,postgres=off,tokio_postgres=off",
        endpoint,
    );
    let (stats, telemetry) = match installed {
        Ok(installed) => installed,
        Err(err) => {
            // phi-lint: allow(phi::error-message, reason = "an InstallError names a configuration problem, never record data")
            eprintln!("answers: cannot install the log filter: {err}");
            return ExitCode::from(2);
        }
    };
    // A clone shares the providers, so a command that fails after set-up still exports its
    // last record.
    let flush_on_error = telemetry.clone();
    match run(cli, stats, telemetry, hook) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            tracing::error!(error_type = %phi_filter::error_type(&err), "command failed");
            if let Some(telemetry) = flush_on_error {
                // A flush that fails is told by its signal; the command's error is the answer.
                if let Err(flush) = telemetry.shutdown() {
                    tracing::warn!(error_type = %phi_filter::error_type(&flush), "telemetry not flushed");
                }
            }
            // phi-lint: allow(phi::error-message, reason = "the CLI's own errors name files and handles, and store errors carry codes, never values")
            eprintln!("answers: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// `policy` with its tripwire armed for `serve` by the per-run canaries, when any are given
/// (`--canary-file`, else env `PHIGUARD_CANARY`): a log value or message that carries one is
/// replaced by `[canary blocked]` and counted. Other commands, and `serve` without a canary,
/// keep the policy as it is.
fn armed(
    policy: phi_filter::PhiPolicy,
    command: &Command,
) -> anyhow::Result<phi_filter::PhiPolicy> {
    let Command::Serve { canary_file, .. } = command else {
        return Ok(policy);
    };
    let text = match canary_file {
        Some(file) => std::fs::read_to_string(file)
            .with_context(|| format!("cannot read the canary file {}", file.display()))?,
        None => std::env::var(CANARY_ENV).unwrap_or_default(),
    };
    Ok(policy.tripwire(canaries(&text)))
}

/// The canaries of a canary file or variable: one per line, trimmed, empty lines left out.
fn canaries(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Where a command's log lines go. A command whose standard output is its product (a token,
/// an answer, the registry, a verdict, the stdio MCP protocol) logs to standard error, so
/// `T=$(answers token issue …)` never captures a log line, even a failure's. `serve`, `seed`
/// and `import-genotypes` print no product: their log is their output (a container's stdout).
fn log_stream(command: &Command) -> phi_filter::Stream {
    match command {
        Command::Serve { .. } | Command::Seed { .. } | Command::ImportGenotypes { .. } => {
            phi_filter::Stream::Stdout
        }
        Command::Query { .. }
        | Command::ImportFhir { .. }
        | Command::Migrate { .. }
        | Command::Mcp
        | Command::Tools { .. }
        | Command::Token { .. }
        | Command::CanaryPresent { .. } => phi_filter::Stream::Stderr,
    }
}

/// Replaces the default panic hook, which prints the panic's message to stderr: a message can
/// quote the data a tool was working on. The tools catch panics and answer with an error
/// envelope; the log gets the location only.
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let (file, line) = info
            .location()
            .map_or(("unknown", 0), |l| (l.file(), l.line()));
        // phi-lint: allow(phi::print, reason = "a source file path and line of this program, never record data")
        eprintln!("answers: panicked at {file}:{line}");
    }));
}

fn run(
    cli: Cli,
    stats: phi_filter::Stats,
    telemetry: Option<answers_server::telemetry::Telemetry>,
    hook: Option<answers_server::RouterHook>,
) -> anyhow::Result<u8> {
    // The medications tool's today, when a test or demo sets it: refused before any answer.
    answers_server::tools::medications::today_override().map_err(|e| {
        anyhow!(
            "{} is not a YYYY-MM-DD date ({e})",
            answers_server::tools::medications::TODAY_ENV
        )
    })?;
    let shared = cli.allow_shared_permissions;
    let existing = Opener {
        shared,
        create: false,
        pg: PgOptions::default(),
    };
    match cli.command {
        Command::Seed {
            db,
            demo,
            canary,
            no_demo_canary,
            tokens_file,
        } => {
            if !demo {
                bail!("nothing to seed: pass --demo");
            }
            let opener = Opener {
                shared,
                create: true,
                ..existing
            };
            seed(
                opener,
                &db.location()?,
                canary,
                !no_demo_canary,
                tokens_file.as_deref(),
            )?;
            Ok(0)
        }
        Command::Query {
            db,
            subject,
            tool,
            args,
            json,
        } => query(existing, &db.location()?, &subject, &tool, &args, json),
        Command::Token { action } => token(existing, action),
        Command::Mcp => {
            answers_server::mcp::serve_stdio()?;
            Ok(0)
        }
        Command::Tools { json } => {
            tools(json)?;
            Ok(0)
        }
        Command::ImportGenotypes { db, subject, file } => {
            import_genotypes(existing, &db.location()?, &subject, &file)?;
            Ok(0)
        }
        Command::ImportFhir {
            db,
            subject,
            time_zone,
            file,
        } => {
            import_fhir(
                existing,
                &db.location()?,
                &subject,
                time_zone.as_deref(),
                &file,
            )?;
            Ok(0)
        }
        Command::Serve {
            db,
            create,
            pool,
            canary_file: _,
            listen,
            tokens_file,
            marker_nonce,
            allowed_hosts,
            otlp_endpoint: _,
        } => {
            let location = db.location()?;
            // Refused here, with the same messages as every command, before the pool opens the
            // record with the same options (created first with --create).
            let pg = pool.pg();
            let opener = Opener { shared, create, pg };
            drop(opener.open(&location)?);
            let existing = Opener { pg, ..existing };
            register_tokens(existing, &location, tokens_file)?;
            let marker = answers_server::Nonce::from_flag_or_env(marker_nonce.as_deref())
                .context("bad --marker-nonce or PHIGUARD_MARKER_NONCE")?;
            let options = answers_server::ServeOptions {
                marker,
                filter_stats: Some(stats),
                allowed_hosts,
                hook,
                store: existing.options(),
                pool: pool.pool(),
                pg,
                telemetry,
            };
            answers_server::serve_with(&location, listen, &options)?;
            Ok(0)
        }
        Command::Migrate { from, to, replace } => {
            migrate(existing, &from, &to, replace)?;
            Ok(0)
        }
        Command::CanaryPresent { db, canary_file } => {
            canary_present(existing, &db.location()?, canary_file.as_deref())
        }
    }
}

/// How a command opens the record: the global `--allow-shared-permissions`, whether a
/// missing file is created (`seed` only), and how a `PostgreSQL` connection is bounded.
#[derive(Debug, Clone, Copy)]
struct Opener {
    shared: bool,
    create: bool,
    pg: PgOptions,
}

impl Opener {
    /// The store's open options this command asks for.
    fn options(self) -> OpenOptions {
        OpenOptions {
            allow_shared_permissions: self.shared,
            must_exist: !self.create,
        }
    }

    /// Opens `db`, or says what is wrong with it and how to put it right: a shared file names
    /// its mode and `--allow-shared-permissions`, a missing one names `answers seed`. The
    /// location is named with its password hidden.
    fn open(self, db: &Location) -> anyhow::Result<Store> {
        match Store::open_location(db, self.options(), &self.pg) {
            Ok(store) => Ok(store),
            Err(StoreError::Db(DbError::SharedPermissions { mode })) => Err(anyhow!(
                "refusing to open {}: its file mode {mode:04o} lets group or others access the \
                 record; make it private (chmod 600) or pass --allow-shared-permissions",
                shown(db),
            )),
            Err(StoreError::Db(DbError::Missing)) => Err(anyhow!(
                "no database at {}: `answers seed --db {} --demo` creates one",
                shown(db),
                shown(db)
            )),
            Err(e) => Err(e).with_context(|| format!("cannot open {}", shown(db))),
        }
    }
}

/// How a message names a record: a file by its path, as it was given; a `PostgreSQL` database by
/// its URL with the password hidden.
fn shown(db: &Location) -> String {
    match db.sqlite_path() {
        Some(path) => path.display().to_string(),
        None => db.to_string(),
    }
}

/// Prints the registry: JSON for programs, one line a tool for a person.
fn tools(json: bool) -> anyhow::Result<()> {
    use std::fmt::Write as _;

    let registry = answers_server::tools::registry::to_json();
    let out = if json {
        let mut s = registry.to_string();
        s.push('\n');
        s
    } else {
        let mut s = String::new();
        for &id in answers_server::tools::registry::ToolId::ALL {
            let spec = answers_server::tools::registry::spec(id);
            let surfaces: Vec<&str> = spec
                .surfaces
                .iter()
                .map(answers_server::tools::registry::Surface::as_str)
                .collect();
            let _ = writeln!(
                s,
                "{id}\t{}\t{}",
                surfaces.join(","),
                spec.visible_when.as_str()
            );
        }
        s
    };
    let mut stdout = std::io::stdout().lock();
    // phi-lint: allow(phi::print, reason = "the tool registry: tool names, surfaces and visibility rules, no record data")
    match stdout.write_all(out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

fn seed(
    opener: Opener,
    db: &Location,
    canary: Option<String>,
    demo_canary: bool,
    tokens: Option<&Path>,
) -> anyhow::Result<()> {
    let mut store = opener.open(db)?;
    let opts = answers_demo::SeedOptions {
        demo_canary,
        extra_canary: canary,
    };
    let report = answers_demo::seed(&mut store, &opts).context("cannot seed the demo record")?;
    let row_count: usize = report
        .accounts
        .iter()
        .map(|a| a.measured + a.reported)
        .sum();
    tracing::info!(row_count, "demo record seeded");
    if let Some(path) = tokens {
        let mut lines = String::new();
        for subject in store.subjects()? {
            let token = store.issue_token(&subject.id, Some(days(TOKEN_TTL_DAYS)))?;
            lines.push_str(&subject.handle);
            lines.push('=');
            lines.push_str(&token);
            lines.push('\n');
        }
        answers_server::store::write_private(path, lines.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Imports `file` as `handle`'s genotype set; logs counts only, never a genotype.
fn import_genotypes(
    opener: Opener,
    db: &Location,
    handle: &str,
    file: &Path,
) -> anyhow::Result<()> {
    let mut store = opener.open(db)?;
    let Some(subject) = store.subject_by_handle(handle)? else {
        bail!("no subject with that handle");
    };
    // Streamed a line at a time into one transaction: bounded memory, all or nothing.
    let input =
        std::fs::File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut reader = answers_server::store::GenotypeReader::new(std::io::BufReader::new(input));
    let set = match store.import_genotypes(&subject.id, &mut reader) {
        Ok(set) => set,
        Err(answers_server::store::genotype::GenotypeImportError::Store(e)) => return Err(e.into()),
        Err(e) => return Err(e).with_context(|| format!("cannot import {}", file.display())),
    };
    tracing::info!(
        call_count = set.call_count,
        no_call_count = set.no_call_count,
        "genotype set imported"
    );
    Ok(())
}

/// Imports the FHIR file `file` into `handle`'s record and prints the summary (counts by kind,
/// never a value); logs the same counts. An unknown handle is created with `time_zone` when
/// one is given (once the whole file has passed the check), else refused with the command
/// that creates it.
fn import_fhir(
    opener: Opener,
    db: &Location,
    handle: &str,
    time_zone: Option<&str>,
    file: &Path,
) -> anyhow::Result<()> {
    let mut store = opener.open(db)?;
    let format = answers_server::fhir::Format::of_path(file);
    let limits = answers_server::fhir::Limits::default();
    let context = || format!("cannot import {}", file.display());
    let summary = match (store.subject_by_handle(handle)?, time_zone) {
        (Some(subject), zone) => {
            if zone.is_some_and(|z| !z.trim().eq_ignore_ascii_case(subject.tz_name())) {
                bail!(
                    "the subject exists with another time zone: leave out --time-zone to \
                     import into it"
                );
            }
            answers_server::fhir::import_file(&mut store, &subject, file, format, limits)
                .with_context(context)?
        }
        (None, None) => bail!(
            "no subject with that handle: to create it, give the zone its days are counted \
             in, as `answers import-fhir --subject HANDLE --time-zone ZONE FILE` \
             (an IANA name such as Europe/Berlin)"
        ),
        (None, Some(zone)) => {
            let id = format!("subj-{handle}");
            if store.subject_by_id(&id)?.is_some() {
                bail!("another subject has the id this handle would get: choose another handle");
            }
            answers_server::fhir::import_new_subject(
                &mut store, &id, handle, zone, file, format, limits,
            )
            .with_context(context)?
            .1
        }
    };
    let (resource_count, reading_count) = (summary.resources, summary.readings);
    let (journal_count, plan_count, dose_count) = (summary.journal, summary.plans, summary.doses);
    let skipped_count = summary.skipped_total();
    tracing::info!(
        resource_count,
        reading_count,
        journal_count,
        plan_count,
        dose_count,
        skipped_count,
        "fhir record imported"
    );
    let mut stdout = std::io::stdout().lock();
    // phi-lint: allow(phi::print, reason = "the import summary: counts by kind, no record data")
    match stdout.write_all(summary.to_string().as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// `answers migrate`: the record at `from` copied into `to`, verified, in one transaction on
/// the target; a `SQLite` target this run created is removed again if the copy fails. Progress
/// on stderr says tables and row counts, never a value.
fn migrate(existing: Opener, from: &str, to: &str, replace: bool) -> anyhow::Result<()> {
    let parse = |text: &str, flag: &str| {
        Location::parse(text).map_err(|e| anyhow!("bad database location in {flag}: {e}"))
    };
    let (from, to) = (parse(from, "--from")?, parse(to, "--to")?);
    if from == to {
        bail!("--from and --to name the same database");
    }
    let source = existing.open(&from)?;
    let created = to.sqlite_path().filter(|path| !path.exists());
    let target = Opener {
        create: true,
        ..existing
    }
    .open(&to)?;
    let options = answers_server::store::copy::CopyOptions { replace };
    let copied = answers_server::store::copy::copy(&source, &target, options, |p| {
        let state = if p.done {
            "copied and verified"
        } else {
            "copying"
        };
        // phi-lint: allow(phi::print, reason = "a table name of the schema and a row count, never a value")
        eprintln!("answers migrate: {}: {} rows {state}", p.table, p.rows);
    });
    drop(target);
    match copied {
        Ok(tables) => {
            let row_count: u64 = tables.iter().map(|t| t.rows).sum();
            let table_count = tables.len();
            tracing::info!(table_count, row_count, "record copied and verified");
            Ok(())
        }
        Err(e) => {
            if let Some(path) = created {
                for suffix in ["", "-wal", "-shm"] {
                    let mut file = path.as_os_str().to_owned();
                    file.push(suffix);
                    let _ = std::fs::remove_file(file);
                }
            }
            Err(e).with_context(|| format!("cannot copy into {}; it is unchanged", shown(&to)))
        }
    }
}

fn query(
    opener: Opener,
    db: &Location,
    handle: &str,
    tool: &str,
    args: &str,
    json: bool,
) -> anyhow::Result<u8> {
    let store = opener.open(db)?;
    let Some(subject) = store.subject_by_handle(handle)? else {
        bail!("no subject `{handle}` in {}", shown(db));
    };
    let args = args.parse().context("the arguments are not JSON")?;
    let envelope = answers_server::tools::registry::call(&store, &subject, tool, &args)
        .with_context(|| {
            let tools: Vec<&str> = answers_server::tools::registry::record_tools()
                .iter()
                .map(answers_server::tools::registry::ToolId::as_str)
                .collect();
            format!("unknown tool `{tool}`; the tools are: {}", tools.join(", "))
        })?;
    let out = if json {
        let mut s = format!("{:#}", answers_server::protocol::render_rest(&envelope));
        s.push('\n');
        s
    } else {
        let mut s = answers_server::protocol::render_compact(&envelope);
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s
    };
    let mut stdout = std::io::stdout().lock();
    // phi-lint: allow(phi::print, reason = "the answer this command prints to the user who asked for it: its output, not a log")
    match stdout.write_all(out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(u8::from(
        envelope.status() == answers_server::protocol::Status::Error,
    ))
}

/// Registers the deployment's tokens: `--tokens-file`, else `ANSWERS_TOKENS_FILE`, else the
/// lines in `ANSWERS_TOKENS`; nothing when none is given. Logs how many, never which.
fn register_tokens(opener: Opener, db: &Location, file: Option<PathBuf>) -> anyhow::Result<()> {
    let file = file.or_else(|| std::env::var_os("ANSWERS_TOKENS_FILE").map(PathBuf::from));
    let text = match file {
        Some(path) => std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the tokens file {}", path.display()))?,
        None => match std::env::var("ANSWERS_TOKENS") {
            Ok(text) => text,
            Err(std::env::VarError::NotPresent) => return Ok(()),
            Err(std::env::VarError::NotUnicode(_)) => bail!("ANSWERS_TOKENS is not UTF-8"),
        },
    };
    let store = opener.open(db)?;
    let token_count = store.load_tokens(&text)?;
    tracing::info!(token_count, "tokens registered");
    Ok(())
}

/// `answers token issue|revoke`.
fn token(opener: Opener, action: TokenAction) -> anyhow::Result<u8> {
    match action {
        TokenAction::Issue {
            db,
            subject,
            ttl_days,
            no_expiry,
        } => {
            let store = opener.open(&db.location()?)?;
            let Some(found) = store.subject_by_handle(&subject)? else {
                bail!("no subject has the handle {subject:?}");
            };
            let ttl = (!no_expiry).then(|| days(ttl_days));
            let token = store.issue_token(&found.id, ttl)?;
            let mut out = std::io::stdout().lock();
            // phi-lint: allow(phi::print, reason = "the token is printed once, to its owner, on request; it is never logged")
            writeln!(out, "{token}").context("cannot write the token")?;
            Ok(0)
        }
        TokenAction::Revoke { db } => {
            let mut token = String::new();
            std::io::stdin()
                .read_line(&mut token)
                .context("cannot read the token from standard input")?;
            let store = opener.open(&db.location()?)?;
            Ok(u8::from(!store.revoke_token(token.trim())?))
        }
    }
}

/// `canary-present`: 0 when every canary is in a comment, 1 when one is not. Prints only the
/// verdict; the canary itself is never printed or logged.
fn canary_present(opener: Opener, db: &Location, canary_file: Option<&Path>) -> anyhow::Result<u8> {
    let text = match canary_file {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => match std::env::var(CANARY_ENV) {
            Ok(text) => text,
            Err(std::env::VarError::NotPresent) => {
                bail!("no canary: set {CANARY_ENV} or pass --canary-file")
            }
            Err(std::env::VarError::NotUnicode(_)) => bail!("{CANARY_ENV} is not Unicode"),
        },
    };
    let canaries = canaries(&text);
    if canaries.is_empty() {
        bail!("no canary: the canary is empty");
    }
    // A missing file is refused: a check must not answer `absent` about a typo.
    let store = opener.open(db)?;
    let mut present = true;
    for canary in &canaries {
        present &= store.comment_contains(canary)?;
    }
    // No log line here: stdout carries the verdict alone, so a pipeline can compare it whole.
    let verdict = if present { "present\n" } else { "absent\n" };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(verdict.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(u8::from(!present))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, PoisonError};

    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    /// A log sink the test reads back.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The policy `answers ARGS` logs under, one line logged through it carrying `canary` in a
    /// value and in the message, what the line became, and how many canaries were blocked.
    fn log_through(args: &[&str], canary: &str) -> (String, u64) {
        let cli = Cli::try_parse_from(args).expect("parse");
        let base = phi_filter::PhiPolicy::from_toml(POLICY).expect("the policy");
        let policy = armed(base, &cli.command).expect("armed");
        let stats = policy.stats();
        let sink = Sink::default();
        let writer = sink.clone();
        let layer = policy.wrap(phi_filter::json_layer(move || writer.clone()));
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(status = canary, "request {canary} done");
        });
        let bytes = sink
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        (
            String::from_utf8(bytes).expect("utf-8"),
            stats.snapshot().canaries_blocked,
        )
    }

    #[test]
    fn serve_with_a_canary_file_blocks_a_line_carrying_the_canary() {
        let canary = "RUN-7f3c91ab";
        // Unarmed, the line passes: the status has a status's shape, the message is kept.
        let (plain, blocked) = log_through(&["answers", "serve"], canary);
        assert!(plain.contains(canary), "{plain}");
        assert_eq!(blocked, 0);
        let (plain, _) = log_through(&["answers", "query", "--subject", "you", "x"], canary);
        assert!(
            plain.contains(canary),
            "only serve arms the tripwire: {plain}"
        );

        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("canary");
        std::fs::write(&file, format!("\n  {canary}  \n\n")).expect("write");
        let path = file.to_str().expect("utf-8");
        let (armed, blocked) = log_through(&["answers", "serve", "--canary-file", path], canary);
        assert!(
            !armed.contains(canary),
            "the canary reached the log: {armed}"
        );
        assert!(armed.contains("[canary blocked]"), "{armed}");
        assert_eq!(blocked, 2, "the value and the message");
    }

    #[test]
    fn an_unreadable_canary_file_is_an_error_naming_it() {
        let cli = Cli::try_parse_from(["answers", "serve", "--canary-file", "/no/such/canary"])
            .expect("parse");
        let base = phi_filter::PhiPolicy::from_toml(POLICY).expect("the policy");
        let err = armed(base, &cli.command).expect_err("refused");
        assert!(format!("{err:#}").contains("/no/such/canary"), "{err:#}");
    }

    #[test]
    fn serve_defaults_are_the_pool_and_connection_defaults() {
        let cli = Cli::try_parse_from(["answers", "serve"]).expect("parse");
        let Command::Serve { pool, db, .. } = cli.command else {
            panic!("serve");
        };
        assert_eq!(pool.pool(), answers_server::PoolOptions::default());
        assert_eq!(pool.pg(), PgOptions::default());
        assert_eq!(
            db.url, None,
            "the default comes from the variable, then answers.db"
        );
    }

    #[test]
    fn canaries_are_the_non_empty_trimmed_lines() {
        assert_eq!(canaries(" a \n\n b\n"), ["a", "b"]);
        assert!(canaries("\n  \n").is_empty());
    }
}
