//! A [`Db`] opened: a `SQLite` file (WAL, its modes kept private, `open.rs`) or in memory, or a
//! `PostgreSQL` database (`pg.rs`), migrated to its [`Schema`]; and the handle's health.

use std::cell::RefCell;
use std::path::Path;

use rusqlite::Connection;

use crate::db::Conn;
use crate::pg::PgConn;
use crate::{Backend, Db, DbError, Location, OpenOptions, PgOptions, Schema, open};

impl Db {
    /// Opens the database at `location`: a `SQLite` file as [`Db::open_sqlite`] opens it with
    /// `options`, or a `PostgreSQL` database, connected with `pg`; either migrated to `schema`.
    ///
    /// ```
    /// use answers_db::{Backend, Db, Location, OpenOptions, PgOptions, Schema};
    ///
    /// const SCHEMA: Schema = Schema { version: 0, sqlite: &[], postgres: &[] };
    /// let dir = tempfile::tempdir()?;
    /// let location = Location::sqlite(dir.path().join("answers.db"));
    /// let db = Db::open(&location, OpenOptions::default(), &PgOptions::default(), &SCHEMA)?;
    /// assert_eq!(db.backend(), Backend::Sqlite);
    /// assert!(!db.is_broken());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(
        location: &Location,
        options: OpenOptions,
        pg: &PgOptions,
        schema: &Schema,
    ) -> Result<Db, DbError> {
        match (location.sqlite_path(), location.postgres_url()) {
            (Some(path), _) => Db::open_sqlite(path, options, schema),
            (None, Some(url)) => Ok(Db(Conn::Postgres(Box::new(RefCell::new(PgConn::open(
                url, pg, schema,
            )?))))),
            (None, None) => Err(DbError::Missing),
        }
    }

    /// Opens (creating if needed, unless `options` say it must exist) the `SQLite` database at
    /// `path`, in WAL mode, and migrates it: a new file is created `0600`, and a file that
    /// group or others can access is refused ([`DbError::SharedPermissions`]) unless `options`
    /// allow it.
    pub fn open_sqlite(path: &Path, options: OpenOptions, schema: &Schema) -> Result<Db, DbError> {
        open::prepare(path, options)?;
        let conn = Connection::open(path).map_err(|e| DbError::sqlite("open", &e))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| DbError::sqlite("open", &e))?;
        let db = Db::set_up(conn, schema)?;
        open::private_companions(path, options)?;
        Ok(db)
    }

    /// An in-memory `SQLite` database, migrated: for tests and examples.
    pub fn open_in_memory(schema: &Schema) -> Result<Db, DbError> {
        let conn = Connection::open_in_memory().map_err(|e| DbError::sqlite("open", &e))?;
        Db::set_up(conn, schema)
    }

    /// A database on `conn`, which a test has already written to (an old schema version, say),
    /// set up and migrated to `schema` as [`Db::open_in_memory`] does. It skips the checks a
    /// file gets on open (its mode, its existence), so only tests have it.
    ///
    /// # Errors
    ///
    /// As [`Db::open_in_memory`].
    #[cfg(any(test, feature = "test-support"))]
    pub fn from_sqlite(conn: Connection, schema: &Schema) -> Result<Db, DbError> {
        Db::set_up(conn, schema)
    }

    /// `conn`, set up (foreign keys, a busy timeout, a stable query plan) and migrated to
    /// `schema`.
    fn set_up(mut conn: Connection, schema: &Schema) -> Result<Db, DbError> {
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| DbError::sqlite("open", &e))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(|e| DbError::sqlite("open", &e))?;
        // The query planner stability guarantee, for the connection's life: the bundled
        // SQLite is built with STAT4, under which every statement that binds a value compared
        // with an indexed column is re-parsed and re-planned on each run (most of a small
        // query's time). With it, the tools' statements are planned once for every binding,
        // on the indexes their plans tests check.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )
        .map_err(|e| DbError::sqlite("open", &e))?;
        migrate(&mut conn, schema)?;
        Ok(Db(Conn::Sqlite(conn)))
    }

    /// The backend this database is on.
    #[must_use]
    pub fn backend(&self) -> Backend {
        match &self.0 {
            Conn::Sqlite(_) => Backend::Sqlite,
            Conn::Postgres(_) => Backend::Postgres,
        }
    }

    /// Whether this handle can no longer be used: its `PostgreSQL` connection was closed (the
    /// server went away). A `SQLite` handle never breaks.
    #[must_use]
    pub fn is_broken(&self) -> bool {
        match &self.0 {
            Conn::Sqlite(_) => false,
            Conn::Postgres(c) => c.try_borrow().is_ok_and(|c| c.is_broken()),
        }
    }

    /// Whether this handle still works: for `PostgreSQL`, the server answers an empty round
    /// trip within `timeout`; a `SQLite` handle always does. A handle that fails the check
    /// [`is_broken`](Db::is_broken) from then on.
    #[must_use]
    pub fn is_valid(&self, timeout: std::time::Duration) -> bool {
        match &self.0 {
            Conn::Sqlite(_) => true,
            Conn::Postgres(c) => c.try_borrow_mut().is_ok_and(|mut c| c.is_valid(timeout)),
        }
    }

    /// The schema version of the open database (`SQLite`'s `user_version`, `PostgreSQL`'s
    /// `schema_version` table).
    pub fn schema_version(&self) -> Result<i64, DbError> {
        match &self.0 {
            Conn::Sqlite(c) => sqlite_version(c),
            Conn::Postgres(c) => c.borrow_mut().schema_version(),
        }
    }

    /// The `SQLite` connection, for a test that breaks or inspects a database on purpose;
    /// `None` on `PostgreSQL`.
    #[cfg(any(test, feature = "test-support"))]
    #[must_use]
    pub fn sqlite(&self) -> Option<&Connection> {
        match &self.0 {
            Conn::Sqlite(c) => Some(c),
            Conn::Postgres(_) => None,
        }
    }
}

fn sqlite_version(conn: &Connection) -> Result<i64, DbError> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| DbError::sqlite("read schema version", &e))
}

/// Applies every `SQLite` migration of `schema` the database lacks, each in its own
/// transaction. Idempotent.
fn migrate(conn: &mut Connection, schema: &Schema) -> Result<(), DbError> {
    let found = sqlite_version(conn)?;
    if found > schema.version {
        return Err(DbError::TooNew {
            found,
            supported: schema.version,
        });
    }
    for (i, sql) in schema
        .sqlite
        .iter()
        .enumerate()
        .skip(usize::try_from(found).unwrap_or(0))
    {
        let tx = conn
            .transaction()
            .map_err(|e| DbError::sqlite("migrate", &e))?;
        tx.execute_batch(sql)
            .map_err(|e| DbError::sqlite("migrate", &e))?;
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(i + 1).unwrap_or(i64::MAX),
        )
        .map_err(|e| DbError::sqlite("migrate", &e))?;
        tx.commit().map_err(|e| DbError::sqlite("migrate", &e))?;
    }
    Ok(())
}
