//! `raw`: stored readings, newest first, at most the call's row budget per indicator
//! ([`ROW_CAP`](crate::readings::ROW_CAP) for a model).

use super::{Group, Part};
use crate::envelope::assumption::{Assumption, ReadingsAssumption};
use crate::envelope::kinds::Provenance;
use crate::envelope::table::Cell;
use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::readings::clock::time_label;
use crate::readings::rows::{day_of, local_of, unit_cell, value_cell};
use crate::readings::select::Indicator;
use crate::readings::units::Units;
use crate::store::Flow;

/// The columns of the `raw` view's table.
pub const HEADER: &[&str] = &[
    "indicator",
    "code",
    "date",
    "time",
    "value",
    "unit",
    "source",
];

/// Every indicator's newest readings in the window, cut at the call's row budget.
pub(super) fn answer(ctx: &Ctx<'_>, indicators: &[Indicator]) -> Result<Part, ToolError> {
    let mut part = Part::new(HEADER);
    let mut clock = ctx.clock.clone();
    let cap = ctx.budget.rows();
    for (rank, indicator) in indicators.iter().enumerate() {
        // The (kind, unit) pairs seen, in order; rarely more than one.
        let mut groups: Vec<Group> = Vec::new();
        let mut kept = 0;
        let mut units = Units::of(&indicator.code);
        // One more than the cap, to tell a cut.
        ctx.store.visit_newest_first(
            ctx.subject_id,
            &indicator.code,
            &ctx.bounds,
            Some(cap + 1),
            |r| {
                if kept == cap {
                    part.cut_at(cap);
                    return Ok::<_, ToolError>(Flow::Stop);
                }
                kept += 1;
                let local = local_of(&r, &mut clock)?;
                part.padded |= r.local_day.is_none();
                let (unit, num) = units.convert(r.unit, r.num);
                if !groups
                    .iter()
                    .any(|g| g.kind == r.kind && g.unit.as_deref() == unit)
                {
                    groups.push(Group {
                        kind: r.kind,
                        rank,
                        unit: unit.map(str::to_owned),
                    });
                }
                let cells = vec![
                    Cell::from(indicator.label.as_str()),
                    Cell::from(indicator.code.code.as_str()),
                    Cell::Text(day_of(&r, local)),
                    Cell::Text(time_label(local)),
                    value_cell(num, r.text),
                    unit_cell(unit),
                    Cell::from(r.source),
                ];
                part.rows.push((r.kind, cells));
                Ok(Flow::Continue)
            },
        )?;
        if units.converted() {
            part.assumptions
                .push(Assumption::Readings(ReadingsAssumption::UnitConverted));
        }
        part.provenance
            .extend(groups.into_iter().map(|g| (g, Provenance::Measured)));
    }
    Ok(part)
}
