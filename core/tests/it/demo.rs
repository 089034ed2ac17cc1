//! The demo record: deterministic, idempotent, with election, aggregation, a legacy row, the
//! canary where it belongs, and local days decided in each subject's zone.

use std::sync::OnceLock;

use answers_demo::{self as demo, PHI_CANARY, SeedOptions};
use answers_store::Store;
use answers_vocab::Vocabulary;
use rusqlite::types::Value;

use crate::raw::FileStore;

/// A store seeded with the default options, on a file the checks read from outside.
fn seeded() -> FileStore {
    let mut s = FileStore::new();
    demo::seed(&mut s.store, &SeedOptions::default()).unwrap();
    s
}

/// The seeded demo, shared by the read-only tests (seeding is the slow part).
fn shared() -> &'static std::sync::Mutex<FileStore> {
    static STORE: OnceLock<std::sync::Mutex<FileStore>> = OnceLock::new();
    STORE.get_or_init(|| std::sync::Mutex::new(seeded()))
}

fn rows(s: &FileStore, sql: &str) -> Vec<Vec<Value>> {
    let conn = s.raw();
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn one<T: rusqlite::types::FromSql>(s: &FileStore, sql: &str) -> T {
    s.raw().query_row(sql, [], |r| r.get(0)).unwrap()
}

const ALL_SERIES: &str = "SELECT subject_id, kind, name, system, code, value_num, value_text, unit,
    start_utc, end_utc, local_day, source, comment FROM series
    ORDER BY subject_id, system, code, source, start_utc";

#[test]
fn seeding_is_deterministic() {
    let mut a = FileStore::new();
    let report = demo::seed(&mut a.store, &SeedOptions::default()).unwrap();
    let b = seeded();
    assert_eq!(rows(&a, ALL_SERIES), rows(&b, ALL_SERIES));
    for table in ["day_aggregate", "day_elected"] {
        let sql = format!("SELECT * FROM {table} ORDER BY subject_id, system, code, local_day");
        assert_eq!(rows(&a, &sql), rows(&b, &sql), "{table}");
    }
    assert!(rows(&a, ALL_SERIES).len() > 3000);
    let mom = &report.accounts[1];
    assert!(mom.subject_id.starts_with("subj-mom-"), "opaque, stable id");
    assert_eq!(mom.reported, 2);
}

#[test]
fn a_replay_upserts_the_same_rows() {
    let mut s = FileStore::new();
    let first = demo::seed(&mut s.store, &SeedOptions::default()).unwrap();
    let count = |s: &FileStore| -> Vec<i64> {
        ["series", "day_aggregate", "day_elected", "subject"]
            .iter()
            .map(|t| one(s, &format!("SELECT COUNT(*) FROM {t}")))
            .collect()
    };
    let before = (count(&s), rows(&s, ALL_SERIES));
    let second = demo::seed(&mut s.store, &SeedOptions::default()).unwrap();
    assert_eq!(first, second);
    assert_eq!((count(&s), rows(&s, ALL_SERIES)), before);
    assert_eq!(usize::try_from(before.0[0]).unwrap(), first.total());
}

#[test]
fn a_watch_and_phone_day_elects_the_watch_once() {
    let s = shared().lock().unwrap();
    let both_days: i64 = one(
        &s,
        "SELECT COUNT(*) FROM (SELECT subject_id, local_day FROM day_aggregate
         WHERE code = '41950-7' GROUP BY subject_id, local_day HAVING COUNT(*) = 2)",
    );
    assert_eq!(
        both_days,
        2 * 19,
        "21 phone days per account, the watch off on two"
    );
    let elected = rows(
        &s,
        "SELECT e.source, COUNT(*) FROM day_elected e
         WHERE e.code = '41950-7' AND e.local_day = '2026-09-10' GROUP BY e.source",
    );
    assert_eq!(
        elected,
        [vec![Value::Text("watch".into()), Value::Integer(2)]]
    );
    let watch_off: Vec<String> = rows(
        &s,
        "SELECT source FROM day_elected WHERE code = '41950-7' AND local_day = '2026-09-05'",
    )
    .into_iter()
    .map(|r| match &r[0] {
        Value::Text(t) => t.clone(),
        other => panic!("{other:?}"),
    })
    .collect();
    assert_eq!(
        watch_off,
        ["phone", "phone"],
        "no watch that day: the phone is elected"
    );
}

#[test]
fn intraday_heart_rate_is_averaged_into_one_aggregate_per_source() {
    let s = shared().lock().unwrap();
    let per_day = rows(
        &s,
        "SELECT a.subject_id, a.source, a.n, a.value - (SELECT AVG(value_num) FROM series r
            WHERE r.subject_id = a.subject_id AND r.code = a.code AND r.local_day = a.local_day)
         FROM day_aggregate a WHERE a.code = '8867-4' AND a.local_day = '2026-09-13'",
    );
    assert_eq!(per_day.len(), 2, "one row per account, the watch");
    for row in per_day {
        assert_eq!(row[1], Value::Text("watch".into()));
        assert_eq!(row[2], Value::Integer(288));
        assert!(matches!(row[3], Value::Real(d) if d.abs() < 1e-9));
    }
}

#[test]
fn the_legacy_row_has_no_local_day_and_no_authority() {
    let s = shared().lock().unwrap();
    let legacy = rows(
        &s,
        "SELECT code, source FROM series WHERE local_day IS NULL",
    );
    assert_eq!(
        legacy,
        [vec![
            Value::Text("8310-5".into()),
            Value::Text("manual".into())
        ]]
    );
    let n: i64 = one(
        &s,
        "SELECT COUNT(*) FROM day_aggregate WHERE code = '8310-5'",
    );
    assert_eq!(n, 0);
}

