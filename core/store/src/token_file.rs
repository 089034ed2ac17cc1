//! Tokens a deployment brings: `handle=token` lines, from a file or the environment, registered
//! by their hash so the server authenticates them like issued ones. A token is never logged,
//! and an error about a line names its number, never its text.

use super::token::hash;
use super::{Store, StoreError};
use answers_db::Arg;

/// Shortest token accepted from a file: 128 bits of hex, so a guessable secret is refused.
pub const MIN_TOKEN_LEN: usize = 32;

/// Least entropy a token brought in a file must show, in bits, estimated as its length times
/// the Shannon entropy of its character counts: 40 `A`s show 0 bits, `phg_` and 36 `a`s 27,
/// 32 random hex digits about 117 and an issued token about 240.
pub const MIN_TOKEN_BITS: f64 = 96.0;

/// Why a tokens file was refused. Names a line by number, never by its text.
#[derive(Debug, thiserror::Error)]
pub enum TokensFileError {
    /// A line is not `handle=token`.
    #[error("tokens line {line}: expected `handle=token`")]
    Malformed {
        /// 1-based line number.
        line: usize,
    },
    /// A token is shorter than [`MIN_TOKEN_LEN`], holds a character outside `[A-Za-z0-9_-]`,
    /// or shows less than [`MIN_TOKEN_BITS`] of entropy (`AAAA…`); a token `token issue` printed
    /// always passes.
    #[error(
        "tokens line {line}: a token must be at least {MIN_TOKEN_LEN} characters of \
         [A-Za-z0-9_-] with at least {MIN_TOKEN_BITS} bits of entropy; `answers token issue` \
         makes one"
    )]
    WeakToken {
        /// 1-based line number.
        line: usize,
    },
    /// The line's handle names no subject in this record.
    #[error("tokens line {line}: no subject has this handle")]
    UnknownHandle {
        /// 1-based line number.
        line: usize,
    },
    /// The line's token is already registered to another subject: a token names one person,
    /// so it is refused rather than moved silently.
    #[error("tokens line {line}: this token already belongs to another subject")]
    TokenOfAnotherSubject {
        /// 1-based line number.
        line: usize,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Store {
    /// Registers every `handle=token` line of `text` (blank lines and `#` comments skipped)
    /// for the subject with that handle, without expiry; a token already registered stays as
    /// it is, so loading the same file twice is harmless. All lines are checked before any is
    /// stored. Returns the number of tokens in the file.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
    /// let token = "phg_0123456789abcdef0123456789abcdef";
    /// assert_eq!(store.load_tokens(&format!("# demo\nyou={token}\n"))?, 1);
    /// assert_eq!(store.subject_for_token(token)?.unwrap().handle, "you");
    /// assert!(store.load_tokens("you=short").is_err());
    /// # Ok::<(), answers_store::TokensFileError>(())
    /// ```
    pub fn load_tokens(&self, text: &str) -> Result<usize, TokensFileError> {
        let mut pairs = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let (handle, token) = trimmed
                .split_once('=')
                .ok_or(TokensFileError::Malformed { line })?;
            let (handle, token) = (handle.trim(), token.trim());
            if handle.is_empty() {
                return Err(TokensFileError::Malformed { line });
            }
            if !strong(token) {
                return Err(TokensFileError::WeakToken { line });
            }
            let subject = self
                .subject_by_handle(handle)?
                .ok_or(TokensFileError::UnknownHandle { line })?;
            let owner = self
                .db
                .one(
                    "check token",
                    "SELECT subject_id FROM token WHERE token_hash = ?1",
                    &[Arg::from(&hash(token))],
                    |r| Ok(r.text(0, "check token", "token")?.to_owned()),
                )
                .map_err(StoreError::from)?;
            if owner.is_some_and(|o| o != subject.id)
                || pairs.iter().any(|(s, t)| *t == token && *s != subject.id)
            {
                return Err(TokensFileError::TokenOfAnotherSubject { line });
            }
            pairs.push((subject.id, token));
        }
        for (subject_id, token) in &pairs {
            self.db
                .exec(
                    "register token",
                    "INSERT INTO token (token_hash, subject_id, expires_utc, revoked)
                 VALUES (?1, ?2, NULL, 0)
                 ON CONFLICT (token_hash) DO NOTHING",
                    &[Arg::from(&hash(token)), Arg::from(subject_id.as_str())],
                )
                .map_err(StoreError::from)?;
        }
        Ok(pairs.len())
    }
}

/// Whether `token` may be brought in a file: long enough, of the token alphabet, and of at
/// least [`MIN_TOKEN_BITS`] by [`entropy_bits`].
fn strong(token: &str) -> bool {
    token.len() >= MIN_TOKEN_LEN
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && entropy_bits(token) >= MIN_TOKEN_BITS
}

