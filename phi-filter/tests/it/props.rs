//! Property tests: random field names, partly built from deny stems, with random values that
//! contain a tripwire canary. The canary never appears, and neither does any value whose name is
//! not allowlisted.

use std::sync::OnceLock;

use phi_filter::PhiPolicy;
use phi_filter::names::{DEFAULT_DENY_STEMS, NameClass, NamePolicy, NameVerdict};
use proptest::prelude::*;
use tracing_core::callsite::{Callsite, Identifier};
use tracing_core::field::{FieldSet, Value};
use tracing_core::metadata::Kind;
use tracing_core::subscriber::Interest;
use tracing_core::{Event, Level, Metadata};

use crate::support::capture;

const CANARY: &str = "PHI-CANARY-3f9a";

/// A callsite made at run time, so field names can be random.
struct DynCallsite(OnceLock<Metadata<'static>>);

impl Callsite for DynCallsite {
    fn set_interest(&self, _: Interest) {}
    fn metadata(&self) -> &Metadata<'_> {
        self.0.get().expect("set before use")
    }
}

fn leak_event_metadata(names: &[String]) -> &'static Metadata<'static> {
    let names: Vec<&'static str> = names
        .iter()
        .map(|n| &*Box::leak(n.clone().into_boxed_str()))
        .collect();
    let names: &'static [&'static str] = Box::leak(names.into_boxed_slice());
    let callsite: &'static DynCallsite = Box::leak(Box::new(DynCallsite(OnceLock::new())));
    let meta = Metadata::new(
        "prop event",
        "props",
        Level::INFO,
        Some(file!()),
        Some(line!()),
        Some(module_path!()),
        FieldSet::new(names, Identifier(callsite)),
        Kind::EVENT,
    );
    let _ = callsite.0.set(meta);
    callsite.0.get().expect("just set")
}

fn name() -> impl Strategy<Value = String> {
    let stem = proptest::sample::select(DEFAULT_DENY_STEMS.to_vec());
    prop_oneof![
        (stem, "[a-z]{0,4}", "(_id|_count|_ms|_kind|_status|)")
            .prop_map(|(s, a, b)| format!("{a}{s}{b}")),
        "[a-z][a-z_]{0,10}(_id|_count|_ms|_type|)",
        proptest::sample::select(vec![
            "user_id",
            "row_count",
            "elapsed_ms",
            "status",
            "kind",
            "note",
            "value"
        ])
        .prop_map(str::to_owned),
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        ("[ -~]{0,20}", "[ -~]{0,20}").prop_map(|(a, b)| format!("{a}{CANARY}{b}")),
        "V[A-Za-z0-9]{12}",
        person(),
    ]
}

/// A person's login, name or email: what an id field must never carry.
fn person() -> impl Strategy<Value = String> {
    prop_oneof![
        "Q[a-z]{2,10}",
        "Q[a-z]{1,8}[0-9]{0,3}",
        ("Q[a-z]{2,8}", "[A-Z][a-z]{2,10}").prop_map(|(a, b)| format!("{a} {b}")),
        ("Q[a-z.]{1,10}", "[a-z]{2,10}").prop_map(|(a, b)| format!("{a}@{b}.org")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn canaries_and_unlisted_values_never_appear(
        fields in proptest::collection::btree_map(name(), value(), 1..12)
    ) {
        let (names, values): (Vec<String>, Vec<String>) = fields.into_iter().unzip();
        let meta = leak_event_metadata(&names);
        let buf = capture(PhiPolicy::default().tripwire([CANARY]), || {
            let vals: Vec<Option<&dyn Value>> = values.iter().map(|v| Some(v as &dyn Value)).collect();
            Event::dispatch(meta, &meta.fields().value_set_all(&vals));
        });
        let out = buf.text();
        prop_assert_eq!(out.lines().count(), 1, "one event, one line: {}", out);
        prop_assert!(!out.contains(CANARY), "canary leaked: {}", out);
        let policy = NamePolicy::default();
        let line: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
        for (n, v) in names.iter().zip(&values) {
            prop_assert!(line["fields"].get(n).is_some(), "the key {} is kept: {}", n, out);
            if !policy.classify(n).is_allowed() {
                prop_assert!(!out.contains(v.as_str()), "value of {} leaked: {}", n, out);
            }
            let id_name = policy.classify(n) == NameVerdict::Allowed(NameClass::OpaqueId);
            if id_name && v.starts_with('Q') {
                prop_assert!(!out.contains(v.as_str()), "person {} under {} leaked: {}", v, n, out);
            }
        }
    }
}
