//! The demo record (`answers seed --demo`): two accounts in a care circle, `you` (Berlin) and
//! `mom` (Shanghai), each with a year of device readings ending **2026-09-14** (literal dates,
//! never offsets from today), generated from a random stream per account and indicator so a
//! replay writes the same values. Every write is an upsert.
//!
//! | series | how often | source |
//! |---|---|---|
//! | weight (`bodyMass`, kg) | Mondays 07:10 | scale |
//! | resting heart rate (`dailyRestingHeartRates`) | daily 08:00 | watch |
//! | steps (`stepCount`) | daily 23:59; the phone too on the last 21 days (23:58), the watch missing two of them | watch, phone |
//! | blood pressure | every 28 (`you`) or 14 (`mom`) days, 08:15; `mom`'s 9/5 mmHg lower from her switch of drugs on 2026-05-18 | cuff |
//! | sleep (`sleepDuration`, h) | daily 07:00, `mom` only | watch |
//! | heart rate (`heartRate`) | every 5 minutes on 2026-09-12..14 | watch |
//! | lab panel, printed in mg/dL | 2025-11-12 09:15 | lab |
//! | body temperature, legacy (no local day) | 2025-10-02, `you` | manual |
//! | blood pressure typed in morning and evening | 2026-09-10, `mom` | manual |
//! | reported symptoms (ICPC), one typed as `头疼` | a few | manual |
//! | medication plans and dose log (`demo/medications.rs`) | blood-pressure switch on 2026-05-18, `mom` only | |
//!
//! **The canary.** The last reading of each account's lab panel has the comment
//! [`PHI_CANARY`]; a per-run canary ([`SeedOptions::extra_canary`]) goes on the first. No tool
//! returns a comment, so the canary being in the record and in no output proves the record's
//! PHI stays in.
//!
//! ```
//! use answers_demo::{self, PHI_CANARY, SeedOptions};
//! use answers_store::Store;
//!
//! let mut store = Store::open_in_memory()?;
//! let report = answers_demo::seed(&mut store, &SeedOptions::default())?;
//! assert_eq!(report.accounts.len(), 2);
//! assert!(store.comment_contains(PHI_CANARY)?);
//! assert_eq!(store.subject_by_handle("mom")?.unwrap().tz_name(), "Asia/Shanghai");
//! # Ok::<(), answers_store::StoreError>(())
//! ```

mod extras;
mod genotypes;
mod medications;
mod profile;
mod rng;
mod series;

use std::fmt;

use jiff::civil::Date;
use jiff::tz::TimeZone;

use answers_store::{EntryKind, NewReading, Store, StoreError};
use profile::{ACCOUNTS, Profile};
use series::Writer;

/// The demo canary: the comment of the last reading of each account's lab panel. A string,
/// not a number, because a leaked bare value is indistinguishable from any other number in a
/// log, while a leaked comment is unambiguous.
///
/// ```
/// assert!(answers_demo::PHI_CANARY.contains("PHI-CANARY"));
/// ```
pub const PHI_CANARY: &str = "self-tracked PHI-CANARY-3f9a";

/// The note on `mom`'s stopped blood-pressure plan and on one skipped dose. A plan's and a
/// dose's note are PHI like a reading's comment: no tool returns them.
///
/// ```
/// assert!(answers_demo::MEDICATION_CANARY.contains("PHI-CANARY"));
/// ```
pub const MEDICATION_CANARY: &str = medications::MEDICATION_CANARY;

/// What to seed besides the record itself.
///
/// ```
/// let opts = answers_demo::SeedOptions::default();
/// assert!(opts.demo_canary);
/// assert_eq!(opts.extra_canary, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedOptions {
    /// Put [`PHI_CANARY`] on the last lab reading of each account.
    pub demo_canary: bool,
    /// A per-run canary (release checks), put on the first lab reading of each account. An
    /// empty string seeds no comment.
    pub extra_canary: Option<String>,
}

impl Default for SeedOptions {
    fn default() -> Self {
        SeedOptions {
            demo_canary: true,
            extra_canary: None,
        }
    }
}

/// What a seed wrote: counts per account, never values.
///
/// ```
/// use answers_demo::SeedReport;
///
/// let report = SeedReport { accounts: vec![] };
/// assert_eq!((report.total(), report.to_string()), (0, String::new()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedReport {
    /// One entry per account, in the order seeded.
    pub accounts: Vec<AccountReport>,
}

/// What a seed wrote for one account.
///
/// ```
/// let mom = answers_demo::AccountReport {
///     handle: "mom".into(), subject_id: "subj-mom-1".into(), measured: 2000, reported: 2,
/// };
/// assert_eq!(answers_demo::SeedReport { accounts: vec![mom] }.total(), 2002);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountReport {
    /// The handle (`you`, `mom`).
    pub handle: String,
    /// The opaque subject id.
    pub subject_id: String,
    /// Measured rows written.
    pub measured: usize,
    /// Reported entries written.
    pub reported: usize,
}

