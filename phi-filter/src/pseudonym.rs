//! Keyed pseudonyms: a value replaced by a token that is the same for the same value and key, so
//! one patient's requests can be followed through the logs without revealing who it is.
//!
//! The token is `ps_` and the first 26 characters of the lower-case RFC 4648 base32 (no padding)
//! of HMAC-SHA256(key, value), 130 bits. Only a keyed hash is safe for low-entropy values (a
//! record number, a birth date): an unkeyed one falls to a dictionary.

use std::fmt::{self, Write as _};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The environment variable [`PseudonymKey::from_env`] reads: the key in hex.
pub const PSEUDONYM_KEY_ENV: &str = "PHIGUARD_PSEUDONYM_KEY";
/// The shortest key accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 32;
/// The prefix of every token.
pub const TOKEN_PREFIX: &str = "ps_";
/// How many base32 characters follow the prefix.
const TOKEN_CHARS: usize = 26;
/// The length of a token, in bytes.
pub(crate) const TOKEN_LEN: usize = TOKEN_PREFIX.len() + TOKEN_CHARS;

const BASE32: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Why a pseudonym key was refused.
///
/// ```
/// let e = phi_filter::PseudonymKey::new(&[0; 8]).unwrap_err();
/// assert_eq!(e.to_string(), "a pseudonym key needs at least 32 bytes, got 8");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Fewer than [`MIN_KEY_BYTES`] bytes.
    #[error("a pseudonym key needs at least {MIN_KEY_BYTES} bytes, got {0}")]
    TooShort(usize),
    /// [`PSEUDONYM_KEY_ENV`] is not set (or not Unicode).
    #[error("{PSEUDONYM_KEY_ENV} is not set")]
    NotSet,
    /// [`PSEUDONYM_KEY_ENV`] is not an even number of hex digits.
    #[error("{PSEUDONYM_KEY_ENV} is not hex (an even number of 0-9a-f digits)")]
    NotHex,
}

/// The secret key of the pseudonyms. Its `Debug` never prints it, and only the keyed HMAC state
/// is kept, not the key bytes.
///
/// ```
/// let key = phi_filter::PseudonymKey::new(&[7; 32])?;
/// assert_eq!(format!("{key:?}"), "PseudonymKey([hidden])");
/// # Ok::<(), phi_filter::KeyError>(())
/// ```
#[derive(Clone)]
pub struct PseudonymKey {
    mac: Hmac<Sha256>,
}

impl fmt::Debug for PseudonymKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PseudonymKey([hidden])")
    }
}

impl PseudonymKey {
    /// A key from raw bytes: at least 32 of them, from a secret store or a CSPRNG.
    ///
    /// ```
    /// assert!(phi_filter::PseudonymKey::new(&[1; 32]).is_ok());
    /// assert!(phi_filter::PseudonymKey::new(&[1; 31]).is_err());
    /// ```
    pub fn new(bytes: &[u8]) -> Result<PseudonymKey, KeyError> {
        if bytes.len() < MIN_KEY_BYTES {
            return Err(KeyError::TooShort(bytes.len()));
        }
        // HMAC takes a key of any length; the length check above is the only refusal.
        let mac = Hmac::<Sha256>::new_from_slice(bytes).map_err(|_| KeyError::TooShort(0))?;
        Ok(PseudonymKey { mac })
    }

    /// The key in [`PSEUDONYM_KEY_ENV`] (`PHIGUARD_PSEUDONYM_KEY`), written in hex (64 or more
    /// digits; generate one with `openssl rand -hex 32`).
    ///
    /// ```no_run
    /// let key = phi_filter::PseudonymKey::from_env()?;
    /// # Ok::<(), phi_filter::KeyError>(())
    /// ```
    pub fn from_env() -> Result<PseudonymKey, KeyError> {
        let hex = std::env::var(PSEUDONYM_KEY_ENV).map_err(|_| KeyError::NotSet)?;
        PseudonymKey::from_hex(hex.trim())
    }

