//! The write side of the store: local days decided in the subject's zone, aggregation and
//! election, the rows that take no part in them, subjects and tokens on a file database.

use answers_protocol::Source;
use answers_store::{NewReading, Store};
use answers_vocab::CodeRef;

use crate::raw::FileStore;

const MOM: &str = "subj-mom";

fn store() -> FileStore {
    let s = FileStore::new();
    s.upsert_subject(MOM, "mom", "Asia/Shanghai").unwrap();
    s
}

fn reading(loinc: &str, value: f64, unit: &str, at: &str, source: Source) -> NewReading {
    let at = at.parse().unwrap();
    NewReading::measured(MOM, "r", CodeRef::loinc(loinc), value, unit, at, source)
}

fn strings(s: &FileStore, sql: &str) -> Vec<String> {
    let conn = s.raw();
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn aggregates(s: &FileStore) -> Vec<(String, String, f64, i64)> {
    let conn = s.raw();
    let mut stmt = conn
        .prepare("SELECT local_day, source, value, n FROM day_aggregate ORDER BY local_day, source")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_reading_at_2330_utc_lands_on_the_next_local_day_in_shanghai() {
    let mut s = store();
    let r = reading(
        "8867-4",
        60.0,
        "/min",
        "2026-09-01T23:30:00Z",
        Source::Watch,
    );
    s.upsert_readings(&[r]).unwrap();
    assert_eq!(strings(&s, "SELECT local_day FROM series"), ["2026-09-02"]);
    assert_eq!(
        strings(&s, "SELECT start_utc FROM series"),
        ["2026-09-01T23:30:00Z"]
    );
    assert_eq!(
        strings(&s, "SELECT local_day FROM day_elected"),
        ["2026-09-02"]
    );
}

#[test]
fn a_zone_change_applies_to_later_writes_only() {
    let mut s = store();
    let at = "2026-09-01T23:30:00Z";
    s.upsert_readings(&[reading("8867-4", 60.0, "/min", at, Source::Watch)])
        .unwrap();
    s.upsert_subject(MOM, "mom", "America/New_York").unwrap();
    s.upsert_readings(&[reading("8867-4", 61.0, "/min", at, Source::Ring)])
        .unwrap();
    let days = strings(&s, "SELECT local_day FROM series ORDER BY source");
    assert_eq!(
        days,
        ["2026-09-01", "2026-09-02"],
        "ring (new zone), watch (as written)"
    );
}

#[test]
fn counts_sum_and_rates_average_per_source_and_day() {
    let mut s = store();
    s.upsert_readings(&[
        reading(
            "41950-7",
            3000.0,
            "steps",
            "2026-09-01T02:00:00Z",
            Source::Watch,
        ),
        reading(
            "41950-7",
            4000.0,
            "steps",
            "2026-09-01T09:00:00Z",
            Source::Watch,
        ),
        reading("8867-4", 60.0, "bpm", "2026-09-01T02:00:00Z", Source::Watch),
        reading("8867-4", 70.0, "bpm", "2026-09-01T09:00:00Z", Source::Watch),
    ])
    .unwrap();
    let rows = aggregates(&s);
    let steps = rows.iter().find(|r| r.2 > 1000.0).unwrap();
    let hr = rows.iter().find(|r| r.2 < 1000.0).unwrap();
    assert_eq!((steps.2, steps.3), (7000.0, 2));
    assert_eq!((hr.2, hr.3), (65.0, 2));
    assert_eq!(
        strings(&s, "SELECT DISTINCT unit FROM day_elected ORDER BY unit"),
        ["/min", "{steps}"]
    );
}

#[test]
fn the_stated_priority_elects_one_source_per_day() {
    let mut s = store();
    s.upsert_readings(&[
        reading("29463-7", 80.0, "kg", "2026-09-01T00:00:00Z", Source::Watch),
        reading("29463-7", 81.0, "kg", "2026-09-01T01:00:00Z", Source::Scale),
        reading(
            "41950-7",
            5000.0,
            "steps",
            "2026-09-01T15:59:00Z",
            Source::Phone,
        ),
        reading(
            "41950-7",
            6000.0,
            "steps",
            "2026-09-01T15:59:00Z",
            Source::Ring,
        ),
    ])
    .unwrap();
    let elected = strings(
        &s,
        "SELECT code || ' ' || source FROM day_elected ORDER BY code",
    );
    assert_eq!(elected, ["29463-7 scale", "41950-7 ring"]);
    assert_eq!(aggregates(&s).len(), 4, "every device is aggregated");
}

#[test]
fn lab_manual_reported_and_legacy_rows_are_never_aggregated() {
    let mut s = store();
    let mut legacy = reading(
        "8867-4",
        60.0,
        "/min",
        "2026-09-01T02:00:00Z",
        Source::Watch,
    );
    legacy.legacy = true;
    let headache = NewReading::reported(
        MOM,
        "头疼",
        CodeRef::icpc("N01"),
        "2026-09-01T03:00:00Z".parse().unwrap(),
    );
    s.upsert_readings(&[
        reading(
            "14771-0",
            99.0,
            "mg/dL",
            "2026-09-01T01:15:00Z",
            Source::Lab,
        ),
        reading(
            "8480-6",
            130.0,
            "mmHg",
            "2026-09-01T00:30:00Z",
            Source::Manual,
        ),
        reading(
            "8480-6",
            126.0,
            "mmHg",
            "2026-09-01T13:30:00Z",
            Source::Manual,
        ),
        legacy,
        headache,
    ])
    .unwrap();
    assert!(aggregates(&s).is_empty());
    assert!(strings(&s, "SELECT local_day FROM day_elected").is_empty());
    assert_eq!(strings(&s, "SELECT COUNT(*) || '' FROM series"), ["5"]);
    assert_eq!(
        strings(&s, "SELECT kind FROM series WHERE system = 'icpc'"),
        ["reported"]
    );
}

#[test]
fn a_file_database_keeps_subjects_and_tokens_across_opens() {
    let dir = std::env::temp_dir().join(format!("answers-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("record.db");
    let _ = std::fs::remove_file(&path);
    let token = {
        let s = Store::open(&path).unwrap();
        s.upsert_subject(MOM, "mom", "Asia/Shanghai").unwrap();
        s.issue_token(MOM, None).unwrap()
    };
    let s = Store::open(&path).unwrap();
    let subject = s.subject_for_token(&token).unwrap().unwrap();
    assert_eq!(
        (subject.handle.as_str(), subject.tz_name()),
        ("mom", "Asia/Shanghai")
    );
    assert_eq!(s.subjects().unwrap(), [subject]);
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
