//! The summary answers what a scan of `series` answers, on random records written through the
//! store and changed behind its back.

use proptest::prelude::*;

use super::*;
use crate::NewReading;
use answers_db::{Arg, Args, Sql};
use answers_protocol::{LocalDate, Source, Window};

const ZONES: [&str; 4] = [
    "Europe/Berlin",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
    "UTC",
];
const CODES: [(CodeSystem, &str); 3] = [
    (CodeSystem::Loinc, "8867-4"),
    (CodeSystem::Loinc, "29463-7"),
    (CodeSystem::Icpc, "N01"),
];
const UNITS: [Option<&str>; 3] = [None, Some("kg"), Some("/min")];
const SOURCES: [Source; 3] = [Source::Watch, Source::Phone, Source::Manual];

/// One reading of the generated record: code, unit, source, hour since the first day, legacy.
type Row = (usize, usize, usize, i64, bool);

/// A change made behind the store's back, on the `n`-th row (by id, wrapping).
#[derive(Debug, Clone)]
enum Change {
    Delete(usize),
    Unit(usize, usize),
    Legacy(usize),
    Day(usize, i64),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        any::<usize>().prop_map(Change::Delete),
        (any::<usize>(), 0..UNITS.len()).prop_map(|(n, u)| Change::Unit(n, u)),
        any::<usize>().prop_map(Change::Legacy),
        (any::<usize>(), -1..=1_i64).prop_map(|(n, d)| Change::Day(n, d)),
    ]
}

fn reading(subject: &str, (c, u, s, hour, legacy): Row) -> NewReading {
    let (system, code) = CODES[c];
    let start = "2026-03-01T00:00:00Z"
        .parse::<jiff::Timestamp>()
        .unwrap()
        .checked_add(jiff::SignedDuration::from_hours(hour))
        .unwrap();
    let mut r = match system {
        CodeSystem::Loinc => NewReading::measured(
            subject,
            "name",
            CodeRef::new(system, code),
            60.0,
            "kg",
            start,
            SOURCES[s],
        ),
        CodeSystem::Icpc => {
            NewReading::reported(subject, "name", CodeRef::new(system, code), start)
        }
    };
    r.unit = UNITS[u].map(str::to_owned);
    r.legacy = legacy;
    r
}

fn apply(store: &Store, change: &Change) {
    let mut ids: Vec<i64> = Vec::new();
    store
        .db
        .each(
            "test",
            "SELECT id FROM series ORDER BY id",
            Args::Pos(&[]),
            |r| {
                ids.push(r.int(0, "test")?);
                Ok::<_, StoreError>(Flow::Continue)
            },
        )
        .unwrap();
    if ids.is_empty() {
        return;
    }
    let id = |n: &usize| Arg::Int(ids[n % ids.len()]);
    let op = "change behind the store's back";
    match change {
        Change::Delete(n) => store
            .db
            .exec(op, "DELETE FROM series WHERE id = ?1", &[id(n)]),
        Change::Unit(n, u) => store.db.exec(
            op,
            "UPDATE series SET unit = ?2 WHERE id = ?1",
            &[id(n), Arg::from(UNITS[*u])],
        ),
        Change::Legacy(n) => store.db.exec(
            op,
            "UPDATE series SET local_day = NULL WHERE id = ?1",
            &[id(n)],
        ),
        // A day a zone within ±14 h could also have given the reading.
        Change::Day(n, d) => store.db.exec(
            op,
            Sql::Each(
                "UPDATE series SET local_day = date(start_utc, ?2 || ' days') WHERE id = ?1",
                "UPDATE series SET local_day = to_char(CAST(substr(start_utc, 1, 10) AS date) \
                 + CAST(?2 AS INTEGER), 'YYYY-MM-DD') WHERE id = ?1",
            ),
            &[id(n), Arg::Int(*d)],
        ),
    }
    .unwrap();
}

fn scan(store: &Store, subject: &str, b: &Bounds) -> Vec<SeriesSummary> {
    let sqlite = scan_sql();
    let postgres = sqlite.replace(
        "max(s.local_day IS NULL)",
        "max(CASE WHEN s.local_day IS NULL THEN 1 ELSE 0 END)",
    );
    let mut out = Vec::new();
    store
        .db
        .each(
            "test",
            Sql::Each(&sqlite, &postgres),
            &[
                (":subject", Arg::from(subject)),
                (":utc_lo", Arg::from(b.utc_lo())),
                (":utc_hi", Arg::from(b.utc_hi())),
                (":day_lo", Arg::from(b.day_lo())),
                (":day_hi", Arg::from(b.day_hi())),
            ],
            |row| {
                out.push(summary(row)?);
                Ok::<_, StoreError>(Flow::Continue)
            },
        )
        .unwrap();
    out.sort();
    out
}

