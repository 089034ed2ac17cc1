//! The one authentication of the service: [`Authenticated`], an extractor every route that
//! reads a record takes (REST handlers as an argument, `/mcp` through a middleware that hands
//! the subject to the MCP handler).
//!
//! A request is authenticated by a per-subject bearer token (`Authorization: Bearer …`) or, on
//! `/mcp/u/SECRET`, by a personal URL secret. Both are the store's tokens: hashed, revocable,
//! with an optional TTL, never logged.

use std::sync::Arc;

use answers_store::{StoreError, Subject};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::AppState;

/// The path prefix of a personal URL secret.
pub(crate) const URL_SECRET_PREFIX: &str = "/mcp/u/";

/// The subject a request is authenticated as. No tool parameter names a person: every tool
/// reads this subject's record only.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Subject);

impl FromRequestParts<Arc<AppState>> for Authenticated {
    type Rejection = Refusal;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        let token = bearer(&parts.headers)
            .or_else(|| url_secret(parts.uri.path()))
            .ok_or(Refusal::Unauthorized)?
            .to_owned();
        let pool = Arc::clone(&state.pool);
        let found = tokio::task::spawn_blocking(move || pool.get()?.subject_for_token(&token))
            .await
            .map_err(|_| Refusal::Unavailable)?;
        match found {
            Ok(Some(subject)) => Ok(Authenticated(subject)),
            Ok(None) => Err(Refusal::Unauthorized),
            Err(e) => Err(Refusal::of(&e)),
        }
    }
}

/// Why a request got no envelope at all: `401` with `WWW-Authenticate: Bearer`, `503` when
/// the store cannot say now, or `500` when it cannot say at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No token, or one the store does not know (or has revoked, or let expire).
    Unauthorized,
    /// The store could not be read, and may be later (busy, restarting, the pool full).
    Unavailable,
    /// The store failed in a way waiting will not mend (a refused password, a schema this
    /// build does not read): `500 store_fault`, as a tool's envelope says it.
    Fault,
}

impl Refusal {
    /// The refusal a store error makes: [`Refusal::Unavailable`] when it may pass
    /// ([`StoreError::is_transient`]), [`Refusal::Fault`] otherwise.
    #[must_use]
    pub fn of(e: &StoreError) -> Refusal {
        if e.is_transient() {
            Refusal::Unavailable
        } else {
            Refusal::Fault
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, error) = match self {
            Refusal::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            Refusal::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "store_unavailable"),
            Refusal::Fault => (StatusCode::INTERNAL_SERVER_ERROR, "store_fault"),
        };
        let mut r = (status, axum::Json(serde_json::json!({ "error": error }))).into_response();
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
        }
        r
    }
}

/// The bearer token of `headers`, if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?;
    let token = token.trim();
    (!token.is_empty()).then_some(token)
}

/// The personal URL secret of a `/mcp/u/SECRET` path, if it is one.
fn url_secret(path: &str) -> Option<&str> {
    path.strip_prefix(URL_SECRET_PREFIX)
        .filter(|s| !s.is_empty() && !s.contains('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use answers_store::DbError;

    #[test]
    fn a_store_error_refuses_by_whether_it_may_pass() {
        let fault = |kind: &str| {
            StoreError::Db(DbError::Postgres {
                op: "open",
                kind: kind.to_owned(),
            })
        };
        assert_eq!(Refusal::of(&fault("connect_failed")), Refusal::Unavailable);
        assert_eq!(Refusal::of(&fault("invalid_password")), Refusal::Fault);
        let response = Refusal::Fault.into_response();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let response = Refusal::Unavailable.into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    }

    #[test]
    fn bearer_tokens() {
        let mut h = HeaderMap::new();
        assert_eq!(bearer(&h), None);
        h.insert(header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        assert_eq!(bearer(&h), Some("abc"));
        h.insert(header::AUTHORIZATION, "bearer  abc ".parse().unwrap());
        assert_eq!(bearer(&h), Some("abc"));
        h.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer(&h), None);
    }

    #[test]
    fn url_secrets_are_one_segment_under_the_prefix() {
        assert_eq!(url_secret("/mcp/u/s3cret"), Some("s3cret"));
        assert_eq!(url_secret("/mcp/u/"), None);
        assert_eq!(url_secret("/mcp/u/a/b"), None);
        assert_eq!(url_secret("/api/v1/health-indicators"), None);
    }
}
