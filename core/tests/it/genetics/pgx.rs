//! `query_pharmacogenomics`: full, partial and absent coverage, and the bundled tables.

use answers_genetics::sites::SiteIndex;
use answers_protocol::{Assumption, Cell, Envelope, Status, render_compact};
use answers_tools::query_pharmacogenomics;
use serde_json::{Value, json};

use super::{Seeded, column, row_of, seeded, table};

fn pgx(s: &Seeded, args: &Value) -> Envelope {
    query_pharmacogenomics(&s.store, &s.mom, args)
}

fn coverage_of(env: &Envelope, gene: &str) -> Cell {
    let t = table(env, "pairs");
    let g = t.columns().iter().position(|c| c == "gene").unwrap();
    let c = t.columns().iter().position(|c| c == "coverage").unwrap();
    t.rows()
        .iter()
        .find(|r| r[g] == Cell::from(gene))
        .map(|r| r[c].clone())
        .unwrap()
}

#[test]
fn full_coverage_is_an_ok_answer_with_the_level() {
    let s = seeded();
    let env = pgx(&s, &json!({"genes": ["CYP2C19"]}));
    assert_eq!(env.status(), Status::Ok, "{}", render_compact(&env));
    assert!(
        column(&env, "pairs", "coverage")
            .iter()
            .all(|c| *c == Cell::from("full"))
    );
    assert!(column(&env, "pairs", "drug").contains(&Cell::from("clopidogrel")));
    assert!(env.assumptions().contains(&Assumption::CpicPairsVersion));
    assert!(!env.assumptions().contains(&Assumption::CoverageIncomplete));
    assert!(
        column(&env, "coverage", "call")
            .iter()
            .all(|c| *c == Cell::from("called"))
    );

    // Clopidogrel pairs with CYP2C19 (level A, covered) and CES1 (level C/D, no key variants
    // shipped): one gene short of full, so the answer is partial.
    let env = pgx(&s, &json!({"drugs": ["Clopidogrel"]}));
    assert_eq!(coverage_of(&env, "CYP2C19"), Cell::from("full"));
    assert_eq!(coverage_of(&env, "CES1"), Cell::from("absent"));
    assert_eq!(env.status(), Status::Partial);
}

#[test]
fn partial_coverage_is_a_partial_answer_naming_the_missing_variant() {
    let s = seeded();
    let env = pgx(&s, &json!({"genes": ["DPYD"]}));
    assert_eq!(env.status(), Status::Partial);
    assert_eq!(coverage_of(&env, "DPYD"), Cell::from("partial"));
    assert!(env.assumptions().contains(&Assumption::CoverageIncomplete));
    assert_eq!(
        row_of(&env, "coverage", "rs75017182")["call"],
        Cell::from("not_typed")
    );
    assert_eq!(
        row_of(&env, "coverage", "rs3918290")["call"],
        Cell::from("called")
    );
}

#[test]
fn absent_coverage_is_a_partial_answer_with_its_reason() {
    let s = seeded();
    let env = pgx(&s, &json!({"drugs": ["abacavir"]}));
    assert_eq!(env.status(), Status::Partial);
    assert_eq!(coverage_of(&env, "HLA-B"), Cell::from("absent"));
    assert_eq!(
        column(&env, "pairs", "key_variants_typed"),
        [Cell::from("0/0")]
    );
    assert!(
        env.assumptions()
            .contains(&Assumption::ArraysMissStructural)
    );
    assert!(env.assumptions().contains(&Assumption::CoverageIncomplete));

    let you = query_pharmacogenomics(&s.store, &s.you, &json!({"drugs": ["clopidogrel"]}));
    assert_eq!(you.status(), Status::Partial);
    assert_eq!(coverage_of(&you, "CYP2C19"), Cell::from("absent"));
    assert!(you.assumptions().contains(&Assumption::NoGenotypeSet));
}

#[test]
fn an_unknown_drug_is_an_answer_without_pairs() {
    let s = seeded();
    let env = pgx(&s, &json!({"drugs": ["not-a-drug"]}));
    assert_eq!(env.status(), Status::Ok);
    assert!(env.data().is_empty());
    assert!(env.assumptions().contains(&Assumption::NoCpicPair));
}

#[test]
fn the_bundled_site_index_is_consistent_between_builds() {
    let index = SiteIndex::bundled();
    assert_eq!(index.len(), 400);
    // Within a gene the two assemblies differ by one offset; a mistyped position breaks it.
    for gene in index.genes() {
        let offsets: std::collections::BTreeSet<i128> = index
            .by_gene(gene)
            .iter()
            .map(|s| i128::from(s.grch37) - i128::from(s.grch38))
            .collect();
        assert_eq!(offsets.len(), 1, "{gene}: {offsets:?}");
    }
}

#[test]
fn every_key_variant_is_an_indexed_site_of_its_gene_and_every_pair_has_a_level() {
    use answers_genetics::cpic::CpicPairs;
    let cpic = CpicPairs::bundled();
    assert!(!cpic.all_key_variants().is_empty());
    for k in cpic.all_key_variants() {
        let site = SiteIndex::bundled()
            .site(&k.rsid)
            .unwrap_or_else(|| panic!("{}", k.rsid));
        assert_eq!(site.gene, k.gene, "{}", k.rsid);
    }
    let levels = ["A", "A/B", "B", "B/C", "C", "C/D", "D"];
    assert_eq!(cpic.pairs().len(), 377);
    assert!(
        cpic.pairs()
            .iter()
            .all(|p| levels.contains(&p.level.as_str()))
    );
    // Every gene with key variants has at least one CPIC pair.
    for k in cpic.all_key_variants() {
        assert!(!cpic.for_gene(&k.gene).is_empty(), "{}", k.gene);
    }
}
