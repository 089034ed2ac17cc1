//! `mom`'s medications: she switches blood-pressure drugs mid-year. Hydrochlorothiazide is
//! stopped on **2026-05-17** for a side effect and metoprolol starts on **2026-05-18**, so "how
//! did my blood pressure move after I switched" is `query_medications(view="history")` for the
//! date, then `query_health_indicators(start="2026-05-18")`. Atorvastatin runs from after the
//! lab panel, and a five-day nitrofurantoin course completed in February. `you` takes nothing.
//! From the switch on, her home blood pressure is drawn around a lower mean
//! ([`BP_AFTER_SWITCH`]), so the second call has a change to find.
//!
//! The dose log covers the device window ([`series::days`](super::series::days)): each planned
//! dose is taken a few minutes after its time, recorded as skipped, or not recorded at all,
//! drawn from the account's random stream per plan, so a replay writes the same rows.
//!
//! Codes are `RxNorm` ingredient concept ids as listed in CPIC's drug table (CC0; see
//! `core/data/SOURCES.md`).

use jiff::civil::Date;
use jiff::tz::TimeZone;

use super::profile::{MOM, Profile};
use super::rng::SplitMix64;
use super::series::days;
use answers_protocol::date::LocalDate;
use answers_store::{
    ClosedReason, DrugCode, Frequency, NewDose, NewPlan, PlanStatus, Route, Store, StoreError,
    Subject,
};

/// The note on the stopped plan and on one skipped dose: PHI, so no tool may return it.
pub(crate) const MEDICATION_CANARY: &str = "dizzy on the stairs PHI-CANARY-MED-7c1e";

/// The last day of the stopped blood-pressure drug.
pub(crate) const STOPPED: Date = Date::constant(2026, 5, 17);

/// The first day of its replacement.
pub(crate) const SWITCHED: Date = Date::constant(2026, 5, 18);

/// How far `mom`'s home blood pressure (systolic, diastolic, mmHg) sits from her profile's
/// from the day she switched: the same random draws around a lower mean, so "how did it move
/// after I switched" has an answer. Nothing for `you`, nor before the switch.
pub(crate) const BP_AFTER_SWITCH: (f64, f64) = (-9.0, -5.0);

/// The shift of the blood pressure's mean on `day` for `profile`.
pub(crate) fn bp_shift(profile: &Profile, day: Date) -> (f64, f64) {
    if profile.handle == MOM.handle && day >= SWITCHED {
        BP_AFTER_SWITCH
    } else {
        (0.0, 0.0)
    }
}

/// One plan of the demo and the local times of its doses.
struct DemoPlan {
    id: &'static str,
    name: &'static str,
    rxnorm: &'static str,
    mg: f64,
    frequency: Frequency,
    start: Date,
    closed: Option<(PlanStatus, Date, ClosedReason)>,
    times: &'static [(i8, i8)],
}

/// `mom`'s plans.
const MOM_PLANS: [DemoPlan; 4] = [
    DemoPlan {
        id: "plan-mom-hctz-1",
        name: "Hydrochlorothiazide",
        rxnorm: "5487",
        mg: 12.5,
        frequency: Frequency::OnceDaily,
        start: Date::constant(2025, 3, 3),
        closed: Some((PlanStatus::Stopped, STOPPED, ClosedReason::SideEffect)),
        times: &[(8, 0)],
    },
    DemoPlan {
        id: "plan-mom-metoprolol-1",
        name: "Metoprolol tartrate",
        rxnorm: "6918",
        mg: 25.0,
        frequency: Frequency::TwiceDaily,
        start: SWITCHED,
        closed: None,
        times: &[(8, 0), (20, 0)],
    },
    DemoPlan {
        id: "plan-mom-atorvastatin-1",
        name: "Atorvastatin",
        rxnorm: "83367",
        mg: 20.0,
        frequency: Frequency::OnceDaily,
        start: Date::constant(2025, 11, 20),
        closed: None,
        times: &[(21, 0)],
    },
    DemoPlan {
        id: "plan-mom-nitrofurantoin-1",
        name: "Nitrofurantoin",
        rxnorm: "7454",
        mg: 100.0,
        frequency: Frequency::TwiceDaily,
        start: Date::constant(2026, 2, 9),
        closed: Some((
            PlanStatus::Completed,
            Date::constant(2026, 2, 13),
            ClosedReason::CourseCompleted,
        )),
        times: &[(8, 0), (20, 0)],
    },
];

/// Below this draw a planned dose is recorded as skipped.
const SKIPPED_BELOW: f64 = 0.04;

/// Below this draw (and above [`SKIPPED_BELOW`]) a planned dose has no record.
const MISSING_BELOW: f64 = 0.10;

/// What the medications seed wrote: plans and doses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Written {
    pub(crate) plans: usize,
    pub(crate) doses: usize,
}

