//! What the readings tool does as the original does (issue 13: keywords, one unit per series,
//! the bound on a rendered answer, day points on days nothing elected, unmatched indicators),
//! over the command line, `answers query … --json` on one seeded demo record; the whole-record
//! unit check runs in-process.

use std::sync::OnceLock;

use answers_protocol::{Cell, Status, View};
use answers_tools::readings::{RowBudget, query_health_indicators_within};
use answers_tools::terminology::units::{Route, normalize, route};
use answers_vocab::{CodeRef, Vocabulary};
use phi_testkit::{Cmd, Run};
use serde_json::{Value, json};

use super::{ask, demo};
use crate::assert_steps_accepted;
use crate::e2e::{BIN, Record, s, seeded, subject_argv};

/// One demo record for every test here: they only read it.
fn record() -> &'static Record {
    static RECORD: OnceLock<Record> = OnceLock::new();
    RECORD.get_or_init(seeded)
}

fn query(who: &str, args: &Value, json: bool) -> Run {
    let db = s(&record().db);
    let args = args.to_string();
    let mut line = subject_argv("query", db, who, &["query_health_indicators", &args]);
    if json {
        line.push("--json");
    }
    Cmd::new(BIN, &line).run()
}

/// The REST rendering of a call that answers.
fn answer(who: &str, args: &Value) -> Value {
    let run = query(who, args, true);
    run.assert_code(0);
    run.json()
}

/// The rows of the table `name`.
fn rows<'v>(v: &'v Value, name: &str) -> Vec<&'v Value> {
    v["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["name"] == name)
        .flat_map(|t| t["rows"].as_array().into_iter().flatten())
        .collect()
}

fn names<'v>(v: &'v Value, table: &str, column: &str) -> Vec<&'v str> {
    rows(v, table)
        .into_iter()
        .filter_map(|r| r[column].as_str())
        .collect()
}

