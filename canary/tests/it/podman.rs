//! The podman source against a real Podman: a `FROM scratch` image of a static binary built
//! here with rustc, run under the `k8s-file` driver, then scanned as `podman:NAME`. CI installs
//! Podman (`.ci/run`); `PHI_SKIP_PODMAN=1` skips this explicitly, and nothing skips silently.

use std::path::Path;
use std::process::{Command, Output};

use super::{Dir, cli};

/// Prints each argument as a line: `out:TEXT` to stdout, `err:TEXT` to stderr.
const SAY: &str = r#"fn main() {
    for a in std::env::args().skip(1) {
        if let Some(t) = a.strip_prefix("out:") { println!("{t}"); }
        if let Some(t) = a.strip_prefix("err:") { eprintln!("{t}"); }
    }
}
"#;

const NONCE: &str = "podman-0001";
const CANARY: &str = "PHI-CANARY-p0dm";

fn podman(dir: &Path, args: &[&str]) -> Output {
    Command::new("podman")
        // Some hosts (this CI's sandbox among them) refuse the rlimits Podman sets by default.
        .env("CONTAINERS_CONF", dir.join("containers.conf"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("podman {args:?}: {e}"))
}

fn ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Removes the containers and the image however the test ends.
struct Cleanup<'a> {
    dir: &'a Path,
    names: Vec<String>,
    image: String,
}

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        for name in &self.names {
            let _ = podman(self.dir, &["rm", "-f", name]);
        }
        let _ = podman(self.dir, &["rmi", "-f", &self.image]);
    }
}

#[test]
fn a_real_podman_container_is_scanned_clean_and_with_a_leak() {
    if std::env::var_os("PHI_SKIP_PODMAN").is_some_and(|v| v == "1") {
        println!("PHI_SKIP_PODMAN=1: the real podman test is skipped on purpose");
        return;
    }
    let dir = Dir::new();
    let root = dir.path();
    dir.write("containers.conf", "[containers]\ndefault_ulimits = []\n");
    let version = podman(root, &["--version"]);
    ok(
        &version,
        "podman is missing or broken (.ci/run installs it; PHI_SKIP_PODMAN=1 skips)",
    );

    dir.write("say.rs", SAY);
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let built = Command::new(rustc)
        .current_dir(root)
        .args([
            "--edition",
            "2021",
            "-O",
            "-C",
            "target-feature=+crt-static",
        ])
        .args(["-o", "say", "say.rs"])
        .output()
        .expect("run rustc");
    ok(&built, "rustc a static binary");
    dir.write(
        "Containerfile",
        "FROM scratch\nCOPY say /say\nENTRYPOINT [\"/say\"]\n",
    );
    let tag = format!("localhost/phi-canary-podman-test:{}", std::process::id());
    let mut cleanup = Cleanup {
        dir: root,
        names: Vec::new(),
        image: tag.clone(),
    };
    let root_arg = root.to_string_lossy().into_owned();
    ok(
        &podman(root, &["build", "-q", "-t", &tag, &root_arg]),
        "podman build",
    );

    let start = format!("phiguard-marker start {NONCE}");
    let end = format!("phiguard-marker end {NONCE}");
    let mut run = |name: &str, err_line: &str| {
        cleanup.names.push(name.to_owned());
        let lines = [
            format!("out:{start}"),
            format!("err:{start}"),
            "out:GET /health 200".to_owned(),
            format!("err:{err_line}"),
            format!("out:{end}"),
            format!("err:{end}"),
        ];
        let mut args = vec!["run", "--name", name, "--log-driver", "k8s-file", &tag];
        args.extend(lines.iter().map(String::as_str));
        ok(&podman(root, &args), "podman run");
    };
    let pid = std::process::id();
    let (clean, leaky) = (
        format!("phi-canary-clean-{pid}"),
        format!("phi-canary-leak-{pid}"),
    );
    run(&clean, "warn: slow query");
    run(&leaky, &format!("comment={CANARY}"));

    let scan = |name: &str| {
        cli(&[
            "scan",
            "--canary",
            CANARY,
            "--expect-marker",
            NONCE,
            "--format",
            "json",
            &format!("podman:{name}"),
        ])
        .run()
    };
    let clean_run = scan(&clean);
    assert_eq!(clean_run.code, 0, "{clean_run}");
    let json = clean_run.json();
    assert_eq!(json["sources"][0]["kind"], "podman", "{clean_run}");
    let streams = &json["sources"][0]["streams"];
    assert_eq!(streams[0]["name"], "stdout", "{clean_run}");
    assert_eq!(streams[1]["name"], "stderr", "{clean_run}");

    let leak_run = scan(&leaky);
    assert_eq!(leak_run.code, 1, "{leak_run}");
    let json = leak_run.json();
    assert_eq!(json["hits"][0]["stream"], "stderr", "{leak_run}");
    assert!(
        !leak_run.to_string().contains(CANARY),
        "a hit never shows the value"
    );
    drop(cleanup);
}
