//! The browser's two lists, each the REST rendering of `query_health_indicators` for the
//! [`Authenticated`] subject, with the browser's row budget:
//!
//! - `GET /api/v1/health-indicators?indicators=…&view=…&start=…&end=…`: the Indicators tab,
//!   **readings only**. The design and the original leave the reported entries out of it
//!   (`reported=False`), because the journal is its own tab;
//! - `GET /api/v1/journal?…`: the journal tab, the reported entries only, with the same
//!   arguments.
//!
//! Repeated `keywords`/`indicators` make a list. Both routes run the tool through the registry
//! ([`registry::rest_call`]), like every other surface.

use std::sync::Arc;

use answers_protocol::{Envelope, ErrorKind, Status, render_rest};
use answers_store::EntryKind;
use answers_tools::registry::{self, ToolId};
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::auth::{Authenticated, Refusal};

/// The tool both routes answer with.
const TOOL: ToolId = ToolId::QueryHealthIndicators;

/// `GET /api/v1/health-indicators`: readings only.
pub(crate) async fn health_indicators(
    state: State<Arc<AppState>>,
    subject: Authenticated,
    query: RawQuery,
) -> Response {
    entries(state, subject, query, EntryKind::Measured).await
}

/// `GET /api/v1/journal`: reported entries only.
pub(crate) async fn journal(
    state: State<Arc<AppState>>,
    subject: Authenticated,
    query: RawQuery,
) -> Response {
    entries(state, subject, query, EntryKind::Reported).await
}

async fn entries(
    State(state): State<Arc<AppState>>,
    Authenticated(subject): Authenticated,
    RawQuery(query): RawQuery,
    kind: EntryKind,
) -> Response {
    let args = query_args(query.as_deref().unwrap_or(""));
    let pool = Arc::clone(&state.pool);
    let outcome = tokio::task::spawn_blocking(move || -> Result<Option<Envelope>, Refusal> {
        let store = pool.get().map_err(|e| Refusal::of(&e))?;
        Ok(registry::rest_call(TOOL, kind, &store, &subject, &args))
    })
    .await
    .unwrap_or(Err(Refusal::Unavailable));
    match outcome {
        Ok(Some(envelope)) => {
            let status = http_status(&envelope);
            (status, axum::Json(render_rest(&envelope))).into_response()
        }
        // The registry no longer publishes the tool on REST: the route has nothing to serve.
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(refusal) => refusal.into_response(),
    }
}

/// The HTTP status of an envelope: a refusal is the caller's to fix, a fault is ours.
fn http_status(e: &Envelope) -> StatusCode {
    if e.status() != Status::Error {
        return StatusCode::OK;
    }
    match e.error_kind() {
        Some(ErrorKind::InvalidArguments) => StatusCode::BAD_REQUEST,
        Some(ErrorKind::Unauthorized) => StatusCode::UNAUTHORIZED,
        Some(ErrorKind::NotFound) => StatusCode::NOT_FOUND,
        Some(ErrorKind::StoreUnavailable | ErrorKind::Timeout) => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The query string as tool arguments: `keywords` and `indicators` collect into lists (repeat
/// the key, or give one comma-separated value); every other key is a string. Unknown keys pass
/// through, so the tool refuses them by name.
fn query_args(query: &str) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        let k = k.into_owned();
        let v = v.into_owned();
        if k == "keywords" || k == "indicators" {
            match map
                .entry(k)
                .or_insert_with(|| serde_json::Value::Array(Vec::new()))
            {
                serde_json::Value::Array(list) => list.push(serde_json::Value::String(v)),
                other => *other = serde_json::Value::String(v),
            }
        } else {
            map.insert(k, serde_json::Value::String(v));
        }
    }
    // A single value keeps the lenient comma splitting of a bare string.
    for key in ["keywords", "indicators"] {
        if let Some(serde_json::Value::Array(list)) = map.get(key)
            && list.len() == 1
        {
            let only = list[0].clone();
            map.insert(key.to_owned(), only);
        }
    }
    serde_json::Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_become_tool_arguments() {
        let a = query_args(
            "indicators=Resting%20Heart%20Rate&indicators=Steps&view=stats&start=2026-01-01",
        );
        assert_eq!(
            a,
            serde_json::json!({"indicators": ["Resting Heart Rate", "Steps"], "view": "stats", "start": "2026-01-01"})
        );
        let b = query_args("keywords=LDL%2C%20HDL&kind=medications");
        assert_eq!(
            b,
            serde_json::json!({"keywords": "LDL, HDL", "kind": "medications"})
        );
        assert_eq!(query_args(""), serde_json::json!({}));
    }
}
