//! `phiguard.toml`: the one policy file that phi-lint and the runtime layer both read, so the lint
//! and the running service agree by construction.
//!
//! ```toml
//! # phiguard.toml, at the project root (or `[workspace.metadata.phiguard]` in Cargo.toml)
//! [names]                       # read by both
//! allow = ["listen_addr"]       # exact names that pass, even with a deny stem
//! patterns = ["*_slug"]         # `*` patterns that widen the safe classes
//! deny-stems = ["token"]        # added to the built-in stems
//!
//! [lint]                        # phi-lint only (see phi-lint's README)
//! safe-functions = ["plural"]
//! exclude = ["vendor/**"]
//! [lint.wrappers]
//! admin_error = "tracing::error"
//!
//! [runtime]                     # the layer; phi-lint passes the pseudonymized names
//! pseudonymize = ["mrn", "patient_*"]
//! max-message-bytes = 300
//! strict-messages = false
//! ```
//!
//! Every table rejects unknown keys, with line and column. The `[lint]` table is checked by
//! phi-lint; the runtime keeps it as it is. phi-lint reads the file through this module too
//! ([`from_str`] into a [`PolicyFile`] with its own `[lint]` type, [`cargo_metadata`] for a
//! `Cargo.toml`), so both layers parse it, and point at its errors, the same way.

use std::fmt;

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// The file name both layers look for at the project root.
pub const FILE_NAME: &str = "phiguard.toml";

/// `[names]`: the names both layers allow or deny.
///
/// ```
/// let file = phi_filter::config::parse("[names]\nallow = [\"listen_addr\"]\n").unwrap();
/// assert_eq!(file.names.allow, ["listen_addr"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Names {
    /// Exact names that pass, even if they contain a deny stem.
    pub allow: Vec<String>,
    /// `*` patterns of names that pass unless they contain a deny stem.
    pub patterns: Vec<String>,
    /// Stems added to the built-in deny stems.
    pub deny_stems: Vec<String>,
}

/// `[runtime]`: what only the running layer does; phi-lint lets the pseudonymized names pass.
///
/// ```
/// let file = phi_filter::config::parse("[runtime]\npseudonymize = [\"mrn\"]\n").unwrap();
/// assert_eq!(file.runtime.pseudonymize, ["mrn"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Runtime {
    /// Names or `*` patterns whose values become keyed tokens.
    pub pseudonymize: Vec<String>,
    /// The bound on a message, in bytes.
    pub max_message_bytes: Option<usize>,
    /// Replace every message with its callsite's name.
    pub strict_messages: Option<bool>,
    /// The text that replaces a redacted value.
    pub marker: Option<String>,
    /// Canaries the tripwire blocks.
    pub tripwire: Vec<String>,
}

/// A parsed `phiguard.toml`. `L` is what `[lint]` is read as: kept as a table by default (the
/// runtime does not look at it); phi-lint reads it as its own configuration.
///
/// ```
/// let file = phi_filter::config::parse("").unwrap();
/// assert!(file.names.allow.is_empty() && file.lint.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyFile<L = toml::Table> {
    /// `[names]`.
    pub names: Names,
    /// `[runtime]`.
    pub runtime: Runtime,
    /// `[lint]`: phi-lint checks it.
    pub lint: Option<L>,
}

