//! The runtime drive over MCP: `/mcp` on the same service, as a client would use it. For each
//! account: `tools/list` in the `2025-11-25` generation (the exact list: `mom` sees the seven
//! tools, `you` four), every listed tool called in the `2026-07-28` generation, an unknown
//! parameter (a structured refusal naming it), an unknown tool (a JSON-RPC error), and a bad
//! token (401). Every answer is checked for the canaries like the HTTP ones.

use serde_json::{Value, json};

use crate::drive::{Outcome, Target};
use crate::http::{self, Request};
use crate::progress::Steps;

/// The MCP route.
const ROUTE: &str = "/mcp";

/// The seven tools, in the order the server lists them.
const RECORD_TOOLS: [&str; 7] = [
    "query_health_indicators",
    "query_medications",
    "query_genetic_data",
    "query_pharmacogenomics",
    "resolve_indicator",
    "convert_unit",
    "normalize_unit",
];

/// The data tools `you` has no data for in the demo record.
const HIDDEN_FROM_YOU: [&str; 3] = [
    "query_medications",
    "query_genetic_data",
    "query_pharmacogenomics",
];

/// The tools `handle` must be shown.
fn expected_tools(handle: &str) -> Vec<&'static str> {
    RECORD_TOOLS
        .iter()
        .copied()
        .filter(|t| handle != "you" || !HIDDEN_FROM_YOU.contains(t))
        .collect()
}

/// The calls of `tool` the demo record answers: every medication view, and genotypes by gene
/// (`GRCh38`) and by a region in the file's own coordinates (`raw`).
fn calls_of(tool: &str) -> Vec<Value> {
    match tool {
        "query_health_indicators" => vec![json!({"keywords": "heart rate", "view": "stats"})],
        "query_medications" => vec![
            json!({"view": "plan", "start": "2026-03-01", "end": "2026-03-31"}),
            json!({"view": "log"}),
            json!({"view": "history"}),
        ],
        "query_genetic_data" => vec![
            json!({"gene": "CYP2C19", "build": "GRCh38"}),
            json!({"chromosome": "10", "start": 94_000_000, "end": 97_000_000, "build": "raw"}),
        ],
        "query_pharmacogenomics" => vec![json!({"drugs": ["clopidogrel"]})],
        "resolve_indicator" => vec![json!({"name": "Glycated Hemoglobin-HbA1c"})],
        "convert_unit" => {
            vec![json!({"value": 100, "from": "mg/dL", "to": "mmol/L", "indicator": "glucose"})]
        }
        _ => vec![json!({"unit": "mg/dl"})],
    }
}

/// The first call of `tool`: the one the refusal checks start from.
fn arguments(tool: &str) -> Value {
    calls_of(tool).swap_remove(0)
}

/// The protocol generation a request speaks.
#[derive(Clone, Copy)]
enum Generation {
    /// `2025-11-25`: the version in a header; stateless, so no handshake is needed per call.
    Handshake,
    /// `2026-07-28`: the version, the method and the tool's name in headers and `_meta`.
    Discovery,
}

/// One JSON-RPC request to `/mcp`; the HTTP status and the JSON body.
fn rpc(
    target: &Target,
    bearer: Option<&str>,
    path: &str,
    generation: Generation,
    method: &str,
    mut params: Value,
) -> anyhow::Result<(u16, Option<Value>, String)> {
    let version = match generation {
        Generation::Handshake => "2025-11-25",
        Generation::Discovery => "2026-07-28",
    };
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut headers = vec![
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", version),
    ];
    if let Generation::Discovery = generation {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "phi-ci", "version": env!("CARGO_PKG_VERSION")},
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        headers.push(("Mcp-Method", method));
        if let Some(name) = &name {
            headers.push(("Mcp-Name", name));
        }
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let body = serde_json::to_vec(&body)?;
    let response = http::send(
        target.addr,
        &Request {
            method: "POST",
            target: path,
            bearer,
            json_body: Some(&body),
            headers: &headers,
        },
    )?;
    let text = String::from_utf8_lossy(&response.body).into_owned();
    Ok((
        response.status,
        serde_json::from_slice(&response.body).ok(),
        text,
    ))
}

/// `tools/call` of `tool` in the `2026-07-28` generation.
fn call_tool(
    target: &Target,
    bearer: Option<&str>,
    tool: &str,
    args: &Value,
) -> anyhow::Result<(u16, Option<Value>, String)> {
    rpc(
        target,
        bearer,
        ROUTE,
        Generation::Discovery,
        "tools/call",
        json!({"name": tool, "arguments": args}),
    )
}

/// What is wrong with a `tools/call` answer's HTTP status and `isError` flag, given the flag
/// it must carry; also returns the result object.
fn result_problems(
    status: u16,
    body: Option<&Value>,
    is_error: bool,
) -> (Vec<String>, Option<&Value>) {
    let result = body.and_then(|b| b.get("result"));
    let mut problems = Vec::new();
    if status != 200 {
        problems.push(format!("expected HTTP 200, got {status}"));
    }
    if result
        .and_then(|r| r.get("isError"))
        .and_then(Value::as_bool)
        != Some(is_error)
    {
        problems.push(format!("expected isError {is_error}"));
    }
    (problems, result)
}

/// Records one call's result: `problems` empty is a pass. A body carrying a canary never is.
fn record(target: &Target, out: &mut Outcome, label: &str, text: &str, mut problems: Vec<String>) {
    out.calls += 1;
    if target
        .forbidden
        .iter()
        .any(|f| !f.is_empty() && text.contains(f.as_str()))
    {
        problems.push("the answer carries a canary".to_owned());
    }
    if problems.is_empty() {
        out.passed += 1;
    } else {
        out.failures
            .push(format!("{label}: {}", problems.join("; ")));
    }
}

