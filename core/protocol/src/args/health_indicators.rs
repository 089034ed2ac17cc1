//! `query_health_indicators(keywords | indicators, start, end, view)`: its schema, its argument
//! matrix, the typed query, and the next steps of a cut answer.
//!
//! The matrix:
//! - no selector lists the catalogue; `keywords` finds names; `indicators` fetches values;
//! - `keywords` and `indicators` are not given together;
//! - `view` needs a selector: the catalogue has no views;
//! - `end` is not before `start`.

use serde_json::{Value, json};

use super::repair::Repair;
use super::{
    Domain, FromArgs, Param, ParamType, Refused, ToolSchema, ValidArgs, WINDOW_END, WINDOW_START,
    insert_window,
};
use crate::envelope::error::ArgProblem;
use crate::envelope::kinds::View;
use crate::envelope::next_step::{NextAction, NextStep};
use crate::tool::ToolId;
use crate::window::Window;

/// The readings tool's published arguments.
///
/// ```
/// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
/// use serde_json::json;
///
/// let refused = QUERY_HEALTH_INDICATORS
///     .validate(&json!({"kind": "medications", "view": "day"}))
///     .unwrap_err();
/// assert_eq!(refused.error_kind().unwrap().as_str(), "invalid_arguments");
/// ```
pub static QUERY_HEALTH_INDICATORS: ToolSchema = ToolSchema {
    tool: ToolId::QueryHealthIndicators,
    description: "Read the person's health indicators: measured readings and what they reported. \
        With no keywords or indicators, lists the catalogue of recorded indicators. With \
        keywords, finds indicator names. With indicators (exact names from the catalogue), \
        returns values in the given view. start and end are local dates, inclusive; neither \
        means all recorded data.",
    params: &[
        Param::optional(
            "keywords",
            ParamType::TextList,
            "words to find indicator names by (a name, a synonym, a code); not with indicators",
        ),
        Param::optional(
            "indicators",
            ParamType::TextList,
            "exact indicator names, as the catalogue lists them; not with keywords",
        ),
        WINDOW_START,
        WINDOW_END,
        Param::optional(
            "view",
            ParamType::OneOf(Domain::View),
            "how to answer for the indicators: raw readings, one point per minute/hour/day/week/month, \
             stats over the window, or the latest value; needs keywords or indicators",
        ),
    ],
    rules,
    examples: &[
        r"{}",
        r#"{"start": "2024-01-01", "end": "2024-03-31"}"#,
        r#"{"keywords": ["cholesterol"]}"#,
        r#"{"keywords": ["headache"], "view": "stats"}"#,
        r#"{"indicators": ["LDL Cholesterol", "HDL Cholesterol"], "view": "raw", "start": "2023-01-01"}"#,
        r#"{"indicators": ["Resting Heart Rate"], "view": "day", "start": "2024-03-01", "end": "2024-03-31"}"#,
        r#"{"indicators": ["1,25-Dihydroxyvitamin D"], "view": "latest"}"#,
    ],
    repairs: true,
};

/// The argument matrix.
fn rules(args: &ValidArgs) -> Result<(), Refused> {
    if args.has("keywords") && args.has("indicators") {
        return Err(
            Refused::new(Some("indicators"), ArgProblem::SelectorConflict)
                .repair(Repair::new(NextAction::UseIndicators).remove("keywords"))
                .repair(Repair::new(NextAction::RemoveParameter).remove("indicators")),
        );
    }
    if args.has("view") && !args.has("keywords") && !args.has("indicators") {
        return Err(Refused::new(Some("view"), ArgProblem::NeedsSelector)
            .repair(Repair::new(NextAction::CallCatalogue).remove("view"))
            .repair(Repair::new(NextAction::UseIndicators).supply("indicators")));
    }
    super::repair::window_in_order(args)
}

/// What a readings call selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// No selector: the catalogue of recorded indicators.
    Catalogue,
    /// Find names by these words.
    Keywords(Vec<String>),
    /// Fetch these exact names.
    Indicators(Vec<String>),
}

/// A validated readings call.
///
/// ```
/// use answers_protocol::args::FromArgs;
/// use answers_protocol::View;
/// use answers_protocol::args::health_indicators::{IndicatorQuery, Selector};
/// use serde_json::json;
///
/// let q = IndicatorQuery::from_args(&json!({"indicators": "LDL, HDL", "view": "stats"})).unwrap();
/// assert_eq!(q.selector, Selector::Indicators(vec!["LDL".into(), "HDL".into()]));
/// assert_eq!(q.view, Some(View::Stats));
/// assert!(q.window.is_all_recorded());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndicatorQuery {
    /// Catalogue, keywords or indicators.
    pub selector: Selector,
    /// The window.
    pub window: Window,
    /// The view; only with a selector.
    pub view: Option<View>,
}

impl FromArgs for IndicatorQuery {
    const SCHEMA: &'static ToolSchema = &QUERY_HEALTH_INDICATORS;

    fn from_valid(args: &ValidArgs) -> Self {
        let list = |name| args.text_list(name).map(<[String]>::to_vec);
        let selector = match (list("keywords"), list("indicators")) {
            (Some(k), _) => Selector::Keywords(k),
            (None, Some(i)) => Selector::Indicators(i),
            (None, None) => Selector::Catalogue,
        };
        let view = args.choice("view").and_then(|v| v.parse().ok());
        Self {
            selector,
            window: args.window(),
            view,
        }
    }
}

