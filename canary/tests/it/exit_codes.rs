//! The exit-code contract on fixture logs: 0 clean with every precondition proven, 1 a leak,
//! 2 unreadable logs or a usage error, 3 inconclusive. Stdout and stderr are checked together.

use std::io::Read;
use std::process::{Command, Stdio};

use super::{Dir, NONCE, cli, fixture};

/// Where the canary is in `leak.log` (and in the decompressed `rotated.log.gz`).
const LEAK_LINE: u64 = 4;
const LEAK_OFFSET: u64 = 497;

#[test]
fn exit_0_when_clean_and_both_markers_were_read() {
    let log = fixture("clean.log");
    let run = cli(&["scan", "--expect-marker", NONCE, &log]).run();
    run.assert_out(0, &[]);
    assert_eq!(
        run.stdout,
        "phi-canary: clean: no canary found; 1 source, 1 stream, 695 bytes, 6 lines; canaries \
         demo, core (all variants); markers proven on 1 of 1 streams\n",
        "{run}"
    );
}

#[test]
fn exit_0_without_markers_says_they_were_not_requested() {
    let run = cli(&["scan", &fixture("clean.log")]).run();
    run.assert_out(0, &[]);
    assert!(run.summary().ends_with("; markers not requested"), "{run}");
}

#[test]
fn exit_1_on_a_leak() {
    let log = fixture("leak.log");
    let run = cli(&["scan", "--expect-marker", NONCE, &log]).run();
    run.assert_out(1, &[]);
    assert!(
        run.stdout.starts_with(&format!(
            "error[leak]: canary `demo` found, variant `exact`\n \
             --> {log}:{LEAK_LINE} (stream file, byte {LEAK_OFFSET})\n"
        )),
        "{run}"
    );
    assert!(
        run.summary().starts_with("phi-canary: leak: 1 hit; "),
        "{run}"
    );
}

#[test]
fn exit_1_in_a_rotated_gzip_log_and_on_stdin() {
    let gz = fixture("rotated.log.gz");
    let run = cli(&["scan", "--format", "json", &gz]).run();
    run.assert_out(1, &[]);
    let hit = &run.json()["hits"][0];
    assert_eq!(
        (hit["line"].as_u64(), hit["offset"].as_u64()),
        (Some(LEAK_LINE), Some(LEAK_OFFSET))
    );

    let text = std::fs::read(fixture("leak.log")).expect("fixture");
    let run = cli(&["scan", "--format", "json", "-"]).stdin(text).run();
    run.assert_out(1, &[]);
    let hit = &run.json()["hits"][0];
    assert_eq!(hit["source"], "stdin");
    assert_eq!(hit["stream"], "stdin");
    assert_eq!(hit["offset"].as_u64(), Some(LEAK_OFFSET));
}

#[test]
fn exit_2_on_a_truncated_gzip_log() {
    let gz = fixture("truncated.log.gz");
    let run = cli(&["scan", "--expect-marker", NONCE, &gz]).run();
    run.assert_out(2, &[]);
    assert!(
        run.stdout
            .starts_with(&format!("error: {gz}: cannot read {gz} file: ")),
        "{run}"
    );
    assert!(
        run.summary().starts_with("phi-canary: unreadable: "),
        "{run}"
    );
}

#[test]
fn exit_2_on_a_missing_file_with_the_others_still_scanned() {
    let dir = Dir::new();
    let missing = dir.path().join("gone.log").to_string_lossy().into_owned();
    let run = cli(&["scan", "--format", "json", &fixture("clean.log"), &missing]).run();
    run.assert_out(2, &[]);
    let json = run.json();
    assert_eq!(json["verdict"], "unreadable");
    assert_eq!(json["sources"][0]["streams"][0]["bytes"], 695);
    let error = json["sources"][1]["error"].as_str().expect("an error");
    assert!(
        error.starts_with(&format!("cannot open {missing}: ")),
        "{error}"
    );
}

#[test]
fn exit_2_on_usage_errors() {
    let log = fixture("clean.log");
    for (args, needle) in [
        (vec!["scan"], "required arguments were not provided"),
        (
            vec!["scan", "--bogus", &log],
            "unexpected argument '--bogus'",
        ),
        (vec!["scan", "--format", "xml", &log], "invalid value 'xml'"),
        (
            vec!["scan", "--canary", "short", &log],
            "canary #1 is 5 bytes long",
        ),
        (
            vec!["scan", "--expect-marker", "a b", &log],
            "the marker nonce is 3 bytes long",
        ),
        (
            vec!["scan", "--expect-marker", "has space!", &log],
            "the marker nonce may hold only",
        ),
        (
            vec!["scan", "-", "-"],
            "standard input (`-`) can be scanned once",
        ),
        (
            vec!["scan", "docker:-t"],
            "`-t` is not a container name or id",
        ),
        (vec![], "Usage: phi-canary <COMMAND>"),
    ] {
        cli(&args).run().assert_err(2, &[needle]);
    }
}

