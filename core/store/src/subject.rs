//! Subjects: the people a record holds, each by an opaque id, a handle to sign in with, and an
//! IANA time zone that decides which local day a reading falls on.

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

use super::{Store, StoreError};
use answers_db::{Arg, Args, DbError, Row};

/// A person whose record the store holds.
///
/// ```
/// let store = answers_store::Store::open_in_memory()?;
/// let mom = store.upsert_subject("subj-mom-1", "mom", "asia/shanghai")?;
/// assert_eq!(mom.tz_name(), "Asia/Shanghai");
/// let late = "2026-09-01T23:30:00Z".parse()?;
/// assert_eq!(mom.local_date(late).to_string(), "2026-09-02");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// The opaque id every row of the record is keyed on.
    pub id: String,
    /// The name the person signs in as (`you`, `mom`).
    pub handle: String,
    /// The zone local days are decided in.
    pub tz: TimeZone,
}

impl Subject {
    /// The IANA name of the subject's zone, as stored.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
    /// assert_eq!(you.tz_name(), "Europe/Berlin");
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    #[must_use]
    pub fn tz_name(&self) -> &str {
        // Every stored zone was loaded by its IANA name, so it has one.
        self.tz.iana_name().unwrap_or("UTC")
    }

    /// The local calendar date of `at` in the subject's zone: the local day a reading at that
    /// instant is stored under.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
    /// let at = "2026-09-14T22:30:00Z".parse()?;
    /// assert_eq!(you.local_date(at).to_string(), "2026-09-15");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn local_date(&self, at: Timestamp) -> Date {
        self.tz.to_datetime(at).date()
    }

    fn from_row(row: &Row<'_>) -> Result<Subject, DbError> {
        let (op, table) = ("read subject", "subject");
        let id = row.text(0, op, table)?.to_owned();
        let handle = row.text(1, op, table)?.to_owned();
        let tz = row.text(2, op, table)?;
        TimeZone::get(tz)
            .map(|tz| Subject { id, handle, tz })
            .map_err(|_| DbError::Malformed { table })
    }
}

impl Store {
    /// Creates the subject `id`, or updates its handle and zone. `tz` must be an IANA zone
    /// name (matched case-insensitively and stored canonically). A zone change applies to
    /// readings written afterwards: a stored local day is never recomputed.
    ///
    /// ```
    /// use answers_store::{Store, StoreError};
    ///
    /// let store = Store::open_in_memory()?;
    /// store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
    /// assert!(matches!(store.upsert_subject("x", "y", "Mars/Olympus"), Err(StoreError::InvalidTimeZone)));
    /// assert!(matches!(store.upsert_subject("x", "you", "UTC"), Err(StoreError::HandleTaken)));
    /// let moved = store.upsert_subject("subj-you-1", "you", "America/New_York")?;
    /// assert_eq!(store.subject_by_id("subj-you-1")?, Some(moved));
    /// # Ok::<(), StoreError>(())
    /// ```
    pub fn upsert_subject(&self, id: &str, handle: &str, tz: &str) -> Result<Subject, StoreError> {
        let padded = |s: &str| s.is_empty() || s.trim() != s;
        if padded(id) || padded(handle) {
            return Err(StoreError::InvalidSubject);
        }
        let zone = TimeZone::get(tz.trim()).map_err(|_| StoreError::InvalidTimeZone)?;
        let Some(name) = zone.iana_name().map(str::to_owned) else {
            return Err(StoreError::InvalidTimeZone);
        };
        let owner = self.db.one(
            "read subject",
            "SELECT id FROM subject WHERE handle = ?1",
            &[Arg::from(handle)],
            |r| Ok(r.text(0, "read subject", "subject")?.to_owned()),
        )?;
        if owner.is_some_and(|owner| owner != id) {
            return Err(StoreError::HandleTaken);
        }
        // Another writer may take the handle between the check and the write: the unique
        // key refuses the second, which is told as the handle taken.
        self.db
            .exec(
                "write subject",
                "INSERT INTO subject (id, handle, tz) VALUES (?1, ?2, ?3)
                 ON CONFLICT (id) DO UPDATE SET handle = excluded.handle, tz = excluded.tz",
                &[Arg::from(id), Arg::from(handle), Arg::from(name.as_str())],
            )
            .map_err(|e| match e {
                DbError::Postgres { ref kind, .. } if kind == "unique_violation" => {
                    StoreError::HandleTaken
                }
                DbError::Sqlite { ref kind, .. } if kind == "ConstraintViolation" => {
                    StoreError::HandleTaken
                }
                other => other.into(),
            })?;
        Ok(Subject {
            id: id.to_owned(),
            handle: handle.to_owned(),
            tz: zone,
        })
    }

