//! The bundled vocabularies, parsed once from the CSV files in `core/data/` (see its README and
//! NOTICE files for what each holds and under which licence):
//!
//! - a verbatim LOINC subset (codes and long common names) for measured readings, with the
//!   project's canonical UCUM unit for each code kept in a separate file;
//! - a verbatim ICPC subset (codes and titles) for reported entries. The issue asks for ICPC-3;
//!   no ICPC-3 content could be verified, so the bundled subset is **ICPC-2**, under
//!   [`CodeSystem::Icpc`];
//! - the project's own synonyms (device catalogue names, names as lab reports print them, plain
//!   English and Chinese), in their own file, never mixed with the verbatim names;
//! - unit spellings mapped to UCUM codes, and molar masses for the analytes whose mass and
//!   molar units convert.
//!
//! ```
//! use answers_vocab::{CodeRef, Vocabulary};
//!
//! let vocab = Vocabulary::bundled();
//! // A symptom typed in Chinese and one asked about in English meet at one code.
//! assert_eq!(vocab.resolve("headache"), vocab.resolve("头疼"));
//! assert_eq!(vocab.resolve("headache"), [CodeRef::icpc("N01")]);
//! // A lab report's name reaches the LOINC code.
//! assert_eq!(vocab.resolve("Glycated Hemoglobin-HbA1c"), [CodeRef::loinc("4548-4")]);
//! assert_eq!(vocab.normalize_unit("mg/dl"), Some("mg/dL"));
//! ```

mod load;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::OnceLock;

use phi_macros::ClosedEnum;

/// The code systems a series can be coded on: the values of the `series.system` column.
///
/// ```
/// use answers_vocab::CodeSystem;
///
/// assert_eq!(CodeSystem::VARIANTS, ["loinc", "icpc"]);
/// assert_eq!("icpc".parse(), Ok(CodeSystem::Icpc));
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CodeSystem {
    /// LOINC: what was measured (readings).
    Loinc,
    /// ICPC: what the person reported (symptoms, diagnoses). The bundled subset is ICPC-2.
    Icpc,
}

/// A code in a code system: the identity every series carrying it shares, whatever name it was
/// recorded under.
///
/// ```
/// use answers_vocab::{CodeRef, CodeSystem};
///
/// let hr = CodeRef::loinc("8867-4");
/// assert_eq!(hr.system, CodeSystem::Loinc);
/// assert_eq!(hr.to_string(), "loinc:8867-4");
/// assert!(CodeRef::loinc("8867-4") < CodeRef::icpc("A03"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CodeRef {
    /// The code system.
    pub system: CodeSystem,
    /// The code, as the system writes it (`8867-4`, `N01`).
    pub code: String,
}

impl CodeRef {
    /// `code` in `system`.
    ///
    /// ```
    /// use answers_vocab::{CodeRef, CodeSystem};
    ///
    /// assert_eq!(CodeRef::new(CodeSystem::Icpc, "N01"), CodeRef::icpc("N01"));
    /// ```
    #[must_use]
    pub fn new(system: CodeSystem, code: &str) -> CodeRef {
        CodeRef {
            system,
            code: code.to_owned(),
        }
    }

    /// A LOINC code.
    ///
    /// ```
    /// assert_eq!(answers_vocab::CodeRef::loinc("29463-7").code, "29463-7");
    /// ```
    #[must_use]
    pub fn loinc(code: &str) -> CodeRef {
        CodeRef::new(CodeSystem::Loinc, code)
    }

    /// An ICPC code.
    ///
    /// ```
    /// assert_eq!(answers_vocab::CodeRef::icpc("R05").code, "R05");
    /// ```
    #[must_use]
    pub fn icpc(code: &str) -> CodeRef {
        CodeRef::new(CodeSystem::Icpc, code)
    }
}

impl fmt::Display for CodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.system.as_str(), self.code)
    }
}

