//! `PhiLogProcessor`: the policy applied to every OpenTelemetry log record.

use std::sync::Arc;

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity};
use opentelemetry::{InstrumentationScope, Key};
use opentelemetry_sdk::logs::{LogProcessor, SdkLogRecord, SdkLogger, SdkLoggerProvider};

use super::{Scalar, judge_scalar, judge_str, message, verdict};
use crate::error::PolicyError;
use crate::policy::{Compiled, PhiPolicy, Verdict};

/// A log processor that applies a [`PhiPolicy`] to each record, then hands it to the processor
/// it wraps: the body is treated as a message (scanned, bounded), each attribute as a field.
/// Place it first: the SDK hands the changed record to the processors after it.
///
/// ```
/// use opentelemetry::logs::{LogRecord as _, Logger as _, LoggerProvider as _};
/// use opentelemetry_sdk::logs::{InMemoryLogExporter, SdkLoggerProvider, SimpleLogProcessor};
/// let exporter = InMemoryLogExporter::default();
/// let processor = phi_filter::PhiLogProcessor::new(
///     phi_filter::PhiPolicy::default(),
///     SimpleLogProcessor::new(exporter.clone()),
/// )?;
/// let provider = SdkLoggerProvider::builder().with_log_processor(processor).build();
/// let logger = provider.logger("doc");
/// let mut record = logger.create_log_record();
/// record.set_body("stored".into());
/// record.add_attribute("comment", "felt dizzy");
/// logger.emit(record);
/// let logs = exporter.get_emitted_logs().unwrap();
/// let (_, value) = logs[0].record.attributes_iter().next().unwrap();
/// assert_eq!(value, &opentelemetry::logs::AnyValue::from("[redacted]"));
/// # Ok::<(), phi_filter::PolicyError>(())
/// ```
#[derive(Debug)]
pub struct PhiLogProcessor<P> {
    inner: P,
    policy: Arc<Compiled>,
    /// Makes the fresh records that replace judged ones: the SDK offers no way to change or
    /// remove an attribute already on a record. It has no processors and exports nothing.
    blank: SdkLogger,
    _provider: SdkLoggerProvider,
}

impl<P: LogProcessor> PhiLogProcessor<P> {
    /// Wraps `inner`. A misconfigured policy (a pseudonymized name without a key) is refused.
    pub fn new(policy: PhiPolicy, inner: P) -> Result<Self, PolicyError> {
        let provider = SdkLoggerProvider::builder().build();
        Ok(PhiLogProcessor {
            inner,
            policy: Arc::new(policy.compile()?),
            blank: provider.logger("phi-filter"),
            _provider: provider,
        })
    }

    /// The record with its body and attributes judged.
    fn judged(&self, data: &SdkLogRecord) -> SdkLogRecord {
        let p = &*self.policy;
        let mut out = self.blank.create_log_record();
        if let Some(name) = data.event_name() {
            out.set_event_name(name);
        }
        if let Some(target) = data.target() {
            out.set_target(target.clone());
        }
        if let Some(t) = data.timestamp() {
            out.set_timestamp(t);
        }
        if let Some(t) = data.observed_timestamp() {
            out.set_observed_timestamp(t);
        }
        if let Some(cx) = data.trace_context() {
            out.set_trace_context(cx.trace_id, cx.span_id, cx.trace_flags);
        }
        if let Some(text) = data.severity_text() {
            out.set_severity_text(text);
        }
        if let Some(n) = data.severity_number() {
            out.set_severity_number(n);
        }
        if let Some(body) = data.body() {
            out.set_body(judge_body(p, body));
        }
        for (key, value) in data.attributes_iter() {
            let v = verdict(p, key.as_str());
            let value = judge_any(p, v, value).unwrap_or_else(|| value.clone());
            out.add_attribute(Key::clone(key), value);
        }
        out
    }
}

impl<P: LogProcessor> LogProcessor for PhiLogProcessor<P> {
    fn emit(&self, data: &mut SdkLogRecord, instrumentation: &InstrumentationScope) {
        *data = self.judged(data);
        self.inner.emit(data, instrumentation);
    }

    forward_to_inner!();

    fn event_enabled(&self, level: Severity, target: &str, name: Option<&str>) -> bool {
        self.inner.event_enabled(level, target, name)
    }
}

/// A body: a string is a message; anything else is replaced.
fn judge_body(policy: &Compiled, body: &AnyValue) -> AnyValue {
    match body {
        AnyValue::String(s) => message(policy, s.as_str())
            .map_or_else(|| body.clone(), |m| AnyValue::from(m.into_owned())),
        other => judge_any(policy, Verdict::Redact, other).unwrap_or_else(|| other.clone()),
    }
}

/// What replaces one attribute value; `None` keeps it. Bytes, lists and maps under any name
/// but the SDK's own are replaced whole: their parts have no names to judge.
fn judge_any(policy: &Compiled, v: Verdict, value: &AnyValue) -> Option<AnyValue> {
    let scalar = match value {
        AnyValue::Int(x) => Scalar::I64(*x),
        AnyValue::Double(x) => Scalar::F64(*x),
        AnyValue::Boolean(x) => Scalar::Bool(*x),
        AnyValue::String(s) => Scalar::Str(s.as_str()),
        _ => return judge_str(policy, Verdict::Redact, "").map(AnyValue::from),
    };
    judge_scalar(policy, v, scalar).map(AnyValue::from)
}
