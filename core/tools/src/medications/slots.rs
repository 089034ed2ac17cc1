//! Today's dose slots, which a `plan` answer carries when its window holds today, as the
//! original implementation's plan answers do: per active plan on a schedule, the doses it plans
//! for today, each `taken` or `missed` where a dose recorded today says so (`missed` is a dose
//! recorded as skipped) and `due` otherwise. A plan has no times of day, so a slot with no
//! record stays `due` all day: a missing record is not evidence the dose was not taken.

use super::Ctx;
use super::shared::{dose_cells, matches, push};
use crate::args::medications::MedicationQuery;
use crate::date::LocalDate;
use crate::envelope::table::{Cell, Table};
use crate::fault::ToolError;
use crate::store::{DoseStatus, Frequency, Plan, PlanStatus};
use crate::window::Window;

/// The columns of the `today` table.
pub(crate) const COLUMNS: [&str; 7] =
    ["day", "medication", "dose", "unit", "slot", "state", "time"];

/// The state of one of today's slots.
#[derive(phi_macros::ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotState {
    /// Planned, and no dose is recorded for it yet.
    Due,
    /// A dose recorded today as taken.
    Taken,
    /// A dose recorded today as skipped.
    Missed,
}

/// Whether `window` holds `today` (an open end holds every day on that side).
pub(crate) fn holds(window: &Window, today: LocalDate) -> bool {
    window.start().is_none_or(|s| s <= today) && window.end().is_none_or(|e| today <= e)
}

/// How many doses `plan` plans on `today`: its daily count, or one on the days an every-other-
/// day or weekly schedule falls on (counted from its start); none when taken as needed.
fn planned(plan: &Plan, today: LocalDate) -> Result<u32, ToolError> {
    if let Some(n) = plan.frequency.doses_per_day() {
        return Ok(u32::from(n));
    }
    let every = match plan.frequency {
        Frequency::EveryOtherDay => 2,
        Frequency::Weekly => 7,
        _ => return Ok(0),
    };
    let days = plan
        .start
        .date()
        .until(today.date())
        .map_err(|_| ToolError::Malformed {
            table: "medication_plan",
        })?
        .get_days();
    Ok(u32::from(days % every == 0))
}

/// The `today` table for the plans matching `query`'s keywords, or `None` when no slot is
/// planned or recorded today.
pub(crate) fn today_table(
    ctx: &Ctx<'_>,
    query: &MedicationQuery,
) -> Result<Option<Table>, ToolError> {
    let today = ctx.today;
    let day = Window::between(Some(today), Some(today)).map_err(|_| ToolError::Malformed {
        table: "medication_plan",
    })?;
    let subject_id = ctx.subject.id.as_str();
    let mut plans: Vec<Plan> = ctx
        .store
        .plans_in_effect(subject_id, &day)?
        .into_iter()
        .filter(|p| p.status == PlanStatus::Active && matches(p, &query.keywords))
        .collect();
    plans.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
    // Oldest first, so the first dose of the day fills the first slot.
    let mut doses = ctx.store.doses_in_window(subject_id, &day)?;
    doses.reverse();
    let mut table = Table::new("today", COLUMNS);
    for plan in &plans {
        let recorded: Vec<_> = doses.iter().filter(|d| d.plan_id == plan.id).collect();
        let planned = planned(plan, today)?;
        let slots = planned.max(u32::try_from(recorded.len()).unwrap_or(u32::MAX));
        for slot in 0..slots {
            let dose = usize::try_from(slot).ok().and_then(|i| recorded.get(i));
            let (state, time) = match dose {
                Some(d) => {
                    let state = match d.status {
                        DoseStatus::Taken => SlotState::Taken,
                        DoseStatus::Skipped => SlotState::Missed,
                    };
                    let time = ctx.subject.tz.to_datetime(d.at).strftime("%H:%M");
                    (state, Cell::from(time.to_string()))
                }
                None => (SlotState::Due, Cell::Null),
            };
            let [amount, unit] = dose_cells(plan);
            push(
                &mut table,
                [
                    today.to_string().into(),
                    plan.name.as_str().into(),
                    amount,
                    unit,
                    (slot + 1).into(),
                    state.as_str().into(),
                    time,
                ],
            )?;
        }
    }
    Ok((!table.rows().is_empty()).then_some(table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Route;

    fn plan(frequency: Frequency, start: &str) -> Plan {
        Plan {
            id: "p".into(),
            name: "A".into(),
            code: None,
            dose: None,
            frequency,
            route: Route::Oral,
            start: start.parse().unwrap(),
            end: None,
            status: PlanStatus::Active,
            closed_reason: None,
        }
    }

    #[test]
    fn schedules_plan_their_days_from_the_start() {
        let day = |s: &str| s.parse::<LocalDate>().unwrap();
        let p = |f| plan(f, "2026-03-01");
        assert_eq!(
            planned(&p(Frequency::ThreeTimesDaily), day("2026-03-05")).unwrap(),
            3
        );
        assert_eq!(
            planned(&p(Frequency::EveryOtherDay), day("2026-03-03")).unwrap(),
            1
        );
        assert_eq!(
            planned(&p(Frequency::EveryOtherDay), day("2026-03-04")).unwrap(),
            0
        );
        assert_eq!(
            planned(&p(Frequency::Weekly), day("2026-03-08")).unwrap(),
            1
        );
        assert_eq!(
            planned(&p(Frequency::Weekly), day("2026-03-09")).unwrap(),
            0
        );
        assert_eq!(
            planned(&p(Frequency::AsNeeded), day("2026-03-01")).unwrap(),
            0
        );
    }

    #[test]
    fn a_window_holds_today_on_its_open_sides() {
        let day = |s: &str| s.parse::<LocalDate>().unwrap();
        let today = day("2026-03-10");
        assert!(holds(&Window::ALL_RECORDED, today));
        let w = |a: Option<&str>, b: Option<&str>| Window::between(a.map(day), b.map(day)).unwrap();
        assert!(holds(&w(Some("2026-03-10"), None), today));
        assert!(!holds(&w(Some("2026-03-11"), None), today));
        assert!(!holds(&w(None, Some("2026-03-09")), today));
        assert!(holds(&w(Some("2026-03-01"), Some("2026-03-31")), today));
    }
}
