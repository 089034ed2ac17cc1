//! A whole record copied from one store to another (`answers migrate`): `SQLite` to `PostgreSQL`,
//! or back, or file to file.
//!
//! - The source is read in one transaction (on `PostgreSQL`, `REPEATABLE READ`), so the copy is
//!   of one moment of the record.
//! - The target is written in one transaction: every table's rows, then each table's row count
//!   and checksum compared with the source's, then the commit. A copy that fails anywhere
//!   (a driver error, a refused row, a mismatch) rolls back and leaves the target as it was.
//! - A target that holds any row is refused ([`CopyError::TargetNotEmpty`]) unless
//!   [`CopyOptions::replace`] says to empty it first (in the same transaction).
//! - Each table is read, written and read back [`BATCH`] rows at a time: the source in key
//!   order (`SQLite` steps one statement, `PostgreSQL` fetches from a cursor), the target by
//!   one `INSERT … SELECT FROM unnest` per batch on `PostgreSQL` and a prepared insert per row
//!   on `SQLite`. The copy holds one batch, whatever the record's size.
//! - `series_day` is not copied: the target's triggers build it from `series`; its row count is
//!   compared with the source's like every table's.
//!
//! The checksum of a table is SHA-256 over its rows in key order (text keys by bytes on both
//! backends: `PostgreSQL`'s text columns are `COLLATE "C"`), computed as the rows stream, each value tagged with its
//! type and length, floats by their bits: the same rows give the same checksum on either
//! backend. Progress is told in counts ([`Progress`]); no value leaves the two stores.

use postgres::types::ToSql;
use sha2::{Digest, Sha256};

use crate::db::{Arg, Row, Sql, Tx};
use crate::read::Flow;
use crate::{Backend, Store, StoreError};

/// A column's type, as both backends store it.
#[derive(Debug, Clone, Copy)]
enum Ty {
    Text,
    Int,
    Real,
}

/// A table the copy carries: its columns and the key its rows are read in.
#[derive(Debug)]
struct Table {
    name: &'static str,
    columns: &'static [(&'static str, Ty)],
    order: &'static str,
    /// An identity column whose sequence follows the copied ids on `PostgreSQL`.
    identity: Option<&'static str>,
}

use Ty::{Int, Real, Text};

/// Every table of the record, parents before children (the foreign keys' order).
const TABLES: &[Table] = &[
    Table {
        name: "subject",
        columns: &[("id", Text), ("handle", Text), ("tz", Text)],
        order: "id",
        identity: None,
    },
    Table {
        name: "series",
        columns: &[
            ("id", Int),
            ("subject_id", Text),
            ("kind", Text),
            ("name", Text),
            ("system", Text),
            ("code", Text),
            ("value_num", Real),
            ("value_text", Text),
            ("unit", Text),
            ("start_utc", Text),
            ("end_utc", Text),
            ("local_day", Text),
            ("source", Text),
            ("comment", Text),
        ],
        order: "id",
        identity: Some("id"),
    },
    Table {
        name: "day_aggregate",
        columns: &[
            ("subject_id", Text),
            ("system", Text),
            ("code", Text),
            ("local_day", Text),
            ("source", Text),
            ("value", Real),
            ("n", Int),
            ("unit", Text),
        ],
        order: "subject_id, system, code, local_day, source",
        identity: None,
    },
    Table {
        name: "day_elected",
        columns: &[
            ("subject_id", Text),
            ("system", Text),
            ("code", Text),
            ("local_day", Text),
            ("source", Text),
            ("value", Real),
            ("unit", Text),
        ],
        order: "subject_id, system, code, local_day",
        identity: None,
    },
    Table {
        name: "token",
        columns: &[
            ("token_hash", Text),
            ("subject_id", Text),
            ("expires_utc", Text),
            ("revoked", Int),
        ],
        order: "token_hash",
        identity: None,
    },
    Table {
        name: "medication_plan",
        columns: &[
            ("id", Text),
            ("subject_id", Text),
            ("name", Text),
            ("code_system", Text),
            ("code", Text),
            ("dose_amount", Real),
            ("dose_unit", Text),
            ("frequency", Text),
            ("route", Text),
            ("start_day", Text),
            ("end_day", Text),
            ("status", Text),
            ("closed_reason", Text),
            ("note", Text),
        ],
        order: "id",
        identity: None,
    },
    Table {
        name: "medication_dose",
        columns: &[
            ("subject_id", Text),
            ("plan_id", Text),
            ("at_utc", Text),
            ("local_day", Text),
            ("status", Text),
            ("note", Text),
        ],
        order: "plan_id, at_utc",
        identity: None,
    },
    Table {
        name: "genotype_set",
        columns: &[
            ("id", Int),
            ("subject_id", Text),
            ("format", Text),
            ("build", Text),
            ("call_count", Int),
            ("no_call_count", Int),
        ],
        order: "id",
        identity: Some("id"),
    },
    Table {
        name: "genotype_call",
        columns: &[
            ("set_id", Int),
            ("rsid", Text),
            ("chromosome", Text),
            ("position", Int),
            ("genotype", Text),
        ],
        order: "set_id, rsid",
        identity: None,
    },
];

