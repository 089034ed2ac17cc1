//! `query_medications` against the seeded demo record: the window semantics of each view, the
//! switch found by `history` and followed by a readings call, the log's default window, the
//! notes every answer carries, `you` with nothing recorded, refusals, notes never returned,
//! and faults told by kind and type. `props`: arbitrary arguments; `today`: the log's default
//! window and the plan's dose slots against a controlled today, in-process and over the CLI.

mod props;
mod today;

use answers_demo::{self as demo, MEDICATION_CANARY, SeedOptions};
use answers_protocol::args::medications::{MedicationView, QUERY_MEDICATIONS};
use answers_protocol::{
    ArgProblem, Assumption, Cell, Domain, Envelope, ErrorClass, ErrorDetail, ErrorKind,
    MedicationsAssumption, NextAction, Status, WindowAssumption, render_compact,
};
use answers_store::{Store, Subject, has_medications};
use answers_tools::medications::query_medications_on;
use answers_tools::query_health_indicators;
use serde_json::{Value, json};

use crate::capture::{all_text, assert_store_fault_kept_secret, logged};
use crate::e2e::subject_argv;
use crate::readings::{column, demo, table, texts};

/// The day the demo record ends on: the "today" these tests ask on.
pub(crate) const DEMO_TODAY: &str = "2026-09-14";

pub(crate) use answers_store::test_support::one_plan;

/// A medications call on [`DEMO_TODAY`]; every answer that is not an error states the
/// subject's zone and the note of its view.
pub(crate) fn ask(store: &Store, who: &Subject, args: &Value) -> Envelope {
    let env = query_medications_on(store, who, args, DEMO_TODAY.parse().unwrap());
    if env.status() != Status::Error {
        assert_eq!(env.meta().tz, who.tz_name(), "{args}");
        let note = if args["view"] == "log" {
            Assumption::Medications(MedicationsAssumption::MissingDoseNotEvidence)
        } else {
            Assumption::Medications(MedicationsAssumption::PlanIsIntent)
        };
        assert!(env.assumptions().contains(&note), "{args}: {note:?}");
    }
    env
}

/// Asserts every next step of `env` is a medications call the validator accepts, with the
/// caller's values (dates, each view, keywords) filled in where it must supply them. Returns how
/// many were checked.
pub(crate) fn assert_steps_accepted(env: &Envelope) -> usize {
    let mut checked = 0;
    for step in env.next_steps() {
        assert_eq!(step.tool, QUERY_MEDICATIONS.tool, "{step:?}");
        // A date supplied alone takes the other bound, so the window stays in order.
        let start = step.args.get("end").cloned().unwrap_or(json!("2026-08-01"));
        let end = step
            .args
            .get("start")
            .cloned()
            .unwrap_or(json!("2026-08-31"));
        for view in MedicationView::VARIANTS {
            let values = [
                ("start", start.clone()),
                ("end", end.clone()),
                ("view", json!(view)),
                ("keywords", json!(["atorvastatin"])),
            ];
            let call = step.apply(values).expect("the step names what it needs");
            if let Err(refusal) = QUERY_MEDICATIONS.validate(&call) {
                panic!("{call} is refused: {}", render_compact(&refusal));
            }
        }
        checked += 1;
    }
    checked
}

/// The refusal's parameter and problem.
fn refusal(env: &Envelope) -> (Option<String>, ArgProblem) {
    assert_eq!(env.status(), Status::Error);
    assert_eq!(env.error_kind(), Some(ErrorKind::InvalidArguments));
    assert_eq!(env.error_class(), Some(ErrorClass::Recoverable));
    match env.error_detail() {
        Some(ErrorDetail::Refusal {
            tool,
            parameter,
            problem,
        }) => {
            assert_eq!(*tool, QUERY_MEDICATIONS.tool);
            (parameter.as_ref().map(|p| p.as_str().to_owned()), *problem)
        }
        other => panic!("not a refusal: {other:?}"),
    }
}