/// Seeds `subject`'s plans and dose log, if the profile has any. Every write is an upsert.
pub(crate) fn seed(
    store: &mut Store,
    profile: &Profile,
    subject: &Subject,
) -> Result<Written, StoreError> {
    if profile.handle != MOM.handle {
        return Ok(Written::default());
    }
    let plans: Vec<NewPlan> = MOM_PLANS.iter().map(|p| plan(p, subject)).collect();
    store.upsert_plans(&plans)?;
    let doses = doses(profile, subject);
    store.upsert_doses(&doses)?;
    Ok(Written {
        plans: plans.len(),
        doses: doses.len(),
    })
}

/// A jiff date as a [`LocalDate`]; both print `YYYY-MM-DD`.
fn local(d: Date) -> LocalDate {
    d.to_string()
        .parse()
        .expect("a 2025-2026 date prints as YYYY-MM-DD")
}

fn plan(p: &DemoPlan, subject: &Subject) -> NewPlan {
    let mut plan = NewPlan::active(
        p.id,
        &subject.id,
        p.name,
        p.frequency,
        Route::Oral,
        local(p.start),
    );
    plan.code = Some(DrugCode::rxnorm(p.rxnorm));
    plan.dose = Some((p.mg, "mg".into()));
    if let Some((status, end, reason)) = p.closed {
        plan = plan.closed(status, local(end), reason);
        if reason == ClosedReason::SideEffect {
            plan.note = Some(MEDICATION_CANARY.into());
        }
    }
    plan
}

/// Every recorded dose of every plan over the device window.
fn doses(profile: &Profile, subject: &Subject) -> Vec<NewDose> {
    let days = days();
    let mut out = Vec::new();
    for p in &MOM_PLANS {
        let mut rng = SplitMix64::for_series(profile.handle, &format!("dose:{}", p.id));
        let last = p.closed.map(|(_, end, _)| end);
        let in_course = |d: &Date| *d >= p.start && last.is_none_or(|end| *d <= end);
        for day in days.iter().filter(|d| in_course(d)) {
            for (hour, minute) in p.times {
                let draw = rng.unit();
                let late = rng.unit();
                let at = |extra: i64| instant(&subject.tz, *day, *hour, *minute, extra);
                if draw < SKIPPED_BELOW {
                    out.push(NewDose::skipped(p.id, &subject.id, at(0)));
                } else if draw >= MISSING_BELOW {
                    // Taken within 40 minutes of its time.
                    #[allow(clippy::cast_possible_truncation)] // 0..40 fits an i64
                    let minutes = (late * 40.0) as i64;
                    out.push(NewDose::taken(p.id, &subject.id, at(minutes)));
                }
            }
        }
    }
    if let Some(first_skip) = out
        .iter_mut()
        .find(|d| d.status == answers_store::DoseStatus::Skipped)
    {
        first_skip.note = Some(MEDICATION_CANARY.into());
    }
    out
}

/// The instant of local `hour:minute` on `day`, `extra` minutes later.
fn instant(tz: &TimeZone, day: Date, hour: i8, minute: i8, extra: i64) -> jiff::Timestamp {
    let base = tz
        .to_timestamp(day.at(hour, minute, 0, 0))
        .expect("a 2025-2026 local time is in range");
    base.checked_add(jiff::SignedDuration::from_mins(extra))
        .expect("minutes after a 2026 instant are in range")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::YOU;

    fn mom() -> Subject {
        Subject {
            id: MOM.id.into(),
            handle: MOM.handle.into(),
            tz: TimeZone::get(MOM.tz).unwrap(),
        }
    }

    #[test]
    fn every_plan_passes_the_write_checks_and_the_switch_is_one_day_apart() {
        for p in &MOM_PLANS {
            assert_eq!(plan(p, &mom()).check(), Ok(()), "{}", p.id);
        }
        assert_eq!(STOPPED.tomorrow().unwrap(), SWITCHED);
    }

    #[test]
    fn the_log_misses_and_skips_some_doses_deterministically() {
        let a = doses(&MOM, &mom());
        let b = doses(&MOM, &mom());
        assert_eq!(a, b);
        let skipped = a
            .iter()
            .filter(|d| d.status == answers_store::DoseStatus::Skipped)
            .count();
        // Planned slots over the window: hctz 245 days, metoprolol 120 × 2, atorvastatin 299,
        // nitrofurantoin 5 × 2.
        let planned = 245 + 240 + 299 + 10;
        assert!(skipped > 0, "no skipped dose");
        assert!(a.len() < planned, "no missing dose");
        assert!(a.len() > planned * 8 / 10, "{} of {planned}", a.len());
        assert_eq!(
            a.iter()
                .filter(|d| d.note.as_deref() == Some(MEDICATION_CANARY))
                .count(),
            1
        );
    }

    #[test]
    fn you_take_nothing() {
        let mut store = Store::open_in_memory().unwrap();
        let you = store.upsert_subject(YOU.id, YOU.handle, YOU.tz).unwrap();
        assert_eq!(seed(&mut store, &YOU, &you).unwrap(), Written::default());
    }
}
