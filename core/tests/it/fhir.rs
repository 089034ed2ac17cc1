//! `answers import-fhir`: the summary on stdout, a log line of counts only, the same answer on
//! a re-import, and a bad resource refused by position and rule with nothing quoted.

use phi_testkit::{Cmd, Run};

use crate::e2e::{BIN, s, seeded, subject_argv};

const CANARY: &str = "self-tracked PHI-CANARY-3f9a";

fn answers(args: &[&str]) -> Run {
    Cmd::new(BIN, args)
        .env_remove("ANSWERS_TOKENS")
        .env_remove("ANSWERS_TOKENS_FILE")
        .env_remove("PHIGUARD_CANARY")
        .run()
}

/// A synthetic export: a watch's heart rate with a note, a weight in an unknown unit, a
/// patient.
/// `subject`'s raw heart rate readings (LOINC 8867-4) on 2026-09-01, the exports' day.
fn heart_rate_on_september_1(db: &std::path::Path, subject: &str) -> Run {
    answers(&subject_argv(
        "query",
        s(db),
        subject,
        &[
            "query_health_indicators",
            r#"{"indicators":["8867-4"],"view":"raw","start":"2026-09-01","end":"2026-09-01"}"#,
        ],
    ))
}

fn export(heart_rate: &str) -> String {
    let hr = format!(
        r#"{{"resourceType":"Observation","status":"final","code":{{"coding":[{{"system":"http://loinc.org","code":"8867-4"}}]}},"subject":{{"reference":"Patient/p1"}},"effectiveDateTime":"2026-09-01T07:00:00Z","device":{{"display":"watch"}},"valueQuantity":{{"value":{heart_rate},"system":"http://unitsofmeasure.org","code":"/min"}},"note":[{{"text":"{CANARY}"}}]}}"#
    );
    let odd = r#"{"resourceType":"Observation","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"29463-7"}]},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2026-09-01T07:00:00Z","valueQuantity":{"value":11,"unit":"stone"}}"#;
    let patient = r#"{"resourceType":"Patient","id":"p1"}"#;
    format!("{patient}\n{hr}\n{odd}\n")
}

#[test]
fn an_export_is_imported_counted_and_imported_again_unchanged() {
    let r = seeded();
    let file = r.db.with_file_name("export.ndjson");
    std::fs::write(&file, export("61")).unwrap();
    let args = subject_argv("import-fhir", s(&r.db), "you", &[s(&file)]);
    let first = answers(&args);
    first.assert_code(0);
    assert_eq!(
        first.stdout,
        "resources 3\nreadings 1\njournal 0\nplans 0\ndoses 0\n\
         skipped resource_type 1\nskipped unknown_unit 1\n",
        "{first}"
    );
    // The log line carries the counts and nothing of the record.
    for want in [
        "fhir record imported",
        "\"reading_count\":1",
        "\"skipped_count\":2",
    ] {
        assert!(first.stderr.contains(want), "{want}: {first}");
    }
    for secret in [CANARY, "PHI-CANARY", "stone", "8867-4"] {
        assert!(!format!("{first}").contains(secret), "{secret}: {first}");
    }
    let again = answers(&args);
    again.assert_code(0);
    assert_eq!(again.stdout, first.stdout);
    // The note is in the record (as a comment), and never in an answer.
    let present = Cmd::new(BIN, &["canary-present", "--db", s(&r.db)])
        .env("PHIGUARD_CANARY", CANARY)
        .run();
    present.assert_out(0, &["present"]);
    let answer = heart_rate_on_september_1(&r.db, "you");
    answer.assert_code(0);
    assert!(answer.stdout.contains("61"), "{answer}");
    assert!(!format!("{answer}").contains("PHI-CANARY"), "{answer}");
}

#[test]
fn a_bad_resource_is_refused_by_line_and_rule_without_its_value() {
    let r = seeded();
    let file = r.db.with_file_name("bad.ndjson");
    std::fs::write(&file, export("\"sixty-one PHI\"")).unwrap();
    let run = answers(&subject_argv("import-fhir", s(&r.db), "you", &[s(&file)]));
    run.assert_err(
        2,
        &["line 2 (Observation): `valueQuantity.value` is not a number"],
    );
    assert!(run.stdout.is_empty(), "{run}");
    assert!(!format!("{run}").contains("sixty-one"), "{run}");
    let unknown = answers(&[
        "import-fhir",
        "--db",
        s(&r.db),
        "--subject",
        "nobody",
        s(&file),
    ]);
    unknown.assert_err(
        2,
        &[
            "no subject with that handle: to create it, give the zone its days are counted in, \
           as `answers import-fhir --subject HANDLE --time-zone ZONE FILE`",
        ],
    );
    // A refused file creates no subject, even with a zone given.
    let refused = answers(&[
        "import-fhir",
        "--db",
        s(&r.db),
        "--subject",
        "nobody",
        "--time-zone",
        "Europe/Berlin",
        s(&file),
    ]);
    refused.assert_err(2, &["line 2 (Observation)"]);
    let query = answers(&subject_argv(
        "query",
        s(&r.db),
        "nobody",
        &["query_health_indicators"],
    ));
    query.assert_err(2, &["no subject `nobody`"]);
}

#[test]
fn a_new_subject_is_created_with_the_zone_given_once_the_file_imports() {
    let r = seeded();
    let file = r.db.with_file_name("export.ndjson");
    std::fs::write(&file, export("61")).unwrap();
    let import = |zone: &str| {
        answers(&[
            "import-fhir",
            "--db",
            s(&r.db),
            "--subject",
            "dad",
            "--time-zone",
            zone,
            s(&file),
        ])
    };
    let bad_zone = import("Mars/Olympus");
    assert_eq!(bad_zone.code, 2, "{bad_zone}");
    let first = import("Asia/Tokyo");
    first.assert_code(0);
    assert!(
        first.stdout.starts_with("resources 3\nreadings 1\n"),
        "{first}"
    );
    // 07:00 UTC is 16:00 in Tokyo: the subject's days are counted in the zone given.
    let answer = heart_rate_on_september_1(&r.db, "dad");
    answer.assert_code(0);
    assert!(answer.stdout.contains("16:00"), "{answer}");
    // Again: the subject exists, the zone agrees, nothing changes.
    let again = import("asia/tokyo");
    again.assert_code(0);
    assert_eq!(again.stdout, first.stdout);
    // A zone that disagrees with the subject's is refused, not applied.
    import("Europe/Berlin").assert_err(2, &["the subject exists with another time zone"]);
}
