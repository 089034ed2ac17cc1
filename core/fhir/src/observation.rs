//! `Observation` → readings (LOINC code, UCUM `valueQuantity`; a panel's components each
//! their own series), or a journal entry when the person reported it and a code maps to a
//! complaint.

use answers_protocol::Source;
use answers_store::NewReading;
use answers_vocab::CodeRef;
use jiff::Timestamp;

use crate::condition::complaint_of;
use crate::device::source_of_display;
use crate::error::Rule;
use crate::fields::{
    Obj, Reference, codings, concept_codings, date_time, notes, number, object, objects, period,
    string,
};
use crate::map::{Ctx, Out};
use crate::summary::Skip;
use crate::time::FhirTime;

/// The code system URI of LOINC.
pub(crate) const LOINC: &str = "http://loinc.org";
/// The code system URI of UCUM.
const UCUM: &str = "http://unitsofmeasure.org";
/// The code system URI of FHIR's observation categories.
const CATEGORY: &str = "http://terminology.hl7.org/CodeSystem/observation-category";

/// The FHIR paths of a reading's fields, at the top of the resource or in a component.
struct Paths {
    code: &'static str,
    quantity: &'static str,
    value: &'static str,
    unit: &'static str,
}

const TOP: Paths = Paths {
    code: "code",
    quantity: "valueQuantity",
    value: "valueQuantity.value",
    unit: "valueQuantity.unit",
};

const COMPONENT: Paths = Paths {
    code: "component.code",
    quantity: "component.valueQuantity",
    value: "component.valueQuantity.value",
    unit: "component.valueQuantity.unit",
};

/// What one Observation's readings share.
struct Shared {
    start: Timestamp,
    end: Option<Timestamp>,
    source: Source,
    comment: Option<String>,
}

pub(crate) fn map(ctx: &Ctx<'_>, r: &Obj, out: &mut Out) -> Result<(), Rule> {
    let status = string(r, "status", "status")?.ok_or(Rule::Missing { field: "status" })?;
    let code = object(r, "code", "code")?.ok_or(Rule::Missing { field: "code" })?;
    let times = effective(r)?;
    let comment = notes(r, "note", "note")?;
    let components = objects(r, "component", "component")?;
    let reported = reported(r)?;
    if !matches!(status, "final" | "amended" | "corrected" | "preliminary") {
        out.skip(Skip::ObservationStatus);
        return Ok(());
    }
    let Some((start, end)) = times else {
        out.skip(Skip::TimePrecision);
        return Ok(());
    };
    let (Some(start), end) = (
        start.instant(ctx.subject),
        end.and_then(|e| e.end_instant(ctx.subject)),
    ) else {
        out.skip(Skip::TimePrecision);
        return Ok(());
    };
    if reported {
        let mut found = complaint_of(ctx, &concept_codings(code, "code")?);
        if found.is_none() {
            found = complaint_of(
                ctx,
                &codings(r, "valueCodeableConcept", "valueCodeableConcept")?,
            );
        }
        if let Some((name, icpc)) = found {
            let mut entry = NewReading::reported(&ctx.subject.id, name, icpc, start);
            entry.end = end;
            entry.comment = comment;
            entry.check().map_err(Rule::Reading)?;
            out.rows.push(entry);
            return Ok(());
        }
    }
    let loinc = loinc_of(&concept_codings(code, "code")?);
    if reported && loinc.is_none() {
        // A finding the person reported whose codes reach no complaint.
        out.skip(Skip::UnknownComplaintCode);
        return Ok(());
    }
    let Some(source) = source_of(r, reported)? else {
        out.skip(Skip::UnknownDevice);
        return Ok(());
    };
    let shared = Shared {
        start,
        end,
        source,
        comment,
    };
    if components.is_empty() || r.contains_key("valueQuantity") {
        reading(ctx, r, &TOP, &shared, out)?;
    }
    for c in components {
        reading(ctx, c, &COMPONENT, &shared, out)?;
    }
    Ok(())
}

/// `effectiveDateTime`, `effectiveInstant` or `effectivePeriod`, as `(start, end)`.
fn effective(r: &Obj) -> Result<Option<(FhirTime, Option<FhirTime>)>, Rule> {
    if let Some(t) = date_time(r, "effectiveDateTime", "effectiveDateTime")? {
        return Ok(Some((t, None)));
    }
    if let Some(t) = date_time(r, "effectiveInstant", "effectiveInstant")? {
        return Ok(Some((t, None)));
    }
    let p = period(
        r,
        "effectivePeriod",
        "effectivePeriod",
        "effectivePeriod.start",
        "effectivePeriod.end",
    )?;
    Ok(p.and_then(|(s, e)| s.map(|s| (s, e))))
}

