//! The `phi-lint` binary, end to end: exit codes with stdout and stderr, every output format,
//! the baseline lifecycle in a git repository, the walk's ignore rules, `explain` and `--help`.
//!
//! Each test writes its own tree into a temporary directory and runs the binary there, with
//! `HOME` and git's configuration pointed into that directory so the machine's settings cannot
//! change the outcome.

use std::fmt::{self, Write as _};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{self, Stdio};

use phi_lint::Rule;
use serde_json::Value;
use tempfile::TempDir;

/// Safe logging only: an id.
const SAFE: &str = r#"pub struct User {
    pub id: u64,
}

pub fn greet(user: &User) {
    tracing::info!(user_id = %user.id, "ok");
}
"#;

/// One safe statement, an interpolated email (line 7) and an error's message (line 12).
const LEAKY: &str = include_str!("../fixtures/cli/leaky.rs");

/// A one-line leak, for files whose content does not matter.
const ONE_LEAK: &str = "pub fn f(user: &User) { tracing::info!(email = %user.email); }\n";

/// Variables that would point git at another repository.
const UNSET: [&str; 3] = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"];

/// A temporary source tree, the root of every scan in a test.
struct Tree {
    dir: TempDir,
}

impl Tree {
    /// A tree holding `files` (`(relative path, text)`).
    fn new(files: &[(&str, &str)]) -> Tree {
        let tree = Tree {
            dir: tempfile::tempdir().expect("create a temporary directory"),
        };
        for (rel, text) in files {
            tree.write(rel, text);
        }
        tree
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a directory in the tree");
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {rel}: {e}"));
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Runs `phi-lint ARGS` with the tree as the current directory.
    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = assert_cmd::Command::cargo_bin("phi-lint").expect("the phi-lint binary");
        cmd.args(args).current_dir(self.root()).envs(self.env());
        for name in UNSET {
            cmd.env_remove(name);
        }
        Run::from(cmd.output().expect("run phi-lint"))
    }

