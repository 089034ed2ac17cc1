//! The counters an operator reads to see what the policy did: fields redacted, shape failures,
//! messages cut, errors scrubbed, canaries blocked, fields pseudonymized.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counters of what the policy did.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) fields_redacted: AtomicU64,
    pub(crate) shape_failures: AtomicU64,
    pub(crate) id_shape_failures: AtomicU64,
    pub(crate) messages_cut: AtomicU64,
    pub(crate) errors_scrubbed: AtomicU64,
    pub(crate) canaries_blocked: AtomicU64,
    pub(crate) fields_pseudonymized: AtomicU64,
}

impl Counters {
    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// A live handle on a policy's counters.
///
/// ```
/// let policy = phi_filter::PhiPolicy::default();
/// let stats = policy.stats();
/// let s = stats.snapshot();
/// assert_eq!((s.fields_redacted, s.canaries_blocked), (0, 0));
/// ```
#[derive(Debug, Clone)]
pub struct Stats(pub(crate) Arc<Counters>);

/// The counters at one moment.
///
/// ```
/// let s = phi_filter::StatsSnapshot::default();
/// assert_eq!(s.fields_redacted + s.errors_scrubbed, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StatsSnapshot {
    /// Values replaced by the marker because their field name is not allowed.
    pub fields_redacted: u64,
    /// Values under an allowed name that failed their class's shape check.
    pub shape_failures: u64,
    /// Of `shape_failures`, strings under an id name that were not opaque (`user_id = "jsmith"`,
    /// an email, a person's name): an id field carrying a person's handle.
    pub id_shape_failures: u64,
    /// Messages cut to the bound.
    pub messages_cut: u64,
    /// Error values (`record_error`, or fields named `error`, `err`, `exception.*`) scrubbed.
    pub errors_scrubbed: u64,
    /// Values or messages blocked by the tripwire.
    pub canaries_blocked: u64,
    /// Values replaced by their pseudonym token.
    pub fields_pseudonymized: u64,
}

impl Stats {
    /// Reads every counter.
    ///
    /// ```
    /// let s = phi_filter::PhiPolicy::default().stats().snapshot();
    /// assert_eq!(s.shape_failures, 0);
    /// ```
    #[must_use]
    pub fn snapshot(&self) -> StatsSnapshot {
        let c = &self.0;
        StatsSnapshot {
            fields_redacted: c.fields_redacted.load(Ordering::Relaxed),
            shape_failures: c.shape_failures.load(Ordering::Relaxed),
            id_shape_failures: c.id_shape_failures.load(Ordering::Relaxed),
            messages_cut: c.messages_cut.load(Ordering::Relaxed),
            errors_scrubbed: c.errors_scrubbed.load(Ordering::Relaxed),
            canaries_blocked: c.canaries_blocked.load(Ordering::Relaxed),
            fields_pseudonymized: c.fields_pseudonymized.load(Ordering::Relaxed),
        }
    }
}
