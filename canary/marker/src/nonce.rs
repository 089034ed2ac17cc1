//! A run's nonce and its one alphabet.
//!
//! The alphabet is `[A-Za-z0-9-]`, the per-run canary's own (`PHI-CANARY-` and hex digits).
//! `.` and `_` are left out on purpose: the writer always refused them while the reader took
//! them, so a nonce with either could be expected by a scan and never written by the service,
//! and the scan would then read every log to the end only to answer "inconclusive". With one
//! alphabet, such a nonce is a usage error before anything is read. The narrower set is also
//! the one no log format escapes or splits (JSON, HTML, docker's json-file, percent-encoding,
//! a shell word, a regex word), and it cannot look like a file or host name.

use std::fmt;
use std::io::{self, Write};

use crate::line::{MarkerKind, PREFIX};
use crate::random::{RandomError, push_hex};

/// The environment variable `answers serve` reads the nonce from when no flag gives it.
pub const NONCE_ENV: &str = "PHIGUARD_MARKER_NONCE";

/// The shortest nonce accepted.
pub const NONCE_MIN: usize = 8;

/// The longest nonce accepted.
pub const NONCE_MAX: usize = 128;

/// A run's nonce: 8 to 128 bytes of `[A-Za-z0-9-]`, so it can carry no PHI and needs no
/// escaping in any log format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nonce(String);

/// Why a nonce was refused. The message never quotes the nonce.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NonceError {
    /// Too short or too long.
    #[error("the marker nonce is {0} bytes long; a nonce has {NONCE_MIN} to {NONCE_MAX} bytes")]
    Length(usize),
    /// A byte outside `[A-Za-z0-9-]`.
    #[error("the marker nonce may hold only A-Z, a-z, 0-9 and '-'")]
    Alphabet,
    /// The OS random number generator failed ([`Nonce::random`]).
    #[error(transparent)]
    Random(#[from] RandomError),
}

