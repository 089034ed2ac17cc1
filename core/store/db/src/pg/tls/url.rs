//! The TLS parameters of a `PostgreSQL` URL: `sslmode` and `sslrootcert` taken out of the
//! query (the driver knows neither `verify-*` nor `sslrootcert`), the rest kept.

use std::path::PathBuf;

use crate::LocationError;

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
}