impl IndicatorQuery {
    /// The call in strict form, as the schema publishes it.
    ///
    /// ```
    /// use answers_protocol::args::FromArgs;
    /// use answers_protocol::args::health_indicators::IndicatorQuery;
    /// use serde_json::json;
    ///
    /// let args = json!({"keywords": "glucose", "start": "2024-01-01"});
    /// let q = IndicatorQuery::from_args(&args).unwrap();
    /// assert_eq!(q.to_args(), json!({"keywords": ["glucose"], "start": "2024-01-01"}));
    /// ```
    #[must_use]
    pub fn to_args(&self) -> Value {
        let mut args = serde_json::Map::new();
        match &self.selector {
            Selector::Catalogue => {}
            Selector::Keywords(k) => {
                args.insert("keywords".into(), json!(k));
            }
            Selector::Indicators(i) => {
                args.insert("indicators".into(), json!(i));
            }
        }
        insert_window(&mut args, &self.window);
        if let Some(view) = self.view {
            args.insert("view".into(), view.as_str().into());
        }
        Value::Object(args)
    }

    /// The next steps of an answer to this query that a cap cut.
    ///
    /// A cut catalogue or keyword list is told to use `indicators` and to narrow the window,
    /// never `view=stats`, which a catalogue call refuses. Cut values are told to narrow the
    /// window or, unless they are stats already, to ask for `view=stats`.
    ///
    /// ```
    /// use answers_protocol::args::FromArgs;
    /// use answers_protocol::NextAction;
    /// use answers_protocol::args::health_indicators::IndicatorQuery;
    /// use serde_json::json;
    ///
    /// let catalogue = IndicatorQuery::from_args(&json!({})).unwrap();
    /// let actions: Vec<_> = catalogue.next_steps_when_truncated().iter().map(|s| s.action).collect();
    /// assert_eq!(actions, [NextAction::UseIndicators, NextAction::NarrowWindow]);
    /// ```
    #[must_use]
    pub fn next_steps_when_truncated(&self) -> Vec<NextStep> {
        let narrow = |q: &Self| {
            step_from(NextAction::NarrowWindow, &q.to_args())
                .supply("start")
                .supply("end")
        };
        let names_only = match self.selector {
            Selector::Catalogue => true,
            Selector::Keywords(_) => self.view.is_none(),
            Selector::Indicators(_) => false,
        };
        if names_only {
            // A list of names: fetch some by name, or list fewer. The catalogue has no view.
            let listing = Self {
                view: None,
                ..self.clone()
            };
            let fetch = Self {
                selector: Selector::Catalogue,
                ..listing.clone()
            };
            vec![
                step_from(NextAction::UseIndicators, &fetch.to_args()).supply("indicators"),
                narrow(&listing),
            ]
        } else {
            let mut steps = Vec::new();
            if self.view != Some(View::Stats) {
                let stats = Self {
                    view: Some(View::Stats),
                    ..self.clone()
                };
                steps.push(step_from(NextAction::ChangeView, &stats.to_args()));
            }
            steps.push(narrow(self));
            steps
        }
    }
}

/// A step on the readings tool whose arguments are `args`.
impl IndicatorQuery {
    /// The next steps of an answer whose text was cut at its length bound: ask for fewer
    /// indicators (where it names more than one), a shorter window, or a coarser view (where
    /// there is one). A list of names (the catalogue, keywords without a view) gets the steps
    /// of [`next_steps_when_truncated`](Self::next_steps_when_truncated). None of them is a
    /// call the argument matrix refuses.
    ///
    /// ```
    /// use answers_protocol::args::FromArgs;
    /// use answers_protocol::NextAction;
    /// use answers_protocol::args::health_indicators::IndicatorQuery;
    /// use serde_json::json;
    ///
    /// let q = IndicatorQuery::from_args(&json!({"keywords": ["heart rate", "steps"], "view": "day"})).unwrap();
    /// let steps = q.next_steps_when_too_long();
    /// let actions: Vec<NextAction> = steps.iter().map(|s| s.action).collect();
    /// assert_eq!(actions, [NextAction::UseIndicators, NextAction::NarrowWindow, NextAction::ChangeView]);
    /// assert_eq!(steps[2].args["view"], "week");
    /// ```
    #[must_use]
    pub fn next_steps_when_too_long(&self) -> Vec<NextStep> {
        let names = match &self.selector {
            Selector::Catalogue => return self.next_steps_when_truncated(),
            Selector::Keywords(_) if self.view.is_none() => {
                return self.next_steps_when_truncated();
            }
            Selector::Keywords(n) | Selector::Indicators(n) => n.len(),
        };
        let mut steps = Vec::new();
        if names > 1 {
            let others = Self {
                selector: Selector::Catalogue,
                ..self.clone()
            };
            steps
                .push(step_from(NextAction::UseIndicators, &others.to_args()).supply("indicators"));
        }
        steps.push(
            step_from(NextAction::NarrowWindow, &self.to_args())
                .supply("start")
                .supply("end"),
        );
        // Only `indicators` come here without a view, and they default to `raw`.
        let coarser = match self.view.unwrap_or(View::Raw) {
            View::Minute => Some(View::Hour),
            View::Raw | View::Hour => Some(View::Day),
            View::Day => Some(View::Week),
            View::Week => Some(View::Month),
            View::Month => Some(View::Stats),
            View::Stats | View::Latest => None,
        };
        if let Some(view) = coarser {
            let coarse = Self {
                view: Some(view),
                ..self.clone()
            };
            steps.push(step_from(NextAction::ChangeView, &coarse.to_args()));
        }
        steps
    }
}

fn step_from(action: NextAction, args: &Value) -> NextStep {
    let mut step = NextStep::new(action, ToolId::QueryHealthIndicators);
    if let Some(obj) = args.as_object() {
        for (k, v) in obj {
            step = step.arg(k.clone(), v.clone());
        }
    }
    step
}
