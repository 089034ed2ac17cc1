//! The record store, on one of two backends behind one [`Store`]: an embedded `SQLite` file
//! (the default), or a `PostgreSQL` database, named by a [`Location`] and opened with
//! [`Store::open_location`] through the connection layer, `answers-db`. Both have the same
//! schema meaning and the same versioned, idempotent migrations (`MIGRATIONS` here, the
//! `PostgreSQL` DDL in `pg/schema.rs`, run by `answers-db`), and give the same answers on the
//! same record (a test compares every read).
//!
//! The schema (version 1):
//!
//! - `subject(id, handle, tz)`: a person, by opaque id, with an IANA time zone.
//! - `series`: readings (LOINC-coded, `kind = 'measured'`) and reported entries (ICPC-coded,
//!   `kind = 'reported'`) in one table: the name as recorded, the code system and code, a numeric
//!   or text value, the unit, start/end UTC (`YYYY-MM-DDTHH:MM:SSZ`), the local day decided at
//!   write time (`NULL` for legacy rows), the source, and a free-text `comment`. **The comment is
//!   PHI: no tool returns it and no log line carries it.** Upserts key on
//!   `(subject_id, system, code, source, start_utc)`.
//! - `day_aggregate(subject_id, system, code, local_day, source, value, n)`: device readings
//!   aggregated per source and local day, each indicator with its own aggregate.
//! - `day_elected(subject_id, system, code, local_day, source, value)`: the one source elected per
//!   series and day: the day authority `day`/`week`/`month` read.
//! - `token(token_hash, subject_id, expires_utc, revoked)`: bearer tokens, stored hashed.
//!
//! Version 2 adds `unit` to `day_aggregate` and `day_elected`: the unit the day's value is in
//! (an aggregate never mixes units; see [`day_rule`]).
//!
//! Version 3 adds the medication tables `medication_plan` and `medication_dose` ([`NewPlan`],
//! [`NewDose`]); their `note` is PHI like a reading's comment.
//!
//! Version 4 adds the genotype tables `genotype_set` (one imported file per subject) and
//! `genotype_call` ([`GenotypeSet`]).
//!
//! Version 5 adds `series_day`, how many rows of `series` each series has per day, kept by
//! triggers on `series`: what the catalogue reads ([`Store::catalogue`]).
//!
//! Version 6 changes nothing on `SQLite`; on `PostgreSQL` the `series_day` triggers run once per
//! statement, from its transition tables, so a batch of readings updates each day's count once.
//!
//! **Several writers on `PostgreSQL`.** Service instances share one database: a batch of
//! readings locks its subjects for its transaction, so the day authority a batch publishes
//! counts every committed row; a handle two subjects take at once goes to one
//! ([`StoreError::HandleTaken`]); a token two callers revoke at once is revoked once. A handle
//! whose connection died says so ([`Store::is_broken`]), and a failure the database may get
//! over is [`StoreError::is_transient`].
//!
//! **The store is the only package that knows SQL.** The connection never leaves it (its
//! connection layer, `answers-db`, runs the store's statements and knows no table): the
//! tools read through typed queries ([`read`]: [`Store::visit_newest_first`],
//! [`Store::catalogue`], [`Store::genotype_calls`] …) that return the store's own row types.
//!
//! **PHI at rest.** [`Store::open`] creates the database file `0600` whatever the umask, keeps
//! its `-wal` and `-shm` files `0600`, and refuses a file that group or others can access
//! unless [`OpenOptions::allow_shared_permissions`] says so (`answers-db`'s `open.rs`).
//!
//! The write side: [`Store::upsert_subject`] and the subject lookups;
//! [`Store::upsert_readings`], which decides each row's local day in the subject's zone and
//! publishes the day authority ([`day_rule`]); bearer tokens ([`Store::issue_token`]); and
//! [`Store::comment_contains`], the one question the store answers about comments.
//!
//! ```
//! let store = answers_store::Store::open_in_memory()?;
//! assert_eq!(store.schema_version()?, answers_store::SCHEMA_VERSION);
//! # Ok::<(), answers_store::StoreError>(())
//! ```

mod comment;
pub mod copy;
mod day;
pub mod genotype;
mod medication;
mod pg;
pub mod read;
mod reading;
mod subject;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
mod token;
mod token_file;
mod write;

use std::path::Path;

use answers_db::{Backend, Db, Location, OpenOptions, PgOptions, Schema};

/// The connection layer's error, which [`StoreError::Db`] carries.
pub use answers_db::DbError;

