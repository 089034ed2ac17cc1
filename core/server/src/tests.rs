//! The service in-process: [`router`] answered with `tower::ServiceExt::oneshot`, as axum's
//! testing example does, on a demo record in a temporary file.

use std::sync::Arc;

use answers_demo::{self as demo, SeedOptions};
use answers_store::Store;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use tower::ServiceExt;

use super::{AppState, router};

/// A seeded record, its state, and a token for `you` and for `mom`.
struct Record {
    _dir: tempfile::TempDir,
    db: std::path::PathBuf,
    state: Arc<AppState>,
    you: String,
    mom: String,
}

fn record(allowed_hosts: &[String]) -> Record {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("answers.db");
    let mut store = Store::open(&db).unwrap();
    demo::seed(&mut store, &SeedOptions::default()).unwrap();
    let token = |handle| {
        let subject = store.subject_by_handle(handle).unwrap().unwrap();
        store.issue_token(&subject.id, None).unwrap()
    };
    let (you, mom) = (token("you"), token("mom"));
    drop(store);
    let state = AppState::open(&db, allowed_hosts).unwrap();
    Record {
        _dir: dir,
        db,
        state,
        you,
        mom,
    }
}

/// One request through a fresh router; the status, the `WWW-Authenticate` header and the body.
async fn send(
    state: &Arc<AppState>,
    request: Request<Body>,
) -> (StatusCode, Option<String>, String) {
    let response = router(Arc::clone(state)).oneshot(request).await.unwrap();
    let status = response.status();
    let challenge = response
        .headers()
        .get(header::WWW_AUTHENTICATE)
        .map(|v| v.to_str().unwrap().to_owned());
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, challenge, String::from_utf8(body.to_vec()).unwrap())
}

fn rest(query: &str, token: Option<&str>) -> Request<Body> {
    let mut request = Request::get(format!("/api/v1/health-indicators{query}"));
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    request.body(Body::empty()).unwrap()
}

/// A JSON-RPC request to `path` on the 2025-11-25 generation (stateless: no handshake needed).
fn mcp_post(host: &str, path: &str, token: Option<&str>, body: String) -> Request<Body> {
    let mut request = Request::post(path)
        .header(header::HOST, host)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25");
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    request.body(Body::from(body)).unwrap()
}

/// `tools/list`.
fn list_tools(host: &str, path: &str, token: Option<&str>) -> Request<Body> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    mcp_post(host, path, token, body.to_owned())
}

/// `tools/call` of `name` with `arguments` on `/mcp`.
fn call_tool(name: &str, arguments: &Value, token: &str) -> Request<Body> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    });
    mcp_post("localhost", "/mcp", Some(token), body.to_string())
}

