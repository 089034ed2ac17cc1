//! The two backends behind one statement interface: a statement is written once in the SQL
//! both dialects agree on, with `SQLite`'s placeholders (`?N`, or `:name` bound by name), and
//! run on either connection; where the dialects differ the caller passes one text for each
//! ([`Sql::Each`]).
//!
//! - [`Arg`]: a bound value (text, integer, float, null), bound as the column's type on
//!   `PostgreSQL` (an integer to `BIGINT`, a float to `DOUBLE PRECISION`);
//! - [`Row`]: a row of either driver, read by typed getters whose errors keep the kind only;
//! - [`Tx`]: a transaction on either, rolled back unless committed.
//!
//! A `PostgreSQL` read collects its rows before the visitor sees them, so a visitor may call
//! the store again.

use std::cell::{RefCell, RefMut};

use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use rusqlite::Connection;

use crate::pg::{PgConn, pg_err};
use crate::{Backend, DbError, Flow};

/// An open connection, on `SQLite` or `PostgreSQL`, migrated to its [`Schema`](crate::Schema):
/// what a store holds.
#[derive(Debug)]
pub struct Db(pub(crate) Conn);

#[derive(Debug)]
pub(crate) enum Conn {
    Sqlite(Connection),
    // Boxed: a client with its statement cache is three times a SQLite handle.
    Postgres(Box<RefCell<PgConn>>),
}

/// A statement's text: shared, or one per backend.
#[derive(Debug, Clone, Copy)]
pub enum Sql<'a> {
    /// The same text on both.
    Both(&'a str),
    /// `SQLite`'s, then `PostgreSQL`'s.
    Each(&'a str, &'a str),
    /// `SQLite`'s text of a read, which the function translates once for `PostgreSQL` (the
    /// store's `dialect`: its planner hints dropped, its blob sentinel and `IS` spelled
    /// `PostgreSQL`'s way).
    Translated(&'static str, fn(&str) -> String),
}

impl<'a> Sql<'a> {
    fn on(self, backend: Backend) -> &'a str {
        match (self, backend) {
            (Sql::Translated(s, dialect), Backend::Postgres) => crate::pg::translated(s, dialect),
            (Sql::Both(s) | Sql::Each(s, _) | Sql::Translated(s, _), Backend::Sqlite)
            | (Sql::Both(s) | Sql::Each(_, s), Backend::Postgres) => s,
        }
    }
}

impl<'a> From<&'a str> for Sql<'a> {
    fn from(s: &'a str) -> Sql<'a> {
        Sql::Both(s)
    }
}

impl<'a> From<&'a String> for Sql<'a> {
    fn from(s: &'a String) -> Sql<'a> {
        Sql::Both(s)
    }
}

/// A bound value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg<'a> {
    /// `NULL`.
    Null,
    /// An integer.
    Int(i64),
    /// A float.
    Real(f64),
    /// Text.
    Text(&'a str),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(s: &'a str) -> Arg<'a> {
        Arg::Text(s)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(s: &'a String) -> Arg<'a> {
        Arg::Text(s)
    }
}

impl<'a> From<Option<&'a str>> for Arg<'a> {
    fn from(s: Option<&'a str>) -> Arg<'a> {
        s.map_or(Arg::Null, Arg::Text)
    }
}

impl<'a> From<&'a Option<String>> for Arg<'a> {
    fn from(s: &'a Option<String>) -> Arg<'a> {
        s.as_deref().into()
    }
}

impl From<i64> for Arg<'_> {
    fn from(n: i64) -> Self {
        Arg::Int(n)
    }
}

impl From<f64> for Arg<'_> {
    fn from(x: f64) -> Self {
        Arg::Real(x)
    }
}

impl From<Option<f64>> for Arg<'_> {
    fn from(x: Option<f64>) -> Self {
        x.map_or(Arg::Null, Arg::Real)
    }
}

impl rusqlite::ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match *self {
            Arg::Null => ValueRef::Null,
            Arg::Int(n) => ValueRef::Integer(n),
            Arg::Real(x) => ValueRef::Real(x),
            Arg::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

impl ToSql for Arg<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self {
            Arg::Null => Ok(IsNull::Yes),
            Arg::Int(n) if *ty == Type::INT4 => i32::try_from(n)?.to_sql(ty, out),
            Arg::Int(n) if *ty == Type::FLOAT8 => {
                // The store binds counts and flags only; each is exact in a double.
                #[expect(clippy::cast_precision_loss, reason = "counts and flags only")]
                let x = n as f64;
                x.to_sql(ty, out)
            }
            Arg::Int(n) => n.to_sql(ty, out),
            Arg::Real(x) => x.to_sql(ty, out),
            Arg::Text(s) => s.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        [
            Type::INT8,
            Type::INT4,
            Type::FLOAT8,
            Type::TEXT,
            Type::VARCHAR,
        ]
        .contains(ty)
    }

