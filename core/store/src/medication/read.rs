//! The read side of medications: plans in effect in a window, doses recorded in one, and the
//! last day the log has a dose. No statement here selects a `note`.
//!
//! These return the driver's error kind, so a tool can tell a busy store from a broken one; a
//! stored value that does not have its column's shape is a malformed row, which carries no
//! value.

use jiff::Timestamp;

use super::kinds::{ClosedReason, DoseStatus, DrugCodeSystem, Frequency, PlanStatus, Route};
use super::{DrugCode, Store};
use crate::{Flow, StoreError};
use answers_db::{Arg, DbError, Row};
use answers_protocol::date::LocalDate;
use answers_protocol::window::Window;

/// A stored plan, as a tool may show it: everything but the note.
///
/// ```
/// use answers_store::{Frequency, NewPlan, Route, Store};
/// use answers_protocol::Window;
///
/// let mut store = Store::open_in_memory()?;
/// store.upsert_subject("s1", "you", "UTC")?;
/// let mut plan = NewPlan::active("p1", "s1", "Atorvastatin", Frequency::OnceDaily, Route::Oral, "2026-01-01".parse().unwrap());
/// plan.note = Some("PHI".into());
/// store.upsert_plans(&[plan])?;
/// let plans = store.plans_in_effect("s1", &Window::ALL_RECORDED)?;
/// assert_eq!(plans[0].name, "Atorvastatin");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The plan's id.
    pub id: String,
    /// The drug as recorded.
    pub name: String,
    /// The drug's code, if known.
    pub code: Option<DrugCode>,
    /// The amount of one dose and its unit.
    pub dose: Option<(f64, String)>,
    /// How often.
    pub frequency: Frequency,
    /// How.
    pub route: Route,
    /// The first local day.
    pub start: LocalDate,
    /// The last local day, planned or actual.
    pub end: Option<LocalDate>,
    /// The lifecycle.
    pub status: PlanStatus,
    /// Why a closed course closed.
    pub closed_reason: Option<ClosedReason>,
}

/// A recorded dose: its plan, local day, instant and whether it was taken.
///
/// ```
/// use answers_store::{DoseStatus, Frequency, NewDose, NewPlan, Route, Store};
/// use answers_protocol::Window;
///
/// let mut store = Store::open_in_memory()?;
/// store.upsert_subject("s1", "you", "Europe/Berlin")?;
/// store.upsert_plans(&[NewPlan::active("p1", "s1", "Atorvastatin", Frequency::OnceDaily, Route::Oral, "2026-01-01".parse().unwrap())])?;
/// store.upsert_doses(&[NewDose::skipped("p1", "s1", "2026-01-03T20:00:00Z".parse()?)])?;
/// let doses = store.doses_in_window("s1", &Window::ALL_RECORDED)?;
/// assert_eq!((doses[0].day.to_string(), doses[0].status), ("2026-01-03".into(), DoseStatus::Skipped));
/// assert_eq!(store.last_dose_day("s1")?, Some(doses[0].day));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dose {
    /// The plan's id.
    pub plan_id: String,
    /// The local day in the subject's zone, decided when it was written.
    pub day: LocalDate,
    /// When it was taken, or planned for a skipped dose.
    pub at: Timestamp,
    /// Taken or skipped.
    pub status: DoseStatus,
}

/// The table of plans, as malformed rows name it.
const PLANS: &str = "medication_plan";
/// The table of doses.
const DOSES: &str = "medication_dose";

/// Column `idx` of `row` as a value of a closed set (or a date) stored by its text; text
/// outside it is a malformed row of `table`.
fn parsed<T: std::str::FromStr>(
    row: &Row<'_>,
    idx: usize,
    op: &'static str,
    table: &'static str,
) -> Result<Option<T>, DbError> {
    row.opt_text(idx, op, table)?
        .map(|t| t.parse().map_err(|_| DbError::Malformed { table }))
        .transpose()
}

/// As [`parsed`], a value that must be there.
fn required<T: std::str::FromStr>(
    row: &Row<'_>,
    idx: usize,
    op: &'static str,
    table: &'static str,
) -> Result<T, StoreError> {
    parsed(row, idx, op, table)?.ok_or(StoreError::Db(DbError::Malformed { table }))
}

/// A window's bounds as the `YYYY-MM-DD` text the tables hold.
fn bounds(window: &Window) -> (Option<String>, Option<String>) {
    (
        window.start().map(|d| d.to_string()),
        window.end().map(|d| d.to_string()),
    )
}

fn plan(row: &Row<'_>) -> Result<Plan, StoreError> {
    let op = "read medication plans";
    let system: Option<DrugCodeSystem> = parsed(row, 2, op, PLANS)?;
    let code = row.opt_text(3, op, PLANS)?.map(str::to_owned);
    let amount = row.opt_real(4, op)?;
    let unit = row.opt_text(5, op, PLANS)?.map(str::to_owned);
    Ok(Plan {
        id: row.text(0, op, PLANS)?.to_owned(),
        name: row.text(1, op, PLANS)?.to_owned(),
        code: system
            .zip(code)
            .map(|(system, code)| DrugCode { system, code }),
        dose: amount.zip(unit),
        frequency: required(row, 6, op, PLANS)?,
        route: required(row, 7, op, PLANS)?,
        start: required(row, 8, op, PLANS)?,
        end: parsed(row, 9, op, PLANS)?,
        status: required(row, 10, op, PLANS)?,
        closed_reason: parsed(row, 11, op, PLANS)?,
    })
}

