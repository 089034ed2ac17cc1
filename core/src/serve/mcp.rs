//! `/mcp`: the record server ([`RecordMcp`]) over streamable HTTP, authenticated per person by
//! a bearer token (`Authorization: Bearer …`) or a personal URL secret (`/mcp/u/SECRET`, for
//! clients that can only be given a URL). Both are the store's tokens: hashed, revocable, with
//! an optional TTL, never logged; a request's log line names the route pattern, never its
//! path, since the path can hold the secret.
//!
//! Requests whose `Host` is not a loopback name or one the deployment allows
//! (`answers serve --allowed-host NAME`) are refused (403), against DNS rebinding.
//!
//! The transport runs stateless with JSON responses: every request is authenticated on its
//! own, so no session outlives the token that opened it. Both protocol generations are served:
//! the `2026-07-28` discovery flow and the `2025-11-25` `initialize` handshake.

use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::Instant;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::{App, Refusal, bearer};
use crate::mcp::{Authenticated, RecordMcp};

/// The `Host` names `/mcp` always accepts; a deployment adds its own (`--allowed-host`).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The path prefix of a personal URL secret.
const URL_SECRET_PREFIX: &str = "/mcp/u/";

/// The `/mcp` routes and the handle that ends their open streams at shutdown.
pub(super) fn routes(app: Arc<App>, allowed_hosts: &[String]) -> (Router, impl FnOnce() + use<>) {
    let hosts = LOOPBACK_HOSTS
        .iter()
        .map(|h| (*h).to_owned())
        .chain(allowed_hosts.iter().cloned());
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let cancel = config.cancellation_token.clone();
    let handler_store = Arc::clone(&app.store);
    let service = StreamableHttpService::new(
        move || Ok(RecordMcp::new(Arc::clone(&handler_store))),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = Router::new()
        .route_service("/mcp", service.clone())
        .route_service("/mcp/u/{secret}", service)
        .layer(middleware::from_fn_with_state(app, authenticate));
    (router, move || cancel.cancel())
}

/// Resolves the request's token (the bearer header, else the URL secret) to its subject and
/// hands it to the handler; refuses with 401 otherwise. Logs the route, status and duration.
async fn authenticate(State(app): State<Arc<App>>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    app.request_count.fetch_add(1, Ordering::Relaxed);
    let store = Arc::clone(&app.store);
    let token = bearer(request.headers())
        .or_else(|| {
            request
                .uri()
                .path()
                .strip_prefix(URL_SECRET_PREFIX)
                .filter(|s| !s.is_empty() && !s.contains('/'))
        })
        .map(ToOwned::to_owned);
    let subject = match token {
        None => Err(Refusal::Unauthorized),
        Some(token) => tokio::task::spawn_blocking(move || {
            let store = store.lock().unwrap_or_else(PoisonError::into_inner);
            store.subject_for_token(&token)
        })
        .await
        .map_err(|_| Refusal::Unavailable)
        .and_then(|found| match found {
            Ok(Some(subject)) => Ok(subject),
            Ok(None) => Err(Refusal::Unauthorized),
            Err(_) => Err(Refusal::Unavailable),
        }),
    };
    let response = match subject {
        Ok(subject) => {
            request.extensions_mut().insert(Authenticated(subject));
            next.run(request).await
        }
        Err(refusal) => refusal.into_response(),
    };
    let elapsed_ms = started.elapsed().as_millis();
    let http_status = response.status().as_u16();
    tracing::info!(http_status, elapsed_ms, "/mcp");
    response
}
