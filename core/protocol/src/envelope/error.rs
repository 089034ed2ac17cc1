//! `ErrorDetail`: what an error envelope says about its error, with no field that can hold a
//! message.
//!
//! A fault is told by the tool's name, the error kind and the error's TYPE. Never its message:
//! driver messages quote SQL with bound parameters, and models echo what they are given. A
//! refusal names the parameter and the problem from a closed set.

use std::borrow::Cow;
use std::fmt;

use phi_macros::ClosedEnum;
use serde::{Deserialize, Deserializer, Serialize};

use crate::args::Domain;
use crate::tool::ToolId;

/// The detail of an error envelope: a refusal, a fault, or a call declined.
///
/// Serialized flat with its cause as a tag:
/// `{"cause":"refusal","tool":"query_health_indicators","parameter":"kind","problem":"unknown_parameter"}`.
///
/// ```
/// use answers_protocol::{ArgProblem, ErrorDetail, ParamName, ToolId, TypeName};
///
/// let refusal = ErrorDetail::Refusal {
///     tool: ToolId::QueryHealthIndicators,
///     parameter: ParamName::new("kind"),
///     problem: ArgProblem::UnknownParameter,
/// };
/// assert_eq!(refusal.reason(), "kind: unknown parameter");
///
/// let fault = ErrorDetail::Fault {
///     tool: ToolId::QueryHealthIndicators,
///     type_name: TypeName::of::<std::num::ParseIntError>(),
/// };
/// assert_eq!(fault.reason(), "query_health_indicators failed with core::num::error::ParseIntError");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErrorDetail {
    /// The arguments were refused before the tool ran.
    Refusal {
        /// The tool called.
        tool: ToolId,
        /// The parameter refused; `None` when the arguments as a whole were (not an object), or
        /// when the name the caller sent is not an identifier and is not repeated.
        parameter: Option<ParamName>,
        /// What is wrong with it.
        problem: ArgProblem,
    },
    /// The tool failed while running.
    Fault {
        /// The tool that failed.
        tool: ToolId,
        /// The type of the error value (`std::any::type_name`), never its message.
        type_name: TypeName,
    },
    /// The call was not run: the error kind says why (`not_found`, `unauthorized`,
    /// `repeated_call`, `call_limit`).
    Declined {
        /// The tool called.
        tool: ToolId,
    },
}

impl ErrorDetail {
    /// The tool the error is about.
    ///
    /// ```
    /// use answers_protocol::{ErrorDetail, ToolId};
    ///
    /// let d = ErrorDetail::Declined { tool: ToolId::StandardizeReading };
    /// assert_eq!(d.tool(), ToolId::StandardizeReading);
    /// assert_eq!(d.tool().as_str(), "standardize_reading");
    /// ```
    #[must_use]
    pub const fn tool(&self) -> ToolId {
        match self {
            ErrorDetail::Refusal { tool, .. }
            | ErrorDetail::Fault { tool, .. }
            | ErrorDetail::Declined { tool } => *tool,
        }
    }

    /// The reason as a model reads it: the parameter and its problem, or the tool and the
    /// error's type. Lower-case, no trailing period.
    ///
    /// ```
    /// use answers_protocol::{ErrorDetail, ToolId};
    ///
    /// let d = ErrorDetail::Declined { tool: ToolId::QueryMedications };
    /// assert_eq!(d.reason(), "query_medications was not run");
    /// ```
    #[must_use]
    pub fn reason(&self) -> String {
        match self {
            ErrorDetail::Refusal {
                parameter: Some(p),
                problem,
                ..
            } => format!("{p}: {}", problem.text()),
            ErrorDetail::Refusal {
                parameter: None,
                problem: ArgProblem::UnknownParameter,
                ..
            } => "a parameter whose name is not an identifier: unknown parameter".to_owned(),
            ErrorDetail::Refusal {
                parameter: None,
                problem,
                ..
            } => problem.text(),
            ErrorDetail::Fault { tool, type_name } => format!("{tool} failed with {type_name}"),
            ErrorDetail::Declined { tool } => format!("{tool} was not run"),
        }
    }
}

