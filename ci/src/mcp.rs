//! The runtime drive over MCP: `/mcp` on the same service, through rmcp's client (the official
//! SDK, [`client`]), as an MCP client would use it. For each account: `tools/list` after the
//! `2025-11-25` handshake (the exact list the registry says the account must be shown,
//! [`crate::tools`]: `mom` sees the seven tools, `you` four), every listed tool called after
//! `server/discover` in the `2026-07-28` generation, an unknown parameter (a structured refusal
//! naming it), an unknown tool (a JSON-RPC error), the personal URL secret, and a bad token
//! (401). Every POST the SDK makes, the handshakes included, is a call: counted, and its answer
//! checked for the canaries like the HTTP ones.

mod client;

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::drive::{Outcome, Target};
use crate::progress::Steps;
use crate::tools::Holds;
use client::{Client, Exchange, Generation};

/// The MCP route, and the name of the span the service runs each of its requests in.
pub(crate) const ROUTE: &str = "/mcp";

/// The calls of `tool` the demo record answers: every medication view, and genotypes by gene
/// (`GRCh38`) and by a region in the file's own coordinates (`raw`). None for a tool phi-ci
/// does not know yet: the drive then fails, asking for its calls here.
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
        "normalize_unit" => vec![json!({"unit": "mg/dl"})],
        _ => Vec::new(),
    }
}

/// `tools/call` of `tool` with `args` on a connected client; the error, if any, is in the
/// exchange (a JSON-RPC error, a transport failure).
async fn call_tool(client: &Client, tool: &str, args: &Value) {
    if let Ok(service) = &client.service {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = args {
            params = params.with_arguments(map.clone());
        }
        let _ = service.call_tool(params).await;
    }
}

/// What is wrong with the exchanges of one step: a POST that failed, or a status other than
/// 200 or 202 (or `last_status` for the last one). Returns the last answer's JSON.
fn status_problems(exchanges: &[Exchange], last_status: u16) -> (Vec<String>, Option<&Value>) {
    let mut problems = Vec::new();
    let Some((last, before)) = exchanges.split_last() else {
        return (vec!["the client sent nothing".to_owned()], None);
    };
    for e in before {
        if !matches!(e.status, 200 | 202) {
            problems.push(format!(
                "expected HTTP 200 or 202 before the call, got {}",
                e.status
            ));
        }
    }
    if last.status != last_status {
        problems.push(format!("expected HTTP {last_status}, got {}", last.status));
    }
    (problems, last.json.as_ref())
}

/// What is wrong with a `tools/call` answer: its status, and the `isError` flag it must carry;
/// also returns the result object.
fn result_problems(exchanges: &[Exchange], is_error: bool) -> (Vec<String>, Option<&Value>) {
    let (mut problems, body) = status_problems(exchanges, 200);
    let result = body.and_then(|b| b.get("result"));
    if result
        .and_then(|r| r.get("isError"))
        .and_then(Value::as_bool)
        != Some(is_error)
    {
        problems.push(format!("expected isError {is_error}"));
    }
    (problems, result)
}

/// Records one step: every exchange is a call; `problems` empty is a pass for all of them. An
/// answer carrying a canary never is.
fn record(
    target: &Target,
    out: &mut Outcome,
    label: &str,
    exchanges: &[Exchange],
    mut problems: Vec<String>,
) {
    let n = exchanges.len() as u64;
    out.calls += n;
    // Every exchange is a request of its own, run in the route's span.
    *out.routes.entry(ROUTE).or_default() += n;
    if exchanges.iter().any(|e| {
        target
            .forbidden
            .iter()
            .any(|f| !f.is_empty() && e.text.contains(f.as_str()))
    }) {
        problems.push("the answer carries a canary".to_owned());
    }
    if problems.is_empty() {
        out.passed += n;
    } else {
        out.failures
            .push(format!("{label}: {}", problems.join("; ")));
    }
}

/// The names of the tools in a `tools/list` answer.
fn listed(body: Option<&Value>) -> Vec<String> {
    body.and_then(|b| b.pointer("/result/tools"))
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Connects, lists the tools, and closes; returns the exchanges.
async fn list_tools(target: &Target, path: &str, bearer: Option<&str>) -> Vec<Exchange> {
    let client = client::connect(target.addr, path, bearer, Generation::Handshake).await;
    if let Ok(service) = &client.service {
        let _ = service.list_tools(None).await;
    }
    client.close().await
}

/// A current-thread runtime for the SDK's client.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
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
    runtime()?.block_on(drive_account(target, handle, token, steps, out))
}

