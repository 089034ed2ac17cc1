//! Every string an export request carries, with where it is, through the matcher and the
//! decoder: resource and scope attributes and names, span names, attributes, events, links and
//! status messages, log bodies, attributes and severity texts, metric names, descriptions,
//! units, data point attributes and exemplars. Keys are scanned as well as values, and bytes
//! values as well as strings.

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::{Exemplar, Metric};
use opentelemetry_proto::tonic::resource::v1::Resource;

use super::{MAX_VALUE_DEPTH, PayloadError, Signal, SignalState, keep};
use crate::decode::Limit;
use crate::marker::MarkerKind;
use crate::matcher::{Found, Matcher};
use crate::report::Hit;
use crate::variant::Variant;

/// One step of the path to a string.
#[derive(Clone, Copy)]
enum Seg<'a> {
    /// `resource N`, `scope N`, `span N`, … : an item of a list, by its index.
    Item(&'static str, usize),
    /// A named field: `name`, `body`, `schema_url`.
    Field(&'static str),
    /// The value of an attribute, by its key.
    Value(&'a str),
    /// The key of the N-th attribute: the key itself may be what leaked, so it is not named.
    Key(usize),
    /// The N-th element of an array value.
    Index(usize),
}

fn render(path: &[Seg<'_>]) -> String {
    let parts: Vec<String> = path
        .iter()
        .map(|s| match *s {
            Seg::Item(what, i) => format!("{what} {i}"),
            Seg::Field(name) => name.to_owned(),
            Seg::Value(key) => format!("attribute {key:?}"),
            Seg::Key(i) => format!("attribute #{i} (its key)"),
            Seg::Index(i) => format!("[{i}]"),
        })
        .collect();
    parts.join(" > ")
}

/// Scans one request into one signal's state.
pub(super) struct Walker<'r> {
    matcher: &'r Matcher,
    signal: Signal,
    request: u64,
    state: &'r mut SignalState,
}

impl<'r> Walker<'r> {
    pub(super) fn new(
        matcher: &'r Matcher,
        signal: Signal,
        request: u64,
        state: &'r mut SignalState,
    ) -> Walker<'r> {
        Walker {
            matcher,
            signal,
            request,
            state,
        }
    }

    pub(super) fn traces(&mut self, req: &ExportTraceServiceRequest) -> Result<(), PayloadError> {
        let mut path = Vec::new();
        for (r, rs) in req.resource_spans.iter().enumerate() {
            path.push(Seg::Item("resource", r));
            self.resource(&mut path, rs.resource.as_ref(), &rs.schema_url)?;
            for (s, ss) in rs.scope_spans.iter().enumerate() {
                path.push(Seg::Item("scope", s));
                self.scope(&mut path, ss.scope.as_ref(), &ss.schema_url)?;
                for (i, span) in ss.spans.iter().enumerate() {
                    path.push(Seg::Item("span", i));
                    self.marker(&span.name);
                    self.state.count_name(&span.name);
                    self.field(&mut path, "name", span.name.as_bytes())?;
                    self.field(&mut path, "trace_state", span.trace_state.as_bytes())?;
                    self.attributes(&mut path, &span.attributes, 0)?;
                    for (e, event) in span.events.iter().enumerate() {
                        path.push(Seg::Item("event", e));
                        self.field(&mut path, "name", event.name.as_bytes())?;
                        self.attributes(&mut path, &event.attributes, 0)?;
                        path.pop();
                    }
                    for (l, link) in span.links.iter().enumerate() {
                        path.push(Seg::Item("link", l));
                        self.field(&mut path, "trace_state", link.trace_state.as_bytes())?;
                        self.attributes(&mut path, &link.attributes, 0)?;
                        path.pop();
                    }
                    if let Some(status) = &span.status {
                        self.field(&mut path, "status message", status.message.as_bytes())?;
                    }
                    path.pop();
                }
                path.pop();
            }
            path.pop();
        }
        Ok(())
    }

    pub(super) fn logs(&mut self, req: &ExportLogsServiceRequest) -> Result<(), PayloadError> {
        let mut path = Vec::new();
        for (r, rl) in req.resource_logs.iter().enumerate() {
            path.push(Seg::Item("resource", r));
            self.resource(&mut path, rl.resource.as_ref(), &rl.schema_url)?;
            for (s, sl) in rl.scope_logs.iter().enumerate() {
                path.push(Seg::Item("scope", s));
                self.scope(&mut path, sl.scope.as_ref(), &sl.schema_url)?;
                for (i, record) in sl.log_records.iter().enumerate() {
                    path.push(Seg::Item("record", i));
                    match record.body.as_ref().and_then(|b| b.value.as_ref()) {
                        Some(Value::StringValue(body)) => self.marker(body),
                        _ => self.marker(""),
                    }
                    if let Some(body) = &record.body {
                        path.push(Seg::Field("body"));
                        self.value(&mut path, body, 0)?;
                        path.pop();
                    }
                    self.field(&mut path, "severity_text", record.severity_text.as_bytes())?;
                    self.field(&mut path, "event_name", record.event_name.as_bytes())?;
                    self.attributes(&mut path, &record.attributes, 0)?;
                    path.pop();
                }
                path.pop();
            }
            path.pop();
        }
        Ok(())
    }

    pub(super) fn metrics(
        &mut self,
        req: &ExportMetricsServiceRequest,
    ) -> Result<(), PayloadError> {
        let mut path = Vec::new();
        for (r, rm) in req.resource_metrics.iter().enumerate() {
            path.push(Seg::Item("resource", r));
            self.resource(&mut path, rm.resource.as_ref(), &rm.schema_url)?;
            for (s, sm) in rm.scope_metrics.iter().enumerate() {
                path.push(Seg::Item("scope", s));
                self.scope(&mut path, sm.scope.as_ref(), &sm.schema_url)?;
                for (i, metric) in sm.metrics.iter().enumerate() {
                    path.push(Seg::Item("metric", i));
                    self.metric(&mut path, metric)?;
                    path.pop();
                }
                path.pop();
            }
            path.pop();
        }
        Ok(())
    }

    fn metric<'a>(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        metric: &'a Metric,
    ) -> Result<(), PayloadError> {
        self.field(path, "name", metric.name.as_bytes())?;
        self.field(path, "description", metric.description.as_bytes())?;
        self.field(path, "unit", metric.unit.as_bytes())?;
        path.push(Seg::Field("metadata"));
        self.attributes(path, &metric.metadata, 0)?;
        path.pop();
        // Every kind of data point: its attributes, and its exemplars' filtered attributes.
        let points: Vec<(&'a [KeyValue], &'a [Exemplar])> = match &metric.data {
            Some(Data::Gauge(g)) => g
                .data_points
                .iter()
                .map(|p| (&p.attributes[..], &p.exemplars[..]))
                .collect(),
            Some(Data::Sum(s)) => s
                .data_points
                .iter()
                .map(|p| (&p.attributes[..], &p.exemplars[..]))
                .collect(),
            Some(Data::Histogram(h)) => h
                .data_points
                .iter()
                .map(|p| (&p.attributes[..], &p.exemplars[..]))
                .collect(),
            Some(Data::ExponentialHistogram(h)) => h
                .data_points
                .iter()
                .map(|p| (&p.attributes[..], &p.exemplars[..]))
                .collect(),
            Some(Data::Summary(s)) => s
                .data_points
                .iter()
                .map(|p| (&p.attributes[..], &[][..]))
                .collect(),
            None => Vec::new(),
        };
        for (p, (attributes, exemplars)) in points.into_iter().enumerate() {
            path.push(Seg::Item("point", p));
            self.attributes(path, attributes, 0)?;
            for (e, exemplar) in exemplars.iter().enumerate() {
                path.push(Seg::Item("exemplar", e));
                self.attributes(path, &exemplar.filtered_attributes, 0)?;
                path.pop();
            }
            path.pop();
        }
        Ok(())
    }

    fn resource<'a>(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        resource: Option<&'a Resource>,
        schema_url: &'a str,
    ) -> Result<(), PayloadError> {
        self.field(path, "schema_url", schema_url.as_bytes())?;
        let Some(resource) = resource else {
            return Ok(());
        };
        self.attributes(path, &resource.attributes, 0)?;
        for (e, entity) in resource.entity_refs.iter().enumerate() {
            path.push(Seg::Item("entity", e));
            self.field(path, "schema_url", entity.schema_url.as_bytes())?;
            self.field(path, "type", entity.r#type.as_bytes())?;
            for key in entity.id_keys.iter().chain(&entity.description_keys) {
                self.field(path, "key", key.as_bytes())?;
            }
            path.pop();
        }
        Ok(())
    }

    fn scope<'a>(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        scope: Option<&'a InstrumentationScope>,
        schema_url: &'a str,
    ) -> Result<(), PayloadError> {
        self.field(path, "schema_url", schema_url.as_bytes())?;
        let Some(scope) = scope else {
            return Ok(());
        };
        self.field(path, "name", scope.name.as_bytes())?;
        self.field(path, "version", scope.version.as_bytes())?;
        self.attributes(path, &scope.attributes, 0)
    }

    fn attributes<'a>(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        attributes: &'a [KeyValue],
        depth: usize,
    ) -> Result<(), PayloadError> {
        for (i, kv) in attributes.iter().enumerate() {
            path.push(Seg::Key(i));
            self.scan(path, kv.key.as_bytes())?;
            path.pop();
            if let Some(value) = &kv.value {
                path.push(Seg::Value(&kv.key));
                self.value(path, value, depth)?;
                path.pop();
            }
        }
        Ok(())
    }

    fn value<'a>(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        value: &'a AnyValue,
        depth: usize,
    ) -> Result<(), PayloadError> {
        match &value.value {
            Some(Value::StringValue(s)) => self.scan(path, s.as_bytes()),
            Some(Value::BytesValue(b)) => self.scan(path, b),
            Some(Value::ArrayValue(_) | Value::KvlistValue(_)) if depth >= MAX_VALUE_DEPTH => {
                Err(PayloadError::TooDeep {
                    field: render(path),
                })
            }
            Some(Value::ArrayValue(array)) => {
                for (i, v) in array.values.iter().enumerate() {
                    path.push(Seg::Index(i));
                    self.value(path, v, depth + 1)?;
                    path.pop();
                }
                Ok(())
            }
            Some(Value::KvlistValue(list)) => self.attributes(path, &list.values, depth + 1),
            _ => Ok(()),
        }
    }

    /// Counts a span or log record, and a marker when its name or body is a marker line.
    fn marker(&mut self, text: &str) {
        let at = self.state.items;
        self.state.items += 1;
        let Some(nonce) = self.matcher.marker() else {
            return;
        };
        let text = text.trim_end_matches(['\n', '\r']);
        for kind in [MarkerKind::Start, MarkerKind::End] {
            if text == nonce.line(kind) {
                self.state.markers.record(kind, at);
            }
        }
    }

    fn field(
        &mut self,
        path: &mut Vec<Seg<'_>>,
        name: &'static str,
        bytes: &[u8],
    ) -> Result<(), PayloadError> {
        path.push(Seg::Field(name));
        let result = self.scan(path, bytes);
        path.pop();
        result
    }

    /// The fast path, then the decoder, over one string; a decoded hit that holds a fast-path
    /// hit is that hit (as in `scan`).
    fn scan(&mut self, path: &[Seg<'_>], bytes: &[u8]) -> Result<(), PayloadError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let fast: Vec<(usize, usize, Variant)> = self
            .matcher
            .find_all(bytes)
            .into_iter()
            .filter_map(|e| match e.found {
                Found::Canary { canary, variant } => Some((
                    canary,
                    usize::try_from(e.offset).unwrap_or(usize::MAX),
                    variant,
                )),
                Found::Marker(_) => None,
            })
            .collect();
        for &(canary, offset, variant) in &fast {
            self.hit(path, canary, offset, variant, None);
        }
        let Some(decoder) = self.matcher.decoder() else {
            return Ok(());
        };
        let found = decoder.find(bytes).map_err(|limit| PayloadError::Decode {
            field: render(path),
            why: match limit {
                Limit::Bomb(_) => "a compressed run decompresses past its cap",
                Limit::TooLong(_) => "a run is longer than the decoder's cap",
            },
        })?;
        for d in found {
            if fast.iter().any(|&(_, at, _)| d.start <= at && at < d.end) {
                continue;
            }
            let variant = if d.mixed_case {
                Variant::MixedCase
            } else {
                Variant::Exact
            };
            let chain = (!d.chain.is_empty()).then(|| d.chain.render(variant.name()));
            self.hit(path, d.canary, d.start, variant, chain);
        }
        Ok(())
    }

    fn hit(
        &mut self,
        path: &[Seg<'_>],
        canary: usize,
        offset: usize,
        variant: Variant,
        chain: Option<String>,
    ) {
        let hit = Hit {
            source: String::new(),
            stream: self.signal.name(),
            line: self.request,
            offset: offset as u64,
            variant,
            canary: self.matcher.canaries()[canary].id().to_owned(),
            chain,
            field: Some(render(path)),
        };
        keep(self.state, hit);
    }
}
