//! `answers serve --otlp-endpoint URL`: the service's traces and logs over OTLP/HTTP, through
//! the same policy as its log.
//!
//! [`install`] sets the global tracing subscriber. Without an endpoint it is phi-filter's own
//! [`install_to`](phi_filter::install_to). With one, phi-filter's layer wraps three sinks, so
//! each sees only judged values:
//!
//! - the JSON log on standard output, as without telemetry;
//! - tracing spans as OpenTelemetry spans (`tracing-opentelemetry`);
//! - tracing events as OpenTelemetry log records (`opentelemetry-appender-tracing`).
//!
//! Behind them the SDK's providers judge again what leaves the process, whichever API wrote it
//! ([`PhiSpanProcessor`], [`PhiLogProcessor`]), then batch it to the OTLP/HTTP exporter
//! (protobuf, gzip) on a blocking ureq client (`client.rs`). The tracer provider is also the
//! global one, so code that writes through the OpenTelemetry API reaches the same processor.
//!
//! [`Telemetry::marker`] writes the positive control (`phiguard-marker start|end NONCE`) as a
//! span name and as a log record's body, which `phi-canary otlp --expect-marker` requires on both
//! signals; [`Telemetry::shutdown`] flushes both at a clean stop.

mod client;
mod endpoint;

use std::str::FromStr;
use std::time::Duration;

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _};
use opentelemetry::trace::{Span as _, Tracer as _, TracerProvider as _};
use opentelemetry_appender_tracing::layer::OpenTelemetryTracingBridge;
use opentelemetry_otlp::{
    Compression, LogExporter, Protocol, SpanExporter, WithExportConfig as _, WithHttpConfig as _,
};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::logs::{BatchLogProcessor, SdkLoggerProvider};
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracerProvider};
use phi_filter::{PhiLogProcessor, PhiPolicy, PhiSpanProcessor, Stats, Stream};
use phi_marker::{MarkerKind, Nonce};
use tracing::Metadata;
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::{FilterExt as _, Targets, filter_fn};
use tracing_subscriber::layer::SubscriberExt as _;

pub use self::endpoint::{Endpoint, EndpointError};

/// The service name in the exported resource.
const SERVICE_NAME: &str = "answers";

/// How long one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the flush at shutdown may take, both providers at once.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(8);

/// Why the telemetry could not be installed or flushed. Messages name the step and the signal,
/// never a value.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// phi-filter's own installation failed (no endpoint).
    #[error(transparent)]
    Install(#[from] phi_filter::InstallError),
    /// The policy is misconfigured.
    #[error("invalid phi-filter policy: {0}")]
    Policy(#[from] phi_filter::PolicyError),
    /// Another global tracing subscriber or `log` logger is already set.
    #[error("another global tracing subscriber or log logger is already set")]
    Foreign,
    /// `RUST_LOG` is not a valid filter.
    #[error("invalid RUST_LOG filter")]
    Filter,
    /// The OTLP exporter of a signal could not be built.
    #[error("cannot build the OTLP {signal} exporter")]
    Exporter {
        /// `traces` or `logs`.
        signal: &'static str,
    },
    /// A provider could not flush what it held at shutdown (the collector did not take it).
    #[error("cannot flush the {signal} at shutdown")]
    Flush {
        /// `traces` or `logs`.
        signal: &'static str,
    },
}

/// The running export: the tracer and logger providers, and the policy's counters.
///
/// Clones share the providers: a shutdown through one shuts down all.
#[derive(Debug, Clone)]
pub struct Telemetry {
    tracers: SdkTracerProvider,
    loggers: SdkLoggerProvider,
    stats: Stats,
}

impl Telemetry {
    /// The providers exporting to `endpoint`, each behind `policy`'s processor.
    fn new(policy: &PhiPolicy, endpoint: &Endpoint) -> Result<Telemetry, TelemetryError> {
        let spans = SpanExporter::builder()
            .with_http()
            .with_http_client(client::Ureq::new(EXPORT_TIMEOUT))
            .with_protocol(Protocol::HttpBinary)
            .with_compression(Compression::Gzip)
            .with_endpoint(endpoint.signal("/v1/traces"))
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|_| TelemetryError::Exporter { signal: "traces" })?;
        let logs = LogExporter::builder()
            .with_http()
            .with_http_client(client::Ureq::new(EXPORT_TIMEOUT))
            .with_protocol(Protocol::HttpBinary)
            .with_compression(Compression::Gzip)
            .with_endpoint(endpoint.signal("/v1/logs"))
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|_| TelemetryError::Exporter { signal: "logs" })?;
        let resource = Resource::builder().with_service_name(SERVICE_NAME).build();
        let tracers = SdkTracerProvider::builder()
            .with_resource(resource.clone())
            .with_span_processor(PhiSpanProcessor::new(
                policy.clone(),
                BatchSpanProcessor::builder(spans).build(),
            )?)
            .build();
        let loggers = SdkLoggerProvider::builder()
            .with_resource(resource)
            .with_log_processor(PhiLogProcessor::new(
                policy.clone(),
                BatchLogProcessor::builder(logs).build(),
            )?)
            .build();
        Ok(Telemetry {
            tracers,
            loggers,
            stats: policy.stats(),
        })
    }

    /// The policy's counters (the log's and the processors' together).
    #[must_use]
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Writes the marker line of `kind` as a span's name and as a log record's body, through
    /// the providers (and so their processors), not through tracing.
    pub fn marker(&self, nonce: &Nonce, kind: MarkerKind) {
        let line = nonce.line(kind);
        self.tracers.tracer(SERVICE_NAME).start(line.clone()).end();
        let logger = self.loggers.logger(SERVICE_NAME);
        let mut record = logger.create_log_record();
        record.set_body(AnyValue::from(line));
        logger.emit(record);
    }

    /// Flushes and stops both providers: every span and record ended before this call is
    /// exported, or the error says which signal was not.
    ///
    /// Both providers flush at once, within [`SHUTDOWN_TIMEOUT`], so a collector that is down
    /// costs the stop that long, not twice: after the 10 s drain it stays inside a container
    /// engine's usual 30 s stop grace (`docker stop -t 30`).
    pub fn shutdown(&self) -> Result<(), TelemetryError> {
        let (traces, logs) = std::thread::scope(|scope| {
            let logs = scope.spawn(|| self.loggers.shutdown_with_timeout(SHUTDOWN_TIMEOUT));
            let traces = self.tracers.shutdown_with_timeout(SHUTDOWN_TIMEOUT);
            (traces, logs.join())
        });
        traces.map_err(|_| TelemetryError::Flush { signal: "traces" })?;
        match logs {
            Ok(Ok(())) => Ok(()),
            _ => Err(TelemetryError::Flush { signal: "logs" }),
        }
    }
}

