//! The redaction policy: which field names pass, how values are shaped and bounded, and the
//! counters an operator reads to see what was redacted.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use aho_corasick::AhoCorasick;
use tracing_core::Metadata;

use crate::error::PolicyError;
use crate::names::{NameClass, NamePolicy, NameVerdict, to_snake};
use crate::pseudonym::PseudonymKey;
pub(crate) use crate::stats::Counters;
pub use crate::stats::{Stats, StatsSnapshot};

/// The marker that replaces a redacted value, by default.
///
/// ```
/// assert_eq!(phi_filter::DEFAULT_MARKER, "[redacted]");
/// ```
pub const DEFAULT_MARKER: &str = "[redacted]";
/// What replaces a value recorded with `record_error`.
///
/// ```
/// assert_eq!(phi_filter::ERROR_MARKER, "[error]");
/// ```
pub const ERROR_MARKER: &str = "[error]";
/// What replaces a value or message in which the tripwire found a canary.
///
/// ```
/// assert_eq!(phi_filter::CANARY_MARKER, "[canary blocked]");
/// ```
pub const CANARY_MARKER: &str = "[canary blocked]";
/// Callsites with up to this many fields are rewritten without touching the heap.
pub(crate) const MAX_FIELDS: usize = 32;
/// The default bound on a message, in bytes.
///
/// ```
/// assert_eq!(phi_filter::DEFAULT_MAX_MESSAGE_BYTES, 300);
/// ```
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 300;

/// The output format of [`crate::install_with`].
///
/// ```
/// assert_eq!(phi_filter::Format::default(), phi_filter::Format::Json);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// One JSON object per line (the default).
    #[default]
    Json,
    /// tracing-subscriber's human-readable text format.
    Text,
}

/// A redaction policy. Build it, then [`wrap`](PhiPolicy::wrap) the layers it protects.
///
/// ```
/// use phi_filter::PhiPolicy;
/// let policy = PhiPolicy::default()
///     .allow_name("tool_name")
///     .deny_stem("token")
///     .max_message_bytes(200)
///     .tripwire(["PHI-CANARY-3f9a"]);
/// let stats = policy.stats();
/// let layer = policy.wrap(phi_filter::json_layer(std::io::stderr));
/// use tracing_subscriber::prelude::*;
/// tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
///     tracing::info!(user_id = 7, note = "free text", "stored");
/// });
/// assert_eq!(stats.snapshot().fields_redacted, 1);
/// ```
#[derive(Debug, Clone)]
pub struct PhiPolicy {
    names: NamePolicy,
    marker: String,
    max_message_bytes: usize,
    strict_messages: bool,
    canaries: Vec<String>,
    format: Format,
    pseudonymized: Vec<String>,
    key: Option<PseudonymKey>,
    counters: Arc<Counters>,
}

impl Default for PhiPolicy {
    fn default() -> Self {
        PhiPolicy {
            names: NamePolicy::default(),
            marker: DEFAULT_MARKER.to_owned(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            strict_messages: false,
            canaries: Vec::new(),
            format: Format::Json,
            pseudonymized: Vec::new(),
            key: None,
            counters: Arc::default(),
        }
    }
}

impl PhiPolicy {
    /// Allows one more exact field name (it beats the deny stems). Its string values must still
    /// look like an identifier.
    ///
    /// ```
    /// let p = phi_filter::PhiPolicy::default().allow_name("tool_name");
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn allow_name(mut self, name: impl Into<String>) -> Self {
        self.names = self.names.allow_name(name);
        self
    }

    /// Allows field names matching a `*` pattern, unless they contain a deny stem.
    ///
    /// ```
    /// let p = phi_filter::PhiPolicy::default().allow_pattern("*_slug");
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn allow_pattern(mut self, pattern: impl Into<String>) -> Self {
        self.names = self.names.allow_pattern(pattern);
        self
    }

    /// Adds a deny stem: names containing it never pass.
    ///
    /// ```
    /// let p = phi_filter::PhiPolicy::default().deny_stem("token"); // token_count is redacted
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn deny_stem(mut self, stem: impl Into<String>) -> Self {
        self.names = self.names.deny_stem(stem);
        self
    }

    /// Bounds messages to `bytes`, cut on a character boundary with a visible marker.
    ///
    /// ```
    /// let p = phi_filter::PhiPolicy::default().max_message_bytes(120);
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// The text that replaces a redacted value (default `[redacted]`).
    ///
    /// ```
    /// let p = phi_filter::PhiPolicy::default().marker("***");
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn marker(mut self, marker: impl Into<String>) -> Self {
        self.marker = marker.into();
        self
    }

