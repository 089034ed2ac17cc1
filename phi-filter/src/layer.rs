//! `PhiFilter<L>`: the wrapping layer. A layer cannot change what its siblings see, only what
//! a layer it wraps sees, so the policy wraps the sinks it protects and forwards to them
//! rebuilt events, span attributes and records whose values are redacted.

use std::any::TypeId;
use std::sync::Arc;

use tracing_core::span::{Attributes, Id, Record};
use tracing_core::subscriber::Interest;
use tracing_core::{Dispatch, Event, LevelFilter, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

use crate::error::PolicyError;
use crate::policy::{Compiled, PhiPolicy};
use crate::redact::rewrite;

impl PhiPolicy {
    /// Wraps a layer (or a stack of layers joined with `and_then`) so that it sees only
    /// redacted values. Every other `Layer` method is forwarded unchanged, so per-layer filters
    /// inside keep working.
    ///
    /// # Panics
    ///
    /// If the policy is misconfigured (a pseudonymized name without a key): a startup error,
    /// never a silent pass-through. [`try_wrap`](PhiPolicy::try_wrap) returns it instead.
    ///
    /// ```
    /// use tracing_subscriber::prelude::*;
    /// let layer = phi_filter::PhiPolicy::default().wrap(tracing_subscriber::fmt::layer().json());
    /// let subscriber = tracing_subscriber::registry().with(layer);
    /// tracing::subscriber::with_default(subscriber, || {
    ///     tracing::info!(user_id = 7, glucose = 5.4, "reading stored");
    /// });
    /// ```
    #[must_use]
    pub fn wrap<L>(self, inner: L) -> PhiFilter<L> {
        match self.try_wrap(inner) {
            Ok(layer) => layer,
            // phi-lint: allow(phi::error-message, reason = "a PolicyError names a configured field name, never a logged value")
            Err(e) => panic!("phi-filter: {e}"),
        }
    }

    /// [`wrap`](PhiPolicy::wrap), returning a misconfiguration as an error.
    ///
    /// ```
    /// let refused = phi_filter::PhiPolicy::default().pseudonymize("mrn").try_wrap(());
    /// assert!(matches!(refused, Err(phi_filter::PolicyError::NoKey(_))));
    /// ```
    pub fn try_wrap<L>(self, inner: L) -> Result<PhiFilter<L>, PolicyError> {
        Ok(PhiFilter {
            inner,
            policy: Arc::new(self.compile()?),
        })
    }
}

/// A layer wrapped by a [`PhiPolicy`]: what it sees is redacted.
///
/// ```
/// use tracing_subscriber::prelude::*;
/// let wrapped: phi_filter::PhiFilter<_> =
///     phi_filter::PhiPolicy::default().wrap(tracing_subscriber::fmt::layer());
/// let _subscriber = tracing_subscriber::registry().with(wrapped);
/// ```
#[derive(Debug)]
pub struct PhiFilter<L> {
    inner: L,
    policy: Arc<Compiled>,
}

impl<L> PhiFilter<L> {
    /// The wrapped layer.
    ///
    /// ```
    /// let f = phi_filter::PhiPolicy::default().wrap(42);
    /// assert_eq!(*f.inner(), 42);
    /// ```
    pub fn inner(&self) -> &L {
        &self.inner
    }

    /// The same compiled policy around another layer.
    pub(crate) fn with_inner<M>(self, inner: M) -> PhiFilter<M> {
        PhiFilter {
            inner,
            policy: self.policy,
        }
    }
}

impl<S, L> Layer<S> for PhiFilter<L>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    L: Layer<S>,
{
    fn on_register_dispatch(&self, subscriber: &Dispatch) {
        self.inner.on_register_dispatch(subscriber);
    }

    fn on_layer(&mut self, subscriber: &mut S) {
        self.inner.on_layer(subscriber);
    }

    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        // Warm the verdict cache, so the first event of a callsite takes the fast path too.
        self.policy.with_verdicts(metadata, |_| ());
        self.inner.register_callsite(metadata)
    }

    fn enabled(&self, metadata: &Metadata<'_>, ctx: Context<'_, S>) -> bool {
        self.inner.enabled(metadata, ctx)
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let meta = attrs.metadata();
        rewrite(
            &self.policy,
            meta,
            |v| attrs.record(v),
            |values| {
                let redacted = if attrs.is_contextual() {
                    Attributes::new(meta, values)
                } else if let Some(parent) = attrs.parent() {
                    Attributes::child_of(parent.clone(), meta, values)
                } else {
                    Attributes::new_root(meta, values)
                };
                self.inner.on_new_span(&redacted, id, ctx);
            },
        );
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        self.inner.max_level_hint()
    }

    fn on_record(&self, span: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        // Without the span's metadata the values cannot be judged: drop them (fail closed).
        let Some(meta) = ctx.metadata(span) else {
            return;
        };
        rewrite(
            &self.policy,
            meta,
            |v| values.record(v),
            |redacted| self.inner.on_record(span, &Record::new(redacted), ctx),
        );
    }

    fn on_follows_from(&self, span: &Id, follows: &Id, ctx: Context<'_, S>) {
        self.inner.on_follows_from(span, follows, ctx);
    }

    fn event_enabled(&self, event: &Event<'_>, ctx: Context<'_, S>) -> bool {
        self.inner.event_enabled(event, ctx)
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let meta = event.metadata();
        rewrite(
            &self.policy,
            meta,
            |v| event.record(v),
            |values| {
                let redacted = if event.is_contextual() {
                    Event::new(meta, values)
                } else {
                    Event::new_child_of(event.parent().cloned(), meta, values)
                };
                self.inner.on_event(&redacted, ctx);
            },
        );
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        self.inner.on_enter(id, ctx);
    }

    fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
        self.inner.on_exit(id, ctx);
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        self.inner.on_close(id, ctx);
    }

    fn on_id_change(&self, old: &Id, new: &Id, ctx: Context<'_, S>) {
        self.inner.on_id_change(old, new, ctx);
    }

    // Forwarding `downcast_raw` lets code that downcasts the subscriber find layers inside the
    // wrapper (tracing-opentelemetry's span context, per-layer filter markers). The method is
    // `unsafe` by signature only: this impl compares type ids and delegates.
    #[allow(unsafe_code)] // an `unsafe fn` in the trait's signature; no unsafe operation here
    unsafe fn downcast_raw(&self, id: TypeId) -> Option<*const ()> {
        if id == TypeId::of::<Self>() {
            return Some(std::ptr::from_ref(self).cast());
        }
        // SAFETY: forwarding the caller's contract to the wrapped layer unchanged.
        unsafe { self.inner.downcast_raw(id) }
    }
}
