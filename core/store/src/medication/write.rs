//! The write side of medications: plans and doses in checked, all-or-none batches of upserts.

use std::collections::HashMap;

use super::{MedicationProblem, NewDose, NewPlan};
use crate::{Store, StoreError, utc_text};
use answers_db::{Arg, DbError};
use jiff::tz::TimeZone;

impl Store {
    /// Writes `plans` (upserts on the plan id), all or none: every plan is checked, its
    /// subject must exist, and an existing id must be the same subject's.
    ///
    /// ```
    /// use answers_store::{Frequency, MedicationProblem, NewPlan, Route, Store, StoreError};
    ///
    /// let mut store = Store::open_in_memory()?;
    /// store.upsert_subject("s1", "you", "UTC")?;
    /// store.upsert_subject("s2", "mom", "UTC")?;
    /// let plan = NewPlan::active("p1", "s1", "Atorvastatin", Frequency::OnceDaily, Route::Oral, "2026-01-01".parse().unwrap());
    /// store.upsert_plans(&[plan.clone()])?;
    /// store.upsert_plans(&[plan.clone()])?; // the same again: an upsert
    /// let theirs = NewPlan { subject_id: "s2".into(), ..plan };
    /// assert!(matches!(
    ///     store.upsert_plans(&[theirs]),
    ///     Err(StoreError::InvalidMedication { index: 0, problem: MedicationProblem::PlanOfAnotherSubject })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn upsert_plans(&mut self, plans: &[NewPlan]) -> Result<(), StoreError> {
        let refused = |index, problem| StoreError::InvalidMedication { index, problem };
        for (index, plan) in plans.iter().enumerate() {
            plan.check().map_err(|p| refused(index, p))?;
        }
        let op = "write plans";
        let mut tx = self.db.transaction(op)?;
        for (index, p) in plans.iter().enumerate() {
            let subject_exists = tx.one(
                op,
                "SELECT EXISTS (SELECT 1 FROM subject WHERE id = ?1)",
                &[Arg::from(&p.subject_id)],
                |r| r.flag(0, op),
            )?;
            if subject_exists != Some(true) {
                return Err(StoreError::UnknownSubject);
            }
            let owner = tx.one(
                op,
                "SELECT subject_id FROM medication_plan WHERE id = ?1",
                &[Arg::from(&p.id)],
                |r| Ok(r.text(0, op, "medication_plan")?.to_owned()),
            )?;
            if owner.is_some_and(|o| o != p.subject_id) {
                return Err(refused(index, MedicationProblem::PlanOfAnotherSubject));
            }
            let start = p.start.to_string();
            let end = p.end.map(|d| d.to_string());
            tx.exec(
                op,
                "INSERT INTO medication_plan (id, subject_id, name, code_system, code, dose_amount,
                     dose_unit, frequency, route, start_day, end_day, status, closed_reason, note)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                 ON CONFLICT (id) DO UPDATE SET
                     name = excluded.name, code_system = excluded.code_system,
                     code = excluded.code, dose_amount = excluded.dose_amount,
                     dose_unit = excluded.dose_unit, frequency = excluded.frequency,
                     route = excluded.route, start_day = excluded.start_day,
                     end_day = excluded.end_day, status = excluded.status,
                     closed_reason = excluded.closed_reason, note = excluded.note",
                &[
                    Arg::from(&p.id),
                    Arg::from(&p.subject_id),
                    Arg::from(p.name.trim()),
                    Arg::from(p.code.as_ref().map(|c| c.system.as_str())),
                    Arg::from(p.code.as_ref().map(|c| c.code.as_str())),
                    Arg::from(p.dose.as_ref().map(|d| d.0)),
                    Arg::from(p.dose.as_ref().map(|d| d.1.trim())),
                    Arg::from(p.frequency.as_str()),
                    Arg::from(p.route.as_str()),
                    Arg::from(&start),
                    Arg::from(&end),
                    Arg::from(p.status.as_str()),
                    Arg::from(p.closed_reason.map(|c| c.as_str())),
                    Arg::from(&p.note),
                ],
            )?;
        }
        Ok(tx.commit(op)?)
    }

    /// Writes `doses` (upserts on plan and time), all or none. Each dose's plan must exist
    /// and be its subject's; its local day is decided here, in the subject's zone.
    ///
    /// ```
    /// use answers_store::{Frequency, MedicationProblem, NewDose, NewPlan, Route, Store, StoreError};
    ///
    /// let mut store = Store::open_in_memory()?;
    /// store.upsert_subject("s1", "mom", "Asia/Shanghai")?;
    /// let plan = NewPlan::active("p1", "s1", "Atorvastatin", Frequency::OnceDaily, Route::Oral, "2026-01-01".parse().unwrap());
    /// store.upsert_plans(&[plan])?;
    /// let late = NewDose::taken("p1", "s1", "2026-01-01T17:30:00Z".parse()?);
    /// store.upsert_doses(&[late])?;
    /// let logged = store.doses_in_window("s1", &answers_protocol::Window::ALL_RECORDED)?;
    /// assert_eq!(logged[0].day.to_string(), "2026-01-02");
    /// let stray = NewDose::taken("nope", "s1", "2026-01-01T17:30:00Z".parse()?);
    /// assert!(matches!(
    ///     store.upsert_doses(&[stray]),
    ///     Err(StoreError::InvalidMedication { index: 0, problem: MedicationProblem::UnknownPlan })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn upsert_doses(&mut self, doses: &[NewDose]) -> Result<(), StoreError> {
        let refused = |index, problem| StoreError::InvalidMedication { index, problem };
        let op = "write doses";
        let mut tx = self.db.transaction(op)?;
        let mut zones: HashMap<String, TimeZone> = HashMap::new();
        for (index, d) in doses.iter().enumerate() {
            let owner = tx.one(
                op,
                "SELECT p.subject_id, s.tz FROM medication_plan p
                 JOIN subject s ON s.id = p.subject_id WHERE p.id = ?1",
                &[Arg::from(&d.plan_id)],
                |r| {
                    Ok((
                        r.text(0, op, "medication_plan")?.to_owned(),
                        r.text(1, op, "subject")?.to_owned(),
                    ))
                },
            )?;
            let Some((subject_id, tz)) = owner else {
                return Err(refused(index, MedicationProblem::UnknownPlan));
            };
            if subject_id != d.subject_id {
                return Err(refused(index, MedicationProblem::PlanOfAnotherSubject));
            }
            let zone = match zones.get(&tz) {
                Some(z) => z.clone(),
                None => {
                    let z = TimeZone::get(&tz)
                        .map_err(|_| StoreError::Db(DbError::Malformed { table: "subject" }))?;
                    zones.insert(tz, z.clone());
                    z
                }
            };
            let local_day = zone.to_datetime(d.at).date().to_string();
            let at = utc_text(d.at);
            tx.exec(
                op,
                "INSERT INTO medication_dose (subject_id, plan_id, at_utc, local_day, status, note)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (plan_id, at_utc) DO UPDATE SET
                     local_day = excluded.local_day, status = excluded.status, note = excluded.note",
                &[
                    Arg::from(&d.subject_id),
                    Arg::from(&d.plan_id),
                    Arg::from(&at),
                    Arg::from(&local_day),
                    Arg::from(d.status.as_str()),
                    Arg::from(&d.note),
                ],
            )?;
        }
        Ok(tx.commit(op)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClosedReason, DoseStatus, DrugCode, Frequency, PlanStatus, Route};
    use answers_protocol::date::LocalDate;

    fn day(s: &str) -> LocalDate {
        s.parse().unwrap()
    }

    fn plan(id: &str, subject: &str) -> NewPlan {
        NewPlan::active(
            id,
            subject,
            "Atorvastatin",
            Frequency::OnceDaily,
            Route::Oral,
            day("2026-01-01"),
        )
    }

    fn count(store: &Store, table: &str) -> i64 {
        store.count(&format!("SELECT COUNT(*) FROM {table}"))
    }

    #[test]
    fn the_lifecycle_rules_refuse_by_name() {
        let p = plan("p1", "s1");
        let mut closed = p.clone();
        closed.status = PlanStatus::Stopped;
        assert_eq!(closed.check(), Err(MedicationProblem::ClosedWithoutEnd));
        closed.end = Some(day("2026-02-01"));
        assert_eq!(closed.check(), Err(MedicationProblem::ClosedWithoutReason));
        let mut reasoned = p.clone();
        reasoned.closed_reason = Some(ClosedReason::SideEffect);
        assert_eq!(reasoned.check(), Err(MedicationProblem::ActiveWithReason));
        let mut backwards = p.clone();
        backwards.end = Some(day("2025-12-31"));
        assert_eq!(backwards.check(), Err(MedicationProblem::EndBeforeStart));
        let mut coded = p.clone();
        coded.code = Some(DrugCode::rxnorm("C10AA05"));
        assert_eq!(coded.check(), Err(MedicationProblem::CodeShape));
        let mut unitless = p.clone();
        unitless.dose = Some((20.0, " ".into()));
        assert_eq!(unitless.check(), Err(MedicationProblem::DoseUnit));
        let padded = plan(" p1", "s1");
        assert_eq!(padded.check(), Err(MedicationProblem::Id));
        // An active plan may have a planned end.
        let mut planned = p;
        planned.end = Some(day("2026-01-05"));
        assert_eq!(planned.check(), Ok(()));
    }

    #[test]
    fn a_refused_batch_writes_nothing() {
        crate::test_support::each_backend(|mut store| {
            store.upsert_subject("s1", "you", "UTC").unwrap();
            store.upsert_subject("s2", "mom", "UTC").unwrap();
            let err = store
                .upsert_plans(&[plan("p1", "s1"), plan("p2", "nobody")])
                .unwrap_err();
            assert!(matches!(err, StoreError::UnknownSubject), "{err}");
            assert_eq!(count(&store, "medication_plan"), 0);

            store.upsert_plans(&[plan("p1", "s1")]).unwrap();
            let at = "2026-01-02T08:00:00Z".parse().unwrap();
            let err = store
                .upsert_doses(&[
                    NewDose::taken("p1", "s1", at),
                    NewDose::taken("p1", "s2", at),
                ])
                .unwrap_err();
            assert!(
                matches!(
                    err,
                    StoreError::InvalidMedication {
                        index: 1,
                        problem: MedicationProblem::PlanOfAnotherSubject
                    }
                ),
                "{err}"
            );
            assert_eq!(count(&store, "medication_dose"), 0);
        });
    }

    #[test]
    fn an_upsert_replaces_by_key() {
        crate::test_support::each_backend(|mut store| {
            store.upsert_subject("s1", "you", "UTC").unwrap();
            let p = plan("p1", "s1");
            store.upsert_plans(std::slice::from_ref(&p)).unwrap();
            let stopped = p.closed(
                PlanStatus::Stopped,
                day("2026-03-01"),
                ClosedReason::NotEffective,
            );
            store.upsert_plans(&[stopped]).unwrap();
            let at = "2026-01-02T08:00:00Z".parse().unwrap();
            store
                .upsert_doses(&[NewDose::taken("p1", "s1", at)])
                .unwrap();
            store
                .upsert_doses(&[NewDose::skipped("p1", "s1", at)])
                .unwrap();
            assert_eq!(count(&store, "medication_plan"), 1);
            assert_eq!(count(&store, "medication_dose"), 1);
            let plans = store
                .plans_in_effect("s1", &answers_protocol::window::Window::ALL_RECORDED)
                .unwrap();
            assert_eq!(plans[0].status, PlanStatus::Stopped);
            assert_eq!(plans[0].closed_reason, Some(ClosedReason::NotEffective));
            let doses = store
                .doses_in_window("s1", &answers_protocol::window::Window::ALL_RECORDED)
                .unwrap();
            assert_eq!(doses[0].status, DoseStatus::Skipped);
        });
    }
}
