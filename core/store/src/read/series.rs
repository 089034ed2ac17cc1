//! The views' reads of one code: its readings newest first, its readings on a range of days,
//! its legacy rows, its elected days, its newest value; and the names and codes a word
//! selects.

use std::sync::LazyLock;

use super::{Bounds, COLUMNS, Flow, IN_WINDOW, OF_CODE, READ, ReadingRow};
use crate::{Backend, Store, StoreError};
use answers_db::{Arg, DbError, Sql};
use answers_vocab::{CodeRef, CodeSystem};

/// A day the write side elected a source for: the day authority's one value of that day.
#[derive(Debug, Clone, PartialEq)]
pub struct ElectedDay {
    /// The local day.
    pub day: String,
    /// The elected source's value of the day.
    pub value: f64,
    /// The elected source, as stored.
    pub source: String,
    /// The unit the value is in.
    pub unit: Option<String>,
}

/// How a word is matched against the names a record was written under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch {
    /// The whole name, case-insensitively.
    Exact,
    /// Part of the name, case-insensitively.
    Contains,
}

impl Store {
    /// Visits the readings of `code` in the window, newest first, at most `limit` of them
    /// (all for `None`), until `visit` says [`Flow::Stop`].
    ///
    /// Runs on the `(subject_id, code, start_utc)` index, bounded by the padded window.
    pub fn visit_newest_first<E: From<StoreError>>(
        &self,
        subject_id: &str,
        code: &CodeRef,
        bounds: &Bounds,
        limit: Option<usize>,
        mut visit: impl FnMut(ReadingRow<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        // A read of a few rows (`raw`'s cap) is one round trip; an open-ended one (the
        // buckets', which stop once they are full) goes through the portal.
        let few = limit.is_some_and(|n| n <= FEW);
        // SQLite reads a negative limit as none, PostgreSQL a null one.
        let limit = match (limit, self.backend()) {
            (Some(n), _) => Arg::Int(i64::try_from(n).unwrap_or(i64::MAX)),
            (None, Backend::Sqlite) => Arg::Int(-1),
            (None, Backend::Postgres) => Arg::Null,
        };
        let sql = crate::pg::translated(newest_first_sql());
        let args = {
            let [s, c, y, ul, uh, dl, dh] = window_args(subject_id, code, bounds);
            [s, c, y, ul, uh, dl, dh, (":limit", limit)]
        };
        let each = |row: &answers_db::Row<'_>| visit(ReadingRow::read(row)?);
        if few {
            self.each_few_rows(sql, &args, each)
        } else {
            self.each_row(sql, &args, each)
        }
    }

    /// Visits the readings of `code` whose stored local day is in `[from, before)`, in no
    /// particular order: the readings of the days no election covers.
    ///
    /// Runs on the `(subject_id, code, local_day)` index.
    pub fn visit_days<E: From<StoreError>>(
        &self,
        subject_id: &str,
        code: &CodeRef,
        (from, before): (&str, &str),
        mut visit: impl FnMut(ReadingRow<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        self.each_row(
            crate::pg::translated(days_sql()),
            &[
                (":subject", Arg::from(subject_id)),
                (":code", Arg::from(&code.code)),
                (":from", Arg::from(from)),
                (":before", Arg::from(before)),
                (":system", Arg::from(code.system.as_str())),
            ],
            |row| visit(ReadingRow::read(row)?),
        )
    }

    /// Visits the legacy rows (no stored local day) of `code` in the padded window.
    ///
    /// Runs on the `(subject_id, code, local_day)` index (`local_day IS NULL`).
    pub fn visit_legacy<E: From<StoreError>>(
        &self,
        subject_id: &str,
        code: &CodeRef,
        bounds: &Bounds,
        mut visit: impl FnMut(ReadingRow<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        self.each_row(
            crate::pg::translated(legacy_sql()),
            &[
                (":subject", Arg::from(subject_id)),
                (":code", Arg::from(&code.code)),
                (":utc_lo", Arg::from(bounds.utc_lo())),
                (":utc_hi", Arg::from(bounds.utc_hi())),
                (":system", Arg::from(code.system.as_str())),
            ],
            |row| visit(ReadingRow::read(row)?),
        )
    }

    /// The elected days of `code` in the window, oldest first.
    pub fn elected_days(
        &self,
        subject_id: &str,
        code: &CodeRef,
        bounds: &Bounds,
    ) -> Result<Vec<ElectedDay>, StoreError> {
        let mut out = Vec::new();
        self.each_row(
            crate::pg::translated(ELECTED),
            &[
                (":subject", Arg::from(subject_id)),
                (":system", Arg::from(code.system.as_str())),
                (":code", Arg::from(&code.code)),
                (":day_lo", Arg::from(bounds.day_lo())),
                (":day_hi", Arg::from(bounds.day_hi())),
            ],
            |row| {
                let table = "day_elected";
                out.push(ElectedDay {
                    day: row.text(0, READ, table)?.to_owned(),
                    value: row.real(1, READ)?,
                    source: row.text(2, READ, table)?.to_owned(),
                    unit: row.opt_text(3, READ, table)?.map(str::to_owned),
                });
                Ok::<_, StoreError>(Flow::Continue)
            },
        )?;
        Ok(out)
    }

    /// Visits the newest elected day and the newest reading of `code` in the window (either
    /// may be missing), each with whether it is the elected day. An elected day comes as a
    /// measured row whose `start_utc` is its day's midnight and whose `source` is the elected
    /// one.
    pub fn visit_newest<E: From<StoreError>>(
        &self,
        subject_id: &str,
        code: &CodeRef,
        bounds: &Bounds,
        mut visit: impl FnMut(ReadingRow<'_>, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        self.each_few_rows(
            crate::pg::translated(newest_sql()),
            &window_args(subject_id, code, bounds),
            |row| {
                let elected = row.flag(7, READ).map_err(StoreError::from)?;
                visit(ReadingRow::read(row)?, elected)?;
                Ok(Flow::Continue)
            },
        )
    }

    /// The name `code` was last recorded under in the subject's record, or `None` if the
    /// record never holds it.
    pub fn recorded_name(
        &self,
        subject_id: &str,
        code: &CodeRef,
    ) -> Result<Option<String>, StoreError> {
        let mut name = None;
        self.each_few_rows(
            crate::pg::translated(name_sql()),
            &[
                (":subject", Arg::from(subject_id)),
                (":code", Arg::from(&code.code)),
                (":system", Arg::from(code.system.as_str())),
            ],
            |row| {
                name = Some(row.text(0, READ, "series")?.to_owned());
                Ok::<_, StoreError>(Flow::Stop)
            },
        )?;
        Ok(name)
    }

    /// The codes of the subject's series recorded under a name `word` matches (trimmed,
    /// case-insensitively; `LIKE`'s wildcards in `word` are literal), sorted.
    pub fn codes_by_name(
        &self,
        subject_id: &str,
        word: &str,
        how: NameMatch,
    ) -> Result<Vec<CodeRef>, StoreError> {
        // SQLite's NOCASE and LIKE fold ASCII letters only; so does PostgreSQL's lower() in
        // the "C" collation, which both sides are put in.
        let (sql, pattern) = match how {
            NameMatch::Exact => (
                Sql::Each(
                    "SELECT DISTINCT s.system, s.code FROM series s \
                     WHERE s.subject_id = ?1 AND s.name = ?2 COLLATE NOCASE",
                    "SELECT DISTINCT s.system, s.code FROM series s \
                     WHERE s.subject_id = ?1 \
                       AND lower(s.name COLLATE \"C\") = lower(CAST(?2 AS TEXT) COLLATE \"C\")",
                ),
                word.trim().to_owned(),
            ),
            NameMatch::Contains => (
                Sql::Each(
                    "SELECT DISTINCT s.system, s.code FROM series s \
                     WHERE s.subject_id = ?1 AND s.name LIKE ?2 ESCAPE '\\'",
                    "SELECT DISTINCT s.system, s.code FROM series s \
                     WHERE s.subject_id = ?1 AND lower(s.name COLLATE \"C\") \
                       LIKE lower(CAST(?2 AS TEXT) COLLATE \"C\") ESCAPE '\\'",
                ),
                format!("%{}%", escape_like(word.trim())),
            ),
        };
        let mut codes = Vec::new();
        let args = [Arg::from(subject_id), Arg::from(&pattern)];
        self.each_row(sql, &args, |row| {
            let system = row.text(0, READ, "series")?;
            let code = row.text(1, READ, "series")?;
            let system = system
                .parse::<CodeSystem>()
                .map_err(|_| StoreError::Db(DbError::Malformed { table: "series" }))?;
            codes.push(CodeRef::new(system, code));
            Ok::<_, StoreError>(Flow::Continue)
        })?;
        codes.sort();
        Ok(codes)
    }
}

/// `text` with `LIKE`'s wildcards and the escape character escaped.
fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The most rows a limited read fetches at once instead of through a portal.
const FEW: usize = 1024;

/// The elected days of a code in the window, oldest first, each with its unit.
pub(crate) const ELECTED: &str = "\
SELECT e.local_day, e.value, e.source, e.unit
  FROM day_elected e
 WHERE e.subject_id = :subject AND e.system = :system AND e.code = :code
   AND e.local_day BETWEEN :day_lo AND :day_hi
 ORDER BY e.local_day";

/// The newest readings of a code in the window, at most `:limit` (negative: all).
pub(crate) fn newest_first_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {COLUMNS} FROM series s \
             WHERE {OF_CODE} AND {IN_WINDOW} \
             ORDER BY s.start_utc DESC LIMIT :limit"
        )
    });
    &SQL
}

