//! The bundled site index: each shipped rsid's gene, chromosome, and `GRCh37` and `GRCh38`
//! positions (`data/genetics/sites.csv`; sources in `data/SOURCES.md`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::Build;

const SITES_CSV: &str = include_str!("../../data/genetics/sites.csv");
const HEADER: &[&str] = &[
    "rsid",
    "gene",
    "chromosome",
    "grch37",
    "grch38",
    "grch37_ref",
    "alt",
];

/// One indexed site.
///
/// ```
/// use answers_genetics::{Build, sites::SiteIndex};
///
/// let s = SiteIndex::bundled().site("rs9923231").unwrap();
/// assert_eq!((s.gene.as_str(), s.chromosome.as_str()), ("VKORC1", "16"));
/// assert_eq!(s.position(Build::Grch37), Some(31_107_689));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The dbSNP id, `rs…`.
    pub rsid: String,
    /// The HGNC gene symbol the site belongs to.
    pub gene: String,
    /// The chromosome, `1`–`22`, `X`, `Y` or `MT`.
    pub chromosome: String,
    /// The 1-based `GRCh37` position.
    pub grch37: u64,
    /// The 1-based `GRCh38` position.
    pub grch38: u64,
    /// The `GRCh37` reference allele, on the forward strand (more than one base at an indel).
    pub grch37_ref: String,
    /// The other allele the site is known for, on the forward strand.
    pub alt: String,
}

impl Site {
    /// The position in `build`; `None` for [`Build::Raw`], which the index does not assert.
    #[must_use]
    pub fn position(&self, build: Build) -> Option<u64> {
        match build {
            Build::Grch37 => Some(self.grch37),
            Build::Grch38 => Some(self.grch38),
            Build::Raw => None,
        }
    }
}

/// The index of shipped sites, by rsid.
///
/// ```
/// use answers_genetics::{Build, sites::SiteIndex};
///
/// let index = SiteIndex::bundled();
/// assert!(index.len() >= 300);
/// assert!(index.by_gene("cyp2c19").iter().any(|s| s.rsid == "rs12248560"));
/// let hits = index.in_region(Build::Grch38, "10", 94_780_000, 94_782_000);
/// assert!(hits.iter().any(|s| s.rsid == "rs4244285"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct SiteIndex {
    by_rsid: BTreeMap<String, Site>,
}

