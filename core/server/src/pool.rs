//! A small pool of [`Store`] handles on one database file, instead of one connection behind a
//! mutex: each request takes a handle of its own, and gives it back when it is done.
//!
//! The file is in WAL mode ([`Store::open`] sets it), so the handles read side by side while one
//! writes; `SQLite`'s busy timeout orders the writers. A request that finds no idle handle opens
//! one; at most [`StorePool::IDLE_CAP`] are kept for the next requests.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use answers_store::{OpenOptions, Store, StoreError};

/// Handles on one database file.
#[derive(Debug)]
pub struct StorePool {
    path: PathBuf,
    options: OpenOptions,
    idle: Mutex<Vec<Store>>,
}

impl StorePool {
    /// The most idle handles kept open: the runtime's two workers and two blocking calls.
    pub const IDLE_CAP: usize = 4;

    /// A pool on `path`, with one handle opened now, so a file that cannot be opened fails here
    /// and not at the first request.
    pub fn open(path: &Path) -> Result<Arc<StorePool>, StoreError> {
        StorePool::open_with(path, OpenOptions::default())
    }

    /// [`StorePool::open`], every handle opened with `options` (for example a record that must
    /// exist, or one whose file mode is shared on purpose).
    pub fn open_with(path: &Path, options: OpenOptions) -> Result<Arc<StorePool>, StoreError> {
        let first = Store::open_with(path, options)?;
        Ok(Arc::new(StorePool {
            path: path.to_owned(),
            options,
            idle: Mutex::new(vec![first]),
        }))
    }

    /// A handle: an idle one, or a new one on the same file.
    pub fn get(self: &Arc<Self>) -> Result<PooledStore, StoreError> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let store = match idle {
            Some(store) => store,
            None => Store::open_with(&self.path, self.options)?,
        };
        Ok(PooledStore {
            store: Some(store),
            pool: Arc::clone(self),
        })
    }

    /// How many handles are idle now.
    #[must_use]
    pub fn idle_count(&self) -> usize {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// A handle taken from a [`StorePool`]; it goes back to the pool when dropped.
#[derive(Debug)]
pub struct PooledStore {
    store: Option<Store>,
    pool: Arc<StorePool>,
}

impl Deref for PooledStore {
    type Target = Store;

    fn deref(&self) -> &Store {
        self.store
            .as_ref()
            .expect("a pooled store is only taken on drop")
    }
}

impl Drop for PooledStore {
    fn drop(&mut self) {
        if let Some(store) = self.store.take() {
            let mut idle = self
                .pool
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if idle.len() < StorePool::IDLE_CAP {
                idle.push(store);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_shared_side_by_side_and_kept_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let pool = StorePool::open(&dir.path().join("answers.db")).unwrap();
        assert_eq!(pool.idle_count(), 1);
        let held: Vec<PooledStore> = (0..6).map(|_| pool.get().unwrap()).collect();
        assert_eq!(pool.idle_count(), 0);
        held[0].upsert_subject("subj-1", "you", "UTC").unwrap();
        assert_eq!(
            held[5].subjects().unwrap().len(),
            1,
            "one file under every handle"
        );
        drop(held);
        assert_eq!(pool.idle_count(), StorePool::IDLE_CAP);
    }

    #[test]
    fn a_file_that_cannot_be_opened_fails_at_open() {
        let dir = tempfile::tempdir().unwrap();
        assert!(StorePool::open(&dir.path().join("no/such/dir/answers.db")).is_err());
    }
}
