//! The tool never raises: a broken store, a malformed row and a busy store each come back as
//! an error envelope told by kind and type, and the log says the same and no more.

use answers_protocol::{ErrorClass, ErrorDetail, ErrorKind, Status, render_compact, render_rest};
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt;

use super::{ask, demo};

/// Everything an envelope says, in every form it is sent in.
fn all_text(env: &answers_protocol::Envelope) -> String {
    format!(
        "{}\n{}\n{}\n{env:?}",
        render_compact(env),
        render_rest(env),
        serde_json::to_string(env).unwrap()
    )
}

/// Runs `f` with a subscriber that writes JSON log lines through phi-filter into memory.
fn logged<T>(f: impl FnOnce() -> T) -> (T, String) {
    let logs = phi_filter::MemoryWriter::default();
    let layer = phi_filter::PhiPolicy::default().wrap(phi_filter::json_layer(logs.clone()));
    let out = tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), f);
    (out, logs.text())
}

#[test]
fn a_missing_table_is_an_unrecoverable_store_fault_without_the_driver_message() {
    let d = demo();
    d.raw().execute_batch("DROP TABLE day_elected").unwrap();
    let args = json!({"indicators": ["Body weight"], "view": "stats"});
    let (env, log) = logged(|| ask(&d.store, &d.you, &args));
    assert_eq!(env.status(), Status::Error);
    assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault));
    assert_eq!(env.error_class(), Some(ErrorClass::Unrecoverable));
    assert!(env.next_steps().is_empty());
    let Some(ErrorDetail::Fault { type_name, .. }) = env.error_detail() else {
        panic!("not a fault: {env:?}");
    };
    assert_eq!(type_name.as_str(), "answers_store::StoreError");
    let text = all_text(&env);
    assert!(
        text.contains("store_fault") && text.contains("answers_store::StoreError"),
        "{text}"
    );
    for secret in ["no such table", "day_elected", "SELECT", "Body weight"] {
        assert!(!text.contains(secret), "{secret} in {text}");
        assert!(!log.contains(secret), "{secret} in the log: {log}");
    }
    // The fault was logged, by kind and type.
    assert!(
        log.contains("store_fault") && log.contains("answers_store::StoreError"),
        "{log}"
    );
}

#[test]
fn a_malformed_row_is_a_store_fault() {
    let d = demo();
    d.raw()
        .execute(
            "UPDATE series SET value_num = 'not a number PHI-MALFORMED' WHERE subject_id = ?1 AND code = '29463-7'",
            [&d.you.id],
        )
        .unwrap();
    let env = ask(
        &d.store,
        &d.you,
        &json!({"indicators": ["Body weight"], "view": "raw"}),
    );
    assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault));
    assert!(!all_text(&env).contains("PHI-MALFORMED"));
    // A timestamp that is not one.
    d.raw()
        .execute(
            "UPDATE series SET start_utc = 'PHI-TS' WHERE id = (SELECT max(id) FROM series
              WHERE subject_id = ?1 AND code = '40443-4')",
            [&d.you.id],
        )
        .unwrap();
    let env = ask(
        &d.store,
        &d.you,
        &json!({"indicators": ["40443-4"], "view": "latest"}),
    );
    assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault));
    let text = all_text(&env);
    assert!(
        text.contains("MalformedRow") && !text.contains("PHI-TS"),
        "{text}"
    );
}
