//! `PhiSpanProcessor`: the policy applied to every span as it ends.

use std::sync::Arc;

use opentelemetry::trace::Status;
use opentelemetry::{Array, Context, KeyValue, StringValue, Value};
use opentelemetry_sdk::trace::{Span, SpanData, SpanProcessor};

use super::{Scalar, error, judge_number, judge_scalar, judge_str, message, verdict};
use crate::error::PolicyError;
use crate::policy::{Compiled, PhiPolicy, Verdict};

/// A span processor that applies a [`PhiPolicy`] to each span when it ends, then hands it to the
/// processor it wraps (usually the exporter's). It covers the span name, its attributes, its
/// events' names and attributes, its links' attributes and an error status's description,
/// whichever API set them: `tracing` fields, `OpenTelemetrySpanExt::set_attribute`, or the
/// OpenTelemetry API directly.
///
/// ```
/// use opentelemetry::trace::{Span as _, Tracer as _, TracerProvider as _};
/// use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SimpleSpanProcessor};
/// let exporter = InMemorySpanExporter::default();
/// let processor = phi_filter::PhiSpanProcessor::new(
///     phi_filter::PhiPolicy::default(),
///     SimpleSpanProcessor::new(exporter.clone()),
/// )?;
/// let provider = SdkTracerProvider::builder().with_span_processor(processor).build();
/// let mut span = provider.tracer("doc").start("load_record");
/// span.set_attribute(opentelemetry::KeyValue::new("comment", "felt dizzy"));
/// span.set_attribute(opentelemetry::KeyValue::new("row_count", 3));
/// span.end();
/// let spans = exporter.get_finished_spans().unwrap();
/// assert_eq!(spans[0].attributes[0].value.as_str(), "[redacted]");
/// assert_eq!(spans[0].attributes[1].value, opentelemetry::Value::I64(3));
/// # Ok::<(), phi_filter::PolicyError>(())
/// ```
#[derive(Debug)]
pub struct PhiSpanProcessor<P> {
    inner: P,
    policy: Arc<Compiled>,
}

impl<P: SpanProcessor> PhiSpanProcessor<P> {
    /// Wraps `inner`. A misconfigured policy (a pseudonymized name without a key) is refused.
    /// Clone the policy to use it for the tracing layer too; the clones share their counters.
    pub fn new(policy: PhiPolicy, inner: P) -> Result<Self, PolicyError> {
        Ok(PhiSpanProcessor {
            inner,
            policy: Arc::new(policy.compile()?),
        })
    }
}

impl<P: SpanProcessor> SpanProcessor for PhiSpanProcessor<P> {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        self.inner.on_start(span, cx);
    }

    fn on_end(&self, mut span: SpanData) {
        let p = &*self.policy;
        if let Some(name) = message(p, &span.name) {
            span.name = name.into_owned().into();
        }
        judge_all(p, &mut span.attributes);
        for event in &mut span.events.events {
            if let Some(name) = message(p, &event.name) {
                event.name = name.into_owned().into();
            }
            judge_all(p, &mut event.attributes);
        }
        for link in &mut span.links.links {
            judge_all(p, &mut link.attributes);
        }
        if let Status::Error { description } = &span.status
            && !description.is_empty()
        {
            span.status = Status::error(error(p));
        }
        self.inner.on_end(span);
    }

    forward_to_inner!();
}

/// Judges every attribute in place.
pub(super) fn judge_all(policy: &Compiled, attributes: &mut [KeyValue]) {
    for kv in attributes {
        let v = verdict(policy, kv.key.as_str());
        if let Some(new) = judge_value(policy, v, &kv.value) {
            kv.value = new;
        }
    }
}

/// What replaces one attribute value; `None` keeps it.
fn judge_value(policy: &Compiled, v: Verdict, value: &Value) -> Option<Value> {
    let text = |s: String| Some(Value::String(s.into()));
    let scalar = match value {
        Value::Bool(x) => Scalar::Bool(*x),
        Value::I64(x) => Scalar::I64(*x),
        Value::F64(x) => Scalar::F64(*x),
        Value::String(s) => Scalar::Str(s.as_str()),
        Value::Array(Array::String(items)) => {
            // Each element is judged like a value of its own; the array keeps its length.
            let judged: Vec<Option<String>> = items
                .iter()
                .map(|s| judge_str(policy, v, s.as_str()))
                .collect();
            if judged.iter().all(Option::is_none) {
                return None;
            }
            let items: Vec<StringValue> = items
                .iter()
                .zip(judged)
                .map(|(old, new)| new.map_or_else(|| old.clone(), StringValue::from))
                .collect();
            return Some(Value::Array(Array::String(items)));
        }
        Value::Array(array) => {
            // Numbers and bools: the array passes or is replaced as one value.
            return judge_number(policy, v, array).and_then(text);
        }
        // `Value` is non-exhaustive: what this version does not know is not exported.
        _ => return text(policy.marker.clone()),
    };
    judge_scalar(policy, v, scalar).and_then(text)
}
