//! The runtime drive: every view of `query_health_indicators` and every error path, over HTTP,
//! for each demo account, then every tool over MCP (`crate::mcp`). Each [`Call`] says what it sends
//! and what it must get back; the list is [`http_calls`], so an MCP list (`POST /mcp`) can be added
//! beside it and run by the same loop.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use anyhow::Context;
use serde_json::Value;

use crate::fault::StoreFault;
use crate::progress::Steps;
use crate::tools::Tools;
use phi_testkit::http::{self, Method, Request};

/// The REST route of the readings tool.
pub(crate) const ROUTE: &str = "/api/v1/health-indicators";

/// The span the service runs a call of [`ROUTE`] in: its name is the route's pattern.
pub(crate) const SPAN: &str = "GET /api/v1/health-indicators";

/// The demo accounts.
pub(crate) const HANDLES: [&str; 2] = ["you", "mom"];

/// The views of the readings tool (`answers::View::VARIANTS`).
pub(crate) const VIEWS: [&str; 8] = [
    "raw", "minute", "hour", "day", "week", "month", "stats", "latest",
];

/// How a call authenticates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Auth {
    /// The account's token from the tokens file.
    Token,
    /// A well-formed token the service never issued.
    Forged,
    /// No `Authorization` header.
    Missing,
}

/// What a call must get back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expect {
    /// 200 and a non-error envelope; with a view, `meta.view` is that view and rows came back.
    Answer { view: Option<&'static str> },
    /// An error envelope with this HTTP status and one of these error kinds.
    Refused {
        http_status: &'static [u16],
        kinds: &'static [&'static str],
    },
    /// 401 without an envelope.
    Unauthorized,
}

/// One call: a label for the report, the account, how it authenticates, the query string and
/// what must come back.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) label: String,
    pub(crate) handle: &'static str,
    pub(crate) auth: Auth,
    pub(crate) query: String,
    pub(crate) expect: Expect,
}

const INVALID: Expect = Expect::Refused {
    http_status: &[400],
    kinds: &["invalid_arguments"],
};

/// The forced fault is permanent (a table gone), so it is `store_fault` (unrecoverable), never
/// `store_unavailable`, which would tell a model to retry.
const FAULT: Expect = Expect::Refused {
    http_status: &[500],
    kinds: &["store_fault"],
};

fn call(handle: &'static str, label: &str, query: String, expect: Expect) -> Call {
    Call {
        label: format!("{handle}: {label}"),
        handle,
        auth: Auth::Token,
        query,
        expect,
    }
}

/// Every byte but the unreserved characters of RFC 3986 is percent-encoded.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `s` as a query value.
fn enc(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, QUERY_VALUE).to_string()
}

/// The calls for one account, given indicator names from its catalogue: keywords, every view
/// on those indicators, a window, and every argument error; then the two token errors.
pub(crate) fn http_calls(handle: &'static str, indicators: &[String]) -> Vec<Call> {
    let selector = indicators
        .iter()
        .map(|i| format!("indicators={}", enc(i)))
        .collect::<Vec<_>>()
        .join("&");
    let first = indicators.first().map_or("weight", String::as_str);
    let mut calls = vec![call(
        handle,
        "keywords",
        format!("keywords={}", enc(first)),
        Expect::Answer { view: None },
    )];
    for view in VIEWS {
        calls.push(call(
            handle,
            &format!("view={view}"),
            format!("{selector}&view={view}"),
            Expect::Answer { view: Some(view) },
        ));
    }
    calls.push(call(
        handle,
        "a window",
        format!("{selector}&view=day&start=2026-06-01&end=2026-06-30"),
        Expect::Answer { view: Some("day") },
    ));
    calls.push(call(
        handle,
        "unknown parameter",
        format!("{selector}&kind=medications"),
        INVALID,
    ));
    calls.push(call(
        handle,
        "bad date",
        format!("{selector}&view=day&start=2026-02-30"),
        INVALID,
    ));
    calls.push(call(
        handle,
        "end before start",
        format!("{selector}&view=day&start=2026-06-30&end=2026-06-01"),
        INVALID,
    ));
    calls.push(call(
        handle,
        "a view without a selector",
        "view=day".to_owned(),
        INVALID,
    ));
    for (auth, label) in [(Auth::Forged, "a bad token"), (Auth::Missing, "no token")] {
        let mut c = call(handle, label, "view=stats".to_owned(), Expect::Unauthorized);
        c.auth = auth;
        calls.push(c);
    }
    calls
}

/// What the drive did.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// HTTP calls made.
    pub(crate) calls: u64,
    /// The calls made per route, by the name of the span the service runs them in.
    pub(crate) routes: BTreeMap<&'static str, u64>,
    /// Calls that answered as expected.
    pub(crate) passed: u64,
    /// What went wrong, one line per call (labels and statuses, never a body).
    pub(crate) failures: Vec<String>,
}

