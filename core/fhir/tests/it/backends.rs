//! The import on both backends (an in-memory `SQLite` store, then a fresh `PostgreSQL`
//! database, through the store's `each_backend`): the same summary, the same answers, a
//! re-import that changes no answer, a refusal that writes nothing, and a dose resolved
//! against an earlier import's plan.

use std::path::Path;

use answers_fhir::{Format, ImportError, Limits, Rule, Summary, import_file};
use answers_protocol::render_rest;
use answers_store::test_support::each_backend;
use answers_store::{Store, Subject, has_medications};
use answers_tools::{query_health_indicators, query_medications};
use serde_json::json;

use crate::fixtures::{self, write_bundle, write_ndjson};

/// Runs `body` on each backend with the subject `you` and a directory for its files.
fn on_each_backend(mut body: impl FnMut(&mut Store, &Subject, &Path)) {
    let mut runs = 0;
    each_backend(|mut store| {
        let dir = tempfile::tempdir().unwrap();
        let you = store
            .upsert_subject("subj-you-1", "you", "Europe/Berlin")
            .unwrap();
        body(&mut store, &you, dir.path());
        runs += 1;
    });
    assert!(runs >= 1);
}

fn import(store: &mut Store, you: &Subject, path: &Path) -> Result<Summary, ImportError> {
    import_file(store, you, path, Format::of_path(path), Limits::default())
}

/// What the tools answer about the whole record: every reading and entry, the plans, the
/// doses.
fn answers(store: &Store, you: &Subject) -> Vec<String> {
    let calls = [
        query_health_indicators(
            store,
            you,
            &json!({"keywords": ["heart rate", "blood pressure", "body weight", "glucose",
                                 "headache", "cough"],
                    "view": "raw", "start": "2026-01-01", "end": "2026-12-31"}),
        ),
        query_medications(store, you, &json!({"view": "history"})),
        query_medications(
            store,
            you,
            &json!({"view": "log", "start": "2026-01-01", "end": "2026-12-31"}),
        ),
    ];
    calls
        .iter()
        .map(|env| serde_json::to_string(&render_rest(env)).unwrap())
        .collect()
}

#[test]
fn the_record_imports_with_the_same_answers_on_both_backends_and_again_unchanged() {
    let mut seen: Vec<(Summary, Vec<String>)> = Vec::new();
    on_each_backend(|store, you, dir| {
        let path = write_ndjson(dir, "record.ndjson", &fixtures::record());
        let first = import(store, you, &path).unwrap();
        assert_eq!((first.readings, first.journal), (5, 2), "{first}");
        assert_eq!((first.plans, first.doses), (2, 1), "{first}");
        let answered = answers(store, you);
        for want in [
            "8867-4",
            "N01",
            "Metoprolol tartrate",
            "course_completed",
            "taken",
        ] {
            assert!(
                answered.iter().any(|a| a.contains(want)),
                "{want}: {answered:?}"
            );
        }
        assert!(
            !answered.iter().any(|a| a.contains("PHI-CANARY")),
            "{answered:?}"
        );
        let again = import(store, you, &path).unwrap();
        assert_eq!(again, first);
        assert_eq!(answers(store, you), answered);
        seen.push((first, answered));
    });
    if let [sqlite, postgres] = &seen[..] {
        assert_eq!(sqlite, postgres, "the backends answer differently");
    }
}

#[test]
fn a_refused_import_writes_nothing_on_either_backend() {
    on_each_backend(|store, you, dir| {
        let mut record = fixtures::record();
        let mut bad = fixtures::heart_rate("hr-bad", "2026-04-01T07:00:00Z", 61.0);
        bad["effectiveDateTime"] = json!("2026-04-01T07:00");
        record.push(bad);
        let path = write_bundle(dir, "bad.json", &record);
        let err = import(store, you, &path).unwrap_err();
        assert_eq!(
            err.rule(),
            Some(Rule::DateTime {
                field: "effectiveDateTime"
            }),
            "{err}"
        );
        assert!(!store.has_entries(&you.id).unwrap());
        assert!(!has_medications(store, you).unwrap());
    });
}

#[test]
fn a_dose_resolves_against_an_earlier_import_on_both_backends() {
    on_each_backend(|store, you, dir| {
        let plans = write_bundle(
            dir,
            "plans.json",
            &[fixtures::patient(), fixtures::metoprolol_request()],
        );
        let doses = write_ndjson(
            dir,
            "doses.ndjson",
            &[
                fixtures::patient(),
                fixtures::metoprolol_dose("2026-03-01T06:45:00Z"),
            ],
        );
        let err = import(store, you, &doses).unwrap_err();
        assert_eq!(err.rule(), Some(Rule::UnknownPlan), "{err}");
        import(store, you, &plans).unwrap();
        let s = import(store, you, &doses).unwrap();
        assert_eq!(s.doses, 1, "{s}");
        let log = &answers(store, you)[2];
        assert!(log.contains("taken"), "{log}");
    });
}

#[test]
fn a_new_subject_never_takes_an_existing_ones_id_or_handle() {
    on_each_backend(|store, you, dir| {
        let plans = write_bundle(
            dir,
            "plans.json",
            &[fixtures::patient(), fixtures::metoprolol_request()],
        );
        for (id, handle) in [("subj-you-1", "other"), ("subj-other", "you")] {
            let err = answers_fhir::import_new_subject(
                store,
                id,
                handle,
                "UTC",
                &plans,
                Format::Bundle,
                Limits::default(),
            )
            .unwrap_err();
            assert!(matches!(err, ImportError::SubjectExists), "{err}");
        }
        assert_eq!(store.subject_by_handle("you").unwrap().as_ref(), Some(you));
        assert_eq!(store.subject_by_handle("other").unwrap(), None);
        assert!(!has_medications(store, you).unwrap());
    });
}