#[test]
fn what_mom_was_taking_in_march_is_a_window_on_the_plan() {
    let d = demo();
    let env = ask(
        &d.store,
        &d.mom,
        &json!({"view": "plan", "start": "2026-03-01", "end": "2026-03-31"}),
    );
    assert_eq!(env.status(), Status::Ok);
    let plans = table(&env, "plans");
    let mut names = texts(plans, "medication");
    names.sort();
    // Not nitrofurantoin (ended 2026-02-13) nor metoprolol (from 2026-05-18).
    assert_eq!(names, ["Atorvastatin", "Hydrochlorothiazide"]);
    assert_eq!(env.meta().window.to_string(), "2026-03-01 to 2026-03-31");
    assert!(
        !env.assumptions()
            .contains(&Assumption::Window(WindowAssumption::WindowAllRecorded))
    );
    let codes = texts(plans, "code");
    assert!(codes.contains(&"83367".to_owned()) && codes.contains(&"5487".to_owned()));
    assert!(texts(plans, "system").iter().all(|s| s == "rxnorm"));

    // A window touching a course's last day finds it; the day after does not.
    let on = ask(
        &d.store,
        &d.mom,
        &json!({"start": "2026-02-13", "end": "2026-02-13"}),
    );
    assert!(texts(table(&on, "plans"), "medication").contains(&"Nitrofurantoin".to_owned()));
    let after = ask(
        &d.store,
        &d.mom,
        &json!({"start": "2026-02-14", "end": "2026-02-14"}),
    );
    assert!(!texts(table(&after, "plans"), "medication").contains(&"Nitrofurantoin".to_owned()));
}

#[test]
fn a_plan_answer_without_a_window_covers_every_plan_and_says_so() {
    let d = demo();
    let env = ask(&d.store, &d.mom, &json!({}));
    let plans = table(&env, "plans");
    assert_eq!(plans.rows().len(), 4);
    assert!(env.meta().window.is_all_recorded());
    assert!(
        env.assumptions()
            .contains(&Assumption::Window(WindowAssumption::WindowAllRecorded))
    );
    // Newest start first.
    assert_eq!(texts(plans, "medication")[0], "Metoprolol tartrate");
    let statuses = texts(plans, "status");
    for s in ["active", "stopped", "completed"] {
        assert!(statuses.contains(&s.to_owned()), "{statuses:?}");
    }
    let text = render_compact(&env);
    assert!(
        text.contains(
            "a plan is what the person intends to take; it is not a record of doses taken"
        ),
        "{text}"
    );
}

#[test]
fn the_switch_is_found_by_history_then_the_readings_after_it_by_date() {
    let d = demo();
    // First call: the history, for the date.
    let history = ask(&d.store, &d.mom, &json!({"view": "history"}));
    let courses = table(&history, "courses");
    let reasons = texts(courses, "closed_reason");
    let ends = texts(courses, "end");
    let starts = texts(courses, "start");
    let stopped = reasons
        .iter()
        .position(|r| r == "side_effect")
        .expect("a course stopped for a side effect");
    assert_eq!(ends[stopped], "2026-05-17");
    assert_eq!(texts(courses, "status")[stopped], "stopped");
    let switch = starts
        .iter()
        .find(|s| s.as_str() > ends[stopped].as_str())
        .expect("a course started after it")
        .clone();
    assert_eq!(switch, "2026-05-18");
    // Oldest start first.
    let mut sorted = starts.clone();
    sorted.sort();
    assert_eq!(starts, sorted);
    assert_eq!(
        column(courses, "closed_reason")[starts.iter().position(|s| *s == switch).unwrap()],
        &Cell::Null
    );

    // Second call: the blood pressure from that date, as the readings tool reads it.
    let after = query_health_indicators(
        &d.store,
        &d.mom,
        &json!({"keywords": ["blood pressure"], "view": "stats", "start": switch}),
    );
    assert_eq!(after.status(), Status::Ok, "{}", render_compact(&after));
    assert_eq!(after.meta().window.start().unwrap().to_string(), switch);
    let readings = table(&after, "readings");
    assert!(!readings.rows().is_empty());
    let firsts = texts(readings, "first_date");
    assert!(
        firsts.iter().all(|f| f.as_str() >= switch.as_str()),
        "{firsts:?}"
    );

    // And it moved: the cuff's systolic mean after the switch is below the one before it.
    let mean = |window: Value| {
        let mut args = json!({"indicators": ["8480-6"], "view": "stats"});
        args.as_object_mut()
            .unwrap()
            .extend(window.as_object().unwrap().clone());
        let env = query_health_indicators(&d.store, &d.mom, &args);
        crate::readings::num(column(table(&env, "readings"), "avg")[0])
    };
    let before = mean(json!({"start": "2025-09-15", "end": ends[stopped]}));
    let after = mean(json!({"start": switch}));
    assert!(after < before - 5.0, "before {before}, after {after}");
}

