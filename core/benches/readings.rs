//! The readings tool on a large record, against the hand-written SQL that computes the same
//! numbers, in one run.
//!
//! The record: five years (2021-09-15 to 2026-09-14) of heart rate every minute from a watch
//! (about 2.6 M rows, with its day authority as the write side publishes it), a day in thirty
//! without the watch but with three readings typed in, plus daily resting heart rate and steps
//! (watch and phone), weekly weight and blood pressure, written through `upsert_readings`.
//! Every view is timed over the last year and over the whole record, as the tool (validation,
//! queries, envelope) and as one SQL statement; each figure is the median of several runs.
//!
//! The catalogue is timed as the tool (from the store's per-day summary) and as the scan of the
//! window's rows that computes the same series, the way the tool read it before the summary.
//!
//! The hand-written statements run on a second connection to the record's file, with the same
//! query planner setting as the store's (the store hands out no connection).
//!
//! With `PHI_POSTGRES_URL` set (`ci/pg-cluster start target/pg`), the same record is loaded
//! once into a database of that cluster named for the bench (`COPY` from the `SQLite` file,
//! kept while its row counts match), every answer is checked to be the same byte for byte on
//! both backends, and each figure is taken on `PostgreSQL` too, against the statements in its
//! dialect (`readings/pg.rs`).
//!
//! `cargo bench -p answers --bench readings` (add `-- --runs N` for more runs, `--view V` for
//! one view or `--view catalogue`; the record is generated once into `target/tmp` and reused).

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use answers_protocol::{AssumptionId, Source, View};
use answers_store::{NewReading, Store, Subject};
use answers_tools::query_health_indicators;
use answers_tools::readings::{BUCKET_CAP, ROW_CAP};
use answers_vocab::CodeRef;
use jiff::SignedDuration;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use rusqlite::{Connection, named_params};
use serde_json::json;

#[path = "readings/pg.rs"]
mod pg;
#[path = "readings/sql.rs"]
mod sql;

const TZ: &str = "Europe/Berlin";
const FIRST: Date = Date::constant(2021, 9, 15);
const LAST: Date = Date::constant(2026, 9, 14);
const HR: &str = "8867-4";
/// The generator's version: a stored record from another version is regenerated.
const VERSION: i64 = 2;

