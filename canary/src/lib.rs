//! phi-canary, the end-to-end layer of phiguard: a canary planted in the record, and a log
//! scanner that proves it never reached a log.
//!
//! The scanner looks for every canary in a bounded set of explicit encodings ([`Variant`]) with
//! one aho-corasick automaton ([`Matcher`]), over streams of any length in constant memory
//! ([`StreamScanner`]), from files, standard input or a Docker container ([`source`]). A
//! positive control ([`marker`]) proves the logs were read from start to end. The [`Report`]
//! gives positions, never content, and its verdict is the exit code:
//!
//! | code | verdict |
//! |---|---|
//! | 0 | clean, with every precondition proven |
//! | 1 | a leak |
//! | 2 | the logs could not be read, or a usage error (fails closed) |
//! | 3 | inconclusive: a precondition was not proven |
//!
//! ```
//! use phi_canary::{Canary, Matcher, VariantSet};
//!
//! let m = Matcher::new(vec![Canary::demo(), Canary::core()], VariantSet::All, None)?;
//! let events = m.find_all(b"{\"q\":\"SELF-TRACKED PHI-CANARY-3F9A\"}\n");
//! assert_eq!(events.len(), 1);
//! assert_eq!(events[0].offset, 6);
//! # Ok::<(), phi_canary::MatcherError>(())
//! ```

pub mod canary;
pub mod decode;
pub mod marker;
pub mod matcher;
pub mod otlp;
pub mod progress;
pub mod report;
pub mod scan;
pub mod source;
pub mod stream;
pub mod variant;

pub use canary::{Canary, CanaryError};
pub use marker::{MarkerKind, Nonce};
pub use matcher::{Found, Matcher, MatcherError};
pub use report::{Format, Report, Verdict};
pub use stream::{Event, StreamScanner};
pub use variant::{Variant, VariantSet};
