//! The import in two passes over the input: the first maps and checks every resource and
//! writes nothing; the second writes the readings in batches, then the plans and doses.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use answers_protocol::Window;
use answers_store::{EntryKind, NewDose, NewPlan, Store, StoreError, Subject};
use answers_vocab::Vocabulary;
use jiff::tz::TimeZone;

use crate::error::{ImportError, Rule};
use crate::input::{Format, Input, Limits};
use crate::map::{self, Ctx, Out};
use crate::summary::{Skip, Summary};

/// Readings per `upsert_readings` call in the write pass: bounds the memory the rows hold
/// (each call is one store transaction).
pub const BATCH: usize = 10_000;

/// Imports the FHIR file at `path` into `subject`'s record. See the crate docs for the
/// mapping and the rules.
pub fn import_file(
    store: &mut Store,
    subject: &Subject,
    path: &Path,
    format: Format,
    limits: Limits,
) -> Result<Summary, ImportError> {
    let input = Input::open(path, format, limits)?;
    let ctx = Ctx {
        subject,
        vocab: Vocabulary::bundled(),
    };
    let checked = check(store, &ctx, &input)?;
    write(store, &ctx, &input, checked)
}

/// Imports the FHIR file at `path` as the record of a new subject, created with `id`, `handle`
/// and the IANA zone `tz` (which decides the local day of every reading) only once the whole
/// file has passed the check: a refused import creates no subject. A FHIR `Patient` has no
/// time zone, so the zone is the caller's to give. An id or handle the store already holds is
/// [`ImportError::SubjectExists`], and nothing is written. A store fault during the write
/// (after the check) can leave the subject with part of the file; importing the same file into
/// it again completes the import, as for [`import_file`].
///
/// ```
/// use answers_fhir::{Format, Limits, import_new_subject};
/// use answers_store::Store;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("empty.json");
/// std::fs::write(&path, r#"{"resourceType":"Bundle","type":"collection"}"#)?;
/// let mut store = Store::open_in_memory()?;
/// let (you, _) =
///     import_new_subject(&mut store, "subj-you", "you", "europe/berlin", &path, Format::Bundle, Limits::default())?;
/// assert_eq!(you.tz_name(), "Europe/Berlin");
/// assert_eq!(store.subject_by_handle("you")?, Some(you));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn import_new_subject(
    store: &mut Store,
    id: &str,
    handle: &str,
    tz: &str,
    path: &Path,
    format: Format,
    limits: Limits,
) -> Result<(Subject, Summary), ImportError> {
    let zone = TimeZone::get(tz.trim()).map_err(|_| StoreError::InvalidTimeZone)?;
    if store.subject_by_id(id)?.is_some() || store.subject_by_handle(handle)?.is_some() {
        return Err(ImportError::SubjectExists);
    }
    let planned = Subject {
        id: id.to_owned(),
        handle: handle.to_owned(),
        tz: zone,
    };
    let input = Input::open(path, format, limits)?;
    let ctx = Ctx {
        subject: &planned,
        vocab: Vocabulary::bundled(),
    };
    let checked = check(store, &ctx, &input)?;
    let subject = store.upsert_subject(id, handle, tz)?;
    let ctx = Ctx {
        subject: &subject,
        vocab: Vocabulary::bundled(),
    };
    let summary = write(store, &ctx, &input, checked)?;
    Ok((subject, summary))
}

/// What the check pass found: the counts, and the plans and doses (few: kept in memory).
struct Checked {
    summary: Summary,
    plans: Vec<NewPlan>,
    doses: Vec<NewDose>,
}