    /// Runs `phi-lint check ARGS`, then parses its stdout as the JSON report.
    fn json(&self, args: &[&str], code: i32) -> Value {
        let run = self.run(&[&["check", "--format", "json"], args].concat());
        run.assert_code(code);
        assert_eq!(run.stderr, "", "{run}");
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("JSON report: {e}\n{run}"))
    }

    /// Runs `git ARGS` in the tree and asserts it succeeded.
    fn git(&self, args: &[&str]) {
        let mut cmd = process::Command::new("git");
        cmd.args(["-c", "user.email=t@t", "-c", "user.name=t"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(self.root())
            .envs(self.env());
        for name in UNSET {
            cmd.env_remove(name);
        }
        let out = cmd.output().expect("run git");
        assert!(out.status.success(), "git {args:?}: {}", Run::from(out));
    }

    /// A git repository holding the tree as it is now, in one commit.
    fn git_init(&self) {
        self.git(&["init", "-q"]);
        self.commit("initial");
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    /// The environment of every command: `HOME` and git's configuration point into the tree, so
    /// no user or system setting (a global gitignore, signing, a default branch) reaches
    /// phi-lint or git. See also [`UNSET`].
    fn env(&self) -> [(&'static str, PathBuf); 4] {
        [
            ("HOME", self.root().to_owned()),
            ("XDG_CONFIG_HOME", self.root().to_owned()),
            ("GIT_CONFIG_GLOBAL", self.root().join(".gitconfig")),
            ("GIT_CONFIG_NOSYSTEM", PathBuf::from("1")),
        ]
    }

    /// `text` with the tree's path (as given and canonical) replaced by `[ROOT]`.
    fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        let canonical = std::fs::canonicalize(self.root()).expect("canonical root");
        for root in [canonical.as_path(), self.root()] {
            out = out.replace(&*root.to_string_lossy(), "[ROOT]");
        }
        out
    }

    fn root_arg(&self) -> String {
        self.root().to_string_lossy().into_owned()
    }
}

/// What one run of the binary did.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<process::Output> for Run {
    fn from(out: process::Output) -> Run {
        Run {
            code: out.status.code().expect("exited, not killed by a signal"),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        }
    }
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "exit code {}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl Run {
    fn assert_code(&self, code: i32) -> &Run {
        assert_eq!(self.code, code, "{self}");
        self
    }

    /// The exit code, nothing on stderr, and stdout containing every one of `needles`.
    fn assert_out(&self, code: i32, needles: &[&str]) -> &Run {
        self.assert_code(code);
        assert_eq!(self.stderr, "", "{self}");
        for needle in needles {
            assert!(
                self.stdout.contains(needle),
                "stdout lacks {needle:?}\n{self}"
            );
        }
        self
    }

    /// The exit code, nothing on stdout, and stderr containing every one of `needles`.
    fn assert_err(&self, code: i32, needles: &[&str]) -> &Run {
        self.assert_code(code);
        assert_eq!(self.stdout, "", "{self}");
        for needle in needles {
            assert!(
                self.stderr.contains(needle),
                "stderr lacks {needle:?}\n{self}"
            );
        }
        self
    }

    /// The last line of stdout: the summary of `human` and `github` output.
    fn summary(&self) -> &str {
        self.stdout.lines().last().unwrap_or_default()
    }
}

// ---------------------------------------------------------------------------------------------
// Exit codes

#[test]
fn exit_0_on_a_clean_tree() {
    let tree = Tree::new(&[("src/lib.rs", SAFE)]);
    let run = tree.run(&["check"]);
    run.assert_out(0, &[]);
    // "1 statement": the logging was checked, so the pass is not vacuous.
    assert_eq!(
        run.stdout, "phi-lint: clean; 1 file, 1 statement, no suppressions\n",
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
         entries, 0 errors; 1 file, 1 statement, no suppressions",
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
            "cannot update the baseline while files fail to parse",
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

// ---------------------------------------------------------------------------------------------
// Output formats, on one leaking tree

#[test]
fn format_human() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let run = tree.run(&["check", "--format", "human", &tree.root_arg()]);
    run.assert_out(
        1,
        &["error[phi::interpolation]", "error[phi::error-message]"],
    );
    insta::assert_snapshot!("format_human", tree.redact(&run.stdout));
}

#[test]
fn format_github() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let run = tree.run(&["check", "--format", "github", &tree.root_arg()]);
    run.assert_out(
        1,
        &["::error file=src/lib.rs,", "::group::", "::endgroup::"],
    );
    insta::assert_snapshot!("format_github", tree.redact(&run.stdout));
}

#[test]
fn format_json() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let json = tree.json(&[&tree.root_arg()], 1);
    assert_eq!(json["version"], 1);
    let summary = &json["summary"];
    for (key, want) in [
        ("files", 1),
        ("statements", 3),
        ("findings", 2),
        ("new", 2),
        ("baselined", 0),
        ("stale", 0),
        ("growth", 0),
        ("errors", 0),
        ("suppressions", 0),
        ("suppressed", 0),
        ("exit_code", 1),
    ] {
        assert_eq!(summary[key], want, "summary.{key} in {summary}");
    }
    let findings = json["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 2, "{json:#}");

    let email = &findings[0];
    assert_eq!(email["rule"], "phi::interpolation");
    assert_eq!(email["file"], "src/lib.rs");
    assert_eq!(span(email), [7, 29, 7, 39], "{email:#}");
    assert_eq!(email["macro"], "tracing::info");
    assert_eq!(email["field"], "email");
    assert_eq!(email["expr"], "user.email");
    assert_eq!(email["message"], "`email` contains the deny stem `email`");
    assert_eq!(email["function"], "register");
    assert_eq!(email["baselined"], false);
    let fingerprint = email["fingerprint"].as_str().expect("fingerprint");
    assert!(
        fingerprint.len() == 16 && fingerprint.chars().all(|c| c.is_ascii_hexdigit()),
        "{fingerprint}"
    );

    let error = &findings[1];
    assert_eq!(error["rule"], "phi::error-message");
    assert_eq!(span(error), [12, 25, 12, 26], "{error:#}");
    assert_eq!(error["macro"], "error");
    assert_eq!(error["field"], "error");
    assert_eq!(error["function"], "save");
    assert_ne!(error["fingerprint"], email["fingerprint"]);

    // Each span is the value's: 1-based, in characters, `end_column` exclusive.
    for finding in findings {
        assert_eq!(
            text_at(LEAKY, span(finding)),
            finding["expr"],
            "{finding:#}"
        );
    }
}

/// A JSON finding's `line`, `column`, `end_line` and `end_column`.
fn span(finding: &Value) -> [u64; 4] {
    ["line", "column", "end_line", "end_column"].map(|k| {
        finding[k]
            .as_u64()
            .unwrap_or_else(|| panic!("finding.{k} in {finding}"))
    })
}

/// The text of `source` at a one-line `[line, column, end_line, end_column]` span.
fn text_at(source: &str, [line, column, end_line, end_column]: [u64; 4]) -> String {
    assert_eq!(line, end_line, "a one-line span");
    let at = |n: u64| usize::try_from(n - 1).expect("small");
    let text = source.lines().nth(at(line)).expect("the line exists");
    text.chars()
        .skip(at(column))
        .take(at(end_column) - at(column))
        .collect()
}

fn sarif_validator() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sarif-schema-2.1.0.json"
    );
    let text = std::fs::read_to_string(path).expect("the SARIF schema fixture");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the official schema compiles offline")
}

