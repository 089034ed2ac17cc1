//! A bounded pool of [`Store`] handles on one database, instead of one connection behind a
//! mutex: each request takes a handle of its own, and gives it back when it is done.
//!
//! - At most [`PoolOptions::size`] handles are open at once, idle or in use. A request that
//!   finds no idle handle opens one while there is room, and otherwise waits for one to come
//!   back, for at most [`PoolOptions::checkout_timeout`]; then it is refused with a transient
//!   fault ([`StoreError::is_transient`]), which the routes answer as `store_unavailable`.
//! - A handle that failed a call and is no longer usable (its connection lost) is closed when it
//!   comes back, not kept: the next request opens a new one, so the service recovers when the
//!   database returns, without a restart.
//!
//! - A handle idle for longer than [`VALIDATE_AFTER`] is checked at checkout with one empty
//!   round trip ([`Store::is_valid`]) before it is handed out: a connection the server ended
//!   while it sat idle (a restart, `pg_terminate_backend`, an idle timeout) looks open until
//!   it is used, and would fail the request that took it. A handle given back sooner is
//!   handed out unchecked, so a busy pool pays nothing; one that broke in that window fails
//!   its request with a transient fault and is replaced. A check, rather than retrying a
//!   failed read, keeps writes safe too: nothing is sent twice.
//!
//! On a `SQLite` file in WAL mode ([`Store::open`] sets it) the handles read side by side while
//! one writes, and `SQLite`'s busy timeout orders the writers.

use std::ops::Deref;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use answers_db::{Backend, DbError, Location, OpenOptions, PgOptions};
use answers_store::{Store, StoreError};

/// How many handles a [`StorePool`] keeps and how long a request waits for one.
///
/// ```
/// use std::time::Duration;
/// use answers_server::PoolOptions;
///
/// let options = PoolOptions { size: 16, ..PoolOptions::default() };
/// assert_eq!(options.checkout_timeout, Duration::from_secs(5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    /// The most handles open at once, idle and in use (`answers serve --db-pool-size`); at
    /// least one is kept whatever this says.
    pub size: usize,
    /// How long a request waits for a handle when all of them are in use
    /// (`answers serve --db-timeout`).
    pub checkout_timeout: Duration,
}

impl PoolOptions {
    /// The default pool size: the runtime's two workers, each with a few blocking calls.
    pub const DEFAULT_SIZE: usize = 8;
    /// The default checkout timeout.
    pub const DEFAULT_CHECKOUT_TIMEOUT: Duration = Duration::from_secs(5);
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            size: PoolOptions::DEFAULT_SIZE,
            checkout_timeout: PoolOptions::DEFAULT_CHECKOUT_TIMEOUT,
        }
    }
}

/// How long a handle may sit idle and still be handed out without a check that its
/// connection is alive.
pub const VALIDATE_AFTER: Duration = Duration::from_secs(1);

/// How long that check waits for the server.
const VALIDATE_TIMEOUT: Duration = Duration::from_secs(2);

/// What opens one more handle on the pool's database.
type Open = Box<dyn Fn() -> Result<Store, StoreError> + Send + Sync>;

/// The idle handles, and how many are open in all (idle, in use, or being opened).
#[derive(Debug, Default)]
struct Slots {
    /// Each with the time it was given back.
    idle: Vec<(Store, Instant)>,
    open: usize,
}

/// Handles on one database.
pub struct StorePool {
    open: Open,
    backend: Backend,
    options: PoolOptions,
    slots: Mutex<Slots>,
    returned: Condvar,
}

impl std::fmt::Debug for StorePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StorePool")
            .field("options", &self.options)
            .field("slots", &self.slots)
            .finish_non_exhaustive()
    }
}

impl StorePool {
    /// A pool on the `SQLite` file `path` with the default options, with one handle opened now,
    /// so a file that cannot be opened fails here and not at the first request.
    pub fn open(path: &Path) -> Result<Arc<StorePool>, StoreError> {
        StorePool::open_with(path, OpenOptions::default())
    }

    /// [`StorePool::open`], every handle opened with `options` (for example a record that must
    /// exist, or one whose file mode is shared on purpose).
    pub fn open_with(path: &Path, options: OpenOptions) -> Result<Arc<StorePool>, StoreError> {
        let path = path.to_owned();
        StorePool::with_opener(
            Box::new(move || Store::open_with(&path, options)),
            Backend::Sqlite,
            PoolOptions::default(),
        )
    }

