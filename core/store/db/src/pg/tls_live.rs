//! TLS to `PostgreSQL` on the wire: against the test cluster, which speaks TLS with a
//! certificate for `localhost` and 127.0.0.1 signed by its own CA (`ci/pg-cluster`), each
//! `sslmode` is checked by the server's own account (`pg_stat_ssl`); and a server that offers
//! no TLS (a loopback listener that answers the protocol's `SSLRequest` with `N`, as such a
//! server does).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;

use crate::test_support::{ClusterTls, PASSWORD, SCHEMA, TestDatabase, cluster_tls, count};
use crate::{Db, DbError, Location, OpenOptions, PgOptions};

/// A host name the cluster's certificate does not hold; `hostaddr` dials the cluster.
const OTHER_HOST: &str = "not-in-the-certificate.invalid";

/// The test database and the cluster's CAs; `None` when skipped explicitly.
fn setup() -> Option<(TestDatabase, ClusterTls)> {
    Some((TestDatabase::create()?, cluster_tls()?))
}

/// `db`'s URL with `host` for its host and `query` for its parameters.
fn url(db: &TestDatabase, host: &str, query: &str) -> String {
    let own = db.location().to_string().replace("***", PASSWORD);
    assert!(
        own.contains("@127.0.0.1:") && !own.contains('?'),
        "the test cluster's URL names 127.0.0.1 and no parameters"
    );
    format!(
        "{}?{query}",
        own.replacen("@127.0.0.1:", &format!("@{host}:"), 1)
    )
}

/// `sslrootcert=PATH`.
fn root(path: &Path) -> String {
    format!("sslrootcert={}", path.display())
}

fn open(url: &str) -> Result<Db, DbError> {
    Db::open(
        &Location::parse(url).unwrap(),
        OpenOptions::default(),
        &PgOptions::default(),
        &SCHEMA,
    )
}

/// Whether the server says this connection's session is encrypted (its row in `pg_stat_ssl`).
fn encrypted(db: &Db) -> bool {
    let own = "FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
    assert_eq!(count(db, &format!("SELECT COUNT(*) {own}")), 1, "one row");
    count(db, &format!("SELECT COUNT(*) {own} AND ssl")) == 1
}

/// The kind of `result`'s refusal, checked to be a lasting one.
fn refused(result: Result<Db, DbError>) -> String {
    let Err(err) = result else {
        panic!("not refused")
    };
    assert!(!err.is_transient(), "{err}");
    err.to_string()
}

#[test]
fn verify_full_to_localhost_with_the_clusters_ca_is_encrypted() {
    let Some((db, tls)) = setup() else {
        return;
    };
    let store = open(&url(
        &db,
        "localhost",
        &format!("sslmode=verify-full&{}", root(&tls.ca)),
    ));
    assert!(encrypted(&store.unwrap()));
    // The certificate names 127.0.0.1 too.
    let store = open(&url(
        &db,
        "127.0.0.1",
        &format!("sslmode=verify-full&{}", root(&tls.ca)),
    ));
    assert!(encrypted(&store.unwrap()));
}

#[test]
fn verify_ca_checks_the_chain_and_verify_full_the_name_too() {
    let Some((db, tls)) = setup() else {
        return;
    };
    let ca = root(&tls.ca);
    let store = open(&url(&db, "127.0.0.1", &format!("sslmode=verify-ca&{ca}")));
    assert!(encrypted(&store.unwrap()));
    let elsewhere = format!("hostaddr=127.0.0.1&{ca}");
    let store = open(&url(
        &db,
        OTHER_HOST,
        &format!("sslmode=verify-ca&{elsewhere}"),
    ));
    assert!(
        encrypted(&store.unwrap()),
        "verify-ca does not check the name"
    );
    let text = refused(open(&url(
        &db,
        OTHER_HOST,
        &format!("sslmode=verify-full&{elsewhere}"),
    )));
    assert!(text.contains("tls_certificate_wrong_host"), "{text}");
}

#[test]
fn a_certificate_another_ca_signed_is_refused_as_untrusted_and_the_password_never_shown() {
    let (Some(db), Some(tls)) = (TestDatabase::with_password(), cluster_tls()) else {
        return;
    };
    let via = "hostaddr=127.0.0.1";
    // The URL signs in with the right CA: the refusals below are the CA's alone.
    let good = url(
        &db,
        "localhost",
        &format!("sslmode=verify-full&{via}&{}", root(&tls.ca)),
    );
    assert!(good.contains(PASSWORD));
    assert!(encrypted(&open(&good).unwrap()));
    for mode in ["verify-full", "verify-ca", "require"] {
        let wrong = url(
            &db,
            "localhost",
            &format!("sslmode={mode}&{via}&{}", root(&tls.unrelated_ca)),
        );
        let Err(err) = open(&wrong) else {
            panic!("{mode}: not refused")
        };
        let text = format!("{err} {err:?}");
        assert!(text.contains("tls_certificate_untrusted"), "{mode}: {text}");
        assert!(!text.contains(PASSWORD), "{mode}: {text}");
        assert!(!err.is_transient(), "{mode}: {text}");
    }
}

