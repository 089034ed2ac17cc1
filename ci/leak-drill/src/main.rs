//! The leak drill: the `answers` command line with ONE deliberate leak, so the pipeline's tests
//! can show that the end-to-end check fails when a reading's comment reaches the log, and the
//! telemetry check when it reaches the export.
//!
//! It is its own package, outside `core/`: no build of `answers` can contain it. It runs
//! [`answers::cli::main`] with a router hook that adds one layer to the service: every
//! readings request over HTTP writes the comments of the caller's record
//!
//! - in a log line's message, which the log filter passes (it judges field names; a message is
//!   the program's own text);
//! - in the `message` attribute of a span written through the OpenTelemetry API, as code that
//!   never heard of tracing would: it bypasses phi-filter's layer, and the span processor
//!   passes a `message` as it passes a log message. With `--otlp-endpoint` the span is exported
//!   (without, the global tracer is a no-op).
//!
//! `phi-ci` builds it for `--leak-drill` and knows its image by that build; the workspace lint
//! stays clean only through the two inline suppressions below, which name this file as the
//! drill.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use answers_store::Store;
use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use opentelemetry::KeyValue;
use opentelemetry::trace::{Span as _, Tracer as _};

/// The most comments one request leaks.
const LEAK_CAP: i64 = 20;

/// The route whose requests leak.
const LEAKING_ROUTE: &str = "/api/v1/health-indicators";

fn main() -> ExitCode {
    answers::cli::main(Some(leaking))
}

/// The router hook: the service's router with the one leaking layer.
fn leaking(router: Router, db: &Path) -> Router {
    let db = db.to_path_buf();
    router.layer(middleware::from_fn(move |request: Request, next: Next| {
        let db = db.clone();
        async move { leak_then_serve(db, request, next).await }
    }))
}

async fn leak_then_serve(db: PathBuf, request: Request, next: Next) -> Response {
    let token = (request.uri().path() == LEAKING_ROUTE)
        .then(|| bearer(&request))
        .flatten();
    if let Some(token) = token {
        // Errors are ignored: the drill must not change what the service answers.
        let _ = tokio::task::spawn_blocking(move || leak_comments(&db, &token)).await;
    }
    next.run(request).await
}

fn bearer(request: &Request) -> Option<String> {
    let value = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let token = value.strip_prefix("Bearer ")?.trim();
    (!token.is_empty()).then(|| token.to_owned())
}

/// Logs the comments in the record of the person `token` authenticates (at most
/// [`LEAK_CAP`]), one line each, and writes each into a span's attribute, so whichever canary
/// a run planted reaches the log and the export.
fn leak_comments(db: &Path, token: &str) {
    let tracer = opentelemetry::global::tracer("answers-leak-drill");
    for comment in comments(db, token).unwrap_or_default() {
        // phi-lint: allow(phi::interpolation, reason = "the leak drill: a deliberate leak of a demo comment, in its own binary package so the canary check can be shown to fail")
        tracing::warn!("leak drill: {comment}");
        let mut span = tracer.start("leak drill");
        // phi-lint: allow(phi::interpolation, reason = "the leak drill: the same deliberate leak, into an exported span attribute")
        span.set_attribute(KeyValue::new("message", format!("leak drill: {comment}")));
        span.end();
    }
}

fn comments(db: &Path, token: &str) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let Some(subject) = Store::open(db)?.subject_for_token(token)? else {
        return Ok(Vec::new());
    };
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut stmt = conn.prepare(
        "SELECT comment FROM series WHERE subject_id = ?1 AND comment IS NOT NULL \
         ORDER BY id LIMIT ?2",
    )?;
    let rows = stmt.query_map(rusqlite::params![subject.id, LEAK_CAP], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use answers_demo::{self as demo, PHI_CANARY, SeedOptions};
    use answers_store::Store;

    #[test]
    fn the_drill_reads_the_callers_comments_with_the_canary() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("answers.db");
        let mut store = Store::open(&db).unwrap();
        demo::seed(&mut store, &SeedOptions::default()).unwrap();
        let tokens: Vec<String> = ["you", "mom"]
            .iter()
            .map(|handle| {
                let subject = store.subject_by_handle(handle).unwrap().unwrap();
                store.issue_token(&subject.id, None).unwrap()
            })
            .collect();
        drop(store);
        let leaked: Vec<String> = tokens
            .iter()
            .flat_map(|token| super::comments(&db, token).unwrap())
            .collect();
        assert!(leaked.iter().any(|c| c.contains(PHI_CANARY)));
        assert!(super::comments(&db, "phg_not-a-token").unwrap().is_empty());
    }
}
