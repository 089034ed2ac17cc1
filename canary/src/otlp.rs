//! The OTLP receiver: OTLP/HTTP export requests (`/v1/traces`, `/v1/logs`, `/v1/metrics`), as
//! protobuf or JSON, gzip'd or not, decoded with `opentelemetry-proto`'s messages, and every
//! string they carry scanned with the matcher and decoder of `scan`.
//!
//! [`Receiver`] is the part that needs no network: it takes one request's body and headers,
//! and keeps per signal what a log stream keeps (bytes, requests, markers, hits). [`serve`]
//! runs it behind an HTTP server until it is idle or told to stop, and gives the [`Report`];
//! [`Background`] serves it on a thread of its own on a loopback port, for a pipeline or a test
//! that drives a service in-process.
//!
//! **Invariant:** nothing of a payload leaves this module but counts, indices, attribute keys
//! (unless the hit is in the key itself) and positions; error messages name the signal, the
//! field and the cap, never a value. A JSON error gives its line and column only: serde's own
//! message quotes the offending value.
//!
//! **Invariant:** memory is bounded. A request body is read up to [`BODY_CAP`] bytes, its gzip
//! decompression up to [`INFLATE_CAP`]; past either the request is an error (exit 2), never a
//! crash. At most [`MAX_IN_FLIGHT`] requests are buffered at once (more are answered 503, which
//! exporters retry).

mod background;
mod server;
mod walk;

use std::io::Read;

use flate2::read::MultiGzDecoder;
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;

pub use background::Background;
pub use server::{Options, serve, serve_until};

use crate::marker::MarkerTally;
use crate::matcher::Matcher;
use crate::report::{Hit, Report, SourceReport, StreamReport};
use crate::scan::MAX_HITS_PER_STREAM;

/// The largest request body read, compressed or not: the OpenTelemetry Collector's default
/// (`max_request_body_size`, 20 MiB) rounded down.
pub const BODY_CAP: usize = 16 << 20;

/// The most bytes a gzip'd body may decompress to; more is a decompression bomb.
pub const INFLATE_CAP: usize = 64 << 20;

/// Requests buffered at once; more are answered 503 (retryable).
pub const MAX_IN_FLIGHT: usize = 8;

/// How deep `AnyValue` arrays and key-value lists are followed; deeper is an error (exit 2),
/// never a skip.
pub const MAX_VALUE_DEPTH: usize = 32;

/// Errors kept in the report; more are counted.
const MAX_ERRORS: usize = 20;

/// An OTLP signal, and its stream in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// `/v1/traces`.
    Traces,
    /// `/v1/logs`.
    Logs,
    /// `/v1/metrics`.
    Metrics,
}

impl Signal {
    /// All three, in report order.
    pub const ALL: [Signal; 3] = [Signal::Traces, Signal::Logs, Signal::Metrics];

    /// The stream name in reports: `traces`, `logs`, `metrics`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Signal::Traces => "traces",
            Signal::Logs => "logs",
            Signal::Metrics => "metrics",
        }
    }

    /// The OTLP/HTTP path.
    #[must_use]
    pub fn path(self) -> &'static str {
        match self {
            Signal::Traces => "/v1/traces",
            Signal::Logs => "/v1/logs",
            Signal::Metrics => "/v1/metrics",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How a request's body is encoded; the answer uses the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `application/x-protobuf`.
    Protobuf,
    /// `application/json` (OTLP/JSON).
    Json,
}

impl Encoding {
    /// The encoding named by a `Content-Type` header, parameters ignored.
    ///
    /// ```
    /// use phi_canary::otlp::Encoding;
    ///
    /// assert_eq!(Encoding::from_content_type("application/json; charset=utf-8"), Some(Encoding::Json));
    /// assert_eq!(Encoding::from_content_type("application/x-protobuf"), Some(Encoding::Protobuf));
    /// assert_eq!(Encoding::from_content_type("text/plain"), None);
    /// ```
    #[must_use]
    pub fn from_content_type(value: &str) -> Option<Encoding> {
        let essence = value.split(';').next().unwrap_or("").trim();
        if essence.eq_ignore_ascii_case("application/x-protobuf")
            || essence.eq_ignore_ascii_case("application/protobuf")
        {
            Some(Encoding::Protobuf)
        } else if essence.eq_ignore_ascii_case("application/json") {
            Some(Encoding::Json)
        } else {
            None
        }
    }

