//! `query_medications(view=plan|log|history, keywords, start, end)`: its schema, its argument
//! matrix, and the typed query.
//!
//! The matrix is small: every parameter applies to every view, and `end` is not before
//! `start`. What a window means depends on the view: `plan` and `history` answer with what was
//! in effect at some point in it, `log` with the doses recorded in it.

use phi_macros::ClosedEnum;
use serde_json::{Value, json};

use super::{
    Domain, FromArgs, Param, ParamType, ToolSchema, ValidArgs, WINDOW_END, WINDOW_START,
    insert_window,
};
use crate::envelope::next_step::{NextAction, NextStep};
use crate::tool::ToolId;
use crate::window::Window;

/// How the medications tool answers: a dispatch table (`MedicationViewTable`), not a chain of
/// `if`s.
///
/// ```
/// use answers_protocol::args::medications::MedicationView;
///
/// assert_eq!(MedicationView::VARIANTS, ["plan", "log", "history"]);
/// assert!("doses".parse::<MedicationView>().is_err());
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MedicationView {
    /// The plans in effect at some point in the window: drug, dose, frequency, route, dates,
    /// status. Intent, not intake.
    Plan,
    /// The doses recorded in the window, newest first, with a count per drug.
    Log,
    /// The courses in effect at some point in the window, with start, end and the reason each
    /// closed.
    History,
}

/// The view a call answers with when it names none.
///
/// ```
/// assert_eq!(answers_protocol::args::medications::DEFAULT_VIEW.as_str(), "plan");
/// ```
pub const DEFAULT_VIEW: MedicationView = MedicationView::Plan;

/// The medications tool's published arguments.
///
/// ```
/// use answers_protocol::args::medications::QUERY_MEDICATIONS;
/// use answers_protocol::render_compact;
/// use serde_json::json;
///
/// let refused = QUERY_MEDICATIONS.validate(&json!({"kind": "plan"})).unwrap_err();
/// assert!(render_compact(&refused).starts_with("error (invalid_arguments): kind: unknown parameter."));
/// assert!(QUERY_MEDICATIONS.validate(&json!({"view": "history"})).is_ok());
/// ```
pub static QUERY_MEDICATIONS: ToolSchema = ToolSchema {
    tool: ToolId::QueryMedications,
    description: "Read the person's medications. view=plan (the default) lists the plans in \
        effect at some point in the window: what the person intends to take, not a record of \
        doses taken; when the window holds today, also today's dose slots (due, taken, \
        missed). view=history lists the courses in effect in the window with their start, \
        end and the reason each closed: use it to find the date of a switch, then ask \
        query_health_indicators with start= that date. view=log lists the doses recorded in \
        the window (default: the 30 days ending today); a missing dose is not evidence it \
        was not taken. start and end are local dates, inclusive; for plan and history, \
        neither means all recorded data.",
    params: &[
        Param::optional(
            "view",
            ParamType::OneOf(Domain::MedicationView),
            "plan (the default): plans in effect in the window; log: doses recorded in the \
             window; history: courses with start, end and the reason closed",
        ),
        Param::optional(
            "keywords",
            ParamType::TextList,
            "words to find drugs by: part of the name as recorded, or a code",
        ),
        WINDOW_START,
        WINDOW_END,
    ],
    // The one rule: `end` is not before `start`.
    rules: super::repair::window_in_order,
    examples: &[
        r"{}",
        r#"{"view": "plan", "start": "2026-03-01", "end": "2026-03-31"}"#,
        r#"{"view": "history"}"#,
        r#"{"view": "history", "keywords": ["metoprolol"]}"#,
        r#"{"view": "log"}"#,
        r#"{"view": "log", "keywords": ["atorvastatin"], "start": "2026-08-01", "end": "2026-08-31"}"#,
    ],
    repairs: true,
};

