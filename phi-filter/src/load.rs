//! `PhiPolicy::from_toml` and `from_file`: the runtime reads the same `phiguard.toml` as phi-lint.

use std::path::Path;

use crate::config::{self, PolicyFile};
use crate::error::PolicyError;
use crate::policy::PhiPolicy;

impl PhiPolicy {
    /// The policy a `phiguard.toml` describes: `[names]` and `[runtime]` (`[lint]` is phi-lint's).
    /// Meant for `include_str!`, so the policy is compiled into the binary. Pseudonymized names
    /// still need a key ([`pseudonym_key`](PhiPolicy::pseudonym_key)) before `wrap`.
    ///
    /// ```
    /// let policy = phi_filter::PhiPolicy::from_toml(
    ///     "[names]\nallow = [\"listen_addr\"]\n[runtime]\nmax-message-bytes = 120\n",
    /// )?;
    /// # let _ = policy;
    /// let e = phi_filter::PhiPolicy::from_toml("[runtime]\npseudonymise = []\n").unwrap_err();
    /// assert!(e.to_string().starts_with("phiguard.toml:2:1: unknown field `pseudonymise`"), "{e}");
    /// # Ok::<(), phi_filter::PolicyError>(())
    /// ```
    pub fn from_toml(text: &str) -> Result<PhiPolicy, PolicyError> {
        let file = config::parse(text).map_err(|error| PolicyError::File {
            path: config::FILE_NAME.into(),
            error,
        })?;
        Ok(PhiPolicy::from_policy_file(&file))
    }

    /// [`from_toml`](PhiPolicy::from_toml) on a file: a `phiguard.toml`, or a `Cargo.toml`
    /// whose `[workspace.metadata.phiguard]` (or `[package.metadata.phiguard]`) holds the policy.
    ///
    /// ```no_run
    /// let policy = phi_filter::PhiPolicy::from_file("phiguard.toml")?;
    /// # Ok::<(), phi_filter::PolicyError>(())
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<PhiPolicy, PolicyError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| PolicyError::Read {
            path: path.display().to_string(),
            kind: e.kind().to_string(),
        })?;
        let file_error = |error| PolicyError::File {
            path: path.display().to_string(),
            error,
        };
        if path.file_name().is_some_and(|n| n == "Cargo.toml") {
            let file = config::from_cargo_manifest(&text)
                .map_err(file_error)?
                .ok_or_else(|| PolicyError::NoPolicy(path.display().to_string()))?;
            return Ok(PhiPolicy::from_policy_file(&file));
        }
        let file = config::parse(&text).map_err(file_error)?;
        Ok(PhiPolicy::from_policy_file(&file))
    }

    fn from_policy_file(file: &PolicyFile) -> PhiPolicy {
        let mut p = PhiPolicy::default();
        for n in &file.names.allow {
            p = p.allow_name(n.as_str());
        }
        for n in &file.names.patterns {
            p = p.allow_pattern(n.as_str());
        }
        for s in &file.names.deny_stems {
            p = p.deny_stem(s.as_str());
        }
        let rt = &file.runtime;
        for n in &rt.pseudonymize {
            p = p.pseudonymize(n.as_str());
        }
        if let Some(bytes) = rt.max_message_bytes {
            p = p.max_message_bytes(bytes);
        }
        if let Some(strict) = rt.strict_messages {
            p = p.strict_messages(strict);
        }
        if let Some(marker) = &rt.marker {
            p = p.marker(marker.as_str());
        }
        p.tripwire(rt.tripwire.iter().map(String::as_str))
    }
}
