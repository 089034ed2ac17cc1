//! The read side of a copy: a table streamed in key order a batch at a time (the source's rows,
//! and the target's read back to verify them), and its row count.

use crate::read::Flow;
use crate::{Backend, StoreError};
use answers_db::{Row, Tx};

use super::row::{Checksum, Value};
use super::tables::Table;
use super::tables::Ty::{Int, Real, Text};
use super::{BATCH, CopyError, NONE, OP};

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

/// The query of `table`'s rows in key order.
fn select(table: &Table) -> String {
    let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
    format!(
        "SELECT {} FROM {} ORDER BY {}",
        columns.join(", "),
        table.name,
        table.order
    )
}

/// Rows of `name` on `tx`.
pub(super) fn count(tx: &mut Tx<'_>, name: &str) -> Result<u64, StoreError> {
    let sql = format!("SELECT COUNT(*) FROM {name}");
    let n = tx.one(OP, &sql, NONE, |row| row.int(0, OP))?.unwrap_or(0);
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Reads `table` on `tx` in key order, [`BATCH`] rows at a time, and hands each batch to
/// `each`; at most one batch is held. `SQLite` steps its statement; `PostgreSQL` fetches from
/// a cursor in the transaction (so a `REPEATABLE READ` source reads one snapshot).
pub(super) fn scan(
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
pub(super) fn digest(tx: &mut Tx<'_>, table: &Table) -> Result<(u64, String), CopyError> {
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
