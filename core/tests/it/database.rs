//! `--database URL` (and `ANSWERS_DATABASE_URL`) on every store command, a password in it never
//! shown, `answers migrate`, and the service's pool against a `PostgreSQL` database that goes away
//! and comes back (issue #16).

use std::path::Path;
use std::time::Duration;

use answers_db::{Location, OpenOptions, PgOptions};
use answers_store::Store;
use answers_store::copy::{CopyOptions, TableCopy, copy};
use answers_store::test_support::{PASSWORD, TestDatabase, cluster_tls};
use phi_testkit::{Cmd, Run};

use crate::backends::{Backend, answers, demo_on, url_of};
use crate::e2e::{BIN, Server, s, seeded, token};

/// A password no output may carry.
const SECRET: &str = "pw-7Hq2xK-never-shown";

/// Seeds the demo record at `url`, writing its tokens to `tokens`.
fn seed_demo(url: &str, tokens: &Path) {
    answers(&[
        "seed",
        "--database",
        url,
        "--demo",
        "--tokens-file",
        s(tokens),
    ])
    .assert_code(0);
}

/// Every command that opens a store, on `--database URL`.
fn store_commands(url: &str) -> Vec<Vec<&str>> {
    vec![
        vec!["seed", "--database", url, "--demo"],
        vec![
            "query",
            "--database",
            url,
            "--subject",
            "you",
            "query_health_indicators",
        ],
        vec!["token", "issue", "--database", url, "--subject", "you"],
        vec!["token", "revoke", "--database", url],
        vec!["canary-present", "--database", url],
        vec![
            "import-genotypes",
            "--database",
            url,
            "--subject",
            "mom",
            "/dev/null",
        ],
        vec!["serve", "--database", url, "--listen", "127.0.0.1:0"],
        vec!["migrate", "--from", url, "--to", "sqlite:/nonexistent/x.db"],
    ]
}

fn assert_no_secret(run: &Run, args: &[&str]) {
    assert!(!run.stdout.contains(SECRET), "{args:?}: {run}");
    assert!(!run.stderr.contains(SECRET), "{args:?}: {run}");
}

#[test]
fn a_password_in_the_database_url_is_never_printed() {
    // Nothing listens on port 1: every command fails to connect and says where it tried.
    let url = format!("postgres://phi_password:{SECRET}@127.0.0.1:1/nowhere");
    let shown = "postgres://phi_password:***@127.0.0.1:1/nowhere";
    for args in store_commands(&url) {
        let run = Cmd::new(BIN, &args)
            .env("PHIGUARD_CANARY", "x")
            .env_remove("ANSWERS_DATABASE_URL")
            .stdin("not-a-token\n")
            .run();
        run.assert_code(2);
        assert!(run.stderr.contains(shown), "{args:?}: {run}");
        assert_no_secret(&run, &args);
    }
    // From the variable, the same.
    let args = ["query", "--subject", "you", "query_health_indicators"];
    let run = Cmd::new(BIN, &args).env("ANSWERS_DATABASE_URL", &url).run();
    run.assert_code(2);
    assert!(run.stderr.contains(shown), "{run}");
    assert_no_secret(&run, &args);
    // A URL that does not parse is refused without quoting it.
    let bad = format!("postgres://u:{SECRET}@h:notaport/db");
    for args in [
        vec!["query", "--db", &bad, "--subject", "you", "x"],
        vec!["migrate", "--from", &bad, "--to", "x.db"],
    ] {
        let run = answers(&args);
        run.assert_code(2);
        assert!(run.stderr.contains("malformed"), "{args:?}: {run}");
        assert_no_secret(&run, &args);
    }
}

