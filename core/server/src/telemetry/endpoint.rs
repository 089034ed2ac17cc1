//! `--otlp-endpoint URL`: the collector's base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` means it
//! (each signal's path is appended).

use std::fmt;
use std::str::FromStr;

/// An OTLP/HTTP base URL: `http://HOST:PORT`, with an optional path prefix; `/v1/traces` and
/// `/v1/logs` are appended.
///
/// ```
/// use answers_server::telemetry::Endpoint;
///
/// let e: Endpoint = "http://127.0.0.1:4318/".parse()?;
/// assert_eq!(e.signal("/v1/traces"), "http://127.0.0.1:4318/v1/traces");
/// assert!("https://collector.example.org".parse::<Endpoint>().is_err());
/// assert!("127.0.0.1:4318".parse::<Endpoint>().is_err());
/// # Ok::<(), answers_server::telemetry::EndpointError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint(String);

/// Why a URL is not an endpoint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    /// `https://`: this build exports over plain HTTP only.
    #[error(
        "https is not supported: export over http to a collector on the host or beside the service"
    )]
    Https,
    /// Not `http://` at all.
    #[error("the endpoint must be an http:// URL, such as http://127.0.0.1:4318")]
    Scheme,
    /// No host, or not a URL.
    #[error("the endpoint is not a valid URL with a host")]
    Invalid,
    /// Credentials, a query or a fragment.
    #[error("the endpoint must not carry credentials, a query or a fragment")]
    Extra,
}

impl Endpoint {
    /// The URL of a signal's path (`/v1/traces`, `/v1/logs`).
    #[must_use]
    pub fn signal(&self, path: &str) -> String {
        format!("{}{path}", self.0)
    }
}

impl FromStr for Endpoint {
    type Err = EndpointError;

    fn from_str(text: &str) -> Result<Endpoint, EndpointError> {
        let text = text.trim();
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("https://") {
            return Err(EndpointError::Https);
        }
        if !lower.starts_with("http://") {
            return Err(EndpointError::Scheme);
        }
        if text.contains(['?', '#']) {
            return Err(EndpointError::Extra);
        }
        let uri: http::Uri = text.parse().map_err(|_| EndpointError::Invalid)?;
        let authority = uri.authority().ok_or(EndpointError::Invalid)?;
        if authority.as_str().contains('@') {
            return Err(EndpointError::Extra);
        }
        if authority.host().is_empty() {
            return Err(EndpointError::Invalid);
        }
        Ok(Endpoint(text.trim_end_matches('/').to_owned()))
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::{Endpoint, EndpointError};

    #[test]
    fn a_base_url_gets_each_signal_path_and_anything_else_is_refused_by_kind() {
        let e: Endpoint = "http://collector:4318/otlp/".parse().unwrap();
        assert_eq!(e.signal("/v1/logs"), "http://collector:4318/otlp/v1/logs");
        for (text, error) in [
            ("https://collector:4318", EndpointError::Https),
            ("grpc://collector:4317", EndpointError::Scheme),
            ("collector:4318", EndpointError::Scheme),
            ("http://", EndpointError::Invalid),
            ("http://user:pw@collector:4318", EndpointError::Extra),
            ("http://collector:4318/?k=v", EndpointError::Extra),
        ] {
            assert_eq!(text.parse::<Endpoint>(), Err(error), "{text}");
        }
    }
}
