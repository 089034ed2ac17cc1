//! The store's `PostgreSQL` side: the DDL of every schema version (`pg/schema.rs`), and the
//! dialect its reads, written in `SQLite`'s, are translated to.

#[cfg(test)]
mod live;
pub(crate) mod schema;

use answers_db::Sql;

/// A read written in `SQLite`'s dialect, run on `PostgreSQL` in [`dialect`]'s translation
/// (made once per statement).
pub(crate) fn translated(sqlite: &'static str) -> Sql<'static> {
    Sql::Translated(sqlite, dialect)
}

/// A read of `SQLite`'s dialect in `PostgreSQL`'s:
///
/// - a unary `+` (`+s.system`, `SQLite`'s way of keeping a column out of index selection) is
///   dropped: `PostgreSQL` has no `+` on text, and its planner needs no such hint;
/// - `series_day`'s missing-unit sentinel `x'00'` is `chr(1)` (see `pg/schema.rs`);
/// - `sum(d.n)` of `BIGINT`s is cast back to `BIGINT` (`PostgreSQL` sums into `numeric`);
/// - `a IS :b` is `a IS NOT DISTINCT FROM :b`;
/// - rows come in the order `SQLite`'s plans give them, which `PostgreSQL` is told: ties of
///   `start_utc DESC` newest row id first (the index scanned backwards), the rows of a day
///   range or the legacy rows by local day and row id (the day index scanned forwards), and
///   the summary's groups along its key, where the missing unit (a blob) sorts after every
///   unit (text).
pub(crate) fn dialect(sql: &str) -> String {
    let mut sql = sql
        .replace("+s.", "s.")
        .replace("x'00'", "chr(1)")
        .replace("sum(d.n)", "CAST(sum(d.n) AS BIGINT)")
        .replace(" IS :", " IS NOT DISTINCT FROM :")
        .replace(
            "ORDER BY s.start_utc DESC",
            "ORDER BY s.start_utc DESC, s.id DESC",
        );
    if sql.contains("FROM series s") && !sql.contains("ORDER BY") && !sql.contains("DISTINCT") {
        sql.push_str(" ORDER BY s.local_day, s.id");
    }
    let groups = "GROUP BY d.code, d.system, d.kind, d.unit";
    match sql.strip_suffix(groups) {
        Some(head) => {
            format!("{head}{groups} ORDER BY d.code, d.system, d.kind, d.unit = chr(1), d.unit")
        }
        None => sql,
    }
}
