//! `PolicyError`: a policy that cannot run as configured.

/// Why a [`PhiPolicy`](crate::PhiPolicy) was refused: it is misconfigured, or its file could not
/// be read.
///
/// ```
/// let e = phi_filter::PhiPolicy::default().pseudonymize("mrn").try_wrap(()).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "the field `mrn` is pseudonymized but the policy has no pseudonym key (set one with PhiPolicy::pseudonym_key)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A name is pseudonymized, but no key was given: its values would have nowhere to go.
    #[error(
        "the field `{0}` is pseudonymized but the policy has no pseudonym key (set one with PhiPolicy::pseudonym_key)"
    )]
    NoKey(String),
    /// A policy file is not valid: the path, then line and column.
    #[error("{path}:{error}")]
    File {
        /// The file.
        path: String,
        /// What is wrong, and where.
        error: crate::config::FileError,
    },
    /// A policy file could not be read.
    #[error("cannot read {path}: {kind}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error's kind.
        kind: String,
    },
    /// A `Cargo.toml` given as the policy file has no `[workspace.metadata.phiguard]` table.
    #[error("{0} has no [workspace.metadata.phiguard] or [package.metadata.phiguard] table")]
    NoPolicy(String),
}