    /// The `Content-Type` of an answer.
    #[must_use]
    pub fn content_type(self) -> &'static str {
        match self {
            Encoding::Protobuf => "application/x-protobuf",
            Encoding::Json => "application/json",
        }
    }
}

/// Why a request could not be scanned whole. Its message names the signal and the field, never
/// a value.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// No `Content-Type`, or one that is not OTLP's.
    #[error("the content type is not application/x-protobuf or application/json")]
    ContentType,
    /// A `Content-Encoding` other than gzip or identity.
    #[error("the content encoding is not gzip or identity")]
    ContentEncoding,
    /// The body is larger than [`BODY_CAP`].
    #[error("the body is larger than the cap of {cap} bytes")]
    TooLarge {
        /// The cap.
        cap: usize,
    },
    /// The body ended before its announced length: the client went away.
    #[error("the body was cut off before its end")]
    CutOff,
    /// The gzip'd body decompresses past [`INFLATE_CAP`].
    #[error("the gzip'd body decompresses past the cap of {cap} bytes (a decompression bomb?)")]
    Bomb {
        /// The cap.
        cap: usize,
    },
    /// The body is not valid gzip.
    #[error("the body is not valid gzip")]
    Gzip,
    /// Not a protobuf export request of this signal.
    #[error("the body does not decode as protobuf: {0}")]
    Protobuf(#[from] prost::DecodeError),
    /// Not an OTLP/JSON export request of this signal.
    #[error(
        "the body does not decode as OTLP/JSON ({category} error at line {line}, column {column})"
    )]
    Json {
        /// syntax, data, eof or io.
        category: &'static str,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// An `AnyValue` nested deeper than [`MAX_VALUE_DEPTH`].
    #[error("a value at {field} is nested deeper than {MAX_VALUE_DEPTH}")]
    TooDeep {
        /// Where.
        field: String,
    },
    /// A string that cannot be decoded within the decoder's bounds.
    #[error("a string at {field} cannot be decoded within bounds: {why}")]
    Decode {
        /// Where.
        field: String,
        /// Which cap.
        why: &'static str,
    },
}

impl PayloadError {
    /// The HTTP status that answers it: 413 over a cap, 415 for an unsupported type or
    /// encoding, 400 otherwise. None of them is retried by an exporter.
    #[must_use]
    pub fn status(&self) -> u16 {
        match self {
            PayloadError::TooLarge { .. } | PayloadError::Bomb { .. } => 413,
            PayloadError::ContentType | PayloadError::ContentEncoding => 415,
            _ => 400,
        }
    }

    fn json(e: &serde_json::Error) -> PayloadError {
        use serde_json::error::Category;
        PayloadError::Json {
            category: match e.classify() {
                Category::Io => "io",
                Category::Syntax => "syntax",
                Category::Data => "data",
                Category::Eof => "eof",
            },
            line: e.line(),
            column: e.column(),
        }
    }
}

/// What one signal received.
#[derive(Default)]
struct SignalState {
    requests: u64,
    bytes: u64,
    /// Spans or log records seen, in order of arrival: the markers' positions.
    items: u64,
    markers: MarkerTally,
    hits: Vec<Hit>,
    hits_total: u64,
    /// The span names counted, each with its count (traces only).
    named: Vec<(String, u64)>,
}

impl SignalState {
    /// Counts a span named `name` if its name is one of those counted.
    fn count_name(&mut self, name: &str) {
        if let Some((_, n)) = self.named.iter_mut().find(|(counted, _)| counted == name) {
            *n += 1;
        }
    }
}