    /// A pool on `location` (a `SQLite` file or a `PostgreSQL` database), every handle opened
    /// with `options` and `pg`, at most `pool.size` of them at once; one is opened now, so a
    /// record that cannot be opened fails here and not at the first request.
    pub fn open_location(
        location: &Location,
        options: OpenOptions,
        pg: &PgOptions,
        pool: PoolOptions,
    ) -> Result<Arc<StorePool>, StoreError> {
        let (backend, location, pg) = (location.backend(), location.clone(), *pg);
        StorePool::with_opener(
            Box::new(move || Store::open_location(&location, options, &pg)),
            backend,
            pool,
        )
    }

    /// A pool whose handles `open` opens, one of them now.
    fn with_opener(
        open: Open,
        backend: Backend,
        options: PoolOptions,
    ) -> Result<Arc<StorePool>, StoreError> {
        let first = open()?;
        Ok(Arc::new(StorePool {
            open,
            backend,
            options: PoolOptions {
                size: options.size.max(1),
                ..options
            },
            slots: Mutex::new(Slots {
                idle: vec![(first, Instant::now())],
                open: 1,
            }),
            returned: Condvar::new(),
        }))
    }

    /// The options the pool was made with (its size at least one).
    #[must_use]
    pub fn options(&self) -> PoolOptions {
        self.options
    }

