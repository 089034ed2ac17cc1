//! The command line's refusals, through the `answers` binary (phi-testkit's `Cmd`/`Run`): what
//! it says, on which stream, with which exit code.

use std::os::unix::fs::PermissionsExt;

use phi_testkit::{Cmd, Run};

use crate::e2e::{BIN, s, seeded, subject_argv};

fn answers(args: &[&str]) -> Run {
    Cmd::new(BIN, args)
        .env_remove("ANSWERS_TOKENS")
        .env_remove("ANSWERS_TOKENS_FILE")
        .run()
}

/// Every command that opens a store, over `db`.
fn store_commands(db: &str) -> Vec<Vec<&str>> {
    vec![
        subject_argv("query", db, "you", &["query_health_indicators"]),
        vec!["token", "issue", "--db", db, "--subject", "you"],
        vec!["canary-present", "--db", db],
        subject_argv("import-genotypes", db, "mom", &["/dev/null"]),
        vec!["serve", "--db", db, "--listen", "127.0.0.1:0"],
    ]
}

/// Runs one of [`store_commands`] with a canary set and no tokens in the environment, so what
/// stops it is the store it is pointed at.
fn store_command(args: &[&str]) -> Run {
    Cmd::new(BIN, args)
        .env("PHIGUARD_CANARY", "x")
        .env_remove("ANSWERS_TOKENS")
        .env_remove("ANSWERS_TOKENS_FILE")
        .run()
}

#[test]
fn a_shared_database_is_refused_naming_its_mode_and_the_flag() {
    let r = seeded();
    std::fs::set_permissions(&r.db, PermissionsExt::from_mode(0o644)).unwrap();
    for args in store_commands(s(&r.db)) {
        let run = store_command(&args);
        run.assert_code(2);
        assert!(run.stderr.contains("0644"), "{args:?}: {run}");
        assert!(
            run.stderr.contains("--allow-shared-permissions"),
            "{args:?}: {run}"
        );
    }
    let mode = std::fs::metadata(&r.db).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "a refused file is left as it was");

    // With the flag, anywhere on the line, the command runs and the modes stay.
    answers(&[
        "--allow-shared-permissions",
        "query",
        "--db",
        s(&r.db),
        "--subject",
        "you",
        "query_health_indicators",
    ])
    .assert_code(0);
    let run = answers(&[
        "token",
        "issue",
        "--db",
        s(&r.db),
        "--subject",
        "you",
        "--allow-shared-permissions",
    ]);
    run.assert_code(0);
    assert!(run.stdout.starts_with("phg_"), "{run}");
    let mode = std::fs::metadata(&r.db).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
}

#[test]
fn every_command_but_seed_refuses_a_missing_database() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.db");
    for args in store_commands(s(&missing)) {
        let run = store_command(&args);
        run.assert_code(2);
        assert!(run.stderr.contains("no database at"), "{args:?}: {run}");
        assert!(run.stderr.contains("answers seed"), "{args:?}: {run}");
        assert!(!missing.exists(), "{args:?} created the database");
    }
    answers(&["seed", "--db", s(&missing), "--demo"]).assert_code(0);
    assert!(missing.is_file(), "seed creates the database");
}

#[test]
fn the_tokens_file_is_never_written_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("record.db");
    let elsewhere = dir.path().join("someone-elses-file");
    std::fs::write(&elsewhere, "untouched\n").unwrap();
    let link = dir.path().join("tokens");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let run = answers(&["seed", "--db", s(&db), "--demo", "--tokens-file", s(&link)]);
    run.assert_code(2);
    assert!(run.stderr.contains("cannot write"), "{run}");
    assert!(
        !run.stdout.contains("phg_") && !run.stderr.contains("phg_"),
        "{run}"
    );
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "untouched\n");
}

#[test]
fn a_token_of_little_entropy_is_refused_by_its_line_never_shown() {
    let r = seeded();
    let weak = "A".repeat(40);
    let run = Cmd::new(BIN, &["serve", "--db", s(&r.db), "--listen", "127.0.0.1:0"])
        .env_remove("ANSWERS_TOKENS_FILE")
        .env("ANSWERS_TOKENS", format!("# deploy\n\nmom={weak}\n"))
        .run();
    run.assert_code(2);
    assert!(run.stderr.contains("tokens line 3"), "{run}");
    assert!(run.stderr.contains("entropy"), "{run}");
    assert!(
        !run.stdout.contains("AAAAAAAA") && !run.stderr.contains("AAAAAAAA"),
        "the token is never shown: {run}"
    );
}

#[test]
fn a_token_whose_expiry_is_not_a_date_authenticates_nobody() {
    let r = seeded();
    let run = answers(&["token", "issue", "--db", s(&r.db), "--subject", "you"]);
    run.assert_code(0);
    let token = run.stdout.trim().to_owned();
    let conn = rusqlite::Connection::open(&r.db).unwrap();
    // Every token of the record, the seeded ones too: `not-a-date` sorts after every date.
    conn.execute("UPDATE token SET expires_utc = 'not-a-date'", [])
        .unwrap();
    drop(conn);
    let server = crate::e2e::Server::start(&r.db);
    let (status, _) = server.get("/api/v1/health-indicators", Some(&token));
    assert_eq!(status, 401, "an expiry that is not a date is refused");
    server.stop();
}

