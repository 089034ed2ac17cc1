//! Every view on a real indicator, and the facts the views must agree on: one day, one number;
//! the stats baseline; an election counted once per day; the window's semantics; the caps.

use answers_protocol::{
    Assumption, Provenance, ReadingsAssumption, Source, Status, View, WindowSemantics,
};
use answers_store::Store;
use serde_json::json;

use super::{ask, column, demo, num, table, texts};
use crate::assert_steps_accepted;

/// Intraday heart rate, every five minutes on three days of `you`'s record.
const HR_DAYS: (&str, &str) = ("2026-09-12", "2026-09-14");

#[test]
fn every_view_answers_for_a_real_indicator() {
    let d = demo();
    let samples: i64 = d
        .raw()
        .query_row(
            "SELECT count(*) FROM series WHERE subject_id = ?1 AND code = '8867-4' AND local_day BETWEEN ?2 AND ?3",
            (&d.you.id, HR_DAYS.0, HR_DAYS.1),
            |r| r.get(0),
        )
        .unwrap();
    assert!(samples > 50, "the record holds intraday heart rate");
    for view in View::ALL {
        let args = json!({"indicators": ["heartRate"], "view": view.as_str(), "start": HR_DAYS.0, "end": HR_DAYS.1});
        let env = ask(&d.store, &d.you, &args);
        assert_eq!(env.meta().view, Some(*view));
        assert_eq!(env.meta().window_semantics, WindowSemantics::TzExact);
        let rows = table(&env, "readings");
        assert!(env.provenance().contains_key("Heart rate"), "{view}");
        let n = rows.rows().len();
        let want = match view {
            View::Raw => 50,
            View::Minute => usize::try_from(samples).unwrap(),
            View::Hour => 72,
            View::Day => 3,
            View::Week => 2, // Saturday and Sunday, then Monday
            View::Month | View::Stats | View::Latest => 1,
        };
        assert_eq!(n, want, "{view}");
        assert_eq!(
            env.status() == Status::Partial,
            *view == View::Raw,
            "{view}"
        );
        if *view == View::Raw {
            assert!(env.assumptions().contains(&Assumption::Readings(
                ReadingsAssumption::Truncated { cap: 50 }
            )));
            assert!(env.assumptions().contains(&Assumption::Readings(
                ReadingsAssumption::CutMeansNewestOnly
            )));
            assert!(assert_steps_accepted(&env, "raw cut") > 0);
            let stamps: Vec<String> = texts(rows, "date")
                .iter()
                .zip(texts(rows, "time"))
                .map(|(d, t)| format!("{d} {t}"))
                .collect();
            assert!(stamps.windows(2).all(|w| w[0] > w[1]), "newest first");
        }
    }
}

#[test]
fn buckets_count_their_readings_in_local_time() {
    let d = demo();
    let hour = ask(
        &d.store,
        &d.you,
        &json!({"indicators": ["8867-4"], "view": "hour", "start": HR_DAYS.0, "end": HR_DAYS.1}),
    );
    let rows = table(&hour, "readings");
    assert!(texts(rows, "count").iter().all(|c| c == "12"));
    // Berlin local hours, newest first: the last hour of the last day leads.
    assert_eq!(texts(rows, "hour")[0], "2026-09-14 23:00");
    assert_eq!(hour.provenance()["Heart rate"], Provenance::Computed);
}

