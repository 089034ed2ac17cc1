//! Several writers on one `PostgreSQL` database: two store handles (two connections, as two
//! service instances have) write at once from two threads, and what they leave is what one
//! writer leaves.

use std::sync::{Arc, Barrier};

use crate::test_support::{OpenStore as _, TestDatabase};
use crate::{Flow, NewReading, Store, StoreError};
use answers_db::Args;
use answers_protocol::Source;
use answers_vocab::CodeRef;

const SUBJECT: &str = "subj-1";

/// The batches of one writer: the other's days and series, from sources of its own (so
/// neither waits on the other's rows, and each day's authority depends on both), and every
/// fourth batch rewriting keys of the other's too.
fn batches(writer: u64) -> Vec<Vec<NewReading>> {
    let first: jiff::Timestamp = "2026-05-01T00:00:00Z".parse().unwrap();
    let own = if writer == 1 {
        [Source::Watch, Source::Ring]
    } else {
        [Source::Phone, Source::Scale]
    };
    let all = [Source::Watch, Source::Ring, Source::Phone, Source::Scale];
    let codes = ["8867-4", "41950-7", "29463-7"];
    let mut state = writer.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    (0..16)
        .map(|batch| {
            (0..20)
                .map(|_| {
                    // Ten days, minutes on the quarter hour: the writers' keys collide often.
                    let at = first
                        .checked_add(jiff::SignedDuration::from_mins(
                            i64::try_from(next(10 * 96)).unwrap() * 15,
                        ))
                        .unwrap();
                    let code = codes[usize::try_from(next(3)).unwrap()];
                    let source = if batch % 4 == 3 {
                        all[usize::try_from(next(4)).unwrap()]
                    } else {
                        own[usize::try_from(next(2)).unwrap()]
                    };
                    #[expect(clippy::cast_precision_loss, reason = "small integers")]
                    let value = next(2000) as f64 / 8.0;
                    NewReading::measured(
                        SUBJECT,
                        "x",
                        CodeRef::loinc(code),
                        value,
                        "/min",
                        at,
                        source,
                    )
                })
                .collect()
        })
        .collect()
}

/// The rows of `sql`, each rendered, sorted.
fn rows(store: &Store, sql: &str, columns: usize) -> Vec<String> {
    let mut out = Vec::new();
    store
        .db
        .each("test", sql, Args::Pos(&[]), |r| {
            let mut line = String::new();
            for i in 0..columns {
                let cell = match r.opt_text(i, "test", "test") {
                    Ok(t) => format!("{t:?}"),
                    Err(_) => format!("{:?}", r.opt_real(i, "test")?),
                };
                line.push_str(&cell);
                line.push('|');
            }
            out.push(line);
            Ok::<_, StoreError>(Flow::Continue)
        })
        .unwrap();
    out.sort();
    out
}

fn authority(store: &Store) -> (Vec<String>, Vec<String>) {
    (
        rows(
            store,
            "SELECT subject_id, code, local_day, source, value, unit FROM day_elected",
            6,
        ),
        rows(
            store,
            "SELECT subject_id, code, local_day, source, value, unit FROM day_aggregate",
            6,
        ),
    )
}

/// The series as one writer would write it: every stored row, read back as a reading.
fn as_readings(store: &Store) -> Vec<NewReading> {
    let mut out = Vec::new();
    store
        .db
        .each(
            "test",
            "SELECT code, source, start_utc, value_num, unit FROM series ORDER BY id",
            Args::Pos(&[]),
            |r| {
                let source: Source = r.text(1, "test", "series")?.parse().unwrap();
                out.push(NewReading::measured(
                    SUBJECT,
                    "x",
                    CodeRef::loinc(r.text(0, "test", "series")?),
                    r.real(3, "test")?,
                    r.opt_text(4, "test", "series")?.unwrap_or(""),
                    r.text(2, "test", "series")?.parse().unwrap(),
                    source,
                ));
                Ok::<_, StoreError>(Flow::Continue)
            },
        )
        .unwrap();
    out
}

#[test]
fn two_writers_at_once_leave_the_day_authority_one_writer_leaves() {
    let Some(shared) = TestDatabase::create() else {
        return;
    };
    shared
        .open()
        .upsert_subject(SUBJECT, "you", "Europe/Berlin")
        .unwrap();
    let start = Arc::new(Barrier::new(2));
    let writers: Vec<_> = [1, 2]
        .into_iter()
        .map(|w| {
            let mut store = shared.open();
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                for batch in batches(w) {
                    store.upsert_readings(&batch).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let store = shared.open();
    let concurrent = authority(&store);
    assert!(
        concurrent.0.len() > 20,
        "{} elected days",
        concurrent.0.len()
    );

    let Some(single) = TestDatabase::create() else {
        return;
    };
    let mut one = single.open();
    one.upsert_subject(SUBJECT, "you", "Europe/Berlin").unwrap();
    one.upsert_readings(&as_readings(&store)).unwrap();
    assert_eq!(authority(&one), concurrent);
}

#[test]
fn of_two_subjects_taking_one_handle_at_once_one_wins() {
    let Some(shared) = TestDatabase::create() else {
        return;
    };
    shared.open().upsert_subject("warm", "warm", "UTC").unwrap();
    for round in 0..10 {
        let handle = format!("handle-{round}");
        let start = Arc::new(Barrier::new(2));
        let racers: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|who| {
                let store = shared.open();
                let start = Arc::clone(&start);
                let handle = handle.clone();
                std::thread::spawn(move || {
                    start.wait();
                    store.upsert_subject(&format!("{who}-{round}"), &handle, "UTC")
                })
            })
            .collect();
        let results: Vec<_> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        let won = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 1, "{results:?}");
        assert!(
            results
                .iter()
                .all(|r| r.is_ok() || matches!(r, Err(StoreError::HandleTaken))),
            "{results:?}"
        );
    }
}

#[test]
fn of_two_revokers_at_once_one_revokes() {
    let Some(shared) = TestDatabase::create() else {
        return;
    };
    let store = shared.open();
    store.upsert_subject("s", "you", "UTC").unwrap();
    for _ in 0..10 {
        let token = store.issue_token("s", None).unwrap();
        let start = Arc::new(Barrier::new(2));
        let racers: Vec<_> = (0..2)
            .map(|_| {
                let other = shared.open();
                let start = Arc::clone(&start);
                let token = token.clone();
                std::thread::spawn(move || {
                    start.wait();
                    other.revoke_token(&token).unwrap()
                })
            })
            .collect();
        let revoked: Vec<bool> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        assert_eq!(revoked.iter().filter(|r| **r).count(), 1, "{revoked:?}");
        assert_eq!(store.subject_for_token(&token).unwrap(), None);
    }
}
