//! The positive-control marker lines `answers serve` writes at start and at a clean shutdown,
//! on stdout and on stderr, for phi-canary's `--expect-marker NONCE`.
//!
//! The lines are exactly `phiguard-marker start NONCE` and `phiguard-marker end NONCE`, each on
//! a line of its own. They are written straight to the two streams, not through the log filter:
//! the filter must never redact or cut them, and a JSON log line would put text after the nonce,
//! which phi-canary does not count. Each write is flushed, so a scan that finds the end line
//! has seen everything the service wrote before it.
//!
//! ```
//! use answers::marker::{MarkerKind, MarkerNonce};
//!
//! let nonce = MarkerNonce::new("run-42-7f3a")?;
//! assert_eq!(nonce.line(MarkerKind::Start), "phiguard-marker start run-42-7f3a");
//! assert!(MarkerNonce::new("has space").is_err());
//! # Ok::<(), answers::marker::NonceError>(())
//! ```

use std::fmt;
use std::io::Write;

/// The environment variable the nonce is read from when `--marker-nonce` is not given.
pub const NONCE_ENV: &str = "PHIGUARD_MARKER_NONCE";

/// The first word of every marker line (phi-canary's `marker::PREFIX`).
pub const PREFIX: &str = "phiguard-marker";

/// The shortest nonce accepted.
pub const NONCE_MIN: usize = 8;

/// The longest nonce accepted.
pub const NONCE_MAX: usize = 128;

/// Which of the two marker lines.
///
/// ```
/// assert_eq!(answers::marker::MarkerKind::End.word(), "end");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    /// Written once the service listens, before it handles a request.
    Start,
    /// Written at a clean shutdown, after every other line.
    End,
}

impl MarkerKind {
    /// The word in the marker line.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            MarkerKind::Start => "start",
            MarkerKind::End => "end",
        }
    }
}

/// A run's nonce: 8 to 128 bytes of `[A-Za-z0-9-]`, so it can carry no PHI and needs no
/// escaping in any log format.
///
/// ```
/// use answers::marker::MarkerNonce;
///
/// assert_eq!(MarkerNonce::new("abcd-1234")?.as_str(), "abcd-1234");
/// assert!(MarkerNonce::new("short").is_err());
/// assert!(MarkerNonce::new("under_score").is_err());
/// # Ok::<(), answers::marker::NonceError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerNonce(String);

/// Why a nonce was refused. The message never quotes the nonce.
///
/// ```
/// let e = answers::marker::MarkerNonce::new("x").unwrap_err();
/// assert_eq!(e.to_string(), "the marker nonce has 1 bytes; a nonce has 8 to 128");
/// ```
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NonceError {
    /// Too short or too long.
    #[error("the marker nonce has {0} bytes; a nonce has {NONCE_MIN} to {NONCE_MAX}")]
    Length(usize),
    /// A byte outside `[A-Za-z0-9-]`.
    #[error("the marker nonce may hold only A-Z, a-z, 0-9 and '-'")]
    Alphabet,
}

impl MarkerNonce {
    /// Checks `text` and wraps it.
    pub fn new(text: &str) -> Result<MarkerNonce, NonceError> {
        if !(NONCE_MIN..=NONCE_MAX).contains(&text.len()) {
            return Err(NonceError::Length(text.len()));
        }
        if !text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(NonceError::Alphabet);
        }
        Ok(MarkerNonce(text.to_owned()))
    }

    /// The nonce given by the flag, else by [`NONCE_ENV`], else none. An empty variable counts
    /// as unset; a variable that is not Unicode is refused.
    ///
    /// ```
    /// use answers::marker::MarkerNonce;
    ///
    /// let n = MarkerNonce::from_flag_or_env(Some("flag-nonce-1"))?;
    /// assert_eq!(n.unwrap().as_str(), "flag-nonce-1");
    /// # Ok::<(), answers::marker::NonceError>(())
    /// ```
    pub fn from_flag_or_env(flag: Option<&str>) -> Result<Option<MarkerNonce>, NonceError> {
        if let Some(text) = flag {
            return MarkerNonce::new(text).map(Some);
        }
        match std::env::var(NONCE_ENV) {
            Ok(text) if text.is_empty() => Ok(None),
            Ok(text) => MarkerNonce::new(&text).map(Some),
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

    /// Writes the marker line of `kind` to stdout, then to stderr, flushing each. Each stream is
    /// locked for the whole line, so a log line written at the same time cannot split it.
    pub fn emit(&self, kind: MarkerKind) -> std::io::Result<()> {
        let mut line = self.line(kind);
        line.push('\n');
        {
            let mut out = std::io::stdout().lock();
            // phi-lint: allow(phi::print, reason = "the marker line: its prefix, kind and random id only")
            out.write_all(line.as_bytes())?;
            out.flush()?;
        }
        let mut err = std::io::stderr().lock();
        // phi-lint: allow(phi::print, reason = "the marker line: its prefix, kind and random id only")
        err.write_all(line.as_bytes())?;
        err.flush()
    }
}

impl fmt::Display for MarkerNonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonce_bounds_and_alphabet() {
        assert!(MarkerNonce::new(&"a".repeat(NONCE_MIN)).is_ok());
        assert!(MarkerNonce::new(&"a".repeat(NONCE_MAX)).is_ok());
        assert_eq!(
            MarkerNonce::new(&"a".repeat(NONCE_MAX + 1)),
            Err(NonceError::Length(NONCE_MAX + 1))
        );
        assert_eq!(
            MarkerNonce::new(&"a".repeat(NONCE_MIN - 1)),
            Err(NonceError::Length(NONCE_MIN - 1))
        );
        for bad in [
            "abcdefg.h",
            "abcdefg h",
            "abcdefg\nh",
            "abcdéfgh",
            "abcd/efgh",
        ] {
            assert_eq!(MarkerNonce::new(bad), Err(NonceError::Alphabet), "{bad:?}");
        }
    }

    #[test]
    fn lines_are_the_phi_canary_format() {
        let n = MarkerNonce::new("Run-0123456789").unwrap();
        assert_eq!(
            n.line(MarkerKind::Start),
            "phiguard-marker start Run-0123456789"
        );
        assert_eq!(
            n.line(MarkerKind::End),
            "phiguard-marker end Run-0123456789"
        );
    }
}
