//! Client-chosen JSON-RPC ids never reach the MCP library: a request's `id` is replaced by a
//! server-chosen number before rmcp reads it, and the client's id is put back in the answer.
//!
//! rmcp logs a request's id verbatim at `warn` (`rejected peer request`, `response error`),
//! and the service keeps `rmcp=warn`; an id is a client string (`"id":"MRN-99887766"` passes
//! an id's shape), so the library only ever sees [`SERVER_ID`]. Each request is its own
//! stateless exchange, so one number serves every request.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// The id rmcp sees in every request.
const SERVER_ID: u64 = 1;
/// The largest request body read here (the accept loop bounds it first when serving).
const MAX_BODY_BYTES: usize = 1 << 20;

/// Swaps the request's id for [`SERVER_ID`] and back in the answer; any other body (a
/// notification, not JSON) passes unchanged.
pub(crate) async fn opaque_ids(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        let body = axum::Json(serde_json::json!({ "error": "body_unreadable" }));
        return (axum::http::StatusCode::BAD_REQUEST, body).into_response();
    };
    let swapped = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|mut v| {
            let id = v.as_object_mut()?.get_mut("id")?;
            let client_id = std::mem::replace(id, Value::from(SERVER_ID));
            Some((client_id, v))
        });
    let Some((client_id, value)) = swapped else {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    let request = Request::from_parts(parts, Body::from(value.to_string()));
    let response = next.run(request).await;
    restore(response, client_id).await
}

/// Puts `client_id` back in a JSON answer whose id is [`SERVER_ID`].
async fn restore(response: Response, client_id: Value) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    if let Some(id) = value.as_object_mut().and_then(|o| o.get_mut("id"))
        && id.as_u64() == Some(SERVER_ID)
    {
        *id = client_id;
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(value.to_string()))
}