    fn slots(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A handle: an idle one, a new one while fewer than the pool's size are open, or the first
    /// one given back within the checkout timeout. Blocks: call it off the async runtime.
    pub fn get(self: &Arc<Self>) -> Result<PooledStore, StoreError> {
        let deadline = Instant::now() + self.options.checkout_timeout;
        let mut slots = self.slots();
        loop {
            if let Some((store, since)) = slots.idle.pop() {
                if store.is_broken() {
                    // Its connection closed while it was idle: closed, and a new one opened.
                    slots.open = slots.open.saturating_sub(1);
                    continue;
                }
                if since.elapsed() < VALIDATE_AFTER {
                    return Ok(self.pooled(store));
                }
                // Checked outside the lock: the round trip must not hold up the others.
                drop(slots);
                // Within the checkout's own deadline: stale handles on a dead network must not
                // add their timeouts up past it (a floor keeps one check meaningful).
                let left = deadline.saturating_duration_since(Instant::now());
                if store.is_valid(VALIDATE_TIMEOUT.min(left.max(Duration::from_millis(100)))) {
                    return Ok(self.pooled(store));
                }
                drop(store);
                slots = self.slots();
                slots.open = slots.open.saturating_sub(1);
                continue;
            }
            if slots.open < self.options.size {
                slots.open += 1;
                drop(slots);
                return match (self.open)() {
                    Ok(store) => Ok(self.pooled(store)),
                    Err(e) => {
                        self.release_slot();
                        Err(e)
                    }
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.full());
            }
            slots = self
                .returned
                .wait_timeout(slots, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The transient fault of a pool that stayed full for the checkout timeout, in the terms
    /// of its backend: `SQLite`'s busy database, or a `PostgreSQL` timeout.
    fn full(&self) -> StoreError {
        let op = "check out a pooled handle";
        match self.backend {
            Backend::Sqlite => StoreError::Db(DbError::Sqlite {
                op,
                kind: "DatabaseBusy".to_owned(),
            }),
            Backend::Postgres => StoreError::Db(DbError::Postgres {
                op,
                kind: "timeout".to_owned(),
            }),
        }
    }

    fn pooled(self: &Arc<Self>, store: Store) -> PooledStore {
        PooledStore {
            store: Some(store),
            pool: Arc::clone(self),
        }
    }

    /// One handle fewer is open (it failed to open, or was closed as broken): a waiting request
    /// may open one.
    fn release_slot(&self) {
        let mut slots = self.slots();
        slots.open = slots.open.saturating_sub(1);
        drop(slots);
        self.returned.notify_one();
    }

    /// How many handles are idle now.
    #[must_use]
    pub fn idle_count(&self) -> usize {
        self.slots().idle.len()
    }

    /// How many handles are open now, idle or in use.
    #[must_use]
    pub fn open_count(&self) -> usize {
        self.slots().open
    }
}

/// A handle taken from a [`StorePool`]; it goes back to the pool when dropped, or is closed if
/// it is broken.
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
            if store.is_broken() {
                // Its connection is gone: closed, and the slot freed for a new one.
                drop(store);
                self.pool.release_slot();
                return;
            }
            let mut slots = self.pool.slots();
            slots.idle.push((store, Instant::now()));
            drop(slots);
            self.pool.returned.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A pool of in-memory stores that counts how many it opened.
    fn counted(size: usize, timeout: Duration) -> (Arc<StorePool>, Arc<AtomicUsize>) {
        let opened = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&opened);
        let pool = StorePool::with_opener(
            Box::new(move || {
                count.fetch_add(1, Ordering::SeqCst);
                Store::open_in_memory()
            }),
            Backend::Sqlite,
            PoolOptions {
                size,
                checkout_timeout: timeout,
            },
        )
        .unwrap();
        (pool, opened)
    }

    #[test]
    fn handles_share_one_file_and_at_most_size_are_open() {
        let dir = tempfile::tempdir().unwrap();
        let pool = StorePool::open(&dir.path().join("answers.db")).unwrap();
        assert_eq!((pool.idle_count(), pool.open_count()), (1, 1));
        let size = PoolOptions::DEFAULT_SIZE;
        let held: Vec<PooledStore> = (0..size).map(|_| pool.get().unwrap()).collect();
        assert_eq!((pool.idle_count(), pool.open_count()), (0, size));
        held[0].upsert_subject("subj-1", "you", "UTC").unwrap();
        assert_eq!(
            held[size - 1].subjects().unwrap().len(),
            1,
            "one file under every handle"
        );
        drop(held);
        assert_eq!((pool.idle_count(), pool.open_count()), (size, size));
    }

    #[test]
    fn a_full_pool_refuses_after_the_timeout_with_a_transient_fault() {
        let (pool, opened) = counted(2, Duration::from_millis(50));
        let (a, b) = (pool.get().unwrap(), pool.get().unwrap());
        let started = Instant::now();
        let err = pool.get().expect_err("the pool is full");
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert!(err.is_transient(), "{err}");
        assert_eq!(opened.load(Ordering::SeqCst), 2, "no third handle opened");
        drop((a, b));
        assert!(pool.get().is_ok());
    }

    #[test]
    fn a_full_pool_is_told_in_its_backend_s_terms() {
        let (pool, _) = counted(1, Duration::from_millis(1));
        let sqlite = pool.full();
        assert!(matches!(sqlite, StoreError::Db(DbError::Sqlite { .. })) && sqlite.is_transient());
        let postgres = StorePool {
            backend: Backend::Postgres,
            ..Arc::into_inner(pool).unwrap()
        }
        .full();
        assert!(
            matches!(postgres, StoreError::Db(DbError::Postgres { .. })) && postgres.is_transient()
        );
    }

    #[test]
    fn a_waiting_request_gets_the_handle_given_back() {
        let (pool, opened) = counted(1, Duration::from_secs(10));
        let held = pool.get().unwrap();
        let waiter = {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || pool.get().map(|s| s.schema_version().is_ok()))
        };
        std::thread::sleep(Duration::from_millis(50));
        drop(held);
        assert!(waiter.join().unwrap().unwrap());
        assert_eq!(opened.load(Ordering::SeqCst), 1, "the one handle reused");
    }

    #[test]
    fn a_size_of_zero_still_keeps_one_handle() {
        let (pool, _) = counted(0, Duration::from_millis(10));
        assert_eq!(pool.options().size, 1);
        assert!(pool.get().is_ok());
    }

    #[test]
    fn a_handle_the_server_ended_while_idle_is_replaced_at_checkout() {
        use answers_store::test_support::TestDatabase;
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let pool = StorePool::open_location(
            db.location(),
            OpenOptions::default(),
            &PgOptions::default(),
            PoolOptions::default(),
        )
        .unwrap();
        pool.get()
            .unwrap()
            .upsert_subject("s", "you", "UTC")
            .unwrap();
        assert_eq!((pool.idle_count(), pool.open_count()), (1, 1));
        assert_eq!(
            db.terminate_backends(),
            1,
            "the pool's one idle backend was ended"
        );
        std::thread::sleep(VALIDATE_AFTER + Duration::from_millis(100));
        let store = pool.get().unwrap();
        assert_eq!(
            store.subjects().unwrap().len(),
            1,
            "the first read succeeds"
        );
        assert!(!store.is_broken());
    }

    #[test]
    fn a_file_that_cannot_be_opened_fails_at_open() {
        let dir = tempfile::tempdir().unwrap();
        assert!(StorePool::open(&dir.path().join("no/such/dir/answers.db")).is_err());
    }
}
