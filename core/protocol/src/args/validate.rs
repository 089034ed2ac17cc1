//! Validation: arguments against a tool's parameters, then its rules.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::repair::Repair;
use super::{ArgValue, ToolSchema, ValidArgs, lenient};
use crate::envelope::error::ArgProblem;

/// Why arguments were refused: the parameter (as the caller spelled it, or none for the
/// arguments as a whole), the problem, and for a rule between parameters, the repairs.
///
/// ```
/// use answers_protocol::args::Refused;
/// use answers_protocol::ArgProblem;
///
/// let r = Refused::new(Some("view"), ArgProblem::NeedsSelector);
/// assert!(r.repairs.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// The parameter refused.
    pub parameter: Option<String>,
    /// What is wrong.
    pub problem: ArgProblem,
    /// Changes that would satisfy a rule (empty for a problem with one value).
    pub repairs: Vec<Repair>,
}

impl Refused {
    /// A refusal with no repairs.
    #[must_use]
    pub fn new(parameter: Option<&str>, problem: ArgProblem) -> Self {
        Self {
            parameter: parameter.map(str::to_owned),
            problem,
            repairs: Vec::new(),
        }
    }

    /// Adds a repair.
    ///
    /// ```
    /// use answers_protocol::args::Refused;
    /// use answers_protocol::args::repair::Repair;
    /// use answers_protocol::{ArgProblem, NextAction};
    ///
    /// let r = Refused::new(Some("view"), ArgProblem::NeedsSelector)
    ///     .repair(Repair::new(NextAction::CallCatalogue).remove("view"));
    /// assert_eq!(r.repairs.len(), 1);
    /// ```
    #[must_use]
    pub fn repair(mut self, repair: Repair) -> Self {
        self.repairs.push(repair);
        self
    }
}

/// A parameter's value that was refused: the parameter, the index of a batch's item refused
/// (`None`: the value as a whole), and the problem.
pub(crate) type Problem = (&'static str, Option<usize>, ArgProblem);

/// The name a refusal gives a problem: the parameter, or a batch's item as `names.3`.
pub(crate) fn label(name: &str, index: Option<usize>) -> String {
    match index {
        Some(i) => format!("{name}.{i}"),
        None => name.to_owned(),
    }
}

/// Each declared parameter read from `obj`: the valid values, and the problems in declaration
/// order. `null` counts as absent.
pub(crate) fn read_params(
    schema: &ToolSchema,
    obj: &Map<String, Value>,
) -> (BTreeMap<&'static str, ArgValue>, Vec<Problem>) {
    let mut values = BTreeMap::new();
    let mut problems = Vec::new();
    for p in schema.params {
        match obj.get(p.name) {
            None | Some(Value::Null) => {
                if p.required {
                    problems.push((p.name, None, ArgProblem::Missing));
                }
            }
            Some(v) => match lenient::read_indexed(p.ty, v) {
                Ok(value) => {
                    values.insert(p.name, value);
                }
                Err((index, problem)) => problems.push((p.name, index, problem)),
            },
        }
    }
    (values, problems)
}

/// The keys of `obj` the schema does not have, in key order.
pub(crate) fn unknown_keys<'a>(schema: &ToolSchema, obj: &'a Map<String, Value>) -> Vec<&'a str> {
    obj.keys()
        .map(String::as_str)
        .filter(|k| schema.param(k).is_none())
        .collect()
}

/// The arguments, validated, or the first reason to refuse them: not an object, then unknown
/// parameters, then each parameter's value in declaration order, then the rules.
pub(crate) fn check(schema: &ToolSchema, args: &Value) -> Result<ValidArgs, Refused> {
    let Some(obj) = args.as_object() else {
        return Err(Refused::new(None, ArgProblem::NotAnObject));
    };
    if let Some(unknown) = unknown_keys(schema, obj).first() {
        return Err(Refused::new(Some(unknown), ArgProblem::UnknownParameter));
    }
    let (values, problems) = read_params(schema, obj);
    if let Some((name, index, problem)) = problems.first() {
        return Err(Refused::new(Some(&label(name, *index)), *problem));
    }
    let valid = ValidArgs::new(schema.tool, values);
    (schema.rules)(&valid)?;
    Ok(valid)
}