#[test]
fn format_sarif() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let run = tree.run(&["check", "--format", "sarif", &tree.root_arg()]);
    run.assert_out(1, &[]);
    let sarif: Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");

    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF does not match the schema:\n{}",
        errors.join("\n")
    );
    // The validator is not vacuous: it rejects a result whose level is not a SARIF level.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));

    let run0 = &sarif["runs"][0];
    let declared: Vec<&str> = run0["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().expect("rule id"))
        .collect();
    for rule in Rule::ALL {
        assert!(
            declared.contains(&rule.code()),
            "{} is not declared in {declared:?}",
            rule.code()
        );
    }

    let results = run0["results"].as_array().expect("results");
    let json = tree.json(&[&tree.root_arg()], 1);
    assert_eq!(results.len(), 2, "{run0:#}");
    for (result, finding) in results
        .iter()
        .zip(json["findings"].as_array().expect("findings"))
    {
        assert_eq!(result["ruleId"], finding["rule"]);
        let index =
            usize::try_from(result["ruleIndex"].as_u64().expect("ruleIndex")).expect("index");
        assert_eq!(declared[index], result["ruleId"]);
        let fingerprints = result["partialFingerprints"]
            .as_object()
            .expect("partialFingerprints");
        assert!(!fingerprints.is_empty(), "{result:#}");
        // The same fingerprint as the JSON report's, so alerts and baselines agree.
        assert!(
            fingerprints.values().any(|v| *v == finding["fingerprint"]),
            "{result:#}"
        );
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "src/lib.rs");
        assert_eq!(location["region"]["startLine"], finding["line"]);
        assert_eq!(location["region"]["startColumn"], finding["column"]);
    }
    assert_eq!(run0["invocations"][0]["exitCode"], 1);
}

