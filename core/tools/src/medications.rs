//! `query_medications(view=plan|log|history, keywords, start, end)`: the medications tool.
//!
//! One call reads one subject, the one the caller is authenticated as. The view is dispatched
//! through a table, one function per `MedicationView`:
//!
//! | `view` | the window means | answers with |
//! |---|---|---|
//! | `plan` (the default) | in effect at some point in it | table `plans`: drug, code, dose, frequency, route, start, end, status |
//! | `history` | in effect at some point in it | table `courses`, oldest first: drug, code, dose, start, end, status, the reason it closed |
//! | `log` | recorded in it; none given: the [`LOG_DEFAULT_DAYS`] days ending today | tables `doses_per_drug` (counts) and `doses` (newest first, at most [`DOSE_LOG_CAP`]) |
//!
//! Every `plan` (and `history`) answer carries the plan-is-intent note, every `log` answer the
//! missing-dose note; an answer with no rows says so. A `plan` answer whose window holds today
//! also has a `today` table: today's dose slots, due, taken or missed from the dose log, as the
//! original implementation's plan answers do. The `log`'s default window is the
//! [`LOG_DEFAULT_DAYS`] days ending today in the subject's zone (following the original, which
//! reads the clock), and the answer states the window it used; when that window has no dose
//! but the log has older ones, the answer says so and suggests a wider window. Today is the
//! clock's, or the day [`TODAY_ENV`] names ([`query_medications_on`] takes it as an argument).
//! No answer carries a plan's or a dose's note. The tool never raises ([`guarded`]).

mod history;
mod log;
mod plan;
mod shared;
mod slots;
mod today;

pub use self::today::{TODAY_ENV, today_override};

use serde_json::Value;

use crate::args::FromArgs;
use crate::args::medications::{MedicationQuery, MedicationViewTable, QUERY_MEDICATIONS};
use crate::date::LocalDate;
use crate::envelope::Envelope;
use crate::envelope::next_step::NextAction;
use crate::fault::{ToolError, guarded};
use crate::store::{Store, Subject};
use crate::tool::ToolId;

/// Doses a `log` answer lists at most, newest first; its counts cover the whole window.
///
/// ```
/// assert_eq!(answers_tools::medications::DOSE_LOG_CAP, 200);
/// ```
pub const DOSE_LOG_CAP: usize = 200;

/// The days a `log` call without a window covers, ending today in the subject's zone.
///
/// ```
/// assert_eq!(answers_tools::medications::LOG_DEFAULT_DAYS, 30);
/// ```
pub const LOG_DEFAULT_DAYS: u32 = 30;

/// Answers a medications call for `subject`, the subject the caller is authenticated as.
///
/// Refused arguments come back as the validator's refusal; everything else as an answer or a
/// fault envelope. Never panics.
///
/// ```
/// use answers_store::Store;
/// use answers_tools::query_medications;
/// use answers_protocol::{Assumption, Status, render_compact, MedicationsAssumption};
/// use serde_json::json;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// let env = query_medications(&store, &you, &json!({"view": "plan"}));
/// assert_eq!(env.status(), Status::Ok);
/// assert!(env.assumptions().contains(&Assumption::Medications(MedicationsAssumption::PlanIsIntent)));
/// assert!(env.assumptions().contains(&Assumption::Medications(MedicationsAssumption::NoMedicationRecorded)));
///
/// let refused = query_medications(&store, &you, &json!({"view": "doses"}));
/// assert!(render_compact(&refused).starts_with("error (invalid_arguments): view: expected one of plan, log, history"));
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn query_medications(store: &Store, subject: &Subject, args: &Value) -> Envelope {
    answer(store, subject, args, None)
}