#[test]
fn the_flag_wins_over_the_variable_and_answers_db_is_the_default() {
    let r = seeded();
    let query = ["query", "--subject", "you", "query_health_indicators"];
    let with_env = |value: &str, args: &[&str]| {
        Cmd::new(BIN, args)
            .env("ANSWERS_DATABASE_URL", value)
            .env_remove("ANSWERS_TOKENS")
            .run()
    };
    with_env(s(&r.db), &query).assert_code(0);
    let flagged = [&["query", "--database", s(&r.db)][..], &query[1..]].concat();
    with_env("/no/such/record.db", &flagged).assert_code(0);
    let refused = with_env("/no/such/record.db", &query);
    refused.assert_code(2);
    assert!(
        refused.stderr.contains("no database at /no/such/record.db"),
        "{refused}"
    );
    // Set but empty is a mistake, not "unset".
    let empty = with_env("", &query);
    empty.assert_code(2);
    assert!(empty.stderr.contains("ANSWERS_DATABASE_URL"), "{empty}");
    // Neither: answers.db in the working directory.
    let dir = tempfile::tempdir().expect("temp dir");
    let run = Cmd::new(BIN, &query)
        .env_remove("ANSWERS_DATABASE_URL")
        .current_dir(dir.path())
        .run();
    run.assert_code(2);
    assert!(run.stderr.contains("no database at answers.db"), "{run}");
}

/// Every table's rows and checksum of the record at `location`, read by copying it into memory.
fn fingerprint(location: &Location) -> Vec<TableCopy> {
    let store = Store::open_location(location, OpenOptions::default(), &PgOptions::default())
        .expect("open");
    let memory = Store::open_in_memory().expect("memory");
    copy(&store, &memory, CopyOptions::default(), |_| {}).expect("copy")
}

