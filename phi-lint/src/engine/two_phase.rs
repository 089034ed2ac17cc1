//! The lint's parallel pass, in two phases on the same threads: parse and index every file,
//! merge the indexes, then lint every file with the merged index at hand.
//!
//! syn's trees hold `proc_macro2` spans, which are not `Send`: a tree cannot move to another
//! thread. So each worker keeps the trees it parsed and lints them itself after the merge; files
//! are handed out one at a time from a shared counter, which balances the first phase, and the
//! second follows the same split (lint time follows parse time closely).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use super::{FileLint, Parsed};
use crate::finding::FileError;
use crate::types::{FileIndex, TypeIndex, index_file};

/// Runs `parse` on every file and then `lint` on every parsed file, on all cores; the results
/// are in the order of `files`.
pub(super) fn run<P, L>(
    files: &[(PathBuf, String)],
    stack_size: usize,
    parse: P,
    lint: L,
) -> Vec<Result<FileLint, FileError>>
where
    P: Fn((&PathBuf, &String)) -> Result<Parsed, FileError> + Sync,
    L: Fn(&Parsed, &TypeIndex) -> FileLint + Sync,
{
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    let gate = Gate {
        state: Mutex::new(GateState {
            arrived: 0,
            expected: threads,
            indexes: Vec::new(),
        }),
        opened: Condvar::new(),
        merged: OnceLock::new(),
    };
    let worker = || -> Vec<(usize, Result<FileLint, FileError>)> {
        let mut mine: Vec<(usize, Result<Parsed, FileError>)> = Vec::new();
        let mut local = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some((path, rel)) = files.get(i) else {
                break;
            };
            let parsed = catch_unwind(AssertUnwindSafe(|| parse((path, rel))))
                .unwrap_or_else(|_| Err(panicked(rel)));
            if let Ok(p) = &parsed {
                local.push(index_file(&p.rel, &p.file));
            }
            mine.push((i, parsed));
        }
        let index = gate.arrive(local);
        mine.into_iter()
            .map(|(i, parsed)| {
                let rel = &files[i].1;
                let r = parsed.and_then(|p| {
                    catch_unwind(AssertUnwindSafe(|| lint(&p, index))).map_err(|_| panicked(rel))
                });
                (i, r)
            })
            .collect()
    };
    let mut results: Vec<Option<Result<FileLint, FileError>>> =
        (0..files.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(stack_size)
                    .spawn_scoped(s, worker)
            })
            .collect();
        for h in &handles {
            if h.is_err() {
                gate.leave();
            }
        }
        for h in handles {
            // A worker that cannot start or panics leaves its files unlinted, which the
            // caller reports as errors below; the scan never passes silently.
            if let Ok(h) = h
                && let Ok(done) = h.join()
            {
                for (i, r) in done {
                    results[i] = Some(r);
                }
            }
        }
    });
    files
        .iter()
        .zip(results)
        .map(|((_, rel), r)| {
            r.unwrap_or_else(|| {
                Err(FileError {
                    file: rel.clone(),
                    pos: None,
                    message: "cannot lint: a worker thread failed".into(),
                })
            })
        })
        .collect()
}

fn panicked(rel: &str) -> FileError {
    FileError {
        file: rel.to_owned(),
        pos: None,
        message: "cannot lint: the linter panicked on this file".into(),
    }
}

/// Where the workers wait for each other between the phases; the last to arrive merges.
struct Gate {
    state: Mutex<GateState>,
    opened: Condvar,
    merged: OnceLock<TypeIndex>,
}

struct GateState {
    arrived: usize,
    expected: usize,
    indexes: Vec<FileIndex>,
}

impl Gate {
    /// Hands in a worker's indexes and waits until every worker has; returns the merged index.
    fn arrive(&self, local: Vec<FileIndex>) -> &TypeIndex {
        let mut st = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        st.indexes.extend(local);
        st.arrived += 1;
        self.open_if_complete(&mut st);
        while self.merged.get().is_none() {
            st = self
                .opened
                .wait(st)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        drop(st);
        self.merged.get_or_init(TypeIndex::default)
    }

    /// A worker that never started: the others must not wait for it.
    fn leave(&self) {
        let mut st = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        st.expected -= 1;
        self.open_if_complete(&mut st);
    }

    fn open_if_complete(&self, st: &mut GateState) {
        if st.arrived >= st.expected && self.merged.get().is_none() {
            let _ = self
                .merged
                .set(TypeIndex::merge(std::mem::take(&mut st.indexes)));
            self.opened.notify_all();
        }
    }
}
