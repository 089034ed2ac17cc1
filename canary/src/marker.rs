//! The positive control: marker lines the service logs at start and at a clean shutdown, on
//! stdout and on stderr, carrying a non-PHI nonce.
//!
//! The lines, the nonce and its alphabet are the `phi-marker` package's, shared with the
//! writer (`answers serve`); this module adds what the scan keeps of them per stream
//! ([`MarkerTally`]). They are found by the same reader and the same automaton as the
//! canaries, so finding them proves the scan saw the service's output from its start to its
//! end.

use serde::Serialize;

pub use phi_marker::{MarkerKind, NONCE_MAX, NONCE_MIN, Nonce, NonceError, PREFIX};

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
