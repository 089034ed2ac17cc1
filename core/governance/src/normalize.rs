//! Argument normalisation for RetryGovernance: two calls that mean the same are one call.
//!
//! - object keys are sorted, and a `null` value is dropped (the validators read it as absent);
//! - a parameter the tool's schema declares is read as its validator reads it
//!   ([`lenient::read`]): strings trimmed, a list given as a string holding a JSON array or as
//!   a comma-separated string becomes that list, a date is written `YYYY-MM-DD`, a closed-set
//!   value is trimmed. The validators do not fold case, so neither does this: `"Day"` is a
//!   different call from `"day"` (and a refused one, which is recoverable);
//! - a list of strings is a set: trimmed, repeats dropped, sorted, so `["a","b"]` is `["b","a"]`;
//! - elsewhere (a tool whose schema is not declared, an unknown parameter, a value the
//!   validator refuses), a string holding a JSON array is parsed, and strings are trimmed.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::args::{ArgValue, lenient, schema_for};
use crate::tool::ToolId;

/// A call as RetryGovernance remembers it: the tool and its normalised arguments, as canonical
/// JSON text (keys sorted).
///
/// ```
/// use answers_governance::normalize::CallKey;
/// use answers_protocol::ToolId;
/// use serde_json::json;
///
/// let a = CallKey::new(ToolId::QueryHealthIndicators, &json!({"indicators": ["LDL", "HDL"], "view": " day"}));
/// let b = CallKey::new(ToolId::QueryHealthIndicators, &json!({"view": "day", "indicators": "[\"HDL\",\"LDL\"]"}));
/// assert_eq!(a, b);
/// let c = CallKey::new(ToolId::QueryMedications, &json!({"view": "day", "indicators": ["HDL", "LDL"]}));
/// assert_ne!(a, c);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallKey {
    tool: ToolId,
    args: String,
}

impl CallKey {
    /// The key of `tool` called with `args`.
    #[must_use]
    pub fn new(tool: ToolId, args: &Value) -> Self {
        Self {
            tool,
            args: normalise(tool, args).to_string(),
        }
    }

    /// The tool.
    #[must_use]
    pub fn tool(&self) -> ToolId {
        self.tool
    }
}

impl fmt::Display for CallKey {
    /// The tool's name only: the arguments may hold what the person asked about.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tool.as_str())
    }
}

/// `args` in normal form for `tool`.
///
/// ```
/// use answers_governance::normalize::normalise;
/// use answers_protocol::ToolId;
/// use serde_json::json;
///
/// assert_eq!(
///     normalise(ToolId::QueryHealthIndicators, &json!({"keywords": "sleep, heart ", "start": " 2024-03-01", "end": null})),
///     json!({"keywords": ["heart", "sleep"], "start": "2024-03-01"})
/// );
/// assert_eq!(
///     normalise(ToolId::QueryGeneticData, &json!({"rsids": [" rs2", "rs1", "rs2"], "gene": "CYP2C19 "})),
///     json!({"gene": "CYP2C19", "rsids": ["rs1", "rs2"]})
/// );
/// ```
#[must_use]
pub fn normalise(tool: ToolId, args: &Value) -> Value {
    let Value::Object(obj) = args else {
        return generic(args);
    };
    let schema = schema_for(tool);
    let mut out: BTreeMap<&str, Value> = BTreeMap::new();
    for (name, value) in obj {
        if value.is_null() {
            continue;
        }
        let declared = schema.param(name);
        let normal = declared
            .and_then(|p| lenient::read(p.ty, value).ok())
            .map_or_else(|| generic(value), |v| strict(&v));
        out.insert(name, normal);
    }
    Value::Object(out.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A value the validator accepted, with lists as sets.
fn strict(value: &ArgValue) -> Value {
    match value {
        ArgValue::TextList(items) => string_set(items.iter().map(String::as_str)),
        other => other.to_json(),
    }
}

/// A value no schema speaks for.
fn generic(value: &Value) -> Value {
    match value {
        Value::String(s) => {
            let trimmed = s.trim();
            match trimmed
                .starts_with('[')
                .then(|| serde_json::from_str::<Value>(trimmed))
            {
                Some(Ok(parsed @ Value::Array(_))) => generic(&parsed),
                _ => Value::String(trimmed.to_owned()),
            }
        }
        Value::Array(items) => match items.iter().map(Value::as_str).collect::<Option<Vec<_>>>() {
            Some(strings) => string_set(strings.into_iter()),
            None => Value::Array(items.iter().map(generic).collect()),
        },
        Value::Object(obj) => {
            let sorted: BTreeMap<&String, Value> = obj
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, generic(v)))
                .collect();
            Value::Object(
                sorted
                    .into_iter()
                    .map(|(k, v)| (k.clone(), v))
                    .collect::<Map<String, Value>>(),
            )
        }
        other => other.clone(),
    }
}

/// Strings as a set: trimmed, empty ones and repeats dropped, sorted.
fn string_set<'a>(items: impl Iterator<Item = &'a str>) -> Value {
    let mut set: Vec<&str> = items.map(str::trim).filter(|s| !s.is_empty()).collect();
    set.sort_unstable();
    set.dedup();
    Value::Array(set.into_iter().map(Value::from).collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const QHI: ToolId = ToolId::QueryHealthIndicators;

    #[test]
    fn nested_objects_and_mixed_arrays_keep_order_where_it_means_something() {
        let a = normalise(
            ToolId::QueryPharmacogenomics,
            &json!({"x": {"b": 1, "a": [2, 1]}}),
        );
        assert_eq!(a, json!({"x": {"a": [2, 1], "b": 1}}));
    }

    #[test]
    fn a_refused_value_is_kept_as_sent_but_trimmed() {
        assert_eq!(
            normalise(QHI, &json!({"view": " Day "})),
            json!({"view": "Day"})
        );
        assert_ne!(
            CallKey::new(QHI, &json!({"view": "Day"})),
            CallKey::new(QHI, &json!({"view": "day"}))
        );
    }

    #[test]
    fn arguments_that_are_not_an_object_still_have_a_key() {
        assert_eq!(normalise(QHI, &json!(["b", "a"])), json!(["a", "b"]));
        assert_eq!(normalise(QHI, &json!(7)), json!(7));
    }

    #[test]
    fn the_key_displays_only_the_tool() {
        let key = CallKey::new(QHI, &json!({"keywords": ["migraine"]}));
        assert_eq!(key.to_string(), "query_health_indicators");
        assert_eq!(key.tool(), QHI);
    }
}
