//! The views' reads of one code: its readings newest first, its readings on a range of days,
//! its legacy rows, its elected days, its newest value; and the names and codes a word
//! selects.

use std::sync::LazyLock;

use rusqlite::named_params;

use super::{Bounds, COLUMNS, Flow, IN_WINDOW, OF_CODE, ReadingRow, read_err};
use crate::{Store, StoreError};
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
        // SQLite reads a negative limit as none.
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        self.each_row(
            newest_first_sql(),
            named_params! {
                    ":subject": subject_id,
                    ":code": &code.code,
                    ":system": code.system.as_str(),
                    ":utc_lo": bounds.utc_lo(),
                    ":utc_hi": bounds.utc_hi(),
                    ":day_lo": bounds.day_lo(),
                    ":day_hi": bounds.day_hi(),
                    ":limit": limit,
            },
            |row| visit(ReadingRow::read(row)?),
        )
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
            days_sql(),
            named_params! {
                    ":subject": subject_id,
                    ":code": &code.code,
                    ":from": from,
                    ":before": before,
                    ":system": code.system.as_str(),
            },
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
            legacy_sql(),
            named_params! {
                    ":subject": subject_id,
                    ":code": &code.code,
                    ":utc_lo": bounds.utc_lo(),
                    ":utc_hi": bounds.utc_hi(),
                    ":system": code.system.as_str(),
            },
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
            ELECTED,
            named_params! {
                    ":subject": subject_id,
                    ":system": code.system.as_str(),
                    ":code": &code.code,
                    ":day_lo": bounds.day_lo(),
                    ":day_hi": bounds.day_hi(),
            },
            |row| {
                out.push(ElectedDay {
                    day: row.get(0).map_err(|e| read_err(&e))?,
                    value: row.get(1).map_err(|e| read_err(&e))?,
                    source: row.get(2).map_err(|e| read_err(&e))?,
                    unit: row.get(3).map_err(|e| read_err(&e))?,
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
        self.each_row(
            newest_sql(),
            named_params! {
                    ":subject": subject_id,
                    ":code": &code.code,
                    ":system": code.system.as_str(),
                    ":utc_lo": bounds.utc_lo(),
                    ":utc_hi": bounds.utc_hi(),
                    ":day_lo": bounds.day_lo(),
                    ":day_hi": bounds.day_hi(),
            },
            |row| {
                let elected: bool = row.get(7).map_err(|e| read_err(&e))?;
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
        self.each_row(
            name_sql(),
            named_params! {
                    ":subject": subject_id,
                    ":code": &code.code,
                    ":system": code.system.as_str(),
            },
            |row| {
                name = Some(row.get(0).map_err(|e| read_err(&e))?);
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
        let (sql, pattern) = match how {
            NameMatch::Exact => (
                "SELECT DISTINCT s.system, s.code FROM series s \
                 WHERE s.subject_id = ?1 AND s.name = ?2 COLLATE NOCASE",
                word.trim().to_owned(),
            ),
            NameMatch::Contains => (
                "SELECT DISTINCT s.system, s.code FROM series s \
                 WHERE s.subject_id = ?1 AND s.name LIKE ?2 ESCAPE '\\'",
                format!("%{}%", escape_like(word.trim())),
            ),
        };
        let mut codes = Vec::new();
        self.each_row(sql, (subject_id, pattern), |row| {
            let system: String = row.get(0).map_err(|e| read_err(&e))?;
            let code: String = row.get(1).map_err(|e| read_err(&e))?;
            let system = system
                .parse::<CodeSystem>()
                .map_err(|_| StoreError::Malformed { table: "series" })?;
            codes.push(CodeRef::new(system, &code));
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
                ORDER BY e.local_day DESC LIMIT 1)
             UNION ALL
             SELECT * FROM (
               SELECT {COLUMNS}, 0 FROM series s
                WHERE {OF_CODE} AND {IN_WINDOW}
                ORDER BY s.start_utc DESC LIMIT 1)"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_wildcards_are_literal() {
        assert_eq!(escape_like("50%_a\\b"), "50\\%\\_a\\\\b");
    }
}