/// A `phiguard.toml` that cannot be read as one: what is wrong, and where.
///
/// ```
/// let e = phi_filter::config::parse("[names]\nalow = []\n").unwrap_err();
/// assert_eq!(e.at, Some((2, 1)));
/// assert!(e.to_string().starts_with("2:1: unknown field `alow`"), "{e}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// 1-based line and column (in characters), when known.
    pub at: Option<(usize, usize)>,
    /// What is wrong, lower-case, one line.
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((line, col)) = self.at {
            write!(f, "{line}:{col}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for FileError {}

/// Parses a `phiguard.toml` document.
pub fn parse(text: &str) -> Result<PolicyFile, FileError> {
    from_str(text)
}

/// Reads a TOML document as `T`, with this module's errors: the first line of the message, and
/// where it points.
///
/// ```
/// use phi_filter::config::{PolicyFile, from_str};
/// let file: PolicyFile<phi_filter::config::Names> = from_str("[lint]\nallow = [\"a\"]\n").unwrap();
/// assert_eq!(file.lint.unwrap().allow, ["a"]);
/// let e = from_str::<PolicyFile>("[names]\nallow = 3\n").unwrap_err();
/// assert_eq!(e.at, Some((2, 9)));
/// ```
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, FileError> {
    toml::from_str(text).map_err(|e| error(text, &e))
}

/// The `[workspace.metadata]` and `[package.metadata]` tables of a `Cargo.toml`, each read as
/// `M` (the caller's keys in it; other keys pass).
#[derive(Debug, Deserialize)]
pub struct CargoMetadata<M> {
    /// `[workspace.metadata]`.
    pub workspace: Option<M>,
    /// `[package.metadata]`.
    pub package: Option<M>,
}

#[derive(Deserialize)]
struct Manifest<M> {
    workspace: Option<Section<M>>,
    package: Option<Section<M>>,
}

#[derive(Deserialize)]
struct Section<M> {
    metadata: Option<M>,
}

/// Reads the metadata tables of a `Cargo.toml` document as `M`.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Mine {
///     phiguard: Option<phi_filter::config::PolicyFile>,
/// }
/// let toml = "[package]\nname = \"x\"\n[package.metadata.phiguard.names]\nallow = [\"a\"]\n";
/// let m = phi_filter::config::cargo_metadata::<Mine>(toml).unwrap();
/// assert!(m.workspace.is_none());
/// assert_eq!(m.package.unwrap().phiguard.unwrap().names.allow, ["a"]);
/// ```
pub fn cargo_metadata<M: DeserializeOwned>(text: &str) -> Result<CargoMetadata<M>, FileError> {
    let manifest: Manifest<M> = from_str(text)?;
    let metadata = |s: Option<Section<M>>| s.and_then(|s| s.metadata);
    Ok(CargoMetadata {
        workspace: metadata(manifest.workspace),
        package: metadata(manifest.package),
    })
}

#[derive(Deserialize)]
struct Metadata {
    phiguard: Option<PolicyFile>,
}

/// The `[workspace.metadata.phiguard]` (else `[package.metadata.phiguard]`) table of a
/// `Cargo.toml` document, if it has one.
///
/// ```
/// let toml = "[workspace.metadata.phiguard.names]\nallow = [\"listen_addr\"]\n";
/// let file = phi_filter::config::from_cargo_manifest(toml).unwrap().unwrap();
/// assert_eq!(file.names.allow, ["listen_addr"]);
/// ```
pub fn from_cargo_manifest(text: &str) -> Result<Option<PolicyFile>, FileError> {
    let m = cargo_metadata::<Metadata>(text)?;
    let of = |m: Option<Metadata>| m.and_then(|m| m.phiguard);
    Ok(of(m.workspace).or_else(|| of(m.package)))
}

fn error(text: &str, e: &toml::de::Error) -> FileError {
    let message = e.message().trim();
    FileError {
        at: e.span().map(|s| line_col(text, s.start)),
        message: message.split('\n').next().unwrap_or(message).to_owned(),
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text` (an offset past the end,
/// or inside a character, counts up to the end).
///
/// ```
/// assert_eq!(phi_filter::config::line_col("a\nbé = 1\n", 6), (2, 4));
/// ```
#[must_use]
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn unknown_keys_are_errors_with_line_and_column() {
        let e = parse("[runtime]\npseudonymize = []\nmax-mesage-bytes = 3\n").unwrap_err();
        assert_eq!(e.at, Some((3, 1)));
        assert!(e.message.contains("max-mesage-bytes"), "{e}");
        let e = parse("[name]\nallow = []\n").unwrap_err();
        assert_eq!(e.at, Some((1, 2)));
        let e = parse("[runtime]\nmax-message-bytes = \"lots\"\n").unwrap_err();
        assert_eq!(e.at, Some((2, 21)));
    }

    #[test]
    fn every_table_is_read() {
        let f = parse(
            "[names]\nallow = [\"a\"]\npatterns = [\"*_slug\"]\ndeny-stems = [\"token\"]\n\
             [lint]\nsafe-functions = [\"plural\"]\n\
             [runtime]\npseudonymize = [\"mrn\"]\nmax-message-bytes = 120\nstrict-messages = true\n",
        )
        .unwrap();
        assert_eq!(f.names.patterns, ["*_slug"]);
        assert_eq!(f.names.deny_stems, ["token"]);
        assert_eq!(f.runtime.max_message_bytes, Some(120));
        assert_eq!(f.runtime.strict_messages, Some(true));
        assert!(f.lint.is_some_and(|l| l.contains_key("safe-functions")));
    }
}
