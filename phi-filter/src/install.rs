//! `install()`: one call for a service. JSON lines on stdout through the default policy, with
//! the `log` bridge, filtered by `RUST_LOG` (default `info`).

use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

use tracing_core::{Dispatch, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::{Format as FmtFormat, Json};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::{Layer, fmt as tfmt};

use crate::error::PolicyError;
use crate::fields::{PhiJsonFields, PhiTextFields};
use crate::policy::{Format, PhiPolicy, Stats};

/// Why [`install`] could not install phi-filter.
///
/// ```
/// let e = phi_filter::InstallError::ForeignSubscriber;
/// assert!(e.to_string().starts_with("another global tracing subscriber"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallError {
    /// Another global tracing subscriber is already set; it cannot be wrapped after the fact.
    ForeignSubscriber,
    /// Another `log` logger is already set, so `log` records would bypass the policy.
    ForeignLogger,
    /// `RUST_LOG` is not a valid filter; the message says why.
    Filter(String),
    /// The policy is misconfigured.
    Policy(PolicyError),
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstallError::ForeignSubscriber => f.write_str(
                "another global tracing subscriber is already set; install phi-filter first, or wrap your layers with PhiPolicy::wrap",
            ),
            InstallError::ForeignLogger => f.write_str(
                "another `log` logger is already set, so `log` records would bypass phi-filter",
            ),
            InstallError::Filter(why) => write!(f, "invalid RUST_LOG filter: {why}"),
            InstallError::Policy(e) => write!(f, "invalid phi-filter policy: {e}"),
        }
    }
}

impl std::error::Error for InstallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InstallError::Policy(e) => Some(e),
            _ => None,
        }
    }
}

static INSTALLED: OnceLock<Stats> = OnceLock::new();
static INSTALLING: Mutex<()> = Mutex::new(());

/// Installs phi-filter as the global subscriber with the default policy: JSON lines on stdout,
/// the `log` bridge, `RUST_LOG` filtering (default `info`). A second call returns `Ok`.
///
/// ```no_run
/// phi_filter::install()?;
/// tracing::info!(user_id = 7, note = "free text", "stored");   // note becomes "[redacted]"
/// # Ok::<(), phi_filter::InstallError>(())
/// ```
pub fn install() -> Result<Stats, InstallError> {
    install_with(PhiPolicy::default())
}

/// [`install`] with a policy of your own; its [`Format`] picks JSON or text. If phi-filter is
/// already installed, this returns the installed policy's counters and ignores `policy`.
///
/// ```no_run
/// use phi_filter::{Format, PhiPolicy};
/// let stats = phi_filter::install_with(PhiPolicy::default().format(Format::Text))?;
/// # Ok::<(), phi_filter::InstallError>(())
/// ```
pub fn install_with(policy: PhiPolicy) -> Result<Stats, InstallError> {
    install_to(policy, Stream::Stdout, "info")
}

/// Where [`install_to`] writes the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output: a service's log.
    Stdout,
    /// Standard error: a program whose standard output is a protocol (an MCP server on stdio).
    Stderr,
}

/// [`install_with`], writing to `stream`, with `default_filter` (a `RUST_LOG`-style
/// directive list such as `"info,rmcp=warn"`) when `RUST_LOG` is unset or empty.
///
/// ```no_run
/// use phi_filter::{PhiPolicy, Stream};
/// phi_filter::install_to(PhiPolicy::default(), Stream::Stderr, "info,rmcp=warn")?;
/// # Ok::<(), phi_filter::InstallError>(())
/// ```
pub fn install_to(
    policy: PhiPolicy,
    stream: Stream,
    default_filter: &str,
) -> Result<Stats, InstallError> {
    if let Some(stats) = INSTALLED.get() {
        return Ok(stats.clone());
    }
    let _guard = INSTALLING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(stats) = INSTALLED.get() {
        return Ok(stats.clone());
    }
    if tracing_core::dispatcher::has_been_set() {
        return Err(InstallError::ForeignSubscriber);
    }
    let spec = match std::env::var("RUST_LOG") {
        Ok(spec) if !spec.trim().is_empty() => spec,
        _ => default_filter.to_owned(),
    };
    let filter = Targets::from_str(&spec).map_err(|e| InstallError::Filter(e.to_string()))?;
    let stats = policy.stats();
    let format = policy.output_format();
    let policy = policy.try_wrap(()).map_err(InstallError::Policy)?;
    let dispatch = match (format, stream) {
        (Format::Json, Stream::Stdout) => Dispatch::new(
            tracing_subscriber::registry()
                .with(policy.with_inner(json_layer(std::io::stdout).with_filter(filter))),
        ),
        (Format::Json, Stream::Stderr) => Dispatch::new(
            tracing_subscriber::registry()
                .with(policy.with_inner(json_layer(std::io::stderr).with_filter(filter))),
        ),
        (Format::Text, Stream::Stdout) => Dispatch::new(
            tracing_subscriber::registry()
                .with(policy.with_inner(text_layer(std::io::stdout).with_filter(filter))),
        ),
        (Format::Text, Stream::Stderr) => Dispatch::new(
            tracing_subscriber::registry()
                .with(policy.with_inner(text_layer(std::io::stderr).with_filter(filter))),
        ),
    };
    tracing_log::LogTracer::init().map_err(|_| InstallError::ForeignLogger)?;
    tracing_core::dispatcher::set_global_default(dispatch)
        .map_err(|_| InstallError::ForeignSubscriber)?;
    let _ = INSTALLED.set(stats.clone());
    Ok(stats)
}

/// A JSON fmt layer writing to `writer`, with phi-filter's private span-field cache. Wrap it with
/// [`PhiPolicy::wrap`].
///
/// ```
/// let layer = phi_filter::json_layer::<tracing_subscriber::Registry, _>(std::io::stderr);
/// let _wrapped = phi_filter::PhiPolicy::default().wrap(layer);
/// ```
pub fn json_layer<S, W>(writer: W) -> tfmt::Layer<S, PhiJsonFields, FmtFormat<Json>, W>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + 'static,
{
    tfmt::layer()
        .json()
        .fmt_fields(PhiJsonFields::default())
        .with_writer(writer)
}

/// A text fmt layer writing to `writer`, with phi-filter's private span-field cache.
///
/// ```
/// let layer = phi_filter::text_layer::<tracing_subscriber::Registry, _>(std::io::stderr);
/// let _wrapped = phi_filter::PhiPolicy::default().wrap(layer);
/// ```
pub fn text_layer<S, W>(writer: W) -> tfmt::Layer<S, PhiTextFields, FmtFormat, W>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + 'static,
{
    tfmt::layer()
        .fmt_fields(PhiTextFields::default())
        .with_writer(writer)
}