/// The streamed reader [`Store::import_genotypes`] takes, so a caller needs no other package.
pub use answers_genetics::import::GenotypeReader;
pub use day::{DEVICE_PRIORITY, DayAggregate, DayRule, day_rule, is_device};
pub use genotype::{GenotypeSet, has_genotypes};
pub use medication::{
    ClosedReason, Dose, DoseStatus, DrugCode, DrugCodeSystem, Frequency, MedicationProblem,
    NewDose, NewPlan, Plan, PlanStatus, Route, has_medications,
};
pub use read::{Bounds, ElectedDay, Flow, NameMatch, ReadingRow, SeriesSummary, StoredValue};
pub use reading::{EntryKind, NewReading, ReadingProblem, utc_text};
pub use subject::Subject;
pub use token::TOKEN_PREFIX;
pub use token_file::{MIN_TOKEN_BITS, MIN_TOKEN_LEN, TokensFileError, write_private};

/// The rows the store's bulk paths hold and send at a time: a `PostgreSQL` statement binds at
/// most this many rows (the readings' upsert, the genotype import, the copy's insert), and the
/// copy reads, writes and verifies this many at a time. One bound for one idea: it caps both
/// the memory a batch holds and the size of one statement's arrays.
pub const BATCH: usize = 10_000;

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = 6;

/// The migrations, in order; migration `i` brings the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    r"
CREATE TABLE subject (
    id     TEXT PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE,
    tz     TEXT NOT NULL
);
CREATE TABLE series (
    id          INTEGER PRIMARY KEY,
    subject_id  TEXT NOT NULL REFERENCES subject(id),
    kind        TEXT NOT NULL CHECK (kind IN ('measured', 'reported')),
    name        TEXT NOT NULL,
    system      TEXT NOT NULL CHECK (system IN ('loinc', 'icpc')),
    code        TEXT NOT NULL,
    value_num   REAL,
    value_text  TEXT,
    unit        TEXT,
    start_utc   TEXT NOT NULL,
    end_utc     TEXT,
    local_day   TEXT,
    source      TEXT NOT NULL,
    comment     TEXT,
    UNIQUE (subject_id, system, code, source, start_utc)
);
CREATE INDEX series_by_code_time ON series (subject_id, code, start_utc);
CREATE INDEX series_by_code_day ON series (subject_id, code, local_day);
CREATE TABLE day_aggregate (
    subject_id TEXT NOT NULL,
    system     TEXT NOT NULL,
    code       TEXT NOT NULL,
    local_day  TEXT NOT NULL,
    source     TEXT NOT NULL,
    value      REAL NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (subject_id, system, code, local_day, source)
) WITHOUT ROWID;
CREATE TABLE day_elected (
    subject_id TEXT NOT NULL,
    system     TEXT NOT NULL,
    code       TEXT NOT NULL,
    local_day  TEXT NOT NULL,
    source     TEXT NOT NULL,
    value      REAL NOT NULL,
    PRIMARY KEY (subject_id, system, code, local_day)
) WITHOUT ROWID;
CREATE TABLE token (
    token_hash  TEXT PRIMARY KEY,
    subject_id  TEXT NOT NULL REFERENCES subject(id),
    expires_utc TEXT,
    revoked     INTEGER NOT NULL DEFAULT 0
);
",
    r"
ALTER TABLE day_aggregate ADD COLUMN unit TEXT;
ALTER TABLE day_elected ADD COLUMN unit TEXT;
",
    // Medications (`store/medication.rs`): plans and the dose log. `note` is PHI.
    r"
CREATE TABLE medication_plan (
    id            TEXT PRIMARY KEY,
    subject_id    TEXT NOT NULL REFERENCES subject(id),
    name          TEXT NOT NULL,
    code_system   TEXT CHECK (code_system IN ('rxnorm', 'atc')),
    code          TEXT,
    dose_amount   REAL,
    dose_unit     TEXT,
    frequency     TEXT NOT NULL,
    route         TEXT NOT NULL,
    start_day     TEXT NOT NULL,
    end_day       TEXT,
    status        TEXT NOT NULL CHECK (status IN ('active', 'completed', 'stopped')),
    closed_reason TEXT,
    note          TEXT,
    CHECK ((code_system IS NULL) = (code IS NULL))
);
CREATE INDEX medication_plan_by_subject ON medication_plan (subject_id, start_day);
CREATE TABLE medication_dose (
    subject_id TEXT NOT NULL REFERENCES subject(id),
    plan_id    TEXT NOT NULL REFERENCES medication_plan(id),
    at_utc     TEXT NOT NULL,
    local_day  TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('taken', 'skipped')),
    note       TEXT,
    PRIMARY KEY (plan_id, at_utc)
);
CREATE INDEX medication_dose_by_day ON medication_dose (subject_id, local_day);
",
    // Genotypes (`store/genotype.rs`): one imported set per subject and its calls.
    r"
