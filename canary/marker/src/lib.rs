//! The positive control of phiguard's end-to-end layer, in one place for its writer
//! (`answers serve`) and its reader (phi-canary): the marker lines a service logs at start and
//! at a clean shutdown, the nonce they carry, and the random hex that nonces, canaries and
//! tokens are made of.
//!
//! A marker line is exactly `phiguard-marker start NONCE` or `phiguard-marker end NONCE`,
//! ended by `\n` (or `\r\n`, as a TTY writes it). The reader allows text before the marker on
//! its line (a timestamp, a level) and none after it, so a truncated last line does not count.
//!
//! ```
//! use phi_marker::{Marker, MarkerKind, Nonce};
//!
//! let nonce = Nonce::new("run-42-7f3a")?;
//! let mut log = Vec::new();
//! nonce.write_line(MarkerKind::Start, &mut log)?;
//! assert_eq!(log, b"phiguard-marker start run-42-7f3a\n");
//!
//! let read = Marker::parse("2026-06-01T10:00:00Z phiguard-marker start run-42-7f3a")?;
//! assert_eq!((read.kind, read.nonce.as_str()), (MarkerKind::Start, "run-42-7f3a"));
//! assert!(Nonce::new("under_score").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod line;
mod nonce;
mod random;

pub use line::{Marker, MarkerKind, PREFIX, ParseError};
pub use nonce::{NONCE_ENV, NONCE_MAX, NONCE_MIN, Nonce, NonceError};
pub use random::{RandomError, push_hex, random_hex};
