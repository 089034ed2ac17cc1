//! phi-filter: the runtime layer of phiguard.
//!
//! A redacting [`tracing`] layer that services install with one line. It wraps the sinks it
//! protects (fmt, JSON, OpenTelemetry, any `Layer`), so they see only:
//!
//! - values under names in a safe class (an opaque id, a count, a duration, a status code or a
//!   type name, as [`names`] defines them, the same classifier phi-lint uses), and only if they
//!   have that class's shape;
//! - the message, bounded to 300 bytes (or replaced by the callsite name in strict mode);
//! - `log.*` metadata from the `log` bridge.
//!
//! Everything else keeps its key and becomes `[redacted]`. Errors become `[error]`. A tripwire
//! blocks any value that contains a planted canary. The layer never panics.
//!
//! ```
//! use tracing_subscriber::prelude::*;
//! let layer = phi_filter::PhiPolicy::default().wrap(tracing_subscriber::fmt::layer().json());
//! tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
//!     tracing::info!(user_id = 7, comment = "felt dizzy", "reading stored");
//! });
//! ```
//!
//! Without the default `layer` feature the crate is only [`names`], with no dependencies.

#[cfg(feature = "config")]
pub mod config;
pub mod names;

#[cfg(feature = "otel")]
mod otel;

#[cfg(feature = "otel")]
pub use otel::{PhiLogProcessor, PhiSpanProcessor};

/// The items of the `layer` feature: the tracing layer and what it is built from.
macro_rules! with_layer {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "layer")]
            $item
        )*
    };
}

with_layer! {
    mod error;
    mod fields;
    mod install;
    mod layer;
    mod load;
    mod memory;
    mod policy;
    mod pseudonym;
    mod redact;
    mod shape;
    mod stats;

    pub use error::PolicyError;
    pub use fields::{PhiJsonFields, PhiTextFields};
    pub use install::{
        InstallError, Stream, install, install_to, install_with, json_layer, text_layer,
    };
    pub use layer::PhiFilter;
    pub use memory::{MemoryGuard, MemoryWriter};
    pub use policy::{
        CANARY_MARKER, DEFAULT_MARKER, DEFAULT_MAX_MESSAGE_BYTES, ERROR_MARKER, Format, PhiPolicy,
        Stats, StatsSnapshot,
    };
    pub use pseudonym::{
        KeyError, MIN_KEY_BYTES, PSEUDONYM_KEY_ENV, PseudonymKey, TOKEN_PREFIX, pseudonym,
    };
}

/// What may be said about an error: its type name, never its message.
///
/// A database driver's message quotes the statement with its bound parameters; the type says
/// what went wrong without them. Pass the concrete error: a `&dyn Error` only has the name
/// `dyn core::error::Error`.
///
/// A reference says nothing about the error, so it is not named: an error matched by reference
/// (`Err(e)` on a `&Result`, as `phi-lint fix` rewrites it) has the name of the error itself.
///
/// ```
/// let mut e = "x".parse::<u32>().unwrap_err();
/// assert_eq!(phi_filter::error_type(&e), "core::num::error::ParseIntError");
/// assert_eq!(phi_filter::error_type(&&e), "core::num::error::ParseIntError");
/// assert_eq!(phi_filter::error_type(&&mut e), "core::num::error::ParseIntError");
/// // tracing::error!(error_type = %phi_filter::error_type(&e), "parse failed");
/// ```
#[must_use]
pub fn error_type<E: ?Sized>(_error: &E) -> &'static str {
    let mut name = std::any::type_name::<E>();
    while let Some(rest) = name
        .strip_prefix("&mut ")
        .or_else(|| name.strip_prefix('&'))
    {
        name = rest;
    }
    name
}
