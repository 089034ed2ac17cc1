//! `query_pharmacogenomics(drugs | genes)`: the CPIC gene–drug pairs asked for, with their CPIC
//! level, checked against the subject's genotype calls. With neither, the drugs checked are
//! those of the subject's active medication plans, as the original implementation does: each
//! plan's recorded name is matched to the CPIC generic name it contains
//! ([`CpicPairs::drug_named_in`]).
//!
//! The tables:
//! - `checked` (only with neither `drugs` nor `genes`): `medication, cpic_drug`, each active
//!   plan's drug as recorded and the CPIC drug it was checked as (empty when none matched);
//! - `pairs`: `gene, drug, cpic_level, pharmgkb_level, fda_label, coverage, key_variants_typed`,
//!   where `coverage` is `full` (every key variant of the gene has a call), `partial` (some do)
//!   or `absent` (none do, or the bundled table has no key variants for the gene: HLA genes,
//!   G6PD and most genes below level B);
//! - `coverage`: `gene, rsid, allele, change, genotype, call` for each key variant of each gene
//!   in `pairs`;
//! - `unmatched`: `name, given_as`, every name that matched no pair (`drugs`, `genes`, or
//!   `active_plan`), as the original lists them.
//!
//! Coverage that is not full is not a normal result: the answer is `partial` and carries
//! [`GeneticsAssumption::CoverageIncomplete`].
//! No row infers a star allele, a phenotype or a dose.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::args::genetics::QUERY_PHARMACOGENOMICS;
use crate::envelope::Envelope;
use crate::envelope::assumption::{Assumption, GeneticsAssumption, PharmacogenomicsAssumption};
use crate::envelope::table::{Cell, Table};
use crate::fault::{ToolError, guarded};
use crate::genetics::base;
use crate::store::{PlanStatus, Store, Subject};
use crate::tool::ToolId;
use crate::window::Window;
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
/// use answers_protocol::{Assumption, Status, GeneticsAssumption};
/// use serde_json::json;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// let env = query_pharmacogenomics(&store, &you, &json!({"drugs": ["clopidogrel"]}));
/// assert_eq!(env.status(), Status::Partial);
/// assert!(env.assumptions().contains(&Assumption::Genetics(GeneticsAssumption::NoGenotypeSet)));
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn query_pharmacogenomics(store: &Store, subject: &Subject, args: &Value) -> Envelope {
    let valid = match QUERY_PHARMACOGENOMICS.validate(args) {
        Ok(v) => v,
        Err(refusal) => return refusal,
    };
    let drugs = valid.text_list("drugs").map(<[String]>::to_vec);
    let genes = valid.text_list("genes").map(<[String]>::to_vec);
    guarded(ToolId::QueryPharmacogenomics, Vec::new, || {
        let table = CpicPairs::bundled();
        let mut asked = Asked::default();
        match (drugs, genes) {
            (Some(drugs), _) => {
                for d in &drugs {
                    asked.add(table.for_drug(d), d, "drugs");
                }
            }
            (None, Some(genes)) => {
                for g in &genes {
                    asked.add(table.for_gene(g), g, "genes");
                }
            }
            (None, None) => asked.active_plans(store, subject)?,
        }
        answer(store, subject, &asked)
    })
}

/// What a call checks: the pairs found, the names that found none, and with neither `drugs`
/// nor `genes` the active plans' drugs.
#[derive(Default)]
struct Asked {
    pairs: Vec<&'static Pair>,
    unmatched: Vec<(String, &'static str)>,
    /// `Some` when the active plans were checked: each plan's name and its CPIC drug.
    plans: Option<Vec<(String, Option<&'static str>)>>,
}

impl Asked {
    /// Adds `found`, the pairs of `name`, or `name` to the unmatched.
    fn add(&mut self, found: Vec<&'static Pair>, name: &str, given_as: &'static str) {
        if found.is_empty() {
            self.unmatched.push((name.to_owned(), given_as));
        }
        for p in found {
            if !self.pairs.contains(&p) {
                self.pairs.push(p);
            }
        }
    }

    /// The drugs of `subject`'s active plans, by the CPIC name each recorded name contains.
    fn active_plans(&mut self, store: &Store, subject: &Subject) -> Result<(), ToolError> {
        let table = CpicPairs::bundled();
        let mut checked = Vec::new();
        for plan in store.plans_in_effect(&subject.id, &Window::ALL_RECORDED)? {
            if plan.status != PlanStatus::Active {
                continue;
            }
            let drug = table.drug_named_in(&plan.name);
            match drug {
                Some(d) => self.add(table.for_drug(d), d, "active_plan"),
                None => self.unmatched.push((plan.name.clone(), "active_plan")),
            }
            checked.push((plan.name, drug));
        }
        self.plans = Some(checked);
        Ok(())
    }
}

fn answer(store: &Store, subject: &Subject, asked: &Asked) -> Result<Envelope, ToolError> {
    let table = CpicPairs::bundled();
    let malformed = |_| ToolError::Malformed {
        table: "genotype_call",
    };
    let mut env = base(subject)
        .with_assumption(Assumption::Pharmacogenomics(
            PharmacogenomicsAssumption::CpicPairsVersion,
        ))
        .with_assumption(Assumption::Genetics(GeneticsAssumption::GenotypesAsTyped));
    if let Some(plans) = &asked.plans {
        env = env.with_assumption(if plans.is_empty() {
            Assumption::Pharmacogenomics(PharmacogenomicsAssumption::PgxNoActivePlan)
        } else {
            Assumption::Pharmacogenomics(PharmacogenomicsAssumption::PgxActivePlans)
        });
        if !plans.is_empty() {
            let mut checked = Table::new("checked", ["medication", "cpic_drug"]);
            for (name, drug) in plans {
                checked
                    .push_row([Cell::from(name.as_str()), Cell::from(*drug)])
                    .map_err(malformed)?;
            }
            env = env.with_table(checked);
        }
    }
    let unmatched = if asked.unmatched.is_empty() {
        None
    } else {
        let mut t = Table::new("unmatched", ["name", "given_as"]);
        for (name, given_as) in &asked.unmatched {
            t.push_row([Cell::from(name.as_str()), Cell::from(*given_as)])
                .map_err(malformed)?;
        }
        Some(t)
    };
    let pairs = &asked.pairs;
    if pairs.is_empty() {
        if let Some(t) = unmatched {
            env = env
                .with_table(t)
                .with_assumption(Assumption::Pharmacogenomics(
                    PharmacogenomicsAssumption::PgxUnmatched,
                ));
        }
        if asked.plans.as_ref().is_some_and(Vec::is_empty) {
            return Ok(env);
        }
        return Ok(env.with_assumption(Assumption::Pharmacogenomics(
            PharmacogenomicsAssumption::NoCpicPair,
        )));
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
    if let Some(t) = unmatched {
        env = env
            .with_table(t)
            .with_assumption(Assumption::Pharmacogenomics(
                PharmacogenomicsAssumption::PgxUnmatched,
            ));
    }
    if set.is_none() {
        env = env.with_assumption(Assumption::Genetics(GeneticsAssumption::NoGenotypeSet));
    }
    if no_keys {
        env = env.with_assumption(Assumption::Genetics(
            GeneticsAssumption::ArraysMissStructural,
        ));
    }
    if incomplete {
        env = env
            .with_assumption(Assumption::Genetics(GeneticsAssumption::CoverageIncomplete))
            .with_assumption(Assumption::Genetics(GeneticsAssumption::NotTypedNotAbsent))
            .partial();
    }
    Ok(env)
}
