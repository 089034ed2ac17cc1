//! `/mcp`: the record server ([`RecordMcp`]) over streamable HTTP, authenticated per person by
//! a bearer token (`Authorization: Bearer …`) or a personal URL secret (`/mcp/u/SECRET`, for
//! clients that can only be given a URL). Both are the store's tokens: hashed, revocable, with
//! an optional TTL, never logged; a request's log line names the route pattern, never its
//! path, since the path can hold the secret.
//!
//! Requests whose `Host` is not a loopback name or one the deployment allows
//! (`answers serve --allowed-host NAME`) are refused (403), against DNS rebinding.
//!
//! The JSON-RPC ids clients choose never reach the MCP library, which logs them
//! ([`super::ids`]).
//!
//! The transport runs stateless with JSON responses: every request is authenticated on its
//! own, so no session outlives the token that opened it. Both protocol generations are served:
//! the `2026-07-28` discovery flow and the `2025-11-25` `initialize` handshake.

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::RecordMcp;
use crate::AppState;
use crate::auth::Authenticated;

/// The `Host` names `/mcp` always accepts; a deployment adds its own (`--allowed-host`).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The transport's configuration for a deployment reached by `allowed_hosts`; its cancellation
/// token ends the open streams at shutdown ([`AppState::end_streams`]).
pub(crate) fn config(allowed_hosts: &[String]) -> StreamableHttpServerConfig {
    let hosts = LOOPBACK_HOSTS
        .iter()
        .map(|h| (*h).to_owned())
        .chain(allowed_hosts.iter().cloned());
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
}

/// The `/mcp` routes, each request authenticated by [`Authenticated`] before it reaches the
/// handler.
pub(crate) fn routes(state: &Arc<AppState>) -> Router<Arc<AppState>> {
    let pool = Arc::clone(&state.pool);
    let service = StreamableHttpService::new(
        move || Ok(RecordMcp::new(Arc::clone(&pool))),
        Arc::new(LocalSessionManager::default()),
        state.mcp_config.clone(),
    );
    Router::new()
        .route_service("/mcp", service.clone())
        .route_service("/mcp/u/{secret}", service)
        .route_layer(middleware::from_fn(super::ids::opaque_ids))
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(state),
            authenticate,
        ))
}

/// Hands the [`Authenticated`] subject to the handler through the request's extensions; the
/// extractor has already refused (401 or 503) a request it cannot authenticate.
async fn authenticate(subject: Authenticated, mut request: Request, next: Next) -> Response {
    request.extensions_mut().insert(subject);
    next.run(request).await
}
