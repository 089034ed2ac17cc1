//! `Envelope`: every answer a health-data tool gives, in one shape.
//!
//! The model reads a rendered string; programs, governance in particular, read the envelope,
//! never the text. Every field a program branches on is a closed set (`#[closed]` below, checked
//! at compile time by `ClosedFields`).

pub mod assumption;
pub mod error;
pub mod kinds;
pub mod meta;
pub mod next_step;
pub mod table;

use std::collections::BTreeMap;

use phi_macros::ClosedFields;
use serde::{Deserialize, Serialize};

use self::assumption::Assumption;
use self::error::{ArgProblem, ErrorDetail, ParamName, TypeName};
use self::kinds::{ErrorClass, ErrorKind, Provenance, Status};
use self::meta::Meta;
use self::next_step::NextStep;
use self::table::{Cell, Table};
use crate::tool::ToolId;

/// One answer: status, rows, meta, the error if any, provenance, assumptions and next steps.
///
/// Built with [`Envelope::ok`] or one of the error constructors, then the `with_*` methods.
/// The fields are read through accessors so that what the constructors keep true stays true:
/// `error_class`, `error_kind` and `error` are all set exactly when the status is `error`, and
/// `meta.row_count` counts the rows of `data`. Deserializing checks the same.
///
/// Besides the fields of the original design, an error envelope carries [`ErrorDetail`]: the
/// tool, and the refused parameter or the error's type. The compact rendering is made from the
/// envelope alone, and it must name them.
///
/// ```
/// use answers_protocol::{Assumption, Envelope, Meta, Provenance, Table, View, Window, WindowSemantics, ReadingsAssumption};
///
/// let table = Table::new("readings", ["indicator", "date", "value", "unit"])
///     .with_row(["LDL Cholesterol".into(), "2024-03-01".into(), 131.into(), "mg/dL".into()])
///     .unwrap();
/// let env = Envelope::ok(
///     Meta::new(Window::ALL_RECORDED, "Europe/Berlin", WindowSemantics::TzExact)
///         .with_view(View::Latest),
/// )
/// .with_table(table)
/// .with_provenance("LDL Cholesterol", Provenance::Measured)
/// .with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence));
/// assert_eq!(env.meta().row_count, 1);
/// assert!(env.error_kind().is_none());
/// ```
#[derive(ClosedFields, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawEnvelope")]
pub struct Envelope {
    #[closed]
    status: Status,
    data: Vec<Table>,
    meta: Meta,
    #[closed]
    error_class: Option<ErrorClass>,
    #[closed]
    error_kind: Option<ErrorKind>,
    error: Option<ErrorDetail>,
    #[closed]
    provenance: BTreeMap<String, Provenance>,
    assumptions: Vec<Assumption>,
    next_steps: Vec<NextStep>,
}

impl Envelope {
    /// A successful answer with `meta` and, so far, no rows.
    ///
    /// ```
    /// use answers_protocol::{Envelope, Meta, Status};
    ///
    /// assert_eq!(Envelope::ok(Meta::none()).status(), Status::Ok);
    /// ```
    #[must_use]
    pub fn ok(meta: Meta) -> Self {
        Self {
            status: Status::Ok,
            data: Vec::new(),
            meta: Meta {
                row_count: 0,
                truncated: false,
                ..meta
            },
            error_class: None,
            error_kind: None,
            error: None,
            provenance: BTreeMap::new(),
            assumptions: Vec::new(),
            next_steps: Vec::new(),
        }
    }

    /// An error answer.
    ///
    /// ```
    /// use answers_protocol::{Envelope, ErrorClass, ErrorDetail, ErrorKind, Status, ToolId};
    ///
    /// let env = Envelope::error(
    ///     ErrorKind::CallLimit,
    ///     ErrorClass::Unrecoverable,
    ///     ErrorDetail::Declined { tool: ToolId::QueryHealthIndicators },
    /// );
    /// assert_eq!(env.status(), Status::Error);
    /// assert_eq!(env.error_kind(), Some(ErrorKind::CallLimit));
    /// ```
    #[must_use]
    pub fn error(kind: ErrorKind, class: ErrorClass, detail: ErrorDetail) -> Self {
        Self {
            status: Status::Error,
            error_class: Some(class),
            error_kind: Some(kind),
            error: Some(detail),
            ..Self::ok(Meta::none())
        }
    }