    to_sql_checked!();
}

/// A statement's values: by position (`?N`), or by name (`:name`, each name with its colon).
#[derive(Debug, Clone, Copy)]
pub enum Args<'a> {
    /// By position: the `i`-th value binds `?i+1`.
    Pos(&'a [Arg<'a>]),
    /// By name, each name with its colon.
    Named(&'a [(&'a str, Arg<'a>)]),
}

impl<'a> From<&'a [Arg<'a>]> for Args<'a> {
    fn from(a: &'a [Arg<'a>]) -> Args<'a> {
        Args::Pos(a)
    }
}

impl<'a, const N: usize> From<&'a [Arg<'a>; N]> for Args<'a> {
    fn from(a: &'a [Arg<'a>; N]) -> Args<'a> {
        Args::Pos(a)
    }
}

impl<'a, const N: usize> From<&'a [(&'a str, Arg<'a>); N]> for Args<'a> {
    fn from(a: &'a [(&'a str, Arg<'a>); N]) -> Args<'a> {
        Args::Named(a)
    }
}

impl Args<'_> {
    fn names(&self) -> Vec<&str> {
        match self {
            Args::Pos(_) => Vec::new(),
            Args::Named(a) => a.iter().map(|(n, _)| *n).collect(),
        }
    }

    fn values(&self) -> Vec<&(dyn ToSql + Sync)> {
        match self {
            Args::Pos(a) => a.iter().map(|v| v as &(dyn ToSql + Sync)).collect(),
            Args::Named(a) => a.iter().map(|(_, v)| v as &(dyn ToSql + Sync)).collect(),
        }
    }

    fn bind_sqlite(&self, stmt: &mut rusqlite::Statement<'_>) -> rusqlite::Result<()> {
        match self {
            Args::Pos(a) => {
                for (i, v) in a.iter().enumerate() {
                    stmt.raw_bind_parameter(i + 1, v)?;
                }
            }
            Args::Named(a) => {
                for (name, v) in *a {
                    if let Some(i) = stmt.parameter_index(name)? {
                        stmt.raw_bind_parameter(i, v)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A row of either driver.
pub enum Row<'a> {
    /// A `SQLite` row.
    Sqlite(&'a rusqlite::Row<'a>),
    /// A `PostgreSQL` row.
    Postgres(&'a postgres::Row),
}

impl<'a> Row<'a> {
    /// Text, or `None` for `NULL`; text that is not UTF-8 is a malformed row of `table`.
    pub fn opt_text(
        &self,
        i: usize,
        op: &'static str,
        table: &'static str,
    ) -> Result<Option<&'a str>, DbError> {
        match self {
            Row::Sqlite(r) => r
                .get_ref(i)
                .map_err(|e| DbError::sqlite(op, &e))?
                .as_str_or_null()
                .map_err(|_| DbError::Malformed { table }),
            Row::Postgres(r) => r.try_get(i).map_err(|e| pg_err(op, &e)),
        }
    }

    /// Text that must be there.
    pub fn text(
        &self,
        i: usize,
        op: &'static str,
        table: &'static str,
    ) -> Result<&'a str, DbError> {
        self.opt_text(i, op, table)?
            .ok_or(DbError::Malformed { table })
    }

    /// An integer, or `None` for `NULL`.
    pub fn opt_int(&self, i: usize, op: &'static str) -> Result<Option<i64>, DbError> {
        match self {
            Row::Sqlite(r) => r.get(i).map_err(|e| DbError::sqlite(op, &e)),
            Row::Postgres(r) => {
                if *r.columns()[i].type_() == Type::INT4 {
                    let n: Option<i32> = r.try_get(i).map_err(|e| pg_err(op, &e))?;
                    return Ok(n.map(i64::from));
                }
                r.try_get(i).map_err(|e| pg_err(op, &e))
            }
        }
    }

    /// An integer that must be there.
    pub fn int(&self, i: usize, op: &'static str) -> Result<i64, DbError> {
        match self {
            Row::Sqlite(r) => r.get(i).map_err(|e| DbError::sqlite(op, &e)),
            Row::Postgres(_) => self.opt_int(i, op)?.ok_or(DbError::Postgres {
                op,
                kind: "unexpected_null".to_owned(),
            }),
        }
    }

    /// A float, or `None` for `NULL`.
    pub fn opt_real(&self, i: usize, op: &'static str) -> Result<Option<f64>, DbError> {
        match self {
            Row::Sqlite(r) => r.get(i).map_err(|e| DbError::sqlite(op, &e)),
            Row::Postgres(r) => r.try_get(i).map_err(|e| pg_err(op, &e)),
        }
    }

    /// A float that must be there.
    pub fn real(&self, i: usize, op: &'static str) -> Result<f64, DbError> {
        match self {
            Row::Sqlite(r) => r.get(i).map_err(|e| DbError::sqlite(op, &e)),
            Row::Postgres(_) => self.opt_real(i, op)?.ok_or(DbError::Postgres {
                op,
                kind: "unexpected_null".to_owned(),
            }),
        }
    }

    /// A truth value: `PostgreSQL`'s `boolean`, or an integer (non-zero is true) as `SQLite`
    /// stores one.
    pub fn flag(&self, i: usize, op: &'static str) -> Result<bool, DbError> {
        match self {
            Row::Sqlite(r) => r.get(i).map_err(|e| DbError::sqlite(op, &e)),
            Row::Postgres(r) if *r.columns()[i].type_() == Type::BOOL => {
                r.try_get(i).map_err(|e| pg_err(op, &e))
            }
            Row::Postgres(_) => Ok(self.int(i, op)? != 0),
        }
    }
}

/// A transaction on either backend; dropped uncommitted, it rolls back.
pub struct Tx<'s> {
    conn: TxConn<'s>,
    open: bool,
}

enum TxConn<'s> {
    Sqlite(&'s Connection),
    Postgres(RefMut<'s, PgConn>),
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            // The connection may be gone; a broken one is discarded by its pool.
            let _ = match &mut self.conn {
                TxConn::Sqlite(c) => c.execute_batch("ROLLBACK").map_err(drop),
                TxConn::Postgres(c) => c.client.batch_execute("ROLLBACK").map_err(drop),
            };
        }
    }
}

impl Tx<'_> {
    /// The backend the transaction is on.
    #[must_use]
    pub fn backend(&self) -> Backend {
        match self.conn {
            TxConn::Sqlite(_) => Backend::Sqlite,
            TxConn::Postgres(_) => Backend::Postgres,
        }
    }

    /// Runs one statement; returns the rows it changed.
    pub fn exec<'a>(
        &mut self,
        op: &'static str,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
    ) -> Result<usize, DbError> {
        let sql = sql.into().on(self.backend());
        let args = args.into();
        match &mut self.conn {
            TxConn::Sqlite(c) => exec_sqlite(c, op, sql, args),
            TxConn::Postgres(c) => exec_pg(c, op, sql, args),
        }
    }

    /// Runs one statement; `None` when the table's primary or unique key refused the row
    /// (every other failure is an error).
    pub fn exec_unique<'a>(
        &mut self,
        op: &'static str,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
    ) -> Result<Option<usize>, DbError> {
        let sql = sql.into().on(self.backend());
        let args = args.into();
        match &mut self.conn {
            TxConn::Sqlite(c) => {
                let run = || -> rusqlite::Result<usize> {
                    let mut stmt = c.prepare_cached(sql)?;
                    args.bind_sqlite(&mut stmt)?;
                    stmt.raw_execute()
                };
                match run() {
                    Ok(n) => Ok(Some(n)),
                    Err(rusqlite::Error::SqliteFailure(f, _))
                        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                            || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE =>
                    {
                        Ok(None)
                    }
                    Err(e) => Err(DbError::sqlite(op, &e)),
                }
            }
            TxConn::Postgres(c) => match exec_pg(c, op, sql, args) {
                Ok(n) => Ok(Some(n)),
                Err(DbError::Postgres { kind, .. }) if kind == "unique_violation" => Ok(None),
                Err(e) => Err(e),
            },
        }
    }

    /// Runs one statement and hands `each` its rows.
    pub fn each<'a, E: From<DbError>>(
        &mut self,
        op: &'static str,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
        each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        let sql = sql.into().on(self.backend());
        let args = args.into();
        match &mut self.conn {
            TxConn::Sqlite(c) => each_sqlite(c, op, sql, args, each),
            TxConn::Postgres(c) => {
                let rows = query_pg(c, op, sql, args)?;
                each_pg(&rows, each)
            }
        }
    }

    /// The first row, read by `read`; `None` when there is none.
    pub fn one<'a, T>(
        &mut self,
        op: &'static str,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
        mut read: impl FnMut(&Row<'_>) -> Result<T, DbError>,
    ) -> Result<Option<T>, DbError> {
        let mut found = None;
        self.each(op, sql, args, |row| {
            found = Some(read(row)?);
            Ok::<_, DbError>(Flow::Stop)
        })?;
        Ok(found)
    }

    /// Runs one `PostgreSQL` statement whose values are of any driver type (the arrays of a
    /// batch), prepared once per connection, and returns its rows; `None` on `SQLite`.
    pub fn pg_query(
        &mut self,
        op: &'static str,
        sql: &str,
        values: &[&(dyn ToSql + Sync)],
    ) -> Option<Result<Vec<postgres::Row>, DbError>> {
        let TxConn::Postgres(c) = &mut self.conn else {
            return None;
        };
        let run = |c: &mut PgConn| {
            let stmt = c.statement(op, sql, &[])?;
            c.client.query(&stmt, values).map_err(|e| c.failed(op, &e))
        };
        Some(run(c))
    }

    /// Commits.
    pub fn commit(mut self, op: &'static str) -> Result<(), DbError> {
        self.open = false;
        match &mut self.conn {
            TxConn::Sqlite(c) => c
                .execute_batch("COMMIT")
                .map_err(|e| DbError::sqlite(op, &e)),
            TxConn::Postgres(c) => {
                let done = c.client.batch_execute("COMMIT");
                done.map_err(|e| c.failed(op, &e))
            }
        }
    }
}