impl SeedReport {
    /// Rows written over all accounts.
    ///
    /// ```
    /// use answers_demo::{AccountReport, SeedReport};
    ///
    /// let a = |handle: &str, measured| AccountReport {
    ///     handle: handle.into(), subject_id: format!("subj-{handle}"), measured, reported: 1,
    /// };
    /// let report = SeedReport { accounts: vec![a("you", 10), a("mom", 20)] };
    /// assert_eq!(report.total(), 32);
    /// assert_eq!(report.to_string(), "you: 10 measured, 1 reported\nmom: 20 measured, 1 reported");
    /// ```
    #[must_use]
    pub fn total(&self) -> usize {
        self.accounts.iter().map(|a| a.measured + a.reported).sum()
    }
}

impl fmt::Display for SeedReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.accounts.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(
                f,
                "{}: {} measured, {} reported",
                a.handle, a.measured, a.reported
            )?;
        }
        Ok(())
    }
}

/// Seeds the demo record into `store`: both subjects, then each account's rows in one
/// transaction. Replaying writes the same rows again (upserts), so the row count is unchanged.
///
/// ```
/// use answers_demo::{self, SeedOptions};
///
/// let mut store = answers_store::Store::open_in_memory()?;
/// let opts = SeedOptions { demo_canary: false, extra_canary: Some("run-42 PHI-CANARY".into()) };
/// let first = answers_demo::seed(&mut store, &opts)?;
/// assert_eq!(answers_demo::seed(&mut store, &opts)?, first);
/// assert!(store.comment_contains("run-42 PHI-CANARY")?);
/// assert!(!store.comment_contains(answers_demo::PHI_CANARY)?);
/// # Ok::<(), answers_store::StoreError>(())
/// ```
pub fn seed(store: &mut Store, opts: &SeedOptions) -> Result<SeedReport, StoreError> {
    let mut accounts = Vec::with_capacity(ACCOUNTS.len());
    for profile in &ACCOUNTS {
        let subject = store.upsert_subject(profile.id, profile.handle, profile.tz)?;
        medications::seed(store, profile, &subject)?;
        let rows = rows(profile, subject.tz, opts);
        store.upsert_readings(&rows)?;
        let count = |kind| rows.iter().filter(|r| r.kind == kind).count();
        accounts.push(AccountReport {
            handle: subject.handle,
            subject_id: subject.id,
            measured: count(EntryKind::Measured),
            reported: count(EntryKind::Reported),
        });
    }
    // `mom` alone has a genotype set, imported through the real importer.
    genotypes::seed(store)?;
    Ok(SeedReport { accounts })
}

/// Every row of one account.
fn rows(profile: &Profile, tz: TimeZone, opts: &SeedOptions) -> Vec<NewReading> {
    let days = series::days();
    let mut w = Writer {
        profile,
        tz,
        rows: Vec::new(),
    };
    w.weight(&days);
    w.resting_hr(&days);
    w.steps(&days);
    w.blood_pressure(&days);
    w.sleep(&days);
    w.intraday_hr();
    let canary = opts.demo_canary.then_some(PHI_CANARY);
    w.lab_panel(opts.extra_canary.as_deref(), canary);
    let d = Date::constant;
    if profile.handle == profile::YOU.handle {
        w.legacy_temperature();
        let note = Some("after the long flight home");
        w.symptom(
            "头疼",
            "N01",
            (d(2026, 8, 3), 14, 20),
            Some("moderate"),
            note,
        );
        w.symptom(
            "headache",
            "N01",
            (d(2026, 6, 11), 9, 0),
            Some("mild"),
            None,
        );
        w.symptom("cough", "R05", (d(2026, 1, 20), 8, 0), None, None);
    } else {
        w.typed_blood_pressure(d(2026, 9, 10));
        let note = Some("stood up too fast");
        w.symptom("头晕", "N17", (d(2026, 7, 2), 10, 30), Some("mild"), note);
        w.symptom("失眠", "P06", (d(2026, 8, 20), 6, 50), None, None);
    }
    w.rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generated_row_passes_the_write_checks() {
        for p in &ACCOUNTS {
            let tz = TimeZone::get(p.tz).unwrap();
            for r in rows(p, tz, &SeedOptions::default()) {
                assert_eq!(r.check(), Ok(()), "{}", r.name);
            }
        }
    }

    #[test]
    fn the_canaries_ride_where_documented() {
        let opts = SeedOptions {
            demo_canary: false,
            extra_canary: Some("RUN-CANARY-1".into()),
        };
        let rows = rows(
            &profile::YOU,
            TimeZone::get(profile::YOU.tz).unwrap(),
            &opts,
        );
        let with = |c: &str| {
            rows.iter()
                .filter(|r| r.comment.as_deref() == Some(c))
                .count()
        };
        assert_eq!(with(PHI_CANARY), 0);
        assert_eq!(with("RUN-CANARY-1"), 1);
    }
}
