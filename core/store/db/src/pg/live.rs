//! The `PostgreSQL` backend against a live server: migrations, refusals, errors that keep
//! their kind, passwords, and a connection that dies.

use std::time::Duration;

use crate::test_support::{PASSWORD, SCHEMA, TestDatabase, count};
use crate::{Arg, Args, Backend, Db, DbError, Location, OpenOptions, PgOptions};

fn open(location: &Location, pg: &PgOptions) -> Result<Db, DbError> {
    Db::open(location, OpenOptions::default(), pg, &SCHEMA)
}

/// A row written.
fn write(db: &Db) -> Result<usize, DbError> {
    db.exec(
        "write",
        "INSERT INTO note (body) VALUES (?1)",
        &[Arg::from("x")],
    )
}

/// The rows written.
fn notes(db: &Db) -> Result<i64, DbError> {
    db.one("read", "SELECT COUNT(*) FROM note", Args::Pos(&[]), |r| {
        r.int(0, "read")
    })
    .map(Option::unwrap_or_default)
}

#[test]
fn migrations_are_idempotent_and_versioned_in_a_table() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    // Two first opens at once: one migrates, the other waits and finds the schema done.
    let versions =
        db.race_first_opens(|l| open(l, &PgOptions::default()).map(|d| d.schema_version()));
    for v in versions {
        assert_eq!(v.unwrap().unwrap(), SCHEMA.version);
    }
    let conn = db.connect(&SCHEMA);
    assert_eq!(conn.backend(), Backend::Postgres);
    assert_eq!(conn.schema_version().unwrap(), SCHEMA.version);
    assert_eq!(
        count(&conn, "SELECT COUNT(*) FROM schema_version"),
        SCHEMA.version
    );
}

#[test]
fn the_urls_own_options_are_kept() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let conn = db.connect(&SCHEMA);
    conn.exec("test", "CREATE SCHEMA answers", Args::Pos(&[]))
        .unwrap();
    // The operator's search_path puts the record in its own schema.
    let url = format!("{}?options=-c%20search_path%3Danswers", db.location());
    let location = Location::parse(&url).unwrap();
    let other = open(&location, &PgOptions::default()).unwrap();
    assert_eq!(other.schema_version().unwrap(), SCHEMA.version);
    assert_eq!(
        count(&conn, "SELECT COUNT(*) FROM answers.schema_version"),
        SCHEMA.version
    );
}

#[test]
fn a_newer_database_is_refused() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let conn = db.connect(&SCHEMA);
    conn.exec(
        "test",
        "INSERT INTO schema_version (version, applied_utc) VALUES (99, 'later')",
        Args::Pos(&[]),
    )
    .unwrap();
    let err = open(db.location(), &PgOptions::default()).unwrap_err();
    assert!(matches!(err, DbError::TooNew { found: 99, .. }), "{err}");
}

#[test]
fn driver_errors_keep_the_kind_not_the_message() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let conn = db.connect(&SCHEMA);
    let insert = "INSERT INTO note (id, body) VALUES (?1, ?2)";
    let args = [Arg::Int(1), Arg::from("secret-value")];
    conn.exec("insert", insert, &args).unwrap();
    let err = conn.exec("insert", insert, &args).unwrap_err();
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
    let conn = db.connect(&SCHEMA);
    write(&conn).unwrap();
    assert_eq!(notes(&conn).unwrap(), 1);

    let wrong = db.location().to_string().replace("***", "not-the-password");
    assert!(wrong.contains("phi_password:not-the-password@"), "{wrong}");
    let wrong = Location::parse(&wrong).unwrap();
    let err = open(&wrong, &PgOptions::default()).unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(text.contains("invalid_password"), "{text}");
    assert!(!text.contains("not-the-password"), "{text}");
}

#[test]
fn a_connection_the_server_ends_is_transient_and_broken_and_a_new_one_works() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let conn = db.connect(&SCHEMA);
    write(&conn).unwrap();
    assert!(!conn.is_broken());
    let admin = db.connect(&SCHEMA);
    admin
        .exec(
            "test",
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid()
                AND backend_type = 'client backend'",
            Args::Pos(&[]),
        )
        .unwrap();
    let err = notes(&conn).unwrap_err();
    assert!(err.is_transient(), "{err}");
    assert!(conn.is_broken());
    let again = db.connect(&SCHEMA);
    assert_eq!(notes(&again).unwrap(), 1);
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
    let conn = open(db.location(), &quick).unwrap();
    let err = conn
        .exec("test", "SELECT pg_sleep(2)", Args::Pos(&[]))
        .unwrap_err();
    assert!(err.to_string().contains("query_canceled"), "{err}");
    assert!(err.is_transient());
    assert!(!conn.is_broken());
}

#[test]
fn a_server_that_is_not_there_is_transient() {
    // A loopback port nothing listens on (the cluster's is 54329).
    let location = Location::parse("postgres://phi_test@127.0.0.1:9/none").unwrap();
    let err = open(&location, &PgOptions::default()).unwrap_err();
    assert!(err.is_transient(), "{err}");
}
