//! Medications: the plans a person keeps ([`NewPlan`]: what they intend to take, how, from
//! when to when, and why a course closed) and the dose log ([`NewDose`]: a planned dose
//! recorded as taken or skipped, on a local day).
//!
//! Tables (migration 3): `medication_plan` keyed on its opaque id, and `medication_dose` keyed
//! on `(plan_id, at_utc)`. A dose's local day is decided at write time in the subject's zone,
//! like a reading's. **A plan's and a dose's `note` are PHI like a reading's comment: no read
//! here selects them, so no tool can return them.**
//!
//! Every write is an upsert and a batch is checked whole before anything of it is written.
//!
//! ```
//! use answers_protocol::LocalDate;
//! use answers_store::{Frequency, NewDose, NewPlan, Route, Store, has_medications};
//!
//! let mut store = Store::open_in_memory()?;
//! let you = store.upsert_subject("s1", "you", "Europe/Berlin")?;
//! assert!(!has_medications(&store, &you)?);
//! let start: LocalDate = "2026-03-01".parse().unwrap();
//! let plan = NewPlan::active("plan-1", "s1", "Metoprolol tartrate", Frequency::TwiceDaily, Route::Oral, start);
//! store.upsert_plans(&[plan])?;
//! let dose = NewDose::taken("plan-1", "s1", "2026-03-01T06:30:00Z".parse().unwrap());
//! store.upsert_doses(&[dose])?;
//! assert!(has_medications(&store, &you)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod kinds;
mod read;
mod write;

use jiff::Timestamp;

pub use self::kinds::{ClosedReason, DoseStatus, DrugCodeSystem, Frequency, PlanStatus, Route};
pub use self::read::{Dose, Plan};
use super::{Store, StoreError, Subject};
use answers_protocol::date::LocalDate;

/// A drug's code: the system and the code in it.
///
/// ```
/// use answers_store::{DrugCode, DrugCodeSystem};
///
/// let metoprolol = DrugCode::rxnorm("6918");
/// assert_eq!((metoprolol.system, metoprolol.code.as_str()), (DrugCodeSystem::Rxnorm, "6918"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DrugCode {
    /// The code system.
    pub system: DrugCodeSystem,
    /// The code.
    pub code: String,
}

impl DrugCode {
    /// An `RxNorm` concept id.
    ///
    /// ```
    /// assert_eq!(answers_store::DrugCode::rxnorm("83367").system.as_str(), "rxnorm");
    /// ```
    #[must_use]
    pub fn rxnorm(code: &str) -> Self {
        Self {
            system: DrugCodeSystem::Rxnorm,
            code: code.to_owned(),
        }
    }

    /// A WHO ATC code.
    ///
    /// ```
    /// assert_eq!(answers_store::DrugCode::atc("C07AB02").code, "C07AB02");
    /// ```
    #[must_use]
    pub fn atc(code: &str) -> Self {
        Self {
            system: DrugCodeSystem::Atc,
            code: code.to_owned(),
        }
    }
}

/// One plan for [`Store::upsert_plans`]: upserts on `id`.
///
/// `name` is the drug as recorded; `code` only when it is known. `end` is the planned end of an
/// active plan, or the day a closed course ended (inclusive). `note` is PHI: no tool returns it.
///
/// ```
/// use answers_protocol::LocalDate;
/// use answers_store::{ClosedReason, DrugCode, Frequency, NewPlan, PlanStatus, Route};
///
/// let day = |s: &str| s.parse::<LocalDate>().unwrap();
/// let mut plan = NewPlan::active("p1", "s1", "Hydrochlorothiazide", Frequency::OnceDaily, Route::Oral, day("2025-03-03"));
/// plan.code = Some(DrugCode::rxnorm("5487"));
/// plan.dose = Some((12.5, "mg".into()));
/// assert_eq!(plan.check(), Ok(()));
/// let closed = plan.closed(PlanStatus::Stopped, day("2026-05-17"), ClosedReason::SideEffect);
/// assert_eq!(closed.check(), Ok(()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct NewPlan {
    /// The plan's opaque id, unique in the store.
    pub id: String,
    /// The subject whose plan it is.
    pub subject_id: String,
    /// The drug as recorded.
    pub name: String,
    /// The drug's code, if known.
    pub code: Option<DrugCode>,
    /// The amount of one dose and its unit (`12.5`, `mg`).
    pub dose: Option<(f64, String)>,
    /// How often.
    pub frequency: Frequency,
    /// How.
    pub route: Route,
    /// The first local day of the course.
    pub start: LocalDate,
    /// The last local day: planned (active) or actual (closed).
    pub end: Option<LocalDate>,
    /// Where the plan is in its lifecycle.
    pub status: PlanStatus,
    /// Why a closed course closed.
    pub closed_reason: Option<ClosedReason>,
    /// Free text. PHI: stored, never returned.
    pub note: Option<String>,
}