    /// A key written in hex.
    ///
    /// ```
    /// let key = phi_filter::PseudonymKey::from_hex(&"ab".repeat(32))?;
    /// # let _ = key;
    /// # Ok::<(), phi_filter::KeyError>(())
    /// ```
    pub fn from_hex(hex: &str) -> Result<PseudonymKey, KeyError> {
        let digits = hex.as_bytes();
        if !digits.len().is_multiple_of(2) {
            return Err(KeyError::NotHex);
        }
        let nibble = |c: u8| (c as char).to_digit(16).ok_or(KeyError::NotHex);
        let bytes = digits
            .chunks_exact(2)
            .map(|p| Ok((nibble(p[0])? << 4 | nibble(p[1])?) as u8))
            .collect::<Result<Vec<u8>, KeyError>>()?;
        PseudonymKey::new(&bytes)
    }

    /// The token of `text`, as ASCII bytes on the stack.
    pub(crate) fn token(&self, text: &[u8]) -> [u8; TOKEN_LEN] {
        let mut mac = self.mac.clone();
        mac.update(text);
        let digest = mac.finalize().into_bytes();
        let mut out = [0u8; TOKEN_LEN];
        out[..TOKEN_PREFIX.len()].copy_from_slice(TOKEN_PREFIX.as_bytes());
        // 26 characters of 5 bits each: the first 130 bits of the digest, most significant first.
        for (i, c) in out[TOKEN_PREFIX.len()..].iter_mut().enumerate() {
            let bit = i * 5;
            let (byte, shift) = (bit / 8, bit % 8);
            let pair = u16::from(digest[byte]) << 8 | u16::from(digest[byte + 1]);
            *c = BASE32[usize::from((pair >> (11 - shift)) & 31)];
        }
        out
    }

    /// Appends the token of `text` to `out`; allocates only if `out` must grow.
    pub(crate) fn token_into(&self, text: &[u8], out: &mut String) {
        // The token is ASCII from BASE32 and the prefix, so it is always UTF-8.
        out.push_str(std::str::from_utf8(&self.token(text)).unwrap_or_default());
    }
}

/// The token that replaces `value` in the logs under `key`: `ps_` and 26 base32 characters.
///
/// `value` is the text the wrapped layer would have printed: the string itself, a number's
/// decimal digits, or the `Display`/`Debug` text of a `%x`/`?x` field. An investigator computes
/// the token of a known patient's id and searches the logs for it.
///
/// ```
/// let key = phi_filter::PseudonymKey::new(b"an example key of thirty-two bytes!")?;
/// let token = phi_filter::pseudonym(&key, "MRN-0042");
/// assert!(token.starts_with("ps_") && token.len() == 29);
/// assert_eq!(token, phi_filter::pseudonym(&key, "MRN-0042"));
/// assert_eq!(phi_filter::pseudonym(&key, &42), phi_filter::pseudonym(&key, "42"));
/// # Ok::<(), phi_filter::KeyError>(())
/// ```
#[must_use]
pub fn pseudonym<V: fmt::Display + ?Sized>(key: &PseudonymKey, value: &V) -> String {
    let mut text = String::new();
    let _ = write!(text, "{value}");
    let mut out = String::with_capacity(TOKEN_LEN);
    key.token_into(text.as_bytes(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::{KeyError, PseudonymKey, pseudonym};

    #[test]
    fn keys_are_checked() {
        assert_eq!(PseudonymKey::from_hex("abc").unwrap_err(), KeyError::NotHex);
        assert_eq!(
            PseudonymKey::from_hex(&"zz".repeat(32)).unwrap_err(),
            KeyError::NotHex
        );
        assert_eq!(
            PseudonymKey::from_hex(&"ab".repeat(31)).unwrap_err(),
            KeyError::TooShort(31)
        );
        assert!(PseudonymKey::from_hex(&"AB".repeat(32)).is_ok());
    }

    #[test]
    fn another_key_gives_another_token() {
        let a = PseudonymKey::new(&[1; 32]).unwrap();
        let b = PseudonymKey::new(&[2; 32]).unwrap();
        assert_ne!(pseudonym(&a, "MRN-0042"), pseudonym(&b, "MRN-0042"));
        assert_ne!(pseudonym(&a, "MRN-0042"), pseudonym(&a, "MRN-0043"));
    }
}
