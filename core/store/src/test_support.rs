//! Test support (feature `test-support`): a fresh `PostgreSQL` database per test on the test
//! cluster, and [`each_backend`], which runs one test body on both backends.
//!
//! The cluster is named by `PHI_POSTGRES_URL` (`ci/pg-cluster start target/pg` prints it), a
//! URL whose role may create databases. Each [`TestDatabase`] is a new database with a unique
//! name, dropped with it, so tests run in parallel. Nothing skips silently: with neither
//! `PHI_POSTGRES_URL` nor `PHI_SKIP_POSTGRES=1` set, the kit starts the workspace's own
//! cluster (`ci/pg-cluster start target/pg`), and a `PostgreSQL` test fails, saying what
//! failed and how to skip, only when that cannot start. The cluster speaks TLS; [`cluster_tls`]
//! names the CA its certificate is signed by, under the same rule.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::pg::pg_err;
use crate::{
    Frequency, Location, NewPlan, OpenOptions, PgOptions, Route, Store, StoreError, Subject,
};

/// What names the test cluster.
pub const URL_VAR: &str = "PHI_POSTGRES_URL";
/// What skips the `PostgreSQL` tests, explicitly.
pub const SKIP_VAR: &str = "PHI_SKIP_POSTGRES";
/// Names the CA of a cluster `PHI_POSTGRES_URL` names, when it is not the workspace's own.
pub const CA_VAR: &str = "PHI_POSTGRES_CA";
/// The test cluster's role that signs in with a password (`ci/pg-cluster`).
pub const PASSWORD_ROLE: &str = "phi_password";
/// Its password: a test cluster's, known to everyone.
pub const PASSWORD: &str = "phi-test-password";

/// A database of its own on the test cluster, dropped when this is.
#[derive(Debug)]
pub struct TestDatabase {
    admin: String,
    name: String,
    location: Location,
}

impl TestDatabase {
    /// A new, empty database; `None` when `PHI_SKIP_POSTGRES=1` says to skip.
    ///
    /// # Panics
    ///
    /// With neither variable set, or when the cluster cannot create the database.
    #[must_use]
    pub fn create() -> Option<TestDatabase> {
        TestDatabase::create_as(None)
    }

    /// A new, empty database owned by the test cluster's password role (`phi_password`,
    /// password `phi-test-password`, see `ci/pg-cluster`), whose location connects as that
    /// role with its password in the URL; `None` when skipped.
    ///
    /// # Panics
    ///
    /// As [`TestDatabase::create`], or when the cluster has no such role.
    #[must_use]
    pub fn with_password() -> Option<TestDatabase> {
        TestDatabase::create_as(Some((PASSWORD_ROLE, PASSWORD)))
    }

    fn create_as(owner: Option<(&str, &str)>) -> Option<TestDatabase> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let Some(admin) = cluster_url() else {
            eprintln!("PHI_SKIP_POSTGRES=1: this PostgreSQL test is skipped on purpose");
            return None;
        };
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "phi_t_{}_{}_{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut client = admin_client(&admin);
        let create = match owner {
            Some((role, _)) => format!("CREATE DATABASE {name} OWNER {role}"),
            None => format!("CREATE DATABASE {name}"),
        };
        if let Err(e) = client.batch_execute(&create) {
            fail(
                "the test cluster did not create a database",
                &pg_err("create", &e),
            );
        }
        let mut url = with_database(&admin, &name);
        if let Some((role, password)) = owner {
            url = with_user(&url, role, password);
        }
        let Ok(location) = Location::parse(&url) else {
            panic!("{URL_VAR} is not a PostgreSQL URL");
        };
        Some(TestDatabase {
            admin,
            name,
            location,
        })
    }

    /// Where the database is.
    #[must_use]
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// A new store handle on the database (migrated on first open).
    ///
    /// # Panics
    ///
    /// When the database cannot be opened.
    #[must_use]
    pub fn open(&self) -> Store {
        Store::open_location(
            &self.location,
            OpenOptions::default(),
            &PgOptions::default(),
        )
        .unwrap_or_else(|e| fail("the test database did not open", &e))
    }
}

impl TestDatabase {
    /// Ends every session on the database (as a restart or `pg_terminate_backend` would), and
    /// says how many it ended.
    ///
    /// # Panics
    ///
    /// When the cluster refuses.
    #[must_use]
    pub fn terminate_backends(&self) -> usize {
        let mut client = admin_client(&self.admin);
        let rows = client
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
                &[&self.name],
            )
            .unwrap_or_else(|e| {
                fail(
                    "the test cluster did not end the sessions",
                    &pg_err("terminate", &e),
                )
            });
        rows.iter().filter(|r| r.get::<_, bool>(0)).count()
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let mut client = admin_client(&self.admin);
        let _ = client.batch_execute(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ));
    }
}

