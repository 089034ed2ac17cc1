//! Writing readings: one transaction per batch, each row's local day decided in its subject's
//! zone, and the day authority republished for every day the batch touched.

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use super::day::{self, DayKey};
use super::reading::{NewReading, utc_text};
use super::{Store, StoreError};
use crate::Backend;
use crate::db::Arg;
use answers_vocab::Vocabulary;
use jiff::tz::TimeZone;

const UPSERT: &str = "
INSERT INTO series (subject_id, kind, name, system, code, value_num, value_text, unit,
                    start_utc, end_utc, local_day, source, comment)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
ON CONFLICT (subject_id, system, code, source, start_utc) DO UPDATE SET
    kind = excluded.kind, name = excluded.name, value_num = excluded.value_num,
    value_text = excluded.value_text, unit = excluded.unit, end_utc = excluded.end_utc,
    local_day = excluded.local_day, comment = excluded.comment";

/// `PostgreSQL`'s upsert that also returns the row's day before it (a data-modifying `WITH`
/// sees the table as it was when the statement began) and how many rows it wrote.
static UPSERT_RETURNING_BEFORE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH before AS (SELECT local_day FROM series
                          WHERE subject_id = ?1 AND system = ?4 AND code = ?5 AND source = ?12
                            AND start_utc = ?9),
              written AS ({UPSERT} RETURNING 1)
         SELECT (SELECT local_day FROM before), (SELECT count(*) FROM written)"
    )
});

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
                Err(StoreError::Postgres { kind, .. })
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
        let mut touched: BTreeSet<DayKey> = BTreeSet::new();
        let mut last: Option<DayKey> = None;
        let mut written = 0;
        let mut zones: HashMap<&str, TimeZone> = HashMap::new();
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
                        .map_err(|_| StoreError::Malformed { table: "subject" })?;
                    e.insert(tz)
                }
            };
            let start = utc_text(row.start);
            let day = (!row.legacy).then(|| tz.to_datetime(row.start).date().to_string());
            let system = row.code.system.as_str();
            let source = row.source.as_str();
            let key = [
                Arg::from(&row.subject_id),
                Arg::from(system),
                Arg::from(&row.code.code),
                Arg::from(source),
                Arg::from(&start),
            ];
            let unit = row.unit.as_deref().map(str::trim).filter(|u| !u.is_empty());
            let unit = unit.map(|u| vocab.normalize_unit(u).unwrap_or(u));
            let comment = row.comment.as_deref().filter(|c| !c.is_empty());
            let end = row.end.map(utc_text);
            let values = [
                Arg::from(&row.subject_id),
                Arg::from(row.kind.as_str()),
                Arg::from(&row.name),
                Arg::from(system),
                Arg::from(&row.code.code),
                Arg::from(row.value_num),
                Arg::from(&row.value_text),
                Arg::from(unit),
                Arg::from(&start),
                Arg::from(&end),
                Arg::from(&day),
                Arg::from(source),
                Arg::from(comment),
            ];
            // The day the row had before (`None` for a new row or a legacy one).
            let before: Option<String> = if tx.backend() == Backend::Postgres {
                // One round trip: the row's old day, read before the upsert runs.
                let (before, n) = tx
                    .one(op, &*UPSERT_RETURNING_BEFORE, &values, |r| {
                        Ok((
                            r.opt_text(0, op, "series")?.map(str::to_owned),
                            r.int(1, op)?,
                        ))
                    })?
                    .unwrap_or((None, 0));
                written += usize::try_from(n).unwrap_or(0);
                before
            } else {
                let before = tx.one(op, PREVIOUS_DAY, &key, |r| {
                    Ok(r.opt_text(0, op, "series")?.map(str::to_owned))
                })?;
                written += tx.exec(op, UPSERT, &values)?;
                before.flatten()
            };
            for d in [day, before].into_iter().flatten() {
                // Batches come in series order: skip the copy when the day repeats.
                let same = |k: &DayKey| k.0 == row.subject_id && k.1 == row.code && k.2 == d;
                if !last.as_ref().is_some_and(same) {
                    let key = (row.subject_id.clone(), row.code.clone(), d);
                    touched.insert(key.clone());
                    last = Some(key);
                }
            }
        }
        // In key order, so two writers lock shared days in the same order.
        for key in &touched {
            day::recompute(&mut tx, key)?;
        }
        tx.commit(op)?;
        Ok(written)
    }
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
                    crate::db::Args::Pos(&[]),
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
                    crate::db::Args::Pos(&[]),
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