/// The table the target's triggers fill from `series`: counted, not copied.
const DERIVED: &str = "series_day";

/// How [`copy`] treats the target.
///
/// ```
/// assert!(!answers_store::copy::CopyOptions::default().replace);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CopyOptions {
    /// Empty a target that holds rows before copying (in the copy's transaction), instead of
    /// refusing it.
    pub replace: bool,
}

/// How far a copy has come: a table and the rows of it copied so far. Counts only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The table being copied.
    pub table: &'static str,
    /// Its rows copied so far.
    pub rows: u64,
    /// Whether the table is done (copied and verified).
    pub done: bool,
}

/// One table of a finished copy: its rows and checksum, the same on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCopy {
    /// The table.
    pub table: &'static str,
    /// The rows copied (for `series_day`, the rows the target's triggers made).
    pub rows: u64,
    /// The SHA-256 of its rows in key order, hex (empty for `series_day`, which is counted).
    pub checksum: String,
}

/// Why a copy did not happen. The target is as it was.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// A store failed (read, write or commit).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The target holds rows, and [`CopyOptions::replace`] was not given.
    #[error("the target is not empty ({table} has rows); pass replace to overwrite it")]
    TargetNotEmpty {
        /// The first table found with rows.
        table: &'static str,
    },
    /// A table read back from the target differs from the source.
    #[error("{table} differs after the copy ({what}); nothing was written")]
    Mismatch {
        /// The table.
        table: &'static str,
        /// `row count` or `checksum`.
        what: &'static str,
    },
}

/// An owned value read from the source, bound on the target.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl Value {
    fn arg(&self) -> Arg<'_> {
        match self {
            Value::Null => Arg::Null,
            Value::Int(n) => Arg::Int(*n),
            Value::Real(x) => Arg::Real(*x),
            Value::Text(s) => Arg::Text(s),
        }
    }
}

/// A running checksum over rows.
struct Checksum(Sha256);

impl Checksum {
    fn new() -> Checksum {
        Checksum(Sha256::new())
    }

    fn add(&mut self, row: &[Value]) {
        for value in row {
            match value {
                Value::Null => self.0.update([0]),
                Value::Int(n) => {
                    self.0.update([1]);
                    self.0.update(n.to_le_bytes());
                }
                Value::Real(x) => {
                    self.0.update([2]);
                    self.0.update(x.to_bits().to_le_bytes());
                }
                Value::Text(s) => {
                    self.0.update([3]);
                    self.0
                        .update(u64::try_from(s.len()).unwrap_or(u64::MAX).to_le_bytes());
                    self.0.update(s.as_bytes());
                }
            }
        }
        self.0.update([0xff]);
    }

    fn hex(self) -> String {
        use std::fmt::Write as _;
        self.0
            .finalize()
            .iter()
            .fold(String::with_capacity(64), |mut s, b| {
                let _ = write!(s, "{b:02x}");
                s
            })
    }
}

const OP: &str = "copy";