/// What the vocabulary knows about a code: its official name (LOINC long common name or ICPC
/// title, verbatim) and the project's canonical UCUM unit for it, if it has one.
///
/// ```
/// use answers_vocab::{CodeRef, Vocabulary};
///
/// let e = Vocabulary::bundled().entry(&CodeRef::loinc("14771-0")).unwrap();
/// assert_eq!(e.name, "Fasting glucose [Moles/volume] in Serum or Plasma");
/// assert_eq!(e.unit.as_deref(), Some("mmol/L"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VocabEntry {
    /// The code system.
    pub system: CodeSystem,
    /// The code.
    pub code: String,
    /// The official name, verbatim.
    pub name: String,
    /// The canonical UCUM unit (the project's choice; see `core/data/README.md`).
    pub unit: Option<String>,
}

impl VocabEntry {
    /// The entry's code as a [`CodeRef`].
    ///
    /// ```
    /// use answers_vocab::{CodeRef, Vocabulary};
    ///
    /// let e = Vocabulary::bundled().entry(&CodeRef::icpc("N01")).unwrap();
    /// assert_eq!(e.code_ref(), CodeRef::icpc("N01"));
    /// ```
    #[must_use]
    pub fn code_ref(&self) -> CodeRef {
        CodeRef::new(self.system, &self.code)
    }
}

/// The vocabularies, indexed for lookup. [`Vocabulary::bundled`] is the one built into the
/// binary.
///
/// ```
/// use answers_vocab::Vocabulary;
///
/// let v = Vocabulary::bundled();
/// let fbg = &v.resolve("空腹血糖")[..];
/// assert!(fbg.iter().any(|c| v.canonical_unit(c) == Some("mmol/L")));
/// ```
#[derive(Debug)]
pub struct Vocabulary {
    entries: BTreeMap<CodeRef, VocabEntry>,
    /// Folded keyword (code, official name or synonym) → the codes it reaches, sorted.
    keywords: HashMap<String, Vec<CodeRef>>,
    /// LOINC code → molar mass in g/mol.
    molar: HashMap<String, f64>,
    /// Unit spelling → UCUM code.
    units: HashMap<String, String>,
    /// Lower-cased spelling → UCUM code, or `None` where two spellings disagree (`mM`, `mm`).
    units_folded: HashMap<String, Option<String>>,
}

