//! `explain` and `--help`.

use phi_lint::Rule;

use super::Tree;

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