/// `text`'s length times the Shannon entropy of its byte counts, in bits: an estimate that
/// refuses repetition (`AAAA…`, `abab…`), not a proof of randomness.
fn entropy_bits(text: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in text.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = f64::from(u32::try_from(text.len()).unwrap_or(u32::MAX));
    let per_char: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum();
    per_char * n
}

/// Writes a tokens file (the issued `handle=token` lines `answers seed --tokens-file` hands the
/// deployment) readable by its owner only. A symlink at `path` is refused (`O_NOFOLLOW`: the
/// open fails with `ELOOP`), so the tokens cannot be written through a link to a file someone
/// else reads.
///
/// ```
/// # #[cfg(unix)] {
/// use std::os::unix::fs::PermissionsExt;
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("tokens");
/// answers_store::write_private(&path, b"mom=phg_example\n")?;
/// assert_eq!(std::fs::metadata(&path)?.permissions().mode() & 0o777, 0o600);
/// let link = dir.path().join("link");
/// std::os::unix::fs::symlink(&path, &link)?;
/// assert!(answers_store::write_private(&link, b"x").is_err());
/// # }
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
/// The open, permission, write or sync error of the file.
pub fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;

    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let mut f = opts.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "phg_Qm7xK2pL9vR4tY8wN3zB6cF1hJ5dG0sA";

    fn store() -> Store {
        let s = Store::open_in_memory().unwrap();
        s.upsert_subject("s-you", "you", "UTC").unwrap();
        s.upsert_subject("s-mom", "mom", "UTC").unwrap();
        s
    }

    #[test]
    fn every_line_is_checked_before_any_is_stored() {
        let s = store();
        let err = s
            .load_tokens(&format!("you={T}\n\nnobody={T}x\n"))
            .unwrap_err();
        assert!(matches!(err, TokensFileError::UnknownHandle { line: 3 }));
        assert_eq!(s.subject_for_token(T).unwrap(), None, "nothing stored");
    }

    #[test]
    fn errors_name_the_line_never_its_text() {
        let s = store();
        for (text, line) in [
            ("you", 1),
            ("\n=phg_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 2),
            ("you=secret-but-short", 1),
            ("# c\nyou=phg_aaaaaaaaaaaaaaaaaaaaaaaaaaaa aaaaaaaaa", 2),
        ] {
            let err = s.load_tokens(text).unwrap_err();
            let shown = err.to_string();
            assert!(shown.contains(&format!("line {line}")), "{shown}");
            assert!(
                !shown.contains("secret") && !shown.contains("aaaa"),
                "{shown}"
            );
        }
    }

    #[test]
    fn a_token_of_little_entropy_is_refused_by_its_line() {
        let s = store();
        let weak = [
            "A".repeat(40),
            format!("phg_{}", "a".repeat(36)),
            "abab".repeat(10),
        ];
        for token in &weak {
            let err = s
                .load_tokens(&format!("# deploy\nyou={token}\n"))
                .unwrap_err();
            assert!(
                matches!(err, TokensFileError::WeakToken { line: 2 }),
                "{err}"
            );
            let shown = err.to_string();
            assert!(shown.contains("line 2"), "{shown}");
            assert!(!shown.contains(&token[..8]), "{shown}");
        }
        // What `token issue` prints passes, as does a deployment's own random secret.
        let issued = s.issue_token("s-you", None).unwrap();
        for token in [issued.as_str(), T, "0f3a9c2e7b41d58a6e0c93f1b27d4a85"] {
            assert!(strong(token), "{token}");
        }
        assert!(entropy_bits(&"A".repeat(40)) < 1.0);
    }

    #[test]
    fn a_token_is_never_moved_to_another_subject() {
        let s = store();
        s.load_tokens(&format!("mom={T}")).unwrap();
        let err = s.load_tokens(&format!("you={T}")).unwrap_err();
        assert!(matches!(
            err,
            TokensFileError::TokenOfAnotherSubject { line: 1 }
        ));
        let err = s
            .load_tokens(&format!("# two people, one token\nyou={T}x\nmom={T}x"))
            .unwrap_err();
        assert!(matches!(
            err,
            TokensFileError::TokenOfAnotherSubject { line: 3 }
        ));
        assert_eq!(s.subject_for_token(T).unwrap().unwrap().handle, "mom");
    }

    #[test]
    fn loading_twice_is_harmless_and_revocation_holds() {
        let s = store();
        assert_eq!(s.load_tokens(&format!("mom={T}")).unwrap(), 1);
        assert_eq!(s.load_tokens(&format!("mom={T}")).unwrap(), 1);
        assert_eq!(s.subject_for_token(T).unwrap().unwrap().handle, "mom");
        assert!(s.revoke_token(T).unwrap());
        s.load_tokens(&format!("mom={T}")).unwrap();
        assert_eq!(
            s.subject_for_token(T).unwrap(),
            None,
            "a revoked token stays revoked"
        );
    }
}