#[test]
fn require_and_prefer_encrypt_and_disable_does_not() {
    let Some((db, _)) = setup() else {
        return;
    };
    assert!(encrypted(
        &open(&url(&db, "127.0.0.1", "sslmode=require")).unwrap()
    ));
    assert!(encrypted(
        &open(&url(&db, "localhost", "sslmode=require")).unwrap()
    ));
    assert!(encrypted(
        &open(&url(&db, "127.0.0.1", "sslmode=prefer")).unwrap()
    ));
    // No sslmode on a loopback host is `prefer`: TLS, since the server offers it.
    assert!(encrypted(&db.connect(&SCHEMA)));
    assert!(!encrypted(
        &open(&url(&db, "127.0.0.1", "sslmode=disable")).unwrap()
    ));
}

/// The `SSLRequest` a client sends before anything else: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// Opens `sslmode` against a listener that refuses TLS; what the client sent (the
/// `SSLRequest`, then the startup message if it went on in cleartext) and the refusal.
fn against_a_server_without_tls(sslmode: &str) -> (Vec<u8>, Option<Vec<u8>>, DbError) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        // A client that says something else than expected must not hang the test.
        conn.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        let mut request = vec![0; 8];
        conn.read_exact(&mut request).unwrap();
        conn.write_all(b"N").unwrap();
        // A client that goes on sends its startup message: a length, then the body. The
        // listener then hangs up.
        let mut len = [0; 4];
        let startup = conn.read_exact(&mut len).ok().and_then(|()| {
            let len = usize::try_from(u32::from_be_bytes(len)).ok()?;
            let mut body = vec![0; len.checked_sub(4).filter(|&n| n < 10_000)?];
            conn.read_exact(&mut body).ok()?;
            Some(body)
        });
        (request, startup)
    });
    let url =
        format!("postgres://phi_test@127.0.0.1:{port}/none?sslmode={sslmode}&connect_timeout=10");
    let Err(err) = open(&url) else {
        panic!("a server without TLS was accepted")
    };
    let (request, startup) = server.join().unwrap();
    (request, startup, err)
}

#[test]
fn require_against_a_server_without_tls_is_refused_by_name() {
    let (request, startup, err) = against_a_server_without_tls("require");
    assert_eq!(request, SSL_REQUEST, "the client asked for TLS first");
    assert_eq!(startup, None, "nothing was sent in cleartext");
    assert!(err.to_string().contains("tls_not_supported"), "{err}");
    assert!(!err.is_transient());
}

#[test]
fn prefer_against_a_server_without_tls_goes_on_in_cleartext() {
    let (request, startup, _) = against_a_server_without_tls("prefer");
    assert_eq!(request, SSL_REQUEST, "the client asked for TLS first");
    let startup = startup.expect("a startup message after the refusal");
    // Protocol 3.0, then the parameters in clear: the user among them.
    assert_eq!(startup[..4], [0, 3, 0, 0]);
    assert!(
        startup.windows(13).any(|w| w == b"user\0phi_test"),
        "{startup:?}"
    );
}

#[test]
fn without_sslrootcert_verification_is_on_the_system_roots_which_do_not_trust_the_test_ca() {
    let Some((db, tls)) = setup() else {
        return;
    };
    // The machine has system roots (else the refusal would be `tls_system_roots_unavailable`).
    let system = super::tls::roots::system_roots().expect("the system's roots");
    assert!(system.len() > 10, "{} system roots", system.len());
    // A bundle is read whole: the cluster's CA as one is one root.
    let missing = tls.ca.with_file_name("missing.pem");
    assert_eq!(
        super::tls::roots::roots_from(&[missing, tls.ca])
            .unwrap()
            .len(),
        1
    );
    for query in [
        "sslmode=verify-full&hostaddr=127.0.0.1",
        "sslmode=verify-full&hostaddr=127.0.0.1&sslrootcert=system",
    ] {
        let text = refused(open(&url(&db, "localhost", query)));
        assert!(
            text.contains("tls_certificate_untrusted"),
            "{query}: {text}"
        );
    }
    // A host the certificate does not name, with no sslmode: verify-full on the system roots,
    // never an unverified `require`.
    let text = refused(open(&url(&db, OTHER_HOST, "hostaddr=127.0.0.1")));
    assert!(text.contains("tls_certificate_untrusted"), "{text}");
    // The system's roots check no name under verify-ca, so they are refused there, and for
    // `require` with `sslrootcert=system` (which means verify-ca), before anything is sent.
    for query in [
        "sslmode=verify-ca&hostaddr=127.0.0.1",
        "sslmode=verify-ca&hostaddr=127.0.0.1&sslrootcert=system",
        "sslmode=require&hostaddr=127.0.0.1&sslrootcert=system",
    ] {
        let text = refused(open(&url(&db, "localhost", query)));
        assert!(text.contains("tls_root_cert_required"), "{query}: {text}");
    }
}
