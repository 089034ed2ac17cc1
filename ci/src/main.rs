//! `phi-ci`: the pipelines of phiguard.
//!
//! - `phi-ci local`: the four layers on this machine, no Docker, no network: the static lint,
//!   the running service driven over HTTP through every view and error path, the canary
//!   check of its captured logs, and of the traces and logs it exported to phi-canary's OTLP
//!   receiver. The newcomer's one command.
//! - `phi-ci release`: the same service as a statically linked binary in a `FROM scratch`
//!   image, run in a real container with the json-file log driver, then its logs and its
//!   export scanned.
//! - `phi-ci pr --base REF`: the PR gate: phi-lint against the baseline and its growth since REF,
//!   as SARIF and GitHub annotations.

mod build;
mod drive;
mod e2e;
mod fault;
mod lint;
mod local;
mod mcp;
mod pr;
mod progress;
mod release;
mod report;
mod telemetry;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

const EXIT_CODES: &str = "\
Exit codes:
  0  every layer passed
  1  a layer failed: a lint finding, a call answered wrongly, a service that did not stop
     cleanly, a canary absent from the record, a leak, or inconclusive logs
  2  the pipeline could not run: a usage error, a build that failed, a tool or the Docker
     engine that did not answer, an I/O error";

/// The pipelines of phiguard: the local demo, the release check and the PR gate.
#[derive(Parser)]
#[command(name = "phi-ci", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The four layers on this machine: static lint, runtime drive, end-to-end canary check,
    /// telemetry check.
    #[command(after_help = format!("{}\n\n{EXIT_CODES}", local::HELP))]
    Local(local::Options),
    /// The release check in a real container: static binary, FROM scratch image, json-file
    /// logs, phi-canary over `docker logs`.
    #[command(after_help = format!("{}\n\n{EXIT_CODES}", release::HELP))]
    Release(release::Options),
    /// The PR gate: phi-lint against the baseline and its growth since REF; SARIF and GitHub
    /// annotations.
    #[command(after_help = format!("{}\n\n{EXIT_CODES}", pr::HELP))]
    Pr(pr::Options),
}

/// The workspace phi-ci was built in: the default root of every pipeline.
fn default_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map_or(manifest.clone(), PathBuf::from)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Local(options) => local::run(&options),
        Command::Release(options) => release::run(&options),
        Command::Pr(options) => pr::run(&options),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // phi-lint: allow(phi::error-message, reason = "phi-ci's own errors name commands, paths and steps; service output is never in them")
            eprintln!("phi-ci: error: {err:#}");
            ExitCode::from(report::exit::ERROR)
        }
    }
}
