//! Private field formatters for the fmt layers phi-filter builds.
//!
//! `fmt::Layer` caches a span's formatted fields in the span's extensions as
//! `FormattedFields<N>`, keyed by the field-formatter type `N`, and only formats them if no
//! entry exists yet. Two fmt layers with the same `N` share that cache, and the first to see the
//! span wins: an unwrapped `json()` layer beside a wrapped one would fill the cache with raw
//! values, and the wrapped layer would print them. These newtypes give phi-filter's layers a
//! cache of their own.

use std::fmt;

use tracing_core::span::Record;
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::{DefaultFields, JsonFields, Writer};
use tracing_subscriber::fmt::{FormatFields, FormattedFields};

/// JSON span fields in a span-extension cache no other layer shares.
///
/// ```
/// use tracing_subscriber::prelude::*;
/// let layer = tracing_subscriber::fmt::layer()
///     .json()
///     .fmt_fields(phi_filter::PhiJsonFields::default());
/// let _subscriber = tracing_subscriber::registry().with(phi_filter::PhiPolicy::default().wrap(layer));
/// ```
#[derive(Debug, Default)]
pub struct PhiJsonFields(JsonFields);

impl<'w> FormatFields<'w> for PhiJsonFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'w>, fields: R) -> fmt::Result {
        self.0.format_fields(writer, fields)
    }

    fn add_fields(
        &self,
        current: &'w mut FormattedFields<Self>,
        fields: &Record<'_>,
    ) -> fmt::Result {
        // JsonFields merges new fields into the JSON object it already wrote; run it on a
        // cache entry of its own type, then move the result back.
        let mut theirs = FormattedFields::<JsonFields>::new(std::mem::take(&mut current.fields));
        let result = self.0.add_fields(&mut theirs, fields);
        current.fields = theirs.fields;
        result
    }
}

/// Text span fields in a span-extension cache no other layer shares.
///
/// ```
/// use tracing_subscriber::prelude::*;
/// let layer = tracing_subscriber::fmt::layer().fmt_fields(phi_filter::PhiTextFields::default());
/// let _subscriber = tracing_subscriber::registry().with(phi_filter::PhiPolicy::default().wrap(layer));
/// ```
#[derive(Debug, Default)]
pub struct PhiTextFields(DefaultFields);

impl<'w> FormatFields<'w> for PhiTextFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'w>, fields: R) -> fmt::Result {
        self.0.format_fields(writer, fields)
    }
}
