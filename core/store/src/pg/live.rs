//! The `PostgreSQL` backend against a live server: migrations, refusals, errors that keep
//! their kind, passwords, and a connection that dies.

use std::time::Duration;

use crate::db::Args;
use crate::test_support::{PASSWORD, TestDatabase};
use crate::{Backend, Location, OpenOptions, PgOptions, SCHEMA_VERSION, Store, StoreError};

#[test]
fn migrations_are_idempotent_and_versioned_in_a_table() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    // Two first opens at once: one migrates, the other waits and finds the schema done.
    let racers: Vec<_> = (0..2)
        .map(|_| {
            let location = db.location().clone();
            std::thread::spawn(move || {
                Store::open_location(&location, OpenOptions::default(), &PgOptions::default())
                    .map(|s| s.schema_version())
            })
        })
        .collect();
    for r in racers {
        assert_eq!(r.join().unwrap().unwrap().unwrap(), SCHEMA_VERSION);
    }
    let store = db.open();
    assert_eq!(store.backend(), Backend::Postgres);
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(
        store.count("SELECT COUNT(*) FROM schema_version"),
        SCHEMA_VERSION
    );
}

#[test]
fn the_urls_own_options_are_kept() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let store = db.open();
    store
        .db
        .exec("test", "CREATE SCHEMA answers", Args::Pos(&[]))
        .unwrap();
    // The operator's search_path puts the record in its own schema.
    let url = format!("{}?options=-c%20search_path%3Danswers", db.location());
    let location = Location::parse(&url).unwrap();
    let other =
        Store::open_location(&location, OpenOptions::default(), &PgOptions::default()).unwrap();
    assert_eq!(other.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(
        store.count("SELECT COUNT(*) FROM answers.schema_version"),
        SCHEMA_VERSION
    );
}

#[test]
fn a_newer_database_is_refused() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let store = db.open();
    store
        .db
        .exec(
            "test",
            "INSERT INTO schema_version (version, applied_utc) VALUES (99, 'later')",
            Args::Pos(&[]),
        )
        .unwrap();
    let err = Store::open_location(db.location(), OpenOptions::default(), &PgOptions::default())
        .unwrap_err();
    assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{err}");
}

#[test]
fn driver_errors_keep_the_kind_not_the_message() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let store = db.open();
    let insert = "INSERT INTO subject (id, handle, tz) VALUES (?1, ?1, ?2)";
    let args = [
        crate::db::Arg::from("secret-value"),
        crate::db::Arg::from("x"),
    ];
    store.db.exec("insert", insert, &args).unwrap();
    let err = store.db.exec("insert", insert, &args).unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(!text.contains("secret-value"), "{text}");
    assert!(text.contains("unique_violation"), "{text}");
    assert!(!err.is_transient());
}

#[test]
fn a_password_in_the_url_signs_in_and_is_never_shown() {
    let Some(db) = TestDatabase::with_password() else {
        return;
    };
    let shown = format!("{} {:?}", db.location(), db.location());
    assert!(!shown.contains(PASSWORD), "{shown}");
    let store = db.open();
    store.upsert_subject("s", "you", "UTC").unwrap();
    assert_eq!(store.subjects().unwrap().len(), 1);

    let wrong = db.location().to_string().replace("***", "not-the-password");
    assert!(wrong.contains("phi_password:not-the-password@"), "{wrong}");
    let wrong = Location::parse(&wrong).unwrap();
    let err =
        Store::open_location(&wrong, OpenOptions::default(), &PgOptions::default()).unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(text.contains("invalid_password"), "{text}");
    assert!(!text.contains("not-the-password"), "{text}");
}

#[test]
fn a_connection_the_server_ends_is_transient_and_broken_and_a_new_one_works() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let store = db.open();
    store.upsert_subject("s", "you", "UTC").unwrap();
    assert!(!store.is_broken());
    let admin = db.open();
    admin
        .db
        .exec(
            "test",
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid()",
            Args::Pos(&[]),
        )
        .unwrap();
    let err = store.subjects().unwrap_err();
    assert!(err.is_transient(), "{err}");
    assert!(store.is_broken());
    let again = db.open();
    assert_eq!(again.subjects().unwrap().len(), 1);
}

#[test]
fn a_statement_past_its_timeout_is_cancelled_as_transient() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let quick = PgOptions {
        statement_timeout: Duration::from_millis(50),
        ..PgOptions::default()
    };
    let store = Store::open_location(db.location(), OpenOptions::default(), &quick).unwrap();
    let err = store
        .db
        .exec("test", "SELECT pg_sleep(2)", Args::Pos(&[]))
        .unwrap_err();
    assert!(err.to_string().contains("query_canceled"), "{err}");
    assert!(err.is_transient());
    assert!(!store.is_broken());
}

#[test]
fn a_server_that_is_not_there_is_transient() {
    // A loopback port nothing listens on (the cluster's is 54329).
    let location = Location::parse("postgres://phi_test@127.0.0.1:9/none").unwrap();
    let err =
        Store::open_location(&location, OpenOptions::default(), &PgOptions::default()).unwrap_err();
    assert!(err.is_transient(), "{err}");
}

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