impl NewPlan {
    /// An active plan from `start`, with no code, dose, end or note.
    ///
    /// ```
    /// use answers_store::{Frequency, NewPlan, PlanStatus, Route};
    ///
    /// let p = NewPlan::active("p1", "s1", "Atorvastatin", Frequency::OnceDaily, Route::Oral, "2026-01-01".parse().unwrap());
    /// assert_eq!((p.status, p.end, p.code), (PlanStatus::Active, None, None));
    /// ```
    #[must_use]
    pub fn active(
        id: &str,
        subject_id: &str,
        name: &str,
        frequency: Frequency,
        route: Route,
        start: LocalDate,
    ) -> Self {
        Self {
            id: id.to_owned(),
            subject_id: subject_id.to_owned(),
            name: name.to_owned(),
            code: None,
            dose: None,
            frequency,
            route,
            start,
            end: None,
            status: PlanStatus::Active,
            closed_reason: None,
            note: None,
        }
    }

    /// The same plan, closed on `end` with `status` for `reason`.
    ///
    /// ```
    /// use answers_store::{ClosedReason, Frequency, NewPlan, PlanStatus, Route};
    ///
    /// let p = NewPlan::active("p1", "s1", "Nitrofurantoin", Frequency::TwiceDaily, Route::Oral, "2026-02-09".parse().unwrap())
    ///     .closed(PlanStatus::Completed, "2026-02-13".parse().unwrap(), ClosedReason::CourseCompleted);
    /// assert_eq!(p.closed_reason, Some(ClosedReason::CourseCompleted));
    /// ```
    #[must_use]
    pub fn closed(mut self, status: PlanStatus, end: LocalDate, reason: ClosedReason) -> Self {
        self.status = status;
        self.end = Some(end);
        self.closed_reason = Some(reason);
        self
    }

    /// What is wrong with this plan, if anything.
    ///
    /// ```
    /// use answers_protocol::LocalDate;
    /// use answers_store::{Frequency, MedicationProblem, NewPlan, Route};
    ///
    /// let mut p = NewPlan::active("p1", "s1", " ", Frequency::OnceDaily, Route::Oral, "2026-01-01".parse().unwrap());
    /// assert_eq!(p.check(), Err(MedicationProblem::EmptyName));
    /// p.name = "Atorvastatin".into();
    /// p.dose = Some((f64::NAN, "mg".into()));
    /// assert_eq!(p.check(), Err(MedicationProblem::DoseAmount));
    /// ```
    pub fn check(&self) -> Result<(), MedicationProblem> {
        let padded = |s: &str| s.is_empty() || s.trim() != s;
        if padded(&self.id) || padded(&self.subject_id) {
            return Err(MedicationProblem::Id);
        }
        if self.name.trim().is_empty() {
            return Err(MedicationProblem::EmptyName);
        }
        if let Some(code) = &self.code
            && !code.system.is_valid_code(&code.code)
        {
            return Err(MedicationProblem::CodeShape);
        }
        if let Some((amount, unit)) = &self.dose {
            if !amount.is_finite() || *amount <= 0.0 {
                return Err(MedicationProblem::DoseAmount);
            }
            if unit.trim().is_empty() {
                return Err(MedicationProblem::DoseUnit);
            }
        }
        if self.end.is_some_and(|end| end < self.start) {
            return Err(MedicationProblem::EndBeforeStart);
        }
        match (self.status.is_closed(), self.end, self.closed_reason) {
            (true, None, _) => Err(MedicationProblem::ClosedWithoutEnd),
            (true, _, None) => Err(MedicationProblem::ClosedWithoutReason),
            (false, _, Some(_)) => Err(MedicationProblem::ActiveWithReason),
            _ => Ok(()),
        }
    }
}