    /// Refused arguments: `invalid_arguments`, recoverable, naming the parameter (if the name
    /// the caller sent is identifier-shaped; see [`ParamName`]).
    ///
    /// ```
    /// use answers_protocol::{ArgProblem, Envelope, ErrorClass, ToolId};
    ///
    /// let env = Envelope::refusal(ToolId::QueryHealthIndicators, Some("kind"), ArgProblem::UnknownParameter);
    /// assert_eq!(env.error_class(), Some(ErrorClass::Recoverable));
    /// ```
    #[must_use]
    pub fn refusal(tool: ToolId, parameter: Option<&str>, problem: ArgProblem) -> Self {
        let detail = ErrorDetail::Refusal {
            tool,
            parameter: parameter.and_then(ParamName::new),
            problem,
        };
        Self::error(ErrorKind::InvalidArguments, ErrorClass::Recoverable, detail)
    }

    /// A fault, told by the error's type with the kind's default class
    /// ([`ErrorKind::default_class`]).
    ///
    /// ```
    /// use answers_protocol::{Envelope, ErrorKind, ToolId, TypeName};
    ///
    /// let err = std::io::Error::other("connection refused by 10.0.0.7");
    /// let env = Envelope::fault(ToolId::QueryHealthIndicators, ErrorKind::StoreUnavailable, TypeName::of_val(&err));
    /// assert!(!format!("{env:?}").contains("10.0.0.7"));
    /// ```
    #[must_use]
    pub fn fault(tool: ToolId, kind: ErrorKind, type_name: TypeName) -> Self {
        let detail = ErrorDetail::Fault { tool, type_name };
        Self::error(kind, kind.default_class(), detail)
    }

    /// Adds a table and counts its rows.
    #[must_use]
    pub fn with_table(mut self, table: Table) -> Self {
        self.meta.row_count += table.rows().len();
        self.data.push(table);
        self
    }

    /// Records where an indicator's values come from.
    #[must_use]
    pub fn with_provenance(mut self, indicator: impl Into<String>, provenance: Provenance) -> Self {
        self.provenance.insert(indicator.into(), provenance);
        self
    }

    /// Adds an assumption, once.
    ///
    /// ```
    /// use answers_protocol::{Assumption, Envelope, Meta, ReadingsAssumption};
    ///
    /// let env = Envelope::ok(Meta::none())
    ///     .with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence))
    ///     .with_assumption(Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence));
    /// assert_eq!(env.assumptions(), [Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence)]);
    /// ```
    #[must_use]
    pub fn with_assumption(mut self, assumption: Assumption) -> Self {
        if !self.assumptions.contains(&assumption) {
            self.assumptions.push(assumption);
        }
        self
    }

    /// Adds a next step.
    ///
    /// ```
    /// use answers_protocol::{Envelope, Meta, NextAction, NextStep, ToolId};
    ///
    /// let env = Envelope::ok(Meta::none())
    ///     .with_next_step(NextStep::new(NextAction::CallCatalogue, ToolId::QueryHealthIndicators));
    /// assert_eq!(env.next_steps()[0].action, NextAction::CallCatalogue);
    /// ```
    #[must_use]
    pub fn with_next_step(mut self, step: NextStep) -> Self {
        self.next_steps.push(step);
        self
    }

    /// Adds next steps.
    #[must_use]
    pub fn with_next_steps(mut self, steps: impl IntoIterator<Item = NextStep>) -> Self {
        self.next_steps.extend(steps);
        self
    }

    /// Keeps the rows `keep` says yes to (given the table's name and the row), recounting them
    /// and leaving out a table it empties. It does not mark the answer cut: [`truncated`]
    /// does.
    ///
    /// [`truncated`]: Self::truncated
    ///
    /// ```
    /// use answers_protocol::{Envelope, Meta, Table};
    ///
    /// let t = Table::new("t", ["a"]).with_row([1.into()])?.with_row([2.into()])?;
    /// let env = Envelope::ok(Meta::none()).with_table(t).retain_rows(|_, row| row[0] == 1.into());
    /// assert_eq!(env.meta().row_count, 1);
    /// # Ok::<(), answers_protocol::TableError>(())
    /// ```
    #[must_use]
    pub fn retain_rows(mut self, mut keep: impl FnMut(&str, &[Cell]) -> bool) -> Self {
        for table in &mut self.data {
            let name = table.name().to_owned();
            table.retain_rows(|row| keep(&name, row));
        }
        self.data.retain(|t| !t.rows().is_empty());
        self.meta.row_count = self.data.iter().map(|t| t.rows().len()).sum();
        self
    }

    /// Marks the rows as cut by a cap: `meta.truncated`, and the status `partial` unless it is
    /// `error`.
    ///
    /// ```
    /// use answers_protocol::{Envelope, Meta, Status};
    ///
    /// let env = Envelope::ok(Meta::none()).truncated();
    /// assert_eq!(env.status(), Status::Partial);
    /// assert!(env.meta().truncated);
    /// ```
    #[must_use]
    pub fn truncated(mut self) -> Self {
        self.meta.truncated = true;
        if self.status == Status::Ok {
            self.status = Status::Partial;
        }
        self
    }

