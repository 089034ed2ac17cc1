//! The day the medications tool takes as today: the current local day in the subject's zone,
//! from the machine's clock (as the original implementation does), or the day
//! [`TODAY_ENV`] names, so a test or a demo over a fixed record answers the same on any day.
//!
//! The `log`'s default window ends on this day, and a `plan` answer's dose slots are this
//! day's.

use jiff::Timestamp;

use crate::date::{DateError, LocalDate};
use crate::fault::ToolError;
use crate::store::Subject;

/// The environment variable that, when set, names the day taken as today (`YYYY-MM-DD`, the
/// subject's local day): for tests and demos over a fixed record. `answers` refuses a value
/// that is not a date before it answers anything.
///
/// ```
/// assert_eq!(answers_tools::medications::TODAY_ENV, "ANSWERS_TODAY");
/// ```
pub const TODAY_ENV: &str = "ANSWERS_TODAY";

/// The day [`TODAY_ENV`] names, if it is set.
///
/// ```
/// // Unset in the doctest's environment.
/// assert_eq!(answers_tools::medications::today_override(), Ok(None));
/// ```
///
/// # Errors
/// The variable is set to something that is not a `YYYY-MM-DD` date.
pub fn today_override() -> Result<Option<LocalDate>, DateError> {
    match std::env::var(TODAY_ENV) {
        Ok(text) => text.trim().parse().map(Some),
        // Unset, or not Unicode (which no date is): the parse of "" says the latter.
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => "".parse().map(Some),
    }
}

/// Today in `subject`'s zone: [`TODAY_ENV`]'s day when it is set to a date, else the clock's.
/// A value that is not a date is refused by the `answers` binary before any command runs
/// ([`today_override`]'s error); a library caller that skips that check gets the clock's day.
pub(crate) fn today(subject: &Subject) -> Result<LocalDate, ToolError> {
    if let Ok(Some(day)) = today_override() {
        return Ok(day);
    }
    // A clock outside years 0-9999 is not one a record can be read by.
    LocalDate::try_from(subject.local_date(Timestamp::now()))
        .map_err(|_| ToolError::Malformed { table: "subject" })
}
