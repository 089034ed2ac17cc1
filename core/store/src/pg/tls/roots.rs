//! The roots a verifying mode checks the server's chain against: the operator's `sslrootcert`
//! file, or the system's bundle.

use std::path::{Path, PathBuf};

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::StoreError;

use super::tls_err;

/// The roots in the operator's `sslrootcert` file: every certificate in it must parse.
pub(super) fn root_cert(path: &Path) -> Result<RootCertStore, StoreError> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