/// The scanning side of the receiver: one request at a time, no network.
///
/// ```
/// use phi_canary::otlp::{Receiver, Signal};
/// use phi_canary::{Canary, Matcher, VariantSet};
///
/// let m = Matcher::new(vec![Canary::core()], VariantSet::All, None)?;
/// let mut r = Receiver::new(m);
/// let body = br#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"GET PHI-CANARY-3f9a"}]}]}]}"#;
/// r.receive(Signal::Traces, Some("application/json"), None, body)?;
/// let report = r.report("otlp:test");
/// assert_eq!(report.exit_code(), 1);
/// assert_eq!(report.hits[0].field.as_deref(), Some("resource 0 > scope 0 > span 0 > name"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Receiver {
    matcher: Matcher,
    signals: [SignalState; 3],
    errors: Vec<String>,
    errors_total: u64,
}

impl Receiver {
    /// A receiver that has seen nothing yet.
    #[must_use]
    pub fn new(matcher: Matcher) -> Receiver {
        Receiver {
            matcher,
            signals: Default::default(),
            errors: Vec::new(),
            errors_total: 0,
        }
    }

    /// This receiver, also counting the spans named each of `names` (a pipeline's routes),
    /// reported in the traces stream's [`spans_named`](StreamReport::spans_named). Names that
    /// no span carries are reported with 0; names not asked for are never reported.
    ///
    /// ```
    /// use phi_canary::otlp::{Receiver, Signal};
    /// use phi_canary::{Canary, Matcher, VariantSet};
    ///
    /// let m = Matcher::new(vec![Canary::core()], VariantSet::All, None)?;
    /// let mut r = Receiver::new(m).count_spans(["/mcp".to_owned(), "GET /a".to_owned()]);
    /// let body = br#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"/mcp"},{"name":"other"}]}]}]}"#;
    /// r.receive(Signal::Traces, Some("application/json"), None, body)?;
    /// let report = r.report("otlp:test");
    /// let named = report.sources[0].streams[0].spans_named.clone().expect("traces count names");
    /// assert_eq!(named.into_iter().collect::<Vec<_>>(), [("/mcp".to_owned(), 1), ("GET /a".to_owned(), 0)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn count_spans(mut self, names: impl IntoIterator<Item = String>) -> Receiver {
        let counted = &mut self.signals[Signal::Traces.index()].named;
        for name in names {
            if !counted.iter().any(|(n, _)| *n == name) {
                counted.push((name, 0));
            }
        }
        self
    }

    /// The matcher.
    #[must_use]
    pub fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// Decodes and scans one export request of `signal`, given its `Content-Type` and
    /// `Content-Encoding`. An error is also recorded: the verdict is then unreadable (exit 2).
    pub fn receive(
        &mut self,
        signal: Signal,
        content_type: Option<&str>,
        content_encoding: Option<&str>,
        body: &[u8],
    ) -> Result<Encoding, PayloadError> {
        let result = self.try_receive(signal, content_type, content_encoding, body);
        if let Err(e) = &result {
            self.fail(signal, e);
        }
        result
    }

    /// Records a request of `signal` that could not be read (cut off, over the cap).
    pub fn fail(&mut self, signal: Signal, error: &PayloadError) {
        self.signals[signal.index()].requests += 1;
        self.errors_total += 1;
        if self.errors.len() < MAX_ERRORS {
            let n = self.signals[signal.index()].requests;
            self.errors
                .push(format!("{} request {n}: {error}", signal.name()));
        }
    }

    /// Records requests that were still being read when the receiver stopped.
    pub(crate) fn unfinished(&mut self, count: usize) {
        self.errors_total += 1;
        self.errors.push(format!(
            "{count} request(s) were still being received at shutdown and were not scanned"
        ));
    }

    fn try_receive(
        &mut self,
        signal: Signal,
        content_type: Option<&str>,
        content_encoding: Option<&str>,
        body: &[u8],
    ) -> Result<Encoding, PayloadError> {
        let encoding = content_type
            .and_then(Encoding::from_content_type)
            .ok_or(PayloadError::ContentType)?;
        if body.len() > BODY_CAP {
            return Err(PayloadError::TooLarge { cap: BODY_CAP });
        }
        let inflated;
        let body = match content_encoding.map(str::trim) {
            None | Some("") => body,
            Some(e) if e.eq_ignore_ascii_case("identity") => body,
            Some(e) if e.eq_ignore_ascii_case("gzip") => {
                inflated = gunzip(body, INFLATE_CAP)?;
                &inflated
            }
            Some(_) => return Err(PayloadError::ContentEncoding),
        };
        let state = &mut self.signals[signal.index()];
        let request = state.requests + 1;
        let mut walker = walk::Walker::new(&self.matcher, signal, request, state);
        match (signal, encoding) {
            (Signal::Traces, Encoding::Protobuf) => {
                walker.traces(&ExportTraceServiceRequest::decode(body)?)?;
            }
            (Signal::Traces, Encoding::Json) => walker.traces(&from_json(body)?)?,
            (Signal::Logs, Encoding::Protobuf) => {
                walker.logs(&ExportLogsServiceRequest::decode(body)?)?;
            }
            (Signal::Logs, Encoding::Json) => walker.logs(&from_json(body)?)?,
            (Signal::Metrics, Encoding::Protobuf) => {
                walker.metrics(&ExportMetricsServiceRequest::decode(body)?)?;
            }
            (Signal::Metrics, Encoding::Json) => walker.metrics(&from_json(body)?)?,
        }
        let state = &mut self.signals[signal.index()];
        state.requests = request;
        state.bytes += body.len() as u64;
        Ok(encoding)
    }

    /// Requests received so far, read or not.
    #[must_use]
    pub fn requests(&self) -> u64 {
        self.signals.iter().map(|s| s.requests).sum()
    }

    /// The report: one source, `name`, of kind `otlp`, with a stream per signal whose `lines`
    /// count requests. Traces and logs must carry the markers when any request of theirs
    /// arrived, both of them when none did.
    #[must_use]
    pub fn report(self, name: &str) -> Report {
        let matcher = &self.matcher;
        let none_with_markers = self.signals[Signal::Traces.index()].requests == 0
            && self.signals[Signal::Logs.index()].requests == 0;
        let mut hits = Vec::new();
        let mut hits_total = 0;
        let mut streams = Vec::new();
        for (signal, state) in Signal::ALL.into_iter().zip(self.signals) {
            let expects_markers = matcher.marker().is_some()
                && signal != Signal::Metrics
                && (state.requests > 0 || none_with_markers);
            streams.push(StreamReport {
                name: signal.name(),
                bytes: state.bytes,
                lines: state.requests,
                expects_markers,
                markers: state.markers,
                hits: state.hits_total,
                items: Some(state.items),
                spans_named: (signal == Signal::Traces && !state.named.is_empty())
                    .then(|| state.named.into_iter().collect()),
            });
            hits_total += state.hits_total;
            hits.extend(state.hits.into_iter().map(|mut h| {
                name.clone_into(&mut h.source);
                h
            }));
        }
        let mut errors = self.errors;
        let unlisted = self.errors_total - errors.len() as u64;
        if unlisted > 0 {
            errors.push(format!("{unlisted} more errors"));
        }
        let error = (!errors.is_empty()).then(|| errors.join("; "));
        Report {
            sources: vec![SourceReport {
                name: name.to_owned(),
                kind: "otlp",
                streams,
                warnings: Vec::new(),
                error,
            }],
            hits,
            hits_total,
            ..Report::scanning(matcher)
        }
    }
}

fn from_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, PayloadError> {
    serde_json::from_slice(body).map_err(|e| PayloadError::json(&e))
}

/// Decompresses every gzip member of `body`, at most `cap` bytes.
fn gunzip(body: &[u8], cap: usize) -> Result<Vec<u8>, PayloadError> {
    let mut out = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    MultiGzDecoder::new(body)
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|_| PayloadError::Gzip)?;
    if out.len() > cap {
        return Err(PayloadError::Bomb { cap });
    }
    Ok(out)
}

/// Keeps a hit, counted always and listed up to [`MAX_HITS_PER_STREAM`].
fn keep(state: &mut SignalState, hit: Hit) {
    state.hits_total += 1;
    if state.hits.len() < MAX_HITS_PER_STREAM {
        state.hits.push(hit);
    }
}

#[cfg(test)]
mod tests;