/// The cluster's URL, `None` when skipped explicitly.
///
/// `PHI_POSTGRES_URL` names it. Without it, and unless `PHI_SKIP_POSTGRES=1`, the test kit
/// starts the workspace's own throwaway cluster, once per test process:
/// `ci/pg-cluster start target/pg`, which takes a lock, so parallel test binaries share one
/// cluster. It keeps running after the tests, for the next run; `ci/pg-cluster stop
/// target/pg` stops it.
///
/// # Panics
///
/// When the cluster is neither named nor skipped, and cannot be started (no `PostgreSQL`
/// binaries, say): the message says what failed and how to skip.
#[must_use]
pub fn cluster_url() -> Option<String> {
    static STARTED: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    if let Ok(url) = std::env::var(URL_VAR)
        && !url.is_empty()
    {
        return Some(url);
    }
    if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
        return None;
    }
    match STARTED.get_or_init(start_cluster) {
        Ok(url) => Some(url.clone()),
        // phi-lint: allow(phi::print, reason = "the test cluster script's own error (initdb or pg_ctl), which holds no record data")
        Err(why) => panic!(
            "this test needs PostgreSQL, and the test kit could not start the workspace's \
             cluster ({why}): install PostgreSQL's server binaries, or name a cluster with \
             `export {URL_VAR}=postgres://…`, or set {SKIP_VAR}=1 to skip the PostgreSQL \
             tests explicitly"
        ),
    }
}

/// Starts `ci/pg-cluster` under the workspace's `target/pg`; its URL, or why not.
fn start_cluster() -> Result<String, String> {
    let url = pg_cluster("start")?;
    if !url.starts_with("postgres://") {
        return Err("`ci/pg-cluster start` printed no URL".to_owned());
    }
    eprintln!(
        "{URL_VAR} is not set: the test kit started the workspace's PostgreSQL cluster \
         under target/pg (`ci/pg-cluster url target/pg` prints its URL, \
         `ci/pg-cluster stop target/pg` stops it)"
    );
    Ok(url)
}

/// `ci/pg-cluster COMMAND target/pg` on the workspace's cluster: what it printed, or why not.
fn pg_cluster(command: &str) -> Result<String, String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = root.join("ci/pg-cluster");
    let out = std::process::Command::new(&script)
        .arg(command)
        .arg(root.join("target/pg"))
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("`{}` did not run: {e}", script.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "`ci/pg-cluster {command}` failed: {}",
            stderr.trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The test cluster's TLS files (`ci/pg-cluster`): PEM certificates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterTls {
    /// The CA that signed the server's certificate, which names `localhost` and `127.0.0.1`.
    pub ca: PathBuf,
    /// A CA that signed nothing the cluster holds: verifying against it must fail.
    pub unrelated_ca: PathBuf,
}

/// The test cluster's CA and an unrelated one; `None` when skipped explicitly
/// (`PHI_SKIP_POSTGRES=1`), as [`cluster_url`].
///
/// `PHI_POSTGRES_CA` names the CA (with `unrelated-ca.crt` beside it) of a cluster that
/// `PHI_POSTGRES_URL` names; without it the CA is the workspace's cluster's, from
/// `ci/pg-cluster ca target/pg`.
///
/// # Panics
///
/// As [`cluster_url`], and when the files are not there: a cluster without TLS fails its TLS
/// tests rather than skipping them.
#[must_use]
pub fn cluster_tls() -> Option<ClusterTls> {
    cluster_url()?;
    let ca = match std::env::var(CA_VAR) {
        Ok(path) if !path.is_empty() => PathBuf::from(path),
        _ => match pg_cluster("ca") {
            Ok(path) => PathBuf::from(path),
            // phi-lint: allow(phi::print, reason = "the test cluster script's own error, which names a path and holds no record data")
            Err(why) => panic!(
                "this test needs the test cluster's TLS CA ({why}): start it with \
                 `ci/pg-cluster start target/pg`, or name the CA of the cluster \
                 {URL_VAR} names with `export {CA_VAR}=PATH`"
            ),
        },
    };
    let unrelated_ca = ca.with_file_name("unrelated-ca.crt");
    assert!(
        ca.is_file() && unrelated_ca.is_file(),
        "the test cluster's CA or unrelated-ca.crt beside it is missing ({CA_VAR}, \
         `ci/pg-cluster ca target/pg`)"
    );
    Some(ClusterTls { ca, unrelated_ca })
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

fn admin_client(url: &str) -> postgres::Client {
    postgres::Config::from_str(url)
        .and_then(|c| c.connect(postgres::NoTls))
        .unwrap_or_else(|e| fail("the test cluster does not answer", &pg_err("connect", &e)))
}

/// Fails the test, telling what failed and the store error's kind.
fn fail(what: &'static str, e: &StoreError) -> ! {
    // phi-lint: allow(phi::error-message, reason = "store errors carry codes, never values")
    panic!("{what}: {e}")
}

/// `url` connecting as `role` with `password` instead of its own user.
fn with_user(url: &str, role: &str, password: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let rest = match rest.find(['/', '?']).map(|end| rest[..end].rfind('@')) {
        Some(Some(at)) => &rest[at + 1..],
        _ => rest,
    };
    format!("{scheme}://{role}:{password}@{rest}")
}

/// `url` naming the database `name` instead of its own.
fn with_database(url: &str, name: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let query = tail.split_once('?').map(|(_, q)| q);
    match query {
        Some(q) => format!("{scheme}://{authority}/{name}?{q}"),
        None => format!("{scheme}://{authority}/{name}"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_swapped_in_the_url() {
        assert_eq!(
            with_database("postgres://u@h:1/postgres", "t1"),
            "postgres://u@h:1/t1"
        );
        assert_eq!(
            with_database("postgres://u@h?host=/s", "t1"),
            "postgres://u@h/t1?host=/s"
        );
        assert_eq!(
            with_user("postgres://u@h:1/t1", "r", "pw"),
            "postgres://r:pw@h:1/t1"
        );
        assert_eq!(
            with_user("postgres://h/t1", "r", "pw"),
            "postgres://r:pw@h/t1"
        );
    }
}