fn exec_sqlite(
    conn: &Connection,
    op: &'static str,
    sql: &str,
    args: Args<'_>,
) -> Result<usize, DbError> {
    let err = |e: rusqlite::Error| DbError::sqlite(op, &e);
    let mut stmt = conn.prepare_cached(sql).map_err(err)?;
    args.bind_sqlite(&mut stmt).map_err(err)?;
    stmt.raw_execute().map_err(err)
}

fn exec_pg(
    conn: &mut PgConn,
    op: &'static str,
    sql: &str,
    args: Args<'_>,
) -> Result<usize, DbError> {
    let stmt = conn.statement(op, sql, &args.names())?;
    let n = conn
        .client
        .execute(&stmt, &args.values())
        .map_err(|e| conn.failed(op, &e))?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

fn each_sqlite<E: From<DbError>>(
    conn: &Connection,
    op: &'static str,
    sql: &str,
    args: Args<'_>,
    mut each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
) -> Result<(), E> {
    let err = |e: rusqlite::Error| DbError::sqlite(op, &e);
    let mut stmt = conn.prepare_cached(sql).map_err(err)?;
    args.bind_sqlite(&mut stmt).map_err(err)?;
    let mut rows = stmt.raw_query();
    while let Some(row) = rows.next().map_err(err)? {
        if each(&Row::Sqlite(row))? == Flow::Stop {
            break;
        }
    }
    Ok(())
}

fn query_pg(
    conn: &mut PgConn,
    op: &'static str,
    sql: &str,
    args: Args<'_>,
) -> Result<Vec<postgres::Row>, DbError> {
    let stmt = conn.statement(op, sql, &args.names())?;
    conn.client
        .query(&stmt, &args.values())
        .map_err(|e| conn.failed(op, &e))
}

/// The connection of a `PostgreSQL` store, for one call. A call made while another holds it
/// (a visitor that used the store it is visiting) is refused, never a panic.
fn borrow<'c>(c: &'c RefCell<PgConn>, op: &'static str) -> Result<RefMut<'c, PgConn>, DbError> {
    c.try_borrow_mut().map_err(|_| DbError::Postgres {
        op,
        kind: "connection_in_use".to_owned(),
    })
}

/// How many rows a `PostgreSQL` read fetches at a time.
const FETCH: i32 = 1024;

/// Runs a read through a portal, [`FETCH`] rows at a time, in a transaction of its own: a
/// visitor that stops early stops the read, and memory stays bounded whatever the rows.
fn each_portal<E: From<DbError>>(
    conn: &mut PgConn,
    op: &'static str,
    sql: &str,
    args: Args<'_>,
    mut each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
) -> Result<(), E> {
    let stmt = conn.statement(op, sql, &args.names())?;
    let values = args.values();
    let mut outcome: Result<(), E> = Ok(());
    let driven = (|| -> Result<(), postgres::Error> {
        let mut tx = conn.client.transaction()?;
        let portal = tx.bind(&stmt, &values)?;
        'fetch: loop {
            let rows = tx.query_portal(&portal, FETCH)?;
            for row in &rows {
                match each(&Row::Postgres(row)) {
                    Ok(Flow::Continue) => {}
                    Ok(Flow::Stop) => break 'fetch,
                    Err(e) => {
                        outcome = Err(e);
                        break 'fetch;
                    }
                }
            }
            if rows.len() < usize::try_from(FETCH).unwrap_or(0) {
                break;
            }
        }
        tx.commit()
    })();
    if let Err(e) = driven {
        return Err(conn.failed(op, &e).into());
    }
    outcome
}