/// Where the service is and who may call it.
pub(crate) struct Target {
    pub(crate) addr: SocketAddr,
    /// `handle` → bearer token.
    pub(crate) tokens: BTreeMap<String, String>,
    /// Strings no answer may carry (the canaries): a body that does is a failure.
    pub(crate) forbidden: Vec<String>,
    /// The tools the service offers, from its registry.
    pub(crate) tools: Tools,
}

/// Reads a `handle=token` tokens file.
pub(crate) fn read_tokens(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(h, t)| (h.trim().to_owned(), t.trim().to_owned()))
        .collect()
}

/// Drives every call for every account, then the store fault; returns what it saw.
pub(crate) fn drive(
    target: &Target,
    fault: &mut dyn StoreFault,
    steps: &Steps,
) -> anyhow::Result<Outcome> {
    let mut out = Outcome::default();
    for handle in HANDLES {
        steps.step(&format!("runtime: {handle}: the catalogue"));
        let catalogue = call(
            handle,
            "the catalogue",
            String::new(),
            Expect::Answer { view: None },
        );
        let body = run_call(target, &catalogue, &mut out)?;
        let indicators = body.as_ref().map(indicator_names).unwrap_or_default();
        if indicators.is_empty() {
            out.failures
                .push(format!("{handle}: the catalogue lists no indicator"));
            continue;
        }
        for c in http_calls(handle, &indicators) {
            steps.step(&format!("runtime: {}", c.label));
            run_call(target, &c, &mut out)?;
        }
        crate::mcp::drive(target, handle, steps, &mut out)?;
    }
    steps.step("runtime: the forced store fault");
    let probe = |label: &str, expect: Expect| call("you", label, String::new(), expect);
    fault.inject().context("cannot force the store fault")?;
    let broken = run_call(
        target,
        &probe("the catalogue on a broken store", FAULT),
        &mut out,
    )
    .and_then(|body| crate::mcp::fault_probe(target, &mut out).map(|()| body));
    fault
        .repair()
        .context("cannot repair the store after the fault")?;
    broken?;
    run_call(
        target,
        &probe(
            "the catalogue after the repair",
            Expect::Answer { view: None },
        ),
        &mut out,
    )?;
    Ok(out)
}

/// Makes one call and checks it; returns the JSON body when there is one. An error is a call
/// that could not be made at all.
fn run_call(target: &Target, c: &Call, out: &mut Outcome) -> anyhow::Result<Option<Value>> {
    let token = target.tokens.get(c.handle);
    let forged = format!("ans_{}", "0".repeat(43));
    let bearer = match c.auth {
        Auth::Token => Some(
            token
                .with_context(|| format!("no token for `{}` in the tokens file", c.handle))?
                .as_str(),
        ),
        Auth::Forged => Some(forged.as_str()),
        Auth::Missing => None,
    };
    let target_path = if c.query.is_empty() {
        ROUTE.to_owned()
    } else {
        format!("{ROUTE}?{}", c.query)
    };
    let response = http::send(
        target.addr,
        &Request {
            method: Method::Get,
            target: &target_path,
            bearer,
            json_body: None,
            headers: &[],
        },
    )
    .with_context(|| format!("call `{}`", c.label))?;
    out.calls += 1;
    *out.routes.entry(SPAN).or_default() += 1;
    let body: Option<Value> = serde_json::from_slice(&response.body).ok();
    let mut problems = Vec::new();
    let text = String::from_utf8_lossy(&response.body);
    if target
        .forbidden
        .iter()
        .any(|f| !f.is_empty() && text.contains(f.as_str()))
    {
        problems.push("the answer carries a canary".to_owned());
    }
    problems.extend(check(&c.expect, response.status, body.as_ref()));
    if problems.is_empty() {
        out.passed += 1;
    } else {
        out.failures.push(format!(
            "{} (HTTP {}): {}",
            c.label,
            response.status,
            problems.join("; ")
        ));
    }
    Ok(body)
}