/// Drives `/mcp` for `handle`, adding to `out`.
pub(crate) fn drive(
    target: &Target,
    handle: &'static str,
    steps: &Steps,
    out: &mut Outcome,
) -> anyhow::Result<()> {
    let Some(token) = target.tokens.get(handle).map(String::as_str) else {
        anyhow::bail!("no token for `{handle}` in the tokens file");
    };
    steps.step(&format!("runtime: {handle}: MCP tools/list"));
    let (status, body, text) = rpc(
        target,
        Some(token),
        ROUTE,
        Generation::Handshake,
        "tools/list",
        json!({}),
    )?;
    let listed: Vec<String> = body
        .as_ref()
        .and_then(|b| b.pointer("/result/tools"))
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let expected = expected_tools(handle);
    let mut problems = Vec::new();
    if status != 200 {
        problems.push(format!("expected HTTP 200, got {status}"));
    }
    if listed != expected {
        problems.push(format!("expected the tools {expected:?}, got {listed:?}"));
    }
    record(
        target,
        out,
        &format!("{handle}: MCP tools/list"),
        &text,
        problems,
    );

    for (tool, args) in expected
        .iter()
        .flat_map(|t| calls_of(t).into_iter().map(move |a| (*t, a)))
    {
        steps.step(&format!("runtime: {handle}: MCP {tool}"));
        let (status, body, text) = call_tool(target, Some(token), tool, &args)?;
        let (mut problems, result) = result_problems(status, body.as_ref(), false);
        let envelope = result
            .and_then(|r| r.pointer("/structuredContent/status"))
            .and_then(Value::as_str);
        if !matches!(envelope, Some("ok" | "partial")) {
            problems.push(format!("expected an answer envelope, got {envelope:?}"));
        }
        record(
            target,
            out,
            &format!("{handle}: MCP {tool}"),
            &text,
            problems,
        );
    }

    steps.step(&format!("runtime: {handle}: MCP refusals"));
    let mut args = arguments(expected[0]);
    args["bogus_param"] = json!(1);
    let (status, body, text) = call_tool(target, Some(token), expected[0], &args)?;
    let (mut problems, result) = result_problems(status, body.as_ref(), true);
    let first_text = result
        .and_then(|r| r.pointer("/content/0/text"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if !first_text.starts_with("error (invalid_arguments): bogus_param: unknown parameter") {
        problems.push("expected a refusal naming bogus_param".to_owned());
    }
    record(
        target,
        out,
        &format!("{handle}: MCP unknown parameter"),
        &text,
        problems,
    );

    let (_, body, text) = call_tool(target, Some(token), "no_such_tool", &json!({}))?;
    let code = body
        .as_ref()
        .and_then(|b| b.pointer("/error/code"))
        .and_then(Value::as_i64);
    let problems = if code == Some(-32602) {
        Vec::new()
    } else {
        vec![format!("expected JSON-RPC error -32602, got {code:?}")]
    };
    record(
        target,
        out,
        &format!("{handle}: MCP unknown tool"),
        &text,
        problems,
    );

    // The personal URL secret: the same token in the path, no header.
    let secret_path = format!("{ROUTE}/u/{token}");
    let (status, body, text) = rpc(
        target,
        None,
        &secret_path,
        Generation::Handshake,
        "tools/list",
        json!({}),
    )?;
    let count = body
        .as_ref()
        .and_then(|b| b.pointer("/result/tools"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let problems = if status == 200 && count == expected.len() {
        Vec::new()
    } else {
        vec![format!(
            "expected HTTP 200 and {} tools, got {status} and {count}",
            expected.len()
        )]
    };
    record(
        target,
        out,
        &format!("{handle}: MCP personal URL secret"),
        &text,
        problems,
    );

    let forged = format!("phg_{}", "0".repeat(64));
    let (status, _, text) = rpc(
        target,
        Some(&forged),
        ROUTE,
        Generation::Handshake,
        "tools/list",
        json!({}),
    )?;
    let problems = if status == 401 {
        Vec::new()
    } else {
        vec![format!("expected HTTP 401, got {status}")]
    };
    record(
        target,
        out,
        &format!("{handle}: MCP bad token"),
        &text,
        problems,
    );
    Ok(())
}

/// One MCP call while the store is broken: it must answer with an error result whose envelope
/// is a `store_fault` (or `store_unavailable`), never a dead request.
pub(crate) fn fault_probe(target: &Target, out: &mut Outcome) -> anyhow::Result<()> {
    let Some(token) = target.tokens.get("you").map(String::as_str) else {
        anyhow::bail!("no token for `you` in the tokens file");
    };
    let (status, body, text) =
        call_tool(target, Some(token), "query_health_indicators", &json!({}))?;
    let (mut problems, result) = result_problems(status, body.as_ref(), true);
    let kind = result
        .and_then(|r| r.pointer("/structuredContent/error_kind"))
        .and_then(Value::as_str);
    if !matches!(kind, Some("store_fault" | "store_unavailable")) {
        problems.push(format!("expected a store fault, got {kind:?}"));
    }
    record(target, out, "you: MCP on a broken store", &text, problems);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn you_is_shown_four_tools_and_mom_seven() {
        assert_eq!(expected_tools("mom").len(), 7);
        assert_eq!(
            expected_tools("you"),
            [
                "query_health_indicators",
                "resolve_indicator",
                "convert_unit",
                "normalize_unit"
            ]
        );
        for tool in RECORD_TOOLS {
            assert!(calls_of(tool).iter().all(Value::is_object), "{tool}");
        }
        assert_eq!(
            calls_of("query_medications").len(),
            3,
            "every medication view"
        );
    }
}
