//! phi-lint: the static layer of phiguard.
//!
//! It reads the source of every logging statement (`tracing` and `log` macros, `#[instrument]`,
//! `.record(..)`, `print!`/`eprintln!`/`dbg!` and panic messages, in closures and inside other
//! macros' token streams) and reports each interpolated value that is not an opaque identifier, a
//! count, a duration, a status code or a type name. Findings are data; an `Err` means the tool
//! could not do its job.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! std::fs::write(
//!     dir.path().join("lib.rs"),
//!     r#"fn f(user: User) { tracing::info!(user_id = %user.id, "email {}", user.email); }"#,
//! )?;
//! let scan = phi_lint::Scan::new(&[dir.path().to_path_buf()], None)?;
//! let result = phi_lint::lint(&scan);
//! assert_eq!(result.findings.len(), 1);
//! assert_eq!(result.findings[0].rule.code(), "phi::interpolation");
//! assert_eq!(result.findings[0].expr, "user.email");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod baseline;
mod check;
mod classify;
pub mod config;
mod engine;
pub mod finding;
pub mod fix;
mod fmtspec;
mod grammar;
mod ident;
pub mod report;
mod resolve;
pub mod rules;
mod source;
mod suppress;
mod types;
mod walk;

pub use baseline::Baseline;
pub use check::{CheckOptions, check};
pub use config::{Config, ConfigError};
pub use engine::{FileLint, LintResult, lint, lint_source};
pub use finding::{Edit, FileError, Finding, FindingKey, Fix, Pos};
pub use report::{Format, Report};
pub use rules::Rule;
pub use walk::{Scan, ScanCounts};

/// Why phi-lint could not do its job.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The baseline file is invalid or unreadable.
    #[error(transparent)]
    Baseline(#[from] baseline::BaselineError),
    /// The paths hold no Rust file at all: nothing to check is not `clean`.
    #[error("no Rust file found under {path}")]
    NoRustFiles {
        /// The paths as given.
        path: String,
    },
    /// A path given on the command line cannot be scanned.
    #[error("cannot scan `{path}`: {message}")]
    Path {
        /// The path as given.
        path: String,
        /// What is wrong, lower-case.
        message: String,
    },
}
