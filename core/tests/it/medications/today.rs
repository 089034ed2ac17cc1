//! The medications tool against a controlled today: the log's default window is the 30 days
//! ending today (an empty one says so and suggests a wider window the matrix accepts), and a
//! plan answer carries today's dose slots. Over the CLI with `ANSWERS_TODAY`, and in-process
//! with `query_medications_on` on a hand-built record.

use answers_protocol::args::medications::QUERY_MEDICATIONS;
use answers_protocol::{Assumption, MedicationsAssumption, NextAction, Status};
use answers_store::{ClosedReason, Frequency, NewDose, NewPlan, PlanStatus, Route, Store};
use answers_tools::medications::{TODAY_ENV, query_medications_on};
use phi_testkit::{Cmd, Run};
use serde_json::{Value, json};

use super::{assert_steps_accepted, one_plan};
use crate::e2e::{BIN, s, seeded, subject_argv};
use crate::readings::{table, texts};

/// `answers query … query_medications ARGS --json` for `mom`, with today set to `today`.
fn query(db: &std::path::Path, today: &str, args: &Value) -> Run {
    Cmd::new(
        BIN,
        &subject_argv(
            "query",
            s(db),
            "mom",
            &["query_medications", &args.to_string(), "--json"],
        ),
    )
    .env(TODAY_ENV, today)
    .run()
}

/// The rows of the answer's table `name`, as JSON objects.
fn rows<'a>(answer: &'a Value, name: &str) -> Vec<&'a Value> {
    answer["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == name)
        .flat_map(|t| t["rows"].as_array().unwrap())
        .collect()
}

