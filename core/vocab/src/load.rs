//! Building a [`Vocabulary`] from the data files, with every cross-reference checked: a
//! synonym, a unit or a molar mass for a code the tables do not hold is an error, not a
//! silently dead row.

use std::collections::{BTreeMap, HashMap};

use super::{CodeRef, CodeSystem, VocabEntry, Vocabulary, fold};
use answers_tables::{self as csv, CsvError, Record};

/// The text of each data file.
pub(super) struct Texts<'a> {
    pub(super) loinc: &'a str,
    pub(super) loinc_units: &'a str,
    pub(super) icpc: &'a str,
    pub(super) synonyms: &'a str,
    pub(super) molar_mass: &'a str,
    pub(super) ucum_units: &'a str,
}

/// The files compiled into the binary.
const BUNDLED: Texts<'static> = Texts {
    loinc: include_str!("../../data/loinc.csv"),
    loinc_units: include_str!("../../data/loinc_units.csv"),
    icpc: include_str!("../../data/icpc2.csv"),
    synonyms: include_str!("../../data/synonyms.csv"),
    molar_mass: include_str!("../../data/molar_mass.csv"),
    ucum_units: include_str!("../../data/ucum_units.csv"),
};

/// Why the data files do not make a vocabulary. Names the file and line, never a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LoadError {
    /// A file is not well-formed CSV with the expected header.
    #[error(transparent)]
    Csv(#[from] CsvError),
    /// A row is invalid: an unknown code or code system, a duplicate code, a bad number.
    #[error("{file}:{line}: {problem}")]
    Row {
        /// The data file.
        file: &'static str,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        problem: &'static str,
    },
}

/// The bundled vocabulary.
pub(super) fn bundled() -> Result<Vocabulary, LoadError> {
    build(&BUNDLED)
}

/// A vocabulary from the given file texts.
pub(super) fn build(texts: &Texts<'_>) -> Result<Vocabulary, LoadError> {
    let mut entries = BTreeMap::new();
    let header = [
        "LOINC_NUM",
        "LONG_COMMON_NAME",
        "COMPONENT",
        "PROPERTY",
        "SYSTEM",
        "SCALE_TYP",
        "CLASS",
    ];
    for r in csv::read("loinc.csv", texts.loinc, &header)? {
        add(&mut entries, "loinc.csv", &r, CodeSystem::Loinc)?;
    }
    for r in csv::read("icpc2.csv", texts.icpc, &["code", "title"])? {
        add(&mut entries, "icpc2.csv", &r, CodeSystem::Icpc)?;
    }

    let mut units: HashMap<String, String> = HashMap::new();
    for r in csv::read("ucum_units.csv", texts.ucum_units, &["input", "canonical"])? {
        let [input, canonical] = [&r.fields[0], &r.fields[1]];
        if units.insert(input.clone(), canonical.clone()).is_some() {
            return Err(row("ucum_units.csv", &r, "duplicate spelling"));
        }
    }
    let header = ["loinc_num", "ucum_unit", "basis"];
    for r in csv::read("loinc_units.csv", texts.loinc_units, &header)? {
        let code = CodeRef::loinc(&r.fields[0]);
        let Some(entry) = entries.get_mut(&code) else {
            return Err(row("loinc_units.csv", &r, "unknown code"));
        };
        if !matches!(r.fields[2].as_str(), "sourced" | "project") {
            return Err(row("loinc_units.csv", &r, "unknown basis"));
        }
        if entry.unit.replace(r.fields[1].clone()).is_some() {
            return Err(row("loinc_units.csv", &r, "duplicate code"));
        }
    }
    // Every canonical spelling stands for itself.
    let canonical: Vec<String> = units
        .values()
        .cloned()
        .chain(entries.values().filter_map(|e| e.unit.clone()))
        .collect();
    for code in canonical {
        units.entry(code.clone()).or_insert(code);
    }
    let mut units_folded: HashMap<String, Option<String>> = HashMap::new();
    for (input, code) in &units {
        units_folded
            .entry(input.to_lowercase())
            .and_modify(|known| {
                if known.as_ref() != Some(code) {
                    *known = None;
                }
            })
            .or_insert_with(|| Some(code.clone()));
    }

    let mut keywords: HashMap<String, Vec<CodeRef>> = HashMap::new();
    for e in entries.values() {
        for key in [&e.code, &e.name] {
            keywords.entry(fold(key)).or_default().push(e.code_ref());
        }
    }
    let header = ["code_system", "code", "synonym", "lang"];
    for r in csv::read("synonyms.csv", texts.synonyms, &header)? {
        let system = match r.fields[0].as_str() {
            "loinc" => CodeSystem::Loinc,
            "icpc2" => CodeSystem::Icpc,
            _ => return Err(row("synonyms.csv", &r, "unknown code system")),
        };
        let code = CodeRef::new(system, &r.fields[1]);
        if !entries.contains_key(&code) {
            return Err(row("synonyms.csv", &r, "unknown code"));
        }
        if fold(&r.fields[2]).is_empty() || r.fields[3].is_empty() {
            return Err(row("synonyms.csv", &r, "empty synonym or language"));
        }
        keywords.entry(fold(&r.fields[2])).or_default().push(code);
    }
    for codes in keywords.values_mut() {
        codes.sort();
        codes.dedup();
    }

    let mut molar = HashMap::new();
    let header = ["loinc_num", "analyte", "molar_mass_g_per_mol", "source"];
    for r in csv::read("molar_mass.csv", texts.molar_mass, &header)? {
        if !entries.contains_key(&CodeRef::loinc(&r.fields[0])) {
            return Err(row("molar_mass.csv", &r, "unknown code"));
        }
        let mass: f64 = match r.fields[2].parse() {
            Ok(m) if f64::is_finite(m) && m > 0.0 => m,
            _ => return Err(row("molar_mass.csv", &r, "not a positive number")),
        };
        if molar.insert(r.fields[0].clone(), mass).is_some() {
            return Err(row("molar_mass.csv", &r, "duplicate code"));
        }
    }

    Ok(Vocabulary {
        entries,
        keywords,
        molar,
        units,
        units_folded,
    })
}

