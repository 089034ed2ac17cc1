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

use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::vocab::{CodeRef, CodeSystem, Vocabulary};

/// An indicator of the record, as answered: its code and its name, which is the vocabulary's
/// name for the code, or for a code the vocabulary does not know, the name it was last recorded
/// under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Indicator {
    pub(crate) code: CodeRef,
    pub(crate) label: String,
}

/// How a word is matched against recorded names when the vocabulary does not reach the
/// record: the whole name for `indicators`, part of it for `keywords`.
pub(crate) use crate::store::NameMatch;

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
            codes.extend(ctx.store.codes_by_name(ctx.subject_id, word, how)?);
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
        let label = ctx
            .store
            .recorded_name(ctx.subject_id, code)?
            .map(|recorded| match Vocabulary::bundled().entry(code) {
                Some(entry) => entry.name.clone(),
                None => recorded,
            });
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