/// The answers `answers query` prints for a few calls on `url`: readings, medications and
/// genotypes.
fn answers_on(url: &str) -> Vec<String> {
    let calls = [
        ("you", "query_health_indicators", "{}"),
        ("mom", "query_health_indicators", "{}"),
        (
            "you",
            "query_health_indicators",
            r#"{"keywords":["steps"],"view":"stats"}"#,
        ),
        (
            "you",
            "query_health_indicators",
            r#"{"keywords":["heart rate"],"view":"day"}"#,
        ),
        ("mom", "query_medications", r#"{"view":"history"}"#),
        ("mom", "query_medications", r#"{"view":"log"}"#),
        ("mom", "query_genetic_data", r#"{"rsids":["rs4149056"]}"#),
        ("mom", "query_pharmacogenomics", "{}"),
    ];
    calls
        .iter()
        .map(|(subject, tool, args)| {
            let run = answers(&[
                "query",
                "--database",
                url,
                "--subject",
                subject,
                tool,
                args,
                "--json",
            ]);
            assert!(run.code == 0 || run.code == 1, "{tool}: {run}");
            run.stdout
        })
        .collect()
}

fn migrate_round_trip(backend: &Backend) {
    let target_dir = tempfile::tempdir().expect("temp dir");
    let pg;
    let target = match backend {
        Backend::Sqlite => format!("sqlite:{}", s(&target_dir.path().join("copy.db"))),
        Backend::Postgres => {
            let Some(db) = TestDatabase::create() else {
                return;
            };
            pg = db;
            url_of(&pg)
        }
    };
    let r = seeded();
    let run = answers(&["migrate", "--from", s(&r.db), "--to", &target]);
    run.assert_code(0);
    assert!(
        run.stderr.contains("series: 3795 rows copied and verified"),
        "{run}"
    );
    assert!(!run.stderr.contains("PHI-CANARY"), "{run}");
    let source = Location::sqlite(&r.db);
    let copied = Location::parse(&target).expect("location");
    assert_eq!(fingerprint(&source), fingerprint(&copied));
    assert_eq!(
        answers_on(s(&r.db)),
        answers_on(&target),
        "the same answers"
    );

    // Again: refused, the target is not empty; with --replace, copied over.
    let again = answers(&["migrate", "--from", s(&r.db), "--to", &target]);
    again.assert_code(2);
    assert!(again.stderr.contains("not empty"), "{again}");
    answers(&["migrate", "--from", s(&r.db), "--to", &target, "--replace"]).assert_code(0);
    assert_eq!(fingerprint(&source), fingerprint(&copied));
}

#[test]
fn migrate_copies_a_record_into_a_sqlite_file() {
    migrate_round_trip(&Backend::Sqlite);
}

#[test]
fn migrate_copies_a_record_into_postgres() {
    migrate_round_trip(&Backend::Postgres);
}

/// A copy of the seeded record holding one row the schema refuses (written with the checks
/// off, from a second connection): a copy of it fails at that row.
fn poisoned(record: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("poisoned.db");
    std::fs::copy(record, &copy).expect("copy the file");
    let conn = rusqlite::Connection::open(&copy).expect("open");
    conn.execute_batch(
        "PRAGMA ignore_check_constraints = ON;
         INSERT INTO series (subject_id, kind, name, system, code, start_utc, source)
         SELECT id, 'bogus', 'x', 'loinc', '8867-4', '2030-01-01T00:00:00Z', 'x'
           FROM subject LIMIT 1;",
    )
    .expect("poison");
    dir
}

fn a_failed_copy_leaves(backend: &Backend) {
    let Some(on) = demo_on(backend) else {
        return;
    };
    let target = Location::parse(&on.url).expect("location");
    let before = fingerprint(&target);
    let dir = poisoned(&on.record.db);
    let source = dir.path().join("poisoned.db");
    let run = answers(&[
        "migrate",
        "--from",
        s(&source),
        "--to",
        &on.url,
        "--replace",
    ]);
    run.assert_code(2);
    assert!(run.stderr.contains("unchanged"), "{run}");
    assert_eq!(fingerprint(&target), before, "the target is as it was");
    // A new SQLite target that a failed copy created is removed again.
    let fresh = dir.path().join("fresh.db");
    answers(&["migrate", "--from", s(&source), "--to", s(&fresh)]).assert_code(2);
    assert!(!fresh.exists());
}

#[test]
fn a_failed_migrate_leaves_a_sqlite_target_unchanged() {
    a_failed_copy_leaves(&Backend::Sqlite);
}

#[test]
fn a_failed_migrate_leaves_a_postgres_target_unchanged() {
    a_failed_copy_leaves(&Backend::Postgres);
}

/// Runs `sql` on the test cluster as its test role, in the database `url` names.
fn psql(url: &str, sql: &str) {
    let mut client: postgres::Client =
        postgres::Client::connect(url, postgres::NoTls).expect("the test cluster answers");
    client.batch_execute(sql).expect("sql");
}

#[test]
fn serve_on_postgres_with_a_password_never_shows_it() {
    let Some(on) = demo_on(&Backend::Postgres) else {
        return;
    };
    // The cluster's password role (`ci/pg-cluster`), given the test database's tables.
    psql(
        &on.url,
        "GRANT ALL ON SCHEMA public TO phi_password;
         GRANT ALL ON ALL TABLES IN SCHEMA public TO phi_password;
         GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO phi_password;",
    );
    let password = "phi-test-password";
    let url = on
        .url
        .replacen("://phi_test@", &format!("://phi_password:{password}@"), 1);
    assert_ne!(
        url, on.url,
        "the cluster's URL names the test role: {}",
        on.url
    );
    let you = token(&on.record, "you");
    let server = Server::start(Path::new(&url));
    let (status, body) = server.get("/api/v1/health-indicators", Some(&you));
    assert_eq!(status, 200, "{body}");
    let (status, _) = server.get("/api/v1/health-indicators", Some("wrong"));
    assert_eq!(status, 401);
    let lines = server.stop();
    assert!(
        lines.iter().any(|l| l.contains("answers serving")),
        "precondition: the log was read"
    );
    for line in &lines {
        assert!(!line.contains(password), "{line}");
    }
    // A wrong password: refused at start, the URL shown without it.
    let wrong = url.replacen(password, SECRET, 1);
    let run = answers(&["serve", "--database", &wrong, "--listen", "127.0.0.1:0"]);
    run.assert_code(2);
    assert!(run.stderr.contains("phi_password:***@"), "{run}");
    assert_no_secret(&run, &["serve"]);
}

#[test]
fn a_database_that_goes_away_is_store_unavailable_and_the_service_recovers() {
    let Some(on) = demo_on(&Backend::Postgres) else {
        return;
    };
    let name = on.pg.as_ref().expect("postgres").location().to_string();
    let name = name.rsplit('/').next().expect("a database name").to_owned();
    let admin = on.url.replacen(&format!("/{name}"), "/postgres", 1);
    let you = token(&on.record, "you");
    let server = Server::start_full(
        Path::new(&on.url),
        &[],
        &["--db-pool-size", "3", "--db-timeout", "2"],
    );
    let path = "/api/v1/health-indicators?keywords=steps&view=stats";
    let (status, before) = server.get(path, Some(&you));
    assert_eq!(status, 200, "{before}");
    // A burst of 12 at once is served by at most the pool's 3 connections.
    let at: std::net::SocketAddr = server.addr.parse().expect("an address");
    std::thread::scope(|scope| {
        let burst: Vec<_> = (0..12)
            .map(|_| scope.spawn(|| phi_testkit::http::get(at, path, Some(&you))))
            .collect();
        for request in burst {
            let answer = request.join().expect("a request").expect("an answer");
            assert_eq!(answer.status, 200, "{}", answer.text());
        }
    });
    let mut client = postgres::Client::connect(&admin, postgres::NoTls).expect("the cluster");
    let open: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1",
            &[&name],
        )
        .expect("pg_stat_activity")
        .get(0);
    assert!(
        (1..=3).contains(&open),
        "{open} connections for a pool of 3"
    );
    drop(client);

    // The database goes away: no new connection, every open one ended. Only client backends:
    // an autovacuum worker may be on the database too, and only a superuser may end it.
    psql(
        &admin,
        &format!(
            "ALTER DATABASE {name} ALLOW_CONNECTIONS false;
             SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE datname = '{name}' AND pid <> pg_backend_pid()
                AND backend_type = 'client backend';"
        ),
    );
    for _ in 0..5 {
        let (status, body) = server.get(path, Some(&you));
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["error"], "store_unavailable", "{body}");
    }
    // It comes back: the same answer, without a restart.
    psql(
        &admin,
        &format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true;"),
    );
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..5 {
        let (status, after) = server.get(path, Some(&you));
        assert_eq!((status, &after), (200, &before));
    }
    let lines = server.stop();
    assert!(
        lines.iter().any(|l| l.contains("answers stopped")),
        "{lines:?}"
    );
}

#[test]
fn seed_and_canary_present_run_on_postgres() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let url = url_of(&db);
    let dir = tempfile::tempdir().expect("temp dir");
    let tokens = dir.path().join("tokens");
    seed_demo(&url, &tokens);
    let present = Cmd::new(BIN, &["canary-present", "--database", &url])
        .env("PHIGUARD_CANARY", answers_demo::PHI_CANARY)
        .run();
    present.assert_code(0);
    assert_eq!(present.stdout, "present\n");
    let absent = Cmd::new(BIN, &["canary-present", "--database", &url])
        .env("PHIGUARD_CANARY", "PHI-CANARY-not-in-the-record")
        .run();
    absent.assert_code(1);
    // The seeded record answers as the seeded file does.
    let file = seeded();
    assert_eq!(answers_on(s(&file.db)), answers_on(&url));
}

