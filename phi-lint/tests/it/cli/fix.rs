//! `phi-lint fix`: the rewritten fixtures still compile (against the workspace's phi-filter and
//! the lock file's tracing and log), the findings they fixed are gone and exactly the `//~ left`
//! ones remain, a second run changes nothing, `--dry-run` writes nothing and prints the diff,
//! and the exit codes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process;

use super::{ONE_LEAK, SAFE, Tree};

const FIXTURES: [&str; 5] = [
    "tracing_forms.rs",
    "log_forms.rs",
    "log_kv_forms.rs",
    "unknown_forms.rs",
    "foreign_macro.rs",
];

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fix")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// `(file, line) -> count` of the `//~ left` markers.
fn left_markers() -> BTreeMap<(String, u32), usize> {
    let mut out = BTreeMap::new();
    for name in FIXTURES {
        for (i, line) in fixture(name).lines().enumerate() {
            if let Some((_, marks)) = line.split_once("//~") {
                let n = marks.split_whitespace().filter(|m| *m == "left").count();
                if n > 0 {
                    let line_no = u32::try_from(i + 1).expect("line");
                    out.insert((name.to_owned(), line_no), n);
                }
            }
        }
    }
    out
}

/// `(file, line) -> count` of error-message findings in `phi-lint check --format json` output.
fn error_messages(tree: &Tree, dir: &str) -> BTreeMap<(String, u32), usize> {
    let run = tree.run(&["check", "--format", "json", dir]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON report");
    let mut out = BTreeMap::new();
    for f in report["findings"].as_array().expect("findings") {
        if f["rule"] == "phi::error-message" {
            let file = f["file"].as_str().expect("file").to_owned();
            let line = u32::try_from(f["line"].as_u64().expect("line")).expect("line");
            *out.entry((file, line)).or_insert(0) += 1;
        }
    }
    out
}

/// A crate holding the fixtures twice, as written (`original`) and as `fix` leaves them
/// (`fixed`), so one `cargo check` proves both compile.
fn fixture_crate() -> Tree {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root");
    let manifest = format!(
        r#"[package]
name = "phi-lint-fix-check"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
phi-filter = {{ path = "{}", default-features = false }}
tracing = {{ version = "0.1", default-features = false, features = ["std"] }}
log = {{ version = "0.4", features = ["kv"] }}
"#,
        workspace.join("phi-filter").display()
    );
    let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).expect("the lock file");
    let mut modules = String::new();
    for name in FIXTURES {
        let _ = writeln!(modules, "    pub mod {};", name.trim_end_matches(".rs"));
    }
    let lib = format!(
        "#![allow(warnings)]\n\n#[macro_use]\nextern crate tracing;\n\n#[derive(Debug)]\npub struct StoreError;\n\n\
         impl std::fmt::Display for StoreError {{\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{\n        f.write_str(\"store\")\n    }}\n}}\n\n\
         impl std::error::Error for StoreError {{}}\n\n\
         pub mod original {{\n    pub use super::StoreError;\n    pub mod error {{}}\n{modules}}}\n\n\
         pub mod fixed {{\n    pub use super::StoreError;\n    pub mod error {{}}\n{modules}}}\n"
    );
    let tree = Tree::new(&[
        ("Cargo.toml", &manifest),
        ("Cargo.lock", &lock),
        ("src/lib.rs", &lib),
    ]);
    for name in FIXTURES {
        let text = fixture(name);
        tree.write(&format!("src/original/{name}"), &text);
        tree.write(&format!("src/fixed/{name}"), &text);
    }
    tree
}

