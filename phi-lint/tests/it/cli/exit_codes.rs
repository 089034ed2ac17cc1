//! Exit codes with stdout and stderr: 0 on a clean tree, 1 on a leak, 2 when the tool cannot do
//! its job, and a reader that goes away early is not an error.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::process::{self, Stdio};

use super::{ONE_LEAK, SAFE, Tree};

#[test]
fn exit_0_on_a_clean_tree() {
    let tree = Tree::new(&[("src/lib.rs", SAFE)]);
    let run = tree.run(&["check"]);
    run.assert_out(0, &[]);
    // "1 statement": the logging was checked, so the pass is not vacuous.
    assert_eq!(
        run.stdout,
        "phi-lint: clean; 1 file, 1 statement, no suppressions; 0 reached by a crate, 1 unreached\n",
        "{run}"
    );
}

#[test]
fn exit_1_on_a_leak() {
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    let run = tree.run(&["check"]);
    run.assert_out(
        1,
        &[
            "error[phi::interpolation]: `email` contains the deny stem `email`\n --> src/lib.rs:1:49\n",
            "user.email",
        ],
    );
    assert_eq!(
        run.summary(),
        "phi-lint: 1 new finding, 0 baselined, 0 stale baseline entries, 0 grown baseline \
         entries, 0 errors; 1 file, 1 statement, no suppressions; 0 reached by a crate, 1 unreached",
        "{run}"
    );
}

#[test]
fn exit_2_on_a_file_that_does_not_parse() {
    let tree = Tree::new(&[("src/lib.rs", SAFE), ("src/bad.rs", "fn f( {\n")]);
    let run = tree.run(&["check"]);
    run.assert_out(2, &["error: src/bad.rs:1:7: cannot parse"]);
    assert!(run.summary().contains("1 error; 2 files"), "{run}");

    let json = tree.json(&[], 2);
    assert_eq!(json["summary"]["exit_code"], 2);
    assert_eq!(json["errors"][0]["file"], "src/bad.rs");
    assert_eq!(json["errors"][0]["line"], 1);
    assert_eq!(json["errors"][0]["column"], 7);
    let message = json["errors"][0]["message"].as_str().expect("message");
    assert!(message.starts_with("cannot parse"), "{message}");

    // The baseline cannot be written over a file that could hide a leak.
    tree.run(&["baseline", "--init"]).assert_err(
        2,
        &[
            "cannot update the baseline while files have errors",
            "src/bad.rs: cannot parse",
        ],
    );
    assert!(!tree.root().join("phi-lint.baseline.json").exists());
}

#[test]
fn exit_2_on_an_unknown_flag() {
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    tree.run(&["check", "--bogus"]).assert_err(
        2,
        &["unexpected argument '--bogus'", "Usage: phi-lint check"],
    );
    tree.run(&[]).assert_err(2, &["Usage: phi-lint <COMMAND>"]);
}

#[test]
fn exit_2_on_a_nonexistent_path() {
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    let run = tree.run(&["check", "does-not-exist"]);
    run.assert_err(2, &[]);
    assert_eq!(
        run.stderr,
        "phi-lint: error: cannot scan `does-not-exist`: no such file or directory\n"
    );
}

#[test]
fn exit_2_on_a_config_error_naming_key_line_and_column() {
    let tree = Tree::new(&[
        ("src/lib.rs", ONE_LEAK),
        (
            "phi-lint.toml",
            "# phi-lint configuration\nscan-tests = false\nalow-names = [\"x\"]\n",
        ),
    ]);
    let run = tree.run(&["check"]);
    run.assert_err(2, &["phi-lint.toml:3:1: unknown field `alow-names`"]);
    assert!(
        run.stderr.starts_with("phi-lint: error: invalid config "),
        "{run}"
    );
    assert_eq!(run.stderr.lines().count(), 1, "{run}");

    // The same in Cargo.toml metadata points into Cargo.toml.
    let tree = Tree::new(&[
        ("src/lib.rs", ONE_LEAK),
        (
            "Cargo.toml",
            "[workspace]\nmembers = []\n\n[workspace.metadata.phi-lint]\nalow-names = [\"x\"]\n",
        ),
    ]);
    tree.run(&["check"])
        .assert_err(2, &["Cargo.toml:5:1: unknown field `alow-names`"]);
}

#[test]
fn exit_2_on_an_invalid_baseline() {
    let tree = Tree::new(&[
        ("src/lib.rs", ONE_LEAK),
        (
            "phi-lint.baseline.json",
            "{\n  \"version\": 1,\n  \"entries\": [,]\n}\n",
        ),
    ]);
    let run = tree.run(&["check"]);
    run.assert_err(2, &[]);
    assert_eq!(
        run.stderr,
        "phi-lint: error: invalid baseline ./phi-lint.baseline.json:3:15: expected value\n"
    );
    tree.run(&["baseline"])
        .assert_err(2, &["phi-lint.baseline.json:3:15: expected value"]);
}

#[test]
fn exit_2_when_the_output_file_cannot_be_created() {
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    tree.run(&["check", "--output", "no-such-dir/report.txt"])
        .assert_err(
            2,
            &["phi-lint: error: cannot create no-such-dir/report.txt"],
        );
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    // Enough output (about 1 MB) that the writer is still busy when the reader goes away.
    let mut source = String::from("pub fn f(user: &User) {\n");
    for i in 0..3000 {
        writeln!(source, "    tracing::info!(email = %user.email_{i});").expect("a String");
    }
    source.push_str("}\n");
    let tree = Tree::new(&[("src/lib.rs", &source)]);
    for format in ["human", "json", "sarif", "github"] {
        let mut child = process::Command::new(env!("CARGO_BIN_EXE_phi-lint"))
            .args(["check", "--format", format])
            .current_dir(tree.root())
            .envs(tree.env())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn phi-lint");
        let mut first = String::new();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        stdout.read_line(&mut first).expect("read the first line");
        assert!(!first.is_empty(), "{format}: no output");
        drop(stdout);
        let out = child.wait_with_output().expect("wait for phi-lint");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{format}: stderr: {stderr}");
        assert_eq!(stderr, "", "{format}");
    }
}
