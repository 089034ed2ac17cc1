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
//! server nobody authenticated. The system's roots are the PEM bundle `SSL_CERT_FILE` names, as
//! `OpenSSL` reads it, else the first of the distributions' bundles that exists
//! ([`SYSTEM_BUNDLES`]). A Unix socket never uses TLS (the server offers none there), whatever
//! the mode, as `libpq` does.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use postgres::config::{Host, SslMode as DriverMode};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::{LocationError, StoreError};

/// `libpq`'s `sslmode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// A URL with its TLS parameters taken out (the driver knows neither `verify-*` nor
/// `sslrootcert`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TlsUrl {
    /// The URL without `sslmode` and `sslrootcert`: what the driver parses.
    pub(crate) url: String,
    /// The `sslmode` given, if any.
    pub(crate) mode: Option<SslMode>,
    /// The `sslrootcert` given, if any.
    pub(crate) root_cert: Option<PathBuf>,
}

/// Splits the TLS parameters out of `url`. The query starts at the first `?` after the
/// credentials (which run to the first `@`, as the driver reads them).
pub(crate) fn split(url: &str) -> Result<TlsUrl, LocationError> {
    let after_credentials = url.find('@').map_or(0, |at| at + 1);
    let Some(q) = url[after_credentials..]
        .find('?')
        .map(|q| q + after_credentials)
    else {
        return Ok(TlsUrl {
            url: url.to_owned(),
            mode: None,
            root_cert: None,
        });
    };
    let (mut mode, mut root_cert) = (None, None);
    let mut kept = Vec::new();
    for param in url[q + 1..].split('&') {
        match param.split_once('=') {
            Some(("sslmode", value)) => {
                mode = Some(match decode(value)?.as_str() {
                    "disable" => SslMode::Disable,
                    "prefer" => SslMode::Prefer,
                    "require" => SslMode::Require,
                    "verify-ca" => SslMode::VerifyCa,
                    "verify-full" => SslMode::VerifyFull,
                    _ => return Err(LocationError::UnknownSslMode),
                });
            }
            Some(("sslrootcert", value)) => root_cert = Some(PathBuf::from(decode(value)?)),
            _ => kept.push(param),
        }
    }
    let mut rest = url[..q].to_owned();
    if !kept.is_empty() {
        rest.push('?');
        rest.push_str(&kept.join("&"));
    }
    Ok(TlsUrl {
        url: rest,
        mode,
        root_cert,
    })
}