#[test]
fn the_log_defaults_to_the_30_days_ending_today_and_says_which() {
    let d = demo();
    let env = ask(&d.store, &d.mom, &json!({"view": "log"}));
    assert_eq!(env.status(), Status::Ok);
    // Today is the demo's last day, 2026-09-14.
    assert_eq!(env.meta().window.to_string(), "2026-08-16 to 2026-09-14");
    assert!(env.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::LogDefaultWindow { days: 30 }
    )));
    assert!(
        !env.assumptions()
            .contains(&Assumption::Window(WindowAssumption::WindowAllRecorded))
    );
    let text = render_compact(&env);
    assert!(
        text.contains("a missing dose is not evidence it was not taken"),
        "{text}"
    );
    assert!(
        text.contains("no window was given, so the log covers the last 30 days, ending today"),
        "{text}"
    );

    let doses = table(&env, "doses");
    let days = texts(doses, "day");
    assert!(
        days.iter()
            .all(|d| ("2026-08-16".."2026-09-15").contains(&d.as_str()))
    );
    assert_eq!(
        days.first().map(String::as_str),
        Some("2026-09-14"),
        "newest first"
    );
    let mut names = texts(doses, "medication");
    names.sort();
    names.dedup();
    assert_eq!(names, ["Atorvastatin", "Metoprolol tartrate"]);

    // The counts agree with the rows, and some planned doses have no record: 30 days of
    // metoprolol twice a day and atorvastatin once is 90 planned.
    let per_drug = table(&env, "doses_per_drug");
    let total: i64 = ["taken", "skipped"]
        .iter()
        .flat_map(|c| column(per_drug, c))
        .map(|c| match c {
            Cell::Int(i) => *i,
            other => panic!("{other:?}"),
        })
        .sum();
    assert_eq!(usize::try_from(total).unwrap(), doses.rows().len());
    assert!(doses.rows().len() < 90, "{} doses", doses.rows().len());
    // Times are local (Shanghai): metoprolol at 08:xx and 20:xx.
    let times = texts(doses, "time");
    assert!(
        times
            .iter()
            .all(|t| ["08:", "20:", "21:"].iter().any(|h| t.starts_with(h))),
        "{times:?}"
    );
}

#[test]
fn a_log_window_is_what_was_recorded_in_it_and_a_long_one_is_cut() {
    let d = demo();
    let env = ask(
        &d.store,
        &d.mom,
        &json!({"view": "log", "keywords": ["hydrochlorothiazide"], "start": "2026-05-10", "end": "2026-05-31"}),
    );
    let days = texts(table(&env, "doses"), "day");
    assert!(
        days.iter()
            .all(|d| ("2026-05-10".."2026-05-18").contains(&d.as_str())),
        "{days:?}"
    );
    assert!(!env.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::LogDefaultWindow { days: 30 }
    )));

    let long = ask(
        &d.store,
        &d.mom,
        &json!({"view": "log", "start": "2025-01-01"}),
    );
    assert_eq!(long.status(), Status::Partial);
    assert!(long.meta().truncated);
    assert_eq!(table(&long, "doses").rows().len(), 200);
    assert!(long.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::DoseLogCut { cap: 200 }
    )));
    let counted: usize = column(table(&long, "doses_per_drug"), "taken")
        .into_iter()
        .map(|c| match c {
            Cell::Int(i) => usize::try_from(*i).unwrap(),
            other => panic!("{other:?}"),
        })
        .sum();
    assert!(
        counted > 200,
        "the counts cover the whole window: {counted}"
    );
    assert_eq!(long.next_steps()[0].action, NextAction::NarrowWindow);
    assert_eq!(assert_steps_accepted(&long), 1);
}

