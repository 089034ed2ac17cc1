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
//! backends: `PostgreSQL`'s text columns are `COLLATE "C"`), computed as the rows stream, each
//! value tagged with its type and length, floats by their bits: the same rows give the same
//! checksum on either backend. Progress is told in counts ([`Progress`]); no value leaves the two
//! stores.

mod row;
mod scan;
mod tables;
#[cfg(test)]
mod tests;
mod write;

use crate::{Backend, Store, StoreError};
use answers_db::{Arg, DbError, Sql};

use row::Checksum;
use scan::{count, digest, scan};
use tables::{DERIVED, TABLES};
use write::write;

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

impl From<DbError> for CopyError {
    fn from(e: DbError) -> Self {
        CopyError::Store(e.into())
    }
}

const OP: &str = "copy";

/// No bound values.
const NONE: &[Arg<'static>] = &[];

/// How many rows the copy holds at a time: read from the source, written to the target, and
/// read back to verify (the store's one bulk bound).
pub use crate::BATCH;

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