/// The first pass: every resource mapped and checked, nothing written.
fn check(store: &Store, ctx: &Ctx<'_>, input: &Input) -> Result<Checked, ImportError> {
    let mut out = Out::default();
    let mut patient: Option<String> = None;
    input.each(|at, value, full_url| {
        let refused = |resource, rule| ImportError::Refused {
            at: Some(at),
            resource,
            rule,
        };
        if let Some(p) = map::patient_of(value).map_err(|r| refused(None, r))? {
            match &patient {
                None => patient = Some(p),
                Some(first) if *first != p => return Err(refused(None, Rule::SeveralPatients)),
                Some(_) => {}
            }
        }
        let first_dose = out.doses.len();
        map::resource(ctx, value, full_url, &mut out).map_err(|(ty, rule)| refused(ty, rule))?;
        for dose in &mut out.doses[first_dose..] {
            dose.at = Some(at);
        }
        for row in out.rows.drain(..) {
            match row.kind {
                EntryKind::Measured => out.summary.readings += 1,
                EntryKind::Reported => out.summary.journal += 1,
            }
        }
        Ok(())
    })?;
    let mut by_key: HashMap<String, String> = HashMap::new();
    let mut ids = HashSet::new();
    let mut plans = Vec::new();
    for (plan, keys) in out.plans {
        for k in keys {
            by_key.insert(k, plan.id.clone());
        }
        if ids.insert(plan.id.clone()) {
            out.summary.plans += 1;
        }
        plans.push(plan);
    }
    // The plans earlier imports wrote, read once and only when a dose needs them.
    let mut stored: Option<HashSet<String>> = None;
    let mut doses = Vec::new();
    for pending in out.doses {
        let Some((literal, typed)) = pending.request else {
            out.summary.skip(Skip::DosePlan);
            continue;
        };
        let here = by_key
            .get(&literal)
            .or_else(|| typed.as_ref().and_then(|t| by_key.get(t)));
        let plan_id = if let Some(id) = here {
            id.clone()
        } else if out.named.contains(&literal)
            || typed.as_ref().is_some_and(|t| out.named.contains(t))
        {
            // Its plan is in the file but was left out (and counted): so is the dose.
            out.summary.skip(Skip::DosePlan);
            continue;
        } else {
            let stored = match &mut stored {
                Some(s) => s,
                None => stored.insert(
                    store
                        .plans_in_effect(&ctx.subject.id, &Window::ALL_RECORDED)?
                        .into_iter()
                        .map(|p| p.id)
                        .collect(),
                ),
            };
            let ids = map::plan_ids_named(&ctx.subject.id, &literal, typed.as_deref());
            let Some(id) = ids.into_iter().find(|id| stored.contains(id)) else {
                return Err(ImportError::Refused {
                    at: pending.at,
                    resource: Some("MedicationAdministration"),
                    rule: Rule::UnknownPlan,
                });
            };
            id
        };
        doses.push(NewDose {
            plan_id,
            ..pending.dose
        });
        out.summary.doses += 1;
    }
    Ok(Checked {
        summary: out.summary,
        plans,
        doses,
    })
}

/// The second pass: the readings and entries again, written a batch at a time, then the plans
/// and the doses. Every write is an upsert keyed on what the resource names (code, source and
/// time; the plan's id; plan and time), so writing the same file again changes nothing.
fn write(
    store: &mut Store,
    ctx: &Ctx<'_>,
    input: &Input,
    checked: Checked,
) -> Result<Summary, ImportError> {
    let mut out = Out::default();
    let mut written = 0u64;
    input.each(|_, value, full_url| {
        map::resource(ctx, value, full_url, &mut out).map_err(|_| ImportError::Changed)?;
        // The plans and doses were kept by the check pass.
        out.plans.clear();
        out.doses.clear();
        if out.rows.len() >= BATCH {
            written += store.upsert_readings(&out.rows)? as u64;
            out.rows.clear();
        }
        Ok(())
    })?;
    written += store.upsert_readings(&out.rows)? as u64;
    let expected = checked.summary.readings + checked.summary.journal;
    if written != expected {
        return Err(ImportError::Changed);
    }
    store.upsert_plans(&checked.plans)?;
    store.upsert_doses(&checked.doses)?;
    Ok(checked.summary)
}