#[test]
fn you_take_nothing_and_every_view_says_so() {
    let d = demo();
    assert!(!has_medications(&d.store, &d.you).unwrap());
    assert!(has_medications(&d.store, &d.mom).unwrap());
    for view in ["plan", "log", "history"] {
        let env = ask(&d.store, &d.you, &json!({"view": view}));
        assert_eq!(env.status(), Status::Ok, "{view}");
        assert!(env.data().is_empty(), "{view}");
        assert!(
            env.assumptions().contains(&Assumption::Medications(
                MedicationsAssumption::NoMedicationRecorded
            )),
            "{view}"
        );
        assert!(
            render_compact(&env)
                .contains("no medication is recorded for this person in the window"),
            "{view}"
        );
    }
}

#[test]
fn keywords_find_drugs_by_name_or_code_and_a_miss_says_how_to_list_all() {
    let d = demo();
    let by_name = ask(
        &d.store,
        &d.mom,
        &json!({"view": "history", "keywords": ["METOPROLOL"]}),
    );
    assert_eq!(
        texts(table(&by_name, "courses"), "medication"),
        ["Metoprolol tartrate"]
    );
    let by_code = ask(&d.store, &d.mom, &json!({"keywords": ["rxnorm:83367"]}));
    assert_eq!(
        texts(table(&by_code, "plans"), "medication"),
        ["Atorvastatin"]
    );

    let miss = ask(
        &d.store,
        &d.mom,
        &json!({"view": "plan", "keywords": ["aspirin"]}),
    );
    assert!(miss.data().is_empty());
    assert!(miss.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::NoMedicationMatch
    )));
    assert!(!miss.assumptions().contains(&Assumption::Medications(
        MedicationsAssumption::NoMedicationRecorded
    )));
    assert_eq!(assert_steps_accepted(&miss), 1);
    assert_eq!(
        miss.next_steps()[0].apply([]).unwrap(),
        json!({"view": "plan"})
    );
}

#[test]
fn refusals_name_the_parameter_and_suggest_calls_that_are_accepted() {
    let d = demo();
    let cases = [
        (
            json!({"view": "plan", "kind": "medications"}),
            "kind",
            ArgProblem::UnknownParameter,
        ),
        (json!({"start": "2026-02-30"}), "start", ArgProblem::NotDate),
        (
            json!({"view": "log", "end": "14/09/2026"}),
            "end",
            ArgProblem::NotDate,
        ),
        (
            json!({"view": "doses"}),
            "view",
            ArgProblem::NotOneOf(Domain::MedicationView),
        ),
        (
            json!({"start": "2026-05-01", "end": "2026-04-01"}),
            "end",
            ArgProblem::EndBeforeStart,
        ),
    ];
    for (args, parameter, problem) in cases {
        let env = ask(&d.store, &d.mom, &args);
        assert_eq!(
            refusal(&env),
            (Some(parameter.to_owned()), problem),
            "{args}"
        );
        let text = render_compact(&env);
        assert!(
            text.starts_with(&format!("error (invalid_arguments): {parameter}: ")),
            "{text}"
        );
        assert!(assert_steps_accepted(&env) >= 1, "{args}: no next step");
    }
    let bad_view = render_compact(&ask(&d.store, &d.mom, &json!({"view": "doses"})));
    assert!(
        bad_view.contains("expected one of plan, log, history"),
        "{bad_view}"
    );
    // The readings tool's views are not this tool's, and this tool's are not the readings'.
    let (_, p) = refusal(&ask(&d.store, &d.mom, &json!({"view": "stats"})));
    assert_eq!(p, ArgProblem::NotOneOf(Domain::MedicationView));
    let readings =
        query_health_indicators(&d.store, &d.mom, &json!({"keywords": ["x"], "view": "log"}));
    assert_eq!(readings.error_kind(), Some(ErrorKind::InvalidArguments));
}

#[test]
fn notes_are_never_returned_by_any_view() {
    let d = demo();
    // Precondition: the canary is in the record, on a plan and on a dose.
    let in_notes: (bool, bool) = d
        .raw()
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM medication_plan WHERE instr(note, ?1) > 0),
                    EXISTS (SELECT 1 FROM medication_dose WHERE instr(note, ?1) > 0)",
            [MEDICATION_CANARY],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(in_notes, (true, true));
    let windows = [
        json!({}),
        json!({"start": "2025-01-01"}),
        json!({"start": "2026-05-17", "end": "2026-05-17"}),
        json!({"keywords": ["hydrochlorothiazide"]}),
    ];
    let mut answered = 0;
    for view in ["plan", "log", "history"] {
        for w in &windows {
            let mut args = w.clone();
            args["view"] = json!(view);
            let (env, log) = logged(|| ask(&d.store, &d.mom, &args));
            assert_ne!(env.status(), Status::Error, "{args}");
            answered += env.meta().row_count;
            let text = all_text(&env);
            for secret in [MEDICATION_CANARY, "PHI-CANARY", "dizzy"] {
                assert!(!text.contains(secret), "{args}: {secret}");
                assert!(!log.contains(secret), "{args}: {secret} in the log");
            }
        }
    }
    assert!(answered > 0, "the answers had rows to leak from");
}

