//! `view=history`: the courses in effect at some point in the window, oldest start first, each
//! with its start, its end and the reason it closed: where a switch of drugs can be read off
//! as a date, to ask the readings tool about the time after it.

use super::Ctx;
use super::shared::plans_answer;
use crate::args::medications::MedicationQuery;
use crate::envelope::Envelope;
use crate::envelope::table::Cell;
use crate::fault::ToolError;

/// The columns of the `courses` table.
pub(crate) const COLUMNS: [&str; 9] = [
    "medication",
    "code",
    "system",
    "dose",
    "unit",
    "start",
    "end",
    "status",
    "closed_reason",
];

/// Answers a `history` call: oldest start first, as the store reads them.
pub(crate) fn answer(ctx: &Ctx<'_>, query: &MedicationQuery) -> Result<Envelope, ToolError> {
    plans_answer(
        ctx,
        query,
        ("courses", COLUMNS),
        |_, _| std::cmp::Ordering::Equal,
        |p| {
            [
                p.start.to_string().into(),
                Cell::from(p.end.map(|d| d.to_string())),
                p.status.as_str().into(),
                Cell::from(p.closed_reason.map(|r| r.as_str())),
            ]
        },
    )
}
