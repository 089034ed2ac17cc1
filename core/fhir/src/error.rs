//! Why an import was refused: the resource by its position and the rule it broke, never a
//! value from the file.

use std::fmt;

use answers_store::{MedicationProblem, ReadingProblem, StoreError};

/// Where a resource is in the input: a whole Bundle's entry (from 0, as `FHIRPath` counts), or an
/// NDJSON export's line (from 1, as editors count).
///
/// ```
/// use answers_fhir::Position;
///
/// assert_eq!(Position::Entry(3).to_string(), "Bundle.entry[3]");
/// assert_eq!(Position::Line(4).to_string(), "line 4");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The index of a `Bundle.entry`.
    Entry(usize),
    /// An NDJSON line number.
    Line(u64),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Entry(i) => write!(f, "Bundle.entry[{i}]"),
            Position::Line(n) => write!(f, "line {n}"),
        }
    }
}

/// The rule a file or a resource broke. Names fields and limits, never a value.
///
/// ```
/// use answers_fhir::Rule;
///
/// let rule = Rule::DateTime { field: "effectiveDateTime" };
/// assert_eq!(rule.to_string(), "`effectiveDateTime` is not a FHIR dateTime");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rule {
    /// The text is not JSON (told by line and column, as the parser found it).
    #[error("not JSON (syntax error at line {line}, column {column})")]
    Syntax {
        /// The line of the text (of the NDJSON line, for an export: 1).
        line: usize,
        /// The column.
        column: usize,
    },
    /// The JSON nests deeper than the parser's bound (128 levels).
    #[error("JSON nested deeper than 128 levels")]
    TooDeep,
    /// A whole-Bundle file is larger than the limit.
    #[error("a Bundle file may be at most {limit} bytes; export NDJSON (*.ndjson) for more")]
    BundleTooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// An NDJSON line is longer than the limit.
    #[error("an NDJSON line may be at most {limit} bytes")]
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// The file (not named `*.ndjson`) is not one Bundle.
    #[error("not a FHIR Bundle (an NDJSON export must be named *.ndjson)")]
    NotABundle,
    /// A resource or a Bundle entry is not a JSON object.
    #[error("not a JSON object")]
    NotAnObject,
    /// A resource has no `resourceType` string.
    #[error("no `resourceType`")]
    NoResourceType,
    /// A field has the wrong JSON type.
    #[error("`{field}` is not {expected}")]
    FieldType {
        /// The field, as a FHIR path from the resource (`valueQuantity.value`).
        field: &'static str,
        /// What it must be (`a number`, `a string`, `an array` …).
        expected: &'static str,
    },
    /// A field FHIR requires is missing.
    #[error("`{field}` is required")]
    Missing {
        /// The field.
        field: &'static str,
    },
    /// A field is not a FHIR `dateTime` (or `instant`).
    #[error("`{field}` is not a FHIR dateTime")]
    DateTime {
        /// The field.
        field: &'static str,
    },
    /// A period ends before it starts.
    #[error("`{field}` ends before it starts")]
    PeriodOrder {
        /// The period field.
        field: &'static str,
    },
    /// A medication resource has neither an `id` nor (in a Bundle) a `fullUrl`, so a
    /// re-import could not find the plan it wrote.
    #[error("a medication resource needs an `id`")]
    NoId,
    /// The file holds resources about more than one patient (their `subject` references
    /// differ): one import is one person's record.
    #[error("a second patient's resource (one file is one person's record)")]
    SeveralPatients,
    /// A `MedicationAdministration`'s `request` names a plan that is neither in the file nor
    /// in the record from an earlier import.
    #[error(
        "its `request` names no MedicationRequest or MedicationStatement of this file or \
         of an earlier import (import the prescription first, or with the doses)"
    )]
    UnknownPlan,
    /// The store's rules refuse the reading or entry the resource maps to.
    #[error("its reading is refused: {0}")]
    Reading(ReadingProblem),
    /// The store's rules refuse the plan or dose the resource maps to.
    #[error("its medication is refused: {0}")]
    Medication(MedicationProblem),
}

/// Why nothing (or, for a store fault, not everything) was imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A resource, or the file as a whole, broke a rule: nothing was written.
    #[error("{}{rule}", where_(*.at, *.resource))]
    Refused {
        /// The resource's position, when one resource broke it.
        at: Option<Position>,
        /// The resource's type, when it is one this importer reads.
        resource: Option<&'static str>,
        /// The rule.
        rule: Rule,
    },
    /// The file could not be read (told by the I/O error's kind, which names no path).
    #[error("cannot read the file ({0:?})")]
    Io(std::io::ErrorKind),
    /// The file changed between the check and the write (the second pass mapped other rows).
    #[error("the file changed during the import; import it again")]
    Changed,
    /// A new subject was asked for, and the store already holds one with that id or handle.
    #[error("a subject with that id or handle exists already")]
    SubjectExists,
    /// The store failed while writing. Every write is an upsert keyed on the resource, so
    /// importing the same file again completes the import.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn where_(at: Option<Position>, resource: Option<&'static str>) -> String {
    match (at, resource) {
        (Some(at), Some(r)) => format!("{at} ({r}): "),
        (Some(at), None) => format!("{at}: "),
        (None, _) => String::new(),
    }
}

impl ImportError {
    /// The file as a whole broke `rule`.
    pub(crate) fn file(rule: Rule) -> Self {
        ImportError::Refused {
            at: None,
            resource: None,
            rule,
        }
    }

    /// The rule, when the import was refused.
    ///
    /// ```
    /// use answers_fhir::{ImportError, Position, Rule};
    ///
    /// let e = ImportError::Refused { at: Some(Position::Line(2)), resource: Some("Observation"),
    ///     rule: Rule::Missing { field: "status" } };
    /// assert_eq!(e.rule(), Some(Rule::Missing { field: "status" }));
    /// assert_eq!(e.to_string(), "line 2 (Observation): `status` is required");
    /// ```
    #[must_use]
    pub fn rule(&self) -> Option<Rule> {
        match self {
            ImportError::Refused { rule, .. } => Some(*rule),
            _ => None,
        }
    }
}

/// A `serde_json` error as a rule: its position and class, never its message (which can quote
/// the text it did not expect).
pub(crate) fn json_rule(e: &serde_json::Error) -> Rule {
    // The recursion bound's message is fixed text; every other message may carry input.
    if e.to_string().starts_with("recursion limit exceeded") {
        Rule::TooDeep
    } else {
        Rule::Syntax {
            line: e.line(),
            column: e.column(),
        }
    }
}