fn assumption_ids(v: &Value) -> Vec<&str> {
    v["assumptions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["id"].as_str())
        .collect()
}

#[test]
fn keywords_find_every_recorded_name_they_are_part_of() {
    let hr = answer("mom", &json!({"keywords": ["heart rate"]}));
    let listed = names(&hr, "indicators", "indicator");
    assert_eq!(listed, ["Heart rate", "Heart rate --resting"], "{hr}");

    let sleep = answer("mom", &json!({"keywords": ["sleep"]}));
    assert_eq!(names(&sleep, "indicators", "indicator"), ["Sleep duration"]);
    assert_eq!(names(&sleep, "reported", "entry"), ["Sleep disturbance"]);

    // The person's names come first, per keyword, then the vocabulary's codes.
    let both = answer(
        "mom",
        &json!({"keywords": ["resting", "heart rate"], "view": "latest"}),
    );
    let order = names(&both, "readings", "indicator");
    assert_eq!(order, ["Heart rate --resting", "Heart rate"], "{both}");
}

#[test]
fn a_series_answers_in_the_unit_of_its_code() {
    // The lab panel printed mg/dL into the molar codes; it answers in mmol/L.
    let catalogue = answer("mom", &json!({}));
    let row = rows(&catalogue, "indicators")
        .into_iter()
        .find(|r| r["code"] == "14647-2")
        .expect("the cholesterol of the lab panel");
    assert_eq!(row["unit"], "mmol/L", "{row}");
    // 5.30 mmol/L printed as 204.9 mg/dL, back through 386.664 g/mol.
    let latest = row["latest"].as_f64().unwrap();
    assert!((latest - 5.2992).abs() < 1e-3, "{row}");
    assert!(assumption_ids(&catalogue).contains(&"unit_converted"));

    let raw = answer("mom", &json!({"indicators": ["14771-0"], "view": "raw"}));
    let glucose = rows(&raw, "readings");
    assert_eq!(glucose.len(), 1, "{raw}");
    assert_eq!(glucose[0]["unit"], "mmol/L");
    assert!((glucose[0]["value"].as_f64().unwrap() - 5.6).abs() < 0.01);
}

/// Whether `unit` measures what the code's unit does, with no molar mass needed.
fn commensurable(code: &str, unit: &str) -> bool {
    let vocab = Vocabulary::bundled();
    let Some(canonical) = vocab.canonical_unit(&CodeRef::loinc(code)) else {
        return true;
    };
    normalize(vocab, unit).is_some_and(|u| route(&u.ucum, canonical) == Some(Route::Direct))
}

#[test]
fn every_answered_unit_of_the_demo_record_is_commensurable_with_its_code() {
    let d = demo();
    let mut checked = 0;
    let mut codes_seen = std::collections::BTreeSet::new();
    for who in [&d.you, &d.mom] {
        let catalogue = ask(&d.store, who, &json!({}));
        let mut listed = Vec::new();
        for t in catalogue.data() {
            let col = |name: &str| t.columns().iter().position(|c| c == name).unwrap();
            let (name, code, unit) = (0, col("code"), col("unit"));
            for row in t.rows() {
                if let (Cell::Text(c), Cell::Text(u)) = (&row[code], &row[unit]) {
                    assert!(commensurable(c, u), "catalogue: {c} in {u}");
                    checked += 1;
                }
                if let Cell::Text(n) = &row[name] {
                    listed.push(n.clone());
                }
            }
        }
        for view in View::ALL {
            let env = ask(
                &d.store,
                who,
                &json!({"indicators": listed, "view": view.as_str()}),
            );
            assert_ne!(env.status(), Status::Error, "{view}");
            for t in env.data() {
                let col = |name: &str| t.columns().iter().position(|c| c == name);
                let (Some(code), Some(unit)) = (col("code"), col("unit")) else {
                    continue;
                };
                for row in t.rows() {
                    if let (Cell::Text(c), Cell::Text(u)) = (&row[code], &row[unit]) {
                        assert!(commensurable(c, u), "{view}: {c} in {u}");
                        codes_seen.insert(c.clone());
                        checked += 1;
                    }
                }
            }
        }
    }
    // Precondition: the lab panel's molar codes were among the rows checked.
    assert!(checked > 100, "{checked}");
    for molar in ["14647-2", "14771-0"] {
        assert!(
            codes_seen.contains(molar),
            "{molar} not answered: {codes_seen:?}"
        );
    }
}

#[test]
fn a_rendered_answer_is_cut_at_forty_thousand_characters_by_whole_rows() {
    let args = json!({
        "keywords": ["heart rate", "steps", "blood pressure", "sleep", "weight"],
        "view": "day",
    });
    let text = query("mom", &args, false);
    text.assert_code(0);
    let chars = text.stdout.trim_end().chars().count();
    assert!(chars <= 40_000, "{chars} characters");
    assert!(
        text.stdout.contains("status: partial"),
        "{}",
        text.summary()
    );

    let v = answer("mom", &args);
    assert_eq!(v["status"], "partial");
    assert_eq!(v["meta"]["truncated"], true);
    assert!(
        assumption_ids(&v).contains(&"render_cut"),
        "{}",
        v["assumptions"]
    );
    // Every indicator keeps its newest rows: the cut is not the tail of the answer.
    let kept = names(&v, "readings", "indicator");
    for name in ["Heart rate --resting", "Body weight", "Sleep duration"] {
        assert!(kept.contains(&name), "{name} was cut away");
    }
    // Precondition: the cut took rows: mom's resting heart rate alone has a point a day for a
    // year.
    let resting = kept
        .iter()
        .filter(|n| **n == "Heart rate --resting")
        .count();
    assert!((1..365).contains(&resting), "{resting} rows");

    // The steps narrow, and the matrix accepts each.
    let d = demo();
    let env = ask(&d.store, &d.mom, &args);
    let actions: Vec<String> = env
        .next_steps()
        .iter()
        .map(|s| s.action.to_string())
        .collect();
    assert_eq!(actions, ["use_indicators", "narrow_window", "change_view"]);
    assert!(assert_steps_accepted(&env, "cut at its length") >= 3);

    // A browser's list has its own row budget and no bound on a text it does not read.
    let rest = query_health_indicators_within(&d.store, &d.mom, &args, RowBudget::REST);
    assert_eq!(rest.status(), Status::Ok);
    assert!(rest.meta().row_count > env.meta().row_count);
}

#[test]
fn a_day_nothing_elected_takes_its_newest_reading_and_says_so() {
    // Two systolic readings typed in on 2026-09-10, at 07:30 and 21:30.
    let raw = answer(
        "mom",
        &json!({"indicators": ["8480-6"], "view": "raw", "start": "2026-09-10", "end": "2026-09-10"}),
    );
    let typed = rows(&raw, "readings");
    assert_eq!(typed.len(), 2, "{raw}");
    let evening = typed
        .iter()
        .find(|r| r["time"] == "21:30")
        .expect("the evening reading")["value"]
        .clone();
    let morning = typed.iter().find(|r| r["time"] == "07:30").unwrap()["value"].clone();
    assert_ne!(
        evening, morning,
        "precondition: a mean would differ from the newest"
    );

    let day = answer(
        "mom",
        &json!({"indicators": ["8480-6"], "view": "day", "start": "2026-09-10", "end": "2026-09-10"}),
    );
    let point = rows(&day, "readings");
    assert_eq!(point.len(), 1);
    assert_eq!(point[0]["value"], evening, "{day}");
    assert_eq!(point[0]["count"], 2);
    let ids = assumption_ids(&day);
    assert!(ids.contains(&"newest_reading_per_day"), "{ids:?}");
    assert!(!ids.contains(&"elected_source_per_day"), "{ids:?}");

    // A month of elected days and the typed-in day says both, and claims no single source.
    let month = answer(
        "mom",
        &json!({"indicators": ["8480-6"], "view": "day", "start": "2026-08-01", "end": "2026-09-14"}),
    );
    let ids = assumption_ids(&month);
    assert!(ids.contains(&"newest_reading_per_day"), "{ids:?}");
    assert!(ids.contains(&"elected_source_per_day"), "{ids:?}");
    assert_eq!(month["provenance"]["Systolic blood pressure"], "computed");
}

#[test]
fn indicators_that_match_nothing_answer_with_the_catalogue_and_say_so() {
    let v = answer(
        "you",
        &json!({"indicators": ["Unobtainium level"], "view": "day"}),
    );
    assert!(assumption_ids(&v).contains(&"no_indicator_match"), "{v}");
    assert!(v["meta"]["catalog_total"].as_u64().unwrap() > 0, "{v}");
    assert!(names(&v, "indicators", "indicator").contains(&"Body weight"));
    let text = query("you", &json!({"indicators": ["Unobtainium level"]}), false);
    assert!(!text.stdout.contains("no rows"), "{}", text.summary());
}

#[test]
fn names_that_match_nothing_beside_ones_that_do_are_counted_not_dropped() {
    let v = answer(
        "you",
        &json!({"indicators": ["Body weight", "Unobtainium level", "Phlogiston"], "view": "day"}),
    );
    assert!(!assumption_ids(&v).contains(&"no_indicator_match"), "{v}");
    assert!(
        assumption_ids(&v).contains(&"some_indicators_unmatched"),
        "{v}"
    );
    assert!(
        v.to_string()
            .contains("left out of this answer (2 of them)"),
        "{v}"
    );
    let all = answer(
        "you",
        &json!({"indicators": ["Body weight"], "view": "day"}),
    );
    assert!(
        !assumption_ids(&all).contains(&"some_indicators_unmatched"),
        "{all}"
    );
}