fn window(days: Option<(i64, i64)>) -> Window {
    let first = jiff::civil::date(2026, 3, 1);
    let day = |n: i64| -> LocalDate {
        first
            .checked_add(jiff::Span::new().days(n))
            .unwrap()
            .to_string()
            .parse()
            .unwrap()
    };
    match days {
        None => Window::ALL_RECORDED,
        Some((a, b)) => Window::between(Some(day(a.min(b))), Some(day(a.max(b)))).unwrap(),
    }
}

fn record() -> impl Strategy<Value = (usize, Vec<Row>, Vec<Change>)> {
    let row = (
        0..CODES.len(),
        0..UNITS.len(),
        0..SOURCES.len(),
        0..(10 * 24_i64),
        prop::bool::weighted(0.2),
    );
    (
        0..ZONES.len(),
        prop::collection::vec(row, 0..60),
        prop::collection::vec(change(), 0..8),
    )
}

/// Writes the generated record into `store`, changes it behind the store's back, and checks
/// the catalogue and each series' summary against a scan in every window.
fn summary_equals_scan(
    mut store: Store,
    (zone, rows, changes): &(usize, Vec<Row>, Vec<Change>),
    windows: &[Option<(i64, i64)>],
) -> Result<(), TestCaseError> {
    store.upsert_subject("s", "you", ZONES[*zone]).unwrap();
    store.upsert_subject("t", "them", "UTC").unwrap();
    // Two batches, so the second rewrites some rows of the first (same key, new unit or
    // day); the other subject's rows must not leak into the catalogue.
    let (a, b) = rows.split_at(rows.len() / 2);
    let batch = |rows: &[Row], s: &str| rows.iter().map(|r| reading(s, *r)).collect::<Vec<_>>();
    store.upsert_readings(&batch(a, "s")).unwrap();
    store.upsert_readings(&batch(a, "t")).unwrap();
    store.upsert_readings(&batch(b, "s")).unwrap();
    for c in changes {
        apply(&store, c);
    }
    for w in windows {
        let bounds = Bounds::of(&window(*w));
        let mut got = store.catalogue("s", &bounds).unwrap();
        got.sort();
        prop_assert_eq!(&got, &scan(&store, "s", &bounds));
        for (system, code) in CODES {
            let code = CodeRef::new(system, code);
            let mut one = store.series_of("s", &code, &bounds).unwrap();
            one.sort();
            let want: Vec<_> = got.iter().filter(|s| s.code == code).cloned().collect();
            prop_assert_eq!(one, want);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_summary_equals_a_scan(
        record in record(),
        windows in prop::collection::vec(prop::option::of((-2..12_i64, -2..12_i64)), 1..6),
    ) {
        summary_equals_scan(Store::open_in_memory().unwrap(), &record, &windows)?;
    }
}

proptest! {
    // Fewer cases: each is a database of its own on the test cluster.
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn the_summary_equals_a_scan_on_postgres(
        record in record(),
        windows in prop::collection::vec(prop::option::of((-2..12_i64, -2..12_i64)), 1..6),
    ) {
        if let Some(db) = crate::test_support::TestDatabase::create() {
            use crate::test_support::OpenStore as _;
            summary_equals_scan(db.open(), &record, &windows)?;
        }
    }
}

#[test]
fn a_record_written_before_the_summary_is_summarised_by_the_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("record.db");
    let mut store = Store::open(&path).unwrap();
    store.upsert_subject("s", "you", "Europe/Berlin").unwrap();
    let rows: Vec<NewReading> = (0..30)
        .map(|h| {
            reading(
                "s",
                (h % 3, h % 2, 0, i64::try_from(h).unwrap() * 7, h % 5 == 0),
            )
        })
        .collect();
    store.upsert_readings(&rows).unwrap();
    let bounds = Bounds::of(&Window::ALL_RECORDED);
    let before = scan(&store, "s", &bounds);
    assert!(before.len() > 2, "{before:?}");
    // Back to version 4, summary gone; migrating again rebuilds it from the rows.
    store
        .conn()
        .execute_batch(
            "DROP TRIGGER series_day_insert; DROP TRIGGER series_day_delete;
             DROP TRIGGER series_day_update; DROP TABLE series_day; PRAGMA user_version = 4;",
        )
        .unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    let mut got = store.catalogue("s", &bounds).unwrap();
    got.sort();
    assert_eq!(got, before);
}