#[test]
fn output_writes_the_report_to_a_file_and_nothing_to_stdout() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let run = tree.run(&["check", "--format", "json", "--output", "report.json"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (1, "", ""),
        "{run}"
    );
    let report: Value = serde_json::from_str(&tree.read("report.json")).expect("report is JSON");
    assert_eq!(report["summary"]["findings"], 2);

    let run = tree.run(&["check", "--output", "report.txt"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (1, "", ""),
        "{run}"
    );
    assert!(
        tree.read("report.txt")
            .contains("error[phi::interpolation]")
    );
}

// ---------------------------------------------------------------------------------------------
// The baseline

/// Two leaks, one per function, in the reverse of the baseline's order.
const TWO_LEAKS: &str = include_str!("../fixtures/cli/baseline_1_two_leaks.rs");

/// `TWO_LEAKS` plus a new leak in a new function.
const THREE_LEAKS: &str = include_str!("../fixtures/cli/baseline_2_new_leak.rs");

/// `TWO_LEAKS` with the email leak repeated, identically, in the same function.
const REPEATED_LEAK: &str = include_str!("../fixtures/cli/baseline_3_repeated_leak.rs");

/// `TWO_LEAKS` with the email leak fixed.
const ONE_FIXED: &str = include_str!("../fixtures/cli/baseline_4_one_fixed.rs");

/// `ONE_FIXED` plus the new leak of `THREE_LEAKS`.
const ONE_FIXED_ONE_NEW: &str = include_str!("../fixtures/cli/baseline_5_growth.rs");

const BASELINE: &str = "phi-lint.baseline.json";

fn baseline_entries(tree: &Tree) -> Vec<Value> {
    let baseline: Value = serde_json::from_str(&tree.read(BASELINE)).expect("baseline is JSON");
    assert_eq!(baseline["version"], 1);
    baseline["entries"].as_array().expect("entries").clone()
}

/// An entry's key, in the order entries are sorted by.
fn entry_key(entry: &Value) -> [String; 6] {
    ["path", "rule", "macro", "field", "expr", "function"].map(|k| {
        entry[k]
            .as_str()
            .unwrap_or_else(|| panic!("entry.{k} in {entry}"))
            .to_owned()
    })
}

#[test]
fn baseline_lifecycle() {
    let tree = Tree::new(&[("src/lib.rs", TWO_LEAKS)]);
    tree.git_init();

    // (a) The first baseline: sorted, keyed without line numbers, with counts.
    tree.run(&["check"]).assert_out(1, &["2 new findings"]);
    tree.run(&["baseline", "--init"]).assert_out(
        0,
        &["wrote ./phi-lint.baseline.json: 2 entries covering 2 findings"],
    );
    let entries = baseline_entries(&tree);
    assert_eq!(entries.len(), 2);
    let keys: Vec<_> = entries.iter().map(entry_key).collect();
    assert!(keys.is_sorted(), "{keys:?}");
    for entry in &entries {
        let mut fields: Vec<&str> = entry
            .as_object()
            .expect("entry")
            .keys()
            .map(String::as_str)
            .collect();
        fields.sort_unstable();
        assert_eq!(
            fields,
            [
                "count", "expr", "field", "function", "macro", "path", "rule"
            ],
            "{entry}"
        );
        assert_eq!(entry["count"], 1);
    }
    // Sorted by key (`info` before `warn`), not in source order.
    let described: Vec<String> = keys.iter().map(|k| k[1..].join(" | ")).collect();
    assert_eq!(
        described,
        [
            "phi::interpolation | info | email | user . email | register",
            "phi::interpolation | warn | name | patient . name | lookup",
        ]
    );
    tree.commit("baseline");
    let run = tree.run(&["check"]);
    run.assert_out(0, &[]);
    assert_eq!(
        run.stdout,
        "phi-lint: clean; 1 file, 2 statements, no suppressions, 2 baselined\n"
    );

    // (b) A new leak fails, and only it is named.
    tree.write("src/lib.rs", THREE_LEAKS);
    let run = tree.run(&["check"]);
    run.assert_out(
        1,
        &[
            "--> src/lib.rs:10:33",
            "patient.diagnosis",
            "1 new finding, 2 baselined",
        ],
    );
    assert_eq!(run.stdout.matches("error[").count(), 1, "{run}");
    assert!(
        !run.stdout.contains("user.email") && !run.stdout.contains("patient.name"),
        "{run}"
    );

    // (c) A second identical leak in the same function is new: entries carry counts.
    tree.write("src/lib.rs", REPEATED_LEAK);
    let run = tree.run(&["check"]);
    run.assert_out(1, &[" --> src/lib.rs:7:29", "1 new finding, 2 baselined"]);
    assert_eq!(run.stdout.matches("error[").count(), 1, "{run}");
    let json = tree.json(&[], 1);
    // The first in source order is the grandfathered one.
    let baselined: Vec<(u64, bool)> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| (span(f)[0], f["baselined"].as_bool().expect("baselined")))
        .collect();
    assert_eq!(baselined, [(2, true), (6, true), (7, false)]);

    // (d) Fixing a grandfathered leak leaves its entry stale, which fails too.
    tree.write("src/lib.rs", ONE_FIXED);
    let run = tree.run(&["check"]);
    run.assert_out(
        1,
        &[
            "error[phi::stale-baseline]: baseline entry grandfathers 1 finding but none remain",
            " --> phi-lint.baseline.json",
            "field `email`, function `register`, expr `user . email`",
            "0 new findings, 1 baselined, 1 stale baseline entry",
        ],
    );
    assert_eq!(run.stdout.matches("error[").count(), 1, "{run}");

    // (e) `baseline` prunes the stale entry.
    let before = tree.read(BASELINE);
    tree.run(&["baseline"]).assert_out(
        0,
        &["phi-lint: wrote ./phi-lint.baseline.json: 1 ", "(was 2)"],
    );
    let after = tree.read(BASELINE);
    assert!(
        after.len() < before.len(),
        "the baseline did not shrink:\n{after}"
    );
    assert_eq!(
        baseline_entries(&tree)
            .iter()
            .map(entry_key)
            .collect::<Vec<_>>(),
        keys[1..]
    );
    tree.run(&["check"])
        .assert_out(0, &["phi-lint: clean;", "1 baselined"]);
    tree.commit("prune the baseline");

    // (f) Growth: refused without --allow-growth, recorded with its reason when allowed, and
    // caught against the committed baseline by --baseline-ref.
    tree.write("src/lib.rs", ONE_FIXED_ONE_NEW);
    let committed = tree.read(BASELINE);
    tree.run(&["baseline"]).assert_out(
        1,
        &[
            "refusing to grow ./phi-lint.baseline.json",
            "phi::interpolation diagnosis in src/lib.rs (admit): `patient . diagnosis` 0 -> 1",
            "--allow-growth",
        ],
    );
    assert_eq!(
        tree.read(BASELINE),
        committed,
        "a refused growth changed the baseline"
    );
    tree.run(&[
        "baseline",
        "--allow-growth",
        "--reason",
        "legacy import path",
    ])
    .assert_out(0, &["2 entries covering 2 findings (was 1)"]);
    let entries = baseline_entries(&tree);
    let grown = entries
        .iter()
        .find(|e| e["function"] == "admit")
        .expect("the grown entry");
    assert_eq!(grown["reason"], "legacy import path");
    assert_eq!(grown["count"], 1);
    let kept = entries
        .iter()
        .find(|e| e["function"] == "lookup")
        .expect("the kept entry");
    assert!(kept.get("reason").is_none(), "{kept}");

    let run = tree.run(&["check", "--baseline-ref", "HEAD"]);
    run.assert_out(
        1,
        &[
            "error[baseline-growth]: baseline entry grew from 0 to 1 since HEAD",
            "field `diagnosis`, function `admit`, expr `patient . diagnosis`",
            "1 grown baseline entry",
        ],
    );
    assert_eq!(run.stdout.matches("error[").count(), 1, "{run}");
    let json = tree.json(&["--baseline-ref", "HEAD"], 1);
    assert_eq!(json["summary"]["growth"], 1);
    assert_eq!(json["growth"][0]["function"], "admit");
    assert_eq!(json["growth"][0]["ref_count"], 0);
    assert_eq!(json["growth"][0]["count"], 1);

    tree.run(&["check"])
        .assert_out(0, &["phi-lint: clean;", "2 baselined"]);
    tree.run(&["check", "--baseline-ref", "nonexistent-ref"])
        .assert_err(
            2,
            &["cannot read the baseline at git ref `nonexistent-ref`"],
        );
}

