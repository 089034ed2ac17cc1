//! The shrink-only baseline: `phi-lint.baseline.json`.
//!
//! Each entry is keyed by (path, rule, macro, field, normalised expression tokens, enclosing fn),
//! with no line numbers, and carries a count, so a second identical leak in the same function is
//! new. Entries are sorted and the file is pretty-printed, so its diffs read well.
//!
//! ```
//! use phi_lint::baseline::Baseline;
//! let text = r#"{"version": 1, "entries": [{"path": "src/db.rs", "rule": "phi::error-message",
//!   "macro": "error", "field": "error", "expr": "e", "function": "Store::insert", "count": 1}]}"#;
//! let b = Baseline::parse(text, "phi-lint.baseline.json".as_ref())?;
//! assert_eq!(b.entries.len(), 1);
//! # Ok::<(), phi_lint::baseline::BaselineError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::finding::{Finding, FindingKey};
use crate::report::{Growth, Stale};

/// The file name looked up at the scan root.
pub const FILE_NAME: &str = "phi-lint.baseline.json";

/// A baseline file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Format version, 1.
    pub version: u32,
    /// Entries, sorted by key.
    pub entries: Vec<Entry>,
}

/// One grandfathered key and how many findings it covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// File, relative to the scan root.
    pub path: String,
    /// Rule code.
    pub rule: String,
    /// Macro name, last path segment.
    #[serde(rename = "macro")]
    pub macro_name: String,
    /// Field key or `{fmt}`.
    pub field: String,
    /// Normalised expression tokens.
    pub expr: String,
    /// Enclosing function.
    pub function: String,
    /// How many findings with this key it covers.
    pub count: usize,
    /// Why the entry was added or raised (`--allow-growth --reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Entry {
    /// The entry's key.
    #[must_use]
    pub fn key(&self) -> FindingKey {
        FindingKey {
            path: self.path.clone(),
            rule: self.rule.clone(),
            macro_name: self.macro_name.clone(),
            field: self.field.clone(),
            expr: self.expr.clone(),
            function: self.function.clone(),
        }
    }
}

/// A baseline that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The file cannot be read or written.
    #[error("cannot {action} baseline {}: {message}", path.display())]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O error, lower-case.
        message: String,
    },
    /// The file is not a valid baseline.
    #[error("invalid baseline {}:{line}:{column}: {message}", path.display())]
    Invalid {
        /// The file (or `REF:path`).
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// `git` could not read the baseline at a ref.
    #[error("cannot read the baseline at git ref `{reference}`: {message}")]
    Git {
        /// The ref.
        reference: String,
        /// What git said, or why it could not run.
        message: String,
    },
}

