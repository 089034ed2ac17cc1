//! Reading one argument value as its parameter's type, with the original's leniency for lists.
//!
//! Models compose arguments by hand, so a list parameter also accepts:
//! - a string holding a JSON array (`'["Resting Heart Rate"]'`), read as that array;
//! - a bare string (`"LDL, HDL"`), split on commas.
//!
//! An element of a real array is never split: `["1,25-Dihydroxyvitamin D"]` is one name.

use serde_json::Value;

use super::{ArgValue, ParamType};
use crate::date::LocalDate;
use crate::envelope::error::ArgProblem;

/// `value` read as `ty`, or the problem with it. `null` is handled by the caller (as absent).
///
/// ```
/// use answers_protocol::args::lenient::read;
/// use answers_protocol::{ArgValue, ParamType};
/// use serde_json::json;
///
/// assert_eq!(
///     read(ParamType::TextList, &json!("LDL, HDL")),
///     Ok(ArgValue::TextList(vec!["LDL".into(), "HDL".into()]))
/// );
/// assert_eq!(
///     read(ParamType::TextList, &json!(["1,25-Dihydroxyvitamin D"])),
///     Ok(ArgValue::TextList(vec!["1,25-Dihydroxyvitamin D".into()]))
/// );
/// ```
pub fn read(ty: ParamType, value: &Value) -> Result<ArgValue, ArgProblem> {
    read_indexed(ty, value).map_err(|(_, problem)| problem)
}

/// [`read`], and for a batch the index of the item refused (`None`: the batch as a whole).
///
/// ```
/// use answers_protocol::args::lenient::read_indexed;
/// use answers_protocol::{ArgProblem, ArgValue, ParamType};
/// use serde_json::json;
///
/// assert_eq!(
///     read_indexed(ParamType::TextBatch, &json!(["mg/dl", "mg/dl"])),
///     Ok(ArgValue::TextList(vec!["mg/dl".into(), "mg/dl".into()])),
///     "a batch keeps repeats: one row per item"
/// );
/// assert_eq!(
///     read_indexed(ParamType::TextBatch, &json!(["mg/dl", " ", 7])),
///     Err((Some(1), ArgProblem::Empty))
/// );
/// assert_eq!(read_indexed(ParamType::TextBatch, &json!([])), Err((None, ArgProblem::Empty)));
/// ```
pub fn read_indexed(ty: ParamType, value: &Value) -> Result<ArgValue, (Option<usize>, ArgProblem)> {
    let whole = |problem| (None, problem);
    match ty {
        ParamType::TextBatch => batch(value).map(ArgValue::TextList),
        _ => read_one(ty, value).map_err(whole),
    }
}

fn read_one(ty: ParamType, value: &Value) -> Result<ArgValue, ArgProblem> {
    match ty {
        ParamType::TextBatch => batch(value).map(ArgValue::TextList).map_err(|(_, p)| p),
        ParamType::Text => match value {
            Value::String(s) if s.trim().is_empty() => Err(ArgProblem::Empty),
            Value::String(s) => {
                bounded(s.trim(), super::TEXT_MAX).map(|s| ArgValue::Text(s.to_owned()))
            }
            _ => Err(ArgProblem::NotText),
        },
        ParamType::TextList => text_list(value).map(ArgValue::TextList),
        ParamType::Date => match value {
            Value::String(s) => bounded(s.trim(), super::DATE_MAX)?
                .parse::<LocalDate>()
                .map(ArgValue::Date)
                .map_err(|_| ArgProblem::NotDate),
            _ => Err(ArgProblem::NotDate),
        },
        ParamType::Number => value
            .as_f64()
            .filter(|x| x.is_finite())
            .map(ArgValue::Number)
            .ok_or(ArgProblem::NotNumber),
        ParamType::OneOf(domain) => value
            .as_str()
            .and_then(|s| domain.values().iter().find(|v| **v == s.trim()))
            .map(|v| ArgValue::Choice(v))
            .ok_or(ArgProblem::NotOneOf(domain)),
    }
}

/// A list of names: a real array, a string holding a JSON array, or a bare string split on
/// commas. Items are trimmed; empty items and repeats are dropped; an empty result, or one of
/// more than [`LIST_MAX`](super::LIST_MAX) items, is refused.
fn text_list(value: &Value) -> Result<Vec<String>, ArgProblem> {
    let items: Vec<String> = match value {
        Value::Array(items) => strings(items)?,
        Value::String(s) => {
            let trimmed = s.trim();
            match json_array(trimmed) {
                Some(parsed) => parsed?,
                None => trimmed.split(',').map(str::to_owned).collect(),
            }
        }
        _ => return Err(ArgProblem::NotTextList),
    };
    if items.len() > super::LIST_MAX {
        return Err(ArgProblem::TooManyItems);
    }
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let item = bounded(item.trim(), super::TEXT_MAX)?;
        if !item.is_empty() && !out.iter().any(|o| o == item) {
            out.push(item.to_owned());
        }
    }
    if out.is_empty() {
        Err(ArgProblem::Empty)
    } else {
        Ok(out)
    }
}

