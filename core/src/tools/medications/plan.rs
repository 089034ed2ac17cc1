//! `view=plan`: the plans in effect at some point in the window, newest start first. A plan is
//! what the person intends to take; every answer says so.

use super::Ctx;
use super::shared::{code_cells, dose_cells, envelope, matches, push, say_empty};
use crate::args::medications::MedicationQuery;
use crate::envelope::Envelope;
use crate::envelope::assumption::Assumption;
use crate::envelope::table::{Cell, Table};
use crate::tools::fault::ToolError;

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

/// Answers a `plan` call.
pub(crate) fn answer(ctx: &Ctx<'_>, query: &MedicationQuery) -> Result<Envelope, ToolError> {
    let all = ctx.store.plans_in_effect(&ctx.subject.id, &query.window)?;
    let mut plans: Vec<_> = all.iter().filter(|p| matches(p, &query.keywords)).collect();
    plans.sort_by(|a, b| b.start.cmp(&a.start).then_with(|| a.id.cmp(&b.id)));
    let mut env = envelope(ctx, query.window);
    if plans.is_empty() {
        env = say_empty(env, query, all.len());
    } else {
        let mut table = Table::new("plans", COLUMNS);
        for p in plans {
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
                    p.frequency.as_str().into(),
                    p.route.as_str().into(),
                    p.start.to_string().into(),
                    Cell::from(p.end.map(|d| d.to_string())),
                    p.status.as_str().into(),
                ],
            )?;
        }
        env = env.with_table(table);
    }
    if query.window.is_all_recorded() {
        env = env.with_assumption(Assumption::WindowAllRecorded);
    }
    Ok(env.with_assumption(Assumption::PlanIsIntent))
}
