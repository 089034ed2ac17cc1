//! Findings: what the lint reports, as data.

use compact_str::CompactString;
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
    pub file: CompactString,
    /// Where the offending expression starts.
    pub start: Pos,
    /// Where it ends (exclusive column, as SARIF and rustc count).
    pub end: Pos,
    /// The sink macro as written (`info`, `tracing::info`, `#[instrument]`, `.record`).
    pub macro_path: CompactString,
    /// The field key, `{fmt}` for a format argument, or the argument name for `#[instrument]`.
    pub field: CompactString,
    /// The expression as written in the source.
    pub expr: CompactString,
    /// The expression's tokens, normalised (one space between tokens).
    pub expr_tokens: CompactString,
    /// Why it was flagged, lower-case, no trailing period.
    pub message: String,
    /// The enclosing function (`Type::method`, `fn_name`, `macro_rules! name`, or empty).
    pub function: CompactString,
    /// Where the whole statement starts and ends (the macro call, the attribute, the writer's
    /// call), used to match inline suppressions: a suppression covers one statement.
    pub statement: (Pos, Pos),
    /// Stable fingerprint: a hash of the key and its occurrence index within the key.
    pub fingerprint: CompactString,
    /// Whether the baseline grandfathers it.
    pub baselined: bool,
    /// The machine-applicable rewrite that resolves it, if there is a certain one
    /// (`phi-lint fix` applies it; SARIF carries it as `fixes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Box<Fix>>,
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
        let [path, rule, macro_name, field, expr, function] = self.key_parts().map(str::to_owned);
        FindingKey {
            path,
            rule,
            macro_name,
            field,
            expr,
            function,
        }
    }

    /// The parts of [`Finding::key`], borrowed, in [`FindingKey::fingerprint`]'s order.
    fn key_parts(&self) -> [&str; 6] {
        let macro_name = self
            .macro_path
            .trim_start_matches("#[")
            .trim_end_matches(']')
            .trim_start_matches('.')
            .rsplit("::")
            .next()
            .unwrap_or_default();
        [
            &self.file,
            self.rule.code(),
            macro_name,
            &self.field,
            &self.expr_tokens,
            &self.function,
        ]
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
    format!("{:016x}", fnv1a(FNV_OFFSET, parts))
}

/// FNV-1a's starting state.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// `state` advanced over each part and a unit separator after it.
fn fnv1a(mut h: u64, parts: &[&str]) -> u64 {
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0x1f)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Fills in [`Finding::fingerprint`]: the hash of the key plus the occurrence index of the key
/// within the file, in source order. `findings` must be sorted in source order.
///
/// The keys are borrowed, never copied: a file with a finding on every statement holds one
/// index and one hash per finding here, not a map of owned keys.
pub fn assign_fingerprints(findings: &mut [Finding]) {
    let states: Vec<u64> = findings
        .iter()
        .map(|f| fnv1a(FNV_OFFSET, &f.key_parts()))
        .collect();
    // Equal keys sort together, each group in source order; the hash only orders the groups.
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        states[a]
            .cmp(&states[b])
            .then_with(|| findings[a].key_parts().cmp(&findings[b].key_parts()))
            .then(a.cmp(&b))
    });
    let mut occurrence = vec![0usize; findings.len()];
    for pair in order.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if states[a] == states[b] && findings[a].key_parts() == findings[b].key_parts() {
            occurrence[b] = occurrence[a] + 1;
        }
    }
    for (i, f) in findings.iter_mut().enumerate() {
        let n = occurrence[i].to_string();
        f.fingerprint = compact_str::format_compact!("{:016x}", fnv1a(states[i], &[&n]));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{Finding, Pos, assign_fingerprints};
    use crate::rules::Rule;

    fn finding(line: u32, rule: Rule, parts: [&str; 4]) -> Finding {
        let [macro_path, field, expr, function] = parts;
        let pos = Pos { line, column: 1 };
        Finding {
            rule,
            file: "src/lib.rs".into(),
            start: pos,
            end: pos,
            macro_path: macro_path.into(),
            field: field.into(),
            expr: expr.into(),
            expr_tokens: expr.into(),
            message: "m".into(),
            function: function.into(),
            statement: (pos, pos),
            fingerprint: compact_str::CompactString::default(),
            baselined: false,
            fix: None,
        }
    }

    #[test]
    fn each_fingerprint_is_its_keys_hash_and_occurrence_in_source_order() {
        let shapes = [
            (Rule::Interpolation, ["info", "{fmt}", "p.name", "f"]),
            (
                Rule::Interpolation,
                ["tracing::info", "{fmt}", "p.name", "f"],
            ),
            (Rule::Interpolation, ["warn", "{fmt}", "p.name", "f"]),
            (Rule::ErrorMessage, ["info", "{fmt}", "p.name", "f"]),
            (Rule::Interpolation, ["info", "name", "p.name", "f"]),
            (
                Rule::Interpolation,
                ["#[instrument]", "name", "p.name", "g"],
            ),
        ];
        let mut findings: Vec<Finding> = (0..60u32)
            .map(|line| {
                let (rule, parts) = shapes[line as usize * 5 % shapes.len()];
                finding(line + 1, rule, parts)
            })
            .collect();
        assign_fingerprints(&mut findings);
        let mut seen: HashMap<_, usize> = HashMap::new();
        for f in &findings {
            let n = seen.entry(f.key()).or_default();
            assert_eq!(
                f.fingerprint,
                f.key().fingerprint(&n.to_string()),
                "line {}",
                f.start.line
            );
            *n += 1;
        }
        // `info` and `tracing::info` are one key (the macro's last segment): six shapes, five keys.
        assert_eq!(seen.len(), 5);
        assert_eq!(seen.values().sum::<usize>(), 60);
    }
}
