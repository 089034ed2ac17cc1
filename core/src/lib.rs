//! The answers layer of a personal health record, over its own packages:
//!
//! - `answers-protocol`, re-exported as [`envelope`], [`render`], [`args`], [`date`],
//!   [`window`], [`tool`] and [`vocab_tool`]: the [`Envelope`], its renderings
//!   ([`render_compact`], [`render_rest`]) and the argument machinery ([`ToolSchema`]);
//! - `answers-vocab` ([`vocab`]): the bundled vocabularies; `answers-genetics` ([`genetics`]):
//!   the importer, the site index and the CPIC pairs.
//!
//! Still in this package:
//! - [`cli`]: the `answers` command line (`src/main.rs` only calls it).
//! - [`store`]: the `SQLite` record store (subjects, readings and reported entries, the day
//!   authority, tokens); [`demo`]: the demo record.
//! - [`tools`]: the tools; [`surface`]: a tool by name; [`serve`]: the HTTP service.
//! - [`governance`]: what stops a model from looping in a chat turn (four middlewares around
//!   each tool call), and [`governance::run_turn`], which drives a turn under them.
//! - [`tools::terminology`]: the terminology tools (`resolve_indicator`, `convert_unit`,
//!   `normalize_unit`) and the vocabulary server's own (`standardize_reading`,
//!   `standardize_complaint`), by name through [`registry::vocab_call`].
//! - [`registry`]: the one tool registry (`ToolSpec` per `ToolId`: surfaces, visibility,
//!   schema, run).
//! - [`mcp`]: the two MCP surfaces (the record server on `answers serve`, the vocabulary server
//!   `answers mcp` on stdio).

pub use answers_demo as demo;
pub use answers_genetics as genetics;
pub use answers_protocol::{args, date, envelope, render, tool, vocab_tool, window};
pub use answers_store as store;
pub use answers_tools as tools;
pub use answers_tools::{registry, surface};
pub use answers_vocab as vocab;

pub mod cli;
pub mod governance;
pub mod mcp;
pub mod serve;

pub use answers_protocol::{
    ArgProblem, ArgValue, Assumption, AssumptionId, AssumptionIdTable, Cell, DateError, Domain,
    DomainTable, Envelope, EnvelopeError, ErrorClass, ErrorClassTable, ErrorDetail, ErrorKind,
    ErrorKindTable, LocalDate, Meta, MissingSupply, NextAction, NextActionTable, NextStep, Param,
    ParamName, ParamType, Provenance, Source, SourceTable, Status, StatusTable, Table, TableError,
    ToolName, ToolNameTable, ToolSchema, TypeName, ValidArgs, View, ViewTable, VocabToolName,
    VocabToolNameTable, Window, WindowError, WindowSemantics, WindowSemanticsTable, render_compact,
    render_rest,
};
