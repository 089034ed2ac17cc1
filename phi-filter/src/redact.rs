//! The rewrite: visit a callsite's values once, decide each field, and build a new `ValueSet` of
//! redacted values over the same `&'static Metadata`.
//!
//! Steady state allocates nothing: the decisions are cached per callsite, values live in
//! fixed-size stack arrays, and the text of passing strings and messages is copied into a
//! thread-local buffer that keeps its capacity. Values that do not pass are never formatted.

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::panic::{AssertUnwindSafe, catch_unwind};

use tracing_core::Metadata;
use tracing_core::field::{Field, Value, ValueSet, Visit};

use crate::policy::{CANARY_MARKER, Compiled, Counters, ERROR_MARKER, MAX_FIELDS, Verdict};
use crate::shape::Shape;

/// How long a `log.*` value may be before it counts as malformed.
const LOG_FIELD_LIMIT: usize = 512;

thread_local! {
    static SCRATCH: RefCell<String> = RefCell::new(String::with_capacity(1024));
}

/// One field's redacted value. `Text` is a range of the scratch text while it is still being
/// written; once it is complete, ranges become `Str`.
#[derive(Debug, Clone, Copy)]
enum Slot<'a> {
    Absent,
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    /// A byte range of the scratch text (128-bit numbers are kept as their digits here).
    Text(u32, u32),
    /// A marker, a static name, or (after [`finish`]) a passing string.
    Str(&'a str),
}

/// Rewrites one callsite's values: `record` visits the original values, `emit` receives the
/// redacted `ValueSet`.
pub(crate) fn rewrite(
    policy: &Compiled,
    meta: &'static Metadata<'static>,
    record: impl FnOnce(&mut dyn Visit),
    emit: impl FnOnce(&ValueSet<'_>),
) {
    policy.with_verdicts(meta, |verdicts| {
        let mut job = Some((record, emit));
        // A re-entrant call (a Debug impl that logs, an inner layer that logs) finds the
        // scratch buffer borrowed, and a thread being torn down has none: both use their own.
        let _ = SCRATCH.try_with(|cell| {
            if let Ok(mut text) = cell.try_borrow_mut()
                && let Some((record, emit)) = job.take()
            {
                run(policy, meta, verdicts, &mut text, record, emit);
            }
        });
        if let Some((record, emit)) = job.take() {
            run(policy, meta, verdicts, &mut String::new(), record, emit);
        }
    });
}

fn run(
    policy: &Compiled,
    meta: &'static Metadata<'static>,
    verdicts: &[Verdict],
    text: &mut String,
    record: impl FnOnce(&mut dyn Visit),
    emit: impl FnOnce(&ValueSet<'_>),
) {
    text.clear();
    // Fixed-size arrays on the stack, in two sizes so the common small event does not pay for
    // clearing 32 entries; wider callsites use the heap.
    match meta.fields().len() {
        n if n <= SMALL => run_in::<SMALL>(policy, meta, verdicts, n, text, record, emit),
        n if n <= MAX_FIELDS => run_in::<MAX_FIELDS>(policy, meta, verdicts, n, text, record, emit),
        n => {
            let mut slots = vec![Slot::Absent; n];
            collect(policy, meta, verdicts, &mut slots, text, record);
            let mut values: Vec<Option<&dyn Value>> = vec![None; n];
            finish(meta, &mut slots, text, &mut values, emit);
        }
    }
}

/// Events with up to this many fields use the smallest stack arrays.
const SMALL: usize = 8;

#[allow(clippy::too_many_arguments)] // the rewrite's whole state, threaded through one call
fn run_in<const N: usize>(
    policy: &Compiled,
    meta: &'static Metadata<'static>,
    verdicts: &[Verdict],
    n: usize,
    text: &mut String,
    record: impl FnOnce(&mut dyn Visit),
    emit: impl FnOnce(&ValueSet<'_>),
) {
    let mut slots = [Slot::Absent; N];
    collect(policy, meta, verdicts, &mut slots[..n], text, record);
    let mut values: [Option<&dyn Value>; N] = [None; N];
    finish(meta, &mut slots[..n], text, &mut values[..n], emit);
}

fn collect<'a>(
    policy: &'a Compiled,
    meta: &'static Metadata<'static>,
    verdicts: &[Verdict],
    slots: &mut [Slot<'a>],
    text: &mut String,
    record: impl FnOnce(&mut dyn Visit),
) {
    let mut c = Collector {
        policy,
        meta,
        verdicts,
        slots,
        text,
    };
    record(&mut c);
}

/// Builds the redacted `ValueSet` and hands it to `emit`. The scratch text is complete now, so
/// its ranges become strings, in the same pass.
fn finish<'a>(
    meta: &'static Metadata<'static>,
    slots: &'a mut [Slot<'a>],
    text: &'a str,
    values: &mut [Option<&'a (dyn Value + 'a)>],
    emit: impl FnOnce(&ValueSet<'_>),
) {
    for (v, slot) in values.iter_mut().zip(slots) {
        if let Slot::Text(a, b) = *slot {
            *slot = Slot::Str(text.get(a as usize..b as usize).unwrap_or(""));
        }
        let slot: &'a Slot<'a> = slot;
        *v = match slot {
            // A range was resolved just above; it records nothing if it ever is not.
            Slot::Absent | Slot::Text(..) => None,
            Slot::U64(x) => Some(x),
            Slot::I64(x) => Some(x),
            Slot::F64(x) => Some(x),
            Slot::Bool(x) => Some(x),
            Slot::Str(s) => Some(s),
        };
    }
    let values: &[Option<&dyn Value>] = values;
    emit(&meta.fields().value_set_all(values));
}

/// Visits the original values and decides each field's slot.
struct Collector<'p, 's> {
    policy: &'p Compiled,
    meta: &'static Metadata<'static>,
    verdicts: &'s [Verdict],
    slots: &'s mut [Slot<'p>],
    text: &'s mut String,
}

