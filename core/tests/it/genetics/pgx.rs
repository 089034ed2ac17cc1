//! `query_pharmacogenomics`: full, partial and absent coverage, and the bundled tables.

use answers_genetics::sites::SiteIndex;
use answers_protocol::{
    Assumption, Cell, Envelope, GeneticsAssumption, PharmacogenomicsAssumption, Status,
    render_compact,
};
use answers_tools::query_pharmacogenomics;
use serde_json::{Value, json};

use super::{Seeded, column, row_of, seeded, table};
use crate::e2e::subject_argv;

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
    assert!(env.assumptions().contains(&Assumption::Pharmacogenomics(
        PharmacogenomicsAssumption::CpicPairsVersion
    )));
    assert!(!env.assumptions().contains(&Assumption::Genetics(
        GeneticsAssumption::CoverageIncomplete
    )));
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
    assert!(env.assumptions().contains(&Assumption::Genetics(
        GeneticsAssumption::CoverageIncomplete
    )));
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
    assert!(env.assumptions().contains(&Assumption::Genetics(
        GeneticsAssumption::ArraysMissStructural
    )));
    assert!(env.assumptions().contains(&Assumption::Genetics(
        GeneticsAssumption::CoverageIncomplete
    )));

    let you = query_pharmacogenomics(&s.store, &s.you, &json!({"drugs": ["clopidogrel"]}));
    assert_eq!(you.status(), Status::Partial);
    assert_eq!(coverage_of(&you, "CYP2C19"), Cell::from("absent"));
    assert!(
        you.assumptions()
            .contains(&Assumption::Genetics(GeneticsAssumption::NoGenotypeSet))
    );
}

#[test]
fn an_unknown_drug_is_an_answer_without_pairs() {
    let s = seeded();
    let env = pgx(&s, &json!({"drugs": ["not-a-drug"]}));
    assert_eq!(env.status(), Status::Ok);
    // The one table lists the name that matched nothing.
    assert_eq!(env.data().len(), 1);
    assert_eq!(
        column(&env, "unmatched", "name"),
        [Cell::from("not-a-drug")]
    );
    assert_eq!(column(&env, "unmatched", "given_as"), [Cell::from("drugs")]);
    assert!(env.assumptions().contains(&Assumption::Pharmacogenomics(
        PharmacogenomicsAssumption::NoCpicPair
    )));
    assert!(env.assumptions().contains(&Assumption::Pharmacogenomics(
        PharmacogenomicsAssumption::PgxUnmatched
    )));
}

#[test]
fn names_that_match_nothing_are_listed_beside_the_pairs_found() {
    let s = seeded();
    let env = pgx(&s, &json!({"drugs": ["clopidogrel", "not-a-drug"]}));
    assert!(column(&env, "pairs", "drug").contains(&Cell::from("clopidogrel")));
    assert_eq!(
        column(&env, "unmatched", "name"),
        [Cell::from("not-a-drug")]
    );
    let genes = pgx(&s, &json!({"genes": ["CYP2C19", "NOTAGENE1"]}));
    assert_eq!(
        column(&genes, "unmatched", "name"),
        [Cell::from("NOTAGENE1")]
    );
    assert_eq!(
        column(&genes, "unmatched", "given_as"),
        [Cell::from("genes")]
    );
    let all_found = pgx(&s, &json!({"drugs": ["clopidogrel"]}));
    assert!(all_found.data().iter().all(|t| t.name() != "unmatched"));
    assert!(
        !all_found
            .assumptions()
            .contains(&Assumption::Pharmacogenomics(
                PharmacogenomicsAssumption::PgxUnmatched
            ))
    );
}

