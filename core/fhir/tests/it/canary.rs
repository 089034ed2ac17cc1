//! The canary rule: a FHIR `note` is stored like a reading's comment (or a plan's or dose's
//! note) and no tool returns it.

use answers_protocol::{render_compact, render_rest};
use answers_tools::registry;
use serde_json::json;

use crate::fixtures::{self, CANARY, write_bundle};
use crate::support::Record;

#[test]
fn imported_notes_are_stored_and_never_returned_by_any_tool() {
    let mut r = Record::new();
    let path = write_bundle(r.dir.path(), "record.json", &fixtures::record());
    r.import(&path).unwrap();
    // Preconditions: the canary is in the record, as a comment and as medication notes.
    assert!(r.store.comment_contains(CANARY).unwrap());
    let conn = rusqlite::Connection::open(r.db()).unwrap();
    let notes: (i64, i64) = conn
        .query_row(
            "SELECT (SELECT COUNT(*) FROM medication_plan WHERE instr(note, ?1) > 0),
                    (SELECT COUNT(*) FROM medication_dose WHERE instr(note, ?1) > 0)",
            [CANARY],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(notes, (1, 1));
    let calls = [
        ("query_health_indicators", json!({})),
        (
            "query_health_indicators",
            json!({"keywords": ["blood pressure"], "view": "raw"}),
        ),
        (
            "query_health_indicators",
            json!({"keywords": ["headache"], "view": "raw"}),
        ),
        (
            "query_health_indicators",
            json!({"indicators": ["8480-6"], "view": "latest"}),
        ),
        (
            "query_health_indicators",
            json!({"indicators": ["8480-6"], "view": "day"}),
        ),
        ("query_medications", json!({"view": "plan"})),
        (
            "query_medications",
            json!({"view": "log", "start": "2026-01-01"}),
        ),
        ("query_medications", json!({"view": "history"})),
        ("query_genetic_data", json!({"gene": "CYP2D6"})),
        ("query_pharmacogenomics", json!({"drugs": ["metoprolol"]})),
    ];
    let mut rows = 0;
    for (tool, args) in calls {
        let env = registry::call(&r.store, &r.you, tool, &args).expect(tool);
        rows += env.meta().row_count;
        let text = format!(
            "{}\n{}\n{}\n{env:?}",
            render_compact(&env),
            render_rest(&env),
            serde_json::to_string(&env).unwrap()
        );
        assert!(!text.contains(CANARY), "{tool} {args}");
        assert!(!text.contains("PHI-CANARY"), "{tool} {args}");
    }
    assert!(rows >= 6, "the answers had rows to leak from ({rows})");
    // Every record tool was asked.
    for tool in registry::record_tools() {
        assert!(calls_name(tool.as_str()), "{tool} is not asked");
    }
}

fn calls_name(tool: &str) -> bool {
    [
        "query_health_indicators",
        "query_medications",
        "query_genetic_data",
        "query_pharmacogenomics",
    ]
    .contains(&tool)
        || registry::vocab_call(tool, &json!({})).is_some()
}
