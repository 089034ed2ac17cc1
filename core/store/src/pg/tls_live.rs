//! TLS to `PostgreSQL` on the wire: a server that offers no TLS (a loopback listener that
//! answers the protocol's `SSLRequest` with `N`, as such a server does).

use std::io::{Read, Write};
use std::net::TcpListener;

use crate::{Location, OpenOptions, PgOptions, Store, StoreError};

/// The `SSLRequest` a client sends before anything else: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// Opens `sslmode` against a listener that refuses TLS; what the client sent (the
/// `SSLRequest`, then the startup message if it went on in cleartext) and the store's answer.
fn against_a_server_without_tls(sslmode: &str) -> (Vec<u8>, Option<Vec<u8>>, StoreError) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut request = vec![0; 8];
        conn.read_exact(&mut request).unwrap();
        conn.write_all(b"N").unwrap();
        // A client that goes on sends its startup message: a length, then the body.
        let mut len = [0; 4];
        let startup = conn.read_exact(&mut len).ok().and_then(|()| {
            let mut body = vec![0; usize::try_from(u32::from_be_bytes(len)).ok()? - 4];
            conn.read_exact(&mut body).ok()?;
            Some(body)
        });
        (request, startup)
    });
    let url = format!("postgres://phi_test@127.0.0.1:{port}/none?sslmode={sslmode}");
    let err = Store::open_location(
        &Location::parse(&url).unwrap(),
        OpenOptions::default(),
        &PgOptions::default(),
    )
    .unwrap_err();
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
