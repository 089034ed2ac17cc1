//! The cost of redaction, measured in one run: the registry alone, a plain JSON fmt layer, the
//! same layer wrapped by the default policy, and the policy over a no-op layer (the pure rewrite
//! cost), the walk of the event's `ValueSet` alone (the floor under any rewrite), and the policy
//! with one pseudonymized field over a no-op layer. Output goes to `io::sink`. Variants: 5 fields
//! plus a message, 32 fields, an event in a nested span, and a 10 KB message.
//!
//! `cargo bench -p phi-filter --bench redact`

use std::fmt;
use std::hint::black_box;

use divan::Bencher;
use phi_filter::PhiPolicy;
use tracing::{Dispatch, info, info_span};
use tracing_subscriber::Layer;
use tracing_subscriber::prelude::*;

fn main() {
    divan::main();
}

/// The subscriber stacks compared.
#[derive(Clone, Copy)]
enum Stack {
    Registry,
    Json,
    WrappedJson,
    WrappedNoop,
    VisitOnly,
    PseudonymNoop,
}

impl fmt::Display for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stack::Registry => "1 registry only",
            Stack::Json => "2 fmt json",
            Stack::WrappedJson => "3 phi(fmt json)",
            Stack::WrappedNoop => "4 phi(noop)",
            Stack::VisitOnly => "5 visit values only (floor)",
            Stack::PseudonymNoop => "6 phi+pseudonym(noop)",
        })
    }
}

struct Noop;
impl<S: tracing::Subscriber> Layer<S> for Noop {}

/// Visits every value of every event and does nothing with it: tracing-core's own `ValueSet`
/// walk, the floor under any layer that reads the values.
struct VisitOnly;
impl<S: tracing::Subscriber> Layer<S> for VisitOnly {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        event.record(&mut Sink);
    }
}

struct Sink;
impl tracing::field::Visit for Sink {
    fn record_debug(&mut self, f: &tracing::field::Field, v: &dyn fmt::Debug) {
        black_box((f, v));
    }
    fn record_str(&mut self, f: &tracing::field::Field, v: &str) {
        black_box((f, v));
    }
    fn record_u64(&mut self, f: &tracing::field::Field, v: u64) {
        black_box((f, v));
    }
}

impl Stack {
    fn dispatch(self) -> Dispatch {
        let json = || {
            tracing_subscriber::fmt::layer()
                .json()
                .with_writer(std::io::sink)
        };
        match self {
            Stack::Registry => Dispatch::new(tracing_subscriber::registry()),
            Stack::Json => Dispatch::new(tracing_subscriber::registry().with(json())),
            Stack::WrappedJson => Dispatch::new(
                tracing_subscriber::registry().with(PhiPolicy::default().wrap(json())),
            ),
            Stack::WrappedNoop => {
                Dispatch::new(tracing_subscriber::registry().with(PhiPolicy::default().wrap(Noop)))
            }
            Stack::VisitOnly => Dispatch::new(tracing_subscriber::registry().with(VisitOnly)),
            Stack::PseudonymNoop => {
                // `note` is pseudonymized instead of redacted: the difference to 4 is the cost of
                // one pseudonymized field.
                let key = phi_filter::PseudonymKey::new(&[7; 32]).expect("a key");
                let policy = PhiPolicy::default().pseudonym_key(key).pseudonymize("note");
                Dispatch::new(tracing_subscriber::registry().with(policy.wrap(Noop)))
            }
        }
    }
}

const STACKS: [Stack; 4] = [
    Stack::Registry,
    Stack::Json,
    Stack::WrappedJson,
    Stack::WrappedNoop,
];

fn run(bencher: Bencher, stack: Stack, emit: fn(u64)) {
    let dispatch = stack.dispatch();
    tracing::dispatcher::with_default(&dispatch, || {
        let mut i = 0u64;
        bencher.bench_local(|| {
            i = i.wrapping_add(1);
            emit(black_box(i));
        });
    });
}

#[inline(never)]
fn five_fields_event(i: u64) {
    info!(
        user_id = i,
        request_id = "req-9f3a7c21d4e5b6a8",
        row_count = 12u64,
        status = 200u16,
        note = "free text",
        "query answered"
    );
}

#[inline(never)]
fn thirty_two_fields_event(i: u64) {
    info!(
        a_id = i,
        b_id = i,
        c_id = i,
        d_id = i,
        e_id = i,
        f_id = i,
        g_id = i,
        h_id = i,
        a_count = 1,
        b_count = 2,
        c_count = 3,
        d_count = 4,
        e_count = 5,
        f_count = 6,
        g_count = 7,
        a_ms = 1,
        b_ms = 2,
        c_ms = 3,
        d_ms = 4,
        e_ms = 5,
        f_ms = 6,
        g_ms = 7,
        h_ms = 8,
        n1 = "x",
        n2 = "x",
        n3 = "x",
        n4 = "x",
        n5 = "x",
        n6 = "x",
        n7 = "x",
        status = "ok",
        "wide event"
    );
}

#[inline(never)]
fn ten_kb_message_event(i: u64) {
    static BODY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let body = BODY.get_or_init(|| "lorem ipsum ".repeat(850));
    info!(user_id = i, "{}", body);
}

/// The 5-field case also measures the floor and the pseudonym.
const FIVE_FIELD_STACKS: [Stack; 6] = [
    Stack::Registry,
    Stack::Json,
    Stack::WrappedJson,
    Stack::WrappedNoop,
    Stack::VisitOnly,
    Stack::PseudonymNoop,
];

#[divan::bench(args = FIVE_FIELD_STACKS)]
fn five_fields(bencher: Bencher, stack: Stack) {
    run(bencher, stack, five_fields_event);
}

#[divan::bench(args = STACKS)]
fn thirty_two_fields(bencher: Bencher, stack: Stack) {
    run(bencher, stack, thirty_two_fields_event);
}

#[divan::bench(args = STACKS)]
fn ten_kb_message(bencher: Bencher, stack: Stack) {
    run(bencher, stack, ten_kb_message_event);
}

#[divan::bench(args = STACKS)]
fn nested_span(bencher: Bencher, stack: Stack) {
    let dispatch = stack.dispatch();
    tracing::dispatcher::with_default(&dispatch, || {
        let outer = info_span!(
            "request",
            request_id = "req-9f3a7c21d4e5b6a8",
            patient = "free text"
        );
        let _o = outer.enter();
        let inner = info_span!("query", row_count = 12u64, note = "free text");
        let _i = inner.enter();
        let mut i = 0u64;
        bencher.bench_local(|| {
            i = i.wrapping_add(1);
            five_fields_event(black_box(i));
        });
    });
}