impl Store {
    /// The subject's plans in effect at some point in `window` (started by its end, not ended
    /// before its start), oldest start first; every plan for all recorded data.
    ///
    /// ```
    /// use answers_store::{ClosedReason, Frequency, NewPlan, PlanStatus, Route, Store};
    /// use answers_protocol::{LocalDate, Window};
    ///
    /// let day = |s: &str| s.parse::<LocalDate>().unwrap();
    /// let mut store = Store::open_in_memory()?;
    /// store.upsert_subject("s1", "mom", "UTC")?;
    /// let old = NewPlan::active("p1", "s1", "A", Frequency::OnceDaily, Route::Oral, day("2026-01-01"))
    ///     .closed(PlanStatus::Stopped, day("2026-05-17"), ClosedReason::SideEffect);
    /// let new = NewPlan::active("p2", "s1", "B", Frequency::OnceDaily, Route::Oral, day("2026-05-18"));
    /// store.upsert_plans(&[old, new])?;
    /// let names = |w| -> Vec<String> { store.plans_in_effect("s1", &w).unwrap().into_iter().map(|p| p.name).collect() };
    /// assert_eq!(names(Window::between(Some(day("2026-03-01")), Some(day("2026-03-31")))?), ["A"]);
    /// assert_eq!(names(Window::between(Some(day("2026-05-17")), Some(day("2026-05-18")))?), ["A", "B"]);
    /// assert_eq!(names(Window::between(Some(day("2026-06-01")), None)?), ["B"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn plans_in_effect(
        &self,
        subject_id: &str,
        window: &Window,
    ) -> Result<Vec<Plan>, StoreError> {
        let (start, end) = bounds(window);
        let mut out = Vec::new();
        self.db.each(
            "read medication plans",
            "SELECT id, name, code_system, code, dose_amount, dose_unit, frequency, route,
                    start_day, end_day, status, closed_reason
             FROM medication_plan
             WHERE subject_id = ?1
               AND (CAST(?3 AS TEXT) IS NULL OR start_day <= ?3)
               AND (CAST(?2 AS TEXT) IS NULL OR end_day IS NULL OR end_day >= ?2)
             ORDER BY start_day, id",
            &[Arg::from(subject_id), Arg::from(&start), Arg::from(&end)],
            |row| {
                out.push(plan(row)?);
                Ok::<_, StoreError>(Flow::Continue)
            },
        )?;
        Ok(out)
    }

    /// The subject's doses recorded on a local day in `window`, newest first.
    ///
    /// ```
    /// use answers_store::{Frequency, NewDose, NewPlan, Route, Store};
    /// use answers_protocol::{LocalDate, Window};
    ///
    /// let mut store = Store::open_in_memory()?;
    /// store.upsert_subject("s1", "mom", "Asia/Shanghai")?;
    /// store.upsert_plans(&[NewPlan::active("p1", "s1", "Atorvastatin", Frequency::OnceDaily, Route::Oral, "2026-01-01".parse().unwrap())])?;
    /// // 21:00 in Shanghai on the 1st and the 2nd.
    /// store.upsert_doses(&[
    ///     NewDose::taken("p1", "s1", "2026-01-01T13:00:00Z".parse()?),
    ///     NewDose::taken("p1", "s1", "2026-01-02T13:00:00Z".parse()?),
    /// ])?;
    /// let day: LocalDate = "2026-01-02".parse().unwrap();
    /// let doses = store.doses_in_window("s1", &Window::between(Some(day), Some(day))?)?;
    /// assert_eq!(doses.len(), 1);
    /// assert_eq!(store.doses_in_window("s1", &Window::ALL_RECORDED)?[0].day, day);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn doses_in_window(
        &self,
        subject_id: &str,
        window: &Window,
    ) -> Result<Vec<Dose>, StoreError> {
        let (start, end) = bounds(window);
        let op = "read medication doses";
        let mut out = Vec::new();
        self.db.each(
            op,
            "SELECT plan_id, local_day, at_utc, status
             FROM medication_dose
             WHERE subject_id = ?1
               AND (CAST(?2 AS TEXT) IS NULL OR local_day >= ?2)
               AND (CAST(?3 AS TEXT) IS NULL OR local_day <= ?3)
             ORDER BY at_utc DESC, plan_id",
            &[Arg::from(subject_id), Arg::from(&start), Arg::from(&end)],
            |row| {
                out.push(Dose {
                    plan_id: row.text(0, op, DOSES)?.to_owned(),
                    day: required(row, 1, op, DOSES)?,
                    at: required::<Timestamp>(row, 2, op, DOSES)?,
                    status: required(row, 3, op, DOSES)?,
                });
                Ok::<_, StoreError>(Flow::Continue)
            },
        )?;
        Ok(out)
    }

    /// The last local day the subject's dose log has a dose on: where a log asked for without
    /// a window, and empty over its default 30 days ending today, suggests widening to.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// assert_eq!(store.last_dose_day("nobody")?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_dose_day(&self, subject_id: &str) -> Result<Option<LocalDate>, StoreError> {
        let op = "read medication doses";
        let day = self.db.one(
            op,
            "SELECT MAX(local_day) FROM medication_dose WHERE subject_id = ?1",
            &[Arg::from(subject_id)],
            |row| parsed(row, 0, op, DOSES),
        )?;
        Ok(day.flatten())
    }
}