#[test]
fn a_broken_store_is_a_fault_told_by_kind_and_type_never_by_message() {
    let d = demo();
    d.raw().execute_batch("DROP TABLE medication_dose").unwrap();
    let (env, log) = logged(|| ask(&d.store, &d.mom, &json!({"view": "log"})));
    let tool =
        assert_store_fault_kept_secret(&env, &log, &["no such table", "medication_dose", "SELECT"]);
    assert_eq!(tool.as_str(), "query_medications");
}

#[test]
fn a_malformed_row_is_a_store_fault_without_its_value() {
    let d = demo();
    d.raw()
        .execute(
            "UPDATE medication_plan SET frequency = 'hourly PHI-MALFORMED' WHERE subject_id = ?1",
            [&d.mom.id],
        )
        .unwrap();
    for view in ["plan", "history", "log"] {
        let env = ask(&d.store, &d.mom, &json!({"view": view}));
        assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault), "{view}");
        assert!(!all_text(&env).contains("PHI-MALFORMED"), "{view}");
    }
}

#[test]
fn the_surface_dispatches_the_tool_by_name() {
    let d = demo();
    let env = answers_tools::registry::call(
        &d.store,
        &d.mom,
        "query_medications",
        &json!({"view": "history"}),
    )
    .expect("the tool is served");
    assert_eq!(table(&env, "courses").rows().len(), 4);
}

#[test]
fn reseeding_writes_the_same_medications() {
    let mut store = crate::raw::FileStore::new();
    let count = |s: &crate::raw::FileStore| -> (i64, i64, i64) {
        s.raw()
            .query_row(
                "SELECT (SELECT COUNT(*) FROM medication_plan), (SELECT COUNT(*) FROM medication_dose),
                        (SELECT COUNT(*) FROM medication_dose WHERE status = 'skipped')",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap()
    };
    demo::seed(&mut store, &SeedOptions::default()).unwrap();
    let first = count(&store);
    demo::seed(&mut store, &SeedOptions::default()).unwrap();
    assert_eq!(count(&store), first);
    assert_eq!(first.0, 4);
    assert!(first.1 > 700 && first.2 > 0, "{first:?}");
}

#[test]
fn the_cli_answers_each_view_without_a_note_in_any_output() {
    let bin = env!("CARGO_BIN_EXE_answers");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("record.db");
    let db = db.to_str().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .env_remove("RUST_LOG")
            .output()
            .unwrap()
    };
    let seeded = run(&["seed", "--db", db, "--demo"]);
    assert!(seeded.status.success());
    let store = Store::open(db.as_ref()).unwrap();
    let mom = store.subject_by_handle("mom").unwrap().unwrap();
    assert!(
        has_medications(&store, &mom).unwrap(),
        "precondition: plans seeded"
    );
    for args in [
        r#"{"view":"plan"}"#,
        r#"{"view":"log"}"#,
        r#"{"view":"history"}"#,
    ] {
        for json in [false, true] {
            let mut argv = subject_argv("query", db, "mom", &["query_medications", args]);
            if json {
                argv.push("--json");
            }
            let out = run(&argv);
            assert!(out.status.success(), "{args}");
            assert!(!out.stdout.is_empty(), "{args}");
            for stream in [&out.stdout, &out.stderr] {
                let text = String::from_utf8_lossy(stream);
                assert!(!text.contains("PHI-CANARY"), "{args}: {text}");
            }
        }
    }
    let refused = run(&subject_argv(
        "query",
        db,
        "mom",
        &["query_medications", r#"{"view":"doses"}"#],
    ));
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stdout)
            .starts_with("error (invalid_arguments): view: expected one of plan, log, history")
    );
}
