//! The catalogue's reads: one [`SeriesSummary`] per series (kind, code and unit) in a window,
//! from the per-day summary `series_day`, not from the rows.
//!
//! `series_day` holds, per subject, series and day, how many rows of `series` fall on it: a
//! row with a stored local day counts on that day (`legacy = 0`), a legacy row on the date of
//! its naive timestamp (`legacy = 1`). Triggers on `series` keep it (schema version 5), so
//! every write path, the store's or a hand-written statement, leaves it equal to the rows.
//! A window then selects the days a scan of `series` would ([`super::IN_WINDOW`]): a stored
//! local day in `[day_lo, day_hi]`, a legacy date in `[utc_lo, utc_hi)`. A stored local day is
//! its reading's local date in a zone within ±14 h, so its `start_utc` is inside the padded
//! bounds whenever its day is inside the window, which is why the scan's `start_utc` range
//! needs no counterpart here. A test compares the two on random records.
//!
//! The catalogue of five years of minute data reads one summary row per series and day
//! (about 1,800 per series), not 2.6 M readings.

use std::sync::LazyLock;

use super::{Bounds, Flow, IN_WINDOW, OF_CODE, READ};
use crate::{EntryKind, Store, StoreError};
use answers_db::{Arg, DbError, Row};
use answers_vocab::{CodeRef, CodeSystem};

/// Migration 5: the per-day summary and the triggers that keep it. A row's unit is keyed as
/// `x'00'` (a blob, which no stored unit is) when it has none, since a key column cannot be
/// null; it is read back as null.
pub(crate) const MIGRATION: &str = r"
CREATE TABLE series_day (
    subject_id TEXT NOT NULL,
    code       TEXT NOT NULL,
    system     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    unit       NOT NULL,
    legacy     INTEGER NOT NULL,
    day        TEXT NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (subject_id, code, system, kind, unit, legacy, day)
) WITHOUT ROWID;
INSERT INTO series_day (subject_id, code, system, kind, unit, legacy, day, n)
    SELECT subject_id, code, system, kind, ifnull(unit, x'00'), local_day IS NULL,
           coalesce(local_day, substr(start_utc, 1, 10)), count(*)
      FROM series
     GROUP BY 1, 2, 3, 4, 5, 6, 7;
CREATE TRIGGER series_day_insert AFTER INSERT ON series BEGIN
    INSERT INTO series_day (subject_id, code, system, kind, unit, legacy, day, n)
    VALUES (NEW.subject_id, NEW.code, NEW.system, NEW.kind, ifnull(NEW.unit, x'00'),
            NEW.local_day IS NULL, coalesce(NEW.local_day, substr(NEW.start_utc, 1, 10)), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER series_day_delete AFTER DELETE ON series BEGIN
    UPDATE series_day SET n = n - 1
     WHERE subject_id = OLD.subject_id AND code = OLD.code AND system = OLD.system
       AND kind = OLD.kind AND unit = ifnull(OLD.unit, x'00') AND legacy = (OLD.local_day IS NULL)
       AND day = coalesce(OLD.local_day, substr(OLD.start_utc, 1, 10));
    DELETE FROM series_day
     WHERE subject_id = OLD.subject_id AND code = OLD.code AND n <= 0;
END;
CREATE TRIGGER series_day_update
AFTER UPDATE OF subject_id, code, system, kind, unit, local_day, start_utc ON series BEGIN
    UPDATE series_day SET n = n - 1
     WHERE subject_id = OLD.subject_id AND code = OLD.code AND system = OLD.system
       AND kind = OLD.kind AND unit = ifnull(OLD.unit, x'00') AND legacy = (OLD.local_day IS NULL)
       AND day = coalesce(OLD.local_day, substr(OLD.start_utc, 1, 10));
    DELETE FROM series_day
     WHERE subject_id = OLD.subject_id AND code = OLD.code AND n <= 0;
    INSERT INTO series_day (subject_id, code, system, kind, unit, legacy, day, n)
    VALUES (NEW.subject_id, NEW.code, NEW.system, NEW.kind, ifnull(NEW.unit, x'00'),
            NEW.local_day IS NULL, coalesce(NEW.local_day, substr(NEW.start_utc, 1, 10)), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
";

/// One series of a window: its kind, code and unit, how many rows it has there, and its first
/// and last day.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SeriesSummary {
    /// The code.
    pub code: CodeRef,
    /// Measured or reported.
    pub kind: EntryKind,
    /// The unit its rows carry.
    pub unit: Option<String>,
    /// Its rows in the window.
    pub count: usize,
    /// The first day: a stored local day, or a legacy row's naive date.
    pub first_day: String,
    /// The last day, likewise.
    pub last_day: String,
    /// Some row of it is legacy (no stored local day), its day approximate.
    pub legacy: bool,
}

/// A stored value: a number, a text, both or neither.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredValue {
    /// The numeric value.
    pub num: Option<f64>,
    /// The text value.
    pub text: Option<String>,
    /// When it was recorded, UTC, as stored.
    pub start_utc: String,
}

