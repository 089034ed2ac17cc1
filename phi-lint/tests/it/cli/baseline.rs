//! The baseline lifecycle in a git repository: `baseline --init`, new and repeated leaks, stale
//! entries and their pruning, and growth, refused, allowed with a reason, and caught by
//! `--baseline-ref`.

use serde_json::Value;

use phi_testkit::Run;

use super::{Tree, span};

/// Two leaks, one per function, in the reverse of the baseline's order.
const TWO_LEAKS: &str = include_str!("../../fixtures/cli/baseline_1_two_leaks.rs");

/// `TWO_LEAKS` plus a new leak in a new function.
const THREE_LEAKS: &str = include_str!("../../fixtures/cli/baseline_2_new_leak.rs");

/// `TWO_LEAKS` with the email leak repeated, identically, in the same function.
const REPEATED_LEAK: &str = include_str!("../../fixtures/cli/baseline_3_repeated_leak.rs");

/// `TWO_LEAKS` with the email leak fixed.
const ONE_FIXED: &str = include_str!("../../fixtures/cli/baseline_4_one_fixed.rs");

/// `ONE_FIXED` plus the new leak of `THREE_LEAKS`.
const ONE_FIXED_ONE_NEW: &str = include_str!("../../fixtures/cli/baseline_5_growth.rs");

const BASELINE: &str = "phi-lint.baseline.json";

/// Runs `check ARGS` and asserts that it fails (exit 1) with exactly one error, whose report
/// holds every one of `expected`.
fn check_one_error(tree: &Tree, args: &[&str], expected: &[&str]) -> Run {
    let run = tree.run(&[&["check"], args].concat());
    run.assert_out(1, expected);
    assert_eq!(run.stdout.matches("error[").count(), 1, "{run}");
    run
}

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
        "phi-lint: clean; 1 file, 2 statements, no suppressions, 2 baselined; \
         0 reached by a crate, 1 unreached\n"
    );

    // (b) A new leak fails, and only it is named.
    tree.write("src/lib.rs", THREE_LEAKS);
    let run = check_one_error(
        &tree,
        &[],
        &[
            "--> src/lib.rs:10:33",
            "patient.diagnosis",
            "1 new finding, 2 baselined",
        ],
    );
    assert!(
        !run.stdout.contains("user.email") && !run.stdout.contains("patient.name"),
        "{run}"
    );

    // (c) A second identical leak in the same function is new: entries carry counts.
    tree.write("src/lib.rs", REPEATED_LEAK);
    check_one_error(
        &tree,
        &[],
        &[" --> src/lib.rs:7:29", "1 new finding, 2 baselined"],
    );
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
    check_one_error(
        &tree,
        &[],
        &[
            "error[phi::stale-baseline]: baseline entry grandfathers 1 finding but none remain",
            " --> phi-lint.baseline.json",
            "field `email`, function `register`, expr `user . email`",
            "0 new findings, 1 baselined, 1 stale baseline entry",
        ],
    );

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

    check_one_error(
        &tree,
        &["--baseline-ref", "HEAD"],
        &[
            "error[baseline-growth]: baseline entry grew from 0 to 1 since HEAD",
            "field `diagnosis`, function `admit`, expr `patient . diagnosis`",
            "1 grown baseline entry",
        ],
    );
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
