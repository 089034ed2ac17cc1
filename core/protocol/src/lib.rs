//! The answer protocol of the answers layer: one [`Envelope`] for every answer a health-data
//! tool gives, its two renderings, and the argument machinery every tool uses.
//!
//! - [`envelope`]: the [`Envelope`] and its closed sets ([`Status`], [`ErrorKind`], [`View`],
//!   [`Provenance`], …), the [`Assumption`] templates and the [`NextStep`]s. Every closed field
//!   is a `ClosedEnum` (from `phi-macros`), so an open set does not compile.
//! - [`render`]: [`render_compact`] for a model, [`render_rest`] for a browser.
//! - [`args`]: a tool's parameters declared once ([`ToolSchema`]), giving a flat, closed JSON
//!   Schema and a validator that refuses by name, never panics, and suggests only next steps
//!   it would accept.
//! - [`date`]: [`LocalDate`]; [`window`]: [`Window`]; [`tool`]: [`ToolId`], the one tool
//!   id of every surface.
//!
//! This package knows no database, no HTTP and no MCP transport.
//!
//! ```
//! use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
//! use answers_protocol::render_compact;
//! use serde_json::json;
//!
//! let refused = QUERY_HEALTH_INDICATORS
//!     .validate(&json!({"kind": "medications", "view": "day"}))
//!     .unwrap_err();
//! let text = render_compact(&refused);
//! assert!(text.starts_with(
//!     "error (invalid_arguments): kind: unknown parameter. Fix the arguments and try once more.\n"
//! ));
//! ```

pub mod args;
pub mod date;
pub mod envelope;
pub mod render;
pub mod tool;
pub mod window;

pub use args::{ArgValue, Domain, DomainTable, Param, ParamType, ToolSchema, ValidArgs};
pub use date::{DateError, LocalDate};
pub use envelope::assumption::{
    Assumption, AssumptionId, AssumptionIdTable, GeneticsAssumption, MedicationsAssumption,
    PharmacogenomicsAssumption, ReadingsAssumption, TerminologyAssumption, WindowAssumption,
};
pub use envelope::error::{ArgProblem, ErrorDetail, ParamName, TypeName};
pub use envelope::kinds::{
    ErrorClass, ErrorClassTable, ErrorKind, ErrorKindTable, Provenance, Source, SourceTable,
    Status, StatusTable, View, ViewTable, WindowSemantics, WindowSemanticsTable,
};
pub use envelope::meta::Meta;
pub use envelope::next_step::{MissingSupply, NextAction, NextActionTable, NextStep};
pub use envelope::table::{Cell, Table, TableError};
pub use envelope::{Envelope, EnvelopeError};
pub use render::{render_compact, render_rest};
pub use tool::{ToolId, ToolIdTable};
pub use window::{Window, WindowError};