impl Store {
    /// Every series of the subject in the window, from the per-day summary, in code order.
    ///
    /// ```
    /// use answers_protocol::{Source, Window};
    /// use answers_store::{Bounds, NewReading, Store};
    /// use answers_vocab::CodeRef;
    ///
    /// let mut store = Store::open_in_memory()?;
    /// store.upsert_subject("s", "you", "Europe/Berlin")?;
    /// let steps = |at: &str, v| NewReading::measured("s", "steps", CodeRef::loinc("41950-7"), v,
    ///     "steps", at.parse().unwrap(), Source::Watch);
    /// store.upsert_readings(&[steps("2026-01-05T20:00:00Z", 9000.0), steps("2026-01-07T20:00:00Z", 7000.0)])?;
    /// let all = store.catalogue("s", &Bounds::of(&Window::ALL_RECORDED))?;
    /// assert_eq!(all.len(), 1);
    /// assert_eq!((all[0].count, all[0].first_day.as_str(), all[0].last_day.as_str()),
    ///     (2, "2026-01-05", "2026-01-07"));
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    pub fn catalogue(
        &self,
        subject_id: &str,
        bounds: &Bounds,
    ) -> Result<Vec<SeriesSummary>, StoreError> {
        self.summaries(&CATALOGUE, subject_id, None, bounds)
    }

    /// The series of one code in the window, from the per-day summary.
    pub fn series_of(
        &self,
        subject_id: &str,
        code: &CodeRef,
        bounds: &Bounds,
    ) -> Result<Vec<SeriesSummary>, StoreError> {
        self.summaries(&SERIES_OF, subject_id, Some(code), bounds)
    }

    fn summaries(
        &self,
        sql: &'static str,
        subject_id: &str,
        code: Option<&CodeRef>,
        b: &Bounds,
    ) -> Result<Vec<SeriesSummary>, StoreError> {
        let mut out = Vec::new();
        let sql = crate::pg::translated(sql);
        let push = |row: &Row<'_>| {
            out.push(summary(row)?);
            Ok::<_, StoreError>(Flow::Continue)
        };
        match code {
            None => self.each_few_rows(
                sql,
                &[
                    (":subject", Arg::from(subject_id)),
                    (":utc_lo", Arg::from(b.utc_lo())),
                    (":utc_hi", Arg::from(b.utc_hi())),
                    (":day_lo", Arg::from(b.day_lo())),
                    (":day_hi", Arg::from(b.day_hi())),
                ],
                push,
            ),
            Some(code) => self.each_few_rows(
                sql,
                &[
                    (":subject", Arg::from(subject_id)),
                    (":code", Arg::from(&code.code)),
                    (":system", Arg::from(code.system.as_str())),
                    (":utc_lo", Arg::from(b.utc_lo())),
                    (":utc_hi", Arg::from(b.utc_hi())),
                    (":day_lo", Arg::from(b.day_lo())),
                    (":day_hi", Arg::from(b.day_hi())),
                ],
                push,
            ),
        }?;
        Ok(out)
    }

    /// The newest value of `code` in `unit` (`None`: rows without one) in the
    /// window, if it has one there.
    pub fn newest_in_unit(
        &self,
        subject_id: &str,
        code: &CodeRef,
        unit: Option<&str>,
        b: &Bounds,
    ) -> Result<Option<StoredValue>, StoreError> {
        let mut newest = None;
        self.each_few_rows(
            crate::pg::translated(newest_in_unit_sql()),
            &[
                (":subject", Arg::from(subject_id)),
                (":code", Arg::from(&code.code)),
                (":system", Arg::from(code.system.as_str())),
                (":unit", Arg::from(unit)),
                (":utc_lo", Arg::from(b.utc_lo())),
                (":utc_hi", Arg::from(b.utc_hi())),
                (":day_lo", Arg::from(b.day_lo())),
                (":day_hi", Arg::from(b.day_hi())),
            ],
            |row| {
                newest = Some(StoredValue {
                    num: row.opt_real(0, READ)?,
                    text: row.opt_text(1, READ, "series")?.map(str::to_owned),
                    start_utc: row.text(2, READ, "series")?.to_owned(),
                });
                Ok::<_, StoreError>(Flow::Stop)
            },
        )?;
        Ok(newest)
    }
}

