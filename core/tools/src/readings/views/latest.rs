//! `latest`: the most recent value per indicator in the window, from the day authority.
//!
//! The newest day wins. If the write side elected a source for it, its elected value is the
//! answer (`elected:<source>`), which is what `day` shows for that day: one day, one number. A
//! newer day nothing elected answers with its newest reading (`measured`).

use super::{Group, Part, provenance_of};
use crate::envelope::assumption::{Assumption, ReadingsAssumption};
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::readings::rows::{day_of, local_of, unit_cell, value_cell};
use crate::readings::select::Indicator;
use crate::readings::units::Units;
use crate::store::EntryKind;

/// The columns of the `latest` view's table.
pub const HEADER: &[&str] = &["indicator", "code", "date", "value", "unit", "source"];

/// An indicator's most recent value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Latest {
    pub(crate) kind: EntryKind,
    pub(crate) day: String,
    pub(crate) value: Cell,
    pub(crate) unit: Option<String>,
    pub(crate) source: String,
    pub(crate) provenance: Provenance,
    pub(crate) legacy: bool,
    /// The value was recorded in another unit and converted.
    pub(crate) converted: bool,
}

/// The latest value of every indicator.
pub(super) fn answer(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    let mut part = Part::new(HEADER);
    for (rank, indicator) in indicators.iter().enumerate() {
        let Some(latest) = latest_of(ctx, indicator)? else {
            continue;
        };
        part.padded |= latest.legacy;
        if latest.converted {
            part.assumptions
                .push(Assumption::Readings(ReadingsAssumption::UnitConverted));
        }
        if matches!(latest.provenance, Provenance::Elected(_)) {
            part.assumptions.push(Assumption::Readings(
                ReadingsAssumption::ElectedSourcePerDay,
            ));
        }
        let group = Group {
            kind: latest.kind,
            rank,
            unit: latest.unit.clone(),
        };
        part.rows.push((
            group.kind,
            vec![
                Cell::from(indicator.label.as_str()),
                Cell::from(indicator.code.code.as_str()),
                Cell::Text(latest.day),
                latest.value,
                unit_cell(latest.unit.as_deref()),
                Cell::Text(latest.source),
            ],
        ));
        part.provenance.push((group, latest.provenance));
    }
    Ok(part)
}

/// The most recent value of `indicator` in the window, if it has one.
pub(crate) fn latest_of(ctx: &Ctx<'_>, indicator: &Indicator) -> Result<Option<Latest>, ToolError> {
    let mut clock = ctx.clock.clone();
    let mut units = Units::of(&indicator.code);
    let (mut elected, mut reading) = (None, None);
    ctx.store.visit_newest(
        ctx.subject_id,
        &indicator.code,
        &ctx.bounds,
        |r, was_elected| {
            let local = local_of(&r, &mut clock)?;
            let (unit, num) = units.convert(r.unit, r.num);
            let latest = Latest {
                kind: r.kind,
                day: day_of(&r, local),
                value: value_cell(num, r.text),
                unit: unit.map(str::to_owned),
                converted: unit != r.unit,
                source: r.source.to_owned(),
                provenance: if was_elected {
                    provenance_of(std::iter::once(r.source), 0, false)
                } else {
                    Provenance::Measured
                },
                legacy: r.local_day.is_none(),
            };
            if was_elected {
                elected = Some(latest);
            } else {
                reading = Some(latest);
            }
            Ok::<_, ToolError>(())
        },
    )?;
    // A newer day nothing elected answers with its newest reading; else the elected day.
    Ok(match (elected, reading) {
        (Some(e), Some(r)) if r.day > e.day => Some(r),
        (Some(e), _) => Some(e),
        (None, r) => r,
    })
}
