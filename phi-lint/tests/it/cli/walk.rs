//! What the walk skips, and where the configuration comes from.

use phi_lint::Rule;
use serde_json::Value;

use super::{ONE_LEAK, SAFE, Tree};

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

    tree.write("phiguard.toml", "[lint]\nscan-tests = true\n");
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
        "[workspace]\nmembers = []\n\n[workspace.metadata.phiguard.names]\nallow = [\"email\"]\n";
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
        &["configuration found in [workspace.metadata.phiguard] in Cargo.toml and in phi-lint.toml; keep one"],
    );
}

#[test]
fn the_older_phi_lint_toml_still_works_with_a_notice() {
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    tree.run(&["check"]).assert_out(1, &["1 new finding"]);
    tree.write("phi-lint.toml", "allow-names = [\"email\"]\n");
    let run = tree.run(&["check"]);
    assert_eq!(run.code, 0, "{run}");
    assert!(run.stdout.contains("phi-lint: clean;"), "{run}");
    assert!(
        run.stderr.starts_with(
            "phi-lint: notice: ./phi-lint.toml is phi-lint's own format; move it to phiguard.toml"
        ),
        "{run}"
    );
    // The same decision in phiguard.toml: no notice.
    std::fs::remove_file(tree.root().join("phi-lint.toml")).expect("remove");
    tree.write("phiguard.toml", "[names]\nallow = [\"email\"]\n");
    tree.run(&["check"]).assert_out(0, &["phi-lint: clean;"]);
}

#[test]
fn a_name_pseudonymized_at_run_time_passes_the_lint() {
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    tree.run(&["check"]).assert_out(1, &["1 new finding"]);
    tree.write("phiguard.toml", "[runtime]\npseudonymize = [\"email\"]\n");
    tree.run(&["check"]).assert_out(0, &["phi-lint: clean;"]);
}

#[test]
fn a_pseudonymized_name_printed_or_in_a_message_is_still_a_finding() {
    // The runtime pseudonymizes event and span fields; a print or a message it never touches.
    let source = "pub fn f(user: &User) {\n\
                  \x20   let email = &user.email;\n\
                  \x20   println!(\"{email}\");\n\
                  \x20   tracing::info!(\"sent to {}\", user.email);\n\
                  \x20   tracing::info!(email = %user.email);\n\
                  }\n";
    let tree = Tree::new(&[("src/lib.rs", source)]);
    tree.write("phiguard.toml", "[runtime]\npseudonymize = [\"email\"]\n");
    tree.run(&["check"]).assert_out(1, &["2 new findings"]);
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
    tree.write(
        "phiguard.toml",
        &format!("[lint]\n{key} = [\"fingerprint\"]\n"),
    );
    tree.run(&["check"]).assert_out(0, &["phi-lint: clean;"]);
}