#[test]
fn baseline_growth_at_the_same_key_is_growth() {
    // Raising an entry's count is growth too, for `baseline` and for `--baseline-ref`.
    let tree = Tree::new(&[("src/lib.rs", TWO_LEAKS)]);
    tree.git_init();
    tree.run(&["baseline", "--init"]).assert_out(0, &[]);
    tree.commit("baseline");
    tree.write("src/lib.rs", REPEATED_LEAK);
    tree.run(&["baseline"]).assert_out(
        1,
        &["phi::interpolation email in src/lib.rs (register): `user . email` 1 -> 2"],
    );
    tree.run(&[
        "baseline",
        "--allow-growth",
        "--reason",
        "same call, second site",
    ])
    .assert_out(0, &[]);
    let entries = baseline_entries(&tree);
    let raised = entries
        .iter()
        .find(|e| e["function"] == "register")
        .expect("the raised entry");
    assert_eq!(raised["count"], 2);
    assert_eq!(raised["reason"], "same call, second site");
    tree.run(&["check", "--baseline-ref", "HEAD"])
        .assert_out(1, &["baseline entry grew from 1 to 2 since HEAD"]);
}

#[test]
fn allow_growth_without_a_reason_is_a_usage_error() {
    let tree = Tree::new(&[("src/lib.rs", TWO_LEAKS)]);
    tree.run(&["baseline", "--init"]).assert_out(0, &[]);
    let before = tree.read(BASELINE);
    tree.write("src/lib.rs", THREE_LEAKS);
    tree.run(&["baseline", "--allow-growth"])
        .assert_err(2, &["--reason <TEXT>", "Usage: phi-lint baseline"]);
    tree.run(&["baseline", "--reason", "why"])
        .assert_err(2, &["--allow-growth"]);
    assert_eq!(tree.read(BASELINE), before);
}