#[test]
fn exit_3_when_the_end_marker_was_not_flushed() {
    let log = fixture("unflushed.log");
    let run = cli(&["scan", "--expect-marker", NONCE, &log]).run();
    run.assert_out(3, &[]);
    assert!(
        run.stdout.starts_with(&format!(
            "inconclusive: {log} (file): no `phiguard-marker end {NONCE}` line\n\nphi-canary: \
             inconclusive: no canary found;"
        )),
        "{run}"
    );
}

#[test]
fn exit_3_on_an_empty_source_or_a_wrong_nonce() {
    let run = cli(&["scan", "-"]).stdin("").run();
    run.assert_out(3, &[]);
    assert!(
        run.stdout
            .starts_with("inconclusive: stdin: no bytes were read\n"),
        "{run}"
    );
    // Markers from another run do not count.
    let run = cli(&[
        "scan",
        "--expect-marker",
        "fixture-0002",
        &fixture("clean.log"),
    ])
    .run();
    run.assert_out(3, &[]);
}

#[test]
fn markers_are_required_in_each_file_given() {
    let dir = Dir::new();
    let marked = format!("phiguard-marker start {NONCE}\nok\nphiguard-marker end {NONCE}\n");
    let out = dir.write("stdout.log", &marked);
    let err = dir.write("stderr.log", "only a warning\n");
    let run = cli(&["scan", "--expect-marker", NONCE, &out, &err]).run();
    run.assert_out(3, &[]);
    assert!(
        run.stdout
            .contains(&format!("{err} (file): no `phiguard-marker start")),
        "{run}"
    );
    let err = dir.write("stderr.log", &marked);
    cli(&["scan", "--expect-marker", NONCE, &out, &err])
        .run()
        .assert_out(0, &[]);
}

#[test]
fn per_run_canaries_replace_the_demo_one_unless_asked() {
    let canary = cli(&["new"]).run().stdout.trim_end().to_owned();
    let dir = Dir::new();
    let log = dir.write(
        "app.log",
        format!(
            "a {canary}\nb {}\n",
            phi_canary::canary::DEMO.to_uppercase()
        ),
    );
    let run = cli(&["scan", "--format", "json", "--canary", &canary, &log]).run();
    run.assert_out(1, &[]);
    let json = run.json();
    assert_eq!(json["hits_total"], 1);
    assert_eq!(
        json["hits"][0]["canary"],
        format!("run:{}", &canary[11..19])
    );
    assert!(
        !run.stdout.contains(&canary[19..]),
        "more of the canary than its id\n{run}"
    );

    let list = dir.write("canaries.txt", format!("{canary}\n"));
    let run = cli(&[
        "scan",
        "--format",
        "json",
        "--canary-file",
        &list,
        "--demo",
        &log,
    ])
    .run();
    assert_eq!(run.json()["hits_total"], 2, "{run}");
}

#[test]
fn output_file_gets_the_report_and_stderr_the_summary() {
    let dir = Dir::new();
    let report = dir
        .path()
        .join("report.sarif")
        .to_string_lossy()
        .into_owned();
    let log = fixture("leak.log");
    let run = cli(&["scan", "--format", "sarif", "--output", &report, &log]).run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""), "{run}");
    assert!(run.stderr.starts_with("phi-canary: leak: 1 hit; "), "{run}");
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "leak");

    let bad = dir
        .path()
        .join("no/such/dir/r.json")
        .to_string_lossy()
        .into_owned();
    cli(&["scan", "--output", &bad, &log])
        .run()
        .assert_err(2, &["cannot create "]);
}

#[test]
fn a_reader_that_goes_away_is_not_an_error() {
    let dir = Dir::new();
    let line = format!("x {}\n", phi_canary::canary::CORE);
    let log = dir.write("many.log", line.repeat(3000));
    let mut child = Command::new(env!("CARGO_BIN_EXE_phi-canary"))
        .args(["scan", "--demo", &log])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = [0u8; 16];
    child
        .stdout
        .take()
        .expect("piped")
        .read_exact(&mut first)
        .expect("some output");
    // stdout is now closed: further writes get EPIPE.
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
