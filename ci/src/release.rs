//! `phi-ci release`: the release check against a real container.
//!
//! A statically linked `answers` (verified with `file` and `ldd`) goes into a `FROM scratch`
//! image built from `ci/Dockerfile`. The demo record is seeded on the host with a per-run
//! canary, with the same binary, into a directory bind-mounted at `/data`. The container runs
//! with the json-file log driver on the host's network, listening on a free loopback port and
//! exporting its traces and logs to phi-canary's OTLP receiver on another; it is driven as in
//! `local` (the store fault renames a table in the bind-mounted database), stopped with
//! `docker stop`, and its logs are read back through `docker logs` by phi-canary with the marker
//! nonce, and what it exported by the receiver. The container is removed in every case.
//!
//! Why `--network host`: the receiver runs in this process, on the host, and the container must
//! reach it. On the host's network the service and the receiver both bind `127.0.0.1`, so every
//! byte stays on loopback: nothing listens on the bridge gateway address or on `0.0.0.0`, no
//! firewall rule for the `docker0` interface and no userland proxy is involved, and the check
//! does not depend on the bridge's subnet or on `host.docker.internal` (which Docker Engine on
//! Linux only defines with `--add-host`). The service picks a free port (`--listen
//! 127.0.0.1:0`) and the check reads it from the container's `answers serving` log line, so
//! runs side by side do not collide on a fixed port.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;

use crate::build::{self, Flavour, Subject};
use crate::drive::{self, Target};
use crate::fault::RenameTable;
use crate::local::{Secrets, runtime_layer, seed_fresh};
use crate::progress::Steps;
use crate::report::{Layer, Report};
use crate::tools::Tools;
use crate::{e2e, lint, telemetry};

