//! Writing readings: one transaction per batch, each row's local day decided in its subject's
//! zone, and the day authority republished for every day the batch touched.

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap, HashSet};

use super::day::{self, DayKey};
use super::reading::{NewReading, utc_text};
use super::{Store, StoreError};
use crate::{BATCH, Backend};
use answers_db::{Arg, DbError, Tx};
use answers_vocab::Vocabulary;
use jiff::tz::TimeZone;
use postgres::types::ToSql;

const UPSERT: &str = "
INSERT INTO series (subject_id, kind, name, system, code, value_num, value_text, unit,
                    start_utc, end_utc, local_day, source, comment)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
ON CONFLICT (subject_id, system, code, source, start_utc) DO UPDATE SET
    kind = excluded.kind, name = excluded.name, value_num = excluded.value_num,
    value_text = excluded.value_text, unit = excluded.unit, end_utc = excluded.end_utc,
    local_day = excluded.local_day, comment = excluded.comment";

const PREVIOUS_DAY: &str = "
SELECT local_day FROM series
WHERE subject_id = ?1 AND system = ?2 AND code = ?3 AND source = ?4 AND start_utc = ?5";

impl Store {
    /// Upserts `rows` in one transaction, keyed on `(subject, code, source, start)`.
    ///
    /// Each row's local day is decided now, from its subject's zone (`None` for a legacy row),
    /// and stays as written. Then `day_aggregate` and `day_elected` are recomputed for every
    /// `(subject, code, local day)` the batch touched, including a day a rewritten row left.
    /// A unit is stored in its UCUM spelling when the vocabulary knows it; an empty comment is
    /// stored as none. Returns how many rows were written. A refused row (see
    /// [`NewReading::check`]) or an unknown subject writes nothing of the batch.
    ///
    /// ```
    /// use answers_protocol::Source;
    /// use answers_store::{NewReading, Store};
    /// use answers_vocab::CodeRef;
    ///
    /// let mut store = Store::open_in_memory()?;
    /// store.upsert_subject("subj-mom-1", "mom", "Asia/Shanghai")?;
    /// let steps = |source, value| NewReading::measured("subj-mom-1", "steps",
    ///     CodeRef::loinc("41950-7"), value, "steps", "2026-09-13T15:59:00Z".parse().unwrap(), source);
    /// let written = store.upsert_readings(&[steps(Source::Watch, 5120.0), steps(Source::Phone, 4300.0)])?;
    /// assert_eq!(written, 2);
    /// let all = answers_store::Bounds::of(&answers_protocol::Window::ALL_RECORDED);
    /// let elected = store.elected_days("subj-mom-1", &CodeRef::loinc("41950-7"), &all)?;
    /// assert_eq!((elected[0].day.as_str(), elected[0].source.as_str(), elected[0].value),
    ///     ("2026-09-13", "watch", 5120.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn upsert_readings(&mut self, rows: &[NewReading]) -> Result<usize, StoreError> {
        for (index, row) in rows.iter().enumerate() {
            row.check()
                .map_err(|problem| StoreError::InvalidReading { index, problem })?;
        }
        // Two PostgreSQL writers of overlapping batches may deadlock on their rows; the
        // server aborts one, which is written again from the start.
        let mut attempt = 0;
        loop {
            match self.write_readings(rows) {
                Err(StoreError::Db(DbError::Postgres { kind, .. }))
                    if attempt < RETRIES
                        && matches!(
                            kind.as_str(),
                            "deadlock_detected" | "serialization_failure"
                        ) =>
                {
                    attempt += 1;
                }
                done => return done,
            }
        }
    }

    fn write_readings(&self, rows: &[NewReading]) -> Result<usize, StoreError> {
        let op = "write readings";
        let vocab = Vocabulary::bundled();
        let mut tx = self.db.transaction(op)?;
        if tx.backend() == Backend::Postgres {
            // Writers of one subject take turns, each holding a lock on the subject until it
            // commits (`SQLite` has one writer): a recompute reads every row committed before
            // it, so the last writer of a day publishes the authority of all of its rows, and
            // two batches never wait on each other's rows. Locked in id order.
            let subjects: BTreeSet<&str> = rows.iter().map(|r| r.subject_id.as_str()).collect();
            for subject in subjects {
                tx.exec(
                    op,
                    "SELECT pg_advisory_xact_lock(hashtextextended('subject:' || CAST(?1 AS TEXT), 0))",
                    &[Arg::from(subject)],
                )?;
            }
        }
        let mut zones: HashMap<&str, TimeZone> = HashMap::new();
        let mut prepared = Vec::with_capacity(rows.len());
        for row in rows {
            let tz = match zones.entry(row.subject_id.as_str()) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => {
                    let name = tx.one(
                        op,
                        "SELECT tz FROM subject WHERE id = ?1",
                        &[Arg::from(&row.subject_id)],
                        |r| Ok(r.text(0, op, "subject")?.to_owned()),
                    )?;
                    let name = name.ok_or(StoreError::UnknownSubject)?;
                    let tz = TimeZone::get(&name)
                        .map_err(|_| StoreError::Db(DbError::Malformed { table: "subject" }))?;
                    e.insert(tz)
                }
            };
            let unit = row.unit.as_deref().map(str::trim).filter(|u| !u.is_empty());
            prepared.push(Prepared {
                row,
                start: utc_text(row.start),
                end: row.end.map(utc_text),
                day: (!row.legacy).then(|| tz.to_datetime(row.start).date().to_string()),
                unit: unit.map(|u| vocab.normalize_unit(u).unwrap_or(u)),
                comment: row.comment.as_deref().filter(|c| !c.is_empty()),
            });
        }
        let mut touched = Touched::default();
        let written = if tx.backend() == Backend::Postgres {
            let mut written = 0;
            for batch in batches(&prepared) {
                written += upsert_batch(&mut tx, batch, &mut touched)?;
            }
            // One set of statements for every day the batch touched.
            day::recompute_all(&mut tx, &touched.keys)?;
            written
        } else {
            let mut written = 0;
            for p in &prepared {
                written += upsert_one(&mut tx, p, &mut touched)?;
            }
            // In key order, so two writers lock shared days in the same order.
            for key in &touched.keys {
                day::recompute(&mut tx, key)?;
            }
            written
        };
        tx.commit(op)?;
        Ok(written)
    }
}

