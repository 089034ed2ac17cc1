//! Zero heap allocations per event in steady state, counted by a counting global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use phi_filter::{PhiPolicy, StatsSnapshot};
use tracing::info;
use tracing_subscriber::Layer;
use tracing_subscriber::prelude::*;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: delegates every call to the system allocator unchanged; it only counts, per thread.
#[allow(unsafe_code)] // a GlobalAlloc impl is unsafe by signature; it forwards to System
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.try_with(Cell::get).unwrap_or(false) {
            let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        }
        // SAFETY: the caller's contract is System's contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.try_with(Cell::get).unwrap_or(false) {
            let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A layer that does nothing, so only the rewrite is measured.
struct Noop;
impl<S: tracing::Subscriber> Layer<S> for Noop {}

fn allocations(f: impl Fn()) -> u64 {
    ALLOCS.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCS.with(Cell::get)
}

/// The heap allocations of `emit` under `policy` in steady state: after one warm-up run (the
/// callsite cache and the scratch buffer are filled once). The precondition is asserted first:
/// the counted run raised the statistic `counter` reads by `expected`, so the policy ran.
fn steady_state_allocations(
    policy: PhiPolicy,
    emit: impl Fn(),
    counter: fn(&StatsSnapshot) -> u64,
    expected: u64,
) -> u64 {
    let stats = policy.stats();
    let subscriber = tracing_subscriber::registry().with(policy.wrap(Noop));
    tracing::subscriber::with_default(subscriber, || {
        emit();
        let before = counter(&stats.snapshot());
        let n = allocations(&emit);
        assert_eq!(counter(&stats.snapshot()), before + expected);
        n
    })
}

#[test]
fn the_rewrite_allocates_nothing_in_steady_state() {
    let policy = PhiPolicy::default().tripwire(["PHI-CANARY-3f9a"]);
    let emit = || {
        for i in 0..50u64 {
            info!(
                user_id = i,
                request_id = "req-7",
                elapsed_ms = 12,
                note = "free text",
                status = "ok",
                "event {i} done"
            );
            // A wider event takes the 32-field arrays.
            info!(
                a_id = i,
                b_id = i,
                c_count = 3,
                d_ms = 4,
                e_kind = "x",
                f_status = "ok",
                g = 1,
                h = "free text",
                i_id = "id-1",
                j_count = 9,
                "wide event {i}"
            );
        }
    };
    let n = steady_state_allocations(policy, emit, |s| s.fields_redacted, 150);
    assert_eq!(n, 0, "heap allocations in 100 events");
}

#[test]
fn pseudonymizing_allocates_nothing_in_steady_state() {
    let key = phi_filter::PseudonymKey::new(&[9; 32]).expect("a key");
    let policy = PhiPolicy::default()
        .pseudonym_key(key)
        .pseudonymize("mrn")
        .pseudonymize("patient_*")
        .tripwire(["PHI-CANARY-3f9a"]);
    let emit = || {
        for i in 0..50u64 {
            info!(
            mrn = "MRN-0042",
                patient_name = %"Ann Smith",
                patient_seq = i,
                user_id = i,
                "event {i} done"
            );
        }
    };
    let n = steady_state_allocations(policy, emit, |s| s.fields_pseudonymized, 150);
    assert_eq!(n, 0, "heap allocations in 50 pseudonymizing events");
}

#[test]
fn the_counter_counts() {
    // Guards the test above against a counter that never counts.
    let n = allocations(|| {
        let v: Vec<u8> = Vec::with_capacity(16);
        std::hint::black_box(v);
    });
    assert_eq!(n, 1);
}