/// Adds the entry a `code, name, …` row describes.
fn add(
    entries: &mut BTreeMap<CodeRef, VocabEntry>,
    file: &'static str,
    r: &Record,
    system: CodeSystem,
) -> Result<(), LoadError> {
    let [code, name] = [&r.fields[0], &r.fields[1]];
    if code.trim().is_empty() || code.trim() != code || name.trim().is_empty() {
        return Err(row(file, r, "empty or padded code or name"));
    }
    let entry = VocabEntry {
        system,
        code: code.clone(),
        name: name.clone(),
        unit: None,
    };
    if entries.insert(entry.code_ref(), entry).is_some() {
        return Err(row(file, r, "duplicate code"));
    }
    Ok(())
}

fn row(file: &'static str, r: &Record, problem: &'static str) -> LoadError {
    LoadError::Row {
        file,
        line: r.line,
        problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOINC: &str = "LOINC_NUM,LONG_COMMON_NAME,COMPONENT,PROPERTY,SYSTEM,SCALE_TYP,CLASS\n\
                         1-8,Thing,,,,,\n";

    fn texts<'a>(synonyms: &'a str, molar: &'a str, units: &'a str) -> Texts<'a> {
        Texts {
            loinc: LOINC,
            loinc_units: units,
            icpc: "code,title\nA01,Pain general/multiple sites\n",
            synonyms,
            molar_mass: molar,
            ucum_units: "input,canonical\nmg/dl,mg/dL\nmM,mmol/L\nmm,mm\n",
        }
    }

    const SYN: &str = "code_system,code,synonym,lang\nicpc2,A01,ache,en\n";
    const MOLAR: &str = "loinc_num,analyte,molar_mass_g_per_mol,source\n1-8,thing,10.5,x\n";
    const UNITS: &str = "loinc_num,ucum_unit,basis\n1-8,mg/dL,sourced\n";

    #[test]
    fn builds_from_consistent_files() {
        let v = build(&texts(SYN, MOLAR, UNITS)).unwrap();
        assert_eq!(v.resolve("ACHE"), [CodeRef::icpc("A01")]);
        assert_eq!(v.resolve("thing"), [CodeRef::loinc("1-8")]);
        assert_eq!(v.molar_mass("1-8"), Some(10.5));
        assert_eq!(v.canonical_unit(&CodeRef::loinc("1-8")), Some("mg/dL"));
        assert_eq!(v.normalize_unit("mg/dL"), Some("mg/dL"));
        assert_eq!(v.normalize_unit("MG/DL"), Some("mg/dL"));
        assert_eq!(v.normalize_unit("MM"), None);
        assert_eq!(v.normalize_unit("mm"), Some("mm"));
    }

    #[test]
    fn refuses_rows_naming_codes_the_tables_lack() {
        let syn = "code_system,code,synonym,lang\nloinc,9-9,x,en\n";
        let err = build(&texts(syn, MOLAR, UNITS)).unwrap_err();
        assert_eq!(
            err,
            LoadError::Row {
                file: "synonyms.csv",
                line: 2,
                problem: "unknown code"
            }
        );
        let syn = "code_system,code,synonym,lang\nicpc3,A01,x,en\n";
        assert!(build(&texts(syn, MOLAR, UNITS)).is_err());
        let molar = "loinc_num,analyte,molar_mass_g_per_mol,source\n1-8,thing,-1,x\n";
        assert!(build(&texts(SYN, molar, UNITS)).is_err());
        let units = "loinc_num,ucum_unit,basis\n1-8,mg/dL,guessed\n";
        assert!(build(&texts(SYN, MOLAR, units)).is_err());
    }

    #[test]
    fn the_bundled_files_load() {
        bundled().unwrap();
    }
}