/// `cargo check --offline` of the fixture crate, with a target directory kept between runs.
fn cargo_check(tree: &Tree) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fix-check");
    let out = process::Command::new(cargo)
        .args(["check", "--offline", "--quiet", "--manifest-path"])
        .arg(tree.root().join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "the fixture crate does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn rewritten_fixtures_compile_and_only_the_uncertain_findings_remain() {
    let tree = fixture_crate();
    let left = left_markers();
    let before = error_messages(&tree, "src/fixed");
    // The precondition: fixable findings exist beyond the ones that must be left.
    let fixable: usize = before.values().sum::<usize>() - left.values().sum::<usize>();
    assert!(fixable >= 20, "{before:?}");

    let run = tree.run(&["fix", "src/fixed"]);
    run.assert_code(1);
    assert_eq!(run.stdout, "", "{run}");
    assert!(
        run.stderr.starts_with(&format!(
            "phi-lint: fixed {fixable} findings in 4 files; {} error-message findings left",
            left.values().sum::<usize>()
        )),
        "{run}"
    );
    assert_eq!(error_messages(&tree, "src/fixed"), left);
    cargo_check(&tree);

    // Idempotent: a second run finds the same findings left and changes nothing.
    let once: Vec<String> = FIXTURES
        .iter()
        .map(|n| tree.read(&format!("src/fixed/{n}")))
        .collect();
    let again = tree.run(&["fix", "src/fixed"]);
    again.assert_code(1);
    assert!(
        again
            .stderr
            .starts_with("phi-lint: fixed 0 findings in 0 files"),
        "{again}"
    );
    let twice: Vec<String> = FIXTURES
        .iter()
        .map(|n| tree.read(&format!("src/fixed/{n}")))
        .collect();
    assert_eq!(once, twice);
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let tree = Tree::new(&[]);
    for name in FIXTURES {
        tree.write(&format!("src/{name}"), &fixture(name));
    }
    let run = tree.run(&["fix", "--dry-run", "src"]);
    run.assert_code(1);
    for name in FIXTURES {
        assert_eq!(tree.read(&format!("src/{name}")), fixture(name));
    }
    // A file given by its absolute path is named relative to the current directory (the
    // tree's root), so `git apply` takes the diff.
    let file = tree.root().join("src/tracing_forms.rs");
    let abs = tree.run(&["fix", "--dry-run", file.to_str().expect("UTF-8 path")]);
    assert!(
        abs.stdout
            .starts_with("--- a/src/tracing_forms.rs\n+++ b/src/tracing_forms.rs\n"),
        "{abs}"
    );
    insta::assert_snapshot!(
        "fix_dry_run",
        format!("{}--- stderr ---\n{}", run.stdout, run.stderr)
    );
}

#[test]
fn exit_codes() {
    // 0: nothing to fix, also when other rules have findings.
    let tree = Tree::new(&[("src/lib.rs", SAFE), ("src/leak.rs", ONE_LEAK)]);
    let run = tree.run(&["fix"]);
    run.assert_code(0);
    assert_eq!(
        run.stderr,
        "phi-lint: fixed 0 findings in 0 files; 0 error-message findings left to fix by hand\n"
    );
    // 0: everything fixed.
    let text = "pub fn f(e: E) { tracing::error!(error = %e, \"failed\"); }\n";
    let tree = Tree::new(&[("src/lib.rs", text)]);
    tree.run(&["fix"]).assert_code(0);
    assert_eq!(
        tree.read("src/lib.rs"),
        "pub fn f(e: E) { tracing::error!(error_type = %phi_filter::error_type(&e), \"failed\"); }\n"
    );
    // 2: a file that does not parse; nothing is written, not even the file that could be fixed.
    let tree = Tree::new(&[("src/lib.rs", text), ("src/broken.rs", "fn (")]);
    let run = tree.run(&["fix"]);
    run.assert_err(2, &["src/broken.rs", "phi-lint: nothing was written"]);
    assert_eq!(tree.read("src/lib.rs"), text);
}

#[test]
fn fix_help_documents_the_exit_codes() {
    let tree = Tree::new(&[]);
    let run = tree.run(&["fix", "--help"]);
    run.assert_out(0, &["Exit codes:", "--dry-run"]);
    insta::assert_snapshot!("fix_help", run.stdout);
}

