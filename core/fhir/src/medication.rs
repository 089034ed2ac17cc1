//! `MedicationStatement` and `MedicationRequest` → plans (dosage, period and status mapped to
//! the store's closed sets); `MedicationAdministration` → the dose log.

use answers_store::{ClosedReason, DrugCode, Frequency, NewDose, NewPlan, PlanStatus, Route};

use crate::error::Rule;
use crate::fields::{
    Obj, Reference, boolean, codings, concept_name, date_time, notes, number, object, objects,
    period, string,
};
use crate::map::{Ctx, Out, PendingDose, id_of, plan_id};
use crate::summary::Skip;
use crate::time::FhirTime;

const RXNORM: &str = "http://www.nlm.nih.gov/research/umls/rxnorm";
const ATC: &str = "http://www.whocc.no/atc";
const UCUM: &str = "http://unitsofmeasure.org";
const SNOMED: &str = "http://snomed.info/sct";
const GTS: &str = "http://terminology.hl7.org/CodeSystem/v3-GTSAbbreviation";

/// SNOMED CT route concepts (FHIR's route-codes value set) by the store's route.
const ROUTES: [(&str, Route); 11] = [
    ("26643006", Route::Oral),
    ("37839007", Route::Sublingual),
    ("6064005", Route::Topical),
    ("45890007", Route::Transdermal),
    ("447694001", Route::Inhaled),
    ("46713006", Route::Nasal),
    ("54485002", Route::Ophthalmic),
    ("34206005", Route::Subcutaneous),
    ("78421000", Route::Intramuscular),
    ("47625008", Route::Intravenous),
    ("37161004", Route::Rectal),
];

/// A plan from a `MedicationStatement` or a `MedicationRequest`.
pub(crate) fn plan(
    ctx: &Ctx<'_>,
    r: &Obj,
    ty: &'static str,
    full_url: Option<&str>,
    out: &mut Out,
) -> Result<(), Rule> {
    let request = ty == "MedicationRequest";
    let identity = id_of(r)?.or(full_url).ok_or(Rule::NoId)?;
    let status = string(r, "status", "status")?.ok_or(Rule::Missing { field: "status" })?;
    if object(r, "subject", "subject")?.is_none() {
        return Err(Rule::Missing { field: "subject" });
    }
    let concept = object(r, "medicationCodeableConcept", "medicationCodeableConcept")?;
    if concept.is_none() && object(r, "medicationReference", "medicationReference")?.is_none() {
        return Err(Rule::Missing {
            field: "medication[x]",
        });
    }
    let dosage_key = if request {
        "dosageInstruction"
    } else {
        "dosage"
    };
    let dosages = objects(r, dosage_key, dosage_key)?;
    let dosage = dosages.first().copied();
    let (start, end) = if request {
        request_period(r, dosage)?
    } else {
        statement_period(r)?
    };
    let note = notes(r, "note", "note")?;
    let status = match (status, request) {
        ("active" | "intended", false) | ("active", true) => PlanStatus::Active,
        ("completed", _) => PlanStatus::Completed,
        ("stopped", _) | ("cancelled", true) => PlanStatus::Stopped,
        _ => {
            out.skip(Skip::MedicationStatus);
            return Ok(());
        }
    };
    let Some(concept) = concept else {
        out.skip(Skip::MedicationName);
        return Ok(());
    };
    let Some(name) = concept_name(concept, "medicationCodeableConcept")? else {
        out.skip(Skip::MedicationName);
        return Ok(());
    };
    let Some(frequency) = dosage.map(frequency).transpose()?.flatten() else {
        out.skip(Skip::UnknownFrequency);
        return Ok(());
    };
    let Some(route) = dosage.map(route).transpose()?.flatten() else {
        out.skip(Skip::UnknownRoute);
        return Ok(());
    };
    let Some(start) = start.and_then(|s| s.local_day(ctx.subject)) else {
        out.skip(Skip::MedicationPeriod);
        return Ok(());
    };
    let id = plan_id(&ctx.subject.id, ty, identity);
    let mut plan = NewPlan::active(&id, &ctx.subject.id, name.trim(), frequency, route, start);
    plan.code = drug_code(concept)?;
    plan.dose = dosage.map(dose).transpose()?.flatten();
    plan.end = end.and_then(|e| e.local_day(ctx.subject));
    plan.note = note;
    if status.is_closed() {
        let Some(end) = plan.end else {
            out.skip(Skip::MedicationPeriod);
            return Ok(());
        };
        let reason = match (status, request) {
            (PlanStatus::Completed, _) => ClosedReason::CourseCompleted,
            // A request is the prescriber's: stopping or cancelling it is theirs too.
            (_, true) => ClosedReason::PrescriberStopped,
            (_, false) => ClosedReason::PersonStopped,
        };
        plan = plan.closed(status, end, reason);
    }
    plan.check().map_err(Rule::Medication)?;
    let mut keys = vec![format!("{ty}/{identity}")];
    keys.extend(full_url.map(str::to_owned));
    out.plans.push((plan, keys));
    Ok(())
}

