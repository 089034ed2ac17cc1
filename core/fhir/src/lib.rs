//! A person's own FHIR R4 data into their record: a `Bundle` (JSON) or an NDJSON bulk export
//! (one resource per line), through the store's public write side only.
//!
//! What becomes what:
//! - an `Observation` with a LOINC code the bundled vocabulary has and a `valueQuantity` in a
//!   unit it knows becomes a reading; a panel's `component`s (the blood-pressure panel
//!   85354-9 with 8480-6 and 8462-4) become their own series. The time is
//!   `effectiveDateTime`, `effectiveInstant` or `effectivePeriod` (a date alone is the day's
//!   start in the subject's zone). The source is the `device` (its display name's whole words
//!   against one table of device terms; a device naming no one kind is counted as
//!   [`Skip::UnknownDevice`] and its readings left out), else the Patient as `performer`
//!   (`manual`), else a clinician or organisation as `performer`, or the `laboratory`
//!   category (`lab`), else `manual`. A unit is stored as recorded, in its UCUM spelling
//!   (`[lb_av]`, `mg/dL`), and converted to the code's unit when answered, as every reading is.
//! - a `MedicationStatement` or `MedicationRequest` becomes a plan: the drug's name as
//!   recorded, an `RxNorm` or ATC code, the first dosage's dose, frequency (timing code,
//!   `repeat` or as needed) and SNOMED CT route, the course's days, and the status mapped to
//!   active, completed or stopped. Its id is a digest of the subject and the resource's id.
//! - a `MedicationAdministration` (completed, or not-done) becomes a dose, taken or skipped,
//!   of the plan its `request` names, in the same file or written by an earlier import; one
//!   whose plan is nowhere refuses the import ([`Rule::UnknownPlan`]).
//! - a `Condition`, and an `Observation` the person reported (category `survey`, or the
//!   Patient as performer), becomes a journal entry where a code (ICPC-2, or SNOMED CT through
//!   the importer's table) maps to a complaint of the bundled vocabulary.
//!
//! The rules:
//! - **Transactional.** A first pass maps and checks every resource and writes nothing; a
//!   resource that breaks a rule refuses the whole import, named by its position and the
//!   rule ([`ImportError::Refused`]), never by a value. The store's API has no transaction
//!   spanning calls, so the second pass writes in batches of [`BATCH`] readings, one store
//!   transaction each, then the plans and the doses; a store fault between two batches leaves
//!   the earlier ones, and importing the file again completes the import.
//! - **Idempotent.** Every write is an upsert on what the resource names (code, source and
//!   time; the plan's id; plan and time): a re-import writes the same rows unchanged.
//! - **Counted, not guessed.** Unknown codes, units, statuses and timings are counted by kind
//!   ([`Skip`]) in the [`Summary`], and what they belong to is left out.
//! - **PHI.** A `note` is stored as the reading's comment or the plan's or dose's note, which
//!   no tool returns; nothing here logs.
//! - **Bounded.** A whole Bundle is read up to [`Limits::max_bundle_bytes`] (64 MiB), an NDJSON
//!   line up to [`Limits::max_line_bytes`] (1 MiB), and JSON nests at most 128 levels.
//!
//! ```
//! use answers_fhir::{Format, Limits, import_file};
//! use answers_store::Store;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("hr.ndjson");
//! let line = concat!(
//!     r#"{"resourceType":"Observation","status":"final","#,
//!     r#""code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},"#,
//!     r#""effectiveDateTime":"2026-03-01T07:00:00Z","#,
//!     r#""valueQuantity":{"value":61,"system":"http://unitsofmeasure.org","code":"/min"}}"#,
//! );
//! std::fs::write(&path, format!("{line}\n"))?;
//! let mut store = Store::open_in_memory()?;
//! let you = store.upsert_subject("s1", "you", "Europe/Berlin")?;
//! let summary = import_file(&mut store, &you, &path, Format::of_path(&path), Limits::default())?;
//! assert_eq!((summary.resources, summary.readings), (1, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod condition;
mod device;
mod error;
mod fields;
mod import;
mod input;
mod map;
mod medication;
mod observation;
mod summary;
mod time;

pub use error::{ImportError, Position, Rule};
pub use import::{BATCH, import_file, import_new_subject};
pub use input::{Format, Limits};
pub use summary::{Skip, Summary};
