//! `query_pharmacogenomics(drugs | genes)`: the CPIC gene–drug pairs asked for, with their CPIC
//! level, checked against the subject's genotype calls.
//!
//! Two tables:
//! - `pairs`: `gene, drug, cpic_level, pharmgkb_level, fda_label, coverage, key_variants_typed`,
//!   where `coverage` is `full` (every key variant of the gene has a call), `partial` (some do)
//!   or `absent` (none do, or the bundled table has no key variants for the gene: HLA genes,
//!   G6PD and most genes below level B);
//! - `coverage`: `gene, rsid, allele, change, genotype, call` for each key variant of each gene
//!   in `pairs`.
//!
//! Coverage that is not full is not a normal result: the answer is `partial` and carries
//! [`Assumption::CoverageIncomplete`]. No row infers a star allele, a phenotype or a dose.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::args::genetics::QUERY_PHARMACOGENOMICS;
use crate::envelope::Envelope;
use crate::envelope::assumption::Assumption;
use crate::envelope::table::{Cell, Table};
use crate::fault::{ToolError, guarded};
use crate::genetics::base;
use crate::store::{Store, Subject};
use crate::tool::ToolName;
use answers_genetics::cpic::{CpicPairs, Pair};
use answers_genetics::import::GenotypeCall;

/// How much of a gene's key variants the genotype file covers.
///
/// ```
/// use answers_tools::pharmacogenomics::Coverage;
///
/// assert_eq!(Coverage::of(3, 3), Coverage::Full);
/// assert_eq!(Coverage::of(1, 3), Coverage::Partial);
/// assert_eq!(Coverage::of(0, 3), Coverage::Absent);
/// assert_eq!(Coverage::of(0, 0), Coverage::Absent);
/// ```
#[derive(phi_macros::ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Coverage {
    /// Every key variant has a call.
    Full,
    /// Some key variants have a call.
    Partial,
    /// None has, or the gene has no key variants in the bundled table.
    Absent,
}

impl Coverage {
    /// The coverage of `typed` calls over `keys` key variants.
    #[must_use]
    pub fn of(typed: usize, keys: usize) -> Coverage {
        match (typed, keys) {
            (_, 0) | (0, _) => Coverage::Absent,
            (t, k) if t >= k => Coverage::Full,
            _ => Coverage::Partial,
        }
    }
}

/// Answers a pharmacogenomics call for `subject`. Never panics.
///
/// ```
/// use answers_store::Store;
/// use answers_tools::query_pharmacogenomics;
/// use answers_protocol::{Assumption, Status};
/// use serde_json::json;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// let env = query_pharmacogenomics(&store, &you, &json!({"drugs": ["clopidogrel"]}));
/// assert_eq!(env.status(), Status::Partial);
/// assert!(env.assumptions().contains(&Assumption::NoGenotypeSet));
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn query_pharmacogenomics(store: &Store, subject: &Subject, args: &Value) -> Envelope {
    let valid = match QUERY_PHARMACOGENOMICS.validate(args) {
        Ok(v) => v,
        Err(refusal) => return refusal,
    };
    let table = CpicPairs::bundled();
    let mut pairs: Vec<&Pair> = Vec::new();
    if let Some(drugs) = valid.text_list("drugs") {
        for d in drugs {
            pairs.extend(table.for_drug(d));
        }
    }
    if let Some(genes) = valid.text_list("genes") {
        for g in genes {
            pairs.extend(table.for_gene(g));
        }
    }
    guarded(ToolName::QueryPharmacogenomics, Vec::new, || {
        answer(store, subject, &pairs)
    })
}

fn answer(store: &Store, subject: &Subject, pairs: &[&Pair]) -> Result<Envelope, ToolError> {
    let table = CpicPairs::bundled();
    let mut env = base(subject)
        .with_assumption(Assumption::CpicPairsVersion)
        .with_assumption(Assumption::GenotypesAsTyped);
    if pairs.is_empty() {
        return Ok(env.with_assumption(Assumption::NoCpicPair));
    }
    let set = store.genotype_set(&subject.id)?;
    let genes: BTreeSet<&str> = pairs.iter().map(|p| p.gene.as_str()).collect();
    let key_rsids: Vec<&str> = genes
        .iter()
        .flat_map(|g| table.key_variants(g))
        .map(|k| k.rsid.as_str())
        .collect();
    let calls: HashMap<String, GenotypeCall> = match &set {
        Some(set) => store
            .genotype_calls(set, &key_rsids)?
            .into_iter()
            .map(|c| (c.rsid.clone(), c))
            .collect(),
        None => HashMap::new(),
    };

    let mut coverage_rows = Table::new(
        "coverage",
        ["gene", "rsid", "allele", "change", "genotype", "call"],
    );
    let mut per_gene: HashMap<&str, (usize, usize)> = HashMap::new();
    let malformed = |_| ToolError::Malformed {
        table: "genotype_call",
    };
    for gene in &genes {
        let keys = table.key_variants(gene);
        let mut typed = 0;
        for k in &keys {
            let call = calls.get(&k.rsid);
            let state = match call {
                None => "not_typed",
                Some(c) if c.genotype.is_none() => "no_call",
                Some(_) => {
                    typed += 1;
                    "called"
                }
            };
            coverage_rows
                .push_row([
                    Cell::from(k.gene.as_str()),
                    Cell::from(k.rsid.as_str()),
                    Cell::from(k.allele.as_str()),
                    Cell::from(k.change.as_str()),
                    Cell::from(call.and_then(|c| c.genotype.clone())),
                    Cell::from(state),
                ])
                .map_err(malformed)?;
        }
        per_gene.insert(gene, (typed, keys.len()));
    }

    let mut pair_rows = Table::new(
        "pairs",
        [
            "gene",
            "drug",
            "cpic_level",
            "pharmgkb_level",
            "fda_label",
            "coverage",
            "key_variants_typed",
        ],
    );
    let mut incomplete = false;
    let mut no_keys = false;
    for p in pairs {
        let (typed, keys) = per_gene.get(p.gene.as_str()).copied().unwrap_or((0, 0));
        let coverage = Coverage::of(typed, keys);
        incomplete |= coverage != Coverage::Full;
        no_keys |= keys == 0;
        pair_rows
            .push_row([
                Cell::from(p.gene.as_str()),
                Cell::from(p.drug.as_str()),
                Cell::from(p.level.as_str()),
                Cell::from(p.pharmgkb_level.clone()),
                Cell::from(p.fda_label.clone()),
                Cell::from(coverage.as_str()),
                Cell::from(format!("{typed}/{keys}")),
            ])
            .map_err(malformed)?;
    }
    env = env.with_table(pair_rows).with_table(coverage_rows);
    if set.is_none() {
        env = env.with_assumption(Assumption::NoGenotypeSet);
    }
    if no_keys {
        env = env.with_assumption(Assumption::ArraysMissStructural);
    }
    if incomplete {
        env = env
            .with_assumption(Assumption::CoverageIncomplete)
            .with_assumption(Assumption::NotTypedNotAbsent)
            .partial();
    }
    Ok(env)
}
