//! The docker source against a fake `docker` first on `PATH`: a shell script that answers
//! `inspect` and `logs` from files next to it and records its arguments. No daemon is needed.

use std::os::unix::fs::PermissionsExt;

use super::{Dir, NONCE, Run, cli};

const FAKE_DOCKER: &str = r#"#!/bin/sh
# A stand-in for the docker CLI: answers from files next to it.
dir=$(dirname "$0")
printf '%s\n' "$*" >> "$dir/calls"
case "$1" in
  inspect)
    if [ -f "$dir/inspect.err" ]; then cat "$dir/inspect.err" >&2; exit 1; fi
    cat "$dir/inspect.json"
    ;;
  logs)
    # stderr first and large: a reader that drains stdout before stderr deadlocks here.
    cat "$dir/stderr" >&2
    cat "$dir/stdout"
    exit "$(cat "$dir/status")"
    ;;
  *)
    exit 64
    ;;
esac
"#;

/// A fake docker and what it will answer.
struct Fake {
    dir: Dir,
}

impl Fake {
    fn new(driver: &str, options: &str, tty: bool) -> Fake {
        let fake = Fake { dir: Dir::new() };
        let script = fake.dir.write("docker", FAKE_DOCKER);
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        fake.dir.write(
            "inspect.json",
            format!(r#"{{"driver":"{driver}","options":{options},"tty":{tty},"status":"exited"}}"#),
        );
        fake.logs("", "", 0);
        fake
    }

    fn json_file() -> Fake {
        Fake::new("json-file", "{}", false)
    }

    fn logs(&self, stdout: &str, stderr: &str, status: i32) {
        self.dir.write("stdout", stdout);
        self.dir.write("stderr", stderr);
        self.dir.write("status", status.to_string());
    }

    /// Runs phi-canary with the fake first on `PATH`, retrying if the kernel still saw the
    /// script open for writing in a concurrently forked test process ("Text file busy").
    fn run(&self, args: &[&str]) -> Run {
        for _ in 0..5 {
            let run = cli(args).path_first(self.dir.path()).run();
            if !run.stdout.contains("Text file busy") {
                return run;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the fake docker stayed busy");
    }

    /// `phi-canary docker --expect-marker NONCE --format json web`.
    fn json(&self) -> Run {
        self.run(&[
            "docker",
            "--expect-marker",
            NONCE,
            "--format",
            "json",
            "web",
        ])
    }

    fn calls(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("calls")).unwrap_or_default()
    }
}

fn marked(body: &str) -> String {
    format!("phiguard-marker start {NONCE}\n{body}phiguard-marker end {NONCE}\n")
}

#[test]
fn stdout_and_stderr_are_separate_streams_read_concurrently() {
    let fake = Fake::json_file();
    let noise = "warn: slow query\n".repeat(64 * 1024); // 1 MiB, more than a pipe holds
    let stderr = marked(&format!("{noise}err {}\n", phi_canary::canary::CORE));
    fake.logs(&marked("GET /health 200\n"), &stderr, 0);
    let run = fake.json();
    assert_eq!(run.code, 1, "{run}");
    let json = run.json();
    let streams = &json["sources"][0]["streams"];
    assert_eq!(streams[0]["name"], "stdout");
    assert_eq!(streams[1]["name"], "stderr");
    assert_eq!(streams[1]["bytes"].as_u64(), Some(stderr.len() as u64));
    assert_eq!(json["hits"][0]["stream"], "stderr");
    assert_eq!(json["hits"][0]["line"].as_u64(), Some(64 * 1024 + 2));
    assert_eq!(json["hits"][0]["canary"], "core");
    // Never -t, --details or --follow: just `logs NAME`.
    let calls = fake.calls();
    let logs: Vec<&str> = calls.lines().filter(|l| l.starts_with("logs")).collect();
    assert_eq!(logs, ["logs web"], "{calls}");
    assert!(
        calls
            .lines()
            .next()
            .unwrap_or_default()
            .starts_with("inspect --type container")
    );

    // The same logs without the leak are clean, with the markers proven on both streams.
    fake.logs(&marked("GET /health 200\n"), &marked(&noise), 0);
    let run = fake.run(&["scan", "--expect-marker", NONCE, "docker:web"]);
    run.assert_out(0, &[]);
    assert!(
        run.summary().ends_with("markers proven on 2 of 2 streams"),
        "{run}"
    );
}

#[test]
fn a_failing_docker_logs_is_exit_2_and_its_stderr_is_not_echoed() {
    let fake = Fake::json_file();
    let partial = "phiguard-marker start fixture-0001\nreading for Zebediah Quintwell\n";
    let daemon = "error from daemon in stream: Error grabbing logs: invalid character\n";
    fake.logs(partial, daemon, 1);
    let run = fake.run(&["docker", "--expect-marker", NONCE, "web"]);
    run.assert_out(2, &[]);
    assert!(
        run.stdout.contains(
            "error: docker:web: `docker logs web` failed (exit status 1); its message is not \
             shown: it shares stderr with the container's log\n"
        ),
        "{run}"
    );
    assert!(
        !run.stdout.contains("Zebediah") && !run.stdout.contains("grabbing"),
        "{run}"
    );

    // A leak in what was read before the failure still counts as a leak.
    fake.logs(&format!("{}\n", phi_canary::canary::DEMO), daemon, 1);
    assert_eq!(fake.run(&["docker", "web"]).code, 1);
}

#[test]
fn an_unreadable_logging_driver_is_refused_before_reading() {
    for (driver, why) in [
        ("none", "it keeps no logs"),
        ("syslog", "dual-logging cache, which drops old lines"),
        (
            "awslogs",
            "run the container with json-file, local or journald",
        ),
    ] {
        let fake = Fake::new(driver, "{}", false);
        fake.logs(&marked(""), &marked(""), 0);
        let run = fake.run(&["docker", "--expect-marker", NONCE, "web"]);
        run.assert_out(2, &[]);
        assert!(
            run.stdout
                .contains(&format!("logging driver `{driver}` cannot be read back: ")),
            "{run}"
        );
        assert!(run.stdout.contains(why), "{run}");
        assert!(
            !fake.calls().contains("logs"),
            "docker logs ran for {driver}"
        );
    }
    for driver in ["local", "journald"] {
        let fake = Fake::new(driver, "null", false);
        fake.logs(&marked(""), &marked(""), 0);
        fake.run(&["docker", "--expect-marker", NONCE, "web"])
            .assert_out(0, &[]);
    }
}

#[test]
fn non_blocking_mode_is_a_warning() {
    let fake = Fake::new(
        "json-file",
        r#"{"mode":"non-blocking","max-buffer-size":"4m"}"#,
        false,
    );
    fake.logs(&marked("ok\n"), &marked(""), 0);
    let run = fake.run(&["docker", "--expect-marker", NONCE, "web"]);
    run.assert_out(0, &[]);
    assert!(
        run.stdout.starts_with(
            "warning: docker:web: logging mode is non-blocking: docker drops lines when its \
             buffer is full"
        ),
        "{run}"
    );
    let run = fake.run(&[
        "docker",
        "--expect-marker",
        NONCE,
        "--format",
        "sarif",
        "web",
    ]);
    let sarif = run.json();
    let note = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(note["level"], "warning");
}

#[test]
fn a_tty_container_is_one_tty_stream() {
    let fake = Fake::new("json-file", "{}", true);
    let tty = format!("phiguard-marker start {NONCE}\r\nok\r\nphiguard-marker end {NONCE}\r\n");
    fake.logs(&tty, "", 0);
    let run = fake.json();
    run.assert_out(0, &[]);
    let json = run.json();
    let streams = &json["sources"][0]["streams"];
    assert_eq!(streams[0]["name"], "tty");
    assert_eq!(streams[0]["markers"]["start"], 1);
    // docker's own stderr is scanned but need not carry markers.
    assert_eq!(streams[1]["expects_markers"], false);

    fake.logs(&tty.replace("ok", phi_canary::canary::DEMO), "", 0);
    let run = fake.run(&["docker", "--format", "json", "web"]);
    assert_eq!(run.code, 1, "{run}");
    assert_eq!(run.json()["hits"][0]["stream"], "tty");
}

#[test]
fn missing_markers_on_one_stream_are_inconclusive() {
    let fake = Fake::json_file();
    fake.logs(&marked("ok\n"), "only a warning\n", 0);
    let run = fake.run(&["docker", "--expect-marker", NONCE, "web"]);
    run.assert_out(3, &[]);
    assert!(
        run.stdout.starts_with(&format!(
            "inconclusive: docker:web (stderr): no `phiguard-marker start {NONCE}` line\n"
        )),
        "{run}"
    );
}

#[test]
fn no_container_and_no_docker_are_exit_2() {
    let fake = Fake::json_file();
    fake.dir
        .write("inspect.err", "Error: No such object: web\n");
    let run = fake.run(&["docker", "web"]);
    run.assert_out(2, &[]);
    assert!(
        run.stdout.contains(
            "error: docker:web: `docker inspect web` failed (exit status 1): Error: No such \
             object: web\n"
        ),
        "{run}"
    );

    let empty = Dir::new();
    let run = cli(&["docker", "web"]).env("PATH", empty.path()).run();
    run.assert_out(2, &[]);
    assert!(run.stdout.contains("cannot run `docker`: "), "{run}");
}

#[test]
fn a_podman_source_asks_the_podman_cli_and_reads_its_drivers() {
    let fake = Fake::new("k8s-file", "null", false);
    // The same stand-in, answering as `podman` only: with no `docker` on the fake's path, a
    // source that asked docker would fail with exit 2.
    let script = fake.dir.write("podman", FAKE_DOCKER);
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::remove_file(fake.dir.path().join("docker")).expect("remove the docker stand-in");
    fake.logs(&marked("GET /health 200\n"), &marked(""), 0);
    let args = [
        "scan",
        "--demo",
        "--expect-marker",
        NONCE,
        "--format",
        "json",
        "podman:web",
    ];
    let run = fake.run(&args);
    assert_eq!(run.code, 0, "{run}");
    let json = run.json();
    assert_eq!(json["sources"][0]["name"], "podman:web", "{run}");
    assert_eq!(json["sources"][0]["kind"], "podman", "{run}");
    assert!(fake.calls().lines().any(|l| l == "logs web"));

    // Podman's passthrough driver keeps nothing: refused before reading, exit 2.
    fake.dir.write(
        "inspect.json",
        r#"{"driver":"passthrough","options":null,"tty":false,"status":"exited"}"#,
    );
    let run = fake.run(&args);
    assert_eq!(run.code, 2, "{run}");
    assert!(run.to_string().contains("passthrough"), "{run}");
}