/// What is wrong with a parameter, from a closed set.
///
/// ```
/// use answers_protocol::{ArgProblem, Domain};
///
/// assert_eq!(ArgProblem::NotOneOf(Domain::View).to_string(), "not_one_of:view");
/// assert_eq!(
///     ArgProblem::NotOneOf(Domain::View).text(),
///     "expected one of raw, minute, hour, day, week, month, stats, latest"
/// );
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgProblem {
    /// The tool has no parameter of that name.
    UnknownParameter,
    /// Not a string.
    NotText,
    /// Not a list of strings (nor a string that reads as one).
    NotTextList,
    /// Not a date written `YYYY-MM-DD`, or no such day.
    NotDate,
    /// Not a finite number.
    NotNumber,
    /// Not one of a closed set's values.
    NotOneOf(Domain),
    /// An empty string or list.
    Empty,
    /// A required parameter is missing.
    Missing,
    /// The arguments are not a JSON object.
    NotAnObject,
    /// `view` without `keywords` or `indicators`: the catalogue has no views.
    NeedsSelector,
    /// `keywords` and `indicators` together.
    SelectorConflict,
    /// `end` before `start`.
    EndBeforeStart,
    /// Not a unit UCUM or the bundled spellings know.
    UnknownUnit,
    /// No indicator of that name in the bundled vocabulary.
    UnknownIndicator,
    /// No complaint of that name in the bundled ICPC subset.
    UnknownComplaint,
    /// The two units measure different kinds of quantity.
    NotConvertible,
    /// A conversion between mass and molar units without the analyte that would give the molar
    /// mass.
    NeedsAnalyte,
    /// The analyte is known but the vocabulary holds no molar mass for it.
    NoMolarMass,
    /// The name reaches analytes of different molar masses.
    AmbiguousAnalyte,
    /// Not a unit the indicator is measured in (not commensurable with its canonical unit).
    UnitNotForIndicator,
    /// Not a FHIR date or date-time: `YYYY-MM-DD`, or a date-time with its offset.
    NotDateTime,
    /// A genetics call with none of `rsids`, `gene`, or a region.
    GeneticSelectorMissing,
    /// A genetics call with more than one of `rsids`, `gene`, or a region.
    GeneticSelectorConflict,
    /// A position that is not a whole number of at least 1.
    NotPosition,
    /// A chromosome that is not `1`–`22`, `X`, `Y` or `MT`.
    NotChromosome,
    /// A pharmacogenomics call with both `drugs` and `genes`.
    PgxSelectorConflict,
    /// A list longer than [`LIST_MAX`](crate::args::LIST_MAX) items.
    TooManyItems,
    /// A batch longer than [`BATCH_MAX`](crate::args::BATCH_MAX) items.
    TooManyInBatch,
    /// Both spellings of one parameter (`from` and `from_unit`), or one item and a batch
    /// (`name` and `names`).
    GivenTwice,
    /// A string (or an item of a list) longer than [`TEXT_MAX`](crate::args::TEXT_MAX)
    /// characters, or a date longer than a date.
    TooLong,
}

impl ArgProblem {
    /// The problem as a model reads it, lower-case.
    ///
    /// ```
    /// assert_eq!(answers_protocol::ArgProblem::UnknownParameter.text(), "unknown parameter");
    /// ```
    #[must_use]
    pub fn text(self) -> String {
        match self {
            ArgProblem::UnknownParameter => "unknown parameter".into(),
            ArgProblem::NotText => "expected a string".into(),
            ArgProblem::NotTextList => "expected a list of strings".into(),
            ArgProblem::NotDate => "expected a date as YYYY-MM-DD".into(),
            ArgProblem::NotNumber => "expected a number".into(),
            ArgProblem::NotOneOf(domain) => {
                format!("expected one of {}", domain.values().join(", "))
            }
            ArgProblem::Empty => "empty".into(),
            ArgProblem::Missing => "required but missing".into(),
            ArgProblem::NotAnObject => "arguments must be a JSON object".into(),
            ArgProblem::NeedsSelector => {
                "needs keywords or indicators; without them the call lists the catalogue".into()
            }
            ArgProblem::SelectorConflict => "give keywords or indicators, not both".into(),
            ArgProblem::EndBeforeStart => "before start".into(),
            ArgProblem::UnknownUnit => "not a unit UCUM or the bundled spellings know; give its UCUM code (mg/dL, mmol/L, mm[Hg], /min, Cel, kg)".into(),
            ArgProblem::UnknownIndicator => {
                "no indicator of that name in the vocabulary; try another name or a LOINC code".into()
            }
            ArgProblem::UnknownComplaint => {
                "no complaint of that name in the bundled ICPC subset; try a shorter or plainer word".into()
            }
            ArgProblem::NotConvertible => {
                "measures a different kind of quantity than from, so the value cannot be converted".into()
            }
            ArgProblem::NeedsAnalyte => {
                "required to convert between mass and molar units: name the analyte (e.g. glucose) so its molar mass can be used".into()
            }
            ArgProblem::NoMolarMass => {
                "the vocabulary holds no molar mass for this analyte, so its mass and molar units do not convert".into()
            }
            ArgProblem::AmbiguousAnalyte => {
                "names analytes of different molar masses; give the exact indicator or LOINC code".into()
            }
            ArgProblem::UnitNotForIndicator => {
                "not a unit this indicator is measured in; resolve_indicator gives its canonical unit".into()
            }
            ArgProblem::NotDateTime => {
                "expected a date as YYYY-MM-DD or a date-time with its offset, e.g. 2024-03-01T08:30:00+01:00".into()
            }
            ArgProblem::GeneticSelectorMissing => {
                "give rsids, a gene, or chromosome with start, end and build".into()
            }
            ArgProblem::GeneticSelectorConflict => {
                "give only one of rsids, gene, or a region (chromosome, start, end)".into()
            }
            ArgProblem::NotPosition => "expected a whole position of at least 1".into(),
            ArgProblem::NotChromosome => "expected a chromosome: 1 to 22, X, Y or MT".into(),
            ArgProblem::PgxSelectorConflict => "give drugs or genes, not both".into(),
            ArgProblem::TooManyItems => format!(
                "at most {} items; split the call, or narrow it",
                crate::args::LIST_MAX
            ),
            ArgProblem::TooManyInBatch => format!(
                "at most {} items in one batch; split the batch",
                crate::args::BATCH_MAX
            ),
            ArgProblem::GivenTwice => {
                "given together with its other form (one item and a batch, or a parameter under both of its names); give one".into()
            }
            ArgProblem::TooLong => format!(
                "longer than {} characters (maxLength); give a name, code or keyword, not a passage",
                crate::args::TEXT_MAX
            ),
        }
    }
}