fn assumption_ids(answer: &Value) -> Vec<&str> {
    answer["assumptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect()
}

#[test]
fn the_cli_log_defaults_to_the_30_days_ending_today_not_the_last_dose() {
    let r = seeded();
    // The demo's log runs to 2026-09-14; ten days before that, the window ends on today.
    let run = query(&r.db, "2026-09-04", &json!({"view": "log"}));
    run.assert_code(0);
    let answer = run.json();
    assert_eq!(answer["meta"]["window"]["text"], "2026-08-06 to 2026-09-04");
    let doses = rows(&answer, "doses");
    assert!(!doses.is_empty());
    assert!(
        doses
            .iter()
            .all(|d| ("2026-08-06".."2026-09-05").contains(&d["day"].as_str().unwrap())),
        "{doses:?}"
    );
    assert_eq!(doses[0]["day"], "2026-09-04", "newest first, ending today");
    assert!(assumption_ids(&answer).contains(&"log_default_window"));
    assert!(!assumption_ids(&answer).contains(&"log_default_window_empty"));
}

#[test]
fn the_cli_log_says_an_empty_default_window_is_empty_and_how_to_widen_it() {
    let r = seeded();
    // Today is 2026-12-01, eleven weeks after the last dose.
    let run = query(&r.db, "2026-12-01", &json!({"view": "log"}));
    run.assert_code(0);
    let answer = run.json();
    assert_eq!(answer["meta"]["window"]["text"], "2026-11-02 to 2026-12-01");
    assert!(answer["data"].as_array().unwrap().is_empty());
    let ids = assumption_ids(&answer);
    for id in [
        "log_default_window",
        "log_default_window_empty",
        "no_medication_recorded",
        "missing_dose_not_evidence",
    ] {
        assert!(ids.contains(&id), "{id}: {ids:?}");
    }
    assert!(
        run.stdout
            .contains("no dose is recorded in the last 30 days; the log has older doses"),
        "{run}"
    );
    // One next step: the same 30 days, ending on the last recorded dose.
    let steps = answer["next_steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{steps:?}");
    assert_eq!(steps[0]["action"], "widen_window");
    let wider = &steps[0]["args"];
    assert_eq!(
        *wider,
        json!({"view": "log", "start": "2026-08-16", "end": "2026-09-14"})
    );
    assert!(QUERY_MEDICATIONS.validate(wider).is_ok());
    // Taking it answers with doses.
    let taken = query(&r.db, "2026-12-01", wider);
    taken.assert_code(0);
    let answer = taken.json();
    assert!(!rows(&answer, "doses").is_empty());
    assert!(!assumption_ids(&answer).contains(&"log_default_window_empty"));
}

#[test]
fn a_today_that_is_not_a_date_is_refused_before_any_answer() {
    let r = seeded();
    query(&r.db, "yesterday", &json!({"view": "log"})).assert_err(2, &["ANSWERS_TODAY"]);
}

#[test]
fn the_cli_plan_carries_todays_slots_from_the_dose_log() {
    let r = seeded();
    let today = "2026-09-10";
    let run = query(&r.db, today, &json!({}));
    run.assert_code(0);
    let answer = run.json();
    let ids = assumption_ids(&answer);
    assert!(
        ids.contains(&"plan_is_intent") && ids.contains(&"dose_slots_today"),
        "{ids:?}"
    );
    let slots = rows(&answer, "today");
    // Metoprolol twice a day, atorvastatin once; the stopped and completed courses have none.
    let per_drug = |name: &str| slots.iter().filter(|s| s["medication"] == name).count();
    assert_eq!(per_drug("Metoprolol tartrate"), 2, "{slots:?}");
    assert_eq!(per_drug("Atorvastatin"), 1, "{slots:?}");
    assert_eq!(slots.len(), 3);
    assert!(slots.iter().all(|s| s["day"] == today));

    // Each slot agrees with the day's log: taken and skipped doses fill slots, the rest are due.
    let log = query(
        &r.db,
        today,
        &json!({"view": "log", "start": today, "end": today}),
    )
    .json();
    for drug in ["Metoprolol tartrate", "Atorvastatin"] {
        let count = |state: &str| {
            slots
                .iter()
                .filter(|s| s["medication"] == drug && s["state"] == state)
                .count()
        };
        let logged = rows(&log, "doses_per_drug")
            .into_iter()
            .find(|d| d["medication"] == drug);
        let (taken, skipped) = logged.map_or((0, 0), |d| {
            (d["taken"].as_u64().unwrap(), d["skipped"].as_u64().unwrap())
        });
        assert_eq!(count("taken") as u64, taken, "{drug}");
        assert_eq!(count("missed") as u64, skipped, "{drug}");
        let planned = if drug == "Atorvastatin" { 1 } else { 2 };
        assert_eq!(count("due") as u64, planned - taken - skipped, "{drug}");
    }
    assert!(
        slots
            .iter()
            .any(|s| s["state"] == "taken" && s["time"].is_string()),
        "some slot was taken, with its time: {slots:?}"
    );

    // A window that does not hold today has no slots; the note stays.
    let march = query(
        &r.db,
        today,
        &json!({"start": "2026-03-01", "end": "2026-03-31"}),
    )
    .json();
    assert!(rows(&march, "today").is_empty());
    assert!(!assumption_ids(&march).contains(&"dose_slots_today"));
    assert!(assumption_ids(&march).contains(&"plan_is_intent"));
}

#[test]
fn slots_are_taken_missed_or_due_per_plan_schedule() {
    let mut store = Store::open_in_memory().unwrap();
    let who = store.upsert_subject("s1", "you", "Europe/Berlin").unwrap();
    let day = |d: &str| d.parse().unwrap();
    let twice = NewPlan::active(
        "p-twice",
        "s1",
        "Metformin",
        Frequency::TwiceDaily,
        Route::Oral,
        day("2026-03-01"),
    );
    let once = NewPlan::active(
        "p-once",
        "s1",
        "Lisinopril",
        Frequency::OnceDaily,
        Route::Oral,
        day("2026-03-01"),
    );
    let weekly = NewPlan::active(
        "p-weekly",
        "s1",
        "Alendronate",
        Frequency::Weekly,
        Route::Oral,
        day("2026-03-03"),
    );
    let stopped = NewPlan::active(
        "p-old",
        "s1",
        "Atenolol",
        Frequency::OnceDaily,
        Route::Oral,
        day("2026-01-01"),
    )
    .closed(
        PlanStatus::Stopped,
        day("2026-03-05"),
        ClosedReason::Replaced,
    );
    store.upsert_plans(&[twice, once, weekly, stopped]).unwrap();
    store
        .upsert_doses(&[
            // 08:10 and 20:05 in Berlin on 2026-03-10; one the day before.
            NewDose::taken("p-twice", "s1", "2026-03-10T07:10:00Z".parse().unwrap()),
            NewDose::skipped("p-twice", "s1", "2026-03-10T19:05:00Z".parse().unwrap()),
            NewDose::taken("p-once", "s1", "2026-03-09T07:00:00Z".parse().unwrap()),
        ])
        .unwrap();
    let env = query_medications_on(&store, &who, &json!({"view": "plan"}), day("2026-03-10"));
    assert_eq!(env.status(), Status::Ok);
    assert!(env.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::PlanIsIntent
    )));
    assert!(env.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::DoseSlotsToday
    )));
    let today = table(&env, "today");
    // The weekly plan falls on 2026-03-10, a week after its start; the stopped one has none.
    assert_eq!(
        texts(today, "medication"),
        ["Alendronate", "Lisinopril", "Metformin", "Metformin"]
    );
    assert_eq!(texts(today, "slot"), ["1", "1", "1", "2"]);
    assert_eq!(texts(today, "state"), ["due", "due", "taken", "missed"]);
    assert_eq!(texts(today, "time"), ["", "", "08:10", "20:05"]);
    // Keywords narrow, and the day after, the weekly plan plans nothing.
    let env = query_medications_on(
        &store,
        &who,
        &json!({"keywords": ["alendronate"]}),
        day("2026-03-10"),
    );
    assert_eq!(texts(table(&env, "today"), "state"), ["due"]);
    let env = query_medications_on(
        &store,
        &who,
        &json!({"keywords": ["alendronate"]}),
        day("2026-03-11"),
    );
    assert!(env.data().iter().all(|t| t.name() != "today"));
    assert!(!env.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::DoseSlotsToday
    )));
}

#[test]
fn an_empty_default_log_of_a_record_without_doses_suggests_nothing_to_widen() {
    let (store, who) = one_plan("UTC", "2026-01-01");
    let env = query_medications_on(
        &store,
        &who,
        &json!({"view": "log"}),
        "2026-03-10".parse().unwrap(),
    );
    assert!(env.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::NoMedicationRecorded
    )));
    assert!(!env.assumptions().iter().any(|a| matches!(
        a,
        Assumption::Medications(MedicationsAssumption::LogDefaultWindowEmpty { .. })
    )));
    assert!(
        env.next_steps()
            .iter()
            .all(|s| s.action != NextAction::WidenWindow)
    );
    assert_eq!(assert_steps_accepted(&env), env.next_steps().len());
}