    /// Replaces every message with its callsite's name (`event src/db.rs:88`).
    ///
    /// ```
    /// let p = phi_filter::PhiPolicy::default().strict_messages(true);
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn strict_messages(mut self, strict: bool) -> Self {
        self.strict_messages = strict;
        self
    }

    /// Blocks any value or message that contains one of `canaries`: it becomes
    /// `[canary blocked]`, and is counted.
    ///
    /// ```
    /// let p = phi_filter::PhiPolicy::default().tripwire(["PHI-CANARY-3f9a"]);
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn tripwire<I, C>(mut self, canaries: I) -> Self
    where
        I: IntoIterator<Item = C>,
        C: Into<String>,
    {
        self.canaries.extend(
            canaries
                .into_iter()
                .map(Into::into)
                .filter(|c| !c.is_empty()),
        );
        self
    }

    /// The output format [`crate::install_with`] uses.
    ///
    /// ```
    /// let p = phi_filter::PhiPolicy::default().format(phi_filter::Format::Text);
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    pub(crate) fn output_format(&self) -> Format {
        self.format
    }

    /// The key of the pseudonyms ([`pseudonymize`](PhiPolicy::pseudonymize)).
    ///
    /// ```
    /// let key = phi_filter::PseudonymKey::new(&[7; 32])?;
    /// let p = phi_filter::PhiPolicy::default().pseudonym_key(key).pseudonymize("mrn");
    /// # let _ = p;
    /// # Ok::<(), phi_filter::KeyError>(())
    /// ```
    #[must_use]
    pub fn pseudonym_key(mut self, key: PseudonymKey) -> Self {
        self.key = Some(key);
        self
    }

    /// Replaces the values of a field name, or of names matching a `*` pattern (`patient_*`), by
    /// their keyed token ([`crate::pseudonym`]), whatever the name's class or deny stems. Values
    /// recorded as errors stay `[error]`, and the tripwire still scans the original text. Without
    /// a [`pseudonym_key`](PhiPolicy::pseudonym_key), [`wrap`](PhiPolicy::wrap) refuses the
    /// policy.
    ///
    /// ```
    /// use tracing_subscriber::prelude::*;
    /// let key = phi_filter::PseudonymKey::new(&[7; 32])?;
    /// let logs = phi_filter::MemoryWriter::default();
    /// let policy = phi_filter::PhiPolicy::default().pseudonym_key(key.clone()).pseudonymize("mrn");
    /// let layer = policy.wrap(phi_filter::json_layer(logs.clone()));
    /// tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
    ///     tracing::info!(mrn = "MRN-0042", "chart opened");
    /// });
    /// assert!(logs.text().contains(&phi_filter::pseudonym(&key, "MRN-0042")));
    /// assert!(!logs.text().contains("MRN-0042"));
    /// # Ok::<(), phi_filter::KeyError>(())
    /// ```
    #[must_use]
    pub fn pseudonymize(mut self, name_or_pattern: impl Into<String>) -> Self {
        self.pseudonymized.push(to_snake(&name_or_pattern.into()));
        self
    }

    /// A handle on this policy's counters; it stays valid after [`wrap`](PhiPolicy::wrap).
    ///
    /// ```
    /// let policy = phi_filter::PhiPolicy::default();
    /// let stats = policy.stats();
    /// let _layer = policy.wrap(phi_filter::json_layer::<tracing_subscriber::Registry, _>(std::io::sink));
    /// assert_eq!(stats.snapshot().messages_cut, 0);
    /// ```
    #[must_use]
    pub fn stats(&self) -> Stats {
        Stats(Arc::clone(&self.counters))
    }

    pub(crate) fn compile(self) -> Result<Compiled, PolicyError> {
        if self.key.is_none()
            && let Some(name) = self.pseudonymized.first()
        {
            return Err(PolicyError::NoKey(name.clone()));
        }
        let tripwire = if self.canaries.is_empty() {
            None
        } else {
            // Literal patterns only, so the builder cannot fail on their content; if it ever
            // does, block everything rather than scan nothing.
            AhoCorasick::new(&self.canaries).ok()
        };
        Ok(Compiled {
            id: NEXT_POLICY_ID.fetch_add(1, Ordering::Relaxed),
            tripwire_failed: !self.canaries.is_empty() && tripwire.is_none(),
            names: self.names,
            pseudonymized: self.pseudonymized,
            key: self.key,
            marker: self.marker,
            max_message_bytes: self.max_message_bytes,
            strict_messages: self.strict_messages,
            tripwire,
            counters: self.counters,
            settled: SettledTable::new(),
            callsites: RwLock::default(),
        })
    }
}

/// What the policy does with one field of a callsite, decided once per callsite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The `message` field: bounded, scanned, or replaced in strict mode.
    Message,
    /// `log.target`, `log.module_path`, `log.file`, `log.line` from the `log` bridge.
    Log,
    /// A name in a safe class: numbers pass, strings must have the class's shape.
    Pass(NameClass),
    /// A configured name: strings must look like an identifier.
    PassConfig,
    /// `error`, `err`, `exception.*`: never passes.
    ErrorName,
    /// A pseudonymized name: the value becomes its keyed token.
    Pseudonym,
    /// Everything else.
    Redact,
}

