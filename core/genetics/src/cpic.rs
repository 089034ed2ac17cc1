//! The bundled CPIC gene–drug pairs (`data/genetics/cpic_pairs.csv`, CC0, CPIC's export dated
//! [`CPIC_PAIRS_DATE`]) and, per gene, the key variants whose coverage a pharmacogenomics
//! answer reports (`data/genetics/key_variants.csv`). Sources in `data/SOURCES.md`.

use std::sync::OnceLock;

const PAIRS_CSV: &str = include_str!("../../data/genetics/cpic_pairs.csv");
const KEYS_CSV: &str = include_str!("../../data/genetics/key_variants.csv");

/// The "Date last updated" of the CPIC pairs export the table was taken from.
pub const CPIC_PAIRS_DATE: &str = "2020-06-12";

/// One CPIC gene–drug pair.
///
/// ```
/// use answers_genetics::cpic::CpicPairs;
///
/// let p = CpicPairs::bundled().for_drug("Clopidogrel");
/// assert_eq!((p[0].gene.as_str(), p[0].level.as_str()), ("CYP2C19", "A"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The HGNC gene symbol.
    pub gene: String,
    /// The drug, as CPIC names it.
    pub drug: String,
    /// The CPIC level: `A`, `A/B`, `B`, `B/C`, `C`, `C/D` or `D`.
    pub level: String,
    /// The `PharmGKB` level of evidence, if CPIC lists one.
    pub pharmgkb_level: Option<String>,
    /// What the FDA label says about pharmacogenomic testing, if anything.
    pub fda_label: Option<String>,
}

/// One key variant of a gene: an rsid that defines (part of) a CPIC-relevant allele.
///
/// ```
/// use answers_genetics::cpic::CpicPairs;
///
/// let keys = CpicPairs::bundled().key_variants("TPMT");
/// assert!(keys.iter().any(|k| k.rsid == "rs1142345" && k.allele == "*3C"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyVariant {
    /// The gene.
    pub gene: String,
    /// The dbSNP id.
    pub rsid: String,
    /// The allele (or variant name) it defines.
    pub allele: String,
    /// The change it makes, as the source lists it.
    pub change: String,
}

/// The bundled pairs and key variants.
#[derive(Debug, Clone, Default)]
pub struct CpicPairs {
    pairs: Vec<Pair>,
    keys: Vec<KeyVariant>,
}

impl CpicPairs {
    /// The bundled table, parsed once.
    ///
    /// # Panics
    /// If a bundled file does not parse; the test suite loads them.
    ///
    /// ```
    /// let t = answers_genetics::cpic::CpicPairs::bundled();
    /// assert!(t.pairs().len() > 300);
    /// ```
    #[must_use]
    pub fn bundled() -> &'static CpicPairs {
        static TABLE: OnceLock<CpicPairs> = OnceLock::new();
        TABLE.get_or_init(|| {
            CpicPairs::parse(PAIRS_CSV, KEYS_CSV).expect("the bundled CPIC files parse (tested)")
        })
    }

    fn parse(pairs: &str, keys: &str) -> Result<CpicPairs, String> {
        let header = ["gene", "drug", "cpic_level", "pharmgkb_level", "fda_label"];
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        let pairs = answers_tables::read("genetics/cpic_pairs.csv", pairs, &header)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|r| Pair {
                gene: r.fields[0].clone(),
                drug: r.fields[1].clone(),
                level: r.fields[2].clone(),
                pharmgkb_level: opt(&r.fields[3]),
                fda_label: opt(&r.fields[4]),
            })
            .collect();
        let keys = answers_tables::read(
            "genetics/key_variants.csv",
            keys,
            &["gene", "rsid", "allele", "change"],
        )
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|r| KeyVariant {
            gene: r.fields[0].clone(),
            rsid: r.fields[1].clone(),
            allele: r.fields[2].clone(),
            change: r.fields[3].clone(),
        })
        .collect();
        Ok(CpicPairs { pairs, keys })
    }

    /// Every pair, in CPIC's order (by level, then drug).
    #[must_use]
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// The pairs of `drug` (case-insensitive, surrounding space ignored).
    #[must_use]
    pub fn for_drug(&self, drug: &str) -> Vec<&Pair> {
        let drug = drug.trim();
        self.pairs
            .iter()
            .filter(|p| p.drug.eq_ignore_ascii_case(drug))
            .collect()
    }

    /// The CPIC drug whose name a recorded drug name is or contains as whole words, ignoring
    /// case (`Metoprolol tartrate` is `metoprolol`); the longest when several are, `None` when
    /// none is.
    ///
    /// ```
    /// let t = answers_genetics::cpic::CpicPairs::bundled();
    /// assert_eq!(t.drug_named_in("Metoprolol tartrate 25 mg"), Some("metoprolol"));
    /// assert_eq!(t.drug_named_in("CLOPIDOGREL"), Some("clopidogrel"));
    /// assert_eq!(t.drug_named_in("Metoprololx"), None);
    /// assert_eq!(t.drug_named_in("Vitamin D3"), None);
    /// ```
    #[must_use]
    pub fn drug_named_in(&self, name: &str) -> Option<&str> {
        let name = name.to_lowercase();
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let within = |drug: &str| {
            name.match_indices(drug).any(|(at, _)| {
                !word(name[..at].chars().next_back())
                    && !word(name[at + drug.len()..].chars().next())
            })
        };
        self.pairs
            .iter()
            .map(|p| p.drug.as_str())
            .filter(|d| !d.is_empty() && within(&d.to_lowercase()))
            .max_by_key(|d| d.len())
    }

    /// The pairs of `gene` (case-insensitive).
    #[must_use]
    pub fn for_gene(&self, gene: &str) -> Vec<&Pair> {
        let gene = gene.trim();
        self.pairs
            .iter()
            .filter(|p| p.gene.eq_ignore_ascii_case(gene))
            .collect()
    }

    /// The key variants of `gene` (case-insensitive); empty when none are shipped (HLA genes,
    /// G6PD, and the genes below level B).
    #[must_use]
    pub fn key_variants(&self, gene: &str) -> Vec<&KeyVariant> {
        let gene = gene.trim();
        self.keys
            .iter()
            .filter(|k| k.gene.eq_ignore_ascii_case(gene))
            .collect()
    }

    /// Every key variant.
    #[must_use]
    pub fn all_key_variants(&self) -> &[KeyVariant] {
        &self.keys
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_pairs_export_is_dated() {
        assert_eq!(super::CPIC_PAIRS_DATE, "2020-06-12");
    }
}
