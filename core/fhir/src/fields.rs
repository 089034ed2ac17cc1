//! Reading a resource's fields by FHIR's JSON rules: a wrong type is a [`Rule`] naming the
//! field, never the value found.

use serde_json::{Map, Value};

use crate::error::Rule;
use crate::time::FhirTime;

/// A JSON object of the resource, and the FHIR path it has from the resource (for errors).
pub(crate) type Obj = Map<String, Value>;

/// A period's start and end, each when given.
pub(crate) type Span = (Option<FhirTime>, Option<FhirTime>);

/// `obj[key]` as a string, if present.
pub(crate) fn string<'a>(
    obj: &'a Obj,
    key: &str,
    field: &'static str,
) -> Result<Option<&'a str>, Rule> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(Rule::FieldType {
            field,
            expected: "a string",
        }),
    }
}

/// `obj[key]` as an object, if present.
pub(crate) fn object<'a>(
    obj: &'a Obj,
    key: &str,
    field: &'static str,
) -> Result<Option<&'a Obj>, Rule> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(_) => Err(Rule::FieldType {
            field,
            expected: "an object",
        }),
    }
}

/// `obj[key]` as an array of objects (empty when absent).
pub(crate) fn objects<'a>(
    obj: &'a Obj,
    key: &str,
    field: &'static str,
) -> Result<Vec<&'a Obj>, Rule> {
    let wrong = Rule::FieldType {
        field,
        expected: "an array of objects",
    };
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(|v| v.as_object().ok_or(wrong)).collect(),
        Some(_) => Err(wrong),
    }
}

/// `obj[key]` as a number, if present.
pub(crate) fn number(obj: &Obj, key: &str, field: &'static str) -> Result<Option<f64>, Rule> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_f64().map(Some).ok_or(Rule::FieldType {
            field,
            expected: "a number",
        }),
        Some(_) => Err(Rule::FieldType {
            field,
            expected: "a number",
        }),
    }
}

/// `obj[key]` as a boolean, if present.
pub(crate) fn boolean(obj: &Obj, key: &str, field: &'static str) -> Result<Option<bool>, Rule> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(Rule::FieldType {
            field,
            expected: "a boolean",
        }),
    }
}

/// `obj[key]` as a FHIR `dateTime`, if present.
pub(crate) fn date_time(
    obj: &Obj,
    key: &str,
    field: &'static str,
) -> Result<Option<FhirTime>, Rule> {
    string(obj, key, field)?
        .map(|s| FhirTime::parse(s).ok_or(Rule::DateTime { field }))
        .transpose()
}

/// A `Period`'s start and end, checked in order when both are instants or days.
pub(crate) fn period(
    obj: &Obj,
    key: &str,
    field: &'static str,
    start: &'static str,
    end: &'static str,
) -> Result<Option<Span>, Rule> {
    let Some(p) = object(obj, key, field)? else {
        return Ok(None);
    };
    let (s, e) = (date_time(p, "start", start)?, date_time(p, "end", end)?);
    let before = match (s, e) {
        (Some(FhirTime::At(s)), Some(FhirTime::At(e))) => e < s,
        (Some(FhirTime::Day(s)), Some(FhirTime::Day(e))) => e < s,
        _ => false,
    };
    if before {
        return Err(Rule::PeriodOrder { field });
    }
    Ok(Some((s, e)))
}

/// One coding of a `CodeableConcept`: its system and code (either may be absent).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Coding<'a> {
    pub(crate) system: Option<&'a str>,
    pub(crate) code: Option<&'a str>,
}

/// The codings of the `CodeableConcept` at `obj[key]`.
pub(crate) fn codings<'a>(
    obj: &'a Obj,
    key: &str,
    field: &'static str,
) -> Result<Vec<Coding<'a>>, Rule> {
    let Some(concept) = object(obj, key, field)? else {
        return Ok(Vec::new());
    };
    concept_codings(concept, field)
}

/// The codings of a `CodeableConcept`.
pub(crate) fn concept_codings<'a>(
    concept: &'a Obj,
    field: &'static str,
) -> Result<Vec<Coding<'a>>, Rule> {
    objects(concept, "coding", field)?
        .into_iter()
        .map(|c| {
            Ok(Coding {
                system: string(c, "system", field)?,
                code: string(c, "code", field)?,
            })
        })
        .collect()
}

/// The first display or text naming a `CodeableConcept` (a drug's name as recorded).
pub(crate) fn concept_name<'a>(
    concept: &'a Obj,
    field: &'static str,
) -> Result<Option<&'a str>, Rule> {
    if let Some(text) = string(concept, "text", field)?.filter(|t| !t.trim().is_empty()) {
        return Ok(Some(text));
    }
    for c in objects(concept, "coding", field)? {
        if let Some(d) = string(c, "display", field)?.filter(|t| !t.trim().is_empty()) {
            return Ok(Some(d));
        }
    }
    Ok(None)
}

/// The texts of an `Annotation` array (`note`), joined by newlines; `None` when there is none.
/// They are PHI: stored as a comment or note, never returned, never logged.
pub(crate) fn notes(obj: &Obj, key: &str, field: &'static str) -> Result<Option<String>, Rule> {
    let mut texts = Vec::new();
    for n in objects(obj, key, field)? {
        if let Some(t) = string(n, "text", field)?.filter(|t| !t.trim().is_empty()) {
            texts.push(t);
        }
    }
    Ok((!texts.is_empty()).then(|| texts.join("\n")))
}

/// A `Reference`: its literal reference, its type, and its display.
#[allow(clippy::struct_field_names)] // FHIR's own names: `Reference.reference`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Reference<'a> {
    pub(crate) reference: Option<&'a str>,
    pub(crate) ty: Option<&'a str>,
    pub(crate) display: Option<&'a str>,
}

impl<'a> Reference<'a> {
    /// Reads a `Reference` object.
    pub(crate) fn of(obj: &'a Obj, field: &'static str) -> Result<Reference<'a>, Rule> {
        Ok(Reference {
            reference: string(obj, "reference", field)?,
            ty: string(obj, "type", field)?,
            display: string(obj, "display", field)?,
        })
    }

    /// The resource type it points at: its `type`, or the type segment of a relative or
    /// absolute literal reference (`Patient/1`, `https://x/fhir/Patient/1/_history/2`).
    pub(crate) fn target_type(&self) -> Option<&'a str> {
        self.ty.or_else(|| self.type_and_id().map(|(t, _)| t))
    }

    /// `(type, id)` of a literal `Type/id` reference, relative or absolute.
    pub(crate) fn type_and_id(&self) -> Option<(&'a str, &'a str)> {
        let r = self.reference?;
        let r = r.split("/_history/").next().unwrap_or(r);
        let mut parts = r.rsplit('/');
        let id = parts.next()?;
        let ty = parts.next()?;
        let typed = ty.as_bytes().first().is_some_and(u8::is_ascii_uppercase);
        (typed && !id.is_empty()).then_some((ty, id))
    }
}