CREATE TABLE genotype_set (
    id            INTEGER PRIMARY KEY,
    subject_id    TEXT NOT NULL UNIQUE REFERENCES subject(id),
    format        TEXT NOT NULL,
    build         TEXT NOT NULL CHECK (build IN ('GRCh37', 'GRCh38', 'raw')),
    call_count    INTEGER NOT NULL,
    no_call_count INTEGER NOT NULL
);
CREATE TABLE genotype_call (
    set_id     INTEGER NOT NULL REFERENCES genotype_set(id),
    rsid       TEXT NOT NULL,
    chromosome TEXT NOT NULL,
    position   INTEGER NOT NULL,
    genotype   TEXT,
    PRIMARY KEY (set_id, rsid)
) WITHOUT ROWID;
CREATE INDEX genotype_call_by_position ON genotype_call (set_id, chromosome, position);
",
    // The per-day summary the catalogue reads (`store/read/catalogue.rs`), and its triggers.
    read::catalogue::MIGRATION,
    // Version 6 changes `PostgreSQL`'s `series_day` triggers only (see `pg/schema.rs`).
    "",
];

/// The schema the connection layer migrates a database to: [`MIGRATIONS`] on `SQLite`, the
/// same versions in `PostgreSQL`'s DDL (`pg/schema.rs`).
pub(crate) const SCHEMA: Schema = Schema {
    version: SCHEMA_VERSION,
    sqlite: MIGRATIONS,
    postgres: pg::schema::POSTGRES,
};

/// Why the store could not do what was asked: a refusal of the store's own, or the database's
/// failure ([`StoreError::Db`]). Carries no value and no driver message.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be opened, read or written, or a row has not the shape the
    /// schema promises: the connection layer's failure, told by its operation and code.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A subject's time zone is not an IANA time zone name this build knows.
    #[error("not an IANA time zone")]
    InvalidTimeZone,
    /// A subject's id or handle is empty or padded with whitespace.
    #[error("a subject needs a non-empty, unpadded id and handle")]
    InvalidSubject,
    /// The handle belongs to another subject.
    #[error("the handle belongs to another subject")]
    HandleTaken,
    /// No subject has the id given.
    #[error("no such subject")]
    UnknownSubject,
    /// A reading of the batch was refused; nothing of the batch was written.
    #[error("reading {index} of the batch refused: {problem}")]
    InvalidReading {
        /// The reading's position in the batch.
        index: usize,
        /// What is wrong with it.
        problem: ReadingProblem,
    },
    /// The operating system's random source failed (issuing a token).
    #[error("no randomness available")]
    Entropy,
    /// A medication plan or dose of the batch was refused; nothing of the batch was written.
    #[error("medication {index} of the batch refused: {problem}")]
    InvalidMedication {
        /// The plan's or dose's position in the batch.
        index: usize,
        /// What is wrong with it.
        problem: MedicationProblem,
    },
}

impl StoreError {
    /// Whether the fault may pass: the database is busy, locked, away or could not be opened
    /// ([`DbError::is_transient`]), so the same call may succeed later. Every other fault is
    /// permanent.
    ///
    /// ```
    /// use answers_store::{DbError, StoreError};
    ///
    /// let busy = StoreError::Db(DbError::Sqlite { op: "read readings", kind: "DatabaseBusy".into() });
    /// assert!(busy.is_transient());
    /// assert!(!StoreError::HandleTaken.is_transient());
    /// ```
    #[must_use]
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Db(e) => e.is_transient(),
            _ => false,
        }
    }
}

/// An open record store, on `SQLite` or `PostgreSQL` ([`Store::open_location`]).
#[derive(Debug)]
pub struct Store {
    db: Db,
}

