//! What a call selects: `keywords` and `indicators` resolved to the codes of the record.
//!
//! A series is identified by its code, so every series carrying a code answers whatever name it
//! was recorded under. A word reaches codes, in order, through:
//! 1. the vocabulary ([`Vocabulary::resolve`]: an exact code, official name or synonym, in any
//!    language);
//! 2. a code the record holds that the vocabulary does not know;
//! 3. the names the record was written under: exactly for `indicators`, as a substring for
//!    `keywords`.
//!
//! The third step reads every name of the subject's record, so it runs only for a word the
//! first two did not find in the record. For `indicators`, a word the vocabulary resolves is
//! taken at its word: its codes answer (with no rows where the record has none) without a
//! look-up, and under the vocabulary's names. `keywords` answer only with what the record
//! holds, since a search that matches nothing answers with the catalogue.

use std::collections::HashMap;
use std::sync::LazyLock;

use rusqlite::named_params;

use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::readings::rows::OF_CODE;
use crate::vocab::{CodeRef, CodeSystem, Vocabulary};

/// An indicator of the record, as answered: its code and its name, which is the vocabulary's
/// name for the code, or for a code the vocabulary does not know, the name it was last recorded
/// under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Indicator {
    pub(crate) code: CodeRef,
    pub(crate) label: String,
}

/// How a word is matched against recorded names when the vocabulary does not reach the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameMatch {
    /// The whole name, case-insensitively (`indicators`).
    Exact,
    /// Part of the name, case-insensitively (`keywords`).
    Contains,
}

/// The indicators of the record the words reach, in the order the words were given, each once.
pub(crate) fn resolve(
    ctx: &Ctx<'_>,
    words: &[String],
    how: NameMatch,
) -> Result<Vec<Indicator>, ToolError> {
    let vocab = Vocabulary::bundled();
    let mut labels = Labels::default();
    let mut found: Vec<Indicator> = Vec::new();
    for word in words {
        let mut codes = vocab.resolve(word);
        if how == NameMatch::Exact && !codes.is_empty() {
            for code in codes {
                if !found.iter().any(|i| i.code == code) {
                    let label = vocab
                        .entry(&code)
                        .map_or_else(|| code.code.clone(), |e| e.name.clone());
                    found.push(Indicator { code, label });
                }
            }
            continue;
        }
        if !labels.any_recorded(ctx, &codes)? {
            codes.extend(
                CodeSystem::ALL
                    .iter()
                    .map(|system| CodeRef::new(*system, word.trim())),
            );
        }
        if !labels.any_recorded(ctx, &codes)? {
            codes.extend(by_recorded_name(ctx, word, how)?);
        }
        for code in codes {
            if found.iter().any(|i| i.code == code) {
                continue;
            }
            if let Some(label) = labels.get(ctx, &code)? {
                found.push(Indicator { code, label });
            }
        }
    }
    Ok(found)
}

/// The name each code answers under, looked up once per call.
#[derive(Debug, Default)]
pub(crate) struct Labels {
    known: HashMap<CodeRef, Option<String>>,
}

impl Labels {
    /// The name `code` answers under, or `None` if the record never holds it.
    pub(crate) fn get(
        &mut self,
        ctx: &Ctx<'_>,
        code: &CodeRef,
    ) -> Result<Option<String>, ToolError> {
        if let Some(known) = self.known.get(code) {
            return Ok(known.clone());
        }
        let sql = label_sql();
        let mut stmt = ctx.conn.prepare_cached(sql)?;
        let mut rows = stmt.query(named_params! {
            ":subject": ctx.subject_id,
            ":code": &code.code,
            ":system": code.system.as_str(),
        })?;
        let label = match rows.next()? {
            Some(row) => Some(match Vocabulary::bundled().entry(code) {
                Some(entry) => entry.name.clone(),
                None => row.get::<_, String>(0)?,
            }),
            None => None,
        };
        self.known.insert(code.clone(), label.clone());
        Ok(label)
    }

    fn any_recorded(&mut self, ctx: &Ctx<'_>, codes: &[CodeRef]) -> Result<bool, ToolError> {
        for code in codes {
            if self.get(ctx, code)?.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The name a code was last recorded under.
pub(crate) fn label_sql() -> &'static str {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!("SELECT s.name FROM series s WHERE {OF_CODE} ORDER BY s.start_utc DESC LIMIT 1")
    });
    &SQL
}

/// The codes of series recorded under a name `word` matches.
fn by_recorded_name(ctx: &Ctx<'_>, word: &str, how: NameMatch) -> Result<Vec<CodeRef>, ToolError> {
    let (sql, pattern) = match how {
        NameMatch::Exact => (
            "SELECT DISTINCT s.system, s.code FROM series s \
             WHERE s.subject_id = ?1 AND s.name = ?2 COLLATE NOCASE",
            word.trim().to_owned(),
        ),
        NameMatch::Contains => (
            "SELECT DISTINCT s.system, s.code FROM series s \
             WHERE s.subject_id = ?1 AND s.name LIKE ?2 ESCAPE '\\'",
            format!("%{}%", escape_like(word.trim())),
        ),
    };
    let mut stmt = ctx.conn.prepare_cached(sql)?;
    let mut rows = stmt.query((ctx.subject_id, pattern))?;
    let mut codes = Vec::new();
    while let Some(row) = rows.next()? {
        let system: String = row.get(0)?;
        let code: String = row.get(1)?;
        let system = system
            .parse::<CodeSystem>()
            .map_err(|_| ToolError::Malformed { table: "series" })?;
        codes.push(CodeRef::new(system, &code));
    }
    codes.sort();
    Ok(codes)
}

/// `text` with `LIKE`'s wildcards and the escape character escaped.
fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_wildcards_are_literal() {
        assert_eq!(escape_like("50%_a\\b"), "50\\%\\_a\\\\b");
    }
}