impl Verdict {
    pub(crate) fn of(policy: &NamePolicy, pseudonymized: &[String], name: &str) -> Verdict {
        if name == "message" {
            return Verdict::Message;
        }
        if name.starts_with("log.") {
            return Verdict::Log;
        }
        if matches!(name, "error" | "err") || name.starts_with("exception.") {
            return Verdict::ErrorName;
        }
        if !pseudonymized.is_empty() {
            let snake = to_snake(name);
            if pseudonymized
                .iter()
                .any(|p| crate::names::glob_match(p, &snake))
            {
                return Verdict::Pseudonym;
            }
        }
        match policy.classify(name) {
            NameVerdict::Allowed(class) => Verdict::Pass(class),
            NameVerdict::AllowedByConfig => Verdict::PassConfig,
            NameVerdict::Denied { .. } | NameVerdict::Unknown => Verdict::Redact,
        }
    }
}

/// Ways of the per-thread verdict cache.
const RECENT_WAYS: usize = 16;

/// One per-thread cache entry: a callsite's verdicts under one compiled policy.
#[derive(Debug, Clone, Copy)]
struct Recent {
    policy: u64,
    meta: usize,
    len: u8,
    verdicts: [Verdict; MAX_FIELDS],
}

thread_local! {
    static RECENT: std::cell::RefCell<[Option<Recent>; RECENT_WAYS]> =
        const { std::cell::RefCell::new([None; RECENT_WAYS]) };
}

/// Slots of a policy's settled-callsite table.
const SETTLED_SLOTS: usize = 256;

/// A callsite's verdicts, settled in the policy's table for good.
#[derive(Debug)]
struct Settled {
    meta: usize,
    len: u8,
    verdicts: [Verdict; MAX_FIELDS],
}

/// A direct-mapped table of callsites' verdicts, by metadata address, shared by every thread
/// without a lock: a slot is written once, by the first callsite that maps to it, and read with
/// one acquire load. Callsites whose slot is taken use the per-thread cache and the map.
struct SettledTable(Box<[OnceLock<Settled>]>);

impl SettledTable {
    fn new() -> Self {
        SettledTable((0..SETTLED_SLOTS).map(|_| OnceLock::new()).collect())
    }

    fn slot(&self, key: usize) -> Option<&OnceLock<Settled>> {
        self.0.get((key >> 4) % SETTLED_SLOTS)
    }
}

impl std::fmt::Debug for SettledTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let settled = self.0.iter().filter(|s| s.get().is_some()).count();
        write!(f, "SettledTable({settled} of {SETTLED_SLOTS})")
    }
}

/// Ids of compiled policies, so a per-thread cache entry never outlives its policy's identity
/// (an address could be reused by a later policy).
static NEXT_POLICY_ID: AtomicU64 = AtomicU64::new(1);

/// A policy ready to run: the per-callsite verdict cache and the tripwire matcher.
#[derive(Debug)]
pub(crate) struct Compiled {
    id: u64,
    names: NamePolicy,
    pseudonymized: Vec<String>,
    pub(crate) key: Option<PseudonymKey>,
    pub(crate) marker: String,
    pub(crate) max_message_bytes: usize,
    pub(crate) strict_messages: bool,
    pub(crate) tripwire: Option<AhoCorasick>,
    /// The tripwire had canaries but no matcher could be built: block every scanned value.
    pub(crate) tripwire_failed: bool,
    pub(crate) counters: Arc<Counters>,
    settled: SettledTable,
    callsites: RwLock<HashMap<usize, Arc<[Verdict]>, BuildHasherDefault<AddrHasher>>>,
}

