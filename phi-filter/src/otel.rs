//! OpenTelemetry's own API, covered: processors that apply a [`PhiPolicy`](crate::PhiPolicy) to
//! spans and log records as they leave the SDK, whichever API wrote them.
//!
//! `OpenTelemetrySpanExt::set_attribute`, events added with the OpenTelemetry API and attributes
//! set on an OpenTelemetry span directly never pass through a tracing layer. [`PhiSpanProcessor`]
//! wraps the exporter's processor and judges the span when it ends: its name, attributes, event
//! names and attributes, link attributes and error status. [`PhiLogProcessor`] does the same for
//! log records (body and attributes). The rules are the layer's: the same names, shapes,
//! pseudonyms, tripwire, message bound and counters.

/// The processor methods that [`PhiLogProcessor`] and [`PhiSpanProcessor`] hand unchanged to
/// the processor they wrap (`self.inner`): flushing, shutting down and the resource.
macro_rules! forward_to_inner {
    () => {
        fn force_flush(&self) -> ::opentelemetry_sdk::error::OTelSdkResult {
            self.inner.force_flush()
        }

        fn shutdown_with_timeout(
            &self,
            timeout: ::std::time::Duration,
        ) -> ::opentelemetry_sdk::error::OTelSdkResult {
            self.inner.shutdown_with_timeout(timeout)
        }

        fn shutdown(&self) -> ::opentelemetry_sdk::error::OTelSdkResult {
            self.inner.shutdown()
        }

        fn set_resource(&mut self, resource: &::opentelemetry_sdk::Resource) {
            self.inner.set_resource(resource);
        }
    };
}

mod log;
mod span;

use std::borrow::Cow;
use std::fmt::{self, Write as _};

pub use log::PhiLogProcessor;
pub use span::PhiSpanProcessor;

use crate::policy::{CANARY_MARKER, Compiled, Counters, ERROR_MARKER, Verdict};
use crate::shape::Shape;

/// How long a value under an SDK-owned key may be.
const OWN_KEY_LIMIT: usize = 512;

/// Keys that tracing-opentelemetry and the SDK write from code metadata, not from data: source
/// location, thread, level, target, span timings. They pass, bounded and scanned.
const OWN_KEYS: &[&str] = &[
    "code.file.path",
    "code.module.name",
    "code.line.number",
    "code.filepath",
    "code.namespace",
    "code.lineno",
    "thread.id",
    "thread.name",
    "level",
    "target",
    "busy_ns",
    "idle_ns",
    "otel.tracing_event_count",
];

/// The verdict on an attribute key.
fn verdict(policy: &Compiled, key: &str) -> Verdict {
    if OWN_KEYS.contains(&key) {
        Verdict::Log
    } else {
        policy.verdict(key)
    }
}

/// A scalar attribute value, as span attributes ([`opentelemetry::Value`]) and log attributes
/// ([`opentelemetry::logs::AnyValue`]) both hold it: the one dispatch on a value's type that the
/// two processors share.
#[derive(Debug, Clone, Copy)]
enum Scalar<'a> {
    Bool(bool),
    I64(i64),
    F64(f64),
    Str(&'a str),
}

/// What replaces a scalar under `verdict`; `None` keeps it.
fn judge_scalar(policy: &Compiled, verdict: Verdict, value: Scalar<'_>) -> Option<String> {
    match value {
        Scalar::Bool(x) => judge_number(policy, verdict, &x),
        Scalar::I64(x) => judge_number(policy, verdict, &x),
        Scalar::F64(x) => judge_number(policy, verdict, &x),
        Scalar::Str(s) => judge_str(policy, verdict, s),
    }
}

/// What replaces a number (or a bool) under `verdict`; `None` keeps it.
fn judge_number(policy: &Compiled, verdict: Verdict, value: &dyn fmt::Display) -> Option<String> {
    match verdict {
        Verdict::Pass(_) | Verdict::PassConfig | Verdict::Log | Verdict::Message => None,
        Verdict::Pseudonym => {
            let mut text = String::new();
            let _ = write!(text, "{value}");
            Some(pseudonymize(policy, &text))
        }
        Verdict::ErrorName => Some(error(policy)),
        Verdict::Redact => Some(redact(policy)),
    }
}

/// What replaces a string under `verdict`; `None` keeps it.
fn judge_str(policy: &Compiled, verdict: Verdict, value: &str) -> Option<String> {
    let shape = match verdict {
        Verdict::Message => return message(policy, value).map(Cow::into_owned),
        Verdict::Pseudonym => return Some(pseudonymize(policy, value)),
        Verdict::ErrorName => return Some(error(policy)),
        Verdict::Redact => return Some(redact(policy)),
        Verdict::Log => None,
        Verdict::Pass(class) => Some(Shape::of(class)),
        Verdict::PassConfig => Some(Shape::Ident),
    };
    let fits = match shape {
        Some(shape) => shape.accepts(value),
        None => value.len() <= OWN_KEY_LIMIT,
    };
    if !fits {
        Counters::bump(&policy.counters.shape_failures);
        if shape == Some(Shape::Opaque) {
            Counters::bump(&policy.counters.id_shape_failures);
        }
        return Some(policy.marker.clone());
    }
    if policy.scans() && policy.trips(value) {
        Counters::bump(&policy.counters.canaries_blocked);
        return Some(CANARY_MARKER.to_owned());
    }
    None
}

/// A message-like text (a span or event name, a log body): scanned, then bounded, or replaced
/// by the marker in strict mode unless it is a plain identifier. `None` keeps it.
fn message<'a>(policy: &Compiled, text: &'a str) -> Option<Cow<'a, str>> {
    if policy.scans() && policy.trips(text) {
        Counters::bump(&policy.counters.canaries_blocked);
        return Some(Cow::Borrowed(CANARY_MARKER));
    }
    if policy.strict_messages {
        return (!Shape::Ident.accepts(text)).then(|| Cow::Owned(policy.marker.clone()));
    }
    let max = policy.max_message_bytes;
    if text.len() <= max {
        return None;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Counters::bump(&policy.counters.messages_cut);
    Some(Cow::Owned(format!(
        "{}… [{} bytes cut]",
        &text[..cut],
        text.len() - cut
    )))
}

/// The token of `text`, after the tripwire has scanned it.
fn pseudonymize(policy: &Compiled, text: &str) -> String {
    if policy.scans() && policy.trips(text) {
        Counters::bump(&policy.counters.canaries_blocked);
        return CANARY_MARKER.to_owned();
    }
    let Some(key) = &policy.key else {
        // `compile` refuses a pseudonymized name without a key; fail closed all the same.
        return redact(policy);
    };
    Counters::bump(&policy.counters.fields_pseudonymized);
    let mut out = String::new();
    key.token_into(text.as_bytes(), &mut out);
    out
}

fn redact(policy: &Compiled) -> String {
    Counters::bump(&policy.counters.fields_redacted);
    policy.marker.clone()
}

fn error(policy: &Compiled) -> String {
    Counters::bump(&policy.counters.errors_scrubbed);
    ERROR_MARKER.to_owned()
}
