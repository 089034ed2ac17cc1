//! `Condition` → a journal entry, where a code maps to a complaint of the bundled vocabulary
//! (ICPC-2 directly, SNOMED CT through the table below).

use answers_store::NewReading;
use answers_vocab::CodeRef;

use crate::error::Rule;
use crate::fields::{Coding, Obj, codings, date_time, notes, object, period};
use crate::map::{Ctx, Out};
use crate::summary::Skip;
use crate::time::FhirTime;

/// The URIs ICPC-2 is written with.
const ICPC2: [&str; 2] = [
    "http://hl7.org/fhir/sid/icpc-2",
    "urn:oid:2.16.840.1.113883.6.139",
];
/// The URI of SNOMED CT.
const SNOMED: &str = "http://snomed.info/sct";

/// SNOMED CT findings that are a complaint of the bundled ICPC-2 subset: the project's map,
/// one finding per complaint, each concept id from SNOMED CT's international edition.
const SNOMED_TO_ICPC: [(&str, &str); 12] = [
    ("386661006", "A03"), // Fever
    ("84229001", "A04"),  // Fatigue
    ("29857009", "A11"),  // Chest pain
    ("21522001", "D01"),  // Abdominal pain
    ("422587007", "D09"), // Nausea
    ("161891005", "L02"), // Backache
    ("279039007", "L03"), // Low back pain
    ("25064002", "N01"),  // Headache
    ("404640003", "N17"), // Dizziness
    ("193462001", "P06"), // Insomnia
    ("267036007", "R02"), // Dyspnea
    ("49727002", "R05"),  // Cough
];

/// The complaint a concept's codings reach: its official name and ICPC code.
pub(crate) fn complaint_of(
    ctx: &Ctx<'_>,
    codings: &[Coding<'_>],
) -> Option<(&'static str, CodeRef)> {
    codings.iter().find_map(|c| {
        let code = c.code?.trim();
        let icpc = match c.system? {
            s if ICPC2.contains(&s) => code,
            SNOMED => SNOMED_TO_ICPC.iter().find(|(s, _)| *s == code)?.1,
            _ => return None,
        };
        let code = CodeRef::icpc(icpc);
        let entry = ctx.vocab.entry(&code)?;
        Some((entry.name.as_str(), code))
    })
}

pub(crate) fn map(ctx: &Ctx<'_>, r: &Obj, out: &mut Out) -> Result<(), Rule> {
    let code = codings(r, "code", "code")?;
    let verification = codings(r, "verificationStatus", "verificationStatus")?;
    let onset = match date_time(r, "onsetDateTime", "onsetDateTime")? {
        Some(t) => Some((Some(t), None)),
        None => period(
            r,
            "onsetPeriod",
            "onsetPeriod",
            "onsetPeriod.start",
            "onsetPeriod.end",
        )?,
    };
    let recorded = date_time(r, "recordedDate", "recordedDate")?;
    let abatement = date_time(r, "abatementDateTime", "abatementDateTime")?;
    if object(r, "subject", "subject")?.is_none() {
        return Err(Rule::Missing { field: "subject" });
    }
    let comment = notes(r, "note", "note")?;
    if verification
        .iter()
        .any(|c| matches!(c.code, Some("refuted" | "entered-in-error")))
    {
        out.skip(Skip::ConditionStatus);
        return Ok(());
    }
    let Some((name, icpc)) = complaint_of(ctx, &code) else {
        out.skip(Skip::UnknownComplaintCode);
        return Ok(());
    };
    let (start, period_end) = onset.unwrap_or((None, None));
    // A year-only onset (common in problem lists) places no day: the recorded date stands in.
    let onset = start.filter(|t: &FhirTime| t.is_precise());
    let Some(start) = onset.or(recorded).and_then(|t| t.instant(ctx.subject)) else {
        out.skip(Skip::TimePrecision);
        return Ok(());
    };
    // An abatement day counts whole. A condition recorded only after it abated is dated by
    // its record, and an end before that date is left out rather than refusing the file.
    let end = abatement
        .or(period_end)
        .and_then(|t: FhirTime| t.end_instant(ctx.subject))
        .filter(|end| onset.is_some() || *end >= start);
    let mut entry = NewReading::reported(&ctx.subject.id, name, icpc, start);
    entry.end = end;
    entry.comment = comment;
    entry.check().map_err(Rule::Reading)?;
    out.rows.push(entry);
    Ok(())
}