/// No bound values.
const NONE: &[Arg<'static>] = &[];

/// Reads `table`'s columns from `row`.
fn read_row(table: &Table, row: &Row<'_>) -> Result<Vec<Value>, StoreError> {
    table
        .columns
        .iter()
        .enumerate()
        .map(|(i, (_, ty))| {
            Ok(match ty {
                Text => row
                    .opt_text(i, OP, table.name)?
                    .map_or(Value::Null, |s| Value::Text(s.to_owned())),
                Int => row.opt_int(i, OP)?.map_or(Value::Null, Value::Int),
                Real => row.opt_real(i, OP)?.map_or(Value::Null, Value::Real),
            })
        })
        .collect()
}

fn select(table: &Table) -> String {
    let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
    format!(
        "SELECT {} FROM {} ORDER BY {}",
        columns.join(", "),
        table.name,
        table.order
    )
}

fn insert(table: &Table) -> String {
    let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
    let marks: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT INTO {} ({}) VALUES ({})",
        table.name,
        columns.join(", "),
        marks.join(", ")
    )
}

/// Rows of `name` on `tx`.
fn count(tx: &mut Tx<'_>, name: &str) -> Result<u64, StoreError> {
    let sql = format!("SELECT COUNT(*) FROM {name}");
    let n = tx.one(OP, &sql, NONE, |row| row.int(0, OP))?.unwrap_or(0);
    Ok(u64::try_from(n).unwrap_or(0))
}

/// How many rows the copy holds at a time: read from the source, written to the target, and
/// read back to verify.
pub const BATCH: usize = 10_000;

/// Reads `table` on `tx` in key order, [`BATCH`] rows at a time, and hands each batch to
/// `each`; at most one batch is held. `SQLite` steps its statement; `PostgreSQL` fetches from
/// a cursor in the transaction (so a `REPEATABLE READ` source reads one snapshot).
fn scan(
    tx: &mut Tx<'_>,
    table: &Table,
    mut each: impl FnMut(&[Vec<Value>]) -> Result<(), CopyError>,
) -> Result<(), CopyError> {
    let mut batch: Vec<Vec<Value>> = Vec::with_capacity(BATCH);
    match tx.backend() {
        Backend::Sqlite => {
            tx.each(OP, &select(table), NONE, |row| {
                batch.push(read_row(table, row)?);
                if batch.len() == BATCH {
                    each(&batch)?;
                    batch.clear();
                }
                Ok::<_, CopyError>(Flow::Continue)
            })?;
            if !batch.is_empty() {
                each(&batch)?;
            }
        }
        Backend::Postgres => {
            let cursor = format!("copy_{}", table.name);
            let declare = format!("DECLARE {cursor} NO SCROLL CURSOR FOR {}", select(table));
            tx.exec(OP, &declare, NONE)?;
            let fetch = format!("FETCH FORWARD {BATCH} FROM {cursor}");
            loop {
                tx.each(OP, &fetch, NONE, |row| {
                    batch.push(read_row(table, row)?);
                    Ok::<_, StoreError>(Flow::Continue)
                })?;
                let last = batch.len() < BATCH;
                if !batch.is_empty() {
                    each(&batch)?;
                    batch.clear();
                }
                if last {
                    break;
                }
            }
            tx.exec(OP, &format!("CLOSE {cursor}"), NONE)?;
        }
    }
    Ok(())
}

/// The checksum and row count of `table` read on `tx`, a batch at a time.
fn digest(tx: &mut Tx<'_>, table: &Table) -> Result<(u64, String), CopyError> {
    let mut sum = Checksum::new();
    let mut rows = 0u64;
    scan(tx, table, |batch| {
        for row in batch {
            sum.add(row);
        }
        rows += batch.len() as u64;
        Ok(())
    })?;
    Ok((rows, sum.hex()))
}

/// Writes one batch of `table`'s rows on `tx`: on `PostgreSQL` one `INSERT … SELECT FROM
/// unnest` of a column array each; on `SQLite` a prepared statement per row (the copy's
/// transaction holds them all).
fn write(tx: &mut Tx<'_>, table: &Table, batch: &[Vec<Value>]) -> Result<(), StoreError> {
    match tx.backend() {
        Backend::Sqlite => {
            let insert = insert(table);
            for row in batch {
                let args: Vec<Arg<'_>> = row.iter().map(Value::arg).collect();
                tx.exec(OP, &insert, args.as_slice())?;
            }
            Ok(())
        }
        Backend::Postgres => {
            let columns: Vec<Column<'_>> = (0..table.columns.len())
                .map(|i| Column::of(table.columns[i].1, batch, i))
                .collect();
            let values: Vec<&(dyn ToSql + Sync)> = columns.iter().map(Column::value).collect();
            match tx.pg_query(OP, &insert_unnest(table), &values) {
                Some(result) => result.map(drop),
                None => Err(StoreError::Postgres {
                    op: OP,
                    kind: "not_postgres".to_owned(),
                }),
            }
        }
    }
}

