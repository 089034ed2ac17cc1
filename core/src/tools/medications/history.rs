//! `view=history`: the courses in effect at some point in the window, oldest start first, each
//! with its start, its end and the reason it closed: where a switch of drugs can be read off
//! as a date, to ask the readings tool about the time after it.

use super::Ctx;
use super::shared::{code_cells, dose_cells, envelope, matches, push, say_empty};
use crate::args::medications::MedicationQuery;
use crate::envelope::Envelope;
use crate::envelope::assumption::Assumption;
use crate::envelope::table::{Cell, Table};
use crate::tools::fault::ToolError;

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

/// Answers a `history` call.
pub(crate) fn answer(ctx: &Ctx<'_>, query: &MedicationQuery) -> Result<Envelope, ToolError> {
    // Oldest start first, as the store reads them.
    let all = ctx.store.plans_in_effect(&ctx.subject.id, &query.window)?;
    let courses: Vec<_> = all.iter().filter(|p| matches(p, &query.keywords)).collect();
    let mut env = envelope(ctx, query.window);
    if courses.is_empty() {
        env = say_empty(env, query, all.len());
    } else {
        let mut table = Table::new("courses", COLUMNS);
        for p in courses {
            let [code, system] = code_cells(p);
            let [dose, unit] = dose_cells(p);
            push(
                &mut table,
                [
                    p.name.as_str().into(),
                    code,
                    system,
                    dose,
                    unit,
                    p.start.to_string().into(),
                    Cell::from(p.end.map(|d| d.to_string())),
                    p.status.as_str().into(),
                    Cell::from(p.closed_reason.map(|r| r.as_str())),
                ],
            )?;
        }
        env = env.with_table(table);
    }
    if query.window.is_all_recorded() {
        env = env.with_assumption(Assumption::WindowAllRecorded);
    }
    // A course's dates are its plan's: intent, like the plan view.
    Ok(env.with_assumption(Assumption::PlanIsIntent))
}