/// A validated medications call.
///
/// ```
/// use answers_protocol::args::FromArgs;
/// use answers_protocol::args::medications::{MedicationQuery, MedicationView};
/// use serde_json::json;
///
/// let q = MedicationQuery::from_args(&json!({"view": "log", "keywords": "metoprolol"})).unwrap();
/// assert_eq!(q.view, MedicationView::Log);
/// assert_eq!(q.keywords, ["metoprolol"]);
/// assert!(q.window.is_all_recorded());
/// assert_eq!(MedicationQuery::from_args(&json!({})).unwrap().view, MedicationView::Plan);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MedicationQuery {
    /// The view (`plan` when the call names none).
    pub view: MedicationView,
    /// Whether the call named the view.
    pub view_given: bool,
    /// Words to find drugs by; empty for every drug.
    pub keywords: Vec<String>,
    /// The window as given.
    pub window: Window,
}

impl FromArgs for MedicationQuery {
    const SCHEMA: &'static ToolSchema = &QUERY_MEDICATIONS;

    /// Reads arguments that passed [`QUERY_MEDICATIONS`].
    ///
    /// ```
    /// use answers_protocol::args::medications::{MedicationQuery, QUERY_MEDICATIONS};
    /// use answers_protocol::args::FromArgs;
    /// use serde_json::json;
    ///
    /// let valid = QUERY_MEDICATIONS.validate(&json!({"start": "2026-03-01"})).unwrap();
    /// let q = MedicationQuery::from_valid(&valid);
    /// assert_eq!(q.window.start().unwrap().to_string(), "2026-03-01");
    /// assert!(!q.view_given);
    /// ```
    fn from_valid(args: &ValidArgs) -> Self {
        let given = args.choice("view").and_then(|v| v.parse().ok());
        let window = args.window();
        Self {
            view: given.unwrap_or(DEFAULT_VIEW),
            view_given: given.is_some(),
            keywords: args
                .text_list("keywords")
                .map(<[String]>::to_vec)
                .unwrap_or_default(),
            window,
        }
    }
}

impl MedicationQuery {
    /// The call in strict form, as the schema publishes it.
    ///
    /// ```
    /// use answers_protocol::args::FromArgs;
    /// use answers_protocol::args::medications::MedicationQuery;
    /// use serde_json::json;
    ///
    /// let q = MedicationQuery::from_args(&json!({"keywords": "statin", "start": "2026-01-01"})).unwrap();
    /// assert_eq!(q.to_args(), json!({"keywords": ["statin"], "start": "2026-01-01"}));
    /// ```
    #[must_use]
    pub fn to_args(&self) -> Value {
        let mut args = serde_json::Map::new();
        if self.view_given {
            args.insert("view".into(), self.view.as_str().into());
        }
        if !self.keywords.is_empty() {
            args.insert("keywords".into(), json!(self.keywords));
        }
        insert_window(&mut args, &self.window);
        Value::Object(args)
    }

    /// A step on this tool whose arguments are this call's, changed by `edit`.
    ///
    /// ```
    /// use answers_protocol::args::FromArgs;
    /// use answers_protocol::NextAction;
    /// use answers_protocol::args::medications::MedicationQuery;
    /// use serde_json::json;
    ///
    /// let q = MedicationQuery::from_args(&json!({"view": "log", "keywords": ["x"]})).unwrap();
    /// let all = q.step(NextAction::CallCatalogue, |q| q.keywords.clear());
    /// assert_eq!(all.apply([]).unwrap(), json!({"view": "log"}));
    /// ```
    #[must_use]
    pub fn step(&self, action: NextAction, edit: impl FnOnce(&mut Self)) -> NextStep {
        let mut changed = self.clone();
        edit(&mut changed);
        let mut step = NextStep::new(action, ToolId::QueryMedications);
        if let Value::Object(args) = changed.to_args() {
            for (k, v) in args {
                step = step.arg(k, v);
            }
        }
        step
    }
}
