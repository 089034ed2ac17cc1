//! The tool never raises: a broken store, a malformed row and a busy store each come back as
//! an error envelope told by kind and type, and the log says the same and no more.

use answers_protocol::ErrorKind;
use serde_json::json;

use super::{ask, demo};
use crate::capture::{all_text, assert_store_fault_kept_secret, logged};

#[test]
fn a_missing_table_is_an_unrecoverable_store_fault_without_the_driver_message() {
    let d = demo();
    d.raw().execute_batch("DROP TABLE day_elected").unwrap();
    let args = json!({"indicators": ["Body weight"], "view": "stats"});
    let (env, log) = logged(|| ask(&d.store, &d.you, &args));
    // The fault is logged by kind and type, and neither the answer nor the log says more.
    assert_store_fault_kept_secret(
        &env,
        &log,
        &["no such table", "day_elected", "SELECT", "Body weight"],
    );
    assert!(env.next_steps().is_empty());
    let text = all_text(&env);
    assert!(
        text.contains("store_fault") && text.contains("answers_store::StoreError"),
        "{text}"
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