/// A row with the values it is stored with.
struct Prepared<'r> {
    row: &'r NewReading,
    start: String,
    end: Option<String>,
    /// The local day, `None` for a legacy row.
    day: Option<String>,
    unit: Option<&'r str>,
    comment: Option<&'r str>,
}

/// The days a batch touched, in key order.
#[derive(Default)]
struct Touched {
    keys: BTreeSet<DayKey>,
    last: Option<DayKey>,
}

impl Touched {
    fn add(&mut self, row: &NewReading, day: String) {
        // Batches come in series order: skip the copy when the day repeats.
        let same = |k: &DayKey| k.0 == row.subject_id && k.1 == row.code && k.2 == day;
        if !self.last.as_ref().is_some_and(same) {
            let key = (row.subject_id.clone(), row.code.clone(), day);
            self.keys.insert(key.clone());
            self.last = Some(key);
        }
    }
}

/// `SQLite`'s write of one row: its old day, then the upsert. Returns the rows written.
fn upsert_one(
    tx: &mut Tx<'_>,
    p: &Prepared<'_>,
    touched: &mut Touched,
) -> Result<usize, StoreError> {
    let op = "write readings";
    let row = p.row;
    let system = row.code.system.as_str();
    let source = row.source.as_str();
    let key = [
        Arg::from(&row.subject_id),
        Arg::from(system),
        Arg::from(&row.code.code),
        Arg::from(source),
        Arg::from(&p.start),
    ];
    let values = [
        Arg::from(&row.subject_id),
        Arg::from(row.kind.as_str()),
        Arg::from(&row.name),
        Arg::from(system),
        Arg::from(&row.code.code),
        Arg::from(row.value_num),
        Arg::from(&row.value_text),
        Arg::from(p.unit),
        Arg::from(&p.start),
        Arg::from(&p.end),
        Arg::from(&p.day),
        Arg::from(source),
        Arg::from(p.comment),
    ];
    // The day the row had before (`None` for a new row or a legacy one).
    let before = tx.one(op, PREVIOUS_DAY, &key, |r| {
        Ok(r.opt_text(0, op, "series")?.map(str::to_owned))
    })?;
    let written = tx.exec(op, UPSERT, &values)?;
    for d in [p.day.clone(), before.flatten()].into_iter().flatten() {
        touched.add(row, d);
    }
    Ok(written)
}

/// `rows` cut into runs of at most [`BATCH`] rows in which no key repeats: one statement
/// upserts a key once (`ON CONFLICT DO UPDATE` refuses a second), so a repeated key starts a
/// new run and is written after the first, as row by row.
fn batches<'p, 'r>(rows: &'p [Prepared<'r>]) -> Vec<&'p [Prepared<'r>]> {
    let mut out = Vec::new();
    let mut keys: HashSet<(&str, &str, &str, &str, &str)> = HashSet::new();
    let mut from = 0;
    for (i, p) in rows.iter().enumerate() {
        let r = p.row;
        let key = (
            r.subject_id.as_str(),
            r.code.system.as_str(),
            r.code.code.as_str(),
            r.source.as_str(),
            p.start.as_str(),
        );
        if i - from == BATCH || keys.contains(&key) {
            out.push(&rows[from..i]);
            keys.clear();
            from = i;
        }
        keys.insert(key);
    }
    if from < rows.len() {
        out.push(&rows[from..]);
    }
    out
}

