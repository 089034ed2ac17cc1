//! `Window`: the local dates an answer covers, or all recorded data.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::date::LocalDate;

/// The window of an answer: inclusive local dates in the subject's zone.
///
/// Neither bound means **all recorded data**, and an answer says so rather than applying a
/// default window silently. One bound leaves the other side open: `start` alone reads from that
/// day to the newest record. A window never ends before it starts.
///
/// ```
/// use answers_protocol::{LocalDate, Window};
///
/// assert_eq!(Window::ALL_RECORDED.to_string(), "all recorded data");
/// let march = Window::between(
///     Some("2024-03-01".parse().unwrap()),
///     Some("2024-03-31".parse().unwrap()),
/// )
/// .unwrap();
/// assert_eq!(march.to_string(), "2024-03-01 to 2024-03-31");
/// assert!(Window::between(march.end(), march.start()).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Window {
    start: Option<LocalDate>,
    end: Option<LocalDate>,
}

/// A window whose end is before its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("window end is before its start")]
pub struct WindowError;

impl Window {
    /// All recorded data: no bound on either side.
    pub const ALL_RECORDED: Self = Self {
        start: None,
        end: None,
    };

    /// The window from `start` to `end`, both inclusive; `None` leaves that side open.
    ///
    /// ```
    /// use answers_protocol::Window;
    ///
    /// let from = Window::between(Some("2024-01-15".parse().unwrap()), None).unwrap();
    /// assert_eq!(from.to_string(), "from 2024-01-15");
    /// assert!(Window::between(None, None).unwrap().is_all_recorded());
    /// ```
    pub fn between(start: Option<LocalDate>, end: Option<LocalDate>) -> Result<Self, WindowError> {
        match (start, end) {
            (Some(s), Some(e)) if e < s => Err(WindowError),
            _ => Ok(Self { start, end }),
        }
    }

    /// The first day, if bounded.
    ///
    /// ```
    /// assert_eq!(answers_protocol::Window::ALL_RECORDED.start(), None);
    /// ```
    #[must_use]
    pub const fn start(&self) -> Option<LocalDate> {
        self.start
    }

    /// The last day, if bounded.
    ///
    /// ```
    /// assert_eq!(answers_protocol::Window::ALL_RECORDED.end(), None);
    /// ```
    #[must_use]
    pub const fn end(&self) -> Option<LocalDate> {
        self.end
    }

    /// Whether this is all recorded data (no bound at all).
    ///
    /// ```
    /// assert!(answers_protocol::Window::ALL_RECORDED.is_all_recorded());
    /// ```
    #[must_use]
    pub const fn is_all_recorded(&self) -> bool {
        self.start.is_none() && self.end.is_none()
    }
}

impl Default for Window {
    fn default() -> Self {
        Self::ALL_RECORDED
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.start, self.end) {
            (None, None) => f.write_str("all recorded data"),
            (Some(s), Some(e)) if s == e => write!(f, "{s}"),
            (Some(s), Some(e)) => write!(f, "{s} to {e}"),
            (Some(s), None) => write!(f, "from {s}"),
            (None, Some(e)) => write!(f, "until {e}"),
        }
    }
}

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            start: Option<LocalDate>,
            end: Option<LocalDate>,
        }
        let raw = Raw::deserialize(deserializer)?;
        Self::between(raw.start, raw.end).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> LocalDate {
        s.parse().unwrap()
    }

    #[test]
    fn displays_every_shape() {
        let w = |s: Option<&str>, e: Option<&str>| {
            Window::between(s.map(d), e.map(d)).unwrap().to_string()
        };
        assert_eq!(w(None, None), "all recorded data");
        assert_eq!(w(Some("2024-03-03"), Some("2024-03-03")), "2024-03-03");
        assert_eq!(w(None, Some("2024-03-03")), "until 2024-03-03");
    }

    #[test]
    fn deserializing_checks_the_order() {
        let ok: Window = serde_json::from_str(r#"{"start":"2024-01-01","end":null}"#).unwrap();
        assert_eq!(ok.start(), Some(d("2024-01-01")));
        let err = serde_json::from_str::<Window>(r#"{"start":"2024-02-01","end":"2024-01-01"}"#)
            .unwrap_err();
        assert!(
            err.to_string().contains("window end is before its start"),
            "{err}"
        );
    }
}
