//! `ValidArgs`: arguments that passed validation, in their strict form.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::date::LocalDate;
use crate::tool::ToolId;

/// A validated argument value, in strict form (a lenient list is already split).
///
/// ```
/// use answers_protocol::ArgValue;
///
/// let v = ArgValue::TextList(vec!["LDL".into(), "HDL".into()]);
/// assert_eq!(v.to_json(), serde_json::json!(["LDL", "HDL"]));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// A non-empty string, trimmed.
    Text(String),
    /// A non-empty list of non-empty strings, trimmed, without repeats.
    TextList(Vec<String>),
    /// A local date.
    Date(LocalDate),
    /// A finite number.
    Number(f64),
    /// A value of a closed set, as its wire name.
    Choice(&'static str),
}

impl ArgValue {
    /// The strict JSON form, which the tool's schema accepts.
    #[must_use]
    pub fn to_json(&self) -> Value {
        match self {
            ArgValue::Text(s) => s.as_str().into(),
            ArgValue::TextList(items) => {
                items.iter().map(String::as_str).collect::<Vec<_>>().into()
            }
            ArgValue::Date(d) => d.to_string().into(),
            // A whole number is written as an integer (a position, a count), as a caller
            // would write it; 2^53 bounds the integers an f64 holds exactly.
            ArgValue::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => {
                #[allow(clippy::cast_possible_truncation)]
                let whole = *x as i64;
                whole.into()
            }
            ArgValue::Number(x) => (*x).into(),
            ArgValue::Choice(c) => (*c).into(),
        }
    }
}

/// The arguments of one call, validated against its tool's schema and rules.
///
/// ```
/// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
/// use serde_json::json;
///
/// let args = QUERY_HEALTH_INDICATORS
///     .validate(&json!({"indicators": "LDL, HDL", "view": "stats"}))
///     .unwrap();
/// assert_eq!(args.text_list("indicators"), Some(&["LDL".to_owned(), "HDL".to_owned()][..]));
/// assert_eq!(args.choice("view"), Some("stats"));
/// assert_eq!(args.to_json(), json!({"indicators": ["LDL", "HDL"], "view": "stats"}));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ValidArgs {
    tool: ToolId,
    values: BTreeMap<&'static str, ArgValue>,
}

impl ValidArgs {
    pub(crate) fn new(tool: ToolId, values: BTreeMap<&'static str, ArgValue>) -> Self {
        Self { tool, values }
    }

    /// The tool these arguments are for.
    #[must_use]
    pub fn tool(&self) -> ToolId {
        self.tool
    }

    /// The value of `name`, if given.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&ArgValue> {
        self.values.get(name)
    }

    /// Whether `name` was given.
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// The string `name`, if given.
    #[must_use]
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.values.get(name) {
            Some(ArgValue::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// The list `name`, if given.
    #[must_use]
    pub fn text_list(&self, name: &str) -> Option<&[String]> {
        match self.values.get(name) {
            Some(ArgValue::TextList(items)) => Some(items),
            _ => None,
        }
    }

    /// The date `name`, if given.
    ///
    /// ```
    /// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
    /// use serde_json::json;
    ///
    /// let args = QUERY_HEALTH_INDICATORS.validate(&json!({"start": "2024-03-01"})).unwrap();
    /// assert_eq!(args.date("start").unwrap().to_string(), "2024-03-01");
    /// assert!(args.has("start") && !args.has("end"));
    /// ```
    #[must_use]
    pub fn date(&self, name: &str) -> Option<LocalDate> {
        match self.values.get(name) {
            Some(ArgValue::Date(d)) => Some(*d),
            _ => None,
        }
    }

    /// The number `name`, if given.
    #[must_use]
    pub fn number(&self, name: &str) -> Option<f64> {
        match self.values.get(name) {
            Some(ArgValue::Number(x)) => Some(*x),
            _ => None,
        }
    }

    /// The closed-set value `name`, as its wire name, if given.
    #[must_use]
    pub fn choice(&self, name: &str) -> Option<&'static str> {
        match self.values.get(name) {
            Some(ArgValue::Choice(c)) => Some(c),
            _ => None,
        }
    }

    /// The parameters given, by name, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &ArgValue)> {
        self.values.iter().map(|(k, v)| (*k, v))
    }

    /// The arguments in strict form: what the tool's JSON Schema accepts, and what a next
    /// step built from them carries.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let map: Map<String, Value> = self
            .values
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.to_json()))
            .collect();
        Value::Object(map)
    }
}
