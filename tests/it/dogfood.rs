//! The project holds itself to its own rules: phi-lint, run on this workspace with its
//! configuration and baseline, finds nothing new and nothing stale.

use std::path::{Path, PathBuf};

use phi_lint::{Baseline, Scan};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace root")
        .to_path_buf()
}

#[test]
fn phi_lint_passes_on_this_workspace() {
    let root = workspace_root();
    let scan = Scan::new(std::slice::from_ref(&root), None).expect("scan the workspace");
    let result = phi_lint::lint(&scan);

    // Preconditions, so a clean result cannot come from linting nothing.
    let linted: Vec<&str> = scan.files.iter().map(|(_, rel)| rel.as_str()).collect();
    for must in [
        "phi-lint/src/main.rs",
        "phi-lint/src/engine.rs",
        "phi-filter/src/names.rs",
    ] {
        assert!(linted.contains(&must), "{must} was not linted: {linted:?}");
    }
    assert!(
        !linted
            .iter()
            .any(|f| f.starts_with("target/") || f.contains("/tests/")),
        "test code and target/ are out of scope: {linted:?}"
    );
    assert!(result.statements > 0, "no logging statement was checked");
    assert!(
        result.errors.is_empty(),
        "files failed to parse: {:?}",
        result.errors
    );

    let baseline = Baseline::load(&root.join(phi_lint::baseline::FILE_NAME))
        .expect("the baseline parses")
        .expect("the workspace keeps a baseline, even an empty one");
    let mut findings = result.findings;
    let stale = baseline.apply(&mut findings);
    let new: Vec<String> = findings
        .iter()
        .filter(|f| !f.baselined)
        .map(|f| format!("{}:{}: {}: {}", f.file, f.start.line, f.rule, f.message))
        .collect();
    assert!(
        new.is_empty(),
        "new findings in this workspace:\n{}",
        new.join("\n")
    );
    assert!(stale.is_empty(), "stale baseline entries: {stale:?}");
}
