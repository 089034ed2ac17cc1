//! The exporter's HTTP client: one blocking ureq call behind `opentelemetry_http::HttpClient`.
//!
//! The SDK's batch processors export from a thread of their own, with a blocking executor, so a
//! blocking call is what they expect; it keeps reqwest and hyper's client (a second HTTP stack)
//! out of the build. Plain HTTP only: the export goes to a collector on the host or beside the
//! service, which forwards it on.

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use opentelemetry_http::{HttpClient, HttpError};

/// A ureq agent with a global timeout per call, which reads error statuses as answers (the
/// exporter judges them itself).
#[derive(Debug)]
pub(super) struct Ureq(ureq::Agent);

impl Ureq {
    pub(super) fn new(timeout: Duration) -> Ureq {
        Ureq(
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(timeout))
                .build()
                .into(),
        )
    }
}

#[async_trait]
impl HttpClient for Ureq {
    async fn send_bytes(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let mut answer = self
            .0
            .run(http::Request::from_parts(parts, body.to_vec()))?;
        let status = answer.status();
        let body = answer.body_mut().read_to_vec()?;
        Ok(http::Response::builder()
            .status(status)
            .body(Bytes::from(body))?)
    }
}