fn main() {
    let flag = |name: &str| std::env::args().skip_while(|a| a != name).nth(1);
    let runs: usize = flag("--runs").and_then(|n| n.parse().ok()).unwrap_or(7);
    let only = flag("--view");
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("readings-bench-v{VERSION}.db"));
    if !path.exists() {
        let started = Instant::now();
        generate(&path);
        eprintln!("generated {} in {:.1?}", path.display(), started.elapsed());
    }
    // The store turns on the query planner stability guarantee when it opens; the
    // hand-written statements run with the same setting.
    let conn = raw(&path);
    let mut backends = vec![(
        "SQLite",
        Store::open(&path).expect("open the bench record"),
        Hand::Sqlite(raw(&path)),
    )];
    match std::env::var("PHI_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => {
            let (store, client) = pg::open(&url, VERSION, &conn);
            backends.push((
                "PostgreSQL",
                store,
                Hand::Pg(Box::new(client), HashMap::new()),
            ));
        }
        _ => eprintln!(
            "PHI_POSTGRES_URL is not set: PostgreSQL is skipped, SQLite only \
             (ci/pg-cluster start target/pg prints a URL)"
        ),
    }
    let subject = backends[0]
        .1
        .subject_by_handle("bench")
        .expect("read the subject")
        .expect("the bench subject");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM series WHERE code = ?1", [HR], |r| {
            r.get(0)
        })
        .expect("count");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "{}; heart-rate rows: {rows}; runs per figure: {runs}; load average at the start: {}\n",
        jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M UTC"),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let year_start = LAST
        .checked_sub(jiff::Span::new().days(364))
        .expect("in range");
    let windows = [
        ("1 year", Some((year_start.to_string(), LAST.to_string()))),
        ("5 years (all)", None),
    ];
    let mut calls: Vec<(String, &str, serde_json::Value)> = Vec::new();
    for view in View::ALL.iter().filter(|v| wanted(v.as_str())) {
        for (label, window) in &windows {
            calls.push((
                view.as_str().to_owned(),
                label,
                view_args(*view, window.as_ref()),
            ));
        }
    }
    for (label, window) in windows.iter().filter(|_| wanted("catalogue")) {
        let args = window
            .as_ref()
            .map_or(json!({}), |(s, e)| json!({"start": s, "end": e}));
        calls.push(("catalogue".to_owned(), label, args));
    }
    // The same answers on every backend, byte for byte.
    for (what, label, args) in &calls {
        let answers: Vec<String> = backends
            .iter()
            .map(|(_, store, _)| {
                answers_protocol::render_compact(&query_health_indicators(store, &subject, args))
            })
            .collect();
        assert!(
            answers.windows(2).all(|w| w[0] == w[1]),
            "{what}, {label}: the backends answer differently"
        );
    }
    println!("| backend | view | window | tool | hand-written SQL | tool / SQL |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (backend, store, hand) in &mut backends {
        for view in View::ALL.iter().filter(|v| wanted(v.as_str())) {
            for (label, window) in &windows {
                let args = view_args(*view, window.as_ref());
                let tool = median(runs, || {
                    let env = query_health_indicators(store, &subject, &args);
                    assert!(
                        env.error_kind().is_none(),
                        "{}",
                        answers_protocol::render_compact(&env)
                    );
                    let cut = env
                        .assumptions()
                        .iter()
                        .any(|a| a.id() == AssumptionId::RenderCut);
                    (env.meta().row_count, cut)
                });
                let statement = hand.statement(*view);
                let bounds = sql::Bounds::of(window.as_ref());
                let figure = median(runs, || hand.run(&statement, &subject, &bounds));
                check(*view, tool.1, figure.1);
                println!(
                    "| {backend} | `{view}` | {label} | {} | {} | {:.2}× |",
                    ms(tool.0),
                    ms(figure.0),
                    tool.0.as_secs_f64() / figure.0.as_secs_f64()
                );
                if *view == View::Raw {
                    // For reference: the same rows with their stored UTC time, not local time.
                    let bare = hand.raw_utc();
                    let bare = median(runs, || hand.run(bare, &subject, &bounds));
                    println!(
                        "| {backend} | `raw`, SQL without local time | {label} | {} | {} | {:.2}× |",
                        ms(tool.0),
                        ms(bare.0),
                        tool.0.as_secs_f64() / bare.0.as_secs_f64()
                    );
                }
            }
        }
        for (label, window) in windows.iter().filter(|_| wanted("catalogue")) {
            let args = window
                .as_ref()
                .map_or(json!({}), |(s, e)| json!({"start": s, "end": e}));
            let t = median(runs, || {
                query_health_indicators(store, &subject, &args)
                    .meta()
                    .catalog_total
            });
            let bounds = sql::Bounds::of(window.as_ref());
            let scan = median(runs, || hand.catalogue(&subject, &bounds));
            assert_eq!(
                t.1,
                Some(scan.1),
                "catalogue: the tool and the scan disagree on the series"
            );
            println!(
                "| {backend} | catalogue (summary; scan of the rows) | {label} | {} | {} | {:.3}× |",
                ms(t.0),
                ms(scan.0),
                t.0.as_secs_f64() / scan.0.as_secs_f64()
            );
        }
    }
}

/// The second connection that runs the hand-written statements, on one backend.
enum Hand {
    Sqlite(Connection),
    Pg(Box<postgres::Client>, HashMap<String, postgres::Statement>),
}

impl Hand {
    fn statement(&self, view: View) -> String {
        match self {
            Hand::Sqlite(_) => sql::statement(view, &zone_offsets()),
            Hand::Pg(..) => pg::statement(view, TZ),
        }
    }

    fn raw_utc(&self) -> &'static str {
        match self {
            Hand::Sqlite(_) => sql::RAW_UTC,
            Hand::Pg(..) => pg::RAW_UTC,
        }
    }

    fn run(&mut self, statement: &str, subject: &Subject, b: &sql::Bounds) -> usize {
        match self {
            Hand::Sqlite(conn) => run_sql(conn, statement, subject, b),
            Hand::Pg(client, prepared) => pg::run(client, prepared, statement, &subject.id, HR, b),
        }
    }

    fn catalogue(&mut self, subject: &Subject, b: &sql::Bounds) -> usize {
        match self {
            Hand::Sqlite(conn) => run_catalogue_scan(conn, subject, b),
            Hand::Pg(client, prepared) => {
                pg::run(client, prepared, pg::CATALOGUE_SCAN, &subject.id, HR, b)
            }
        }
    }
}

/// A second connection to the bench record, planned as the store plans.
fn raw(path: &Path) -> Connection {
    let conn = Connection::open(path).expect("open the bench record");
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .expect("query planner stability guarantee");
    conn
}