/// A statement's `effective[x]`.
fn statement_period(r: &Obj) -> Result<(Option<FhirTime>, Option<FhirTime>), Rule> {
    if let Some(t) = date_time(r, "effectiveDateTime", "effectiveDateTime")? {
        return Ok((Some(t), None));
    }
    Ok(period(
        r,
        "effectivePeriod",
        "effectivePeriod",
        "effectivePeriod.start",
        "effectivePeriod.end",
    )?
    .unwrap_or((None, None)))
}

/// A request's course: the dosage's `timing.repeat.boundsPeriod`, else the dispense
/// validity period; its start defaults to `authoredOn`.
fn request_period(
    r: &Obj,
    dosage: Option<&Obj>,
) -> Result<(Option<FhirTime>, Option<FhirTime>), Rule> {
    let authored = date_time(r, "authoredOn", "authoredOn")?;
    let mut bounds = None;
    if let Some(repeat) = dosage.map(repeat).transpose()?.flatten() {
        bounds = period(
            repeat,
            "boundsPeriod",
            "dosageInstruction.timing.repeat.boundsPeriod",
            "dosageInstruction.timing.repeat.boundsPeriod.start",
            "dosageInstruction.timing.repeat.boundsPeriod.end",
        )?;
    }
    if bounds.is_none()
        && let Some(dispense) = object(r, "dispenseRequest", "dispenseRequest")?
    {
        bounds = period(
            dispense,
            "validityPeriod",
            "dispenseRequest.validityPeriod",
            "dispenseRequest.validityPeriod.start",
            "dispenseRequest.validityPeriod.end",
        )?;
    }
    let (start, end) = bounds.unwrap_or((None, None));
    Ok((start.filter(|t| t.is_precise()).or(authored), end))
}

fn repeat(dosage: &Obj) -> Result<Option<&Obj>, Rule> {
    match object(dosage, "timing", "dosage.timing")? {
        Some(timing) => object(timing, "repeat", "dosage.timing.repeat"),
        None => Ok(None),
    }
}

/// The plan's frequency from a `Dosage`: as needed, a timing code, or `repeat`'s
/// frequency per period.
fn frequency(dosage: &Obj) -> Result<Option<Frequency>, Rule> {
    let as_needed = boolean(dosage, "asNeededBoolean", "dosage.asNeededBoolean")? == Some(true)
        || object(
            dosage,
            "asNeededCodeableConcept",
            "dosage.asNeededCodeableConcept",
        )?
        .is_some();
    if let Some(timing) = object(dosage, "timing", "dosage.timing")? {
        for c in codings(timing, "code", "dosage.timing.code")? {
            let by_code = match (c.system, c.code) {
                (Some(GTS), Some("QD")) => Some(Frequency::OnceDaily),
                (Some(GTS), Some("BID")) => Some(Frequency::TwiceDaily),
                (Some(GTS), Some("TID")) => Some(Frequency::ThreeTimesDaily),
                (Some(GTS), Some("QID")) => Some(Frequency::FourTimesDaily),
                (Some(GTS), Some("QOD")) => Some(Frequency::EveryOtherDay),
                _ => None,
            };
            if by_code.is_some() {
                return Ok(by_code);
            }
        }
    }
    if let Some(repeat) = repeat(dosage)? {
        let f = number(repeat, "frequency", "dosage.timing.repeat.frequency")?.unwrap_or(1.0);
        let p = number(repeat, "period", "dosage.timing.repeat.period")?;
        let unit = string(repeat, "periodUnit", "dosage.timing.repeat.periodUnit")?;
        if let (Some(p), Some(unit)) = (p, unit) {
            // Everything in doses per hour of the period, compared exactly on small integers.
            let hours = match unit {
                "h" => p,
                "d" => p * 24.0,
                "wk" => p * 168.0,
                _ => return Ok(as_needed.then_some(Frequency::AsNeeded)),
            };
            let per = |n: f64, every_hours: f64| (f * every_hours - n * hours).abs() < 1e-9;
            let mapped = [
                (1.0, 24.0, Frequency::OnceDaily),
                (2.0, 24.0, Frequency::TwiceDaily),
                (3.0, 24.0, Frequency::ThreeTimesDaily),
                (4.0, 24.0, Frequency::FourTimesDaily),
                (1.0, 48.0, Frequency::EveryOtherDay),
                (1.0, 168.0, Frequency::Weekly),
            ]
            .into_iter()
            .find(|(n, every, _)| per(*n, *every))
            .map(|(_, _, freq)| freq);
            if mapped.is_some() {
                return Ok(mapped);
            }
        }
    }
    Ok(as_needed.then_some(Frequency::AsNeeded))
}