/// Whether `b` is in the nonce alphabet.
fn allowed(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

impl Nonce {
    /// Checks `text` and wraps it.
    pub fn new(text: &str) -> Result<Nonce, NonceError> {
        if !(NONCE_MIN..=NONCE_MAX).contains(&text.len()) {
            return Err(NonceError::Length(text.len()));
        }
        if !text.bytes().all(allowed) {
            return Err(NonceError::Alphabet);
        }
        Ok(Nonce(text.to_owned()))
    }

    /// A fresh nonce: `prefix`, `-` and 128 bits from the OS RNG as 32 lower-case hex digits
    /// (`phi-ci-3f9a…`). The prefix must be in the alphabet too.
    pub fn random(prefix: &str) -> Result<Nonce, NonceError> {
        let mut text = String::with_capacity(prefix.len() + 33);
        text.push_str(prefix);
        text.push('-');
        let mut bytes = [0u8; 16];
        crate::random::fill(&mut bytes)?;
        push_hex(&mut text, &bytes);
        Nonce::new(&text)
    }

    /// The nonce given by the flag, else by [`NONCE_ENV`], else none. An empty variable counts
    /// as unset; a variable that is not Unicode is refused.
    pub fn from_flag_or_env(flag: Option<&str>) -> Result<Option<Nonce>, NonceError> {
        if let Some(text) = flag {
            return Nonce::new(text).map(Some);
        }
        match std::env::var(NONCE_ENV) {
            Ok(text) if text.is_empty() => Ok(None),
            Ok(text) => Nonce::new(&text).map(Some),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(NonceError::Alphabet),
        }
    }

    /// The nonce.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The marker line of `kind`, without its line ending.
    #[must_use]
    pub fn line(&self, kind: MarkerKind) -> String {
        format!("{PREFIX} {} {}", kind.word(), self.0)
    }

    /// The byte strings a reader searches for: each line ended by `\n` and by `\r\n`.
    #[must_use]
    pub fn patterns(&self) -> [(MarkerKind, Vec<u8>); 4] {
        let with = |kind, ending: &str| (kind, format!("{}{ending}", self.line(kind)).into_bytes());
        [
            with(MarkerKind::Start, "\n"),
            with(MarkerKind::Start, "\r\n"),
            with(MarkerKind::End, "\n"),
            with(MarkerKind::End, "\r\n"),
        ]
    }

    /// Writes the marker line of `kind` with its `\n` to `out` in one write, and flushes it.
    pub fn write_line(&self, kind: MarkerKind, out: &mut impl Write) -> io::Result<()> {
        let mut line = self.line(kind);
        line.push('\n');
        // phi-lint: allow(phi::print, reason = "a marker line holds a random nonce, never record data; emitting it on stdout and stderr is its job")
        out.write_all(line.as_bytes())?;
        out.flush()
    }

    /// Writes the marker line of `kind` to stdout, then to stderr, flushing each. Each stream
    /// is locked for the whole line, so a log line written at the same time cannot split it.
    pub fn emit(&self, kind: MarkerKind) -> io::Result<()> {
        self.write_line(kind, &mut io::stdout().lock())?;
        self.write_line(kind, &mut io::stderr().lock())
    }
}

impl fmt::Display for Nonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_the_one_alphabet() {
        assert!(Nonce::new(&"a".repeat(NONCE_MIN)).is_ok());
        assert!(Nonce::new(&"a".repeat(NONCE_MAX)).is_ok());
        assert_eq!(
            Nonce::new(&"a".repeat(NONCE_MAX + 1)),
            Err(NonceError::Length(NONCE_MAX + 1))
        );
        assert_eq!(
            Nonce::new(&"a".repeat(NONCE_MIN - 1)),
            Err(NonceError::Length(NONCE_MIN - 1))
        );
        assert!(Nonce::new("Run-0123456789").is_ok());
        for bad in [
            "abcdefg.h",
            "under_score",
            "abcdefg h",
            "abcdefg\nh",
            "abcdéfgh",
            "abcd/efgh",
        ] {
            assert_eq!(Nonce::new(bad), Err(NonceError::Alphabet), "{bad:?}");
        }
    }

    #[test]
    fn errors_never_quote_the_nonce() {
        let e = Nonce::new("x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the marker nonce is 1 bytes long; a nonce has 8 to 128 bytes"
        );
        let e = Nonce::new("secret_value").unwrap_err();
        assert!(!e.to_string().contains("secret"), "{e}");
    }

    #[test]
    fn a_random_nonce_has_the_prefix_and_32_hex_digits() {
        let a = Nonce::random("phi-ci").unwrap();
        let b = Nonce::random("phi-ci").unwrap();
        assert_ne!(a, b);
        let hex = a.as_str().strip_prefix("phi-ci-").expect("the prefix");
        assert_eq!(hex.len(), 32);
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(Nonce::random("bad_prefix"), Err(NonceError::Alphabet));
    }

    #[test]
    fn lines_patterns_and_writes() {
        let n = Nonce::new("Run-0123456789").unwrap();
        assert_eq!(
            n.line(MarkerKind::Start),
            "phiguard-marker start Run-0123456789"
        );
        assert_eq!(
            n.line(MarkerKind::End),
            "phiguard-marker end Run-0123456789"
        );
        let patterns = n.patterns();
        assert_eq!(patterns[1].1, b"phiguard-marker start Run-0123456789\r\n");
        assert_eq!(patterns[2].0, MarkerKind::End);
        let mut out = Vec::new();
        n.write_line(MarkerKind::End, &mut out).unwrap();
        assert_eq!(out, b"phiguard-marker end Run-0123456789\n");
        assert_eq!(n.to_string(), n.as_str());
    }

    #[test]
    fn the_flag_wins_over_the_environment() {
        let n = Nonce::from_flag_or_env(Some("flag-nonce-1")).unwrap();
        assert_eq!(n.unwrap().as_str(), "flag-nonce-1");
        assert_eq!(
            Nonce::from_flag_or_env(Some("short")),
            Err(NonceError::Length(5))
        );
    }
}