impl Vocabulary {
    /// The vocabulary bundled into the binary, parsed on first use.
    ///
    /// ```
    /// let v = answers_vocab::Vocabulary::bundled();
    /// assert!(v.entries().count() >= 50);
    /// ```
    #[must_use]
    pub fn bundled() -> &'static Vocabulary {
        static BUNDLED: OnceLock<Vocabulary> = OnceLock::new();
        // The data are compiled in and parsed by the tests: a failure here is a build defect.
        BUNDLED.get_or_init(|| load::bundled().expect("the bundled vocabulary parses"))
    }

    /// Every code a keyword reaches: an exact code, an official name (LOINC long common name,
    /// ICPC title) or a synonym in any language. Case-insensitive, trimmed, inner whitespace
    /// collapsed; sorted; empty when nothing matches.
    ///
    /// ```
    /// use answers_vocab::{CodeRef, Vocabulary};
    ///
    /// let v = Vocabulary::bundled();
    /// assert_eq!(v.resolve("  HEART   rate "), [CodeRef::loinc("8867-4")]);
    /// assert_eq!(v.resolve("dailyRestingHeartRates"), [CodeRef::loinc("40443-4")]);
    /// assert_eq!(v.resolve("n01"), [CodeRef::icpc("N01")]);
    /// assert!(v.resolve("blood pressure").contains(&CodeRef::loinc("8480-6")));
    /// assert!(v.resolve("unobtainium").is_empty());
    /// ```
    #[must_use]
    pub fn resolve(&self, keyword: &str) -> Vec<CodeRef> {
        self.keywords
            .get(&fold(keyword))
            .cloned()
            .unwrap_or_default()
    }

    /// Every search key (a code, an official name or a synonym, folded: trimmed, inner white
    /// space collapsed, lower-case) with the codes it reaches, in no particular order.
    ///
    /// ```
    /// use answers_vocab::{CodeRef, Vocabulary};
    ///
    /// let vocab = Vocabulary::bundled();
    /// let (key, codes) = vocab.keywords().find(|(k, _)| *k == "头疼").unwrap();
    /// assert_eq!((key, codes), ("头疼", &[CodeRef::icpc("N01")][..]));
    /// ```
    pub fn keywords(&self) -> impl Iterator<Item = (&str, &[CodeRef])> {
        self.keywords
            .iter()
            .map(|(k, codes)| (k.as_str(), codes.as_slice()))
    }

    /// The entry for `code`, if the vocabulary has it.
    ///
    /// ```
    /// use answers_vocab::{CodeRef, Vocabulary};
    ///
    /// let v = Vocabulary::bundled();
    /// assert_eq!(v.entry(&CodeRef::icpc("N01")).unwrap().name, "Headache");
    /// assert!(v.entry(&CodeRef::loinc("N01")).is_none());
    /// ```
    #[must_use]
    pub fn entry(&self, code: &CodeRef) -> Option<&VocabEntry> {
        self.entries.get(code)
    }

    /// Every entry, LOINC first, each system in code order.
    ///
    /// ```
    /// use answers_vocab::{CodeSystem, Vocabulary};
    ///
    /// let icpc = Vocabulary::bundled().entries().filter(|e| e.system == CodeSystem::Icpc);
    /// assert_eq!(icpc.count(), 12);
    /// ```
    pub fn entries(&self) -> impl Iterator<Item = &VocabEntry> {
        self.entries.values()
    }

    /// The canonical UCUM unit of `code`, if it has one.
    ///
    /// ```
    /// use answers_vocab::{CodeRef, Vocabulary};
    ///
    /// let v = Vocabulary::bundled();
    /// assert_eq!(v.canonical_unit(&CodeRef::loinc("8480-6")), Some("mm[Hg]"));
    /// assert_eq!(v.canonical_unit(&CodeRef::icpc("N01")), None);
    /// ```
    #[must_use]
    pub fn canonical_unit(&self, code: &CodeRef) -> Option<&str> {
        self.entries.get(code)?.unit.as_deref()
    }

    /// The molar mass (g/mol) of the analyte a LOINC code measures, for mass ↔ molar
    /// conversion: mg/dL = mmol/L × g/mol ÷ 10.
    ///
    /// ```
    /// let v = answers_vocab::Vocabulary::bundled();
    /// assert_eq!(v.molar_mass("14771-0"), Some(180.156));
    /// assert_eq!(v.molar_mass("8867-4"), None);
    /// ```
    #[must_use]
    pub fn molar_mass(&self, loinc: &str) -> Option<f64> {
        self.molar.get(loinc.trim()).copied()
    }

    /// The UCUM code for a unit as printed: a known spelling, or one that differs from a known
    /// spelling only in case where that is unambiguous (`MG/DL`; never `MM`, which could be
    /// millimolar or millimetres). `None` for a spelling the vocabulary does not know.
    ///
    /// ```
    /// let v = answers_vocab::Vocabulary::bundled();
    /// assert_eq!(v.normalize_unit("bpm"), Some("/min"));
    /// assert_eq!(v.normalize_unit(" mmHg "), Some("mm[Hg]"));
    /// assert_eq!(v.normalize_unit("Mg/Dl"), Some("mg/dL"));
    /// assert_eq!(v.normalize_unit("MM"), None);
    /// assert_eq!(v.normalize_unit("furlongs"), None);
    /// ```
    #[must_use]
    pub fn normalize_unit(&self, unit: &str) -> Option<&str> {
        let unit = unit.trim();
        if let Some(code) = self.units.get(unit) {
            return Some(code);
        }
        self.units_folded.get(&unit.to_lowercase())?.as_deref()
    }
}

/// A keyword as the index holds it: trimmed, inner whitespace collapsed to one space,
/// lower-cased.
#[must_use]
pub fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_trims_collapses_and_lowercases() {
        assert_eq!(fold("  Heart \t RATE \n"), "heart rate");
        assert_eq!(fold("头疼"), "头疼");
        assert_eq!(fold("   "), "");
    }

    #[test]
    fn an_empty_keyword_reaches_nothing() {
        assert!(Vocabulary::bundled().resolve("").is_empty());
        assert!(Vocabulary::bundled().resolve("  ").is_empty());
    }
}