#[test]
fn one_day_one_number_a_day_point_equals_latest_on_that_day() {
    let d = demo();
    // Read from the record: for every elected series, its newest day and a day two sources
    // reported, with the elected value.
    let conn = d.raw();
    let mut stmt = conn
        .prepare(
            "SELECT e.code, e.local_day, e.value FROM day_elected e
              WHERE e.subject_id = ?1
                AND (e.local_day = (SELECT max(local_day) FROM day_elected x
                                     WHERE x.subject_id = e.subject_id AND x.code = e.code)
                  OR (SELECT count(*) FROM day_aggregate a
                       WHERE a.subject_id = e.subject_id AND a.code = e.code
                         AND a.local_day = e.local_day) > 1)",
        )
        .unwrap();
    let cases: Vec<(String, String, f64)> = stmt
        .query_map([&d.you.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(cases.len() > 5, "{cases:?}");
    for (code, day, elected) in cases {
        let window =
            |view: &str| json!({"indicators": [code], "view": view, "start": day, "end": day});
        let day_env = ask(&d.store, &d.you, &window("day"));
        let latest = ask(&d.store, &d.you, &window("latest"));
        let point = column(table(&day_env, "readings"), "value")[0].clone();
        let last = column(table(&latest, "readings"), "value")[0].clone();
        assert_eq!(point, last, "{code} on {day}");
        let point = num(&point);
        assert!(
            (point - elected).abs() < 1e-3,
            "{code} on {day}: {point} vs {elected}"
        );
        assert_eq!(
            texts(table(&latest, "readings"), "date"),
            std::slice::from_ref(&day)
        );
    }
}

#[test]
fn stats_give_a_baseline_before_the_latest() {
    let d = demo();
    for who in [&d.you, &d.mom] {
        let env = ask(
            &d.store,
            who,
            &json!({"keywords": ["weight", "blood pressure", "steps"], "view": "stats"}),
        );
        let rows = table(&env, "readings");
        assert!(rows.rows().len() >= 3);
        for (first, last) in texts(rows, "first_date")
            .iter()
            .zip(texts(rows, "last_date"))
        {
            assert!(first <= &last, "{first} > {last}");
        }
        assert!(env.assumptions().contains(&Assumption::Readings(
            ReadingsAssumption::StatsCountElectedDays
        )));
    }
}

#[test]
fn a_day_a_watch_and_a_phone_both_reported_counts_once() {
    let d = demo();
    let day: String = d
        .raw()
        .query_row(
            "SELECT local_day FROM day_aggregate WHERE subject_id = ?1 AND code = '41950-7'
              GROUP BY local_day HAVING count(*) > 1 ORDER BY local_day DESC LIMIT 1",
            [&d.you.id],
            |r| r.get(0),
        )
        .unwrap();
    let at = |view: &str| {
        ask(
            &d.store,
            &d.you,
            &json!({"indicators": ["41950-7"], "view": view, "start": day, "end": day}),
        )
    };
    assert_eq!(
        table(&at("raw"), "readings").rows().len(),
        2,
        "two sources that day"
    );
    let stats = at("stats");
    assert_eq!(texts(table(&stats, "readings"), "count"), ["1"]);
    let day_point = at("day");
    assert_eq!(texts(table(&day_point, "readings"), "source"), ["watch"]);
    assert_eq!(
        day_point.provenance()["Number of steps in 24 hour Measured"],
        Provenance::Elected(Source::Watch)
    );
}

#[test]
fn a_day_nothing_elected_counts_every_reading() {
    let d = demo();
    // Mom typed a morning and an evening blood pressure on a day no cuff reported.
    let env = ask(
        &d.store,
        &d.mom,
        &json!({"indicators": ["收缩压"], "view": "stats", "start": "2026-09-10", "end": "2026-09-10"}),
    );
    assert_eq!(texts(table(&env, "readings"), "count"), ["2"]);
    let day = ask(
        &d.store,
        &d.mom,
        &json!({"indicators": ["8480-6"], "view": "day", "start": "2026-09-10", "end": "2026-09-10"}),
    );
    let rows = table(&day, "readings");
    assert_eq!(texts(rows, "count"), ["2"]);
    assert_eq!(texts(rows, "source"), ["manual"]);
}

#[test]
fn the_legacy_row_is_found_by_padding_and_says_so() {
    let d = demo();
    let (code, utc): (String, String) = d
        .raw()
        .query_row(
            "SELECT code, start_utc FROM series WHERE subject_id = ?1 AND local_day IS NULL",
            [&d.you.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let naive = &utc[..10];
    // A window ending the day before the row's date still finds it, a day either side.
    let before = jiff::civil::Date::strptime("%Y-%m-%d", naive)
        .unwrap()
        .yesterday()
        .unwrap()
        .to_string();
    for (start, end) in [
        (naive.to_owned(), naive.to_owned()),
        (before.clone(), before),
    ] {
        let env = ask(
            &d.store,
            &d.you,
            &json!({"indicators": [code], "view": "raw", "start": start, "end": end}),
        );
        assert_eq!(
            env.meta().window_semantics,
            WindowSemantics::DatePaddedNaive,
            "{start}"
        );
        assert!(
            env.assumptions()
                .contains(&Assumption::Readings(ReadingsAssumption::WindowDatePadded))
        );
        assert_eq!(table(&env, "readings").rows().len(), 1);
    }
    let far = ask(
        &d.store,
        &d.you,
        &json!({"indicators": [code], "view": "raw", "start": "2026-01-01"}),
    );
    assert_eq!(far.meta().window_semantics, WindowSemantics::TzExact);
    assert!(far.data().is_empty());
}

/// One subject in UTC with a reading every minute from `from` for `minutes` minutes.
fn minutes(from: &str, minutes: i64, tz: &str) -> (Store, answers_store::Subject) {
    let mut store = Store::open_in_memory().unwrap();
    let s = store.upsert_subject("subj-m", "m", tz).unwrap();
    let start: jiff::Timestamp = from.parse().unwrap();
    let rows: Vec<_> = (0..minutes)
        .map(|i| {
            answers_store::NewReading::measured(
                "subj-m",
                "heartRate",
                answers_vocab::CodeRef::loinc("8867-4"),
                60.0 + f64::from(u8::try_from(i % 7).unwrap()),
                "/min",
                start + jiff::SignedDuration::from_mins(i),
                Source::Watch,
            )
        })
        .collect();
    store.upsert_readings(&rows).unwrap();
    (store, s)
}

#[test]
fn minute_buckets_are_cut_at_the_cap_newest_first() {
    let (store, s) = minutes("2026-03-01T00:00:00Z", 1500, "UTC");
    let env = ask(
        &store,
        &s,
        &json!({"indicators": ["8867-4"], "view": "minute"}),
    );
    assert_eq!(env.status(), Status::Partial);
    let rows = table(&env, "readings");
    assert_eq!(rows.rows().len(), 1440);
    let labels = texts(rows, "minute");
    assert_eq!(labels[0], "2026-03-02 00:59");
    assert_eq!(labels[1439], "2026-03-01 01:00");
    assert!(
        env.assumptions()
            .contains(&Assumption::Readings(ReadingsAssumption::Truncated {
                cap: 1440
            }))
    );
    assert!(assert_steps_accepted(&env, "minute cut") > 0);
}

#[test]
fn hours_are_local_across_a_clock_change() {
    // Berlin falls back at 01:00 UTC on 2025-10-26: local 02:00–03:00 happens twice.
    let (store, s) = minutes("2025-10-25T23:00:00Z", 240, "Europe/Berlin");
    let env = ask(
        &store,
        &s,
        &json!({"indicators": ["8867-4"], "view": "hour", "start": "2025-10-26", "end": "2025-10-26"}),
    );
    let rows = table(&env, "readings");
    assert_eq!(
        texts(rows, "hour"),
        ["2025-10-26 03:00", "2025-10-26 02:00", "2025-10-26 01:00"]
    );
    assert_eq!(texts(rows, "count"), ["60", "120", "60"]);
}
