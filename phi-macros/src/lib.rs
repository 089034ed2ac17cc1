//! Compile-time enforcement of the answer Envelope's closed enums.
//!
//! `#[derive(ClosedEnum)]` makes an open set impossible to compile: it refuses
//! `#[non_exhaustive]`, `#[serde(other | untagged | tag | content | alias)]`, catch-all variants
//! named `Other` or `Unknown`, data that is not itself closed, and duplicate wire names. From one
//! source of spellings it generates `VARIANTS`, `as_str`, `Display`, `FromStr`, its own
//! `serde::Serialize`/`Deserialize` (so the two cannot drift), an inline `json_schema()`, `ALL`,
//! and a per-variant dispatch table that cannot miss a case.
//!
//! `#[derive(ClosedFields)]` checks, on a struct, that every field marked `#[closed]` holds a
//! closed enum, also through `Option`, `Vec`, `Box` and map values.
//!
//! ```
//! use phi_macros::ClosedEnum;
//!
//! #[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
//! enum View { Raw, Day, Stats }
//!
//! assert_eq!(View::VARIANTS, ["raw", "day", "stats"]);
//! assert_eq!("day".parse::<View>(), Ok(View::Day));
//! assert!("hourly".parse::<View>().unwrap_err().contains("`hourly`"));
//! let table = ViewTable { raw: 1, day: 2, stats: 3 };
//! assert_eq!(*table.get(View::Stats), 3);
//! ```

mod case;
mod expand;
mod fields;
mod parse;

use proc_macro::TokenStream;

/// Derives the closed-enum machinery. See the crate documentation.
///
/// Attributes: `#[closed(rename_all = "snake_case")]` on the enum (also `kebab-case`,
/// `lowercase`, `UPPERCASE`, `SCREAMING_SNAKE_CASE`, `camelCase`, `PascalCase`), and
/// `#[closed(rename = "...")]` on a variant.
///
/// ```
/// #[derive(phi_macros::ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
/// enum Source { Watch, Phone }
///
/// #[derive(phi_macros::ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
/// enum Provenance { Measured, Computed, Elected(Source) }
///
/// assert_eq!(Provenance::Elected(Source::Watch).to_string(), "elected:watch");
/// assert_eq!("elected:phone".parse::<Provenance>(), Ok(Provenance::Elected(Source::Phone)));
/// let schema = Provenance::json_schema();
/// assert_eq!(schema["enum"][3], "elected:phone");
/// ```
#[proc_macro_derive(ClosedEnum, attributes(closed, serde))]
pub fn derive_closed_enum(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match parse::closed_enum(&input) {
        Ok(model) => expand::closed_enum(&model).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Checks that every field marked `#[closed]` holds a `ClosedEnum` type, also through
/// `Option<T>`, `Vec<T>`, `Box<T>` and map values.
///
/// ```
/// use phi_macros::{ClosedEnum, ClosedFields};
///
/// #[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq)]
/// enum Status { Ok, Partial, Error }
///
/// #[derive(ClosedFields)]
/// struct Meta {
///     #[closed]
///     status: Status,
///     #[closed]
///     history: Vec<Option<Status>>,
///     row_count: usize,
/// }
/// # let _ = Meta { status: Status::Ok, history: vec![], row_count: 0 };
/// ```
#[proc_macro_derive(ClosedFields, attributes(closed))]
pub fn derive_closed_fields(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match fields::closed_fields(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