    /// Marks an answer `partial` without a cap: it stands, but covers less than was asked
    /// (a gene whose key variants the genotype file covers only in part). An error stays an
    /// error.
    ///
    /// ```
    /// use answers_protocol::{Envelope, Meta, Status};
    ///
    /// assert_eq!(Envelope::ok(Meta::none()).partial().status(), Status::Partial);
    /// ```
    #[must_use]
    pub fn partial(mut self) -> Self {
        if self.status == Status::Ok {
            self.status = Status::Partial;
        }
        self
    }

    /// Replaces the meta, keeping the row count and the cut this envelope knows.
    ///
    /// ```
    /// use answers_protocol::{Envelope, Meta, Table, View};
    ///
    /// let env = Envelope::ok(Meta::none())
    ///     .with_table(Table::new("t", ["a"]).with_row([1.into()]).unwrap())
    ///     .with_meta(Meta::none().with_view(View::Day));
    /// assert_eq!((env.meta().view, env.meta().row_count), (Some(View::Day), 1));
    /// ```
    #[must_use]
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Meta {
            row_count: self.meta.row_count,
            truncated: self.meta.truncated,
            ..meta
        };
        self
    }

    /// Whether the answer is whole, cut, or an error.
    #[must_use]
    pub fn status(&self) -> Status {
        self.status
    }

    /// The tables, in order.
    #[must_use]
    pub fn data(&self) -> &[Table] {
        &self.data
    }

    /// The window, view and counts.
    #[must_use]
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Set exactly when the status is `error`.
    #[must_use]
    pub fn error_class(&self) -> Option<ErrorClass> {
        self.error_class
    }

    /// Set exactly when the status is `error`.
    #[must_use]
    pub fn error_kind(&self) -> Option<ErrorKind> {
        self.error_kind
    }

    /// Set exactly when the status is `error`.
    ///
    /// ```
    /// use answers_protocol::{ArgProblem, Envelope, ToolId};
    ///
    /// let env = Envelope::refusal(ToolId::QueryHealthIndicators, Some("kind"), ArgProblem::UnknownParameter);
    /// assert_eq!(env.error_detail().unwrap().reason(), "kind: unknown parameter");
    /// ```
    #[must_use]
    pub fn error_detail(&self) -> Option<&ErrorDetail> {
        self.error.as_ref()
    }

    /// Indicator name to where its values come from.
    #[must_use]
    pub fn provenance(&self) -> &BTreeMap<String, Provenance> {
        &self.provenance
    }

    /// The methodology notes.
    #[must_use]
    pub fn assumptions(&self) -> &[Assumption] {
        &self.assumptions
    }

    /// Suggested follow-up calls.
    #[must_use]
    pub fn next_steps(&self) -> &[NextStep] {
        &self.next_steps
    }
}

/// An envelope whose parts contradict each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// `error_class`, `error_kind` and `error` must all be set with status `error`, and none
    /// otherwise.
    #[error("error_class, error_kind and error must be set exactly when the status is error")]
    ErrorFields,
    /// `meta.row_count` differs from the rows in `data`.
    #[error("meta.row_count does not match the rows in data")]
    RowCount,
}

/// The wire form, checked into an [`Envelope`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnvelope {
    status: Status,
    data: Vec<Table>,
    meta: Meta,
    error_class: Option<ErrorClass>,
    error_kind: Option<ErrorKind>,
    error: Option<ErrorDetail>,
    provenance: BTreeMap<String, Provenance>,
    assumptions: Vec<Assumption>,
    next_steps: Vec<NextStep>,
}

impl TryFrom<RawEnvelope> for Envelope {
    type Error = EnvelopeError;

    fn try_from(raw: RawEnvelope) -> Result<Self, Self::Error> {
        let is_error = raw.status == Status::Error;
        let set = [
            raw.error_class.is_some(),
            raw.error_kind.is_some(),
            raw.error.is_some(),
        ];
        if set.iter().any(|&s| s != is_error) {
            return Err(EnvelopeError::ErrorFields);
        }
        let rows: usize = raw.data.iter().map(|t| t.rows().len()).sum();
        if rows != raw.meta.row_count {
            return Err(EnvelopeError::RowCount);
        }
        Ok(Self {
            status: raw.status,
            data: raw.data,
            meta: raw.meta,
            error_class: raw.error_class,
            error_kind: raw.error_kind,
            error: raw.error,
            provenance: raw.provenance,
            assumptions: raw.assumptions,
            next_steps: raw.next_steps,
        })
    }
}
