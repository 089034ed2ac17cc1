//! The read side of readings: typed queries over `series`, the day authority and the per-day
//! summary, with the store's own row types. The tools hold no SQL; every statement that reads
//! a subject's readings is here.
//!
//! - [`Bounds`]: a [`Window`] as the text bounds every windowed statement binds;
//! - [`ReadingRow`]: one stored reading, borrowed from the statement, **never its comment**;
//! - [`Store::visit_newest_first`], [`Store::visit_days`], [`Store::visit_legacy`],
//!   [`Store::visit_newest`], [`Store::elected_days`]: the views' reads (`series`);
//! - [`Store::catalogue`], [`Store::series_of`], [`Store::newest_in_unit`]: the catalogue,
//!   from the summary `series_day`, which triggers keep equal to the rows;
//! - [`Store::recorded_name`], [`Store::codes_by_name`]: what a word selects.
//!
//! A visitor is called once per row with the row borrowed from the statement, so a view that
//! keeps little copies little; it returns [`Flow::Stop`] to end the read early. Its error type
//! is the caller's, so a caller's own fault (a timestamp that does not parse) ends the read too.

pub(crate) mod catalogue;
#[cfg(test)]
mod matrix;
#[cfg(test)]
mod plans;
mod series;

use super::StoreError;
use crate::EntryKind;
#[cfg(doc)]
use crate::Store;
use answers_db::{Args, DbError, Row, Sql};
use answers_protocol::{LocalDate, Window};

pub use self::catalogue::{SeriesSummary, StoredValue};
pub use self::series::{ElectedDay, NameMatch};

/// The columns a reading is read with, in [`ReadingRow::read`]'s order, for a `series` row
/// aliased `s`. `comment` is not among them: a test checks every read statement for it.
pub(crate) const COLUMNS: &str =
    "s.kind, s.unit, s.local_day, s.start_utc, s.value_num, s.value_text, s.source";

/// The rows of one code of the subject, for a `series` row aliased `s`, binding `:subject`,
/// `:code` and `:system`.
///
/// The unary `+` keeps `system` out of index selection: with it, the unique key
/// `(subject_id, system, code, source, start_utc)` offers the planner three equalities, and it
/// picks that index over `(subject_id, code, start_utc)` or `(subject_id, code, local_day)`,
/// which also bound the time or the day. Every readings query is planned on one of the latter
/// two (a test checks each plan).
pub(crate) const OF_CODE: &str =
    "s.subject_id = :subject AND s.code = :code AND +s.system = :system";

/// The SQL condition a series row (aliased `s`) must meet to be in the window, with the
/// bounds bound as `:day_lo`, `:day_hi`, `:utc_lo`, `:utc_hi` ([`Bounds`]).
pub(crate) const IN_WINDOW: &str = "s.start_utc >= :utc_lo AND s.start_utc < :utc_hi \
     AND (s.local_day BETWEEN :day_lo AND :day_hi OR s.local_day IS NULL)";

/// The lowest and highest text a day bound can be compared with: `''` sorts before every
/// date and `'~'` after every digit.
const LOWEST: &str = "";
const HIGHEST: &str = "~";

/// The bounds of a window as the text the readings statements compare with.
///
/// Every row with a stored local day is matched on that day exactly. A legacy row (no local
/// day) is matched by its naive timestamp padded a day either side, which is what
/// `date_padded_naive` reports. Both are bounded by one range on `start_utc`, so the
/// `(subject_id, code, start_utc)` index serves every query: a local day `D` in any zone
/// (offsets are within ±14 h) starts and ends within `[D-1, D+2)` UTC.
///
/// ```
/// use answers_protocol::Window;
/// use answers_store::Bounds;
///
/// let w = Window::between(Some("2024-03-01".parse()?), Some("2024-12-31".parse()?))?;
/// let b = Bounds::of(&w);
/// assert_eq!((b.day_lo(), b.day_hi()), ("2024-03-01", "2024-12-31"));
/// assert_eq!((b.utc_lo(), b.utc_hi()), ("2024-02-29", "2025-01-02"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    day_lo: String,
    day_hi: String,
    utc_lo: String,
    utc_hi: String,
}