/// `value` with its `%XX` escapes decoded (`+` is kept, as the driver keeps it).
fn decode(value: &str) -> Result<String, LocationError> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = value.get(i + 1..i + 3).ok_or(LocationError::Malformed)?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| LocationError::Malformed)?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| LocationError::Malformed)
}

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
) -> Result<MakeRustlsConnect, StoreError> {
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

/// The roots in the operator's `sslrootcert` file: every certificate in it must parse.
fn root_cert(path: &Path) -> Result<RootCertStore, StoreError> {
    let mut roots = RootCertStore::empty();
    for cert in
        CertificateDer::pem_file_iter(path).map_err(|_| tls_err("tls_root_cert_unreadable"))?
    {
        let cert = cert.map_err(|_| tls_err("tls_root_cert_unreadable"))?;
        roots
            .add(cert)
            .map_err(|_| tls_err("tls_root_cert_unreadable"))?;
    }
    if roots.is_empty() {
        return Err(tls_err("tls_root_cert_unreadable"));
    }
    Ok(roots)
}

/// Where the distributions keep the system's roots as one PEM bundle: Debian, Ubuntu and
/// Alpine; Fedora and RHEL; openSUSE; the BSDs and Alpine's `cert.pem`.
pub(crate) const SYSTEM_BUNDLES: [&str; 4] = [
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// The system's roots: `SSL_CERT_FILE`'s bundle if it is set, else the first of
/// [`SYSTEM_BUNDLES`] that exists.
pub(crate) fn system_roots() -> Result<RootCertStore, StoreError> {
    match std::env::var_os("SSL_CERT_FILE").filter(|f| !f.is_empty()) {
        Some(file) => roots_from(&[PathBuf::from(file)]),
        None => roots_from(&SYSTEM_BUNDLES.map(PathBuf::from)),
    }
}

/// The roots in the first of `bundles` that exists. A certificate of a system bundle that
/// does not parse is skipped (the others still count); a bundle with none is an error.
pub(crate) fn roots_from(bundles: &[PathBuf]) -> Result<RootCertStore, StoreError> {
    let unavailable = || tls_err("tls_system_roots_unavailable");
    let bundle = bundles
        .iter()
        .find(|b| b.is_file())
        .ok_or_else(unavailable)?;
    let certs = CertificateDer::pem_file_iter(bundle)
        .map_err(|_| unavailable())?
        .filter_map(Result::ok);
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(certs);
    if roots.is_empty() {
        return Err(unavailable());
    }
    Ok(roots)
}

fn tls_err(kind: &str) -> StoreError {
    StoreError::Postgres {
        op: "open",
        kind: kind.to_owned(),
    }
}

/// `prefer` and `require`: the handshake's signatures are checked, the certificate is not.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain is verified to a root, the name is not.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
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

    #[test]
    fn the_tls_parameters_are_taken_out_and_the_rest_kept() {
        let t = split("postgres://u:p?w@h/db?sslmode=verify-full&user=x&sslrootcert=%2Fca.pem")
            .unwrap();
        assert_eq!(t.url, "postgres://u:p?w@h/db?user=x");
        assert_eq!(t.mode, Some(SslMode::VerifyFull));
        assert_eq!(t.root_cert, Some(PathBuf::from("/ca.pem")));
        let t = split("postgres://h/db?sslmode=disable").unwrap();
        assert_eq!(
            (t.url.as_str(), t.mode),
            ("postgres://h/db", Some(SslMode::Disable))
        );
        let t = split("postgres://h/db").unwrap();
        assert_eq!((t.mode, t.root_cert), (None, None));
    }

    #[test]
    fn an_unknown_sslmode_is_refused() {
        for bad in ["allow", "verify_full", "", "REQUIRE"] {
            assert_eq!(
                split(&format!("postgres://h/db?sslmode={bad}")),
                Err(LocationError::UnknownSslMode),
                "{bad}"
            );
        }
    }

    fn mode_for(url: &str) -> Result<DriverMode, StoreError> {
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
        assert_eq!(
            mode_for("postgres://u@127.0.0.1/db").unwrap(),
            DriverMode::Prefer
        );
        assert_eq!(
            mode_for("postgres://u@localhost/db").unwrap(),
            DriverMode::Prefer
        );
        assert_eq!(
            mode_for("postgres://u@[::1]/db").unwrap(),
            DriverMode::Prefer
        );
        assert_eq!(
            mode_for("postgres://u@db.internal/db?sslmode=require").unwrap(),
            DriverMode::Require
        );
        // A socket never uses TLS (the server offers none there), as libpq.
        assert_eq!(
            mode_for("postgres:///db?host=/run/pg&sslmode=require").unwrap(),
            DriverMode::Disable
        );
        // ... but a `hostaddr` is dialled over TCP whatever `host` says.
        assert_eq!(
            mode_for("postgres:///db?host=/run/pg&hostaddr=10.0.0.5&sslmode=require").unwrap(),
            DriverMode::Require
        );
    }

    #[test]
    fn require_with_a_root_certificate_checks_the_chain() {
        // As libpq: the certificate given is used (here unreadable, so the connection is
        // refused instead of going unverified).
        let err = mode_for("postgres://u@db.internal/db?sslmode=require&sslrootcert=/nonexistent")
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("tls_root_cert_unreadable"),
            "{err}"
        );
    }

    #[test]
    fn verification_needs_a_readable_root_certificate() {
        let err =
            mode_for("postgres://u@127.0.0.1/db?sslmode=verify-full&sslrootcert=/nonexistent")
                .err()
                .unwrap();
        assert!(
            err.to_string().contains("tls_root_cert_unreadable"),
            "{err}"
        );
    }

    #[test]
    fn the_system_roots_are_the_first_bundle_there_and_none_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        for bundles in [vec![], vec![missing.clone()], vec![empty.clone(), missing]] {
            let err = roots_from(&bundles).err().unwrap();
            assert!(
                err.to_string().contains("tls_system_roots_unavailable"),
                "{bundles:?}: {err}"
            );
            assert!(!err.is_transient());
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
