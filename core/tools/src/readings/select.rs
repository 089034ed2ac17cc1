//! What a call selects: `keywords` and `indicators` resolved to the codes of the record.
//!
//! A series is identified by its code, so every series carrying a code answers whatever name it
//! was recorded under.
//!
//! `indicators` are exact: a word reaches codes through the vocabulary ([`Vocabulary::resolve`]:
//! an exact code, official name or synonym, in any language), taken at its word (its codes
//! answer, with no rows where the record has none); else through a code the record holds that
//! the vocabulary does not know, or a name the record was written under, whole.
//!
//! `keywords` search, and follow the original: per keyword, **the person's own names first**,
//! then the vocabulary's codes. The record's names are each series' name as the catalogue lists
//! it and the name it was last recorded under. Every name that matches comes back, not the
//! first: first the names whose tokens contain all the keyword's tokens (`heart rate` finds
//! `Heart rate` and `Heart rate --resting`; `sleep` finds `Sleep duration` and the reported
//! `Sleep disturbance`), then the names that contain the keyword as text, then the codes the
//! vocabulary reaches that the record holds. Only a keyword none of these finds is searched for
//! in every name the record was ever written under, as text.

use std::collections::HashMap;

use crate::fault::ToolError;
use crate::readings::Ctx;
use crate::store::Bounds;
use crate::vocab::{CodeRef, CodeSystem, Vocabulary, fold};
use crate::window::Window;

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

/// The indicators `indicators` name, in the order given, each once.
pub(crate) fn resolve_exact(ctx: &Ctx<'_>, words: &[String]) -> Result<Exact, ToolError> {
    let vocab = Vocabulary::bundled();
    let mut labels = Labels::default();
    let mut found = Found::default();
    let mut unmatched = 0;
    for word in words {
        let mut codes = vocab.resolve(word);
        if !codes.is_empty() {
            for code in codes {
                let label = vocab
                    .entry(&code)
                    .map_or_else(|| code.code.clone(), |e| e.name.clone());
                found.push(Indicator { code, label });
            }
            continue;
        }
        codes.extend(
            CodeSystem::ALL
                .iter()
                .map(|system| CodeRef::new(*system, word.trim())),
        );
        if !labels.any_recorded(ctx, &codes)? {
            codes.extend(
                ctx.store
                    .codes_by_name(ctx.subject_id, word, NameMatch::Exact)?,
            );
        }
        if !found.recorded(ctx, &mut labels, codes)? {
            unmatched += 1;
        }
    }
    Ok(Exact {
        found: found.0,
        unmatched,
    })
}

/// What `indicators` resolve to: the indicators found, and how many of the names found none.
pub(crate) struct Exact {
    pub(crate) found: Vec<Indicator>,
    pub(crate) unmatched: usize,
}

/// The indicators `keywords` find, per keyword in the order given: the record's own names
/// first (all tokens, then text), then the vocabulary's codes; each indicator once.
pub(crate) fn resolve_keywords(
    ctx: &Ctx<'_>,
    words: &[String],
) -> Result<Vec<Indicator>, ToolError> {
    let vocab = Vocabulary::bundled();
    let mut labels = Labels::default();
    let names = record_names(ctx, &mut labels)?;
    let mut found = Found::default();
    for word in words {
        let key = fold(word);
        if key.is_empty() {
            continue;
        }
        let key_tokens = tokens(&key);
        let before = found.0.len();
        let by_tokens = names
            .iter()
            .filter(|n| !key_tokens.is_empty() && key_tokens.iter().all(|t| n.tokens.contains(t)));
        let by_text = names.iter().filter(|n| n.folded.contains(&key));
        for n in by_tokens.chain(by_text) {
            found.push(n.indicator.clone());
        }
        let mut codes = vocab.resolve(word);
        codes.extend(
            CodeSystem::ALL
                .iter()
                .map(|system| CodeRef::new(*system, word.trim())),
        );
        found.recorded(ctx, &mut labels, codes)?;
        if found.0.len() == before {
            let codes = ctx
                .store
                .codes_by_name(ctx.subject_id, word, NameMatch::Contains)?;
            found.recorded(ctx, &mut labels, codes)?;
        }
    }
    Ok(found.0)
}

/// Indicators found so far, each code once, in the order found.
#[derive(Debug, Default)]
struct Found(Vec<Indicator>);

impl Found {
    fn push(&mut self, indicator: Indicator) {
        if !self.0.iter().any(|i| i.code == indicator.code) {
            self.0.push(indicator);
        }
    }

    /// Adds the codes of `codes` the record holds, under their names. Whether the record holds
    /// any of them (found before or now).
    fn recorded(
        &mut self,
        ctx: &Ctx<'_>,
        labels: &mut Labels,
        codes: Vec<CodeRef>,
    ) -> Result<bool, ToolError> {
        let mut any = false;
        for code in codes {
            if self.0.iter().any(|i| i.code == code) {
                any = true;
                continue;
            }
            if let Some(label) = labels.get(ctx, &code)? {
                self.0.push(Indicator { code, label });
                any = true;
            }
        }
        Ok(any)
    }
}

/// A name a series of the record goes by, as the keywords search it.
#[derive(Debug)]
struct Name {
    indicator: Indicator,
    folded: String,
    tokens: Vec<String>,
}

/// Every series' names: the one the catalogue lists and the one it was last recorded under,
/// ordered by the listed name.
fn record_names(ctx: &Ctx<'_>, labels: &mut Labels) -> Result<Vec<Name>, ToolError> {
    let all = Bounds::of(&Window::ALL_RECORDED);
    let mut codes: Vec<CodeRef> = ctx
        .store
        .catalogue(ctx.subject_id, &all)?
        .into_iter()
        .map(|s| s.code)
        .collect();
    codes.dedup();
    let mut names = Vec::new();
    for code in codes {
        let Some(label) = labels.get(ctx, &code)? else {
            continue;
        };
        let recorded = ctx.store.recorded_name(ctx.subject_id, &code)?;
        let indicator = Indicator {
            code,
            label: label.clone(),
        };
        for name in std::iter::once(label).chain(recorded) {
            let folded = fold(&name);
            if names
                .iter()
                .any(|n: &Name| n.indicator.code == indicator.code && n.folded == folded)
            {
                continue;
            }
            names.push(Name {
                indicator: indicator.clone(),
                tokens: tokens(&name),
                folded,
            });
        }
    }
    names.sort_by(|a, b| {
        (&a.indicator.label, &a.indicator.code).cmp(&(&b.indicator.label, &b.indicator.code))
    });
    Ok(names)
}

/// The words of a name, lower-cased: split at every character that is not a letter or a digit,
/// and between a lower-case letter and an upper-case one (`heartRate` is `heart`, `rate`).
fn tokens(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
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

#[cfg(test)]
mod tests {
    use super::tokens;

    #[test]
    fn tokens_split_at_punctuation_and_camel_case() {
        assert_eq!(tokens("Heart rate --resting"), ["heart", "rate", "resting"]);
        assert_eq!(
            tokens("dailyRestingHeartRates"),
            ["daily", "resting", "heart", "rates"]
        );
        assert_eq!(tokens("HbA1c"), ["hb", "a1c"]);
        assert_eq!(tokens("失眠"), ["失眠"]);
        assert!(tokens(" -- ").is_empty());
    }
}
