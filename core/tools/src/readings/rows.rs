//! A stored reading as the views use it: [`ReadingRow`] (the store's row, borrowed, never the
//! comment) placed in the subject's local time, and the cells values become.

use answers_store::ReadingRow;
use jiff::civil::DateTime;

use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::clock::Clock;
use crate::store::EntryKind;

/// One stored reading or entry, comment left out, owned.
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

/// The row's local date and time in the subject's zone; a timestamp that does not parse is a
/// malformed row.
pub(crate) fn local_of(r: &ReadingRow<'_>, clock: &mut Clock) -> Result<DateTime, ToolError> {
    clock
        .local(r.start_utc)
        .ok_or(ToolError::Malformed { table: "series" })
}

/// The stored local day, or for a legacy row its local date in the zone today.
pub(crate) fn day_of(r: &ReadingRow<'_>, local: DateTime) -> String {
    r.local_day
        .map_or_else(|| local.date().to_string(), str::to_owned)
}

impl Reading {
    /// The store's row, placed in local time with `clock`.
    pub(crate) fn from_row(r: &ReadingRow<'_>, clock: &mut Clock) -> Result<Self, ToolError> {
        let local = local_of(r, clock)?;
        Ok(Self {
            kind: r.kind,
            unit: r.unit.map(str::to_owned),
            day: day_of(r, local),
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
}