#[test]
fn the_summary_lists_twenty_findings_left_and_counts_the_rest() {
    let body = "    tracing::error!(\"{:>8}\", e);\n".repeat(21);
    let tree = Tree::new(&[("src/lib.rs", &format!("pub fn f(e: E) {{\n{body}}}\n"))]);
    let run = tree.run(&["fix"]);
    run.assert_code(1);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 22, "{run}");
    assert_eq!(
        lines[1], "  src/lib.rs:2:30 phi::error-message `e`",
        "{run}"
    );
    assert_eq!(
        lines[21], "  ... and 1 more (`phi-lint check` lists them all)",
        "{run}"
    );
}

/// What is left is what the scan found and no fix took, where the scan found it, also where the
/// finding depends on a type another file declares. The re-lint of the rewritten file alone
/// missed those: the first run said "0 left" with exit 0, and a second run found 2.
#[test]
fn findings_left_are_the_scans_after_a_rewrite() {
    let lib = "pub mod other;\npub struct StoreError { pub msg: String }\npub type Failure = StoreError;\n\
               pub struct Job { pub last: StoreError }\n";
    let other = "use crate::{Failure, Job};\n\
                 pub fn f(e: &crate::StoreError, x: &Failure, job: &Job) {\n\
                 \x20   tracing::error!(\"x {e}\");\n\
                 \x20   tracing::error!(\"first {0}, again {0}\", x);\n\
                 \x20   tracing::error!(\"padded {:>8}\", job.last);\n}\n";
    let tree = Tree::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"a\"\nversion = \"0.1.0\"\n",
        ),
        ("src/lib.rs", lib),
        ("src/other.rs", other),
    ]);
    let run = tree.run(&["fix", "--dry-run"]);
    run.assert_code(1);
    let first = tree.run(&["fix"]);
    first.assert_code(1);
    assert_eq!(first.stderr, run.stderr.replace("would fix", "fixed"));
    assert_eq!(
        first.stderr,
        "phi-lint: fixed 1 finding in 1 file; 2 error-message findings left to fix by hand\n\
         \x20 src/other.rs:4:45 phi::error-message `x`\n\
         \x20 src/other.rs:5:37 phi::error-message `job.last`\n",
        "{first}"
    );
    let second = tree.run(&["fix"]);
    second.assert_code(1);
    assert_eq!(
        second.stderr,
        first
            .stderr
            .replace("fixed 1 finding in 1 file", "fixed 0 findings in 0 files")
    );
    // A finding left on the line of a rewrite is where it is after the rewrite, as `check` says.
    let text = "pub fn f(e: E) { tracing::error!(\"x {e}\"); tracing::error!(\"p {e:>8}\"); }\n";
    let tree = Tree::new(&[("src/lib.rs", text)]);
    let run = tree.run(&["fix"]);
    assert!(
        run.stderr
            .ends_with("\n  src/lib.rs:1:102 phi::error-message `e`\n"),
        "{run}"
    );
    let check = tree.json(&[], 1);
    assert_eq!(check["findings"][0]["column"], 102, "{check:#}");
}

/// The re-lint of a rewritten file runs with the stack the check's workers have, not the main
/// thread's 8 MiB: a macro whose expansion nests 10,000 unary operators is linted by `check`,
/// and `fix` re-lints it after its rewrite the same way, where it overflowed the stack (exit 134).
#[test]
fn fix_relints_deep_expansions_as_check_lints_them() {
    let ops = vec!["-"; 10_000].join(", ");
    let text = format!(
        "macro_rules! m {{ ($($op:tt),*) => {{ tracing::info!(\"{{}}\", $($op)* 1) }}; }}\n\
         pub fn f(e: E) {{ tracing::error!(\"save failed: {{e}}\"); m!({ops}); }}\n"
    );
    let tree = Tree::new(&[("src/lib.rs", &text)]);
    tree.run(&["check"]).assert_code(1);
    let run = tree.run(&["fix"]);
    run.assert_code(0);
    assert!(
        tree.read("src/lib.rs")
            .contains("tracing::error!(error_type = %phi_filter::error_type(&e), \"save failed\")")
    );
}