#[test]
fn a_failed_command_whose_stdout_is_its_product_logs_to_stderr_only() {
    let r = seeded();
    let db = s(&r.db);
    for args in [
        vec!["token", "issue", "--db", db, "--subject", "nobody"],
        subject_argv("query", db, "nobody", &["query_health_indicators"]),
        subject_argv("query", db, "you", &["no_such_tool"]),
        vec!["canary-present", "--db", db],
    ] {
        // `assert_err`: nothing on stdout, so `T=$(answers token issue …)` captures nothing.
        let run = Cmd::new(BIN, &args).env_remove("PHIGUARD_CANARY").run();
        run.assert_err(2, &["command failed"]);
    }
    // A successful issue prints the token alone: one line, no log line before or after.
    let run = answers(&["token", "issue", "--db", db, "--subject", "you"]);
    run.assert_code(0);
    assert_eq!(run.stdout.lines().count(), 1, "{run}");
    assert!(run.stdout.starts_with("phg_"), "{run}");
}

#[test]
fn a_keyword_past_the_bound_is_refused_naming_it_on_the_cli_and_over_rest() {
    let r = seeded();
    let keyword = "x".repeat(50_000);
    let args = serde_json::json!({"keywords": [keyword], "view": "stats"}).to_string();
    let run = answers(&subject_argv(
        "query",
        s(&r.db),
        "you",
        &["query_health_indicators", &args],
    ));
    run.assert_code(1);
    assert!(run.stdout.contains("invalid_arguments"), "{run}");
    assert!(run.stdout.contains("keywords"), "{run}");
    let bound = answers_protocol::args::TEXT_MAX.to_string();
    assert!(run.stdout.contains(&bound), "the bound is named: {run}");
    assert!(!run.stdout.contains("store_fault"), "{run}");

    let server = crate::e2e::Server::start(&r.db);
    let you = crate::e2e::token(&r, "you");
    let (status, refused) = server.get(
        &format!("/api/v1/health-indicators?keywords={keyword}&view=stats"),
        Some(&you),
    );
    assert_eq!(status, 400, "{refused}");
    let text = refused.to_string();
    assert!(text.contains("invalid_arguments"), "{text}");
    assert!(text.contains(&bound), "{text}");
    server.stop();
}

#[test]
fn serve_creates_a_missing_database_only_with_create() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    let refused = answers(&["serve", "--db", s(&db), "--listen", "127.0.0.1:0"]);
    refused.assert_code(2);
    assert!(refused.stderr.contains("no database at"), "{refused}");
    assert!(!db.exists(), "refused without --create");

    let spawn = phi_testkit::Spawn::serve(std::path::Path::new(BIN), &db).arg("--create");
    let service = phi_testkit::Service::start(&spawn, dir.path()).expect("serve --create listens");
    assert!(db.is_file(), "serve --create made the database");
    let mode = std::fs::metadata(&db).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "a new record is private");
    let stopped = service.stop().expect("stop");
    assert!(stopped.clean, "{}", stopped.how);
    assert!(
        stopped.stdout.contains("\"subject_count\":0"),
        "{}",
        stopped.stdout
    );
}

#[test]
fn the_terminology_tools_take_the_originals_shapes_from_the_cli() {
    let r = seeded();
    let query =
        |tool: &str, args: &str| answers(&subject_argv("query", s(&r.db), "you", &[tool, args]));
    let run = query(
        "normalize_unit",
        r#"{"units": ["mg/dl", "次/分", "毫摩尔每升"]}"#,
    );
    run.assert_code(0);
    for row in [
        "0 | mg/dl | mg/dL",
        "1 | 次/分 | /min",
        "2 | 毫摩尔每升 | mmol/L",
    ] {
        assert!(run.stdout.contains(row), "{row}: {run}");
    }
    let run = query("resolve_indicator", r#"{"names": ["HbA1c", "心率"]}"#);
    run.assert_code(0);
    assert!(
        run.stdout.contains("4548-4") && run.stdout.contains("8867-4"),
        "{run}"
    );
    let run = query(
        "convert_unit",
        r#"{"value": 100, "from_unit": "mg/dL", "to_unit": "mmol/L", "loinc_code": "2345-7"}"#,
    );
    run.assert_code(0);
    assert!(run.stdout.contains("5.551"), "{run}");
    let run = query("normalize_unit", r#"{"units": ["mg/dl", "furlongs"]}"#);
    run.assert_code(1);
    assert!(
        run.stdout
            .starts_with("error (invalid_arguments): units.1: not a unit"),
        "{run}"
    );
}
