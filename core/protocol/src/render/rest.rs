//! `render_rest`: the JSON a browser reads.

use serde_json::{Map, Value, json};

use super::{call_text, error_line};
use crate::envelope::Envelope;
use crate::envelope::assumption::Assumption;
use crate::envelope::meta::Meta;
use crate::envelope::table::Table;

/// The envelope as JSON for a browser: each table as an array of objects keyed by column, which
/// it can sort and paginate without re-parsing text, plus status, meta, the error, provenance,
/// assumptions (id, parameters and text) and next steps (with the call as text).
///
/// ```
/// use answers_protocol::{Envelope, Meta, Table, Window, WindowSemantics, render_rest};
///
/// let table = Table::new("readings", ["date", "value"])
///     .with_row(["2024-03-01".into(), 72.into()])
///     .unwrap();
/// let env = Envelope::ok(Meta::new(Window::ALL_RECORDED, "UTC", WindowSemantics::TzExact))
///     .with_table(table);
/// let rest = render_rest(&env);
/// assert_eq!(rest["data"][0]["rows"][0]["value"], 72);
/// assert_eq!(rest["meta"]["window"]["text"], "all recorded data");
/// ```
#[must_use]
pub fn render_rest(env: &Envelope) -> Value {
    let provenance: Map<String, Value> = env
        .provenance()
        .iter()
        .map(|(indicator, p)| (indicator.clone(), p.to_string().into()))
        .collect();
    let next_steps: Vec<Value> = env
        .next_steps()
        .iter()
        .map(|step| {
            json!({
                "action": step.action.as_str(),
                "tool": step.tool.as_str(),
                "args": step.args,
                "supply": step.supply,
                "text": call_text(step),
            })
        })
        .collect();
    json!({
        "status": env.status().as_str(),
        "data": env.data().iter().map(table).collect::<Vec<_>>(),
        "meta": meta(env.meta()),
        "error": error(env),
        "provenance": provenance,
        "assumptions": env.assumptions().iter().copied().map(assumption).collect::<Vec<_>>(),
        "next_steps": next_steps,
    })
}

fn table(t: &Table) -> Value {
    let rows: Vec<Value> = t
        .rows()
        .iter()
        .map(|row| {
            let obj: Map<String, Value> = t
                .columns()
                .iter()
                .zip(row)
                .map(|(c, cell)| (c.clone(), cell.to_json()))
                .collect();
            Value::Object(obj)
        })
        .collect();
    json!({
        "name": t.name(),
        "columns": t.columns(),
        "row_count": rows.len(),
        "rows": rows,
    })
}

fn meta(m: &Meta) -> Value {
    json!({
        "window": {
            "start": m.window.start().map(|d| d.to_string()),
            "end": m.window.end().map(|d| d.to_string()),
            "all_recorded": m.window.is_all_recorded(),
            "text": m.window.to_string(),
        },
        "tz": m.tz,
        "window_semantics": m.window_semantics.as_str(),
        "view": m.view.map(|v| v.as_str()),
        "row_count": m.row_count,
        "truncated": m.truncated,
        "catalog_total": m.catalog_total,
    })
}

fn error(env: &Envelope) -> Value {
    let (Some(detail), Some(line)) = (env.error_detail(), error_line(env)) else {
        return Value::Null;
    };
    let mut obj = Map::new();
    obj.insert("class".into(), env.error_class().map(|c| c.as_str()).into());
    obj.insert("kind".into(), env.error_kind().map(|k| k.as_str()).into());
    // The detail's own fields: cause, tool, and the parameter and problem or the type name.
    if let Ok(Value::Object(fields)) = serde_json::to_value(detail) {
        obj.extend(fields);
    }
    obj.insert("reason".into(), detail.reason().into());
    obj.insert("text".into(), line.into());
    Value::Object(obj)
}

fn assumption(a: Assumption) -> Value {
    let mut params = match serde_json::to_value(a) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    params.remove("id");
    json!({
        "id": a.id().as_str(),
        "params": params,
        "text": a.text(),
    })
}
