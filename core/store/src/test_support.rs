//! Test support (feature `test-support`): the connection layer's test kit (a fresh `PostgreSQL`
//! database per test on the test cluster, `answers_db::test_support`), a store opened on such a
//! database ([`OpenStore`]), and [`each_backend`], which runs one test body on both backends.

use answers_db::test_support::fail;
pub use answers_db::test_support::{
    CA_VAR, ClusterTls, PASSWORD, PASSWORD_ROLE, SKIP_VAR, TestDatabase, URL_VAR, cluster_tls,
    cluster_url,
};

use crate::{Frequency, NewPlan, Route, SCHEMA, Store, Subject};

/// A store on a [`TestDatabase`].
pub trait OpenStore {
    /// A new store handle on the database (migrated on first open).
    ///
    /// # Panics
    ///
    /// When the database cannot be opened.
    fn open(&self) -> Store;
}

impl OpenStore for TestDatabase {
    fn open(&self) -> Store {
        Store::from_db(self.connect(&SCHEMA))
    }
}

/// Runs `body` on a new in-memory `SQLite` store, then on a store in a fresh `PostgreSQL`
/// database (unless skipped explicitly): one test body, both backends.
///
/// # Panics
///
/// As [`TestDatabase::create`].
pub fn each_backend(mut body: impl FnMut(Store)) {
    body(Store::open_in_memory().unwrap_or_else(|e| fail("no in-memory store", &e)));
    if let Some(db) = TestDatabase::create() {
        body(db.open());
    }
}

/// A record in memory of one person (`s1`, handle `you`, in zone `tz`) with one active plan:
/// atorvastatin `p1`, orally once a day from `start`, and no dose yet.
///
/// # Panics
///
/// When `tz` is not a time zone or `start` not a `YYYY-MM-DD` day.
#[must_use]
pub fn one_plan(tz: &str, start: &str) -> (Store, Subject) {
    let mut store = Store::open_in_memory().expect("an in-memory store");
    let who = store.upsert_subject("s1", "you", tz).expect("the subject");
    let plan = NewPlan::active(
        "p1",
        "s1",
        "Atorvastatin",
        Frequency::OnceDaily,
        Route::Oral,
        start.parse().expect("a YYYY-MM-DD day"),
    );
    store.upsert_plans(&[plan]).expect("the plan");
    (store, who)
}