async fn drive_account(
    target: &Target,
    handle: &'static str,
    token: &str,
    steps: &Steps,
    out: &mut Outcome,
) -> anyhow::Result<()> {
    steps.step(&format!("runtime: {handle}: MCP tools/list"));
    let exchanges = list_tools(target, ROUTE, Some(token)).await;
    let (mut problems, body) = status_problems(&exchanges, 200);
    let shown = listed(body);
    let expected = target.tools.record_mcp_shown(Holds::demo(handle));
    for tool in expected.iter().filter(|t| calls_of(t).is_empty()) {
        problems.push(format!(
            "no calls for the tool `{tool}`: add them to ci/src/mcp.rs"
        ));
    }
    if shown != expected {
        problems.push(format!("expected the tools {expected:?}, got {shown:?}"));
    }
    record(
        target,
        out,
        &format!("{handle}: MCP tools/list"),
        &exchanges,
        problems,
    );

    let client = client::connect(target.addr, ROUTE, Some(token), Generation::Discovery).await;
    for (tool, args) in expected
        .iter()
        .flat_map(|t| calls_of(t).into_iter().map(move |a| (*t, a)))
    {
        steps.step(&format!("runtime: {handle}: MCP {tool}"));
        call_tool(&client, tool, &args).await;
        let exchanges = client.http.take();
        let (mut problems, result) = result_problems(&exchanges, false);
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
            &exchanges,
            problems,
        );
    }

    steps.step(&format!("runtime: {handle}: MCP refusals"));
    let Some((first, mut args)) = expected
        .iter()
        .find_map(|t| Some((*t, calls_of(t).into_iter().next()?)))
    else {
        anyhow::bail!("`{handle}` is shown no tool phi-ci can call");
    };
    args["bogus_param"] = json!(1);
    call_tool(&client, first, &args).await;
    let exchanges = client.http.take();
    let (mut problems, result) = result_problems(&exchanges, true);
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
        &exchanges,
        problems,
    );

    call_tool(&client, "no_such_tool", &json!({})).await;
    let exchanges = client.close().await;
    let code = exchanges
        .last()
        .and_then(|e| e.json.as_ref())
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
        &exchanges,
        problems,
    );

    // The personal URL secret: the same token in the path, no header.
    let exchanges = list_tools(target, &format!("{ROUTE}/u/{token}"), None).await;
    let (mut problems, body) = status_problems(&exchanges, 200);
    let count = listed(body).len();
    if count != expected.len() {
        problems.push(format!("expected {} tools, got {count}", expected.len()));
    }
    record(
        target,
        out,
        &format!("{handle}: MCP personal URL secret"),
        &exchanges,
        problems,
    );

    let forged = format!("phg_{}", "0".repeat(64));
    let exchanges = list_tools(target, ROUTE, Some(&forged)).await;
    let (problems, _) = status_problems(&exchanges, 401);
    record(
        target,
        out,
        &format!("{handle}: MCP bad token"),
        &exchanges,
        problems,
    );
    Ok(())
}

/// One MCP call while the store is broken: it must answer with an error result whose envelope
/// is a `store_fault` (the fault is permanent, so never `store_unavailable`), never a dead
/// request.
pub(crate) fn fault_probe(target: &Target, out: &mut Outcome) -> anyhow::Result<()> {
    let Some(token) = target.tokens.get("you").map(String::as_str) else {
        anyhow::bail!("no token for `you` in the tokens file");
    };
    let exchanges = runtime()?.block_on(async {
        let client = client::connect(target.addr, ROUTE, Some(token), Generation::Discovery).await;
        call_tool(&client, "query_health_indicators", &json!({})).await;
        client.close().await
    });
    let (mut problems, result) = result_problems(&exchanges, true);
    let kind = result
        .and_then(|r| r.pointer("/structuredContent/error_kind"))
        .and_then(Value::as_str);
    if kind != Some("store_fault") {
        problems.push(format!("expected a store fault, got {kind:?}"));
    }
    record(
        target,
        out,
        "you: MCP on a broken store",
        &exchanges,
        problems,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_of_the_demo_has_calls_and_every_medication_view_is_called() {
        let tools = crate::tools::Tools::sample();
        for tool in tools.record_mcp_shown(Holds::Everything) {
            assert!(!calls_of(tool).is_empty(), "{tool}");
            assert!(calls_of(tool).iter().all(Value::is_object), "{tool}");
        }
        assert_eq!(
            calls_of("query_medications").len(),
            3,
            "every medication view"
        );
        assert!(calls_of("query_everything").is_empty());
    }

    #[test]
    fn a_step_fails_on_a_wrong_status_or_a_canary() {
        let ok = |status| Exchange {
            status,
            text: String::new(),
            json: Some(json!({"result": {"isError": false}})),
        };
        assert!(result_problems(&[ok(200), ok(200)], false).0.is_empty());
        assert!(!result_problems(&[ok(500), ok(200)], false).0.is_empty());
        assert!(!result_problems(&[ok(200)], true).0.is_empty());
        assert!(!status_problems(&[], 200).0.is_empty());
        assert!(status_problems(&[ok(401)], 401).0.is_empty());
    }
}