/// What is wrong with an answer, if anything.
fn check(expect: &Expect, status: u16, body: Option<&Value>) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(body) = body else {
        return vec!["the body is not JSON".to_owned()];
    };
    let envelope_status = body.get("status").and_then(Value::as_str);
    let kind = body
        .pointer("/error/kind")
        .and_then(Value::as_str)
        .or_else(|| body.get("error").and_then(Value::as_str));
    match expect {
        Expect::Answer { view } => {
            if status != 200 {
                problems.push("expected HTTP 200".to_owned());
            }
            if envelope_status.is_none() || envelope_status == Some("error") {
                problems.push(format!(
                    "expected an answer, got status {envelope_status:?}"
                ));
            }
            if let Some(view) = view {
                let got = body.pointer("/meta/view").and_then(Value::as_str);
                if got != Some(view) {
                    problems.push(format!("expected view {view}, got {got:?}"));
                }
                let rows = body.pointer("/meta/row_count").and_then(Value::as_u64);
                if rows.unwrap_or(0) == 0 {
                    problems.push("no rows".to_owned());
                }
            }
        }
        Expect::Refused { http_status, kinds } => {
            if !http_status.contains(&status) {
                problems.push(format!("expected HTTP {http_status:?}"));
            }
            if envelope_status != Some("error") {
                problems.push("expected an error envelope".to_owned());
            }
            if !kind.is_some_and(|k| kinds.contains(&k)) {
                problems.push(format!("expected error kind {kinds:?}, got {kind:?}"));
            }
        }
        Expect::Unauthorized => {
            if status != 401 {
                problems.push("expected HTTP 401".to_owned());
            }
            if kind != Some("unauthorized") {
                problems.push(format!("expected error unauthorized, got {kind:?}"));
            }
        }
    }
    problems
}

/// Up to two indicator names from a catalogue answer's `indicators` table.
fn indicator_names(body: &Value) -> Vec<String> {
    let Some(tables) = body.get("data").and_then(Value::as_array) else {
        return Vec::new();
    };
    tables
        .iter()
        .filter(|t| t.get("name").and_then(Value::as_str) == Some("indicators"))
        .filter_map(|t| t.get("rows").and_then(Value::as_array))
        .flatten()
        .filter_map(|r| r.get("indicator").and_then(Value::as_str))
        .take(2)
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_view_and_every_error_path_is_called() {
        let calls = http_calls("you", &["Body weight".into(), "Steps".into()]);
        for view in VIEWS {
            assert!(
                calls
                    .iter()
                    .any(|c| c.expect == Expect::Answer { view: Some(view) }
                        && c.query.ends_with(&format!("view={view}"))),
                "{view}"
            );
        }
        assert!(
            calls[1]
                .query
                .starts_with("indicators=Body%20weight&indicators=Steps&")
        );
        for label in [
            "unknown parameter",
            "bad date",
            "a view without a selector",
            "a bad token",
            "no token",
        ] {
            assert!(
                calls.iter().any(|c| c.label == format!("you: {label}")),
                "{label}"
            );
        }
        assert_eq!(calls.iter().filter(|c| c.auth != Auth::Token).count(), 2);
    }

    #[test]
    fn checks_fail_on_the_wrong_answer() {
        let ok = json!({"status": "ok", "meta": {"view": "day", "row_count": 3}, "error": null});
        assert!(check(&Expect::Answer { view: Some("day") }, 200, Some(&ok)).is_empty());
        assert!(!check(&Expect::Answer { view: Some("week") }, 200, Some(&ok)).is_empty());
        assert!(!check(&Expect::Answer { view: Some("day") }, 500, Some(&ok)).is_empty());
        assert!(!check(&INVALID, 200, Some(&ok)).is_empty());
        let refused = json!({"status": "error", "error": {"kind": "invalid_arguments"}});
        assert!(check(&INVALID, 400, Some(&refused)).is_empty());
        assert!(!check(&FAULT, 400, Some(&refused)).is_empty());
        let fault = json!({"status": "error", "error": {"kind": "store_fault"}});
        assert!(check(&FAULT, 500, Some(&fault)).is_empty());
        let retry = json!({"status": "error", "error": {"kind": "store_unavailable"}});
        assert!(
            !check(&FAULT, 503, Some(&retry)).is_empty(),
            "a permanent fault is not retryable"
        );
        let unauth = json!({"error": "unauthorized"});
        assert!(check(&Expect::Unauthorized, 401, Some(&unauth)).is_empty());
        assert!(!check(&Expect::Unauthorized, 200, Some(&unauth)).is_empty());
        assert!(!check(&Expect::Answer { view: None }, 200, None).is_empty());
    }

    #[test]
    fn indicator_names_come_from_the_indicators_table() {
        let body = json!({"data": [
            {"name": "reported", "rows": [{"entry": "Vertigo"}]},
            {"name": "indicators", "rows": [{"indicator": "A"}, {"indicator": "B"}, {"indicator": "C"}]}
        ]});
        assert_eq!(indicator_names(&body), ["A", "B"]);
        assert!(indicator_names(&json!({})).is_empty());
    }

    #[test]
    fn tokens_file_lines() {
        let t = read_tokens("you=ans_1\nmom=ans_2\n\n");
        assert_eq!(t.get("mom").map(String::as_str), Some("ans_2"));
        assert_eq!(t.len(), 2);
    }
}
