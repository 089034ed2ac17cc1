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
}