#[test]
fn baseline_init_refuses_to_overwrite() {
    let tree = Tree::new(&[("src/lib.rs", TWO_LEAKS)]);
    tree.run(&["baseline", "--init"]).assert_out(0, &[]);
    let before = tree.read(BASELINE);
    tree.write("src/lib.rs", THREE_LEAKS);
    tree.run(&["baseline", "--init"]).assert_err(
        2,
        &["phi-lint: error: ./phi-lint.baseline.json already exists; run `phi-lint baseline` to prune it"],
    );
    assert_eq!(tree.read(BASELINE), before);
}

#[test]
fn baseline_without_a_baseline_is_an_error() {
    let tree = Tree::new(&[("src/lib.rs", TWO_LEAKS)]);
    tree.run(&["baseline"])
        .assert_err(2, &["no baseline at", "phi-lint baseline --init"]);
    assert!(!tree.root().join(BASELINE).exists());
}

// ---------------------------------------------------------------------------------------------
// Suppressions

#[test]
fn suppressions_are_counted_in_the_json_summary() {
    let source = r#"pub fn f(reading: &Reading) {
    // phi-lint: allow(reason = "a LOINC code names the test, not the person")
    tracing::info!(code = %reading.code, unit = %reading.unit);
    tracing::info!(code = %reading.code); // phi-lint: allow(phi::interpolation, reason = "a LOINC code")
    tracing::info!(value = %reading.value);
}
"#;
    let tree = Tree::new(&[("src/lib.rs", source)]);
    let json = tree.json(&[], 1);
    let summary = &json["summary"];
    assert_eq!(summary["suppressions"], 2, "{summary}");
    assert_eq!(summary["suppressed"], 3, "{summary}");
    // Only the unsuppressed value is reported.
    assert_eq!(summary["findings"], 1);
    assert_eq!(json["findings"][0]["expr"], "reading.value");
    let run = tree.run(&["check"]);
    assert!(
        run.summary()
            .ends_with("2 suppressions covering 3 findings"),
        "{run}"
    );
}

// ---------------------------------------------------------------------------------------------
// `explain` and `--help`

#[test]
fn explain_a_rule() {
    let tree = Tree::new(&[]);
    let full = tree.run(&["explain", "phi::error-message"]);
    full.assert_out(
        0,
        &[
            "# phi::error-message\n",
            "### What it does",
            "### Use instead",
        ],
    );
    let bare = tree.run(&["explain", "error-message"]);
    bare.assert_out(0, &[]);
    assert_eq!(bare.stdout, full.stdout);
}

#[test]
fn explain_an_unknown_rule_names_the_known_ones() {
    let tree = Tree::new(&[]);
    let run = tree.run(&["explain", "nonsense"]);
    run.assert_err(
        2,
        &["phi-lint: error: unknown rule `nonsense`; the rules are: "],
    );
    for rule in Rule::ALL {
        assert!(
            run.stderr.contains(rule.code()),
            "{} missing\n{run}",
            rule.code()
        );
    }
}

#[test]
fn explain_alone_lists_every_rule() {
    let tree = Tree::new(&[]);
    let run = tree.run(&["explain"]);
    run.assert_out(0, &[]);
    let codes: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let all: Vec<&str> = Rule::ALL.iter().map(|r| r.code()).collect();
    assert_eq!(codes, all, "{run}");
}

#[test]
fn help_documents_the_exit_codes() {
    let tree = Tree::new(&[]);
    let run = tree.run(&["--help"]);
    run.assert_out(0, &["Exit codes:", "  2  the tool could not do its job"]);
    insta::assert_snapshot!("help", run.stdout);
    let run = tree.run(&["check", "--help"]);
    run.assert_out(0, &["Exit codes:", "--baseline-ref <REF>"]);
    insta::assert_snapshot!("check_help", run.stdout);
}

// ---------------------------------------------------------------------------------------------
// What the walk skips, and where the configuration comes from

