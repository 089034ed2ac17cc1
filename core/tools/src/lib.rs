//! `answers-tools`, the tools of the answers layer: each reads one subject's record and answers
//! with an [`Envelope`](answers_protocol::Envelope), never with an `Err` and never with a panic.
//!
//! - [`readings`]: [`query_health_indicators`], the readings tool: the catalogue, keyword search
//!   and values in one of eight views.
//! - [`medications`]: [`query_medications`], plans, the dose log and the history of courses.
//! - [`terminology`]: the terminology tools, database-free: `resolve_indicator`, `convert_unit`,
//!   `normalize_unit`, and the vocabulary server's `standardize_reading` and
//!   `standardize_complaint`.
//! - [`genetics`]: [`query_genetic_data`], genotype calls by rsids, gene or region, in `GRCh37`,
//!   `GRCh38` or the file's raw coordinates.
//! - [`pharmacogenomics`]: [`query_pharmacogenomics`], CPIC gene–drug pairs with their level and
//!   the genotype file's coverage of each gene's key variants.
//! - [`fault`]: how a tool that failed still answers: a store error, a malformed row or a panic
//!   becomes an error envelope told by its kind and its error's TYPE, and is logged the same way.
//!
//! ```
//! use answers_store::Store;
//! use answers_tools::query_health_indicators;
//! use answers_protocol::{Status, render_compact};
//! use serde_json::json;
//!
//! let store = Store::open_in_memory()?;
//! let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
//! let env = query_health_indicators(&store, &you, &json!({}));
//! assert_eq!(env.status(), Status::Ok);
//! assert!(render_compact(&env).contains("window: all recorded data"));
//! # Ok::<(), answers_store::StoreError>(())
//! ```

// The protocol's and the store's modules by their short names, for the tools' own `use` lines.
use answers_protocol::{args, date, envelope, tool, window};
use answers_store as store;
use answers_vocab as vocab;

pub mod fault;
pub mod genetics;
pub mod medications;
pub mod pharmacogenomics;
pub mod readings;
pub mod registry;
pub mod terminology;

pub use self::genetics::query_genetic_data;
pub use self::medications::query_medications;
pub use self::pharmacogenomics::query_pharmacogenomics;
pub use self::readings::query_health_indicators;