    /// The subject signed in as `handle`, if any.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// store.upsert_subject("subj-mom-1", "mom", "Asia/Shanghai")?;
    /// assert_eq!(store.subject_by_handle("mom")?.unwrap().id, "subj-mom-1");
    /// assert_eq!(store.subject_by_handle("dad")?, None);
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    pub fn subject_by_handle(&self, handle: &str) -> Result<Option<Subject>, StoreError> {
        self.one_subject(
            "SELECT id, handle, tz FROM subject WHERE handle = ?1",
            handle,
        )
    }

    /// The subject with the opaque id `id`, if any.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// store.upsert_subject("subj-mom-1", "mom", "Asia/Shanghai")?;
    /// assert_eq!(store.subject_by_id("subj-mom-1")?.unwrap().handle, "mom");
    /// assert_eq!(store.subject_by_id("mom")?, None);
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    pub fn subject_by_id(&self, id: &str) -> Result<Option<Subject>, StoreError> {
        self.one_subject("SELECT id, handle, tz FROM subject WHERE id = ?1", id)
    }

    /// Whether `subject_id` has any reading or reported entry.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// store.upsert_subject("subj-1", "you", "UTC")?;
    /// assert!(!store.has_entries("subj-1")?);
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    pub fn has_entries(&self, subject_id: &str) -> Result<bool, StoreError> {
        let op = "check entries";
        let found = self.db.one(
            op,
            "SELECT EXISTS (SELECT 1 FROM series WHERE subject_id = ?1)",
            &[Arg::from(subject_id)],
            |r| r.flag(0, op),
        )?;
        Ok(found.unwrap_or(false))
    }

    /// Every subject, by handle.
    ///
    /// ```
    /// let store = answers_store::Store::open_in_memory()?;
    /// store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
    /// store.upsert_subject("subj-mom-1", "mom", "Asia/Shanghai")?;
    /// let handles: Vec<_> = store.subjects()?.into_iter().map(|s| s.handle).collect();
    /// assert_eq!(handles, ["mom", "you"]);
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    pub fn subjects(&self) -> Result<Vec<Subject>, StoreError> {
        let mut out = Vec::new();
        self.db.each(
            "read subjects",
            "SELECT id, handle, tz FROM subject ORDER BY handle",
            Args::Pos(&[]),
            |r| {
                out.push(Subject::from_row(r)?);
                Ok::<_, StoreError>(crate::Flow::Continue)
            },
        )?;
        Ok(out)
    }

    fn one_subject(&self, sql: &str, key: &str) -> Result<Option<Subject>, StoreError> {
        self.db
            .one("read subject", sql, &[Arg::from(key)], Subject::from_row)
            .map_err(StoreError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_handles_must_be_unpadded_and_non_empty() {
        crate::test_support::each_backend(|s| {
            for (id, handle) in [("", "a"), ("a", ""), (" a", "b"), ("a", "b\n")] {
                assert!(matches!(
                    s.upsert_subject(id, handle, "UTC"),
                    Err(StoreError::InvalidSubject)
                ));
            }
            assert!(s.subjects().unwrap().is_empty());
        });
    }

    #[test]
    fn fixed_offsets_are_not_zones() {
        crate::test_support::each_backend(|s| {
            for tz in ["+08:00", "", "UTC+8", "Europe/Berlinn"] {
                assert!(
                    matches!(
                        s.upsert_subject("a", "b", tz),
                        Err(StoreError::InvalidTimeZone)
                    ),
                    "{tz}"
                );
            }
        });
    }

    #[test]
    fn a_stored_zone_that_no_longer_parses_is_malformed() {
        crate::test_support::each_backend(|s| {
            s.db.exec(
                "test",
                "INSERT INTO subject VALUES ('a', 'b', 'Nowhere/Else')",
                answers_db::Args::Pos(&[]),
            )
            .unwrap();
            assert!(matches!(
                s.subject_by_id("a"),
                Err(StoreError::Db(DbError::Malformed { table: "subject" }))
            ));
            assert!(s.subjects().is_err());
        });
    }
}
