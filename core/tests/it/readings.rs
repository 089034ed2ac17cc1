//! `query_health_indicators` against a real `SQLite` store seeded with the demo record: the
//! catalogue, keywords, refusals and isolation here; the views, faults and privacy in the
//! submodules.

mod faults;
mod fidelity;
mod privacy;
mod views;

use std::path::PathBuf;
use std::sync::OnceLock;

use answers_demo::{self as demo, SeedOptions};
use answers_protocol::{
    ArgProblem, Assumption, Cell, Envelope, NextAction, ReadingsAssumption, Status, Table, View,
    WindowAssumption, WindowSemantics,
};
use answers_store::{Store, Subject};
use answers_tools::query_health_indicators;
use serde_json::{Value, json};

use crate::{assert_refusal, assert_steps_accepted};

/// The demo record in a database file of its own, and its two accounts.
pub(crate) struct Demo {
    pub(crate) store: Store,
    pub(crate) you: Subject,
    pub(crate) mom: Subject,
    pub(crate) path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Demo {
    /// A second connection to the record's file ([`crate::raw`]).
    pub(crate) fn raw(&self) -> rusqlite::Connection {
        crate::raw::raw(&self.path)
    }
}

/// A fresh copy of the demo record, seeded once per test run.
pub(crate) fn demo() -> Demo {
    // Seeded into a file once; closing the store checkpoints its WAL into the file, and a
    // copy keeps the file's 0600.
    static SEEDED: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, seeded) = SEEDED.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seeded.db");
        let mut store = Store::open(&path).unwrap();
        demo::seed(&mut store, &SeedOptions::default()).unwrap();
        drop(store);
        (dir, path)
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("record.db");
    std::fs::copy(seeded, &path).unwrap();
    let store = Store::open(&path).unwrap();
    let you = store.subject_by_handle("you").unwrap().unwrap();
    let mom = store.subject_by_handle("mom").unwrap().unwrap();
    Demo {
        store,
        you,
        mom,
        path,
        _dir: dir,
    }
}

pub(crate) fn ask(store: &Store, who: &Subject, args: &Value) -> Envelope {
    let env = query_health_indicators(store, who, args);
    if env.status() != Status::Error {
        assert!(
            env.assumptions().contains(&Assumption::Readings(
                ReadingsAssumption::AbsenceNotEvidence
            )),
            "{args}: every answer carries the absence note"
        );
        assert_eq!(env.meta().tz, who.tz_name(), "{args}");
    }
    env
}

/// The table called `name`.
pub(crate) fn table<'e>(env: &'e Envelope, name: &str) -> &'e Table {
    env.data()
        .iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| {
            panic!(
                "no table {name} in {}",
                answers_protocol::render_compact(env)
            )
        })
}

/// The cells of column `name`, top to bottom.
pub(crate) fn column<'t>(t: &'t Table, name: &str) -> Vec<&'t Cell> {
    let i = t
        .columns()
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", t.columns()));
    t.rows().iter().map(|r| &r[i]).collect()
}

/// A number cell's value.
pub(crate) fn num(c: &Cell) -> f64 {
    match c {
        // Test values are small integers, exact in an f64.
        Cell::Int(i) => f64::from(i32::try_from(*i).unwrap()),
        Cell::Float(x) => *x,
        other => panic!("not a number: {other:?}"),
    }
}