impl<'p> Collector<'p, '_> {
    fn verdict(&self, f: &Field) -> Verdict {
        self.verdicts
            .get(f.index())
            .copied()
            .unwrap_or(Verdict::Redact)
    }

    fn set(&mut self, f: &Field, slot: Slot<'p>) {
        if let Some(s) = self.slots.get_mut(f.index()) {
            *s = slot;
        }
    }

    fn redact(&mut self, f: &Field) {
        Counters::bump(&self.policy.counters.fields_redacted);
        self.set(f, Slot::Str(&self.policy.marker));
    }

    fn error(&mut self, f: &Field) {
        Counters::bump(&self.policy.counters.errors_scrubbed);
        self.set(f, Slot::Str(ERROR_MARKER));
    }

    fn number(&mut self, f: &Field, slot: Slot<'p>) {
        match self.verdict(f) {
            Verdict::Pass(_) | Verdict::PassConfig | Verdict::Log | Verdict::Message => {
                self.set(f, slot);
            }
            Verdict::Pseudonym => {
                // The decimal text the wrapped layer would have printed.
                let start = self.text.len();
                let _ = match slot {
                    Slot::U64(x) => write!(self.text, "{x}"),
                    Slot::I64(x) => write!(self.text, "{x}"),
                    Slot::F64(x) => write!(self.text, "{x}"),
                    Slot::Bool(x) => write!(self.text, "{x}"),
                    Slot::Absent | Slot::Text(..) | Slot::Str(_) => Ok(()),
                };
                self.pseudonymize(f, start);
            }
            Verdict::ErrorName => self.error(f),
            Verdict::Redact => self.redact(f),
        }
    }

    /// Replaces the text written at `start..` by its token, after the tripwire has scanned it.
    fn pseudonymize(&mut self, f: &Field, start: usize) {
        if self.tripped_since(f, start) {
            return;
        }
        let Some(key) = &self.policy.key else {
            // `compile` refuses a pseudonymized name without a key; fail closed all the same.
            self.text.truncate(start);
            self.redact(f);
            return;
        };
        let token = key.token(self.text.as_bytes().get(start..).unwrap_or_default());
        self.text.truncate(start);
        // The token is ASCII (the prefix and base32), so it is always UTF-8.
        self.text
            .push_str(std::str::from_utf8(&token).unwrap_or_default());
        Counters::bump(&self.policy.counters.fields_pseudonymized);
        self.set_text(f, start);
    }

    /// Blocks the field for a canary: counted, and marked. (Both helpers are `#[inline]`: out of
    /// line, they cost the rewrite 20 instructions an event, counted with callgrind.)
    #[inline]
    fn block(&mut self, f: &Field) {
        Counters::bump(&self.policy.counters.canaries_blocked);
        self.set(f, Slot::Str(CANARY_MARKER));
    }

    /// Whether the tripwire finds a canary in the text written at `start..`; if it does, the
    /// text is dropped and the field blocked.
    #[inline]
    fn tripped_since(&mut self, f: &Field, start: usize) -> bool {
        if self.policy.scans() && self.text.get(start..).is_none_or(|t| self.policy.trips(t)) {
            self.text.truncate(start);
            self.block(f);
            return true;
        }
        false
    }

    /// A 128-bit number: passes like any number, written as digits into the scratch text.
    fn wide(&mut self, f: &Field, digits: fmt::Arguments<'_>) {
        match self.verdict(f) {
            Verdict::Pass(_) | Verdict::PassConfig | Verdict::Log | Verdict::Message => {
                let start = self.text.len();
                let _ = self.text.write_fmt(digits);
                self.set_text(f, start);
            }
            Verdict::Pseudonym => {
                let start = self.text.len();
                let _ = self.text.write_fmt(digits);
                self.pseudonymize(f, start);
            }
            Verdict::ErrorName => self.error(f),
            Verdict::Redact => self.redact(f),
        }
    }

    /// Points the field's slot at the scratch text from `start` to the end.
    fn set_text(&mut self, f: &Field, start: usize) {
        match (u32::try_from(start), u32::try_from(self.text.len())) {
            (Ok(a), Ok(b)) => self.set(f, Slot::Text(a, b)),
            // Over 4 GiB of scratch text: not representable, so not logged.
            _ => self.set(f, Slot::Str(&self.policy.marker)),
        }
    }

    fn shape(verdict: Verdict) -> Option<Shape> {
        match verdict {
            Verdict::Pass(class) => Some(Shape::of(class)),
            Verdict::PassConfig => Some(Shape::Ident),
            _ => None,
        }
    }

    /// A string that does not have its class's shape: counted, and redacted.
    fn shape_failed(&mut self, f: &Field, shape: Option<Shape>) {
        Counters::bump(&self.policy.counters.shape_failures);
        if shape == Some(Shape::Opaque) {
            Counters::bump(&self.policy.counters.id_shape_failures);
        }
        self.set(f, Slot::Str(&self.policy.marker));
    }

    /// Keeps the text just written at `start..` if it has `shape` and no canary.
    fn keep_text(&mut self, f: &Field, start: usize, shape: Option<Shape>) {
        let ok_shape = shape.is_none_or(|s| self.text.get(start..).is_some_and(|t| s.accepts(t)));
        if !ok_shape {
            self.text.truncate(start);
            self.shape_failed(f, shape);
            return;
        }
        if self.tripped_since(f, start) {
            return;
        }
        self.set_text(f, start);
    }

    /// Bounds the message written at `start..`, after scanning all of it for canaries.
    fn keep_message(&mut self, f: &Field, start: usize) {
        if self.tripped_since(f, start) {
            return;
        }
        let max = self.policy.max_message_bytes;
        if self.text.len() - start > max {
            let mut cut = start + max;
            while !self.text.is_char_boundary(cut) {
                cut -= 1;
            }
            let removed = self.text.len() - cut;
            self.text.truncate(cut);
            let _ = write!(self.text, "… [{removed} bytes cut]");
            Counters::bump(&self.policy.counters.messages_cut);
        }
        self.set_text(f, start);
    }

    /// Formats `value` with `Debug` into the scratch text, at most `limit` bytes. Returns the
    /// start offset, or `None` (with the text restored) if it was longer, failed or panicked.
    fn format(&mut self, value: &dyn fmt::Debug, limit: usize) -> Option<usize> {
        let start = self.text.len();
        let text = &mut *self.text;
        let ok = catch_unwind(AssertUnwindSafe(|| {
            if limit == usize::MAX {
                // Unbounded (messages, pseudonymized values): straight into the text.
                return write!(text, "{value:?}").is_ok();
            }
            let mut w = Bounded {
                buf: text,
                limit: start.saturating_add(limit),
            };
            write!(w, "{value:?}").is_ok()
        }))
        .unwrap_or(false);
        if ok {
            Some(start)
        } else {
            self.text.truncate(start);
            None
        }
    }
}