/// A parameter name as a caller sent it, kept only if it is identifier-shaped: 1–64 ASCII
/// letters, digits, `_`, `-` or `.`. Anything else could be a sentence, and is not repeated.
///
/// ```
/// use answers_protocol::ParamName;
///
/// assert_eq!(ParamName::new("kind").unwrap().as_str(), "kind");
/// assert!(ParamName::new("my blood sugar was 14").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ParamName(String);

impl ParamName {
    /// The longest name kept.
    pub const MAX_LEN: usize = 64;

    /// The name, if it is identifier-shaped.
    ///
    /// ```
    /// assert!(answers_protocol::ParamName::new("").is_none());
    /// ```
    #[must_use]
    pub fn new(name: &str) -> Option<Self> {
        let shaped = !name.is_empty()
            && name.len() <= Self::MAX_LEN
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        shaped.then(|| Self(name.to_owned()))
    }

    /// The name.
    ///
    /// ```
    /// assert_eq!(answers_protocol::ParamName::new("view").unwrap().as_str(), "view");
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ParamName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ParamName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::new(&text)
            .ok_or_else(|| serde::de::Error::custom("parameter name is not identifier-shaped"))
    }
}

/// The name of an error's type, from [`std::any::type_name`]: what a fault is told by.
///
/// Built from a type, not from text, so it cannot carry a message. Deserializing accepts only
/// what a type name can look like: up to 256 ASCII characters of paths, generics and pointers.
///
/// ```
/// use answers_protocol::TypeName;
///
/// assert_eq!(TypeName::of::<std::io::Error>().as_str(), "std::io::error::Error");
/// let e = "x".parse::<i32>().unwrap_err();
/// assert_eq!(TypeName::of_val(&e).as_str(), "core::num::error::ParseIntError");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct TypeName(Cow<'static, str>);

impl TypeName {
    /// The longest type name accepted when deserializing.
    pub const MAX_LEN: usize = 256;

    /// The name of `T`.
    #[must_use]
    pub fn of<T: ?Sized>() -> Self {
        Self(Cow::Borrowed(std::any::type_name::<T>()))
    }

    /// The name of the type of `value`.
    #[must_use]
    pub fn of_val<T: ?Sized>(_value: &T) -> Self {
        Self::of::<T>()
    }

    /// The type of a panic's payload: `&str` or `String` for a `panic!` with a message (the
    /// message is dropped), the opaque box otherwise. Tools and governance tell a panic by it.
    #[must_use]
    pub fn of_panic(payload: &(dyn std::any::Any + Send)) -> Self {
        if payload.is::<&'static str>() {
            Self::of::<&'static str>()
        } else if payload.is::<String>() {
            Self::of::<String>()
        } else {
            Self::of::<Box<dyn std::any::Any + Send>>()
        }
    }

    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn is_shaped(text: &str) -> bool {
        !text.is_empty()
            && text.len() <= Self::MAX_LEN
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b" _:<>,&'()[];*+-!".contains(&b))
    }
}

impl fmt::Display for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for TypeName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if Self::is_shaped(&text) {
            Ok(Self(Cow::Owned(text)))
        } else {
            Err(serde::de::Error::custom(
                "type name is not shaped like a Rust type",
            ))
        }
    }
}
