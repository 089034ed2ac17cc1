//! TLS to `PostgreSQL`, with `libpq`'s `sslmode` meanings (rustls, the `ring` provider):
//!
//! - `disable`: cleartext;
//! - `prefer`: TLS if the server offers it, else cleartext; the certificate is not checked;
//! - `require`: TLS or no connection; the certificate is not checked (as `libpq` without a
//!   root certificate);
//! - `verify-ca`: TLS, the server's chain checked against `sslrootcert=PATH` (PEM), which it
//!   needs: without one (or with `sslrootcert=system`) it is refused, `tls_root_cert_required`,
//!   since any public certificate chains to the system's roots;
//! - `verify-full`: TLS, the chain checked against `sslrootcert=PATH`, or the system's roots
//!   without it (or with `sslrootcert=system`, as `libpq` 16), and the certificate must name the
//!   host (a DNS or IP SAN).
//!
//! With no `sslmode`, a loopback host or a Unix socket is `prefer` (`libpq`'s default); any other
//! host is `verify-full`, so that a health record never crosses a network in cleartext or to a
//! server nobody authenticated. The system's roots are the PEM bundle `SSL_CERT_FILE` names and
//! the files of the directories `SSL_CERT_DIR` lists, as `OpenSSL` reads them (within
//! [`DIR_CAPS`](roots::DIR_CAPS)), else the first of the distributions' bundles that exists
//! ([`SYSTEM_BUNDLES`](roots::SYSTEM_BUNDLES)). A Unix socket never uses TLS (the server offers
//! none there), whatever the mode, as `libpq` does.

pub(super) mod roots;
mod url;
mod verifiers;

use std::net::IpAddr;
use std::sync::Arc;

use postgres::config::{Host, SslMode as DriverMode};
use rustls::CertificateError;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::DbError;

use roots::{root_cert, system_roots};
pub(crate) use url::{SslMode, TlsUrl, split};
use verifiers::{ChainOnly, Unverified};

/// Whether every host of `hosts` is this machine (a loopback name or address, or a socket).
fn all_local(hosts: &[Host], addrs: &[IpAddr]) -> bool {
    let host_local = |h: &Host| match h {
        Host::Tcp(name) => {
            name.eq_ignore_ascii_case("localhost")
                || name
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
        Host::Unix(_) => true,
    };
    hosts.iter().all(host_local) && addrs.iter().all(IpAddr::is_loopback)
}

/// The mode `tls` means for `config`'s hosts, set on `config`, and the connector for it.
pub(crate) fn configure(
    tls: &TlsUrl,
    config: &mut postgres::Config,
) -> Result<MakeRustlsConnect, DbError> {
    let hosts = config.get_hosts();
    // The driver dials `hostaddr` over TCP whenever it is given, whatever `host` says: only
    // sockets with no `hostaddr` stay on the machine.
    let sockets_only = config.get_hostaddrs().is_empty()
        && !hosts.is_empty()
        && hosts.iter().all(|h| matches!(h, Host::Unix(_)));
    let mode = match tls.mode {
        _ if sockets_only => SslMode::Disable,
        // As libpq: `require` with a root certificate checks the chain (`verify-ca`).
        Some(SslMode::Require) if tls.root_cert.is_some() => SslMode::VerifyCa,
        Some(mode) => mode,
        None if all_local(hosts, config.get_hostaddrs()) => SslMode::Prefer,
        None => SslMode::VerifyFull,
    };
    config.ssl_mode(match mode {
        SslMode::Disable => DriverMode::Disable,
        SslMode::Prefer => DriverMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => DriverMode::Require,
    });
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|_| tls_err("tls_configuration"))?;
    let verifier: Arc<dyn ServerCertVerifier> = match mode {
        SslMode::Disable | SslMode::Prefer | SslMode::Require => {
            Arc::new(Unverified(Arc::clone(&provider)))
        }
        SslMode::VerifyCa | SslMode::VerifyFull => {
            let file = tls
                .root_cert
                .as_deref()
                .filter(|path| path.as_os_str() != "system");
            // Any publicly trusted certificate chains to the system's roots, so they
            // authenticate nobody unless the name is checked too: as libpq 16, they serve
            // `verify-full` only.
            if file.is_none() && mode == SslMode::VerifyCa {
                return Err(tls_err("tls_root_cert_required"));
            }
            let roots = match file {
                Some(path) => root_cert(path)?,
                None => system_roots()?,
            };
            let full = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|_| tls_err("tls_root_cert_unreadable"))?;
            if mode == SslMode::VerifyCa {
                Arc::new(ChainOnly(full))
            } else {
                full
            }
        }
    };
    let client = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(client))
}