#[test]
fn no_arguments_check_the_drugs_of_the_active_plans() {
    let s = seeded();
    // mom's active plans: Metoprolol tartrate and Atorvastatin; the other two are closed.
    let env = pgx(&s, &json!({}));
    assert_ne!(env.status(), Status::Error, "{}", render_compact(&env));
    assert!(env.assumptions().contains(&Assumption::Pharmacogenomics(
        PharmacogenomicsAssumption::PgxActivePlans
    )));
    let mut checked: Vec<(Cell, Cell)> = column(&env, "checked", "medication")
        .into_iter()
        .zip(column(&env, "checked", "cpic_drug"))
        .collect();
    checked.sort_by_key(|(m, _)| m.to_string());
    assert_eq!(
        checked,
        [
            (Cell::from("Atorvastatin"), Cell::from("atorvastatin")),
            (Cell::from("Metoprolol tartrate"), Cell::from("metoprolol")),
        ]
    );
    let drugs = column(&env, "pairs", "drug");
    assert!(
        drugs.contains(&Cell::from("metoprolol")) && drugs.contains(&Cell::from("atorvastatin"))
    );
    assert!(
        !drugs.contains(&Cell::from("hydrochlorothiazide")),
        "a stopped course is not checked"
    );
    let cyp2d6 = column(&env, "pairs", "gene").contains(&Cell::from("CYP2D6"));
    assert!(cyp2d6, "metoprolol's pair");
    assert!(env.data().iter().all(|t| t.name() != "unmatched"));

    // you has no plan: the answer says so, with no pairs.
    let you = query_pharmacogenomics(&s.store, &s.you, &json!({}));
    assert_eq!(you.status(), Status::Ok);
    assert!(you.data().is_empty());
    assert!(you.assumptions().contains(&Assumption::Pharmacogenomics(
        PharmacogenomicsAssumption::PgxNoActivePlan
    )));
    assert!(!env.assumptions().contains(&Assumption::Pharmacogenomics(
        PharmacogenomicsAssumption::PgxNoActivePlan
    )));
}

#[test]
fn an_active_plan_without_a_cpic_drug_is_checked_and_listed_unmatched() {
    use answers_store::{ClosedReason, Frequency, NewPlan, PlanStatus, Route, Store};
    let mut store = Store::open_in_memory().unwrap();
    let who = store.upsert_subject("s1", "you", "UTC").unwrap();
    let day = |d: &str| d.parse().unwrap();
    store
        .upsert_plans(&[
            NewPlan::active(
                "p1",
                "s1",
                "Lisinopril",
                Frequency::OnceDaily,
                Route::Oral,
                day("2026-01-01"),
            ),
            NewPlan::active(
                "p2",
                "s1",
                "Clopidogrel 75 mg",
                Frequency::OnceDaily,
                Route::Oral,
                day("2026-01-01"),
            ),
            NewPlan::active(
                "p3",
                "s1",
                "Warfarin",
                Frequency::OnceDaily,
                Route::Oral,
                day("2025-01-01"),
            )
            .closed(
                PlanStatus::Stopped,
                day("2025-06-01"),
                ClosedReason::Replaced,
            ),
        ])
        .unwrap();
    let env = query_pharmacogenomics(&store, &who, &json!({}));
    // In the order of their start, then id: p1 (Lisinopril), then p2.
    assert_eq!(
        column(&env, "checked", "cpic_drug"),
        [Cell::Null, Cell::from("clopidogrel")]
    );
    assert_eq!(
        column(&env, "unmatched", "name"),
        [Cell::from("Lisinopril")]
    );
    assert_eq!(
        column(&env, "unmatched", "given_as"),
        [Cell::from("active_plan")]
    );
    let drugs = column(&env, "pairs", "drug");
    assert!(!drugs.is_empty(), "the matched plan's drug is checked");
    assert!(
        drugs.iter().all(|d| *d == Cell::from("clopidogrel")),
        "{drugs:?}"
    );
    assert!(
        env.assumptions()
            .contains(&Assumption::Genetics(GeneticsAssumption::NoGenotypeSet))
    );
}

#[test]
fn the_cli_checks_the_active_plans_with_no_arguments() {
    let r = crate::e2e::seeded();
    let run = phi_testkit::Cmd::new(
        crate::e2e::BIN,
        &subject_argv(
            "query",
            crate::e2e::s(&r.db),
            "mom",
            &["query_pharmacogenomics", "--json"],
        ),
    )
    .run();
    run.assert_code(0);
    let answer = run.json();
    let checked: Vec<&str> = answer["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == "checked")
        .flat_map(|t| t["rows"].as_array().unwrap())
        .map(|r| r["cpic_drug"].as_str().unwrap())
        .collect();
    assert_eq!(checked.len(), 2, "{run}");
    assert!(
        checked.contains(&"metoprolol") && checked.contains(&"atorvastatin"),
        "{run}"
    );
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
