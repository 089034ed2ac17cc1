//! `view=log`: the doses recorded on a local day in the window, newest first, with a count
//! per drug over the whole window. Without a window, the [`LOG_DEFAULT_DAYS`] days ending today
//! in the subject's zone, as the original implementation reads its clock; the answer states the
//! window it used, and when that window has no dose but the log has older ones, it says so and
//! suggests the same span ending on the last recorded dose. A dose with no record is absent;
//! every answer says that is not evidence it was not taken.

use std::collections::{BTreeMap, HashMap};

use super::shared::{dose_cells, envelope, matches, push, say_empty};
use super::{Ctx, DOSE_LOG_CAP, LOG_DEFAULT_DAYS};
use crate::args::medications::MedicationQuery;
use crate::date::LocalDate;
use crate::envelope::Envelope;
use crate::envelope::assumption::{Assumption, MedicationsAssumption};
use crate::envelope::next_step::NextAction;
use crate::envelope::table::Table;
use crate::fault::ToolError;
use crate::store::{Dose, DoseStatus, Plan};
use crate::window::Window;

/// The columns of the `doses_per_drug` table.
pub(crate) const PER_DRUG_COLUMNS: [&str; 7] = [
    "medication",
    "dose",
    "unit",
    "taken",
    "skipped",
    "first_day",
    "last_day",
];

/// The columns of the `doses` table.
pub(crate) const DOSE_COLUMNS: [&str; 6] = ["day", "time", "medication", "dose", "unit", "status"];

/// Answers a `log` call.
pub(crate) fn answer(ctx: &Ctx<'_>, query: &MedicationQuery) -> Result<Envelope, ToolError> {
    let subject_id = ctx.subject.id.as_str();
    let (window, defaulted) = if query.window.is_all_recorded() {
        (last_days(ctx.today, LOG_DEFAULT_DAYS)?, true)
    } else {
        (query.window, false)
    };
    let plans: HashMap<String, Plan> = ctx
        .store
        .plans_in_effect(subject_id, &Window::ALL_RECORDED)?
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect();
    let doses = ctx.store.doses_in_window(subject_id, &window)?;
    let unfiltered = doses.len();
    let mut kept: Vec<(Dose, &Plan)> = Vec::new();
    for d in doses {
        // The foreign key promises every dose its plan.
        let plan = plans.get(&d.plan_id).ok_or(ToolError::Malformed {
            table: "medication_dose",
        })?;
        if matches(plan, &query.keywords) {
            kept.push((d, plan));
        }
    }

    let mut env = envelope(ctx, window);
    if kept.is_empty() {
        env = say_empty(env, query, unfiltered);
        if defaulted
            && unfiltered == 0
            && let Some(last) = ctx.store.last_dose_day(subject_id)?
        {
            // Doses are recorded, outside the default window: the same span ending on the last.
            let wider = last_days(last, LOG_DEFAULT_DAYS)?;
            env = env
                .with_assumption(Assumption::Medications(
                    MedicationsAssumption::LogDefaultWindowEmpty {
                        days: LOG_DEFAULT_DAYS,
                    },
                ))
                .with_next_step(query.step(NextAction::WidenWindow, |q| q.window = wider));
        }
    } else {
        env = env.with_table(per_drug(&kept)?);
        let mut table = Table::new("doses", DOSE_COLUMNS);
        for (d, plan) in kept.iter().take(DOSE_LOG_CAP) {
            let time = ctx
                .subject
                .tz
                .to_datetime(d.at)
                .strftime("%H:%M")
                .to_string();
            let [dose, unit] = dose_cells(plan);
            push(
                &mut table,
                [
                    d.day.to_string().into(),
                    time.into(),
                    plan.name.as_str().into(),
                    dose,
                    unit,
                    d.status.as_str().into(),
                ],
            )?;
        }
        env = env.with_table(table);
        if kept.len() > DOSE_LOG_CAP {
            let narrow = query
                .step(NextAction::NarrowWindow, |q| {
                    q.window = Window::ALL_RECORDED;
                })
                .supply("start")
                .supply("end");
            env = env
                .truncated()
                .with_assumption(Assumption::Medications(MedicationsAssumption::DoseLogCut {
                    cap: u32::try_from(DOSE_LOG_CAP).unwrap_or(u32::MAX),
                }))
                .with_next_step(narrow);
        }
    }
    if defaulted {
        env = env.with_assumption(Assumption::Medications(
            MedicationsAssumption::LogDefaultWindow {
                days: LOG_DEFAULT_DAYS,
            },
        ));
    }
    Ok(env.with_assumption(Assumption::Medications(
        MedicationsAssumption::MissingDoseNotEvidence,
    )))
}

/// Per drug (per plan), in order of its name then first dose: the doses taken and skipped in
/// the window and the first and last day with one.
fn per_drug(kept: &[(Dose, &Plan)]) -> Result<Table, ToolError> {
    struct Count {
        taken: u32,
        skipped: u32,
        first: LocalDate,
        last: LocalDate,
    }
    let mut counts: BTreeMap<(&str, &str), (&Plan, Count)> = BTreeMap::new();
    for (d, plan) in kept {
        let (_, c) = counts
            .entry((plan.name.as_str(), plan.id.as_str()))
            .or_insert_with(|| {
                (
                    plan,
                    Count {
                        taken: 0,
                        skipped: 0,
                        first: d.day,
                        last: d.day,
                    },
                )
            });
        match d.status {
            DoseStatus::Taken => c.taken += 1,
            DoseStatus::Skipped => c.skipped += 1,
        }
        c.first = c.first.min(d.day);
        c.last = c.last.max(d.day);
    }
    let mut table = Table::new("doses_per_drug", PER_DRUG_COLUMNS);
    for (plan, c) in counts.values() {
        let [dose, unit] = dose_cells(plan);
        push(
            &mut table,
            [
                plan.name.as_str().into(),
                dose,
                unit,
                c.taken.into(),
                c.skipped.into(),
                c.first.to_string().into(),
                c.last.to_string().into(),
            ],
        )?;
    }
    Ok(table)
}

/// The `days` local days ending on `last`, inclusive.
pub(crate) fn last_days(last: LocalDate, days: u32) -> Result<Window, ToolError> {
    let malformed = || ToolError::Malformed {
        table: "medication_dose",
    };
    let mut first = last.date();
    for _ in 1..days {
        first = first.yesterday().map_err(|_| malformed())?;
    }
    let first = LocalDate::try_from(first).map_err(|_| malformed())?;
    Window::between(Some(first), Some(last)).map_err(|_| malformed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_window_is_the_last_days_inclusive() {
        let last: LocalDate = "2026-03-01".parse().unwrap();
        let w = last_days(last, 30).unwrap();
        assert_eq!(w.start().unwrap().to_string(), "2026-01-31");
        assert_eq!(w.end(), Some(last));
        let one = last_days(last, 1).unwrap();
        assert_eq!(one.start(), Some(last));
    }
}