/// Column `name` as text.
pub(crate) fn texts(t: &Table, name: &str) -> Vec<String> {
    column(t, name)
        .into_iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_catalogue_lists_reported_entries_first_then_readings() {
    let d = demo();
    let env = ask(&d.store, &d.you, &json!({}));
    assert_eq!(env.status(), Status::Ok);
    assert_eq!(env.data()[0].name(), "reported");
    assert_eq!(env.data()[1].name(), "indicators");
    assert!(env.meta().window.is_all_recorded());
    assert_eq!(env.meta().view, None);
    assert!(
        env.assumptions()
            .contains(&Assumption::Window(WindowAssumption::WindowAllRecorded))
    );
    let total = env.meta().catalog_total.unwrap();
    assert_eq!(total, env.meta().row_count);
    // Every series of the record, counted in the database directly.
    let series: i64 = d
        .raw()
        .query_row(
            "SELECT count(*) FROM (SELECT DISTINCT kind, system, code, unit FROM series WHERE subject_id = ?1)",
            [&d.you.id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(total, usize::try_from(series).unwrap());
    let reported = table(&env, "reported");
    assert_eq!(texts(reported, "entry"), ["Headache", "Cough"]);
    assert_eq!(texts(reported, "count"), ["2", "1"]);
    let readings = table(&env, "indicators");
    let names = texts(readings, "indicator");
    assert!(names.contains(&"Body weight".to_owned()), "{names:?}");
    // The legacy body temperature makes the whole record's window approximate.
    assert_eq!(
        env.meta().window_semantics,
        WindowSemantics::DatePaddedNaive
    );
}

#[test]
fn a_windowed_catalogue_counts_only_the_window() {
    let d = demo();
    let all = ask(&d.store, &d.you, &json!({}));
    let env = ask(
        &d.store,
        &d.you,
        &json!({"start": "2026-09-01", "end": "2026-09-14"}),
    );
    assert_eq!(env.meta().window.to_string(), "2026-09-01 to 2026-09-14");
    assert_eq!(env.meta().window_semantics, WindowSemantics::TzExact);
    assert!(
        !env.assumptions()
            .contains(&Assumption::Window(WindowAssumption::WindowAllRecorded))
    );
    assert!(env.meta().catalog_total < all.meta().catalog_total);
    let readings = table(&env, "indicators");
    for (first, last) in column(readings, "first_date")
        .iter()
        .zip(column(readings, "last_date"))
    {
        let (first, last) = (first.to_string(), last.to_string());
        assert!("2026-09-01" <= first.as_str() && first <= last && last.as_str() <= "2026-09-14");
    }
    let names = texts(readings, "indicator");
    assert!(
        !names.iter().any(|n| n.contains("Cholesterol")),
        "{names:?}"
    );
    let steps = names.iter().position(|n| n.contains("steps")).unwrap();
    // 14 days, and on some of them the phone reported steps as well as the watch.
    assert!(num(column(readings, "count")[steps]) > 14.0);
}

#[test]
fn keywords_find_every_series_carrying_the_code_whatever_its_name() {
    let d = demo();
    let env = ask(&d.store, &d.you, &json!({"keywords": ["headache"]}));
    assert_eq!(env.meta().view, None);
    let reported = table(&env, "reported");
    // One entry typed as 头疼, one as "headache": one code, one series.
    assert_eq!(texts(reported, "entry"), ["Headache"]);
    assert_eq!(texts(reported, "count"), ["2"]);
    assert_eq!(env.meta().catalog_total, Some(1));

    let stats = ask(
        &d.store,
        &d.you,
        &json!({"keywords": ["头疼"], "view": "stats"}),
    );
    assert_eq!(stats.meta().view, Some(View::Stats));
    assert_eq!(texts(table(&stats, "reported"), "count"), ["2"]);
    assert!(stats.data().iter().all(|t| t.name() != "readings"));
}

#[test]
fn keywords_that_match_nothing_answer_with_the_catalogue_and_say_so() {
    let d = demo();
    for args in [
        json!({"keywords": ["unobtainium"]}),
        json!({"keywords": ["unobtainium"], "view": "stats"}),
    ] {
        let env = ask(&d.store, &d.you, &args);
        assert_eq!(env.status(), Status::Ok);
        assert!(
            env.assumptions()
                .contains(&Assumption::Readings(ReadingsAssumption::NoKeywordMatch))
        );
        assert_eq!(env.meta().view, None);
        let catalogue = ask(&d.store, &d.you, &json!({}));
        assert_eq!(env.data(), catalogue.data());
    }
}

#[test]
fn a_stringified_array_is_read_as_the_list_it_holds() {
    let d = demo();
    let strict = ask(
        &d.store,
        &d.you,
        &json!({"indicators": ["Body weight", "Heart rate --resting"], "view": "latest"}),
    );
    let lenient = ask(
        &d.store,
        &d.you,
        &json!({"indicators": "[\"Body weight\", \"Heart rate --resting\"]", "view": "latest"}),
    );
    assert_eq!(strict, lenient);
    assert_eq!(table(&strict, "readings").rows().len(), 2);
}

#[test]
fn refusals_come_back_unchanged_with_steps_that_would_be_accepted() {
    let d = demo();
    let cases = [
        (json!({"view": "day"}), ArgProblem::NeedsSelector),
        (
            json!({"kind": "medications", "view": "day"}),
            ArgProblem::UnknownParameter,
        ),
        (
            json!({"indicators": ["Body weight"], "start": "2026-02-30"}),
            ArgProblem::NotDate,
        ),
        (
            json!({"indicators": ["Body weight"], "start": "last week"}),
            ArgProblem::NotDate,
        ),
    ];
    for (args, problem) in cases {
        let env = ask(&d.store, &d.you, &args);
        assert_eq!(assert_refusal(&env), problem, "{args}");
        let validator = answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS
            .validate(&args)
            .unwrap_err();
        assert_eq!(env, validator, "{args}: the validator's refusal, unchanged");
        assert!(assert_steps_accepted(&env, &args.to_string()) > 0, "{args}");
    }
    let refused = ask(&d.store, &d.you, &json!({"view": "day"}));
    assert!(
        refused
            .next_steps()
            .iter()
            .any(|s| s.action == NextAction::CallCatalogue)
    );
}

#[test]
fn indicators_the_record_never_holds_answer_with_no_rows_and_the_catalogue_step() {
    let d = demo();
    // Sleep is recorded for mom only.
    let env = ask(
        &d.store,
        &d.you,
        &json!({"indicators": ["sleepDuration"], "view": "stats"}),
    );
    assert_eq!(env.status(), Status::Ok);
    assert!(env.data().is_empty());
    assert_eq!(env.next_steps()[0].action, NextAction::CallCatalogue);
    assert!(assert_steps_accepted(&env, "never recorded") > 0);
    let mom = ask(
        &d.store,
        &d.mom,
        &json!({"indicators": ["sleepDuration"], "view": "stats"}),
    );
    assert_eq!(texts(table(&mom, "readings"), "count"), ["365"]);
}

#[test]
fn you_and_mom_answer_the_same_question_differently() {
    let d = demo();
    for args in [
        json!({}),
        json!({"indicators": ["dailyRestingHeartRates"], "view": "stats"}),
        json!({"keywords": ["blood pressure"], "view": "month"}),
    ] {
        let you = ask(&d.store, &d.you, &args);
        let mom = ask(&d.store, &d.mom, &args);
        assert_eq!(you.status(), Status::Ok, "{args}");
        assert_eq!(mom.status(), Status::Ok, "{args}");
        assert_ne!(you.data(), mom.data(), "{args}");
        assert_ne!(you.meta().tz, mom.meta().tz);
    }
    // Mom's record has sleep, yours has not; only yours has the legacy temperature.
    let names = |env: &Envelope| texts(table(env, "indicators"), "indicator");
    let you = names(&ask(&d.store, &d.you, &json!({})));
    let mom = names(&ask(&d.store, &d.mom, &json!({})));
    assert!(mom.iter().any(|n| n.contains("Sleep")) && !you.iter().any(|n| n.contains("Sleep")));
    assert!(
        you.contains(&"Body temperature".to_owned())
            && !mom.contains(&"Body temperature".to_owned())
    );
    // Resting heart rate drifts 59 → 56 for you and 71 → 75 for mom.
    let rhr = |who| {
        let env = ask(
            &d.store,
            who,
            &json!({"indicators": ["Heart rate --resting"], "view": "stats"}),
        );
        num(column(table(&env, "readings"), "avg")[0])
    };
    assert!(rhr(&d.you) < 60.0 && rhr(&d.mom) > 70.0);
}