impl Bounds {
    /// The bounds of `window`; an open side matches everything on that side.
    #[must_use]
    pub fn of(window: &Window) -> Self {
        let (day_lo, utc_lo) = match window.start() {
            Some(s) => (s.to_string(), shift(s, -1)),
            None => (LOWEST.to_owned(), LOWEST.to_owned()),
        };
        let (day_hi, utc_hi) = match window.end() {
            Some(e) => (e.to_string(), shift(e, 2)),
            None => (HIGHEST.to_owned(), HIGHEST.to_owned()),
        };
        Self {
            day_lo,
            day_hi,
            utc_lo,
            utc_hi,
        }
    }

    /// The first local day, inclusive (`""` for an open start).
    #[must_use]
    pub fn day_lo(&self) -> &str {
        &self.day_lo
    }

    /// The last local day, inclusive (`"~"` for an open end).
    #[must_use]
    pub fn day_hi(&self) -> &str {
        &self.day_hi
    }

    /// The padded start on `start_utc`, inclusive: a day before the window.
    #[must_use]
    pub fn utc_lo(&self) -> &str {
        &self.utc_lo
    }

    /// The padded end on `start_utc`, exclusive: two days after the window's last day.
    #[must_use]
    pub fn utc_hi(&self) -> &str {
        &self.utc_hi
    }
}

/// `day` shifted by `days`, as text; saturates at the ends of the calendar.
fn shift(day: LocalDate, days: i64) -> String {
    let date = day.date();
    let shifted = date
        .checked_add(jiff::Span::new().days(days))
        .unwrap_or(date);
    shifted.to_string()
}

/// What a visitor tells the read: go on, or stop here.
pub use answers_db::Flow;

/// One stored reading or reported entry, borrowed from the statement that read it, comment
/// left out.
///
/// ```
/// use answers_protocol::{Source, Window};
/// use answers_store::{Bounds, Flow, NewReading, Store};
/// use answers_vocab::CodeRef;
///
/// let mut store = Store::open_in_memory()?;
/// store.upsert_subject("s", "you", "Europe/Berlin")?;
/// let weight = CodeRef::loinc("29463-7");
/// store.upsert_readings(&[NewReading::measured("s", "weight", weight.clone(), 70.5, "kg",
///     "2026-01-05T07:00:00Z".parse().unwrap(), Source::Scale)])?;
/// let mut seen = Vec::new();
/// store.visit_newest_first("s", &weight, &Bounds::of(&Window::ALL_RECORDED), None, |r| {
///     seen.push((r.local_day.map(str::to_owned), r.num, r.unit.map(str::to_owned)));
///     Ok::<_, answers_store::StoreError>(Flow::Continue)
/// })?;
/// assert_eq!(seen, [(Some("2026-01-05".to_owned()), Some(70.5), Some("kg".to_owned()))]);
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReadingRow<'r> {
    /// Measured or reported.
    pub kind: EntryKind,
    /// The unit, in its stored spelling.
    pub unit: Option<&'r str>,
    /// The local day the write side decided; `None` for a legacy row.
    pub local_day: Option<&'r str>,
    /// The start, UTC, `YYYY-MM-DDTHH:MM:SSZ` as stored.
    pub start_utc: &'r str,
    /// The numeric value.
    pub num: Option<f64>,
    /// The text value.
    pub text: Option<&'r str>,
    /// The source, as stored.
    pub source: &'r str,
}

impl<'r> ReadingRow<'r> {
    /// Reads [`COLUMNS`]. A value of the wrong type is a driver error (`InvalidColumnType`);
    /// text that is not UTF-8 or a kind outside the schema's is a malformed row.
    pub(crate) fn read(row: &Row<'r>) -> Result<Self, StoreError> {
        let (op, table) = (READ, "series");
        let kind = match row.opt_text(0, op, table)? {
            Some("measured") => EntryKind::Measured,
            Some("reported") => EntryKind::Reported,
            _ => return Err(StoreError::Db(DbError::Malformed { table })),
        };
        Ok(Self {
            kind,
            unit: row.opt_text(1, op, table)?,
            local_day: row.opt_text(2, op, table)?,
            start_utc: row.text(3, op, table)?,
            num: row.opt_real(4, op)?,
            text: row.opt_text(5, op, table)?,
            source: row.text(6, op, table)?,
        })
    }
}

