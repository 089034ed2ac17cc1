//! No answer carries a reading's comment: the canary is in the record, and in no rendering of
//! any view, the catalogue, a keyword search or a fault.

use answers_demo::{self as demo, PHI_CANARY, SeedOptions};
use answers_protocol::{Status, View, render_compact, render_rest};
use serde_json::{Value, json};

use super::ask;

const RUN_CANARY: &str = "PHI-CANARY-run-7d41e0";

#[test]
fn no_output_contains_a_comment() {
    let mut store = crate::raw::FileStore::new();
    let opts = SeedOptions {
        demo_canary: true,
        extra_canary: Some(RUN_CANARY.to_owned()),
    };
    demo::seed(&mut store, &opts).unwrap();
    // The precondition: the canaries are in the record, so a clean output proves something.
    for canary in [PHI_CANARY, RUN_CANARY] {
        assert!(store.comment_contains(canary).unwrap(), "{canary}");
    }
    // Every comment of the record, read from the database directly.
    let comments: Vec<String> = store
        .raw()
        .prepare("SELECT comment FROM series WHERE comment IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(comments.len() >= 4, "{comments:?}");

    let mut calls: Vec<Value> = vec![
        json!({}),
        json!({"start": "2025-11-12", "end": "2025-11-12"}),
        json!({"keywords": ["cholesterol"]}),
        json!({"keywords": ["headache"]}),
        json!({"keywords": ["nothing-recorded-by-this-name"]}),
    ];
    // Every view of every series that carries a comment, by code, and of the panel by the
    // names the report printed.
    let indicators = json!([
        "14647-2",
        "4548-4",
        "14771-0",
        "N01",
        "N17",
        "Total Cholesterol"
    ]);
    for view in View::ALL {
        calls.push(json!({"indicators": indicators, "view": view.as_str()}));
        calls.push(json!({"keywords": ["headache", "头晕"], "view": view.as_str()}));
        calls.push(json!({"indicators": indicators, "view": view.as_str(), "start": "2025-11-12", "end": "2025-11-12"}));
    }
    let mut rows = 0;
    for handle in ["you", "mom"] {
        let who = store.subject_by_handle(handle).unwrap().unwrap();
        for args in &calls {
            let env = ask(&store, &who, args);
            assert_ne!(env.status(), Status::Error, "{args}");
            rows += env.meta().row_count;
            let outputs = [
                render_compact(&env),
                render_rest(&env).to_string(),
                serde_json::to_string(&env).unwrap(),
                format!("{env:?}"),
            ];
            for out in &outputs {
                for comment in &comments {
                    assert!(
                        !out.contains(comment.as_str()),
                        "{handle} {args}: a comment leaked"
                    );
                }
                assert!(
                    !out.contains("PHI-CANARY"),
                    "{handle} {args}: the canary leaked"
                );
            }
        }
    }
    // The calls answered with rows, including the rows whose comments are the canaries.
    assert!(rows > 100, "{rows}");
}

#[test]
fn the_readings_queries_never_name_the_comment_column() {
    // Belt and braces: neither the store's read queries (where the readings SQL lives) nor the
    // readings tool mention the column in SQL.
    let core = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let mut stack = vec![core.join("store/src/read"), core.join("tools/src/readings")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let source = std::fs::read_to_string(&path).unwrap();
                for line in source.lines().filter(|l| !l.trim_start().starts_with("//")) {
                    let sql_like =
                        line.contains("SELECT") || line.contains("s.") || line.contains("FROM");
                    assert!(
                        !(sql_like && line.contains("comment")),
                        "{}: {line}",
                        path.display()
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 14, "{checked}");
}
