//! `view=plan`: the plans in effect at some point in the window, newest start first. A plan is
//! what the person intends to take; every answer says so.

use super::Ctx;
use super::shared::plans_answer;
use crate::args::medications::MedicationQuery;
use crate::envelope::Envelope;
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
    plans_answer(
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
    )
}