impl Compiled {
    /// Runs `f` on the verdicts for a callsite's fields, computed once and cached by metadata
    /// address: in the policy's settled table if the callsite's slot is its own, else shared
    /// across threads in a map and copied into a per-thread cache. No lock or borrow is held
    /// while `f` runs (it may log, and so re-enter the policy).
    pub(crate) fn with_verdicts<R>(
        &self,
        meta: &'static Metadata<'static>,
        f: impl FnOnce(&[Verdict]) -> R,
    ) -> R {
        let key = std::ptr::from_ref(meta) as usize;
        let slot = self.settled.slot(key);
        if let Some(e) = slot.and_then(OnceLock::get)
            && e.meta == key
        {
            return f(&e.verdicts[..usize::from(e.len)]);
        }
        // First a per-thread direct-mapped cache: no lock, no atomic.
        let way = (key >> 4) % RECENT_WAYS;
        let recent = RECENT
            .try_with(|r| {
                r.try_borrow()
                    .ok()
                    .and_then(|r| r[way].filter(|e| e.policy == self.id && e.meta == key))
            })
            .ok()
            .flatten();
        if let Some(e) = recent {
            return f(&e.verdicts[..usize::from(e.len)]);
        }
        let shared = self
            .callsites
            .read()
            .ok()
            .and_then(|map| map.get(&key).map(Arc::clone));
        let verdicts = shared.unwrap_or_else(|| {
            let computed: Arc<[Verdict]> = meta
                .fields()
                .iter()
                .map(|field| Verdict::of(&self.names, &self.pseudonymized, field.name()))
                .collect();
            if let Ok(mut map) = self.callsites.write() {
                map.insert(key, Arc::clone(&computed));
            }
            computed
        });
        if let Ok(len) = u8::try_from(verdicts.len())
            && verdicts.len() <= MAX_FIELDS
        {
            let mut e = Recent {
                policy: self.id,
                meta: key,
                len,
                verdicts: [Verdict::Redact; MAX_FIELDS],
            };
            e.verdicts[..verdicts.len()].copy_from_slice(&verdicts);
            // The first callsite to map to a slot keeps it; the others use the caches below.
            if let Some(slot) = slot {
                let _ = slot.set(Settled {
                    meta: key,
                    len,
                    verdicts: e.verdicts,
                });
            }
            let _ = RECENT.try_with(|r| {
                if let Ok(mut r) = r.try_borrow_mut() {
                    r[way] = Some(e);
                }
            });
        }
        f(&verdicts)
    }

    /// The verdict on one field name, outside any callsite (OpenTelemetry attributes).
    #[cfg_attr(not(feature = "otel"), allow(dead_code))] // used by the OpenTelemetry processors
    pub(crate) fn verdict(&self, name: &str) -> Verdict {
        Verdict::of(&self.names, &self.pseudonymized, name)
    }

    /// Whether the tripwire blocks `text`.
    pub(crate) fn trips(&self, text: &str) -> bool {
        self.tripwire_failed || self.tripwire.as_ref().is_some_and(|ac| ac.is_match(text))
    }

    pub(crate) fn scans(&self) -> bool {
        self.tripwire.is_some() || self.tripwire_failed
    }
}

/// Hashes a metadata address: already unique, so no mixing beyond a multiply is needed.
#[derive(Default)]
pub(crate) struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[cfg(test)]
mod tests {
    use tracing::callsite::Callsite as _;
    use tracing_core::Kind;

    use super::{OnceLock, PhiPolicy, Settled, Verdict};
    use crate::names::NameClass;

    /// The verdicts `with_verdicts` hands over for `meta`.
    fn verdicts(
        policy: &super::Compiled,
        meta: &'static tracing_core::Metadata<'static>,
    ) -> Vec<Verdict> {
        let mut seen = Vec::new();
        policy.with_verdicts(meta, |v| seen.extend_from_slice(v));
        seen
    }

    #[test]
    fn a_callsite_whose_settled_slot_is_taken_gets_its_own_verdicts() {
        let meta =
            tracing::callsite!(name: "probe", kind: Kind::EVENT, fields: user_id, note).metadata();
        let want = vec![Verdict::Pass(NameClass::OpaqueId), Verdict::Redact];
        let Ok(policy) = PhiPolicy::default().compile() else {
            panic!("the default policy compiles");
        };
        // Another callsite holds this one's slot, with verdicts that are not this callsite's.
        let key = std::ptr::from_ref(meta) as usize;
        let Some(slot) = policy.settled.slot(key) else {
            panic!("every key maps to a slot");
        };
        let squatter = Settled {
            meta: key ^ (1 << 40),
            len: 2,
            verdicts: [Verdict::Message; super::MAX_FIELDS],
        };
        assert!(slot.set(squatter).is_ok());
        assert_eq!(verdicts(&policy, meta), want, "first event");
        assert_eq!(verdicts(&policy, meta), want, "from the per-thread cache");
        assert_eq!(
            slot.get().map(|s| s.meta),
            Some(key ^ (1 << 40)),
            "the slot stays taken"
        );

        // A free slot is settled by the first event and read from then on.
        let Ok(fresh) = PhiPolicy::default().compile() else {
            panic!("the default policy compiles");
        };
        assert_eq!(verdicts(&fresh, meta), want);
        let settled = fresh.settled.slot(key).and_then(OnceLock::get);
        assert_eq!(settled.map(|s| (s.meta, s.len)), Some((key, 2)));
        assert_eq!(verdicts(&fresh, meta), want, "from the settled slot");
    }
}