impl Visit for Collector<'_, '_> {
    fn record_debug(&mut self, f: &Field, value: &dyn fmt::Debug) {
        let verdict = self.verdict(f);
        match verdict {
            Verdict::Message if self.policy.strict_messages => {
                self.set(f, Slot::Str(self.meta.name()));
            }
            Verdict::Message => match self.format(value, usize::MAX) {
                Some(start) => self.keep_message(f, start),
                None => self.redact(f),
            },
            Verdict::Pseudonym => match self.format(value, usize::MAX) {
                Some(start) => self.pseudonymize(f, start),
                None => self.redact(f),
            },
            Verdict::Log | Verdict::Pass(_) | Verdict::PassConfig => {
                let shape = Self::shape(verdict);
                let limit = shape.map_or(LOG_FIELD_LIMIT, Shape::max_len);
                match self.format(value, limit) {
                    Some(start) => self.keep_text(f, start, shape),
                    None => self.shape_failed(f, shape),
                }
            }
            Verdict::ErrorName => self.error(f),
            Verdict::Redact => self.redact(f),
        }
    }

    fn record_str(&mut self, f: &Field, value: &str) {
        let verdict = self.verdict(f);
        match verdict {
            Verdict::Message if self.policy.strict_messages => {
                self.set(f, Slot::Str(self.meta.name()));
            }
            Verdict::Message => {
                let start = self.text.len();
                self.text.push_str(value);
                self.keep_message(f, start);
            }
            Verdict::Pseudonym => {
                let start = self.text.len();
                self.text.push_str(value);
                self.pseudonymize(f, start);
            }
            Verdict::Log | Verdict::Pass(_) | Verdict::PassConfig => {
                let shape = Self::shape(verdict);
                if value.len() > shape.map_or(LOG_FIELD_LIMIT, Shape::max_len)
                    || !shape.is_none_or(|s| s.accepts(value))
                {
                    self.shape_failed(f, shape);
                    return;
                }
                // Judged before it is copied: only a value that passes is written.
                if self.policy.scans() && self.policy.trips(value) {
                    self.block(f);
                    return;
                }
                let start = self.text.len();
                self.text.push_str(value);
                self.set_text(f, start);
            }
            Verdict::ErrorName => self.error(f),
            Verdict::Redact => self.redact(f),
        }
    }

    fn record_error(&mut self, f: &Field, _value: &(dyn std::error::Error + 'static)) {
        self.error(f);
    }

    fn record_u64(&mut self, f: &Field, value: u64) {
        self.number(f, Slot::U64(value));
    }

    fn record_i64(&mut self, f: &Field, value: i64) {
        self.number(f, Slot::I64(value));
    }

    fn record_f64(&mut self, f: &Field, value: f64) {
        self.number(f, Slot::F64(value));
    }

    fn record_bool(&mut self, f: &Field, value: bool) {
        self.number(f, Slot::Bool(value));
    }

    fn record_u128(&mut self, f: &Field, value: u128) {
        self.wide(f, format_args!("{value}"));
    }

    fn record_i128(&mut self, f: &Field, value: i128) {
        self.wide(f, format_args!("{value}"));
    }
}

/// A `fmt::Write` into a `String` that fails once the string would grow past `limit` bytes.
struct Bounded<'a> {
    buf: &'a mut String,
    limit: usize,
}

impl fmt::Write for Bounded<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.buf.len().saturating_add(s.len()) > self.limit {
            return Err(fmt::Error);
        }
        self.buf.push_str(s);
        Ok(())
    }
}
