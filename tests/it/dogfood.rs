//! The project holds itself to its own rules: phi-lint, run on this workspace with its
//! configuration and baseline through the same pipeline as `phi-lint check`, finds nothing new
//! and nothing stale.

use std::path::{Path, PathBuf};

use phi_lint::{CheckOptions, Scan};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace root")
        .to_path_buf()
}

#[test]
fn phi_lint_passes_on_this_workspace() {
    let root = workspace_root();

    // Preconditions, so a clean result cannot come from linting nothing: the files come from
    // the crates' targets, and test code and target/ are out of scope.
    let scan = Scan::new(std::slice::from_ref(&root), None).expect("scan the workspace");
    let linted: Vec<&str> = scan.files.iter().map(|(_, rel)| rel.as_str()).collect();
    for must in [
        "phi-lint/src/main.rs",
        "phi-lint/src/engine.rs",
        "phi-filter/src/names.rs",
        "tests/src/lib.rs",
        // The service and the packages split out of it, and the leak drill (whose one leak
        // carries a reasoned suppression): each is a crate the resolver must reach.
        "core/src/cli.rs",
        "core/tools/src/registry.rs",
        "core/governance/src/lib.rs",
        "core/server/src/lib.rs",
        "core/server/src/auth.rs",
        "core/store/src/lib.rs",
        "core/store/db/src/lib.rs",
        "core/protocol/src/lib.rs",
        "canary/marker/src/lib.rs",
        "ci/leak-drill/src/main.rs",
    ] {
        assert!(linted.contains(&must), "{must} was not linted: {linted:?}");
    }
    assert!(
        !linted.iter().any(|f| f.starts_with("target/")
            || f.contains("/tests/")
            || f.starts_with("tests/it/")
            || f.ends_with("/tests.rs")),
        "test code and target/ are out of scope: {linted:?}"
    );
    assert_eq!(scan.counts.reached, scan.files.len(), "{:?}", scan.counts);
    assert!(scan.counts.test_files > 0, "{:?}", scan.counts);
    assert!(
        scan.excluded
            .iter()
            .all(|f| f.starts_with("phi-lint/tests/fixtures/")),
        "only the deliberate leaks of the fixtures are excluded: {:?}",
        scan.excluded
    );

    let report = phi_lint::check(&CheckOptions {
        paths: vec![root],
        ..CheckOptions::default()
    })
    .expect("check the workspace");
    assert!(report.statements > 0, "no logging statement was checked");
    assert!(
        report.errors.is_empty(),
        "files could not be checked: {:?}",
        report.errors
    );
    assert!(
        report.baseline_path.is_some(),
        "the workspace keeps a baseline, even an empty one"
    );
    let new: Vec<String> = report
        .new_findings()
        .map(|f| format!("{}:{}: {}: {}", f.file, f.start.line, f.rule, f.message))
        .collect();
    assert!(
        new.is_empty(),
        "new findings in this workspace:\n{}",
        new.join("\n")
    );
    assert!(
        report.stale.is_empty(),
        "stale baseline entries: {:?}",
        report.stale
    );
    assert_eq!(report.exit_code(), 0);
}
