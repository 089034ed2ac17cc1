//! The one question the store answers about comments: whether one contains a string.
//!
//! A comment is PHI. No tool returns it and no log line carries it; this answers present or
//! absent without returning the comment, which is what a canary check needs (the canary must
//! be in the record for a clean log to prove anything).

use super::{Store, StoreError};
use answers_db::{Arg, Sql};

impl Store {
    /// Whether any comment in the record contains `needle` (case-sensitive). An empty needle
    /// is contained in nothing, so a check with an empty canary cannot pass vacuously.
    ///
    /// ```
    /// use answers_protocol::Source;
    /// use answers_store::{NewReading, Store};
    /// use answers_vocab::CodeRef;
    ///
    /// let mut store = Store::open_in_memory()?;
    /// store.upsert_subject("s", "you", "UTC")?;
    /// let mut r = NewReading::measured("s", "weight", CodeRef::loinc("29463-7"), 70.0, "kg",
    ///     "2026-01-05T07:00:00Z".parse().unwrap(), Source::Scale);
    /// r.comment = Some("after the holidays CANARY-1".into());
    /// store.upsert_readings(&[r])?;
    /// assert!(store.comment_contains("CANARY-1")?);
    /// assert!(!store.comment_contains("canary-1")?);
    /// assert!(!store.comment_contains("")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn comment_contains(&self, needle: &str) -> Result<bool, StoreError> {
        if needle.is_empty() {
            return Ok(false);
        }
        let op = "check comments";
        let found = self.db.one(
            op,
            Sql::Each(
                "SELECT EXISTS (SELECT 1 FROM series WHERE instr(comment, ?1) > 0)",
                "SELECT EXISTS (SELECT 1 FROM series WHERE strpos(comment, ?1) > 0)",
            ),
            &[Arg::from(needle)],
            |r| r.flag(0, op),
        )?;
        Ok(found.unwrap_or(false))
    }
}