/// One column of a batch, as the array `PostgreSQL` unnests.
enum Column<'a> {
    Text(Vec<Option<&'a str>>),
    Int(Vec<Option<i64>>),
    Real(Vec<Option<f64>>),
}

impl<'a> Column<'a> {
    fn of(ty: Ty, batch: &'a [Vec<Value>], i: usize) -> Column<'a> {
        let cells = batch.iter().map(move |row| &row[i]);
        match ty {
            Text => Column::Text(
                cells
                    .map(|v| match v {
                        Value::Text(s) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect(),
            ),
            Int => Column::Int(
                cells
                    .map(|v| match v {
                        Value::Int(n) => Some(*n),
                        _ => None,
                    })
                    .collect(),
            ),
            Real => Column::Real(
                cells
                    .map(|v| match v {
                        Value::Real(x) => Some(*x),
                        _ => None,
                    })
                    .collect(),
            ),
        }
    }

    fn value(&self) -> &(dyn ToSql + Sync) {
        match self {
            Column::Text(v) => v,
            Column::Int(v) => v,
            Column::Real(v) => v,
        }
    }
}

/// `PostgreSQL`'s insert of a batch of `table`'s rows: a column array each, unnested.
fn insert_unnest(table: &Table) -> String {
    let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
    let arrays: Vec<String> = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, (_, ty))| {
            let ty = match ty {
                Text => "text",
                Int => "int8",
                Real => "float8",
            };
            format!("${}::{ty}[]", i + 1)
        })
        .collect();
    format!(
        "INSERT INTO {} ({}) SELECT * FROM unnest({})",
        table.name,
        columns.join(", "),
        arrays.join(", ")
    )
}

/// Copies the whole record of `source` into `target`, verified, in one transaction on the
/// target; `progress` hears the counts as they grow (every [`BATCH`] rows, and at each table's
/// end). Each table is read, written and read back [`BATCH`] rows at a time, so memory stays
/// bounded whatever the record's size. Returns every table's rows and checksum.
///
/// ```
/// use answers_store::copy::{CopyError, CopyOptions, copy};
/// use answers_store::Store;
///
/// let source = Store::open_in_memory()?;
/// source.upsert_subject("subj-1", "you", "UTC")?;
/// let target = Store::open_in_memory()?;
/// let tables = copy(&source, &target, CopyOptions::default(), |_| {})?;
/// assert_eq!(tables.iter().find(|t| t.table == "subject").unwrap().rows, 1);
/// // A second copy into the same target is refused: it is not empty any more.
/// let again = copy(&source, &target, CopyOptions::default(), |_| {});
/// assert!(matches!(again, Err(CopyError::TargetNotEmpty { table: "subject" })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn copy(
    source: &Store,
    target: &Store,
    options: CopyOptions,
    mut progress: impl FnMut(Progress),
) -> Result<Vec<TableCopy>, CopyError> {
    let mut from = source.db.transaction(OP)?;
    if from.backend() == Backend::Postgres {
        from.exec(OP, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", NONE)?;
    }
    let mut to = target.db.transaction(OP)?;
    if to.backend() == Backend::Postgres {
        // No other writer between the emptiness check and the commit.
        let names: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        let lock = format!("LOCK TABLE {} IN EXCLUSIVE MODE", names.join(", "));
        to.exec(OP, &lock, NONE)?;
    }
    for table in TABLES {
        if count(&mut to, table.name)? > 0 {
            if !options.replace {
                return Err(CopyError::TargetNotEmpty { table: table.name });
            }
            break;
        }
    }
    if options.replace {
        for table in TABLES.iter().rev() {
            to.exec(OP, &format!("DELETE FROM {}", table.name), NONE)?;
        }
        to.exec(OP, &format!("DELETE FROM {DERIVED}"), NONE)?;
    }
    let mut copied = Vec::with_capacity(TABLES.len() + 1);
    for table in TABLES {
        let mut sum = Checksum::new();
        let mut rows = 0u64;
        scan(&mut from, table, |batch| {
            write(&mut to, table, batch)?;
            for row in batch {
                sum.add(row);
            }
            rows += batch.len() as u64;
            progress(Progress {
                table: table.name,
                rows,
                done: false,
            });
            Ok(())
        })?;
        let checksum = sum.hex();
        let (found, found_sum) = digest(&mut to, table)?;
        if found != rows {
            return Err(CopyError::Mismatch {
                table: table.name,
                what: "row count",
            });
        }
        if found_sum != checksum {
            return Err(CopyError::Mismatch {
                table: table.name,
                what: "checksum",
            });
        }
        if let (Some(column), Backend::Postgres) = (table.identity, to.backend()) {
            // The next id the target gives follows the copied ones.
            let sql = format!(
                "SELECT setval(pg_get_serial_sequence('{0}', '{column}'), \
                 coalesce((SELECT max({column}) FROM {0}), 0) + 1, false)",
                table.name
            );
            to.one(OP, Sql::Both(&sql), NONE, |_| Ok(()))?;
        }
        progress(Progress {
            table: table.name,
            rows,
            done: true,
        });
        copied.push(TableCopy {
            table: table.name,
            rows,
            checksum,
        });
    }
    let (expected, found) = (count(&mut from, DERIVED)?, count(&mut to, DERIVED)?);
    if expected != found {
        return Err(CopyError::Mismatch {
            table: DERIVED,
            what: "row count",
        });
    }
    copied.push(TableCopy {
        table: DERIVED,
        rows: found,
        checksum: String::new(),
    });
    to.commit(OP)?;
    drop(from);
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;
    use crate::test_support;

    #[test]
    fn every_table_of_the_schema_is_copied_or_derived() {
        let store = Store::open_in_memory().unwrap();
        let mut names = Vec::new();
        store
            .db
            .each(
                OP,
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
                NONE,
                |row| {
                    names.push(row.text(0, OP, "sqlite_master")?.to_owned());
                    Ok::<_, StoreError>(Flow::Continue)
                },
            )
            .unwrap();
        let mut known: Vec<String> = TABLES.iter().map(|t| t.name.to_owned()).collect();
        known.push(DERIVED.to_owned());
        known.sort();
        assert_eq!(names, known);
    }

    #[test]
    fn every_column_of_each_table_is_copied() {
        let store = Store::open_in_memory().unwrap();
        for table in TABLES {
            let mut columns = Vec::new();
            store
                .db
                .each(
                    OP,
                    &format!("SELECT name FROM pragma_table_info('{}')", table.name),
                    NONE,
                    |row| {
                        columns.push(row.text(0, OP, "pragma")?.to_owned());
                        Ok::<_, StoreError>(Flow::Continue)
                    },
                )
                .unwrap();
            let copied: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
            assert_eq!(columns, copied, "{}", table.name);
        }
    }

    /// A record of more than two batches of readings and of genotype calls: one subject,
    /// `n` heart-rate minutes (each its own local day every 1,440) and `n` calls.
    fn large(n: usize) -> Store {
        let store = Store::open_in_memory().unwrap();
        store.upsert_subject("subj-big", "big", "UTC").unwrap();
        let sql = format!(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {n})
             INSERT INTO series (subject_id, kind, name, system, code, value_num, unit,
                                 start_utc, local_day, source)
             SELECT 'subj-big', 'measured', 'heartRate', 'loinc', '8867-4', 60.0 + (i % 17) / 4.0,
                    '/min', strftime('%Y-%m-%dT%H:%M:%SZ', 1600000000 + 60 * i, 'unixepoch'),
                    date(1600000000 + 60 * i, 'unixepoch'), 'watch'
               FROM n;
             INSERT INTO genotype_set (id, subject_id, format, build, call_count, no_call_count)
             VALUES (7, 'subj-big', '23andme', 'GRCh37', {n}, 0);
             WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {n})
             INSERT INTO genotype_call (set_id, rsid, chromosome, position, genotype)
             SELECT 7, 'rs' || i, '1', 1000 + i, CASE i % 3 WHEN 0 THEN NULL ELSE 'AG' END
               FROM n;"
        );
        let Db::Sqlite(conn) = &store.db else {
            unreachable!("an in-memory store is SQLite")
        };
        conn.execute_batch(&sql).unwrap();
        store
    }

    /// Every table's rows and checksum of `store`, read by copying it into memory.
    fn fingerprint(store: &Store) -> Vec<TableCopy> {
        let memory = Store::open_in_memory().unwrap();
        copy(store, &memory, CopyOptions::default(), |_| {}).unwrap()
    }

    #[test]
    fn a_record_of_many_batches_is_copied_there_and_back_on_each_backend() {
        let n = 2 * BATCH + 517;
        let source = large(n);
        let expected = fingerprint(&source);
        let rows = |tables: &[TableCopy], name: &str| {
            tables.iter().find(|t| t.table == name).map(|t| t.rows)
        };
        assert_eq!(rows(&expected, "series"), Some(n as u64));
        assert_eq!(rows(&expected, "genotype_call"), Some(n as u64));
        test_support::each_backend(|target| {
            let mut seen = Vec::new();
            let copied = copy(&source, &target, CopyOptions::default(), |p| seen.push(p)).unwrap();
            assert_eq!(copied, expected);
            // Progress is told a batch at a time.
            let series: Vec<u64> = seen
                .iter()
                .filter(|p| p.table == "series" && !p.done)
                .map(|p| p.rows)
                .collect();
            assert_eq!(series, [BATCH as u64, 2 * BATCH as u64, n as u64]);
            // Read back from the target (on PostgreSQL, through its cursor), batch by batch.
            assert_eq!(fingerprint(&target), expected);
        });
    }

    #[test]
    fn a_copy_refused_after_batches_were_written_leaves_the_target_as_it_was() {
        let source = large(2 * BATCH + 1);
        // The last row of series (past two written batches) is one the schema refuses.
        let Db::Sqlite(conn) = &source.db else {
            unreachable!("an in-memory store is SQLite")
        };
        conn.execute_batch(
            "PRAGMA ignore_check_constraints = ON;
             INSERT INTO series (subject_id, kind, name, system, code, start_utc, source)
             VALUES ('subj-big', 'bogus', 'x', 'loinc', '8867-4', '2030-01-01T00:00:00Z', 'x');
             PRAGMA ignore_check_constraints = OFF;",
        )
        .unwrap();
        test_support::each_backend(|target| {
            // The target holds another record.
            target.upsert_subject("subj-other", "other", "UTC").unwrap();
            let before = fingerprint(&target);
            let refused = copy(&source, &target, CopyOptions::default(), |_| {});
            assert!(
                matches!(refused, Err(CopyError::TargetNotEmpty { table: "subject" })),
                "{refused:?}"
            );
            let mut written = 0;
            let failed = copy(&source, &target, CopyOptions { replace: true }, |p| {
                if p.table == "series" {
                    written = p.rows;
                }
            });
            assert!(matches!(failed, Err(CopyError::Store(_))), "{failed:?}");
            assert_eq!(written, 2 * BATCH as u64, "two batches were written first");
            assert_eq!(fingerprint(&target), before, "the target is as it was");
        });
    }

    #[test]
    fn the_checksum_tells_types_nulls_and_boundaries_apart() {
        let hex = |rows: &[&[Value]]| {
            let mut sum = Checksum::new();
            for row in rows {
                sum.add(row);
            }
            sum.hex()
        };
        let text = |s: &str| Value::Text(s.to_owned());
        let base = hex(&[&[text("ab"), Value::Int(1)]]);
        assert_eq!(base, hex(&[&[text("ab"), Value::Int(1)]]));
        for other in [
            hex(&[&[text("a"), text("b"), Value::Int(1)]]),
            hex(&[&[text("ab"), Value::Real(1.0)]]),
            hex(&[&[text("ab"), Value::Null]]),
            hex(&[&[text("ab")], &[Value::Int(1)]]),
        ] {
            assert_ne!(base, other);
        }
    }
}
