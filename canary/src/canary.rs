//! Canaries: the fixed demo canary, its distinctive core token, per-run canaries from the OS RNG,
//! and the short ids reports name them by.
//!
//! **Invariant:** reports name a canary by its [`Canary::id`], never by its text. A per-run
//! canary's id carries 8 of its 32 hex digits: enough to tell runs apart, not enough to plant it.

use std::fmt;

/// The fixed demo canary, carried by a demo reading's comment.
pub const DEMO: &str = "self-tracked PHI-CANARY-3f9a";

/// The demo canary's distinctive core token, matched on its own: it survives encodings that
/// change the demo canary's space.
pub const CORE: &str = "PHI-CANARY-3f9a";

/// What every per-run canary starts with; 32 lower-case hex digits follow.
pub const RUN_PREFIX: &str = "PHI-CANARY-";

/// The shortest canary accepted: shorter text would match ordinary log lines.
pub const MIN_LEN: usize = 8;

/// The longest canary accepted, which bounds the per-stream carry-over.
pub const MAX_LEN: usize = 256;

/// A string planted in the record that must never appear in a log.
///
/// ```
/// use phi_canary::Canary;
///
/// assert_eq!(Canary::demo().id(), "demo");
/// assert_eq!(Canary::core().text(), "PHI-CANARY-3f9a");
/// let run = Canary::generate()?;
/// assert!(run.id().starts_with("run:"));
/// assert_eq!(Canary::from_text(run.text(), 1)?.id(), run.id());
/// # Ok::<(), phi_canary::CanaryError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Canary {
    id: String,
    text: String,
}

/// Why a canary was refused or could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CanaryError {
    /// Shorter than [`MIN_LEN`] or longer than [`MAX_LEN`] bytes.
    #[error("canary #{index} is {len} bytes long; a canary has {MIN_LEN} to {MAX_LEN} bytes")]
    Length {
        /// The 1-based position among the canaries given.
        index: usize,
        /// Its length in bytes.
        len: usize,
    },
    /// Holds a byte outside printable ASCII (space to `~`).
    #[error("canary #{index} holds a byte outside printable ASCII")]
    Alphabet {
        /// The 1-based position among the canaries given.
        index: usize,
    },
    /// Two different canaries would be reported under the same id.
    #[error("two canaries share the id `{id}`")]
    DuplicateId {
        /// The id.
        id: String,
    },
    /// No canary was given, and the demo canary was not asked for.
    #[error("no canary to scan for: give --canary TEXT, --canary-file FILE or --demo")]
    NoCanary,
    /// The operating system's random number generator failed.
    #[error(transparent)]
    Random(#[from] phi_marker::RandomError),
}

impl Canary {
    /// The fixed demo canary, [`DEMO`], with the id `demo`.
    ///
    /// ```
    /// assert_eq!(phi_canary::Canary::demo().text(), phi_canary::canary::DEMO);
    /// ```
    #[must_use]
    pub fn demo() -> Canary {
        Canary {
            id: "demo".to_owned(),
            text: DEMO.to_owned(),
        }
    }

    /// The demo canary's core token, [`CORE`], with the id `core`.
    ///
    /// ```
    /// assert_eq!(phi_canary::Canary::core().id(), "core");
    /// ```
    #[must_use]
    pub fn core() -> Canary {
        Canary {
            id: "core".to_owned(),
            text: CORE.to_owned(),
        }
    }

    /// A fresh per-run canary, `PHI-CANARY-` and 128 bits from the OS RNG as 32 lower-case hex
    /// digits: the alphabet `[A-Za-z0-9-]` passes JSON, HTML and docker's json-file escaping
    /// unchanged.
    ///
    /// ```
    /// let c = phi_canary::Canary::generate()?;
    /// assert_eq!(c.text().len(), "PHI-CANARY-".len() + 32);
    /// assert_eq!(c.id(), format!("run:{}", &c.text()[11..19]));
    /// # Ok::<(), phi_canary::CanaryError>(())
    /// ```
    pub fn generate() -> Result<Canary, CanaryError> {
        let text = format!("{RUN_PREFIX}{}", phi_marker::random_hex(16)?);
        Canary::from_text(&text, 1)
    }

