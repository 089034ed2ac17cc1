//! `view=plan`: the plans in effect at some point in the window, newest start first, and, when
//! the window holds today, today's dose slots ([`slots`](super::slots)). A plan is what the
//! person intends to take; every answer says so.

use super::shared::plans_answer;
use super::{Ctx, slots};
use crate::args::medications::MedicationQuery;
use crate::envelope::Envelope;
use crate::envelope::assumption::{Assumption, MedicationsAssumption};
use crate::envelope::table::Cell;
use crate::fault::ToolError;

/// The columns of the `plans` table.
pub(crate) const COLUMNS: [&str; 10] = [
    "medication",
    "code",
    "system",
    "dose",
    "unit",
    "frequency",
    "route",
    "start",
    "end",
    "status",
];

/// Answers a `plan` call: newest start first.
pub(crate) fn answer(ctx: &Ctx<'_>, query: &MedicationQuery) -> Result<Envelope, ToolError> {
    let env = plans_answer(
        ctx,
        query,
        ("plans", COLUMNS),
        |a, b| b.start.cmp(&a.start).then_with(|| a.id.cmp(&b.id)),
        |p| {
            [
                p.frequency.as_str().into(),
                p.route.as_str().into(),
                p.start.to_string().into(),
                Cell::from(p.end.map(|d| d.to_string())),
                p.status.as_str().into(),
            ]
        },
    )?;
    if !slots::holds(&query.window, ctx.today) {
        return Ok(env);
    }
    Ok(match slots::today_table(ctx, query)? {
        Some(today) => env
            .with_table(today)
            .with_assumption(Assumption::Medications(
                MedicationsAssumption::DoseSlotsToday,
            )),
        None => env,
    })
}