/// Runs the catalogue's scan and counts the series it returns.
fn run_catalogue_scan(conn: &Connection, subject: &Subject, b: &sql::Bounds) -> usize {
    let mut stmt = conn.prepare_cached(sql::CATALOGUE_SCAN).expect("prepare");
    let mut rows = stmt
        .query(named_params! {
            ":subject": subject.id, ":day_lo": b.day_lo, ":day_hi": b.day_hi,
            ":utc_lo": b.utc_lo, ":utc_hi": b.utc_hi,
        })
        .expect("query");
    let mut n = 0;
    while let Some(row) = rows.next().expect("row") {
        for i in 0..8 {
            std::hint::black_box(row.get_ref(i).expect("cell"));
        }
        n += 1;
    }
    n
}

/// The median time of `runs` calls after one warm-up, and what the call returned.
/// The median time of a call over `runs` samples, after one warm-up, and what the call
/// returned. A sample of a call under 20 ms is the mean of a batch that fills 20 ms, so a
/// figure of a few microseconds is not the timer's noise.
fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let t = Instant::now();
    let mut out = f();
    let once = t.elapsed();
    let batch = u32::try_from(Duration::from_millis(20).as_nanos() / once.as_nanos().max(1))
        .unwrap_or(u32::MAX)
        .clamp(1, 10_000);
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                out = std::hint::black_box(f());
            }
            t.elapsed() / batch
        })
        .collect();
    times.sort();
    (times[times.len() / 2], out)
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 1.0 {
        format!("{:.1} µs", ms * 1e3)
    } else {
        format!("{ms:.1} ms")
    }
}

/// Runs a hand-written statement and counts the rows it returns (every column read).
fn run_sql(conn: &Connection, sql: &str, subject: &Subject, b: &sql::Bounds) -> usize {
    let mut stmt = conn.prepare_cached(sql).expect("prepare");
    let ncols = stmt.column_count();
    let mut rows = stmt
        .query(named_params! {
            ":subject": subject.id, ":code": HR, ":day_lo": b.day_lo, ":day_hi": b.day_hi,
            ":utc_lo": b.utc_lo, ":utc_hi": b.utc_hi,
        })
        .expect("query");
    let mut n = 0;
    while let Some(row) = rows.next().expect("row") {
        for i in 0..ncols {
            std::hint::black_box(row.get_ref(i).expect("cell"));
        }
        n += 1;
    }
    n
}

/// The tool and the statement answer with as many rows (the statement keeps one more than a
/// cap, to tell a cut).
/// The tool's rows against the statement's: as many, up to the tool's cap, unless the tool cut
/// its text at [`TEXT_MAX`](answers_tools::readings::TEXT_MAX), which keeps fewer.
fn check(view: View, (tool, text_cut): (usize, bool), hand: usize) {
    let expected = match view {
        View::Raw => hand.min(ROW_CAP),
        View::Minute | View::Hour | View::Day | View::Week | View::Month => hand.min(BUCKET_CAP),
        View::Stats | View::Latest => hand,
    };
    if text_cut {
        assert!(tool < expected, "{view}: a text cut keeps fewer rows");
    } else {
        assert_eq!(
            tool, expected,
            "{view}: the tool and the statement disagree"
        );
    }
}

/// The zone's offsets over the record: `(from, seconds)`, for the statement's `CASE`.
fn zone_offsets() -> Vec<(String, i32)> {
    let tz = TimeZone::get(TZ).expect("zone");
    let from = FIRST
        .to_zoned_datetime(tz.clone())
        .expect("first")
        .timestamp();
    let mut out = vec![(String::new(), tz.to_offset(from).seconds())];
    for t in tz.following(from) {
        if t.timestamp().as_second()
            > LAST
                .to_zoned_datetime(tz.clone())
                .expect("last")
                .timestamp()
                .as_second()
                + 86_400
        {
            break;
        }
        out.push((answers_store::utc_text(t.timestamp()), t.offset().seconds()));
    }
    out
}

/// The heart rate's arguments for `view`, over `window` (start and end days) or the whole record.
fn view_args(view: View, window: Option<&(String, String)>) -> serde_json::Value {
    let mut args = json!({"indicators": [HR], "view": view.as_str()});
    if let Some((s, e)) = window {
        args["start"] = json!(s);
        args["end"] = json!(e);
    }
    args
}