/// The operation every read of readings fails as.
pub(crate) const READ: &str = "read readings";

impl crate::Store {
    /// Runs the statement `sql` with `args` and hands `each` every row in turn, until it
    /// returns [`Flow::Stop`] or the rows run out.
    pub(crate) fn each_row<'a, E: From<StoreError>>(
        &self,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
        each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        self.visit_rows(false, sql.into(), args.into(), each)
    }

    /// As [`Store::each_row`], for a statement whose `LIMIT` keeps its rows few: on
    /// `PostgreSQL` in one round trip, without a portal.
    pub(crate) fn each_few_rows<'a, E: From<StoreError>>(
        &self,
        sql: impl Into<Sql<'a>>,
        args: impl Into<Args<'a>>,
        each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        self.visit_rows(true, sql.into(), args.into(), each)
    }

    /// [`Store::each_row`], or with `few` [`Store::each_few_rows`].
    fn visit_rows<E: From<StoreError>>(
        &self,
        few: bool,
        sql: Sql<'_>,
        args: Args<'_>,
        mut each: impl FnMut(&Row<'_>) -> Result<Flow, E>,
    ) -> Result<(), E> {
        let each = |row: &Row<'_>| each(row).map_err(Visit);
        let rows = if few {
            self.db.each_few(READ, sql, args, each)
        } else {
            self.db.each(READ, sql, args, each)
        };
        rows.map_err(|Visit(e)| e)
    }
}

/// A visitor's error as the connection layer carries it: a visitor's error type need only
/// come from a [`StoreError`], and a [`DbError`] reaches it as one.
struct Visit<E>(E);

impl<E: From<StoreError>> From<DbError> for Visit<E> {
    fn from(e: DbError) -> Visit<E> {
        Visit(E::from(StoreError::Db(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: Option<&str>, e: Option<&str>) -> Window {
        Window::between(s.map(|d| d.parse().unwrap()), e.map(|d| d.parse().unwrap())).unwrap()
    }

    #[test]
    fn pads_a_day_before_and_a_day_after() {
        let b = Bounds::of(&w(Some("2024-03-01"), Some("2024-12-31")));
        assert_eq!(b.day_lo, "2024-03-01");
        assert_eq!(b.day_hi, "2024-12-31");
        assert_eq!(b.utc_lo, "2024-02-29");
        assert_eq!(b.utc_hi, "2025-01-02");
        // A legacy row on the last padded day is in; a day later is out.
        assert!("2025-01-01T23:59:59Z" < b.utc_hi.as_str());
        assert!("2025-01-02T00:00:00Z" >= b.utc_hi.as_str());
    }

    #[test]
    fn an_open_window_matches_every_text() {
        let b = Bounds::of(&Window::ALL_RECORDED);
        for t in ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
            assert!(b.utc_lo.as_str() <= t && t < b.utc_hi.as_str());
            assert!(b.day_lo.as_str() <= &t[..10] && &t[..10] <= b.day_hi.as_str());
        }
    }

    #[test]
    fn a_locked_database_is_a_transient_fault_and_reads_again_once_released() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record.db");
        let store = crate::Store::open(&path).unwrap();
        store.upsert_subject("s", "you", "UTC").unwrap();
        // In WAL mode a writer never blocks a reader; with a rollback journal an exclusive
        // transaction does, which is the lock a reader can meet.
        store
            .conn()
            .busy_timeout(std::time::Duration::ZERO)
            .unwrap();
        store
            .conn()
            .pragma_update(None, "journal_mode", "DELETE")
            .unwrap();
        let other = rusqlite::Connection::open(&path).unwrap();
        other.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let all = Bounds::of(&Window::ALL_RECORDED);
        let err = store.catalogue("s", &all).unwrap_err();
        assert!(err.is_transient(), "{err}");
        assert!(err.to_string().contains("DatabaseBusy"), "{err}");
        drop(other);
        assert_eq!(store.catalogue("s", &all).unwrap(), []);
    }

    #[test]
    fn the_columns_leave_the_comment_out() {
        assert!(!COLUMNS.contains("comment"));
    }
}