fn each_pg<E: From<DbError>>(
    rows: &[postgres::Row],
    mut each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
) -> Result<(), E> {
    for row in rows {
        if each(&Row::Postgres(row))? == Flow::Stop {
            break;
        }
    }
    Ok(())
}

impl Db {
    /// Runs one statement outside any transaction; returns the rows it changed.
    pub fn exec<'a>(
        &self,
        op: &'static str,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
    ) -> Result<usize, DbError> {
        let sql = sql.into().on(self.backend());
        let args = args.into();
        match &self.0 {
            Conn::Sqlite(c) => exec_sqlite(c, op, sql, args),
            Conn::Postgres(c) => exec_pg(&mut *borrow(c, op)?, op, sql, args),
        }
    }

    /// Runs one statement and hands `each` its rows until it returns [`Flow::Stop`].
    pub fn each<'a, E: From<DbError>>(
        &self,
        op: &'static str,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
        each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        self.each_in(op, sql.into(), args.into(), false, each)
    }

    /// Runs a read whose rows are few (a `LIMIT` bounds them) and hands `each` its rows until
    /// it returns [`Flow::Stop`]. On `PostgreSQL` it is one round trip (every row fetched at
    /// once), not the four of [`Db::each`]'s portal (begin, bind, fetch, commit): a read of
    /// one row is mostly its round trips.
    pub fn each_few<'a, E: From<DbError>>(
        &self,
        op: &'static str,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
        each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        self.each_in(op, sql.into(), args.into(), true, each)
    }

    /// [`each`](Self::each), or with `few` [`each_few`](Self::each_few): the backends differ
    /// only in how `PostgreSQL` fetches the rows.
    fn each_in<E: From<DbError>>(
        &self,
        op: &'static str,
        sql: Sql<'_>,
        args: Args<'_>,
        few: bool,
        each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        let sql = sql.on(self.backend());
        match &self.0 {
            Conn::Sqlite(c) => each_sqlite(c, op, sql, args, each),
            Conn::Postgres(c) if few => {
                let rows = query_pg(&mut *borrow(c, op)?, op, sql, args)?;
                each_pg(&rows, each)
            }
            Conn::Postgres(c) => each_portal(&mut *borrow(c, op)?, op, sql, args, each),
        }
    }

    /// The first row, read by `read`; `None` when there is none. The statement should return
    /// one row: on `PostgreSQL` all its rows are read before the first is looked at.
    pub fn one<'a, T>(
        &self,
        op: &'static str,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
        mut read: impl FnMut(&Row<'_>) -> Result<T, DbError>,
    ) -> Result<Option<T>, DbError> {
        let sql = sql.into().on(self.backend());
        let args = args.into();
        let mut found = None;
        let mut first = |row: &Row<'_>| {
            found = Some(read(row)?);
            Ok::<_, DbError>(Flow::Stop)
        };
        match &self.0 {
            Conn::Sqlite(c) => each_sqlite(c, op, sql, args, first)?,
            Conn::Postgres(c) => {
                let rows = query_pg(&mut *borrow(c, op)?, op, sql, args)?;
                each_pg(&rows, &mut first)?;
            }
        }
        Ok(found)
    }

    /// Begins a transaction (`SQLite`'s deferred one; `PostgreSQL`'s read committed).
    pub fn transaction(&self, op: &'static str) -> Result<Tx<'_>, DbError> {
        match &self.0 {
            Conn::Sqlite(c) => {
                c.execute_batch("BEGIN DEFERRED")
                    .map_err(|e| DbError::sqlite(op, &e))?;
                Ok(Tx {
                    conn: TxConn::Sqlite(c),
                    open: true,
                })
            }
            Conn::Postgres(c) => {
                let mut conn = borrow(c, op)?;
                let begun = conn.client.batch_execute("BEGIN");
                begun.map_err(|e| conn.failed(op, &e))?;
                Ok(Tx {
                    conn: TxConn::Postgres(conn),
                    open: true,
                })
            }
        }
    }
}