impl SiteIndex {
    /// The bundled index, parsed once.
    ///
    /// # Panics
    /// If the bundled file does not parse; the test suite loads it, so a release cannot ship
    /// one that does not.
    #[must_use]
    pub fn bundled() -> &'static SiteIndex {
        static INDEX: OnceLock<SiteIndex> = OnceLock::new();
        INDEX.get_or_init(|| {
            SiteIndex::parse(SITES_CSV).expect("the bundled site index parses (tested)")
        })
    }

    /// Parses an index in the bundled format; the error names the line.
    pub(crate) fn parse(text: &str) -> Result<SiteIndex, String> {
        let records =
            answers_tables::read("genetics/sites.csv", text, HEADER).map_err(|e| e.to_string())?;
        let mut by_rsid = BTreeMap::new();
        for r in records {
            let [rsid, gene, chromosome, g37, g38, grch37_ref, alt] = &r.fields[..] else {
                return Err(format!("sites.csv:{}: width", r.line));
            };
            let pos = |s: &str| s.parse::<u64>().ok().filter(|p| *p > 0);
            let bases = |s: &str| !s.is_empty() && s.bytes().all(|b| b"ACGT".contains(&b));
            if !bases(grch37_ref) || !bases(alt) || grch37_ref == alt {
                return Err(format!("sites.csv:{}: alleles", r.line));
            }
            let (Some(grch37), Some(grch38)) = (pos(g37), pos(g38)) else {
                return Err(format!("sites.csv:{}: position", r.line));
            };
            let site = Site {
                rsid: rsid.clone(),
                gene: gene.clone(),
                chromosome: chromosome.clone(),
                grch37,
                grch38,
                grch37_ref: grch37_ref.clone(),
                alt: alt.clone(),
            };
            if by_rsid.insert(rsid.clone(), site).is_some() {
                return Err(format!("sites.csv:{}: repeated rsid", r.line));
            }
        }
        Ok(SiteIndex { by_rsid })
    }

    /// The site of `rsid` (case-insensitive `rs` prefix).
    #[must_use]
    pub fn site(&self, rsid: &str) -> Option<&Site> {
        self.by_rsid.get(&normalize_rsid(rsid)?)
    }

    /// Every site of `gene` (case-insensitive), in `GRCh38` order.
    #[must_use]
    pub fn by_gene(&self, gene: &str) -> Vec<&Site> {
        let mut sites: Vec<&Site> = self
            .by_rsid
            .values()
            .filter(|s| s.gene.eq_ignore_ascii_case(gene.trim()))
            .collect();
        sites.sort_by_key(|s| s.grch38);
        sites
    }

    /// Every site on `chromosome` whose `build` position is in `start..=end`, in position order.
    /// Empty for [`Build::Raw`]: the index asserts no raw coordinates.
    #[must_use]
    pub fn in_region(&self, build: Build, chromosome: &str, start: u64, end: u64) -> Vec<&Site> {
        let chromosome = normalize_chromosome(chromosome);
        let mut sites: Vec<&Site> = self
            .by_rsid
            .values()
            .filter(|s| Some(s.chromosome.as_str()) == chromosome.as_deref())
            .filter(|s| {
                s.position(build)
                    .is_some_and(|p| (start..=end).contains(&p))
            })
            .collect();
        sites.sort_by_key(|s| s.position(build));
        sites
    }

    /// Every gene with a site, sorted.
    #[must_use]
    pub fn genes(&self) -> Vec<&str> {
        let mut genes: Vec<&str> = self.by_rsid.values().map(|s| s.gene.as_str()).collect();
        genes.sort_unstable();
        genes.dedup();
        genes
    }

    /// Every site, by rsid.
    pub fn iter(&self) -> impl Iterator<Item = &Site> {
        self.by_rsid.values()
    }

    /// How many sites.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_rsid.len()
    }

    /// Whether the index has no sites.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_rsid.is_empty()
    }
}

/// `rs` + digits, lower-case prefix; `None` if it is not that shape.
///
/// ```
/// use answers_genetics::sites::normalize_rsid;
///
/// assert_eq!(normalize_rsid(" RS4244285 ").as_deref(), Some("rs4244285"));
/// assert_eq!(normalize_rsid("i7000001"), None);
/// ```
#[must_use]
pub fn normalize_rsid(rsid: &str) -> Option<String> {
    let t = rsid.trim();
    let digits = t.get(2..)?;
    let ok = t[..2].eq_ignore_ascii_case("rs")
        && !digits.is_empty()
        && digits.len() <= 12
        && digits.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| format!("rs{digits}"))
}

/// A chromosome name in the index's spelling (`1`–`22`, `X`, `Y`, `MT`), accepting a `chr`
/// prefix, lower case, `M`, and `AncestryDNA`'s numbers (`23` = X, `24` = Y, `26` = MT).
/// `None` for anything else, including `AncestryDNA`'s `25` (the pseudo-autosomal region, which
/// has no single-chromosome spelling).
///
/// ```
/// use answers_genetics::sites::normalize_chromosome;
///
/// assert_eq!(normalize_chromosome("chr10").as_deref(), Some("10"));
/// assert_eq!(normalize_chromosome("x").as_deref(), Some("X"));
/// assert_eq!(normalize_chromosome("23").as_deref(), Some("X"));
/// assert_eq!(normalize_chromosome("25"), None);
/// assert_eq!(normalize_chromosome("chr99"), None);
/// ```
#[must_use]
pub fn normalize_chromosome(chromosome: &str) -> Option<String> {
    let t = chromosome.trim();
    let t = match t.get(..3) {
        Some(p) if p.eq_ignore_ascii_case("chr") => &t[3..],
        _ => t,
    };
    let upper = t.to_ascii_uppercase();
    match upper.as_str() {
        "X" | "23" => Some("X".into()),
        "Y" | "24" => Some("Y".into()),
        "MT" | "M" | "26" => Some("MT".into()),
        n => match n.parse::<u8>() {
            Ok(k) if (1..=22).contains(&k) && !n.starts_with('0') => Some(k.to_string()),
            _ => None,
        },
    }
}