/// The files the JSON report has findings in.
fn files_with_findings(json: &Value) -> Vec<&str> {
    let mut files: Vec<&str> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["file"].as_str().expect("file"))
        .collect();
    files.dedup();
    files
}

#[test]
fn gitignored_files_and_target_are_skipped() {
    let tree = Tree::new(&[
        ("src/lib.rs", ONE_LEAK),
        ("src/generated.rs", ONE_LEAK),
        ("gen/out.rs", ONE_LEAK),
        ("target/x.rs", ONE_LEAK),
        ("target/debug/build/y.rs", ONE_LEAK),
        (".gitignore", "/gen/\n/src/generated.rs\n"),
    ]);
    // Outside a git repository, and inside one.
    for in_git in [false, true] {
        if in_git {
            tree.git_init();
        }
        let json = tree.json(&[], 1);
        assert_eq!(
            files_with_findings(&json),
            ["src/lib.rs"],
            "in git: {in_git}\n{json:#}"
        );
        assert_eq!(json["summary"]["files"], 1);
    }
    // The precondition: each skipped file's leak is a finding when given explicitly.
    let json = tree.json(&["src/generated.rs", "gen/out.rs", "target/x.rs"], 1);
    assert_eq!(
        files_with_findings(&json),
        ["gen/out.rs", "src/generated.rs", "target/x.rs"]
    );
}

#[test]
fn tests_are_skipped_unless_scan_tests() {
    let tree = Tree::new(&[
        ("src/lib.rs", SAFE),
        ("tests/it.rs", ONE_LEAK),
        ("crates/a/tests/t.rs", ONE_LEAK),
        ("benches/b.rs", ONE_LEAK),
        ("examples/e.rs", ONE_LEAK),
    ]);
    let run = tree.run(&["check"]);
    run.assert_out(0, &["phi-lint: clean; 1 file,"]);

    tree.write("phi-lint.toml", "scan-tests = true\n");
    let json = tree.json(&[], 1);
    assert_eq!(
        files_with_findings(&json),
        [
            "benches/b.rs",
            "crates/a/tests/t.rs",
            "examples/e.rs",
            "tests/it.rs"
        ]
    );
}

#[test]
fn config_in_cargo_workspace_metadata() {
    let manifest =
        "[workspace]\nmembers = []\n\n[workspace.metadata.phi-lint]\nallow-names = [\"email\"]\n";
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    // Without the configuration the leak is a finding...
    tree.run(&["check"]).assert_out(1, &["1 new finding"]);
    // ... and with it, the name is allowed.
    tree.write("Cargo.toml", manifest);
    tree.run(&["check"])
        .assert_out(0, &["phi-lint: clean; 1 file, 1 statement"]);
    // One configuration only: a phi-lint.toml as well is an error.
    tree.write("phi-lint.toml", "scan-tests = true\n");
    tree.run(&["check"]).assert_err(
        2,
        &["phi-lint.toml: configuration found both here and in Cargo.toml metadata"],
    );
}

// ---------------------------------------------------------------------------------------------
// Pipes and paths

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

#[test]
fn an_explicit_absolute_file_is_reported_by_its_path() {
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    let elsewhere = Tree::new(&[]);
    let file = tree.root().join("src/lib.rs");
    let file = file.to_string_lossy();
    let json = elsewhere.json(&[&file], 1);
    assert_eq!(json["findings"][0]["file"], *file);
    let run = elsewhere.run(&["check", "--format", "sarif", &file]);
    let sarif: Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    let uri = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert!(!uri.as_str().expect("uri").starts_with("//"), "{uri}");
}

#[test]
fn the_fix_in_the_help_names_a_config_key_that_exists() {
    // Do what the help says: add the function to the key it names.
    let help = Rule::Interpolation.info().help;
    let key = help
        .rsplit('`')
        .nth(1)
        .expect("the help ends with a key in backticks");
    let source = "pub fn f(user: &User) { tracing::info!(email = %fingerprint(&user.email)); }\n";
    let tree = Tree::new(&[("src/lib.rs", source)]);
    tree.run(&["check"]).assert_out(1, &[help]);
    tree.write("phi-lint.toml", &format!("{key} = [\"fingerprint\"]\n"));
    tree.run(&["check"]).assert_out(0, &["phi-lint: clean;"]);
}
