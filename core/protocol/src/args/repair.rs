//! The next steps of a refusal: calls that repair the arguments, each checked by the validator
//! before it is suggested.
//!
//! From the refused arguments, the repair keeps every value that is valid (in strict form),
//! drops unknown parameters, and asks the caller to supply the parameters whose values were
//! refused or missing. If the rules between parameters still refuse that, each rule offers
//! repairs (drop `view` and list the catalogue; add `indicators`), tried in turn. A candidate is
//! suggested only if validation accepts it with its supplied parameters filled in, so
//! `next_steps` never suggests something the argument matrix would refuse.

use serde_json::{Map, Value};

use super::validate::{check, read_params, unknown_keys};
use super::{ParamType, ToolSchema};
use crate::date::LocalDate;
use crate::envelope::next_step::{NextAction, NextStep};

/// A change to a call that satisfies a rule between parameters.
///
/// ```
/// use answers_protocol::NextAction;
/// use answers_protocol::args::repair::Repair;
///
/// let r = Repair::new(NextAction::CallCatalogue).remove("view");
/// assert_eq!(r.remove, ["view"]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    /// What the repaired call does.
    pub action: NextAction,
    /// Parameters to drop.
    pub remove: Vec<&'static str>,
    /// Parameters the caller must give.
    pub supply: Vec<&'static str>,
    /// Parameters to set to a value.
    pub set: Vec<(&'static str, Value)>,
}

impl Repair {
    /// A repair that changes nothing yet.
    #[must_use]
    pub fn new(action: NextAction) -> Self {
        Self {
            action,
            remove: Vec::new(),
            supply: Vec::new(),
            set: Vec::new(),
        }
    }

    /// Drops `name`.
    #[must_use]
    pub fn remove(mut self, name: &'static str) -> Self {
        self.remove.push(name);
        self
    }

    /// Asks the caller for `name`.
    #[must_use]
    pub fn supply(mut self, name: &'static str) -> Self {
        self.supply.push(name);
        self
    }

    /// Sets `name` to `value`.
    #[must_use]
    pub fn set(mut self, name: &'static str, value: Value) -> Self {
        self.set.push((name, value));
        self
    }
}

/// A follow-up call being considered.
#[derive(Debug, Clone, PartialEq)]
struct Candidate {
    action: NextAction,
    args: Map<String, Value>,
    supply: Vec<&'static str>,
}

impl Candidate {
    fn apply(&self, repair: &Repair) -> Self {
        let mut next = self.clone();
        next.action = repair.action;
        for name in &repair.remove {
            next.args.remove(*name);
            next.supply.retain(|s| s != name);
        }
        for name in &repair.supply {
            next.args.remove(*name);
            if !next.supply.contains(name) {
                next.supply.push(name);
            }
        }
        for (name, value) in &repair.set {
            next.supply.retain(|s| s != name);
            next.args.insert((*name).to_owned(), value.clone());
        }
        next
    }

    /// The call with a valid sample value for every supplied parameter.
    fn filled(&self, schema: &ToolSchema) -> Value {
        let mut args = self.args.clone();
        for name in &self.supply {
            if let Some(p) = schema.param(name) {
                let sample = sample(p.ty, &self.args);
                args.insert((*name).to_owned(), sample);
            }
        }
        Value::Object(args)
    }

    fn into_step(mut self, schema: &ToolSchema) -> NextStep {
        let position = |name: &str| schema.params.iter().position(|p| p.name == name);
        self.supply.sort_by_key(|s| position(s));
        let mut step = NextStep::new(self.action, schema.tool);
        for (name, value) in self.args {
            step = step.arg(name, value);
        }
        for name in self.supply {
            step = step.supply(name);
        }
        step
    }
}

/// A value of type `ty` validation accepts. A date takes a date already in the call, so a
/// supplied `start` cannot fall after a given `end`.
fn sample(ty: ParamType, args: &Map<String, Value>) -> Value {
    match ty {
        ParamType::Text => "example".into(),
        ParamType::TextList | ParamType::TextBatch => vec!["example"].into(),
        ParamType::Date => {
            let given = args
                .values()
                .filter_map(Value::as_str)
                .find(|s| s.parse::<LocalDate>().is_ok());
            given.unwrap_or("2024-01-01").into()
        }
        ParamType::Number => 1.into(),
        ParamType::OneOf(domain) => domain.values().first().copied().unwrap_or_default().into(),
    }
}

/// How many rounds of rule repairs are tried.
const ROUNDS: usize = 3;

/// The next steps for refused `args`: each a call the validator accepts once its `supply` is
/// filled in with valid values.
///
/// ```
/// use answers_protocol::NextAction;
/// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
/// use answers_protocol::args::repair::next_steps;
/// use serde_json::json;
///
/// let steps = next_steps(&QUERY_HEALTH_INDICATORS, &json!({"kind": "medications", "view": "day"}));
/// let actions: Vec<_> = steps.iter().map(|s| s.action).collect();
/// assert_eq!(actions, [NextAction::CallCatalogue, NextAction::UseIndicators]);
/// ```
#[must_use]
pub fn next_steps(schema: &ToolSchema, args: &Value) -> Vec<NextStep> {
    let empty = Map::new();
    let obj = args.as_object().unwrap_or(&empty);
    let (values, problems) = read_params(schema, obj);
    let only_unknown =
        args.is_object() && problems.is_empty() && !unknown_keys(schema, obj).is_empty();
    let base = Candidate {
        action: if only_unknown {
            NextAction::RemoveParameter
        } else {
            NextAction::FixArguments
        },
        args: values
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.to_json()))
            .collect(),
        supply: problems.iter().map(|(name, _, _)| *name).collect(),
    };

    let mut accepted: Vec<Candidate> = Vec::new();
    let mut frontier = vec![base];
    for _ in 0..ROUNDS {
        let mut next = Vec::new();
        for candidate in frontier {
            match check(schema, &candidate.filled(schema)) {
                Ok(_) => {
                    if !accepted.contains(&candidate) {
                        accepted.push(candidate);
                    }
                }
                Err(refused) => next.extend(refused.repairs.iter().map(|r| candidate.apply(r))),
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    accepted.into_iter().map(|c| c.into_step(schema)).collect()
}

/// The rule every dated tool shares: `end` is not before `start`. A violation names `end`, and
/// its repair swaps the two dates.
pub(crate) fn window_in_order(args: &super::ValidArgs) -> Result<(), super::Refused> {
    if let (Some(start), Some(end)) = (args.date("start"), args.date("end"))
        && end < start
    {
        return Err(super::Refused::new(
            Some("end"),
            crate::envelope::error::ArgProblem::EndBeforeStart,
        )
        .repair(
            Repair::new(crate::envelope::next_step::NextAction::FixArguments)
                .set("start", end.to_string().into())
                .set("end", start.to_string().into()),
        ));
    }
    Ok(())
}