/// A row of the summary statements: code, system, kind, unit, count, first, last, legacy.
fn summary(row: &Row<'_>) -> Result<SeriesSummary, StoreError> {
    let table = "series";
    let malformed = || StoreError::Db(DbError::Malformed { table });
    let text = |i| row.text(i, READ, table);
    let system: CodeSystem = text(1)?.parse().map_err(|_| malformed())?;
    let count = row.int(4, READ)?;
    Ok(SeriesSummary {
        code: CodeRef::new(system, text(0)?),
        kind: text(2)?.parse().map_err(|_| malformed())?,
        unit: row.opt_text(3, READ, table)?.map(str::to_owned),
        count: usize::try_from(count).map_err(|_| malformed())?,
        first_day: text(5)?.to_owned(),
        last_day: text(6)?.to_owned(),
        legacy: row.flag(7, READ)?,
    })
}

const DAY_IN_WINDOW: &str = "CASE d.legacy WHEN 0 THEN d.day BETWEEN :day_lo AND :day_hi \
     ELSE d.day >= :utc_lo AND d.day < :utc_hi END";

/// The columns of a summary, grouped per series.
const SUMMARY: &str = "SELECT d.code, d.system, d.kind, nullif(d.unit, x'00'), sum(d.n), \
     min(d.day), max(d.day), max(d.legacy) FROM series_day d";

/// Every series of a subject in the window.
pub(crate) static CATALOGUE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{SUMMARY} WHERE d.subject_id = :subject AND {DAY_IN_WINDOW} \
         GROUP BY d.code, d.system, d.kind, d.unit"
    )
});

/// The series of one code in the window.
pub(crate) static SERIES_OF: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{SUMMARY} WHERE d.subject_id = :subject AND d.code = :code AND d.system = :system \
           AND {DAY_IN_WINDOW} \
         GROUP BY d.code, d.system, d.kind, d.unit"
    )
});

/// The newest value of one code in one unit (`:unit`, null for none) in the window.
pub(crate) fn newest_in_unit_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT s.value_num, s.value_text, s.start_utc FROM series s
              WHERE {OF_CODE} AND s.unit IS :unit AND {IN_WINDOW}
              ORDER BY s.start_utc DESC LIMIT 1"
        )
    });
    &SQL
}

/// The catalogue as a scan of `series` computes it: what the summary must equal.
#[cfg(test)]
pub(crate) fn scan_sql() -> String {
    format!(
        "SELECT s.code, s.system, s.kind, s.unit, count(*),
                min(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
                max(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
                max(s.local_day IS NULL)
           FROM series s
          WHERE s.subject_id = :subject AND {IN_WINDOW}
          GROUP BY s.code, s.system, s.kind, s.unit"
    )
}

#[cfg(test)]
#[path = "catalogue/tests.rs"]
mod tests;