/// `PostgreSQL`'s upsert of a run of rows with distinct keys, in one statement: the rows go
/// in as arrays, in order (row ids are assigned as row by row), and each row's day before
/// the statement comes back (a data-modifying `WITH` sees the table as it was when the
/// statement began), joined on the upsert key. Returns the rows written.
const UPSERT_BATCH: &str = "
WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                         $6::float8[], $7::text[], $8::text[], $9::text[], $10::text[],
                         $11::text[], $12::text[], $13::text[])
        WITH ORDINALITY AS i(subject_id, kind, name, system, code, value_num, value_text, unit,
                             start_utc, end_utc, local_day, source, comment, ord)
),
before AS (
    SELECT i.ord, s.local_day
      FROM input i
      JOIN series s ON s.subject_id = i.subject_id AND s.system = i.system
                   AND s.code = i.code AND s.source = i.source AND s.start_utc = i.start_utc
),
written AS (
    INSERT INTO series (subject_id, kind, name, system, code, value_num, value_text, unit,
                        start_utc, end_utc, local_day, source, comment)
    SELECT subject_id, kind, name, system, code, value_num, value_text, unit,
           start_utc, end_utc, local_day, source, comment
      FROM input ORDER BY ord
    ON CONFLICT (subject_id, system, code, source, start_utc) DO UPDATE SET
        kind = excluded.kind, name = excluded.name, value_num = excluded.value_num,
        value_text = excluded.value_text, unit = excluded.unit, end_utc = excluded.end_utc,
        local_day = excluded.local_day, comment = excluded.comment
    RETURNING 1
)
SELECT (SELECT count(*) FROM written), NULL::bigint, NULL::text
UNION ALL
SELECT NULL, ord, local_day FROM before WHERE local_day IS NOT NULL";

fn upsert_batch<'r>(
    tx: &mut Tx<'_>,
    rows: &[Prepared<'r>],
    touched: &mut Touched,
) -> Result<usize, StoreError> {
    let op = "write readings";
    let column = |f: for<'p> fn(&'p Prepared<'r>) -> Option<&'p str>| -> Vec<Option<&str>> {
        rows.iter().map(f).collect()
    };
    let subject = column(|p| Some(&p.row.subject_id));
    let kind = column(|p| Some(p.row.kind.as_str()));
    let name = column(|p| Some(&p.row.name));
    let system = column(|p| Some(p.row.code.system.as_str()));
    let code = column(|p| Some(&p.row.code.code));
    let value_num: Vec<Option<f64>> = rows.iter().map(|p| p.row.value_num).collect();
    let value_text = column(|p| p.row.value_text.as_deref());
    let unit = column(|p| p.unit);
    let start = column(|p| Some(&p.start));
    let end = column(|p| p.end.as_deref());
    let day = column(|p| p.day.as_deref());
    let source = column(|p| Some(p.row.source.as_str()));
    let comment = column(|p| p.comment);
    let values: [&(dyn ToSql + Sync); 13] = [
        &subject,
        &kind,
        &name,
        &system,
        &code,
        &value_num,
        &value_text,
        &unit,
        &start,
        &end,
        &day,
        &source,
        &comment,
    ];
    let Some(result) = tx.pg_query(op, UPSERT_BATCH, &values) else {
        return Err(StoreError::Db(DbError::Postgres {
            op,
            kind: "not_postgres".to_owned(),
        }));
    };
    let mut written = 0;
    let mut before: Vec<Option<String>> = vec![None; rows.len()];
    for r in &result? {
        let n: Option<i64> = r.try_get(0).map_err(|e| DbError::postgres(op, &e))?;
        if let Some(n) = n {
            written += usize::try_from(n).unwrap_or(0);
            continue;
        }
        let ord: i64 = r.try_get(1).map_err(|e| DbError::postgres(op, &e))?;
        let slot = usize::try_from(ord - 1)
            .ok()
            .and_then(|i| before.get_mut(i))
            .ok_or(StoreError::Db(DbError::Malformed { table: "series" }))?;
        *slot = r.try_get(2).map_err(|e| DbError::postgres(op, &e))?;
    }
    for (p, before) in rows.iter().zip(before) {
        for d in [p.day.clone(), before].into_iter().flatten() {
            touched.add(p.row, d);
        }
    }
    Ok(written)
}

/// How often a batch that lost a race on `PostgreSQL` is written again.
const RETRIES: u32 = 5;