/// A batch: a real array, a string holding a JSON array, or one bare string; each item a
/// string with a non-space character, at most [`TEXT_MAX`](super::TEXT_MAX) characters. Items
/// are trimmed and kept in order, repeats included.
fn batch(value: &Value) -> Result<Vec<String>, (Option<usize>, ArgProblem)> {
    let parsed: Vec<Value>;
    let items: &[Value] = match value {
        Value::Array(items) => items,
        Value::String(s) => match json_value_array(s.trim()) {
            Some(array) => {
                parsed = array;
                &parsed
            }
            None => std::slice::from_ref(value),
        },
        _ => return Err((None, ArgProblem::NotTextList)),
    };
    if items.is_empty() {
        return Err((None, ArgProblem::Empty));
    }
    if items.len() > super::BATCH_MAX {
        return Err((None, ArgProblem::TooManyInBatch));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) if s.trim().is_empty() => Err((Some(i), ArgProblem::Empty)),
            Value::String(s) => bounded(s.trim(), super::TEXT_MAX)
                .map(str::to_owned)
                .map_err(|p| (Some(i), p)),
            _ => Err((Some(i), ArgProblem::NotText)),
        })
        .collect()
}

/// A string that holds a JSON array, as its values; `None` if it does not.
fn json_value_array(text: &str) -> Option<Vec<Value>> {
    if !text.starts_with('[') {
        return None;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => Some(items),
        _ => None,
    }
}

/// `text` if it is at most `max` characters, else `TooLong`. Counts characters as JSON Schema's
/// `maxLength` does, and stops counting at the bound.
fn bounded(text: &str, max: usize) -> Result<&str, ArgProblem> {
    if text.len() <= max || text.chars().nth(max).is_none() {
        Ok(text)
    } else {
        Err(ArgProblem::TooLong)
    }
}

/// Every element as a string, or `NotTextList` if one is not.
fn strings(items: &[Value]) -> Result<Vec<String>, ArgProblem> {
    items
        .iter()
        .map(|v| v.as_str().map(str::to_owned).ok_or(ArgProblem::NotTextList))
        .collect()
}

/// A string that holds a JSON array: `Some` with its strings (or the problem, if it is JSON
/// but not an array of strings); `None` if it is not JSON at all, so it is a bare string.
fn json_array(text: &str) -> Option<Result<Vec<String>, ArgProblem>> {
    if !text.starts_with('[') {
        return None;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => Some(strings(&items)),
        Ok(_) => Some(Err(ArgProblem::NotTextList)),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn list(v: &Value) -> Result<Vec<String>, ArgProblem> {
        text_list(v)
    }

    #[test]
    fn a_json_array_in_a_string_is_that_array() {
        assert_eq!(
            list(&json!(r#"["Resting Heart Rate"]"#)),
            Ok(vec!["Resting Heart Rate".into()])
        );
        assert_eq!(
            list(&json!(r#" ["1,25-Dihydroxyvitamin D", "LDL"] "#)),
            Ok(vec!["1,25-Dihydroxyvitamin D".into(), "LDL".into()])
        );
    }

    #[test]
    fn a_string_longer_than_the_bound_is_refused() {
        let max = crate::args::TEXT_MAX;
        let at = "é".repeat(max);
        assert_eq!(
            list(&json!([at])),
            Ok(vec![at.clone()]),
            "characters, not bytes"
        );
        assert_eq!(
            read(ParamType::Text, &json!(at)),
            Ok(ArgValue::Text(at.clone()))
        );
        let over = "x".repeat(50_000);
        assert_eq!(list(&json!([over])), Err(ArgProblem::TooLong));
        assert_eq!(list(&json!(over)), Err(ArgProblem::TooLong), "bare string");
        assert_eq!(
            read(ParamType::Text, &json!(over)),
            Err(ArgProblem::TooLong)
        );
        assert_eq!(
            read(ParamType::Date, &json!(over)),
            Err(ArgProblem::TooLong)
        );
        // Padding is trimmed before the bound is applied.
        let padded = format!("{}LDL{}", " ".repeat(max), " ".repeat(max));
        assert_eq!(list(&json!([padded])), Ok(vec!["LDL".into()]));
    }

    #[test]
    fn a_bare_string_splits_on_commas() {
        assert_eq!(
            list(&json!("LDL, HDL,,")),
            Ok(vec!["LDL".into(), "HDL".into()])
        );
        assert_eq!(list(&json!("[Heart rate")), Ok(vec!["[Heart rate".into()]));
    }

    #[test]
    fn refuses_what_is_not_a_list_of_names() {
        assert_eq!(list(&json!(r#"["a", 1]"#)), Err(ArgProblem::NotTextList));
        assert_eq!(list(&json!(["a", null])), Err(ArgProblem::NotTextList));
        assert_eq!(list(&json!(7)), Err(ArgProblem::NotTextList));
        assert_eq!(list(&json!([" ", ""])), Err(ArgProblem::Empty));
        assert_eq!(list(&json!(" , ")), Err(ArgProblem::Empty));
    }

    #[test]
    fn drops_repeats_keeping_the_first() {
        assert_eq!(
            list(&json!(["HDL", "LDL", "HDL "])),
            Ok(vec!["HDL".into(), "LDL".into()])
        );
    }
}