impl Baseline {
    /// Reads a baseline; `Ok(None)` if the file does not exist.
    pub fn load(path: &Path) -> Result<Option<Baseline>, BaselineError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Baseline::parse(&text, path).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(BaselineError::Io {
                action: "read",
                path: path.to_owned(),
                message: crate::walk::io_message(&e),
            }),
        }
    }

    /// Parses a baseline document; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Baseline, BaselineError> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| BaselineError::Invalid {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e
                .to_string()
                .split(" at line")
                .next()
                .unwrap_or_default()
                .to_owned(),
        })?;
        if b.version != 1 {
            return Err(BaselineError::Invalid {
                path: path.to_owned(),
                line: 1,
                column: 1,
                message: format!(
                    "unsupported version {}; this phi-lint reads version 1",
                    b.version
                ),
            });
        }
        Ok(b)
    }

    /// Reads the baseline at `path` as it is at git ref `reference`; `Ok(None)` if it did not
    /// exist there.
    pub fn at_git_ref(path: &Path, reference: &str) -> Result<Option<Baseline>, BaselineError> {
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let git_err = |message: String| BaselineError::Git {
            reference: reference.to_owned(),
            message,
        };
        let verify = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "--verify", "--quiet"])
            .arg(format!("{reference}^{{commit}}"))
            .output()
            .map_err(|e| git_err(format!("cannot run git: {}", crate::walk::io_message(&e))))?;
        if !verify.status.success() {
            return Err(git_err("no such commit".into()));
        }
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .arg("show")
            .arg(format!("{reference}:./{name}"))
            .output()
            .map_err(|e| git_err(format!("cannot run git: {}", crate::walk::io_message(&e))))?;
        if !out.status.success() {
            // The commit exists, so a failure here means the file did not exist at the ref.
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&out.stdout);
        Baseline::parse(&text, Path::new(&format!("{reference}:{name}"))).map(Some)
    }

    /// A baseline that grandfathers exactly `findings`.
    #[must_use]
    pub fn from_findings(findings: &[Finding]) -> Baseline {
        let mut b = Baseline {
            version: 1,
            entries: Vec::new(),
        };
        for (key, count) in counts(findings) {
            b.entries.push(entry(key, count, None));
        }
        b
    }

    fn counts_by_key(&self) -> BTreeMap<FindingKey, usize> {
        let mut m = BTreeMap::new();
        for e in &self.entries {
            let n: &mut usize = m.entry(e.key()).or_insert(0);
            *n = n.saturating_add(e.count);
        }
        m
    }

    /// Marks the findings the baseline covers (the first `count` of each key, in source order)
    /// and returns the stale entries: those whose count exceeds the findings of their key.
    pub fn apply(&self, findings: &mut [Finding]) -> Vec<Stale> {
        let mut left = self.counts_by_key();
        for f in findings.iter_mut() {
            if let Some(n) = left.get_mut(&f.key())
                && *n > 0
            {
                *n -= 1;
                f.baselined = true;
            }
        }
        let found = counts(findings);
        let mut stale = Vec::new();
        for (key, baseline_count) in self.counts_by_key() {
            let found_count = found.get(&key).copied().unwrap_or(0);
            if baseline_count > found_count {
                stale.push(Stale {
                    key,
                    baseline_count,
                    found_count,
                });
            }
        }
        stale
    }

    /// Entries that are new or larger than in `older` (the baseline at `--baseline-ref`).
    #[must_use]
    pub fn growth_since(&self, older: &Baseline) -> Vec<Growth> {
        let old = older.counts_by_key();
        self.counts_by_key()
            .into_iter()
            .filter_map(|(key, count)| {
                let ref_count = old.get(&key).copied().unwrap_or(0);
                (count > ref_count).then_some(Growth {
                    key,
                    ref_count,
                    count,
                })
            })
            .collect()
    }

    /// The update `phi-lint baseline` makes: every entry pruned to the findings of its key.
    /// Returns the pruned baseline and the keys that would have to grow to cover every finding.
    #[must_use]
    pub fn prune(&self, findings: &[Finding]) -> (Baseline, Vec<Growth>) {
        let found = counts(findings);
        let mut pruned = Baseline {
            version: 1,
            entries: Vec::new(),
        };
        for e in &self.entries {
            let n = found.get(&e.key()).copied().unwrap_or(0).min(e.count);
            if n > 0 {
                pruned.entries.push(Entry {
                    count: n,
                    ..e.clone()
                });
            }
        }
        let have = self.counts_by_key();
        let growth = found
            .into_iter()
            .filter_map(|(key, count)| {
                let ref_count = have.get(&key).copied().unwrap_or(0);
                (count > ref_count).then_some(Growth {
                    key,
                    ref_count,
                    count,
                })
            })
            .collect();
        pruned.normalise();
        (pruned, growth)
    }

    /// Raises (or adds) entries to cover `growth`, recording `reason` on each.
    pub fn grow(&mut self, growth: &[Growth], reason: &str) {
        // One pass over the entries, not one per growth: 20,000 new findings took 23 s.
        let grown: std::collections::HashSet<&FindingKey> = growth.iter().map(|g| &g.key).collect();
        self.entries.retain(|e| !grown.contains(&e.key()));
        for g in growth {
            self.entries
                .push(entry(g.key.clone(), g.count, Some(reason.to_owned())));
        }
        self.normalise();
    }

    /// Sorts entries by key and merges duplicates.
    pub fn normalise(&mut self) {
        self.entries.sort_by_key(Entry::key);
        self.entries.dedup_by(|b, a| {
            if a.key() == b.key() {
                a.count = a.count.saturating_add(b.count);
                true
            } else {
                false
            }
        });
    }

    /// The file's text: pretty JSON, sorted, with a trailing newline.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut b = self.clone();
        b.normalise();
        let mut s = serde_json::to_string_pretty(&b).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Writes the file.
    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        std::fs::write(path, self.to_text()).map_err(|e| BaselineError::Io {
            action: "write",
            path: path.to_owned(),
            message: crate::walk::io_message(&e),
        })
    }
}

fn counts(findings: &[Finding]) -> BTreeMap<FindingKey, usize> {
    let mut m = BTreeMap::new();
    for f in findings {
        *m.entry(f.key()).or_insert(0) += 1;
    }
    m
}

fn entry(key: FindingKey, count: usize, reason: Option<String>) -> Entry {
    Entry {
        path: key.path,
        rule: key.rule,
        macro_name: key.macro_name,
        field: key.field,
        expr: key.expr,
        function: key.function,
        count,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::{Baseline, FindingKey, Growth, entry};

    fn key(expr: &str) -> FindingKey {
        FindingKey {
            path: "src/lib.rs".into(),
            rule: "phi::interpolation".into(),
            macro_name: "info".into(),
            field: "{fmt}".into(),
            expr: expr.into(),
            function: "f".into(),
        }
    }

    /// Counts of one key add up without wrapping: a hand-edited file of `usize::MAX` and `1`
    /// covers everything, where it summed to 0 and covered nothing.
    #[test]
    fn duplicate_entries_add_up_without_wrapping() {
        let mut b = Baseline {
            entries: vec![entry(key("a"), usize::MAX, None), entry(key("a"), 1, None)],
            ..Baseline::default()
        };
        assert_eq!(b.counts_by_key()[&key("a")], usize::MAX);
        b.normalise();
        assert_eq!(b.entries.len(), 1);
        assert_eq!(b.entries[0].count, usize::MAX);
    }

    /// Growth replaces the entries of its keys and keeps the others.
    #[test]
    fn growth_raises_its_keys_and_keeps_the_rest() {
        let mut b = Baseline {
            entries: vec![entry(key("a"), 1, None), entry(key("b"), 2, None)],
            ..Baseline::default()
        };
        let growth = [
            Growth {
                key: key("a"),
                ref_count: 1,
                count: 3,
            },
            Growth {
                key: key("c"),
                ref_count: 0,
                count: 1,
            },
        ];
        b.grow(&growth, "why");
        let got: Vec<(String, usize, Option<String>)> = b
            .entries
            .iter()
            .map(|e| (e.expr.clone(), e.count, e.reason.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("a".into(), 3, Some("why".into())),
                ("b".into(), 2, None),
                ("c".into(), 1, Some("why".into()))
            ]
        );
    }
}
