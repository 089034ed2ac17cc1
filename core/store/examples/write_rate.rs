//! The write rate of [`Store::upsert_readings`] on both backends, in readings per second: a
//! synthetic subject's minute heart rate (watch) and a daily weight (scale), written in
//! batches of 10,000 as the FHIR import writes them, then written again (every row an update).
//!
//! ```text
//! cargo run --release -p answers-store --example write_rate -- postgres://… [READINGS]
//! ```
//!
//! The URL names an existing `PostgreSQL` database (migrated on open); each run writes a new
//! subject. `SQLite` runs in a temporary file. `READINGS` defaults to 100,000.

use std::time::Instant;

use answers_db::{Location, OpenOptions, PgOptions};
use answers_protocol::Source;
use answers_store::{NewReading, Store};
use answers_vocab::CodeRef;
use jiff::{SignedDuration, Timestamp};

const BATCH: usize = 10_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .ok_or("usage: write_rate postgres://… [READINGS]")?;
    let n: usize = args.next().map_or(Ok(100_000), |s| s.parse())?;
    let dir = tempfile::tempdir()?;
    let sqlite = Location::sqlite(dir.path().join("answers.db"));
    let postgres: Location = url.parse()?;
    for (name, location) in [("sqlite", &sqlite), ("postgres", &postgres)] {
        let mut store =
            Store::open_location(location, OpenOptions::default(), &PgOptions::default())?;
        let subject = format!("subj-rate-{}", Timestamp::now().as_millisecond());
        store.upsert_subject(&subject, &subject, "Europe/Berlin")?;
        let rows = readings(&subject, n);
        for pass in ["insert", "update"] {
            let began = Instant::now();
            let mut written = 0;
            for batch in rows.chunks(BATCH) {
                written += store.upsert_readings(batch)?;
            }
            let secs = began.elapsed().as_secs_f64();
            #[expect(clippy::cast_precision_loss, reason = "a rate to print")]
            let rate = written as f64 / secs;
            println!(
                "{name:8} {pass:6} {written:>9} readings {secs:>8.2} s {rate:>10.0} readings/s"
            );
        }
    }
    Ok(())
}

/// `n` readings: minute heart rates, with one weight a day among them.
fn readings(subject: &str, n: usize) -> Vec<NewReading> {
    let start: Timestamp = "2025-01-01T00:00:00Z".parse().expect("a valid instant");
    (0..n)
        .map(|i| {
            let minutes = i64::try_from(i).expect("a small count");
            let at = start + SignedDuration::from_mins(minutes);
            #[expect(clippy::cast_precision_loss, reason = "synthetic values")]
            let wobble = (i % 40) as f64;
            if i % 1440 == 0 {
                NewReading::measured(
                    subject,
                    "weight",
                    CodeRef::loinc("29463-7"),
                    70.0 + wobble / 10.0,
                    "kg",
                    at,
                    Source::Scale,
                )
            } else {
                NewReading::measured(
                    subject,
                    "heart rate",
                    CodeRef::loinc("8867-4"),
                    55.0 + wobble,
                    "/min",
                    at,
                    Source::Watch,
                )
            }
        })
        .collect()
}
