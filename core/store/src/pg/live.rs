//! The store's reads on `PostgreSQL` against a live server: a read through a portal, longer
//! than a fetch (the connection layer's own live tests are `answers-db`'s `pg/live.rs`).

use crate::StoreError;
use crate::test_support::{OpenStore as _, TestDatabase};

#[test]
fn a_read_longer_than_a_fetch_is_read_whole_or_stopped_early_and_may_not_reenter() {
    use crate::{Bounds, Flow, NewReading};
    use answers_protocol::{Source, Window};
    use answers_vocab::CodeRef;

    let Some(db) = TestDatabase::create() else {
        return;
    };
    let mut store = db.open();
    store.upsert_subject("s", "you", "UTC").unwrap();
    let hr = CodeRef::loinc("8867-4");
    let first: jiff::Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
    let rows: Vec<NewReading> = (0..2500)
        .map(|i| {
            let at = first
                .checked_add(jiff::SignedDuration::from_mins(i))
                .unwrap();
            #[expect(clippy::cast_precision_loss, reason = "small integers")]
            let value = 60.0 + (i % 40) as f64;
            NewReading::measured("s", "hr", hr.clone(), value, "/min", at, Source::Watch)
        })
        .collect();
    store.upsert_readings(&rows).unwrap();
    let all = Bounds::of(&Window::ALL_RECORDED);
    let mut seen = Vec::new();
    store
        .visit_newest_first("s", &hr, &all, None, |r| {
            seen.push(r.start_utc.to_owned());
            Ok::<_, StoreError>(Flow::Continue)
        })
        .unwrap();
    assert_eq!(seen.len(), 2500);
    assert!(seen.windows(2).all(|w| w[0] > w[1]), "newest first");
    let mut n = 0;
    store
        .visit_newest_first("s", &hr, &all, None, |_| {
            n += 1;
            Ok::<_, StoreError>(if n == 1500 {
                Flow::Stop
            } else {
                Flow::Continue
            })
        })
        .unwrap();
    assert_eq!(n, 1500);
    // The store is usable after a stopped read, and a visitor that calls it during a read
    // through the portal (no limit) is refused.
    assert_eq!(store.subjects().unwrap().len(), 1);
    let err = store
        .visit_newest_first("s", &hr, &all, None, |_| {
            store.subjects()?;
            Ok::<_, StoreError>(Flow::Continue)
        })
        .unwrap_err();
    assert!(err.to_string().contains("connection_in_use"), "{err}");
    assert_eq!(store.subjects().unwrap().len(), 1);
}

#[test]
fn the_records_schema_migrates_once_under_racing_opens_to_every_version() {
    use crate::{SCHEMA, SCHEMA_VERSION, Store};
    use answers_db::{OpenOptions, PgOptions};

    // Every version has its step on both backends: a shorter list would stop short silently.
    let versions = usize::try_from(SCHEMA_VERSION).unwrap();
    assert_eq!(SCHEMA.sqlite.len(), versions);
    assert_eq!(SCHEMA.postgres.len(), versions);
    let Some(db) = TestDatabase::create() else {
        return;
    };
    // Two first opens of the record's own schema at once: one migrates, the other waits.
    let versions = db.race_first_opens(|l| {
        Store::open_location(l, OpenOptions::default(), &PgOptions::default())
            .map(|s| s.schema_version())
    });
    for v in versions {
        assert_eq!(v.unwrap().unwrap(), SCHEMA_VERSION);
    }
    let store = db.open();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    // Opened again, nothing migrates twice: the store still reads and writes.
    let again = db.open();
    again.upsert_subject("s", "you", "UTC").unwrap();
}