fn tls_err(kind: &str) -> DbError {
    DbError::Postgres {
        op: "open",
        kind: kind.to_owned(),
    }
}

/// The kind of a failed TLS handshake (`e` is the driver's TLS error).
pub(crate) fn handshake_kind(e: &postgres::Error) -> &'static str {
    use std::error::Error as _;
    let rustls = e
        .source()
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .and_then(|io| io.get_ref())
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    match rustls {
        // No root of those trusted signed the chain (the wrong CA, or a self-signed one).
        Some(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)) => {
            "tls_certificate_untrusted"
        }
        // verify-full: the certificate is for another host.
        Some(rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        )) => "tls_certificate_wrong_host",
        Some(rustls::Error::InvalidCertificate(_)) => "tls_certificate_rejected",
        None if e
            .source()
            .is_some_and(|s| s.to_string().contains("does not support TLS")) =>
        {
            "tls_not_supported"
        }
        _ => "tls_handshake_failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode_for(url: &str) -> Result<DriverMode, DbError> {
        let tls = split(url).unwrap();
        let mut config: postgres::Config = tls.url.parse().unwrap();
        configure(&tls, &mut config).map(|_| config.get_ssl_mode())
    }

    #[test]
    fn the_system_roots_never_serve_a_check_without_the_name() {
        for url in [
            "postgres://u@db.internal/db?sslmode=verify-ca",
            "postgres://u@db.internal/db?sslmode=verify-ca&sslrootcert=system",
            "postgres://u@db.internal/db?sslmode=require&sslrootcert=system",
        ] {
            let err = mode_for(url).unwrap_err().to_string();
            assert!(err.contains("tls_root_cert_required"), "{url}: {err}");
        }
    }

    #[test]
    fn a_remote_host_without_sslmode_must_verify_and_a_local_one_prefers() {
        // verify-full, on the system's roots.
        assert_eq!(
            mode_for("postgres://u@db.internal/db").map_err(|e| e.to_string()),
            system_roots()
                .map(|_| DriverMode::Require)
                .map_err(|e| e.to_string())
        );
        for (url, mode) in [
            ("postgres://u@127.0.0.1/db", DriverMode::Prefer),
            ("postgres://u@localhost/db", DriverMode::Prefer),
            ("postgres://u@[::1]/db", DriverMode::Prefer),
            (
                "postgres://u@db.internal/db?sslmode=require",
                DriverMode::Require,
            ),
            // A socket never uses TLS (the server offers none there), as libpq.
            (
                "postgres:///db?host=/run/pg&sslmode=require",
                DriverMode::Disable,
            ),
            // ... but a `hostaddr` is dialled over TCP whatever `host` says.
            (
                "postgres:///db?host=/run/pg&hostaddr=10.0.0.5&sslmode=require",
                DriverMode::Require,
            ),
        ] {
            assert_eq!(mode_for(url).unwrap(), mode, "{url}");
        }
    }

    #[test]
    fn a_root_certificate_given_must_be_readable() {
        // As libpq: the certificate given is used with `require` too (here unreadable, so the
        // connection is refused instead of going unverified), and verification needs it.
        for url in [
            "postgres://u@db.internal/db?sslmode=require&sslrootcert=/nonexistent",
            "postgres://u@127.0.0.1/db?sslmode=verify-full&sslrootcert=/nonexistent",
        ] {
            let err = mode_for(url).unwrap_err().to_string();
            assert!(err.contains("tls_root_cert_unreadable"), "{url}: {err}");
        }
    }

    #[test]
    fn without_sslrootcert_or_with_system_verify_full_is_on_the_system_roots() {
        for url in [
            "postgres://u@127.0.0.1/db?sslmode=verify-full",
            "postgres://u@127.0.0.1/db?sslmode=verify-full&sslrootcert=system",
        ] {
            assert_eq!(
                mode_for(url).map_err(|e| e.to_string()),
                system_roots()
                    .map(|_| DriverMode::Require)
                    .map_err(|e| e.to_string()),
                "{url}"
            );
        }
    }
}
