//! The connection layer of the record store: an embedded `SQLite` file (`rusqlite`, bundled,
//! WAL; the default) or a `PostgreSQL` database (the synchronous `postgres` client), named by a
//! [`Location`] and opened as one [`Db`] that runs the statements `answers-store` writes.
//!
//! - [`Db`]: the open connection, and its statement interface ([`Sql`], [`Arg`], [`Args`],
//!   [`Row`], [`Tx`]): a statement is written once with `SQLite`'s placeholders and runs on
//!   either backend;
//! - [`Schema`]: the migrations of each backend, which [`Db::open`] applies, versioned and
//!   idempotent (`SQLite`'s `user_version`, `PostgreSQL`'s `schema_version` table, under an
//!   advisory lock);
//! - [`Location`], [`PgOptions`], [`OpenOptions`]: where a record lives and how it is opened:
//!   `PostgreSQL` with `sslmode` on rustls, a `SQLite` file `0600` with its `-wal` and `-shm`;
//! - [`DbError`]: a failure told by its operation and `SQLite` code or SQLSTATE name, never a
//!   driver message (which quotes the statement and its bound parameters).
//!
//! This package knows no table of the record: the schema, its migrations' text and every
//! statement are `answers-store`'s, the only package that runs one.
//!
//! ```
//! use answers_db::{Arg, Args, Db, Schema};
//!
//! const SCHEMA: Schema = Schema {
//!     version: 1,
//!     sqlite: &["CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL);"],
//!     postgres: &["CREATE TABLE note (id BIGINT PRIMARY KEY, body TEXT NOT NULL);"],
//! };
//! let db = Db::open_in_memory(&SCHEMA)?;
//! db.exec("write", "INSERT INTO note (id, body) VALUES (?1, ?2)", &[Arg::Int(1), Arg::Text("hi")])?;
//! let n = db.one("count", "SELECT COUNT(*) FROM note", Args::Pos(&[]), |r| r.int(0, "count"))?;
//! assert_eq!(n, Some(1));
//! assert_eq!(db.schema_version()?, 1);
//! # Ok::<(), answers_db::DbError>(())
//! ```

mod connect;
mod db;
mod location;
mod open;
mod pg;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;

pub use db::{Arg, Args, Db, Row, Sql, Tx};
pub use location::{Backend, DEFAULT_DATABASE, Location, LocationError, PgOptions};
pub use open::OpenOptions;

/// The migrations of a schema on each backend: migration `i` brings the schema from version
/// `i` to `i + 1`, on `SQLite` by `sqlite[i]` and on `PostgreSQL` by `postgres[i]`.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    /// The schema version this build writes and reads: the number of migrations.
    pub version: i64,
    /// `SQLite`'s migrations, in order.
    pub sqlite: &'static [&'static str],
    /// `PostgreSQL`'s migrations, in order.
    pub postgres: &'static [&'static str],
}

/// What a visitor tells a read: go on, or stop here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next row.
    Continue,
    /// End the read; the rest is not read.
    Stop,
}

/// Why the database could not do what was asked. Carries the driver error's *type* only: a
/// driver message quotes the statement and its bound parameters.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The `SQLite` database could not be opened, read or written.
    #[error("store {op} failed ({kind})")]
    Sqlite {
        /// What the store was doing.
        op: &'static str,
        /// The `SQLite` result code's name, e.g. `DatabaseBusy`, never the message.
        kind: String,
    },
    /// The `PostgreSQL` database could not be reached, read or written.
    #[error("store {op} failed (postgres {kind})")]
    Postgres {
        /// What the store was doing.
        op: &'static str,
        /// The SQLSTATE's condition name (`unique_violation`, `admin_shutdown`), or the kind
        /// of a client-side failure (`connection_closed`, `timeout`), never the message.
        kind: String,
    },
    /// The database was written by a newer phiguard.
    #[error("the database has schema version {found}; this build reads up to {supported}")]
    TooNew {
        /// The version found.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
    /// A stored row does not have the shape the schema promises.
    #[error("malformed row in {table}")]
    Malformed {
        /// The table.
        table: &'static str,
    },
    /// The database file can be read or written by group or others, and the caller did not
    /// allow it ([`OpenOptions::allow_shared_permissions`]).
    #[error(
        "the database file has mode {mode:04o}, which group or others can access; \
         make it 0600 or allow shared permissions"
    )]
    SharedPermissions {
        /// The file's permission bits.
        mode: u32,
    },
    /// The database file does not exist, and the caller said it must
    /// ([`OpenOptions::must_exist`]).
    #[error("the database file does not exist")]
    Missing,
    /// The database file (or its `-wal`/`-shm`) could not be created or its mode set.
    #[error("store {op} failed ({kind})")]
    File {
        /// What the store was doing.
        op: &'static str,
        /// The I/O error's kind, never its message (which may name the path).
        kind: std::io::ErrorKind,
    },
}

impl DbError {
    /// Whether the fault may pass: the database is busy, locked or could not be opened, so the
    /// same call may succeed later. Every other fault is permanent.
    ///
    /// ```
    /// use answers_db::DbError;
    ///
    /// let busy = DbError::Sqlite { op: "read readings", kind: "DatabaseBusy".into() };
    /// assert!(busy.is_transient());
    /// let away = DbError::Postgres { op: "read readings", kind: "admin_shutdown".into() };
    /// assert!(away.is_transient());
    /// assert!(!DbError::Malformed { table: "series" }.is_transient());
    /// ```
    #[must_use]
    pub fn is_transient(&self) -> bool {
        match self {
            DbError::Sqlite { kind, .. } => {
                matches!(
                    kind.as_str(),
                    "DatabaseBusy" | "DatabaseLocked" | "CannotOpen"
                )
            }
            DbError::Postgres { op, kind } => pg::transient(op, kind),
            _ => false,
        }
    }

    /// Wraps a rusqlite error by its code name, dropping its message.
    #[must_use]
    pub fn sqlite(op: &'static str, e: &rusqlite::Error) -> DbError {
        let kind = match e {
            rusqlite::Error::SqliteFailure(f, _) => format!("{:?}", f.code),
            other => phi_type_name(other),
        };
        DbError::Sqlite { op, kind }
    }

    /// Wraps a `postgres` error by its SQLSTATE's name (or the kind of a failure without
    /// one), dropping its message, which may quote parameters.
    #[must_use]
    pub fn postgres(op: &'static str, e: &postgres::Error) -> DbError {
        pg::pg_err(op, e)
    }
}

/// The variant name of a rusqlite error (its `Debug` up to the first parenthesis or brace),
/// which names the kind and carries none of its data.
fn phi_type_name(e: &rusqlite::Error) -> String {
    let debug = format!("{e:?}");
    debug
        .split(['(', '{', ' '])
        .next()
        .unwrap_or("Error")
        .to_owned()
}
