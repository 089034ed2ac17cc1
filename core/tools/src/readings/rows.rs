//! What the readings queries read from a `series` row, and nothing more: never `comment`.
//!
//! Every statement that reads `series` selects [`COLUMNS`] (or a catalogue's aggregates), so
//! the one column that is PHI by itself cannot be selected by accident: a test greps the
//! readings module's SQL for it.

use jiff::civil::DateTime;
use rusqlite::Row;

use crate::envelope::table::Cell;
use crate::store::EntryKind;
use crate::fault::ToolError;
use crate::readings::clock::Clock;

/// The columns a reading is read with, in [`Reading::from_row`]'s order, for a `series` row
/// aliased `s`.
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

/// One stored reading or entry, comment left out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reading {
    pub(crate) kind: EntryKind,
    pub(crate) unit: Option<String>,
    /// The stored local day, or for a legacy row its local date in the subject's zone today.
    pub(crate) day: String,
    /// No stored local day: found by padding, its day approximate.
    pub(crate) legacy: bool,
    pub(crate) start_utc: String,
    /// Local wall-clock time in the subject's zone.
    pub(crate) local: DateTime,
    pub(crate) num: Option<f64>,
    pub(crate) text: Option<String>,
    pub(crate) source: String,
}

/// A row of [`COLUMNS`] as it lies in the statement, borrowed: what a view that copies little
/// reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowRef<'r> {
    pub(crate) kind: EntryKind,
    pub(crate) unit: Option<&'r str>,
    pub(crate) local_day: Option<&'r str>,
    pub(crate) start_utc: &'r str,
    pub(crate) num: Option<f64>,
    pub(crate) text: Option<&'r str>,
    pub(crate) source: &'r str,
}

impl<'r> RowRef<'r> {
    /// Reads [`COLUMNS`]. A value of the wrong type is a driver error (`store_fault`); text
    /// that is not UTF-8 or a kind outside the schema's is a malformed row.
    pub(crate) fn read(row: &'r Row<'r>) -> Result<Self, ToolError> {
        let malformed = |_| ToolError::Malformed { table: "series" };
        let text = |i| -> Result<Option<&'r str>, ToolError> {
            row.get_ref(i)?.as_str_or_null().map_err(malformed)
        };
        let kind = match text(0)? {
            Some("measured") => EntryKind::Measured,
            Some("reported") => EntryKind::Reported,
            _ => return Err(ToolError::Malformed { table: "series" }),
        };
        Ok(Self {
            kind,
            unit: text(1)?,
            local_day: text(2)?,
            start_utc: row.get_ref(3)?.as_str().map_err(malformed)?,
            num: row.get(4)?,
            text: text(5)?,
            source: row.get_ref(6)?.as_str().map_err(malformed)?,
        })
    }

    /// The row's local date and time in the subject's zone; a timestamp that does not parse is
    /// a malformed row.
    pub(crate) fn local(&self, clock: &mut Clock) -> Result<DateTime, ToolError> {
        clock
            .local(self.start_utc)
            .ok_or(ToolError::Malformed { table: "series" })
    }

    /// The stored local day, or for a legacy row its local date in the zone today.
    pub(crate) fn day(&self, local: DateTime) -> String {
        self.local_day
            .map_or_else(|| local.date().to_string(), str::to_owned)
    }
}

impl Reading {
    /// Reads [`COLUMNS`], placing the row in local time with `clock`.
    pub(crate) fn from_row(row: &Row<'_>, clock: &mut Clock) -> Result<Self, ToolError> {
        let r = RowRef::read(row)?;
        let local = r.local(clock)?;
        Ok(Self {
            kind: r.kind,
            unit: r.unit.map(str::to_owned),
            day: r.day(local),
            legacy: r.local_day.is_none(),
            start_utc: r.start_utc.to_owned(),
            local,
            num: r.num,
            text: r.text.map(str::to_owned),
            source: r.source.to_owned(),
        })
    }
}

/// A number if there is one, else the text, else null.
pub(crate) fn value_cell(num: Option<f64>, text: Option<&str>) -> Cell {
    match (num, text) {
        (Some(x), _) => round(x).into(),
        (None, Some(t)) => t.into(),
        (None, None) => Cell::Null,
    }
}

/// A computed number as answered: four decimals are more than any indicator is measured to,
/// and a model should not read `72.33333333333333`.
pub(crate) fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// The mean of `n` values summing to `sum`, rounded; `None` for no values.
pub(crate) fn mean(sum: f64, n: usize) -> Option<f64> {
    // Counts of readings are far below 2^52, where the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let n_f = n as f64;
    (n > 0).then(|| round(sum / n_f))
}

/// A count as a cell.
pub(crate) fn count_cell(n: usize) -> Cell {
    Cell::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The text of an optional unit, as a cell.
pub(crate) fn unit_cell(unit: Option<&str>) -> Cell {
    unit.map_or(Cell::Null, Cell::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_prefer_the_number_and_round_it() {
        assert_eq!(
            value_cell(Some(72.333_333_3), Some("x")),
            Cell::Float(72.3333)
        );
        assert_eq!(value_cell(None, Some("moderate")), Cell::from("moderate"));
        assert_eq!(value_cell(None, None), Cell::Null);
    }

    #[test]
    fn the_columns_leave_the_comment_out() {
        assert!(!COLUMNS.contains("comment"));
    }
}