/// Whether the person reported it: a `survey` category, or a `Patient` (or `RelatedPerson`)
/// among its performers.
fn reported(r: &Obj) -> Result<bool, Rule> {
    for c in objects(r, "category", "category")? {
        let survey = concept_codings(c, "category")?
            .iter()
            .any(|c| c.system.is_none_or(|s| s == CATEGORY) && c.code == Some("survey"));
        if survey {
            return Ok(true);
        }
    }
    for p in objects(r, "performer", "performer")? {
        let ty = Reference::of(p, "performer")?.target_type();
        if matches!(ty, Some("Patient" | "RelatedPerson")) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The first LOINC code of a concept.
fn loinc_of<'a>(codings: &[crate::fields::Coding<'a>]) -> Option<&'a str> {
    codings
        .iter()
        .find(|c| c.system == Some(LOINC))
        .and_then(|c| c.code)
}

/// One reading from a code and a `valueQuantity` (of the resource or of a component).
fn reading(
    ctx: &Ctx<'_>,
    at: &Obj,
    paths: &Paths,
    shared: &Shared,
    out: &mut Out,
) -> Result<(), Rule> {
    let code = object(at, "code", paths.code)?.ok_or(Rule::Missing { field: paths.code })?;
    let codes = concept_codings(code, paths.code)?;
    let quantity = object(at, "valueQuantity", paths.quantity)?;
    let Some(loinc) = loinc_of(&codes) else {
        out.skip(Skip::CodeSystem);
        return Ok(());
    };
    let code = CodeRef::loinc(loinc.trim());
    let Some(entry) = ctx.vocab.entry(&code) else {
        out.skip(Skip::UnknownLoincCode);
        return Ok(());
    };
    let Some(q) = quantity else {
        out.skip(Skip::NotAQuantity);
        return Ok(());
    };
    // A quantity without a value (only a unit, say) has nothing to chart: counted, not refused.
    let Some(value) = number(q, "value", paths.value)? else {
        out.skip(Skip::NotAQuantity);
        return Ok(());
    };
    if string(q, "comparator", paths.quantity)?.is_some() {
        out.skip(Skip::Comparator);
        return Ok(());
    }
    let system = string(q, "system", paths.quantity)?;
    let ucum = string(q, "code", paths.quantity)?.filter(|_| system == Some(UCUM));
    let printed = string(q, "unit", paths.unit)?;
    let unit = ucum
        .and_then(|u| ctx.vocab.normalize_unit(u))
        .or_else(|| printed.and_then(|u| ctx.vocab.normalize_unit(u)));
    let Some(unit) = unit else {
        out.skip(Skip::UnknownUnit);
        return Ok(());
    };
    let mut row = NewReading::measured(
        &ctx.subject.id,
        &entry.name,
        code,
        value,
        unit,
        shared.start,
        shared.source,
    );
    row.end = shared.end;
    row.comment.clone_from(&shared.comment);
    row.check().map_err(Rule::Reading)?;
    out.rows.push(row);
    Ok(())
}

/// Where a reading came from: the device (by its display name; `None` when that names no
/// one kind of device), the person, a clinician's or lab's measurement, or typed in.
fn source_of(r: &Obj, reported: bool) -> Result<Option<Source>, Rule> {
    if let Some(device) = object(r, "device", "device")? {
        let device = Reference::of(device, "device")?;
        return Ok(device.display.and_then(source_of_display));
    }
    Ok(Some(person_or_lab(r, reported)?))
}

/// The source of a reading no device names.
fn person_or_lab(r: &Obj, reported: bool) -> Result<Source, Rule> {
    if reported {
        return Ok(Source::Manual);
    }
    for p in objects(r, "performer", "performer")? {
        let ty = Reference::of(p, "performer")?.target_type();
        if matches!(
            ty,
            Some("Practitioner" | "PractitionerRole" | "Organization" | "CareTeam")
        ) {
            return Ok(Source::Lab);
        }
    }
    for c in objects(r, "category", "category")? {
        let lab = concept_codings(c, "category")?
            .iter()
            .any(|c| c.code == Some("laboratory"));
        if lab {
            return Ok(Source::Lab);
        }
    }
    Ok(Source::Manual)
}
