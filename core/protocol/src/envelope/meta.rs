//! `Meta`: what an answer covers and how, beside its rows.

use phi_macros::ClosedFields;
use serde::{Deserialize, Serialize};

use super::kinds::{View, WindowSemantics};
use crate::window::Window;

/// The facts about an answer a program needs: its window and how it was applied, the view,
/// how many rows came back and whether a cap cut them, and for a catalogue how many indicators
/// there are in all.
///
/// `row_count` is kept by the [`Envelope`](crate::Envelope) that holds this `Meta`: it is the
/// number of rows over all its tables.
///
/// ```
/// use answers_protocol::{Meta, View, Window, WindowSemantics};
///
/// let meta = Meta::new(Window::ALL_RECORDED, "Europe/Berlin", WindowSemantics::TzExact)
///     .with_view(View::Stats);
/// assert_eq!(meta.view, Some(View::Stats));
/// assert!(!meta.truncated);
/// ```
#[derive(ClosedFields, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// The local dates the answer covers, or all recorded data.
    pub window: Window,
    /// The subject's IANA zone the window is read in (`Europe/Berlin`); empty on an error.
    pub tz: String,
    /// How exactly the window was applied.
    #[closed]
    pub window_semantics: WindowSemantics,
    /// The view answered with; `None` for a catalogue, a keyword search, or an error.
    #[closed]
    pub view: Option<View>,
    /// Rows over all tables.
    pub row_count: usize,
    /// Whether a cap cut the rows (the status is then `partial`).
    pub truncated: bool,
    /// For a catalogue: how many indicators are recorded in the window, listed or not.
    pub catalog_total: Option<usize>,
}

impl Meta {
    /// The meta of an answer over `window` in zone `tz`, with no view, no rows and no cut.
    ///
    /// ```
    /// use answers_protocol::{Meta, Window, WindowSemantics};
    ///
    /// let m = Meta::new(Window::ALL_RECORDED, "UTC", WindowSemantics::DatePaddedNaive);
    /// assert_eq!(m.row_count, 0);
    /// ```
    #[must_use]
    pub fn new(window: Window, tz: impl Into<String>, window_semantics: WindowSemantics) -> Self {
        Self {
            window,
            tz: tz.into(),
            window_semantics,
            view: None,
            row_count: 0,
            truncated: false,
            catalog_total: None,
        }
    }

    /// The meta of an error envelope: it answers for no window, in no zone, with no rows.
    ///
    /// ```
    /// let m = answers_protocol::Meta::none();
    /// assert!(m.tz.is_empty() && m.window.is_all_recorded());
    /// ```
    #[must_use]
    pub fn none() -> Self {
        Self::new(Window::ALL_RECORDED, "", WindowSemantics::TzExact)
    }

    /// Sets the view.
    ///
    /// ```
    /// use answers_protocol::{Meta, View};
    ///
    /// assert_eq!(Meta::none().with_view(View::Raw).view, Some(View::Raw));
    /// ```
    #[must_use]
    pub fn with_view(mut self, view: View) -> Self {
        self.view = Some(view);
        self
    }

    /// Sets the catalogue's total.
    ///
    /// ```
    /// assert_eq!(answers_protocol::Meta::none().with_catalog_total(212).catalog_total, Some(212));
    /// ```
    #[must_use]
    pub fn with_catalog_total(mut self, total: usize) -> Self {
        self.catalog_total = Some(total);
        self
    }
}