/// The `name` of each object in the array at `pointer` of a JSON `body`.
fn names_at(body: &str, pointer: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(body).unwrap();
    v.pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no array at {pointer}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The names of the tools of a `tools/list` answer.
fn tool_names(body: &str) -> Vec<String> {
    names_at(body, "/result/tools")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_answers_without_authentication_and_is_not_counted() {
    let r = record(&[]);
    let (status, _, body) = send(
        &r.state,
        Request::get("/healthz").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok"));
    assert_eq!(r.state.request_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_answers_per_subject_and_refuses_without_a_known_token() {
    let r = record(&[]);
    for token in [None, Some("phg_not-issued")] {
        let (status, challenge, body) = send(&r.state, rest("", token)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(challenge.as_deref(), Some("Bearer"));
        assert_eq!(body, r#"{"error":"unauthorized"}"#);
    }
    let (status, _, yours) = send(&r.state, rest("", Some(&r.you))).await;
    assert_eq!(status, StatusCode::OK, "{yours}");
    let (_, _, moms) = send(&r.state, rest("", Some(&r.mom))).await;
    assert_ne!(yours, moms, "two people, two records");
    let (status, _, refused) =
        send(&r.state, rest("?kind=medications&view=day", Some(&r.you))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(refused.contains("kind"), "{refused}");
    assert_eq!(
        r.state.request_count(),
        5,
        "every record request is counted"
    );
}

/// The names of the tables of a REST answer.
fn table_names(body: &str) -> Vec<String> {
    names_at(body, "/data")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_indicators_list_leaves_the_journal_out_and_the_journal_has_its_own_route() {
    let r = record(&[]);
    let journal = |query: &str| {
        Request::get(format!("/api/v1/journal{query}"))
            .header(header::AUTHORIZATION, format!("Bearer {}", r.you))
            .body(Body::empty())
            .unwrap()
    };
    // `you` reported a headache twice and a cough: what a model's catalogue lists first.
    let (status, _, listed) = send(&r.state, rest("", Some(&r.you))).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(table_names(&listed), ["indicators"], "{listed}");
    assert!(!listed.contains("Headache"), "{listed}");
    let (_, _, summary) = send(
        &r.state,
        rest("?keywords=headache&keywords=steps&view=stats", Some(&r.you)),
    )
    .await;
    assert_eq!(table_names(&summary), ["readings"], "{summary}");

    let (status, _, entries) = send(&r.state, journal("")).await;
    assert_eq!(status, StatusCode::OK, "{entries}");
    assert_eq!(table_names(&entries), ["reported"], "{entries}");
    assert!(entries.contains("Headache"), "{entries}");
    let (_, _, counted) = send(&r.state, journal("?keywords=headache&view=stats")).await;
    assert_eq!(table_names(&counted), ["reported"], "{counted}");
    let v: Value = serde_json::from_str(&counted).unwrap();
    assert_eq!(v["data"][0]["rows"][0]["count"], 2, "{counted}");

    let (status, _, _) = send(&r.state, journal("?view=stats")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the same matrix");
    let anonymous = Request::get("/api/v1/journal").body(Body::empty()).unwrap();
    let (status, _, _) = send(&r.state, anonymous).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_takes_a_bearer_token_or_a_url_secret_until_it_is_revoked() {
    let r = record(&[]);
    let secret_path = format!("/mcp/u/{}", r.mom);
    let (status, _, body) = send(&r.state, list_tools("localhost", "/mcp", Some(&r.mom))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(tool_names(&body).len(), 7, "mom has every kind of data");
    let (status, _, body) = send(&r.state, list_tools("localhost", &secret_path, None)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, you) = send(&r.state, list_tools("localhost", "/mcp", Some(&r.you))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        tool_names(&you).len(),
        4,
        "you has no medications and no genotypes"
    );

    for (path, token) in [("/mcp", None), ("/mcp/u/phg_not-issued", None)] {
        let (status, challenge, _) = send(&r.state, list_tools("localhost", path, token)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(challenge.as_deref(), Some("Bearer"));
    }

    assert!(Store::open(&r.db).unwrap().revoke_token(&r.mom).unwrap());
    let (status, _, _) = send(&r.state, list_tools("localhost", "/mcp", Some(&r.mom))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a revoked token");
    let (status, _, _) = send(&r.state, list_tools("localhost", &secret_path, None)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a revoked secret");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_answers_only_the_host_names_it_is_reached_by() {
    let r = record(&["records.example.org".to_owned()]);
    for (host, expected) in [
        ("localhost", StatusCode::OK),
        ("127.0.0.1", StatusCode::OK),
        ("records.example.org", StatusCode::OK),
        ("records.example.test", StatusCode::FORBIDDEN),
    ] {
        let (status, _, _) = send(&r.state, list_tools(host, "/mcp", Some(&r.you))).await;
        assert_eq!(status, expected, "{host}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_calls_only_the_tools_the_record_surface_publishes() {
    let r = record(&[]);
    let args = serde_json::json!({"value": 120, "from": "mmHg", "to": "kPa"});
    let (status, _, body) = send(&r.state, call_tool("convert_unit", &args, &r.you)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["result"]["isError"], false, "{body}");

    // A tool only the vocabulary server publishes is not one of the record server's.
    let args = serde_json::json!({"name": "pulse", "value": 60, "unit": "bpm"});
    let (_, _, body) = send(&r.state, call_tool("standardize_reading", &args, &r.you)).await;
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["error"]["message"], "tool not found", "{body}");
    assert!(answer.get("result").is_none(), "{body}");
}