/// The route of a `Dosage`, by its SNOMED CT concept.
fn route(dosage: &Obj) -> Result<Option<Route>, Rule> {
    Ok(codings(dosage, "route", "dosage.route")?
        .iter()
        .filter(|c| c.system == Some(SNOMED))
        .find_map(|c| ROUTES.iter().find(|(code, _)| Some(*code) == c.code))
        .map(|(_, route)| *route))
}

/// The amount of one dose: `doseAndRate[0].doseQuantity`, in its UCUM code or printed unit.
fn dose(dosage: &Obj) -> Result<Option<(f64, String)>, Rule> {
    let Some(first) = objects(dosage, "doseAndRate", "dosage.doseAndRate")?
        .first()
        .copied()
    else {
        return Ok(None);
    };
    let Some(q) = object(first, "doseQuantity", "dosage.doseAndRate.doseQuantity")? else {
        return Ok(None);
    };
    let field = "dosage.doseAndRate.doseQuantity.value";
    let value = number(q, "value", field)?.ok_or(Rule::Missing { field })?;
    let quantity = "dosage.doseAndRate.doseQuantity";
    let ucum = string(q, "code", quantity)?
        .filter(|_| string(q, "system", quantity).ok().flatten() == Some(UCUM));
    // An amount without a unit says no dose: the plan is kept without one, not refused.
    let Some(unit) = ucum
        .or(string(q, "unit", quantity)?)
        .filter(|u| !u.trim().is_empty())
    else {
        return Ok(None);
    };
    Ok(Some((value, unit.to_owned())))
}

/// An `RxNorm` or ATC code of the medication, when it has one.
fn drug_code(concept: &Obj) -> Result<Option<DrugCode>, Rule> {
    let codes = crate::fields::concept_codings(concept, "medicationCodeableConcept")?;
    Ok(codes.iter().find_map(|c| match (c.system?, c.code?) {
        (RXNORM, code) => Some(DrugCode::rxnorm(code.trim())),
        (ATC, code) => Some(DrugCode::atc(code.trim())),
        _ => None,
    }))
}

/// A dose from a `MedicationAdministration`; its plan is found once every plan is read.
pub(crate) fn administration(ctx: &Ctx<'_>, r: &Obj, out: &mut Out) -> Result<(), Rule> {
    let status = string(r, "status", "status")?.ok_or(Rule::Missing { field: "status" })?;
    if object(r, "subject", "subject")?.is_none() {
        return Err(Rule::Missing { field: "subject" });
    }
    let at = match date_time(r, "effectiveDateTime", "effectiveDateTime")? {
        Some(t) => Some(t),
        None => period(
            r,
            "effectivePeriod",
            "effectivePeriod",
            "effectivePeriod.start",
            "effectivePeriod.end",
        )?
        .and_then(|(s, _)| s),
    };
    if at.is_none() && !r.contains_key("effectivePeriod") {
        return Err(Rule::Missing {
            field: "effective[x]",
        });
    }
    let request = object(r, "request", "request")?
        .map(|q| Reference::of(q, "request"))
        .transpose()?;
    let note = notes(r, "note", "note")?;
    let taken = match status {
        "completed" => true,
        "not-done" => false,
        _ => {
            out.skip(Skip::DoseStatus);
            return Ok(());
        }
    };
    let Some(at) = at.and_then(|t| t.instant(ctx.subject)) else {
        out.skip(Skip::TimePrecision);
        return Ok(());
    };
    let mut dose = if taken {
        NewDose::taken("", &ctx.subject.id, at)
    } else {
        NewDose::skipped("", &ctx.subject.id, at)
    };
    dose.note = note;
    let request = request.and_then(|q| {
        let literal = q.reference?.to_owned();
        let typed = q.type_and_id().map(|(t, id)| format!("{t}/{id}"));
        Some((literal, typed))
    });
    out.doses.push(PendingDose {
        dose,
        request,
        at: None,
    });
    Ok(())
}
