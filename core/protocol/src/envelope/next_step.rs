//! `NextStep`: a follow-up call an answer suggests, from a closed set of actions.

use std::collections::BTreeMap;

use phi_macros::{ClosedEnum, ClosedFields};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::ToolId;

/// The kind of a suggested follow-up.
///
/// ```
/// use answers_protocol::NextAction;
///
/// assert!(NextAction::VARIANTS.contains(&"call_catalogue"));
/// assert!("use_view_stats".parse::<NextAction>().is_err());
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NextAction {
    /// Call with no selector and no view: list what is recorded.
    CallCatalogue,
    /// Fetch values by exact names (from the catalogue or a keyword answer).
    UseIndicators,
    /// Ask for a shorter window.
    NarrowWindow,
    /// Ask for a longer window (an empty answer over a default one).
    WidenWindow,
    /// Ask for another view of the same indicators (`view` is in the step's arguments).
    ChangeView,
    /// Drop a parameter the tool does not have.
    RemoveParameter,
    /// Give a valid value for a parameter that was refused.
    FixArguments,
    /// The same call, later.
    RetryLater,
}

/// A follow-up call: the action, the tool, the complete arguments, and the parameters whose
/// values the caller must choose.
///
/// The arguments are the whole call, not a patch: a program can run the step once it has filled
/// in `supply`, and governance can compare it with other calls. Every step a tool emits is one
/// the tool's own validation accepts once `supply` is filled with valid values (the test suite
/// applies every step of every refusal and truncation path).
///
/// A step names its action with [`NextAction`] and its parameters by name, rather than being a
/// variant per suggestion with its own fields: the arguments of a follow-up are the tool's
/// arguments, so they are checked by the tool's one validator instead of a second schema.
///
/// ```
/// use answers_protocol::{NextAction, NextStep, ToolId};
/// use serde_json::json;
///
/// let step = NextStep::new(NextAction::UseIndicators, ToolId::QueryHealthIndicators)
///     .arg("view", json!("day"))
///     .supply("indicators");
/// let call = step.apply([("indicators", json!(["LDL Cholesterol"]))]).unwrap();
/// assert_eq!(call, json!({"indicators": ["LDL Cholesterol"], "view": "day"}));
/// assert!(step.apply([]).is_err());
/// ```
#[derive(ClosedFields, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextStep {
    /// What the step does.
    #[closed]
    pub action: NextAction,
    /// The tool to call.
    #[closed]
    pub tool: ToolId,
    /// The complete arguments of the call, apart from `supply`.
    pub args: BTreeMap<String, Value>,
    /// Parameters the caller must give values for (names chosen from the catalogue, a date).
    pub supply: Vec<String>,
}

/// A step applied without a value for one of the parameters it needs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the step needs a value for a parameter it names in `supply`")]
pub struct MissingSupply;

impl NextStep {
    /// A step with no arguments yet.
    ///
    /// ```
    /// use answers_protocol::{NextAction, NextStep, ToolId};
    ///
    /// let step = NextStep::new(NextAction::CallCatalogue, ToolId::QueryHealthIndicators);
    /// assert!(step.args.is_empty() && step.supply.is_empty());
    /// ```
    #[must_use]
    pub fn new(action: NextAction, tool: ToolId) -> Self {
        Self {
            action,
            tool,
            args: BTreeMap::new(),
            supply: Vec::new(),
        }
    }

    /// Sets an argument of the follow-up call.
    ///
    /// ```
    /// use answers_protocol::{NextAction, NextStep, ToolId};
    ///
    /// let step = NextStep::new(NextAction::ChangeView, ToolId::QueryHealthIndicators)
    ///     .arg("view", "stats".into());
    /// assert_eq!(step.args["view"], "stats");
    /// ```
    #[must_use]
    pub fn arg(mut self, name: impl Into<String>, value: Value) -> Self {
        self.args.insert(name.into(), value);
        self
    }

    /// Adds a parameter the caller must choose a value for.
    ///
    /// ```
    /// use answers_protocol::{NextAction, NextStep, ToolId};
    ///
    /// let step = NextStep::new(NextAction::NarrowWindow, ToolId::QueryHealthIndicators)
    ///     .supply("start");
    /// assert_eq!(step.supply, ["start"]);
    /// ```
    #[must_use]
    pub fn supply(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.args.remove(&name);
        if !self.supply.contains(&name) {
            self.supply.push(name);
        }
        self
    }

    /// The follow-up call's arguments, with `values` for the parameters in `supply`.
    ///
    /// Values for parameters not in `supply` are ignored: a step's own arguments stand.
    ///
    /// ```
    /// use answers_protocol::{NextAction, NextStep, ToolId};
    /// use serde_json::json;
    ///
    /// let retry = NextStep::new(NextAction::RetryLater, ToolId::QueryHealthIndicators)
    ///     .arg("indicators", json!(["Body weight"]));
    /// assert_eq!(retry.apply([]).unwrap(), json!({"indicators": ["Body weight"]}));
    /// ```
    pub fn apply<'a>(
        &self,
        values: impl IntoIterator<Item = (&'a str, Value)>,
    ) -> Result<Value, MissingSupply> {
        let mut call: serde_json::Map<String, Value> = self
            .args
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (name, value) in values {
            if self.supply.iter().any(|s| s == name) {
                call.insert(name.to_owned(), value);
            }
        }
        if self.supply.iter().all(|s| call.contains_key(s)) {
            Ok(Value::Object(call))
        } else {
            Err(MissingSupply)
        }
    }
}