/// Installs the global subscriber with `policy`, writing the log to `stream`, filtered by
/// `RUST_LOG` or else `default_filter`; with `endpoint`, also exporting traces and logs there
/// (standard output only: the service's log).
///
/// ```no_run
/// use answers_server::telemetry::{self, Endpoint};
/// let endpoint: Endpoint = "http://127.0.0.1:4318".parse()?;
/// let (stats, telemetry) = telemetry::install(
///     phi_filter::PhiPolicy::default(),
///     phi_filter::Stream::Stdout,
///     "info",
///     Some(&endpoint),
/// )?;
/// assert!(telemetry.is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn install(
    policy: PhiPolicy,
    stream: Stream,
    default_filter: &str,
    endpoint: Option<&Endpoint>,
) -> Result<(Stats, Option<Telemetry>), TelemetryError> {
    let Some(endpoint) = endpoint else {
        return Ok((
            phi_filter::install_to(policy, stream, default_filter)?,
            None,
        ));
    };
    if tracing::dispatcher::has_been_set() {
        return Err(TelemetryError::Foreign);
    }
    let spec = match std::env::var("RUST_LOG") {
        Ok(spec) if !spec.trim().is_empty() => spec,
        _ => default_filter.to_owned(),
    };
    let targets = Targets::from_str(&spec).map_err(|_| TelemetryError::Filter)?;
    let telemetry = Telemetry::new(&policy, endpoint)?;
    let log = phi_filter::json_layer(std::io::stdout).with_filter(targets.clone());
    // Spans to traces, events to logs: an event inside a request span is a log record, not
    // also a span event.
    let spans = tracing_opentelemetry::layer()
        .with_tracer(telemetry.tracers.tracer(SERVICE_NAME))
        .with_filter(targets.clone().and(filter_fn(is_span)));
    let records = OpenTelemetryTracingBridge::new(&telemetry.loggers)
        .with_filter(targets.and(filter_fn(is_event)));
    let layer = policy.try_wrap(log.and_then(spans).and_then(records))?;
    let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(layer));
    tracing_log::LogTracer::init().map_err(|_| TelemetryError::Foreign)?;
    tracing::dispatcher::set_global_default(dispatch).map_err(|_| TelemetryError::Foreign)?;
    opentelemetry::global::set_tracer_provider(telemetry.tracers.clone());
    Ok((telemetry.stats.clone(), Some(telemetry)))
}

// Named functions, not `Metadata::is_span`: a filter takes metadata of any lifetime.
fn is_span(metadata: &Metadata<'_>) -> bool {
    metadata.is_span()
}

fn is_event(metadata: &Metadata<'_>) -> bool {
    metadata.is_event()
}