    /// A canary given by the user, `index` being its 1-based position among those given. Its id
    /// is `demo` or `core` for those texts, `run:` and the first 8 hex digits (lower case) for a
    /// per-run canary, else `canary-INDEX`.
    ///
    /// ```
    /// use phi_canary::Canary;
    ///
    /// let run = "PHI-CANARY-0123456789abcdef0123456789abcdef";
    /// assert_eq!(Canary::from_text(run, 1)?.id(), "run:01234567");
    /// assert_eq!(Canary::from_text("Zebediah Quintwell", 2)?.id(), "canary-2");
    /// assert!(Canary::from_text("short", 3).is_err());
    /// # Ok::<(), phi_canary::CanaryError>(())
    /// ```
    pub fn from_text(text: &str, index: usize) -> Result<Canary, CanaryError> {
        let len = text.len();
        if !(MIN_LEN..=MAX_LEN).contains(&len) {
            return Err(CanaryError::Length { index, len });
        }
        if !text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            return Err(CanaryError::Alphabet { index });
        }
        let id = if text == DEMO {
            "demo".to_owned()
        } else if text == CORE {
            "core".to_owned()
        } else if let Some(hex) = run_hex(text) {
            format!("run:{}", hex[..8].to_ascii_lowercase())
        } else {
            format!("canary-{index}")
        };
        Ok(Canary {
            id,
            text: text.to_owned(),
        })
    }

    /// The id reports use.
    ///
    /// ```
    /// assert_eq!(phi_canary::Canary::demo().id(), "demo");
    /// ```
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The canary itself.
    ///
    /// ```
    /// assert_eq!(phi_canary::Canary::core().text(), "PHI-CANARY-3f9a");
    /// ```
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Shows the id only, so a canary in a debug print does not spread its text.
impl fmt::Debug for Canary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Canary").field(&self.id).finish()
    }
}

/// The canaries to scan for: the given ones in order, without repeats, with the demo canary and
/// its core token first when `demo` is set. None at all is an error: the demo canary is never a
/// silent fallback.
///
/// ```
/// use phi_canary::canary::{self, Canary};
///
/// let ids: Vec<_> = canary::select(&[], true)?.iter().map(|c| c.id().to_owned()).collect();
/// assert_eq!(ids, ["demo", "core"]);
/// assert!(canary::select(&[], false).is_err());
/// let run = "PHI-CANARY-0123456789abcdef0123456789abcdef".to_owned();
/// assert_eq!(canary::select(&[run.clone(), run], false)?.len(), 1);
/// # Ok::<(), phi_canary::CanaryError>(())
/// ```
pub fn select(texts: &[String], demo: bool) -> Result<Vec<Canary>, CanaryError> {
    let mut out = Vec::new();
    if texts.is_empty() && !demo {
        return Err(CanaryError::NoCanary);
    }
    if demo {
        out.push(Canary::demo());
        out.push(Canary::core());
    }
    for (i, text) in texts.iter().enumerate() {
        let c = Canary::from_text(text, i + 1)?;
        if let Some(same) = out.iter().find(|o: &&Canary| o.id == c.id) {
            if same.text == c.text {
                continue;
            }
            return Err(CanaryError::DuplicateId { id: c.id });
        }
        if out.iter().any(|o| o.text == c.text) {
            continue;
        }
        out.push(c);
    }
    Ok(out)
}

pub(crate) const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

/// The 32 hex digits of a per-run canary, if `text` is one.
fn run_hex(text: &str) -> Option<&str> {
    let hex = text.strip_prefix(RUN_PREFIX)?;
    (hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then_some(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_canaries_use_the_safe_alphabet_and_differ() {
        let a = Canary::generate().expect("rng");
        let b = Canary::generate().expect("rng");
        assert_ne!(a.text(), b.text());
        for c in [&a, &b] {
            assert!(
                c.text()
                    .bytes()
                    .all(|x| x.is_ascii_alphanumeric() || x == b'-')
            );
            assert!(run_hex(c.text()).is_some());
        }
    }

    #[test]
    fn refusals_do_not_quote_the_canary() {
        let err = Canary::from_text("tiny", 2).expect_err("too short");
        assert_eq!(
            err.to_string(),
            "canary #2 is 4 bytes long; a canary has 8 to 256 bytes"
        );
        let err = Canary::from_text("tab\there ok", 1).expect_err("control byte");
        assert_eq!(
            err.to_string(),
            "canary #1 holds a byte outside printable ASCII"
        );
        assert!(!format!("{:?}", Canary::demo()).contains("PHI"));
    }

    #[test]
    fn ids_are_unique() {
        let a = "PHI-CANARY-0123456789abcdef0123456789abcdef".to_owned();
        let b = "PHI-CANARY-0123456711111111111111111111111f".to_owned();
        let err = select(&[a, b], false).expect_err("same id");
        assert_eq!(err.to_string(), "two canaries share the id `run:01234567`");
        let with_demo = select(&[CORE.to_owned()], true).expect("core is already there");
        assert_eq!(with_demo.len(), 2);
    }
}