/// The seeded record's daily readings, in the order they are written each day: every how
/// many days, name, LOINC code, base value, noise spread, rounded, unit, local time, source.
type Daily = (
    usize,
    &'static str,
    &'static str,
    f64,
    f64,
    bool,
    &'static str,
    i8,
    i8,
    Source,
);
#[rustfmt::skip]
const DAILY: [Daily; 6] = [
    (1, "dailyRestingHeartRates", "40443-4", 57.0, 4.0, true, "/min", 8, 0, Source::Watch),
    (1, "stepCount", "41950-7", 9000.0, 3000.0, true, "steps", 23, 59, Source::Watch),
    (3, "stepCount", "41950-7", 8000.0, 3000.0, true, "steps", 23, 58, Source::Phone),
    (7, "bodyMass", "29463-7", 70.0, 1.0, false, "kg", 7, 10, Source::Scale),
    (7, "systolic", "8480-6", 115.0, 8.0, true, "mmHg", 8, 15, Source::Cuff),
    (7, "diastolic", "8462-4", 75.0, 6.0, true, "mmHg", 8, 15, Source::Cuff),
];

/// Writes the bench record to `path`.
fn generate(path: &Path) {
    let _ = std::fs::remove_file(path);
    let mut store = Store::open(path).expect("create the bench record");
    let subject = store
        .upsert_subject("subj-bench", "bench", TZ)
        .expect("subject");
    let tz = subject.tz.clone();
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    let mut noise = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        f64::from(u32::try_from(rng % 1000).expect("small")) / 1000.0
    };
    let days: Vec<Date> = FIRST
        .series(jiff::Span::new().days(1))
        .take_while(|d| *d <= LAST)
        .collect();
    // Minute heart rate straight into the table (a second connection: the store's triggers
    // keep its per-day summary), with its day authority as the write side publishes it (a
    // mean per source and day, the watch elected).
    let mut conn = raw(path);
    let tx = conn.transaction().expect("tx");
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO series (subject_id, kind, name, system, code, value_num, unit, start_utc, local_day, source)
                 VALUES (?1, 'measured', 'heartRate', 'loinc', ?2, ?3, '/min', ?4, ?5, 'watch')",
            )
            .expect("prepare");
        for (i, day) in days.iter().enumerate() {
            if i % 30 == 29 {
                continue;
            }
            let start = day
                .to_zoned_datetime(tz.clone())
                .expect("midnight")
                .timestamp();
            let next = day
                .tomorrow()
                .expect("day")
                .to_zoned_datetime(tz.clone())
                .expect("midnight")
                .timestamp();
            let mut t = start;
            while t < next {
                let minute = f64::from(u16::try_from((t.as_second() / 60) % 1440).expect("minute"));
                let v = (62.0
                    + 12.0 * (minute / 1440.0 * std::f64::consts::TAU).sin().abs()
                    + 6.0 * noise())
                .round();
                insert
                    .execute((
                        &subject.id,
                        HR,
                        v,
                        answers_store::utc_text(t),
                        day.to_string(),
                    ))
                    .expect("insert");
                t = t.checked_add(SignedDuration::from_mins(1)).expect("minute");
            }
        }
        tx.execute_batch(&format!(
            "INSERT INTO day_aggregate (subject_id, system, code, local_day, source, value, n, unit)
               SELECT subject_id, system, code, local_day, source, avg(value_num), count(*), min(unit)
                 FROM series WHERE code = '{HR}' GROUP BY subject_id, system, code, local_day, source;
             INSERT INTO day_elected (subject_id, system, code, local_day, source, value, unit)
               SELECT subject_id, system, code, local_day, source, value, unit FROM day_aggregate;"
        ))
        .expect("day authority");
    }
    tx.commit().expect("commit");
    // The daily indicators and the typed-in heart rate, through the write side.
    let mut rows = Vec::new();
    let at = |d: Date, h: i8, m: i8| {
        d.at(h, m, 0, 0)
            .to_zoned_datetime(tz.clone())
            .expect("time")
            .timestamp()
    };
    let mut push = |d: Date, (_, name, code, base, spread, rounded, unit, h, m, source): Daily| {
        let v = base + spread * noise();
        let v = if rounded { v.round() } else { v };
        let t = at(d, h, m);
        rows.push(NewReading::measured(
            &subject.id,
            name,
            CodeRef::loinc(code),
            v,
            unit,
            t,
            source,
        ));
    };
    for (i, d) in days.iter().enumerate() {
        for daily in DAILY.into_iter().filter(|daily| i % daily.0 == 0) {
            push(*d, daily);
        }
        if i % 30 == 29 {
            for h in [8, 13, 21] {
                push(
                    *d,
                    (
                        30,
                        "pulse",
                        HR,
                        70.0,
                        10.0,
                        true,
                        "/min",
                        h,
                        0,
                        Source::Manual,
                    ),
                );
            }
        }
    }
    store.upsert_readings(&rows).expect("daily indicators");
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .expect("checkpoint");
}
