//! phi-filter builds events, span attributes and records with tracing-core constructors, some of
//! them doc-hidden (`FieldSet::value_set_all`, since tracing-core 0.1.35, the minimum this crate
//! pins). This test uses each one the way the layer does, so a breaking change fails here by
//! name rather than somewhere inside the layer.

use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata};
use tracing_core::field::Value;
use tracing_core::span::{Attributes, Id, Record};

#[derive(Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

impl Visit for Seen {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if let Ok(mut v) = self.0.lock() {
            v.push(format!("{}={value:?}", field.name()));
        }
    }
}

fn metadata() -> &'static Metadata<'static> {
    let span = tracing::info_span!(
        "constructed",
        a_id = tracing::field::Empty,
        b_count = tracing::field::Empty
    );
    span.metadata().expect("an enabled span under a subscriber")
}

#[test]
fn the_constructors_phi_filter_uses_exist_and_behave() {
    // A subscriber, so span metadata is available.
    let subscriber = tracing_subscriber::registry();
    tracing::subscriber::with_default(subscriber, || {
        let meta = metadata();
        let n = meta.fields().len();
        assert_eq!(n, 2);
        let one: u64 = 1;
        let values: Vec<Option<&dyn Value>> = vec![Some(&one), None];
        let vs = meta.fields().value_set_all(&values);
        assert_eq!(
            vs.len(),
            2,
            "one entry per field; a None entry records nothing (below)"
        );

        let seen = Seen::default();
        let out = Arc::clone(&seen.0);
        let mut visitor = seen;
        Event::new(meta, &vs).record(&mut visitor);
        Event::new_child_of(Some(Id::from_u64(3)), meta, &vs).record(&mut visitor);
        Event::new_child_of(None, meta, &vs).record(&mut visitor);
        Attributes::new(meta, &vs).record(&mut visitor);
        Attributes::new_root(meta, &vs).record(&mut visitor);
        Attributes::child_of(Id::from_u64(3), meta, &vs).record(&mut visitor);
        Record::new(&vs).record(&mut visitor);
        let seen = out.lock().expect("lock").clone();
        assert_eq!(seen, vec!["a_id=1"; 7]);
        assert_eq!(*Event::new(meta, &vs).metadata().level(), Level::INFO);
    });
}
