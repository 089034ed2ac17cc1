//! `stats`: `count`, `min`, `max`, `avg`, `first`, `first_date`, `last`, `last_date` and
//! `change` over the window, per indicator and unit.
//!
//! It counts what the day authority counts ([`days`](crate::readings::days)): per series
//! and local day, the elected value where the write side published one and every reading where
//! it did not. A watch and a phone reporting the same Tuesday count once; a morning and an
//! evening blood pressure typed in by hand count twice. `first` and `first_date` are the
//! baseline: the earliest value in the window.

use super::{Group, Part};
use crate::envelope::assumption::{Assumption, ReadingsAssumption};
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::Ctx;

use crate::readings::rows::{count_cell, mean, round, unit_cell, value_cell};
use crate::readings::select::Indicator;

/// The columns of the `stats` view's table.
pub const HEADER: &[&str] = &[
    "indicator",
    "code",
    "unit",
    "count",
    "min",
    "max",
    "avg",
    "first",
    "first_date",
    "last",
    "last_date",
    "change",
];

/// The statistics of every indicator over the window.
pub(super) fn answer(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    let mut part = Part::new(HEADER);
    part.assumptions.push(Assumption::Readings(
        ReadingsAssumption::StatsCountElectedDays,
    ));
    for (rank, indicator) in indicators.iter().enumerate() {
        let points = part.points_of(ctx, indicator)?;
        part.padded |= points.iter().any(|p| p.legacy);
        for (group, points) in Group::series(&points, rank) {
            // Points are in day and time order, so the ends are the baseline and the latest.
            let (Some(first), Some(last)) = (points.first(), points.last()) else {
                continue;
            };
            let numbers: Vec<f64> = points.iter().filter_map(|p| p.num).collect();
            let min = numbers.iter().copied().reduce(f64::min);
            let max = numbers.iter().copied().reduce(f64::max);
            let change = first.num.zip(last.num).map(|(a, b)| round(b - a));
            part.rows.push((
                group.kind,
                vec![
                    Cell::from(indicator.label.as_str()),
                    Cell::from(indicator.code.code.as_str()),
                    unit_cell(group.unit.as_deref()),
                    count_cell(points.len()),
                    Cell::from(min.map(round)),
                    Cell::from(max.map(round)),
                    Cell::from(mean(numbers.iter().sum(), numbers.len())),
                    value_cell(first.num, first.text.as_deref()),
                    Cell::from(first.day.as_str()),
                    value_cell(last.num, last.text.as_deref()),
                    Cell::from(last.day.as_str()),
                    Cell::from(change),
                ],
            ));
            part.provenance.push((group, Provenance::Computed));
        }
    }
    Ok(part)
}
