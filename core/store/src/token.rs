//! Bearer tokens: one per subject session, random, shown once when issued and stored only as
//! their SHA-256. A token is never logged; neither is its hash.

use std::time::Duration;

use jiff::Timestamp;
use sha2::{Digest, Sha256};

use super::reading::utc_text;
use super::{Store, StoreError, Subject};
use answers_db::Arg;

/// What every issued token starts with, so a secret scanner can recognise one.
///
/// ```
/// assert_eq!(answers_store::TOKEN_PREFIX, "phg_");
/// ```
pub const TOKEN_PREFIX: &str = "phg_";

/// Random bytes in a token: 256 bits.
const TOKEN_BYTES: usize = 32;

impl Store {
    /// Issues a new bearer token for `subject_id`, valid for `ttl` (forever when `None`).
    /// Returns the token; only its hash is stored.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let store = answers_store::Store::open_in_memory()?;
    /// store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
    /// let token = store.issue_token("subj-you-1", Some(Duration::from_secs(3600)))?;
    /// assert!(token.starts_with("phg_"));
    /// assert_eq!(store.subject_for_token(&token)?.unwrap().handle, "you");
    /// assert!(store.revoke_token(&token)?);
    /// assert_eq!(store.subject_for_token(&token)?, None);
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    pub fn issue_token(
        &self,
        subject_id: &str,
        ttl: Option<Duration>,
    ) -> Result<String, StoreError> {
        if self.subject_by_id(subject_id)?.is_none() {
            return Err(StoreError::UnknownSubject);
        }
        let token = format!(
            "{TOKEN_PREFIX}{}",
            phi_marker::random_hex(TOKEN_BYTES).map_err(|_| StoreError::Entropy)?
        );
        // A TTL past the end of time never expires.
        let expires =
            ttl.map(|ttl| utc_text(Timestamp::now().checked_add(ttl).unwrap_or(Timestamp::MAX)));
        self.db.exec(
            "issue token",
            "INSERT INTO token (token_hash, subject_id, expires_utc, revoked)
             VALUES (?1, ?2, ?3, 0)",
            &[
                Arg::from(&hash(&token)),
                Arg::from(subject_id),
                Arg::from(&expires),
            ],
        )?;
        Ok(token)
    }

    /// The subject `token` authenticates, or `None` if the token is unknown, revoked or
    /// expired. An expiry that is not a UTC timestamp (written into the database by hand, say
    /// `not-a-date`) authenticates nobody: it is never compared as text, where `not-a-date`
    /// sorts after every date and would never expire.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// assert_eq!(store.subject_for_token("phg_not-issued")?, None);
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    pub fn subject_for_token(&self, token: &str) -> Result<Option<Subject>, StoreError> {
        let op = "check token";
        let row = self.db.one(
            op,
            "SELECT subject_id, expires_utc FROM token
             WHERE token_hash = ?1 AND revoked = 0",
            &[Arg::from(&hash(token))],
            |r| {
                Ok((
                    r.text(0, op, "token")?.to_owned(),
                    r.opt_text(1, op, "token")?.map(str::to_owned),
                ))
            },
        )?;
        let Some((id, expires)) = row else {
            return Ok(None);
        };
        if !live(expires.as_deref(), Timestamp::now()) {
            return Ok(None);
        }
        self.subject_by_id(&id)
    }

    /// Revokes `token`. Returns whether a live token was revoked.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// store.upsert_subject("s", "you", "UTC")?;
    /// let token = store.issue_token("s", None)?;
    /// assert!(store.revoke_token(&token)?);
    /// assert!(!store.revoke_token(&token)?, "already revoked");
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    pub fn revoke_token(&self, token: &str) -> Result<bool, StoreError> {
        // One statement: of two revokers at once, one changes the row and the other finds it
        // revoked (PostgreSQL re-reads the row under its lock).
        let n = self.db.exec(
            "revoke token",
            "UPDATE token SET revoked = 1 WHERE token_hash = ?1 AND revoked = 0",
            &[Arg::from(&hash(token))],
        )?;
        Ok(n > 0)
    }
}

/// Whether a token with this stored expiry is live at `now`: no expiry, or a UTC timestamp
/// after `now`. Anything else is refused.
fn live(expires: Option<&str>, now: Timestamp) -> bool {
    match expires {
        None => true,
        Some(text) => text.parse::<Timestamp>().is_ok_and(|at| at > now),
    }
}

/// The stored form of a token: its SHA-256, in lower-case hex.
pub(super) fn hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let mut out = String::with_capacity(2 * digest.len());
    phi_marker::push_hex(&mut out, &digest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `body` on a store with the subject `s`, on each backend.
    fn each_store(mut body: impl FnMut(Store)) {
        crate::test_support::each_backend(|s| {
            s.upsert_subject("s", "you", "UTC").unwrap();
            body(s);
        });
    }

    fn set_expiry(s: &Store, expires: &str) {
        let args = [answers_db::Arg::from(expires)];
        s.db.exec("test", "UPDATE token SET expires_utc = ?1", &args)
            .unwrap();
    }

    #[test]
    fn tokens_are_random_and_stored_hashed() {
        each_store(|s| {
            let a = s.issue_token("s", None).unwrap();
            let b = s.issue_token("s", None).unwrap();
            assert_ne!(a, b);
            assert_eq!(a.len(), TOKEN_PREFIX.len() + 64);
            let mut stored: Vec<String> = Vec::new();
            s.db.each(
                "test",
                "SELECT token_hash FROM token",
                answers_db::Args::Pos(&[]),
                |r| {
                    stored.push(r.text(0, "test", "token")?.to_owned());
                    Ok::<_, StoreError>(crate::Flow::Continue)
                },
            )
            .unwrap();
            assert_eq!(stored.len(), 2);
            assert!(stored.iter().all(|h| h.len() == 64 && *h != a && *h != b));
            assert!(stored.contains(&hash(&a)));
        });
    }

    #[test]
    fn the_sha256_is_the_standard_one() {
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn an_expired_token_authenticates_nobody() {
        each_store(|s| {
            let token = s.issue_token("s", Some(Duration::ZERO)).unwrap();
            assert_eq!(s.subject_for_token(&token).unwrap(), None);
            let forever = s.issue_token("s", Some(Duration::MAX)).unwrap();
            assert!(s.subject_for_token(&forever).unwrap().is_some());
        });
    }

    #[test]
    fn an_expiry_that_is_not_a_date_authenticates_nobody() {
        each_store(|s| {
            let token = s.issue_token("s", Some(Duration::from_secs(3600))).unwrap();
            assert!(s.subject_for_token(&token).unwrap().is_some());
            for bad in ["not-a-date", "", "9999", "2026-13-01T00:00:00Z"] {
                set_expiry(&s, bad);
                assert_eq!(s.subject_for_token(&token).unwrap(), None, "{bad:?}");
            }
            set_expiry(&s, "2999-01-01T00:00:00Z");
            assert!(s.subject_for_token(&token).unwrap().is_some());
        });
    }

    #[test]
    fn tokens_are_only_issued_to_subjects() {
        each_store(|s| {
            assert!(matches!(
                s.issue_token("nobody", None),
                Err(StoreError::UnknownSubject)
            ));
        });
    }
}
