//! What the readings queries read from a `series` row, and nothing more: never `comment`.
//!
//! Every statement that reads `series` selects [`COLUMNS`] (or a catalogue's aggregates), so
//! the one column that is PHI by itself cannot be selected by accident: a test greps the
//! readings module's SQL for it.

use jiff::civil::DateTime;
use rusqlite::Row;

use crate::envelope::table::Cell;
use crate::store::EntryKind;
use crate::tools::fault::ToolError;
use crate::tools::readings::clock::Clock;

/// The columns a reading is read with, in [`Reading::from_row`]'s order, for a `series` row
/// aliased `s`.
pub(crate) const COLUMNS: &str =
    "s.kind, s.unit, s.local_day, s.start_utc, s.value_num, s.value_text, s.source";

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

impl Reading {
    /// Reads [`COLUMNS`], placing the row in local time with `clock`. A value of the wrong
    /// type is a driver error (`store_fault`); a timestamp that does not parse is a malformed
    /// row.
    pub(crate) fn from_row(row: &Row<'_>, clock: &mut Clock) -> Result<Self, ToolError> {
        let kind: String = row.get(0)?;
        let local_day: Option<String> = row.get(2)?;
        let start_utc: String = row.get(3)?;
        let local = clock
            .local(&start_utc)
            .ok_or(ToolError::Malformed { table: "series" })?;
        let legacy = local_day.is_none();
        let day = local_day.unwrap_or_else(|| local.date().to_string());
        Ok(Self {
            kind: kind
                .parse()
                .map_err(|_| ToolError::Malformed { table: "series" })?,
            unit: row.get(1)?,
            day,
            legacy,
            start_utc,
            local,
            num: row.get(4)?,
            text: row.get(5)?,
            source: row.get(6)?,
        })
    }

    /// The value as a cell: the number, else the text.
    pub(crate) fn value(&self) -> Cell {
        value_cell(self.num, self.text.as_deref())
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
        assert_eq!(value_cell(Some(72.333_333_3), Some("x")), Cell::Float(72.3333));
        assert_eq!(value_cell(None, Some("moderate")), Cell::from("moderate"));
        assert_eq!(value_cell(None, None), Cell::Null);
    }

    #[test]
    fn the_columns_leave_the_comment_out() {
        assert!(!COLUMNS.contains("comment"));
    }
}
