//! One resource to the rows it becomes: what the mappers share (the subject, the vocabulary,
//! where their rows go) and the dispatch by resource type.

use answers_store::{NewDose, NewPlan, NewReading, Subject};
use answers_vocab::Vocabulary;
use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{Position, Rule};
use crate::fields::{Obj, Reference, object, string};
use crate::summary::{Skip, Summary};
use crate::{condition, medication, observation};

/// The resource types this importer maps, by their FHIR names.
pub(crate) const MAPPED: [&str; 5] = [
    "Observation",
    "Condition",
    "MedicationStatement",
    "MedicationRequest",
    "MedicationAdministration",
];

/// What every mapper reads.
pub(crate) struct Ctx<'a> {
    pub(crate) subject: &'a Subject,
    pub(crate) vocab: &'static Vocabulary,
}

/// A dose before its plan is known: the `MedicationRequest` it names.
#[derive(Debug)]
pub(crate) struct PendingDose {
    pub(crate) dose: NewDose,
    /// The literal reference, and its `Type/id` form.
    pub(crate) request: Option<(String, Option<String>)>,
    /// The resource's position (set by the driver), for the refusal of a dose whose plan
    /// is nowhere.
    pub(crate) at: Option<Position>,
}

/// Where the mappers put rows and counts.
#[derive(Debug, Default)]
pub(crate) struct Out {
    /// Readings and journal entries of the current resource (drained by the driver).
    pub(crate) rows: Vec<NewReading>,
    /// Plans, each with the keys a dose's `request` may name it by.
    pub(crate) plans: Vec<(NewPlan, Vec<String>)>,
    pub(crate) doses: Vec<PendingDose>,
    /// The keys of every medication resource read, imported or left out (counted): a dose
    /// of a plan left out is counted too, not refused.
    pub(crate) named: HashSet<String>,
    pub(crate) summary: Summary,
}

impl Out {
    pub(crate) fn skip(&mut self, why: Skip) {
        self.summary.skip(why);
    }
}

/// Maps one resource (an object with a `resourceType`). Returns the type's static name when
/// it is one this importer maps, for the error that names it.
pub(crate) fn resource(
    ctx: &Ctx<'_>,
    value: &Value,
    full_url: Option<&str>,
    out: &mut Out,
) -> Result<(), (Option<&'static str>, Rule)> {
    let obj = value.as_object().ok_or((None, Rule::NotAnObject))?;
    let ty = match obj.get("resourceType") {
        Some(Value::String(t)) => t.as_str(),
        _ => return Err((None, Rule::NoResourceType)),
    };
    out.summary.resources += 1;
    let Some(ty) = MAPPED.iter().copied().find(|m| *m == ty) else {
        out.skip(Skip::ResourceType);
        return Ok(());
    };
    let mapped = match ty {
        "Observation" => observation::map(ctx, obj, out),
        "Condition" => condition::map(ctx, obj, out),
        "MedicationAdministration" => medication::administration(ctx, obj, out),
        _ => {
            if let Some(identity) = id_of(obj).ok().flatten().or(full_url) {
                out.named.insert(format!("{ty}/{identity}"));
                out.named.extend(full_url.map(str::to_owned));
            }
            medication::plan(ctx, obj, ty, full_url, out)
        }
    };
    mapped.map_err(|rule| (Some(ty), rule))
}

/// The ids a plan an earlier import wrote from the resource a dose's `request` names would
/// have: by its `Type/id`, or (a `urn:uuid:` in a Bundle, the identity of a resource without
/// an `id`) by the literal reference as either medication type.
pub(crate) fn plan_ids_named(subject_id: &str, literal: &str, typed: Option<&str>) -> Vec<String> {
    let mut ids = Vec::new();
    if let Some((ty, id)) = typed.and_then(|t| t.split_once('/')) {
        if matches!(ty, "MedicationRequest" | "MedicationStatement") {
            ids.push(plan_id(subject_id, ty, id));
        }
    } else {
        for ty in ["MedicationRequest", "MedicationStatement"] {
            ids.push(plan_id(subject_id, ty, literal));
        }
    }
    ids
}

/// The patient a resource is about (`subject.reference`), for the one-patient rule.
pub(crate) fn patient_of(value: &Value) -> Result<Option<String>, Rule> {
    let Some(obj) = value.as_object() else {
        return Ok(None);
    };
    let Some(subject) = object(obj, "subject", "subject")? else {
        return Ok(None);
    };
    Ok(Reference::of(subject, "subject")?
        .reference
        .map(str::to_owned))
}

/// A plan's opaque id: a digest of the subject and the resource's identity, so the same
/// resource imported again upserts the same plan, and no two subjects share one.
pub(crate) fn plan_id(subject_id: &str, ty: &str, identity: &str) -> String {
    let mut h = Sha256::new();
    for part in [subject_id, ty, identity] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let digest = h.finalize();
    let mut id = String::from("fhir_");
    for b in &digest[..16] {
        let _ = write!(id, "{b:02x}");
    }
    id
}

/// The resource's `id`, if it has one.
pub(crate) fn id_of(obj: &Obj) -> Result<Option<&str>, Rule> {
    Ok(string(obj, "id", "id")?.filter(|s| !s.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_ids_differ_by_subject_and_identity() {
        let a = plan_id("s1", "MedicationRequest", "m1");
        assert_eq!(a, plan_id("s1", "MedicationRequest", "m1"));
        assert_ne!(a, plan_id("s2", "MedicationRequest", "m1"));
        assert_ne!(a, plan_id("s1", "MedicationStatement", "m1"));
        assert_eq!(a.len(), "fhir_".len() + 32);
    }
}