#[cfg(test)]
#[path = "write/concurrent.rs"]
mod concurrent;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ReadingProblem;
    use answers_protocol::envelope::kinds::Source;
    use answers_vocab::CodeRef;

    /// Runs `body` on a store with the subject `a`, on each backend.
    fn each_store(mut body: impl FnMut(Store)) {
        crate::test_support::each_backend(|s| {
            s.upsert_subject("a", "alice", "Europe/Berlin").unwrap();
            body(s);
        });
    }

    fn weight(value: f64) -> NewReading {
        NewReading::measured(
            "a",
            "weight",
            CodeRef::loinc("29463-7"),
            value,
            "KG",
            "2026-03-02T06:00:00Z".parse().unwrap(),
            Source::Scale,
        )
    }

    fn count(s: &Store, sql: &str) -> i64 {
        s.count(sql)
    }

    #[test]
    fn a_refused_row_or_unknown_subject_writes_nothing() {
        each_store(|mut s| {
            let mut bad = weight(1.0);
            bad.value_num = Some(f64::NAN);
            let err = s.upsert_readings(&[weight(70.0), bad]).unwrap_err();
            assert!(matches!(
                err,
                StoreError::InvalidReading {
                    index: 1,
                    problem: ReadingProblem::NonFiniteValue
                }
            ));
            let mut stranger = weight(70.0);
            stranger.subject_id = "nobody".into();
            let err = s.upsert_readings(&[weight(70.0), stranger]).unwrap_err();
            assert!(matches!(err, StoreError::UnknownSubject));
            assert_eq!(count(&s, "SELECT COUNT(*) FROM series"), 0);
            assert_eq!(count(&s, "SELECT COUNT(*) FROM day_aggregate"), 0);
        });
    }

    #[test]
    fn an_upsert_replaces_and_units_are_stored_canonically() {
        each_store(|mut s| {
            s.upsert_readings(&[weight(70.0)]).unwrap();
            s.upsert_readings(&[weight(71.5)]).unwrap();
            let (n, value, unit) =
                s.db.one(
                    "test",
                    "SELECT COUNT(*), MAX(value_num), MAX(unit) FROM series",
                    answers_db::Args::Pos(&[]),
                    |r| {
                        Ok((
                            r.int(0, "test")?,
                            r.real(1, "test")?,
                            r.text(2, "test", "series")?.to_owned(),
                        ))
                    },
                )
                .unwrap()
                .unwrap();
            assert_eq!((n, unit.as_str()), (1, "kg"));
            assert!((value - 71.5).abs() < 1e-9, "{value}");
            let elected =
                s.db.one(
                    "test",
                    "SELECT value FROM day_elected",
                    answers_db::Args::Pos(&[]),
                    |r| r.real(0, "test"),
                )
                .unwrap()
                .unwrap();
            assert!((elected - 71.5).abs() < 1e-9, "{elected}");
        });
    }

    #[test]
    fn a_row_rewritten_as_legacy_leaves_its_day() {
        each_store(|mut s| {
            s.upsert_readings(&[weight(70.0)]).unwrap();
            assert_eq!(count(&s, "SELECT COUNT(*) FROM day_elected"), 1);
            let mut legacy = weight(70.0);
            legacy.legacy = true;
            s.upsert_readings(&[legacy]).unwrap();
            assert_eq!(count(&s, "SELECT COUNT(*) FROM day_elected"), 0);
            assert_eq!(count(&s, "SELECT COUNT(*) FROM day_aggregate"), 0);
            assert_eq!(
                count(&s, "SELECT COUNT(*) FROM series WHERE local_day IS NULL"),
                1
            );
        });
    }

    #[test]
    fn a_key_repeated_in_one_batch_is_written_in_order() {
        each_store(|mut s| {
            assert_eq!(s.upsert_readings(&[weight(70.0), weight(71.5)]).unwrap(), 2);
            assert_eq!(count(&s, "SELECT COUNT(*) FROM series"), 1);
            assert_eq!(
                count(&s, "SELECT COUNT(*) FROM day_elected WHERE value = 71.5"),
                1
            );
            let mut legacy = weight(72.0);
            legacy.legacy = true;
            s.upsert_readings(&[weight(73.0), legacy]).unwrap();
            assert_eq!(count(&s, "SELECT COUNT(*) FROM day_elected"), 0);
            assert_eq!(count(&s, "SELECT COUNT(*) FROM day_aggregate"), 0);
        });
    }

    #[test]
    fn mixed_units_from_one_source_are_not_aggregated() {
        each_store(|mut s| {
            let mut lb = weight(155.0);
            lb.unit = Some("lb".into());
            lb.start = "2026-03-02T18:00:00Z".parse().unwrap();
            s.upsert_readings(&[weight(70.0), lb]).unwrap();
            assert_eq!(count(&s, "SELECT COUNT(*) FROM day_aggregate"), 0);
            assert_eq!(count(&s, "SELECT COUNT(*) FROM day_elected"), 0);
        });
    }
}