pub(crate) const HELP: &str = "\
Steps: phi-lint (layer 1); a static `answers` (the ordinary build linked again with `cargo rustc
-- -C target-feature=+crt-static`; --cargo-profile, default release), checked with `file` and `ldd`; a FROM
scratch image from ci/Dockerfile; the demo record seeded on the host with a per-run canary into
a directory bind-mounted at /data; phi-canary's OTLP receiver on a loopback port; `docker run`
with --log-driver json-file, --network host (so the service and the receiver both stay on
loopback), a marker nonce and --otlp-endpoint; the drive of `phi-ci local` (layer 2) through
the port the service logs; `docker stop`; `answers canary-present` on the record and phi-canary
over `docker logs` (layer 3); the receiver's verdict on the traces and logs exported (layer 4,
as in `phi-ci local`); the container is removed, also on failure.

--leak-drill builds the drill (package `answers-leak-drill`) instead, tagged `:leak-drill`; the
check must then fail at layers 3 and 4 (exit 1). It takes no --answers-bin. --keep keeps the
run directory (the static binary, the image's context, the record) and prints its path.

Needs a Docker engine that answers (`docker version`); no image is pulled.";

/// Options of `phi-ci release`.
#[derive(Args)]
pub(crate) struct Options {
    #[command(flatten)]
    pub(crate) subject: Subject,
    /// The docker CLI.
    #[arg(long, value_name = "PATH", default_value = "docker")]
    pub(crate) docker: String,
    /// Keep the run's directory (the static binary checked, the image's context, the
    /// bind-mounted record, tokens) and print its path.
    #[arg(long)]
    pub(crate) keep: bool,
}

/// A container that is removed when dropped.
struct Container<'d> {
    docker: &'d str,
    name: String,
}

impl Drop for Container<'_> {
    fn drop(&mut self) {
        let _ = Command::new(self.docker)
            .args(["rm", "-f", "-v", &self.name])
            .output();
    }
}

fn docker(bin: &str, args: &[&str]) -> anyhow::Result<Output> {
    let out = Command::new(bin)
        .args(args)
        .output()
        .with_context(|| format!("cannot run `{bin}`"))?;
    if !out.status.success() {
        bail!(
            "`docker {}` failed ({}): {}",
            args.first().copied().unwrap_or(""),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out)
}

fn uid_gid() -> anyhow::Result<String> {
    let id = |flag: &str| -> anyhow::Result<String> {
        let out = Command::new("id")
            .arg(flag)
            .output()
            .context("cannot run `id`")?;
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    Ok(format!("{}:{}", id("-u")?, id("-g")?))
}

pub(crate) fn run(options: &Options) -> anyhow::Result<u8> {
    let subject = &options.subject;
    let root = subject.root();
    let d = options.docker.as_str();
    // A prebuilt binary is checked before anything else: a dynamic one is refused at once.
    if let Some(bin) = &subject.answers_bin {
        check_static(bin)?;
    }
    let steps = Steps::new();
    steps.step("docker version");
    docker(d, &["version", "--format", "{{.Server.Version}}"])
        .context("the Docker engine did not answer")?;
    let dir = tempfile::Builder::new()
        .prefix("phi-ci-release-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let mut report = Report::pipeline("release", subject.leak_drill);

    steps.step("static: phi-lint");
    report.layers.push(lint::layer(&lint::check(&root, None)?));

    let bin = subject.binary(Flavour::Static, dir.path(), &steps)?;
    // Whether this is the drill is what was built: `--leak-drill` builds `answers-leak-drill`
    // (and cannot be given with `--answers-bin`).
    let linked = check_static(&bin)?;

    steps.step("image: FROM scratch");
    let context = dir.path().join("context");
    std::fs::create_dir_all(&context)?;
    std::fs::copy(&bin, context.join("answers"))?;
    std::fs::copy(
        root.join("ci").join("Dockerfile"),
        context.join("Dockerfile"),
    )
    .context("cannot copy ci/Dockerfile")?;
    let tag = if subject.leak_drill {
        "phiguard-answers:leak-drill"
    } else {
        "phiguard-answers:release-check"
    };
    let ctx = context.display().to_string();
    docker(d, &["build", "--quiet", "-t", tag, &ctx]).context("cannot build the image")?;

    let [mut runtime, e2e_layer, telemetry] = in_container(d, tag, &bin, dir.path(), &steps)?;
    runtime.figures.insert(0, ("binary", linked));
    report.layers.push(runtime);
    report.layers.push(e2e_layer);
    report.layers.push(telemetry);
    drop(steps);
    Ok(report.finish(dir, options.keep))
}

/// Checks that `bin` is statically linked; returns how `file` says it is linked.
fn check_static(bin: &Path) -> anyhow::Result<String> {
    let what = build::verify_static(bin)?;
    Ok(what
        .split(',')
        .map(str::trim)
        .find(|part| part.contains("linked"))
        .unwrap_or("static")
        .to_owned())
}

fn in_container(
    d: &str,
    tag: &str,
    bin: &Path,
    dir: &Path,
    steps: &Steps,
) -> anyhow::Result<[Layer; 3]> {
    let data = dir.join("data");
    std::fs::create_dir_all(&data)?;
    let db = data.join("answers.db");
    let tokens = dir.join("tokens");
    let Secrets { canary, nonce } = seed_fresh(bin, &db, &tokens, steps)?;

    steps.step("telemetry: start the OTLP receiver");
    let receiver = telemetry::start(&canary, &nonce, &telemetry::ROUTES)?;
    let endpoint = receiver.endpoint();
    steps.step("runtime: docker run");
    let name = nonce.to_string();
    let container = Container {
        docker: d,
        name: name.clone(),
    };
    let user = uid_gid()?;
    let mount = format!("{}:/data", data.display());
    let env = format!("{}={nonce}", phi_marker::NONCE_ENV);
    docker(
        d,
        &[
            "run",
            "-d",
            "--name",
            &name,
            "--log-driver",
            "json-file",
            "--network",
            "host",
            "--user",
            &user,
            "-v",
            &mount,
            "-e",
            &env,
            tag,
            "serve",
            "--db",
            "/data/answers.db",
            "--listen",
            "127.0.0.1:0",
            "--otlp-endpoint",
            &endpoint,
        ],
    )?;
    let addr = listening(d, &name)?;
    wait_healthy(addr)?;

    let target = Target {
        addr,
        tokens: drive::read_tokens(&std::fs::read_to_string(&tokens)?),
        forbidden: vec![canary.clone(), phi_canary::Canary::core().text().to_owned()],
        tools: Tools::of_binary(bin)?,
    };
    let mut fault = RenameTable::new(&db);
    let driven = drive::drive(&target, &mut fault, steps);
    steps.step("runtime: docker stop");
    docker(d, &["stop", "-t", "30", &name])?;
    let driven = driven?;
    let state = docker(
        d,
        &[
            "inspect",
            "-f",
            "{{.State.ExitCode}} {{.State.OOMKilled}}",
            &name,
        ],
    )?;
    let state = String::from_utf8_lossy(&state.stdout).trim().to_owned();
    let clean = state == "0 false";
    let logs = Command::new(d)
        .args(["logs", &name])
        .output()
        .context("cannot run docker logs")?;
    let figures = phi_testkit::shutdown_figures(&String::from_utf8_lossy(&logs.stdout));
    let runtime = runtime_layer(
        &driven,
        figures,
        &format!("exit code and OOM: {state}"),
        clean,
    );

    steps.step("end-to-end: canary present?");
    let present = e2e::present(bin, &db, &canary)?;
    steps.step("end-to-end: phi-canary docker");
    let scanned = e2e::scan(&[format!("docker:{name}")], &canary, &nonce)?;
    drop(container);
    steps.step("telemetry: stop the OTLP receiver");
    let exported = telemetry::stop(receiver)?;
    Ok([
        runtime,
        e2e::layer(present, &scanned),
        telemetry::layer(&exported, &driven.routes),
    ])
}

/// The address the container's service listens on, from its `answers serving` log line.
fn listening(d: &str, name: &str) -> anyhow::Result<std::net::SocketAddr> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let logs = docker(d, &["logs", name])?;
        if let Some(addr) = phi_testkit::listen_addr(&String::from_utf8_lossy(&logs.stdout)) {
            return Ok(addr);
        }
        if Instant::now() > deadline {
            bail!("the container logged no `answers serving` line with its address");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until `GET /healthz` answers 200.
fn wait_healthy(addr: std::net::SocketAddr) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = phi_testkit::http::get(addr, "/healthz", None);
        if matches!(r, Ok(ref r) if r.status == 200) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the container did not answer /healthz on {addr}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
