//! The roots a verifying mode checks the server's chain against: the operator's `sslrootcert`
//! file, or the system's bundle.

use std::io::Read;
use std::path::{Path, PathBuf};

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::DbError;

use super::tls_err;

/// The roots in the operator's `sslrootcert` file: every certificate in it must parse.
pub(super) fn root_cert(path: &Path) -> Result<RootCertStore, DbError> {
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

/// The roots in the first of `bundles` that exists. A certificate of a system bundle that
/// does not parse is skipped (the others still count); a bundle with none is an error.
pub(crate) fn roots_from(bundles: &[PathBuf]) -> Result<RootCertStore, DbError> {
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

/// What reading `SSL_CERT_DIR` may cost: entries per directory, bytes per file, bytes in all.
/// Over any of them the roots are refused (`tls_system_roots_too_large`), never cut short.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DirCaps {
    pub(crate) entries: usize,
    pub(crate) file_bytes: u64,
    pub(crate) total_bytes: u64,
}

/// `SSL_CERT_DIR`'s caps: 4,096 entries per directory, 1 MiB per file, 16 MiB in all.
pub(crate) const DIR_CAPS: DirCaps = DirCaps {
    entries: 4096,
    file_bytes: 1 << 20,
    total_bytes: 16 << 20,
};

/// The system's roots, as `OpenSSL` finds them: when `SSL_CERT_FILE` or `SSL_CERT_DIR` is set,
/// the certificates of that bundle and of every file in those directories (`SSL_CERT_DIR` is a
/// list, `:`-separated), and nothing else; else the first of [`SYSTEM_BUNDLES`] that exists.
pub(crate) fn system_roots() -> Result<RootCertStore, DbError> {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let (file, dirs) = (set("SSL_CERT_FILE"), set("SSL_CERT_DIR"));
    if file.is_none() && dirs.is_none() {
        return roots_from(&SYSTEM_BUNDLES.map(PathBuf::from));
    }
    let dirs: Vec<PathBuf> = dirs
        .as_deref()
        .map(|d| std::env::split_paths(d).collect())
        .unwrap_or_default();
    roots_named(file.map(PathBuf::from).as_deref(), &dirs, DIR_CAPS)
}

/// The roots in the bundle `file` and in the files of `dirs` (`SSL_CERT_FILE` and
/// `SSL_CERT_DIR`). A bundle or directory that is missing adds nothing, as in `OpenSSL`, and so
/// does a certificate that does not parse; none at all is `tls_system_roots_unavailable`.
pub(crate) fn roots_named(
    file: Option<&Path>,
    dirs: &[PathBuf],
    caps: DirCaps,
) -> Result<RootCertStore, DbError> {
    let mut roots = RootCertStore::empty();
    if let Some(Ok(certs)) = file
        .filter(|f| f.is_file())
        .map(CertificateDer::pem_file_iter)
    {
        roots.add_parsable_certificates(certs.filter_map(Result::ok));
    }
    let mut read = 0;
    for dir in dirs {
        for pem in dir_files(dir, caps, &mut read)? {
            let certs = CertificateDer::pem_slice_iter(&pem).filter_map(Result::ok);
            roots.add_parsable_certificates(certs);
        }
    }
    if roots.is_empty() {
        return Err(tls_err("tls_system_roots_unavailable"));
    }
    Ok(roots)
}

/// The contents of the files in `dir` (symbolic links followed, as the hashed names
/// `c_rehash` makes are), within `caps`; `read` counts the bytes across directories. A
/// directory that cannot be listed, and an entry that cannot be read, add nothing.
fn dir_files(dir: &Path, caps: DirCaps, read: &mut u64) -> Result<Vec<Vec<u8>>, DbError> {
    let too_large = || tls_err("tls_system_roots_too_large");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut files = Vec::new();
    for (n, entry) in entries.enumerate() {
        if n >= caps.entries {
            return Err(too_large());
        }
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        if meta.len() > caps.file_bytes || *read + meta.len() > caps.total_bytes {
            return Err(too_large());
        }
        // The length is checked again as the file is read: it may have grown since.
        let Ok(handle) = std::fs::File::open(&path) else {
            continue;
        };
        let mut bytes = Vec::new();
        if handle
            .take(caps.file_bytes + 1)
            .read_to_end(&mut bytes)
            .is_err()
        {
            continue;
        }
        let len = bytes.len() as u64;
        if len > caps.file_bytes || *read + len > caps.total_bytes {
            return Err(too_large());
        }
        *read += len;
        files.push(bytes);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `n` certificates of the platform's bundle (Debian's `ca-certificates`, which
    /// `.ci/run` installs), each as its own PEM text.
    fn system_pems(n: usize) -> Vec<String> {
        let bundle = SYSTEM_BUNDLES
            .iter()
            .find(|b| Path::new(b).is_file())
            .expect("a system CA bundle (install ca-certificates)");
        let text = std::fs::read_to_string(bundle).unwrap();
        let pems: Vec<String> = text
            .split_inclusive("-----END CERTIFICATE-----")
            .filter_map(|p| {
                p.find("-----BEGIN CERTIFICATE-----")
                    .map(|i| p[i..].to_owned())
            })
            .take(n)
            .collect();
        assert_eq!(pems.len(), n, "{bundle} holds fewer than {n} certificates");
        pems
    }

    fn err_kind(r: Result<RootCertStore, DbError>) -> String {
        r.expect_err("an error").to_string()
    }

    #[test]
    fn a_cert_dir_adds_every_file_in_it_and_a_bundle_beside_it() {
        let pems = system_pems(5);
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(a.path().join("one.pem"), &pems[0]).unwrap();
        // Two in one file, and a file that holds no certificate.
        std::fs::write(
            a.path().join("two.pem"),
            format!("{}\n{}", pems[1], pems[2]),
        )
        .unwrap();
        std::fs::write(a.path().join("README"), "not a certificate\n").unwrap();
        std::fs::create_dir(a.path().join("sub")).unwrap();
        // A hashed name is a link to the certificate, as `c_rehash` makes them.
        let elsewhere = b.path().join("four.pem");
        std::fs::write(&elsewhere, &pems[3]).unwrap();
        std::os::unix::fs::symlink(&elsewhere, a.path().join("0123abcd.0")).unwrap();
        let dirs = [a.path().to_path_buf(), b.path().join("missing")];
        let roots = roots_named(None, &dirs, DIR_CAPS).unwrap();
        assert_eq!(roots.len(), 4);
        // `SSL_CERT_FILE` and `SSL_CERT_DIR` together: both count.
        let bundle = b.path().join("bundle.pem");
        std::fs::write(&bundle, &pems[4]).unwrap();
        let roots = roots_named(Some(&bundle), &dirs, DIR_CAPS).unwrap();
        assert_eq!(roots.len(), 5);
        // A list of directories, as `SSL_CERT_DIR` spells it.
        let list = std::env::join_paths([a.path(), b.path()]).unwrap();
        let dirs: Vec<PathBuf> = std::env::split_paths(&list).collect();
        assert_eq!(roots_named(None, &dirs, DIR_CAPS).unwrap().len(), 6);
    }

    #[test]
    fn nothing_found_is_unavailable_and_over_a_cap_is_too_large() {
        let pems = system_pems(3);
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let e = err_kind(roots_named(
            Some(&missing),
            std::slice::from_ref(&missing),
            DIR_CAPS,
        ));
        assert!(e.contains("tls_system_roots_unavailable"), "{e}");
        for (i, pem) in pems.iter().enumerate() {
            std::fs::write(dir.path().join(format!("{i}.pem")), pem).unwrap();
        }
        let dirs = [dir.path().to_path_buf()];
        let biggest = pems.iter().map(|p| p.len() as u64).max().unwrap();
        let total: u64 = pems.iter().map(|p| p.len() as u64).sum();
        let within = DirCaps {
            entries: 3,
            file_bytes: biggest,
            total_bytes: total,
        };
        assert_eq!(roots_named(None, &dirs, within).unwrap().len(), 3);
        for over in [
            DirCaps {
                entries: 2,
                ..within
            },
            DirCaps {
                file_bytes: biggest - 1,
                ..within
            },
            DirCaps {
                total_bytes: total - 1,
                ..within
            },
        ] {
            let e = err_kind(roots_named(None, &dirs, over));
            assert!(e.contains("tls_system_roots_too_large"), "{over:?}: {e}");
        }
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
}