#[test]
fn the_canary_is_exactly_on_each_accounts_last_lab_reading() {
    let s = shared().lock().unwrap();
    assert!(s.store.comment_contains(PHI_CANARY).unwrap());
    for subject in s.store.subjects().unwrap() {
        let last: Option<String> = s
            .raw()
            .query_row(
                "SELECT comment FROM series WHERE subject_id = ?1 AND source = 'lab'
                 ORDER BY start_utc DESC, id DESC LIMIT 1",
                [&subject.id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(last.as_deref(), Some(PHI_CANARY), "{}", subject.handle);
    }
    let carrying: i64 = one(
        &s,
        &format!("SELECT COUNT(*) FROM series WHERE instr(comment, '{PHI_CANARY}') > 0"),
    );
    assert_eq!(carrying, 2, "nowhere else");
    let other_comments: i64 = one(&s, "SELECT COUNT(*) FROM series WHERE comment IS NOT NULL");
    assert!(
        other_comments > carrying,
        "other comments exist and do not match"
    );
}

#[test]
fn a_per_run_canary_is_seeded_instead_or_as_well() {
    for demo_canary in [false, true] {
        let mut s = Store::open_in_memory().unwrap();
        let opts = SeedOptions {
            demo_canary,
            extra_canary: Some("run-7 PHI-CANARY-0c1d".into()),
        };
        demo::seed(&mut s, &opts).unwrap();
        assert!(s.comment_contains("run-7 PHI-CANARY-0c1d").unwrap());
        assert_eq!(s.comment_contains(PHI_CANARY).unwrap(), demo_canary);
    }
}

#[test]
fn mom_has_sleep_and_you_do_not() {
    let s = shared().lock().unwrap();
    let sleepers = rows(
        &s,
        "SELECT s.handle, COUNT(*) FROM series r JOIN subject s ON s.id = r.subject_id
         WHERE r.code = '93832-4' GROUP BY s.handle",
    );
    assert_eq!(
        sleepers,
        [vec![Value::Text("mom".into()), Value::Integer(365)]]
    );
}

#[test]
fn local_days_are_decided_in_each_subjects_zone() {
    let s = shared().lock().unwrap();
    let conn = s.raw();
    for subject in s.store.subjects().unwrap() {
        let mut stmt = conn
            .prepare("SELECT start_utc, local_day FROM series WHERE subject_id = ?1 AND local_day IS NOT NULL")
            .unwrap();
        let pairs: Vec<(String, String)> = stmt
            .query_map([&subject.id], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(pairs.len() > 1000);
        for (start, day) in pairs {
            let at: jiff::Timestamp = start.parse().unwrap();
            assert_eq!(
                subject.local_date(at).to_string(),
                day,
                "{}",
                subject.handle
            );
        }
    }
    // Steps at 23:59 in Shanghai are 15:59 UTC, on the same local day.
    let mom_steps: String = one(
        &s,
        "SELECT start_utc FROM series WHERE code = '41950-7' AND source = 'watch'
         AND local_day = '2026-09-14' AND subject_id LIKE 'subj-mom-%'",
    );
    assert_eq!(mom_steps, "2026-09-14T15:59:00Z");
}

#[test]
fn the_lab_panel_prints_mg_dl_where_the_vocabulary_says_mmol_l() {
    let s = shared().lock().unwrap();
    let vocab = Vocabulary::bundled();
    let panel = rows(
        &s,
        "SELECT r.name, r.code, r.unit, r.local_day FROM series r JOIN subject s ON s.id = r.subject_id
         WHERE r.source = 'lab' AND s.handle = 'you' ORDER BY r.id",
    );
    let names: Vec<&Value> = panel.iter().map(|r| &r[0]).collect();
    assert_eq!(names[0], &Value::Text("Glycated Hemoglobin-HbA1c".into()));
    let mut mismatched = 0;
    for row in &panel {
        let (Value::Text(code), Value::Text(unit)) = (&row[1], &row[2]) else {
            panic!("{row:?}");
        };
        assert_eq!(row[3], Value::Text("2025-11-12".into()));
        let canonical = vocab.canonical_unit(&answers_vocab::CodeRef::loinc(code));
        if unit == "mg/dL" && canonical == Some("mmol/L") {
            assert!(vocab.molar_mass(code).is_some());
            mismatched += 1;
        }
    }
    assert_eq!(mismatched, 2, "glucose and cholesterol");
}

#[test]
fn headache_reaches_the_symptom_typed_as_toutong() {
    let s = shared().lock().unwrap();
    let code = &Vocabulary::bundled().resolve("headache")[0];
    let names = rows(
        &s,
        &format!(
            "SELECT name, kind FROM series WHERE system = '{}' AND code = '{}' ORDER BY name",
            code.system.as_str(),
            code.code
        ),
    );
    assert!(names.contains(&vec![
        Value::Text("头疼".into()),
        Value::Text("reported".into())
    ]));
    assert!(names.len() >= 2, "recorded under two names, one code");
}

#[test]
fn typed_in_blood_pressure_keeps_both_readings_of_the_day() {
    let s = shared().lock().unwrap();
    let n: i64 = one(
        &s,
        "SELECT COUNT(*) FROM series WHERE code = '8480-6' AND local_day = '2026-09-10' AND source = 'manual'",
    );
    assert_eq!(n, 2);
    let elected: i64 = one(
        &s,
        "SELECT COUNT(*) FROM day_elected WHERE code = '8480-6' AND local_day = '2026-09-10'",
    );
    assert_eq!(elected, 0, "nothing elected: every reading counts");
}
