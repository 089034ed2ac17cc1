//! `phi-ci local`: the four layers on this machine, with no Docker and no network.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};
use clap::Args;

use crate::build::{Flavour, Subject};
use crate::drive::{self, Target};
use crate::fault::RenameTable;
use crate::progress::Steps;
use crate::report::{Layer, Report};
use crate::tools::Tools;
use crate::{e2e, lint, telemetry};
use phi_marker::Nonce;
use phi_testkit::{Service, ShutdownFigures, Spawn};

pub(crate) const HELP: &str = "\
Layers:
  1 static      phi-lint on the workspace against its baseline: files and statements linted
  2 runtime     `answers serve` on a fresh demo database seeded with a per-run canary, stdout
                and stderr captured to files, driven over HTTP through every view for `you`
                and `mom` and every error path (unknown parameter, bad date, end before start,
                a view without a selector, a bad token, no token, a forced store fault), then
                stopped with SIGTERM: calls made, fields redacted by the log filter, clean stop
  3 end-to-end  `answers canary-present` proves the canary is in the record; phi-canary scans
                the captured logs for it (every encoding) and for the start/end marker lines
  4 telemetry   the service runs with --otlp-endpoint to phi-canary's OTLP receiver on a
                loopback port (in-process); once it has stopped (and flushed), the traces and
                logs it exported must be clean, carry the start/end marker span and log record,
                and hold, per route, a span per call made to it

The store fault: while the service runs, its `series` table is renamed away by a second
connection; the next call must answer with a store-fault envelope, and after the rename back
the same call must answer again.";

/// Options of `phi-ci local`.
#[derive(Args)]
pub(crate) struct Options {
    #[command(flatten)]
    pub(crate) subject: Subject,
    /// Keep the run's directory (database, tokens, captured logs) and print its path.
    #[arg(long)]
    pub(crate) keep: bool,
}

/// A run's secrets: the per-run canary seeded into the record, and the marker lines' nonce
/// (`phi-ci-` and 32 hex digits from the OS RNG).
pub(crate) struct Secrets {
    pub(crate) canary: String,
    pub(crate) nonce: Nonce,
}

/// Seeds the demo record at `db` with a fresh per-run canary and writes the tokens file.
pub(crate) fn seed_fresh(
    answers: &Path,
    db: &Path,
    tokens: &Path,
    steps: &Steps,
) -> anyhow::Result<Secrets> {
    steps.step("runtime: seed the demo record with a per-run canary");
    let canary = phi_canary::Canary::generate()?.text().to_owned();
    let nonce = Nonce::random("phi-ci")?;
    seed(answers, db, tokens, &canary)?;
    Ok(Secrets { canary, nonce })
}

/// Seeds the demo record with `canary` and writes the tokens file.
fn seed(answers: &Path, db: &Path, tokens: &Path, canary: &str) -> anyhow::Result<()> {
    let out = Command::new(answers)
        .arg("seed")
        .arg("--db")
        .arg(db)
        .args(["--demo", "--canary", canary, "--tokens-file"])
        .arg(tokens)
        .env_remove("RUST_LOG")
        .output()
        .with_context(|| format!("cannot run {} seed", answers.display()))?;
    if !out.status.success() {
        bail!("answers seed failed ({})", out.status);
    }
    Ok(())
}

pub(crate) fn run(options: &Options) -> anyhow::Result<u8> {
    let subject = &options.subject;
    let steps = Steps::new();
    let dir = tempfile::Builder::new()
        .prefix("phi-ci-local-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let mut report = Report::pipeline("local", subject.leak_drill);

    steps.step("static: phi-lint");
    report
        .layers
        .push(lint::layer(&lint::check(&subject.root(), None)?));
    steps.done("static");

    let answers = subject.binary(Flavour::Release, dir.path(), &steps)?;
    let [runtime, e2e_layer, telemetry] = runtime_and_e2e(&answers, dir.path(), &steps)?;
    report.layers.push(runtime);
    report.layers.push(e2e_layer);
    report.layers.push(telemetry);
    drop(steps);

    Ok(report.finish(dir, options.keep))
}

/// Layers 2, 3 and 4 against a local `answers` binary, in `dir`.
fn runtime_and_e2e(answers: &Path, dir: &Path, steps: &Steps) -> anyhow::Result<[Layer; 3]> {
    let db = dir.join("record.db");
    let tokens = dir.join("tokens");
    let Secrets { canary, nonce } = seed_fresh(answers, &db, &tokens, steps)?;

    steps.step("telemetry: start the OTLP receiver");
    let receiver = telemetry::start(&canary, &nonce, &telemetry::ROUTES)?;
    steps.step("runtime: start answers serve");
    let spawn = Spawn::serve(answers, &db)
        .env(phi_marker::NONCE_ENV, nonce.as_str())
        .arg("--otlp-endpoint")
        .arg(receiver.endpoint());
    let service = Service::start(&spawn, dir)?;
    let target = Target {
        addr: service.addr,
        tokens: drive::read_tokens(&std::fs::read_to_string(&tokens)?),
        forbidden: vec![canary.clone(), phi_canary::Canary::core().text().to_owned()],
        tools: Tools::of_binary(answers)?,
    };
    let mut fault = RenameTable::new(&db);
    let driven = drive::drive(&target, &mut fault, steps);
    steps.step("runtime: stop answers serve (SIGTERM)");
    let stopped = service.stop()?;
    let driven = driven?;
    let runtime = runtime_layer(
        &driven,
        phi_testkit::shutdown_figures(&stopped.stdout),
        &stopped.how,
        stopped.clean,
    );
    steps.done("runtime");

    steps.step("end-to-end: canary present?");
    let present = e2e::present(answers, &db, &canary)?;
    steps.step("end-to-end: phi-canary over the captured logs");
    let logs = [
        dir.join("answers.stdout.log").display().to_string(),
        dir.join("answers.stderr.log").display().to_string(),
    ];
    let scanned = e2e::scan(&logs, &canary, &nonce)?;
    steps.done("end-to-end");
    steps.step("telemetry: stop the OTLP receiver");
    let exported = telemetry::stop(receiver)?;
    steps.done("telemetry");
    Ok([
        runtime,
        e2e::layer(present, &scanned),
        telemetry::layer(&exported, &driven.routes),
    ])
}

/// The runtime layer's line: calls made and passed, the service's own count, fields redacted.
pub(crate) fn runtime_layer(
    driven: &drive::Outcome,
    figures: Option<ShutdownFigures>,
    how: &str,
    clean: bool,
) -> Layer {
    let mut layer = Layer::new("runtime");
    layer.figure("tool calls", driven.calls);
    layer.figure("as expected", driven.passed);
    match figures {
        Some(f) => {
            layer.figure("served", f.requests);
            layer.figure("fields redacted", f.redacted);
            layer.figure("messages cut", f.cut);
            layer.figure("errors scrubbed", f.scrubbed);
            if f.requests != driven.calls {
                layer.fail(format!(
                    "the service counted {} requests, the pipeline made {}",
                    f.requests, driven.calls
                ));
            }
        }
        None => layer.fail("the service logged no `answers stopped` line with its figures"),
    }
    layer.figure("stop", if clean { "clean" } else { "unclean" });
    if !clean {
        layer.fail(format!("the service did not stop cleanly: {how}"));
    }
    for why in &driven.failures {
        layer.fail(why.clone());
    }
    if driven.calls == 0 {
        layer.fail("no call was made");
    }
    layer
}
