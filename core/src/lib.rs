//! The answers layer of a personal health record: one [`Envelope`] for every answer a
//! health-data tool gives, its two renderings, and the argument machinery every tool uses.
//!
//! - [`envelope`]: the [`Envelope`] and its closed sets ([`Status`], [`ErrorKind`], [`View`],
//!   [`Provenance`], …), the [`Assumption`] templates and the [`NextStep`]s. Every closed field
//!   is a `ClosedEnum` (from `phi-macros`), so an open set does not compile.
//! - [`render`]: [`render_compact`] for a model, [`render_rest`] for a browser.
//! - [`args`]: a tool's parameters declared once ([`ToolSchema`]), giving a flat, closed JSON
//!   Schema and a validator that refuses by name, never panics, and suggests only next steps
//!   it would accept.
//!
//! - [`store`]: the `SQLite` record store (subjects, readings and reported entries, the day
//!   authority, tokens); [`vocab`]: the bundled vocabularies; [`demo`]: the demo record.
//! - [`tools`]: [`tools::query_health_indicators`]; [`surface`]: a tool by name; [`serve`]: the
//!   HTTP service.
//!
//! - [`governance`]: what stops a model from looping in a chat turn (four middlewares around
//!   each tool call), and [`governance::run_turn`], which drives a turn under them.
//! - [`tools::terminology`]: the terminology tools (`resolve_indicator`, `convert_unit`,
//!   `normalize_unit`) and the vocabulary server's own (`standardize_reading`,
//!   `standardize_complaint`), by name through [`tools::terminology::vocab_call`].
//! - [`mcp`]: the two MCP surfaces (the record server on `answers serve`, the vocabulary server
//!   `answers mcp` on stdio).
//!
//! ```
//! use answers::args::health_indicators::QUERY_HEALTH_INDICATORS;
//! use answers::render_compact;
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
pub mod demo;
pub mod envelope;
pub use answers_genetics as genetics;
pub mod governance;
#[cfg(feature = "leak-drill")]
pub mod leak_drill;
pub mod marker;
pub mod mcp;
pub mod render;
pub mod serve;
pub mod store;
pub mod surface;
pub mod tool;
pub mod tools;
pub use answers_vocab as vocab;
pub mod vocab_tool;
pub mod window;

pub use args::{ArgValue, Domain, DomainTable, Param, ParamType, ToolSchema, ValidArgs};
pub use date::{DateError, LocalDate};
pub use envelope::assumption::{Assumption, AssumptionId, AssumptionIdTable};
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
pub use tool::{ToolName, ToolNameTable};
pub use vocab_tool::{VocabToolName, VocabToolNameTable};
pub use window::{Window, WindowError};
