//! Findings: what the lint reports, as data.

use serde::Serialize;

use crate::rules::Rule;

/// A 1-based position in a source file; `column` counts characters, not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// One interpolation that may not reach a log.
///
/// The identity of a finding for the baseline is [`Finding::key`]: it has no line numbers, so
/// unrelated edits above a grandfathered finding do not make it new.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule it breaks (serialized as its code, `phi::error-message`).
    #[serde(serialize_with = "crate::rules::serialize_code")]
    pub rule: Rule,
    /// The file, relative to the scan root, with `/` separators.
    pub file: String,
    /// Where the offending expression starts.
    pub start: Pos,
    /// Where it ends (exclusive column, as SARIF and rustc count).
    pub end: Pos,
    /// The sink macro as written (`info`, `tracing::info`, `#[instrument]`, `.record`).
    pub macro_path: String,
    /// The field key, `{fmt}` for a format argument, or the argument name for `#[instrument]`.
    pub field: String,
    /// The expression as written in the source.
    pub expr: String,
    /// The expression's tokens, normalised (one space between tokens).
    pub expr_tokens: String,
    /// Why it was flagged, lower-case, no trailing period.
    pub message: String,
    /// The enclosing function (`Type::method`, `fn_name`, `macro_rules! name`, or empty).
    pub function: String,
    /// The lines of the whole statement, used to match inline suppressions.
    pub statement_lines: (u32, u32),
    /// Stable fingerprint: a hash of the key and its occurrence index within the key.
    pub fingerprint: String,
    /// Whether the baseline grandfathers it.
    pub baselined: bool,
    /// The machine-applicable rewrite that resolves it, if there is a certain one
    /// (`phi-lint fix` applies it; SARIF carries it as `fixes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// A machine-applicable rewrite: edits to the finding's file, none overlapping, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// What the rewrite does, lower-case, no trailing period.
    pub description: String,
    /// The edits.
    pub edits: Vec<Edit>,
}

/// One edit: the text between two positions replaced. `start == end` is an insertion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// Byte offset of the start in the file.
    pub start_byte: usize,
    /// Byte offset of the end (exclusive).
    pub end_byte: usize,
    /// Where it starts.
    pub start: Pos,
    /// Where it ends (exclusive column).
    pub end: Pos,
    /// The text put in its place.
    pub replacement: String,
}

/// The identity of a finding in the baseline: no line numbers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
pub struct FindingKey {
    /// File, relative to the scan root.
    pub path: String,
    /// Rule code.
    pub rule: String,
    /// Macro name, last path segment (`info`, `instrument`, `record`).
    #[serde(rename = "macro")]
    pub macro_name: String,
    /// Field key or `{fmt}`.
    pub field: String,
    /// Normalised expression tokens.
    pub expr: String,
    /// Enclosing function.
    pub function: String,
}

impl FindingKey {
    /// The stable hash of this key's parts followed by `tail` (an occurrence index, or `stale`),
    /// as 16 hex digits.
    ///
    /// ```
    /// let key = phi_lint::finding::FindingKey {
    ///     path: "src/db.rs".into(),
    ///     rule: "phi::error-message".into(),
    ///     macro_name: "error".into(),
    ///     field: "error".into(),
    ///     expr: "e".into(),
    ///     function: "Store::insert".into(),
    /// };
    /// assert_eq!(key.fingerprint("0").len(), 16);
    /// assert_ne!(key.fingerprint("0"), key.fingerprint("1"));
    /// ```
    #[must_use]
    pub fn fingerprint(&self, tail: &str) -> String {
        fnv1a_hex(&[
            &self.path,
            &self.rule,
            &self.macro_name,
            &self.field,
            &self.expr,
            &self.function,
            tail,
        ])
    }
}

impl Finding {
    /// The baseline key of this finding.
    #[must_use]
    pub fn key(&self) -> FindingKey {
        let macro_name = self
            .macro_path
            .trim_start_matches("#[")
            .trim_end_matches(']')
            .trim_start_matches('.')
            .rsplit("::")
            .next()
            .unwrap_or_default()
            .to_owned();
        FindingKey {
            path: self.file.clone(),
            rule: self.rule.code().to_owned(),
            macro_name,
            field: self.field.clone(),
            expr: self.expr_tokens.clone(),
            function: self.function.clone(),
        }
    }
}

/// A file the lint could not read or parse. The check fails closed on it: a file that cannot be
/// parsed could hide a leak.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileError {
    /// The file, relative to the scan root.
    pub file: String,
    /// Where, if the parser said.
    pub pos: Option<Pos>,
    /// What went wrong, lower-case.
    pub message: String,
}

/// A stable 64-bit FNV-1a hash, rendered as 16 hex digits. Stable across Rust versions and
/// platforms, unlike `DefaultHasher`.
#[must_use]
pub fn fnv1a_hex(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0x1f)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// Fills in [`Finding::fingerprint`]: the hash of the key plus the occurrence index of the key
/// within the file, in source order. `findings` must be sorted in source order.
pub fn assign_fingerprints(findings: &mut [Finding]) {
    let mut seen: std::collections::HashMap<FindingKey, usize> = std::collections::HashMap::new();
    for f in findings {
        let key = f.key();
        let n = seen.entry(key.clone()).or_insert(0);
        f.fingerprint = key.fingerprint(&n.to_string());
        *n += 1;
    }
}