/// A `PostgreSQL` cluster of the test's own (`ci/pg-cluster` on a free port), so it can be
/// stopped and started under a running service without touching the shared one; stopped when
/// dropped.
struct OwnCluster {
    dir: tempfile::TempDir,
    port: u16,
}

impl OwnCluster {
    const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../ci/pg-cluster");

    fn run(&self, action: &str) -> String {
        let out = std::process::Command::new(OwnCluster::SCRIPT)
            .args([action, s(self.dir.path())])
            .env("PG_PORT", self.port.to_string())
            .output()
            .expect("run ci/pg-cluster");
        assert!(
            out.status.success(),
            "ci/pg-cluster {action}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .expect("utf-8")
            .trim()
            .to_owned()
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new(OwnCluster::SCRIPT)
            .args(["stop", s(self.dir.path())])
            .env("PG_PORT", self.port.to_string())
            .status();
    }
}

#[test]
fn a_postgres_server_stopped_and_started_under_serve() {
    // The shared cluster's variables decide, as for every PostgreSQL test.
    if answers_store::test_support::cluster_url().is_none() {
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let cluster = OwnCluster {
        dir: tempfile::tempdir().expect("temp dir"),
        port,
    };
    let admin = cluster.run("start");
    psql(&admin, "CREATE DATABASE record");
    let url = admin.replacen("/postgres", "/record", 1);
    let tokens = cluster.dir.path().join("tokens");
    seed_demo(&url, &tokens);
    let text = std::fs::read_to_string(&tokens).expect("tokens");
    let you = text
        .lines()
        .find_map(|l| l.strip_prefix("you="))
        .expect("a token for you")
        .to_owned();
    let server = Server::start_full(Path::new(&url), &[], &["--db-connect-timeout", "2"]);
    let path = "/api/v1/health-indicators?keywords=weight&view=month";
    let (status, before) = server.get(path, Some(&you));
    assert_eq!(status, 200, "{before}");

    cluster.run("stop");
    for _ in 0..3 {
        let (status, body) = server.get(path, Some(&you));
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["error"], "store_unavailable", "{body}");
    }
    cluster.run("start");
    let (status, after) = server.get(path, Some(&you));
    assert_eq!(
        (status, &after),
        (200, &before),
        "answered again, no restart"
    );
    let lines = server.stop();
    assert!(
        lines.iter().any(|l| l.contains("answers stopped")),
        "{lines:?}"
    );
}

/// `verify-full` without `sslrootcert` checks the chain against the system's roots, which
/// `SSL_CERT_DIR` names as `OpenSSL` reads it: a directory holding the cluster's CA lets the
/// binary in, one holding an unrelated CA refuses it as untrusted.
#[test]
fn verify_full_finds_its_roots_in_ssl_cert_dir() {
    let (Some(db), Some(tls)) = (TestDatabase::create(), cluster_tls()) else {
        return;
    };
    let own = url_of(&db).replace("***", PASSWORD);
    assert!(own.contains("@127.0.0.1:") && !own.contains('?'), "{own}");
    let url = format!(
        "{}?sslmode=verify-full",
        own.replacen("@127.0.0.1:", "@localhost:", 1)
    );
    let dir = tempfile::tempdir().expect("temp dir");
    seed_demo(&url_of(&db), &dir.path().join("tokens"));
    let roots = |ca: &Path, name: &str| {
        let certs = dir.path().join(name);
        std::fs::create_dir(&certs).expect("a certificate directory");
        std::fs::copy(ca, certs.join("ca.pem")).expect("copy the CA");
        certs
    };
    let trusted = roots(&tls.ca, "trusted");
    let unrelated = roots(&tls.unrelated_ca, "unrelated");
    let run = |certs: &Path| {
        Cmd::new(BIN, &["canary-present", "--database", &url])
            .env("PHIGUARD_CANARY", answers_demo::PHI_CANARY)
            .env("SSL_CERT_DIR", s(certs))
            .env("SSL_CERT_FILE", "")
            .run()
    };
    let present = run(&trusted);
    present.assert_code(0);
    assert_eq!(present.stdout, "present\n");
    let refused = run(&unrelated);
    refused.assert_code(2);
    assert!(
        refused.stderr.contains("tls_certificate_untrusted"),
        "{refused}"
    );
    assert!(!format!("{refused}").contains(PASSWORD), "{refused}");
}
