//! The demo record on either backend, for the tests that run the real binary on both: a
//! `SQLite` file, or a fresh `PostgreSQL` database on the test cluster (`PHI_POSTGRES_URL`,
//! `answers_store::test_support`) holding the same record, copied there by `answers migrate`.

use std::path::Path;

use answers_store::test_support::TestDatabase;
use phi_testkit::{Cmd, Run};

use crate::e2e::{BIN, Record, s, seeded};

/// Where a test's record lives.
pub(crate) enum Backend {
    /// The seeded `SQLite` file.
    Sqlite,
    /// A `PostgreSQL` database the seeded record was migrated into.
    Postgres,
}

/// The demo record (and its tokens file) on one backend.
pub(crate) struct OnBackend {
    /// The seeded `SQLite` record, also the source of the `PostgreSQL` copy.
    pub(crate) record: Record,
    /// `--database`: the file, or the `PostgreSQL` URL (the test cluster's role, no password).
    pub(crate) url: String,
    /// The `PostgreSQL` database, dropped with this.
    pub(crate) pg: Option<TestDatabase>,
}

/// `answers ARGS` with the token variables and `ANSWERS_DATABASE_URL` removed.
pub(crate) fn answers(args: &[&str]) -> Run {
    Cmd::new(BIN, args)
        .env_remove("ANSWERS_TOKENS")
        .env_remove("ANSWERS_TOKENS_FILE")
        .env_remove("ANSWERS_DATABASE_URL")
        .run()
}

/// The URL of a `PostgreSQL` test database. The cluster's test role logs in without a password,
/// so the location's `Display` (password hidden) is the URL itself.
pub(crate) fn url_of(db: &TestDatabase) -> String {
    db.location().to_string()
}

/// `answers migrate --from FILE --to URL`, which must succeed.
pub(crate) fn migrate(from: &Path, to: &str) {
    let run = answers(&["migrate", "--from", s(from), "--to", to]);
    run.assert_code(0);
}

/// The demo record on `backend`; `None` for `PostgreSQL` when `PHI_SKIP_POSTGRES=1` skips it
/// (said on stderr).
pub(crate) fn demo_on(backend: &Backend) -> Option<OnBackend> {
    let record = seeded();
    match backend {
        Backend::Sqlite => {
            let url = s(&record.db).to_owned();
            Some(OnBackend {
                record,
                url,
                pg: None,
            })
        }
        Backend::Postgres => {
            let db = TestDatabase::create()?;
            let url = url_of(&db);
            migrate(&record.db, &url);
            Some(OnBackend {
                record,
                url,
                pg: Some(db),
            })
        }
    }
}