impl Store {
    /// Opens the store at `location`: a `SQLite` file as [`Store::open_with`] opens it with
    /// `options`, or a `PostgreSQL` database, connected with `pg` and migrated.
    ///
    /// ```
    /// use answers_db::{Backend, Location, OpenOptions, PgOptions};
    /// use answers_store::Store;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let location = Location::sqlite(dir.path().join("answers.db"));
    /// let store = Store::open_location(&location, OpenOptions::default(), &PgOptions::default())?;
    /// assert_eq!(store.backend(), Backend::Sqlite);
    /// assert!(!store.is_broken());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_location(
        location: &Location,
        options: OpenOptions,
        pg: &PgOptions,
    ) -> Result<Store, StoreError> {
        Ok(Store::from_db(Db::open(location, options, pg, &SCHEMA)?))
    }

    /// A store on `db`, which is migrated to [`SCHEMA`].
    pub(crate) fn from_db(db: Db) -> Store {
        Store { db }
    }

    /// The backend this store is on.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.db.backend()
    }

    /// Whether this handle can no longer be used: its `PostgreSQL` connection was closed (the
    /// server went away). A pool discards such a handle and opens a new one. A `SQLite`
    /// handle never breaks.
    #[must_use]
    pub fn is_broken(&self) -> bool {
        self.db.is_broken()
    }

    /// Whether this handle still works: for `PostgreSQL`, the server answers an empty
    /// round trip within `timeout` (a connection the server ended while it sat idle is only
    /// seen this way, or by the next request failing); a `SQLite` handle always does. A
    /// handle that fails the check [`is_broken`](Store::is_broken) from then on.
    ///
    /// ```
    /// use std::time::Duration;
    /// use answers_store::Store;
    ///
    /// let store = Store::open_in_memory()?;
    /// assert!(store.is_valid(Duration::from_secs(1)));
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    #[must_use]
    pub fn is_valid(&self, timeout: std::time::Duration) -> bool {
        self.db.is_valid(timeout)
    }

    /// The one integer `sql` reads, on either backend: what a test counts.
    #[cfg(test)]
    pub(crate) fn count(&self, sql: &str) -> i64 {
        answers_db::test_support::count(&self.db, sql)
    }

    /// The `SQLite` connection of a test store.
    #[cfg(test)]
    pub(crate) fn conn(&self) -> &rusqlite::Connection {
        self.db
            .sqlite()
            .expect("a SQLite-only test opened a PostgreSQL store")
    }

    /// Opens (creating if needed) the database at `path`, in WAL mode, and migrates it, with
    /// the default [`OpenOptions`]: a new file is created `0600`, and a file that group or
    /// others can access is refused ([`DbError::SharedPermissions`]).
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, OpenOptions::default())
    }

    /// Opens the database at `path` as [`Store::open`] does, with `options`.
    pub fn open_with(path: &Path, options: OpenOptions) -> Result<Store, StoreError> {
        Ok(Store::from_db(Db::open_sqlite(path, options, &SCHEMA)?))
    }

    /// An in-memory database, migrated: for tests and examples.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Ok(Store::from_db(Db::open_in_memory(&SCHEMA)?))
    }

    /// The schema version of the open database (`SQLite`'s `user_version`, `PostgreSQL`'s
    /// `schema_version` table).
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self.db.schema_version()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_idempotent() {
        let dir = std::env::temp_dir().join(format!("answers-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("record.db");
        let _ = std::fs::remove_file(&path);
        {
            let s = Store::open(&path).unwrap();
            assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        let mode: String = s
            .conn()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(s);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_version_1_database_migrates_to_2_keeping_its_rows() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO day_elected VALUES ('s', 'loinc', '8867-4', '2026-01-01', 'watch', 60)",
            [],
        )
        .unwrap();
        let s = Store::from_db(Db::from_sqlite(conn, &SCHEMA).unwrap());
        // Migrates through 2 (and every later migration) to the newest version.
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        let (n, unit): (i64, Option<String>) = s
            .conn()
            .query_row("SELECT COUNT(*), MAX(unit) FROM day_elected", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((n, unit), (1, None));
    }

    #[test]
    fn a_newer_database_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record.db");
        let s = Store::open(&path).unwrap();
        s.conn().pragma_update(None, "user_version", 99).unwrap();
        drop(s);
        let err = Store::open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::Db(DbError::TooNew { found: 99, .. })),
            "{err}"
        );
    }

    #[test]
    fn driver_errors_keep_the_kind_not_the_message() {
        let s = Store::open_in_memory().unwrap();
        let e = s
            .conn()
            .execute(
                "INSERT INTO subject (id, handle, tz) VALUES (?1, ?1, ?2)",
                ["secret-value", "x"],
            )
            .and_then(|_| {
                s.conn().execute(
                    "INSERT INTO subject (id, handle, tz) VALUES (?1, ?1, ?2)",
                    ["secret-value", "x"],
                )
            })
            .unwrap_err();
        let wrapped = DbError::sqlite("insert", &e).to_string();
        assert!(!wrapped.contains("secret-value"), "{wrapped}");
        assert!(wrapped.contains("ConstraintViolation"), "{wrapped}");
    }
}
