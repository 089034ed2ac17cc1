//! `--help` of every command, snapshotted, and `new`.

use super::cli;

#[test]
fn help() {
    for (name, args) in [
        ("help", vec!["--help"]),
        ("scan_help", vec!["scan", "--help"]),
        ("docker_help", vec!["docker", "--help"]),
        ("otlp_help", vec!["otlp", "--help"]),
        ("new_help", vec!["new", "--help"]),
    ] {
        let run = cli(&args).run();
        run.assert_out(0, &[]);
        insta::assert_snapshot!(name, run.stdout);
    }
}

#[test]
fn the_exit_codes_are_in_every_help() {
    for args in [
        vec!["--help"],
        vec!["scan", "--help"],
        vec!["docker", "--help"],
        vec!["otlp", "--help"],
    ] {
        let run = cli(&args).run();
        for code in [
            "  0  clean",
            "  1  leak",
            "  2  the logs",
            "  3  inconclusive",
        ] {
            assert!(run.stdout.contains(code), "{args:?} lacks {code:?}");
        }
    }
}

#[test]
fn new_prints_a_fresh_canary_in_the_safe_alphabet() {
    let a = cli(&["new"]).run();
    let b = cli(&["new"]).run();
    a.assert_out(0, &[]);
    let canary = a.stdout.strip_suffix('\n').expect("one line");
    let hex = canary.strip_prefix("PHI-CANARY-").expect("the prefix");
    assert_eq!(hex.len(), 32);
    assert!(
        hex.bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    );
    assert_ne!(a.stdout, b.stdout);
}
