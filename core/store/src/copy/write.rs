//! The write side of a copy: a batch of a table's rows inserted on the target.

use postgres::types::ToSql;

use crate::{Backend, StoreError};
use answers_db::{Arg, DbError, Tx};

use super::OP;
use super::row::Value;
use super::tables::Table;
use super::tables::Ty::{self, Int, Real, Text};

/// `SQLite`'s insert of one of `table`'s rows.
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

/// Writes one batch of `table`'s rows on `tx`: on `PostgreSQL` one `INSERT … SELECT FROM
/// unnest` of a column array each; on `SQLite` a prepared statement per row (the copy's
/// transaction holds them all).
pub(super) fn write(
    tx: &mut Tx<'_>,
    table: &Table,
    batch: &[Vec<Value>],
) -> Result<(), StoreError> {
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
                Some(result) => result.map(drop).map_err(StoreError::from),
                None => Err(StoreError::Db(DbError::Postgres {
                    op: OP,
                    kind: "not_postgres".to_owned(),
                })),
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
