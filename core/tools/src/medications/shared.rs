//! What the three views share: finding drugs by keyword, a plan's cells, the answer's meta,
//! and what an answer with no rows says.

use crate::args::medications::MedicationQuery;
use crate::envelope::Envelope;
use crate::envelope::assumption::{Assumption, MedicationsAssumption, WindowAssumption};
use crate::envelope::kinds::WindowSemantics;
use crate::envelope::meta::Meta;
use crate::envelope::next_step::NextAction;
use crate::envelope::table::{Cell, Table};
use crate::fault::ToolError;
use crate::medications::Ctx;
use crate::store::Plan;
use crate::window::Window;

/// Whether `plan` answers to `keywords`: any word found in the name as recorded (ignoring
/// case), or equal to its code, bare or as `system:code`. No keywords match every plan.
pub(crate) fn matches(plan: &Plan, keywords: &[String]) -> bool {
    if keywords.is_empty() {
        return true;
    }
    let name = plan.name.to_lowercase();
    keywords.iter().any(|k| {
        let k = k.trim().to_lowercase();
        if k.is_empty() {
            return false;
        }
        let by_code = plan.code.as_ref().is_some_and(|c| {
            let code = c.code.to_lowercase();
            k == code || k == format!("{}:{code}", c.system.as_str())
        });
        by_code || name.contains(&k)
    })
}

/// The plan's code and code system, or two empty cells.
fn code_cells(plan: &Plan) -> [Cell; 2] {
    match &plan.code {
        Some(c) => [c.code.as_str().into(), c.system.as_str().into()],
        None => [Cell::Null, Cell::Null],
    }
}

/// The plan's dose amount and unit, or two empty cells.
pub(crate) fn dose_cells(plan: &Plan) -> [Cell; 2] {
    match &plan.dose {
        Some((amount, unit)) => [(*amount).into(), unit.as_str().into()],
        None => [Cell::Null, Cell::Null],
    }
}

/// The cells a plan-shaped row starts with: the drug as recorded, its code and code system,
/// and its dose amount and unit.
fn drug_cells(plan: &Plan) -> [Cell; 5] {
    let [code, system] = code_cells(plan);
    let [dose, unit] = dose_cells(plan);
    [plan.name.as_str().into(), code, system, dose, unit]
}

/// An answer over `window` in the subject's zone. Every medication date is a stored local
/// day, so the window is applied exactly.
pub(crate) fn envelope(ctx: &Ctx<'_>, window: Window) -> Envelope {
    Envelope::ok(Meta::new(
        window,
        ctx.subject.tz_name(),
        WindowSemantics::TzExact,
    ))
}

/// Appends `row` to `table`; every view builds its rows to its own header, so a row that does
/// not fit means the stored data is not what the schema promises.
pub(crate) fn push(
    table: &mut Table,
    row: impl IntoIterator<Item = Cell>,
) -> Result<(), ToolError> {
    table.push_row(row).map_err(|_| ToolError::Malformed {
        table: "medication_plan",
    })
}

/// What an answer with no rows says: the keywords matched none of the drugs `unfiltered`
/// would have answered with (and the call without them), or nothing is recorded.
pub(crate) fn say_empty(env: Envelope, query: &MedicationQuery, unfiltered: usize) -> Envelope {
    if !query.keywords.is_empty() && unfiltered > 0 {
        env.with_assumption(Assumption::Medications(
            MedicationsAssumption::NoMedicationMatch,
        ))
        .with_next_step(query.step(NextAction::CallCatalogue, |q| q.keywords.clear()))
    } else {
        env.with_assumption(Assumption::Medications(
            MedicationsAssumption::NoMedicationRecorded,
        ))
    }
}

/// The answer both plan-shaped views give (`plan`, `history`): the plans in effect at some
/// point in the window that match the keywords, in `order`, one row each in a table called
/// `name`, or the empty answer that says why; always with the plan-is-intent note, since a
/// course's dates are its plan's. A row is the drug's cells (name, code, system, dose, unit),
/// then the view's own, `rest`.
pub(crate) fn plans_answer<const N: usize, const R: usize>(
    ctx: &Ctx<'_>,
    query: &MedicationQuery,
    (name, columns): (&'static str, [&'static str; N]),
    order: impl FnMut(&&Plan, &&Plan) -> std::cmp::Ordering,
    rest: impl Fn(&Plan) -> [Cell; R],
) -> Result<Envelope, ToolError> {
    let all = ctx.store.plans_in_effect(&ctx.subject.id, &query.window)?;
    let mut plans: Vec<&Plan> = all.iter().filter(|p| matches(p, &query.keywords)).collect();
    plans.sort_by(order);
    let mut env = envelope(ctx, query.window);
    if plans.is_empty() {
        env = say_empty(env, query, all.len());
    } else {
        let mut table = Table::new(name, columns);
        for p in plans {
            push(&mut table, drug_cells(p).into_iter().chain(rest(p)))?;
        }
        env = env.with_table(table);
    }
    if query.window.is_all_recorded() {
        env = env.with_assumption(Assumption::Window(WindowAssumption::WindowAllRecorded));
    }
    Ok(env.with_assumption(Assumption::Medications(MedicationsAssumption::PlanIsIntent)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{DrugCode, Frequency, PlanStatus, Route};

    fn plan(name: &str, code: Option<DrugCode>) -> Plan {
        Plan {
            id: "p".into(),
            name: name.into(),
            code,
            dose: None,
            frequency: Frequency::OnceDaily,
            route: Route::Oral,
            start: "2026-01-01".parse().unwrap(),
            end: None,
            status: PlanStatus::Active,
            closed_reason: None,
        }
    }

    #[test]
    fn keywords_find_by_name_part_or_code() {
        let p = plan("Metoprolol tartrate", Some(DrugCode::rxnorm("6918")));
        let k = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert!(matches(&p, &[]));
        assert!(matches(&p, &k(&["METOPROLOL"])));
        assert!(matches(&p, &k(&["aspirin", "tartrate"])));
        assert!(matches(&p, &k(&["6918"])));
        assert!(matches(&p, &k(&["RxNorm:6918"])));
        assert!(!matches(&p, &k(&["691"])));
        assert!(!matches(&p, &k(&["atorvastatin", " "])));
        assert!(!matches(&plan("Atorvastatin", None), &k(&["6918"])));
    }
}
