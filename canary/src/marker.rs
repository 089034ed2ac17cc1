//! The positive control: marker lines the service logs at start and at a clean shutdown, on
//! stdout and on stderr, carrying a non-PHI nonce.
//!
//! The exact lines are `phiguard-marker start NONCE` and `phiguard-marker end NONCE`, each ended
//! by `\n` (or `\r\n`, as a TTY writes it). Text before the marker on its line (a timestamp, a
//! level) is allowed; text after it is not, so a truncated or unflushed last line does not count.
//! They are found by the same reader and the same automaton as the canaries, so finding them
//! proves the scan saw the service's output from its start to its end.

use std::fmt;

use serde::Serialize;

/// The first word of every marker line.
pub const PREFIX: &str = "phiguard-marker";

/// The shortest nonce accepted.
pub const NONCE_MIN: usize = 8;

/// The longest nonce accepted.
pub const NONCE_MAX: usize = 128;

/// Which of the two marker lines.
///
/// ```
/// assert_eq!(phi_canary::MarkerKind::Start.word(), "start");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkerKind {
    /// Logged once the service is up, before it handles anything.
    Start,
    /// Logged at a clean shutdown, after everything else.
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

/// A run's nonce: 8 to 128 bytes of `[A-Za-z0-9._-]`, so it can never carry PHI and never needs
/// escaping.
///
/// ```
/// use phi_canary::{MarkerKind, Nonce};
///
/// let nonce = Nonce::new("run-42-7f3a")?;
/// assert_eq!(nonce.line(MarkerKind::Start), "phiguard-marker start run-42-7f3a");
/// assert!(Nonce::new("has space").is_err());
/// # Ok::<(), phi_canary::marker::NonceError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nonce(String);

/// Why a nonce was refused.
#[derive(Debug, thiserror::Error)]
pub enum NonceError {
    /// Too short or too long.
    #[error("the marker nonce is {0} bytes long; a nonce has {NONCE_MIN} to {NONCE_MAX} bytes")]
    Length(usize),
    /// A byte outside `[A-Za-z0-9._-]`.
    #[error("the marker nonce may hold only A-Z, a-z, 0-9, '.', '_' and '-'")]
    Alphabet,
}

impl Nonce {
    /// Checks `text` and wraps it.
    pub fn new(text: &str) -> Result<Nonce, NonceError> {
        if !(NONCE_MIN..=NONCE_MAX).contains(&text.len()) {
            return Err(NonceError::Length(text.len()));
        }
        if !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        {
            return Err(NonceError::Alphabet);
        }
        Ok(Nonce(text.to_owned()))
    }

    /// The nonce.
    ///
    /// ```
    /// assert_eq!(phi_canary::Nonce::new("12345678")?.as_str(), "12345678");
    /// # Ok::<(), phi_canary::marker::NonceError>(())
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The marker line of `kind`, without its line ending.
    #[must_use]
    pub fn line(&self, kind: MarkerKind) -> String {
        format!("{PREFIX} {} {}", kind.word(), self.0)
    }

    /// The byte strings the matcher searches for: each line with `\n` and with `\r\n`.
    pub(crate) fn patterns(&self) -> [(MarkerKind, Vec<u8>); 4] {
        let with = |kind, ending: &str| (kind, format!("{}{ending}", self.line(kind)).into_bytes());
        [
            with(MarkerKind::Start, "\n"),
            with(MarkerKind::Start, "\r\n"),
            with(MarkerKind::End, "\n"),
            with(MarkerKind::End, "\r\n"),
        ]
    }
}

impl fmt::Display for Nonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What one stream showed of the markers: how many of each, and where the first start and the
/// last end were.
///
/// ```
/// use phi_canary::marker::{MarkerKind, MarkerTally};
///
/// let mut tally = MarkerTally::default();
/// assert!(!tally.bracketed());
/// tally.record(MarkerKind::Start, 0);
/// tally.record(MarkerKind::End, 900);
/// assert!(tally.bracketed());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MarkerTally {
    /// Start lines found.
    pub start: u32,
    /// End lines found.
    pub end: u32,
    /// Byte offset of the first start line.
    pub first_start: Option<u64>,
    /// Byte offset of the last end line.
    pub last_end: Option<u64>,
    /// Byte offset of the last start line.
    #[serde(skip)]
    pub last_start: Option<u64>,
}

impl MarkerTally {
    /// Counts a marker line found at byte `offset`.
    pub fn record(&mut self, kind: MarkerKind, offset: u64) {
        match kind {
            MarkerKind::Start => {
                self.start += 1;
                self.first_start.get_or_insert(offset);
                self.last_start = Some(offset);
            }
            MarkerKind::End => {
                self.end += 1;
                self.last_end = Some(offset);
            }
        }
    }

    /// Adds the tally of a later part of the stream that starts at byte `base`.
    ///
    /// ```
    /// use phi_canary::marker::{MarkerKind, MarkerTally};
    ///
    /// let (mut first, mut second) = (MarkerTally::default(), MarkerTally::default());
    /// first.record(MarkerKind::Start, 5);
    /// second.record(MarkerKind::End, 7);
    /// first.merge(&second, 1000);
    /// assert_eq!((first.first_start, first.last_end), (Some(5), Some(1007)));
    /// ```
    pub fn merge(&mut self, later: &MarkerTally, base: u64) {
        self.start += later.start;
        self.end += later.end;
        if self.first_start.is_none() {
            self.first_start = later.first_start.map(|o| o + base);
        }
        if let Some(end) = later.last_end {
            self.last_end = Some(end + base);
        }
        if let Some(start) = later.last_start {
            self.last_start = Some(start + base);
        }
    }

    /// A start line, and after it an end line; as many ends as starts, and none of the
    /// starts after the last end. `start, end, start` (a restart without its end) is not.
    ///
    /// ```
    /// use phi_canary::marker::{MarkerKind, MarkerTally};
    ///
    /// let mut tally = MarkerTally::default();
    /// for (kind, at) in [(MarkerKind::Start, 0), (MarkerKind::End, 10), (MarkerKind::Start, 20)] {
    ///     tally.record(kind, at);
    /// }
    /// assert!(!tally.bracketed());
    /// tally.record(MarkerKind::End, 30);
    /// assert!(tally.bracketed());
    /// ```
    #[must_use]
    pub fn bracketed(&self) -> bool {
        self.start == self.end
            && matches!((self.first_start, self.last_end), (Some(s), Some(e)) if s < e)
            && matches!((self.last_start, self.last_end), (Some(s), Some(e)) if s < e)
    }
}