/// One dose for [`Store::upsert_doses`]: upserts on `(plan_id, at)`. `at` is when it was
/// taken, or for a skipped dose when it was planned. `note` is PHI: no tool returns it.
///
/// ```
/// use answers_store::{DoseStatus, NewDose};
///
/// let d = NewDose::taken("p1", "s1", "2026-05-18T00:05:00Z".parse().unwrap());
/// assert_eq!(d.status, DoseStatus::Taken);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct NewDose {
    /// The plan the dose belongs to.
    pub plan_id: String,
    /// The subject, who must own the plan.
    pub subject_id: String,
    /// When, to the second.
    pub at: Timestamp,
    /// Taken or skipped.
    pub status: DoseStatus,
    /// Free text. PHI: stored, never returned.
    pub note: Option<String>,
}

impl NewDose {
    /// A dose taken at `at`.
    ///
    /// ```
    /// let d = answers_store::NewDose::taken("p1", "s1", "2026-05-18T00:05:00Z".parse().unwrap());
    /// assert!(d.note.is_none());
    /// ```
    #[must_use]
    pub fn taken(plan_id: &str, subject_id: &str, at: Timestamp) -> Self {
        Self {
            plan_id: plan_id.to_owned(),
            subject_id: subject_id.to_owned(),
            at,
            status: DoseStatus::Taken,
            note: None,
        }
    }

    /// A dose planned at `at` and recorded as skipped.
    ///
    /// ```
    /// let d = answers_store::NewDose::skipped("p1", "s1", "2026-05-18T00:00:00Z".parse().unwrap());
    /// assert_eq!(d.status, answers_store::DoseStatus::Skipped);
    /// ```
    #[must_use]
    pub fn skipped(plan_id: &str, subject_id: &str, at: Timestamp) -> Self {
        Self {
            status: DoseStatus::Skipped,
            ..Self::taken(plan_id, subject_id, at)
        }
    }
}

/// Why a plan or a dose was refused. Names the rule, never a value.
///
/// ```
/// use answers_store::MedicationProblem;
///
/// assert_eq!(MedicationProblem::ClosedWithoutReason.to_string(), "a closed course needs the reason it closed");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MedicationProblem {
    /// An id is empty or padded with whitespace.
    #[error("an id is empty or padded")]
    Id,
    /// The drug's name is empty.
    #[error("the drug's name is empty")]
    EmptyName,
    /// The code does not have its system's shape.
    #[error("the code does not have its system's shape")]
    CodeShape,
    /// The dose amount is not a positive finite number.
    #[error("the dose amount is not a positive number")]
    DoseAmount,
    /// The dose has an amount but no unit.
    #[error("the dose has no unit")]
    DoseUnit,
    /// The end is before the start.
    #[error("the end is before the start")]
    EndBeforeStart,
    /// A completed or stopped course has no end day.
    #[error("a closed course needs an end day")]
    ClosedWithoutEnd,
    /// A completed or stopped course has no reason.
    #[error("a closed course needs the reason it closed")]
    ClosedWithoutReason,
    /// An active plan has a reason it closed.
    #[error("an active plan has no reason it closed")]
    ActiveWithReason,
    /// The plan id belongs to another subject.
    #[error("the plan belongs to another subject")]
    PlanOfAnotherSubject,
    /// A dose names a plan the store does not have.
    #[error("no such plan")]
    UnknownPlan,
}

/// Whether `subject` has any medication plan: the MCP surface hides `query_medications` from a
/// person who has none.
///
/// ```
/// use answers_store::{Store, has_medications};
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("s1", "you", "UTC")?;
/// assert!(!has_medications(&store, &you)?);
/// # Ok::<(), answers_store::StoreError>(())
/// ```
pub fn has_medications(store: &Store, subject: &Subject) -> Result<bool, StoreError> {
    let op = "read plans";
    let found = store.db.one(
        op,
        "SELECT EXISTS (SELECT 1 FROM medication_plan WHERE subject_id = ?1)",
        &[answers_db::Arg::from(&subject.id)],
        |r| r.flag(0, op),
    )?;
    Ok(found.unwrap_or(false))
}