/// The readings of a code on the days `[:from, :before)`.
pub(crate) fn days_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {COLUMNS} FROM series s \
             WHERE {OF_CODE} AND s.local_day >= :from AND s.local_day < :before"
        )
    });
    &SQL
}

/// The legacy rows of a code in the window. The unary `+` keeps the planner on the local-day
/// index (`local_day IS NULL` is a handful of rows), not the time index (every row of the window).
pub(crate) fn legacy_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {COLUMNS} FROM series s \
             WHERE {OF_CODE} AND s.local_day IS NULL \
               AND +s.start_utc >= :utc_lo AND +s.start_utc < :utc_hi"
        )
    });
    &SQL
}

/// The newest elected day and the newest reading of a code in the window, in the shape of
/// [`COLUMNS`] and a last column saying which is which (an elected day's time is its
/// midnight, unused).
pub(crate) fn newest_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT * FROM (
               SELECT 'measured', e.unit, e.local_day, e.local_day || 'T00:00:00Z', e.value, NULL,
                      e.source, 1
                 FROM day_elected e
                WHERE e.subject_id = :subject AND e.system = :system AND e.code = :code
                  AND e.local_day BETWEEN :day_lo AND :day_hi
                ORDER BY e.local_day DESC LIMIT 1) AS elected
             UNION ALL
             SELECT * FROM (
               SELECT {COLUMNS}, 0 FROM series s
                WHERE {OF_CODE} AND {IN_WINDOW}
                ORDER BY s.start_utc DESC LIMIT 1) AS newest"
        )
    });
    &SQL
}

/// The name a code was last recorded under.
pub(crate) fn name_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!("SELECT s.name FROM series s WHERE {OF_CODE} ORDER BY s.start_utc DESC LIMIT 1")
    });
    &SQL
}

/// The named arguments of a series read over a window: the subject, the code and its system,
/// and the window's UTC and local-day bounds.
fn window_args<'a>(
    subject_id: &'a str,
    code: &'a CodeRef,
    bounds: &'a Bounds,
) -> [(&'static str, Arg<'a>); 7] {
    [
        (":subject", Arg::from(subject_id)),
        (":code", Arg::from(&code.code)),
        (":system", Arg::from(code.system.as_str())),
        (":utc_lo", Arg::from(bounds.utc_lo())),
        (":utc_hi", Arg::from(bounds.utc_hi())),
        (":day_lo", Arg::from(bounds.day_lo())),
        (":day_hi", Arg::from(bounds.day_hi())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_wildcards_are_literal() {
        assert_eq!(escape_like("50%_a\\b"), "50\\%\\_a\\\\b");
    }
}