/// [`query_medications`] with `today` taken as today: the day the `log`'s default window ends
/// on and whose dose slots a `plan` answer shows.
///
/// ```
/// use answers_store::{Frequency, NewPlan, Route, Store};
/// use answers_tools::medications::query_medications_on;
/// use answers_protocol::{LocalDate, render_compact};
/// use serde_json::json;
///
/// let mut store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// let start: LocalDate = "2026-03-01".parse()?;
/// store.upsert_plans(&[NewPlan::active("p1", "subj-you-1", "Atorvastatin", Frequency::OnceDaily, Route::Oral, start)])?;
/// let today: LocalDate = "2026-03-10".parse()?;
/// let log = query_medications_on(&store, &you, &json!({"view": "log"}), today);
/// assert_eq!(log.meta().window.to_string(), "2026-02-09 to 2026-03-10");
/// let plan = query_medications_on(&store, &you, &json!({}), today);
/// assert!(plan.data().iter().any(|t| t.name() == "today"));
/// assert!(render_compact(&plan).contains("due"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn query_medications_on(
    store: &Store,
    subject: &Subject,
    args: &Value,
    today: LocalDate,
) -> Envelope {
    answer(store, subject, args, Some(today))
}

fn answer(store: &Store, subject: &Subject, args: &Value, today: Option<LocalDate>) -> Envelope {
    let query = match QUERY_MEDICATIONS.validate(args) {
        Ok(valid) => MedicationQuery::from_valid(&valid),
        Err(refusal) => return refusal,
    };
    let retry = || vec![query.step(NextAction::RetryLater, |_| {})];
    guarded(ToolId::QueryMedications, retry, || {
        let today = match today {
            Some(day) => day,
            None => today::today(subject)?,
        };
        let ctx = Ctx {
            store,
            subject,
            today,
        };
        (VIEWS.get(query.view))(&ctx, &query)
    })
}

/// What the views of one call share.
pub(crate) struct Ctx<'a> {
    pub(crate) store: &'a Store,
    pub(crate) subject: &'a Subject,
    /// Today in the subject's zone.
    pub(crate) today: LocalDate,
}

/// A view's answer.
type ViewFn = fn(&Ctx<'_>, &MedicationQuery) -> Result<Envelope, ToolError>;

/// The dispatch table: one function per view, checked complete at compile time.
const VIEWS: MedicationViewTable<ViewFn> = MedicationViewTable {
    plan: plan::answer,
    log: log::answer,
    history: history::answer,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::medications::MedicationView;
    use crate::store::NewDose;
    use serde_json::json;

    /// The view an answer was made with, for tests of the table.
    fn view_of(env: &Envelope) -> Option<MedicationView> {
        let name = env.data().first()?.name().to_owned();
        match name.as_str() {
            "plans" => Some(MedicationView::Plan),
            "courses" => Some(MedicationView::History),
            "doses_per_drug" | "doses" => Some(MedicationView::Log),
            _ => None,
        }
    }

    #[test]
    fn a_busy_stores_retry_step_is_the_same_call() {
        let args = json!({"view": "log", "keywords": ["Atorvastatin"], "start": "2026-01-01"});
        let valid = QUERY_MEDICATIONS.validate(&args).expect("valid");
        let query = MedicationQuery::from_valid(&valid);
        let step = query.step(NextAction::RetryLater, |_| {});
        assert_eq!(step.action, NextAction::RetryLater);
        let call = step.apply([]).expect("nothing to supply");
        assert_eq!(call["view"], "log", "{call}");
        assert_eq!(call["keywords"], args["keywords"], "{call}");
        assert_eq!(call["start"], "2026-01-01", "{call}");
    }

    #[test]
    fn each_view_answers_with_its_own_table() {
        let (mut store, s) = crate::store::test_support::one_plan("UTC", "2026-01-01");
        let at = "2026-01-02T20:00:00Z".parse().unwrap();
        store
            .upsert_doses(&[NewDose::taken("p1", "s1", at)])
            .unwrap();
        let today = "2026-01-02".parse().unwrap();
        for view in MedicationView::ALL {
            let env = query_medications_on(&store, &s, &json!({"view": view.as_str()}), today);
            assert_eq!(view_of(&env), Some(*view), "{env:?}");
        }
    }
}
