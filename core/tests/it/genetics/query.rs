//! `query_genetic_data`: build choice, regions, genes, gating, the row cap, refusals, faults.

use answers_demo::{self as demo, SeedOptions};
use answers_genetics::Build;
use answers_genetics::import::parse;
use answers_genetics::sites::SiteIndex;
use answers_protocol::{Assumption, Cell, ErrorKind, GeneticsAssumption, Status, render_compact};
use answers_store::{Store, Subject, has_genotypes};
use answers_tools::{query_genetic_data, query_pharmacogenomics};
use serde_json::json;

use super::{column, everything, row_of, seeded};

#[test]
fn only_mom_has_genotypes() {
    let s = seeded();
    assert!(has_genotypes(&s.store, &s.mom).unwrap());
    assert!(!has_genotypes(&s.store, &s.you).unwrap());
    let set = s.store.genotype_set(&s.mom.id).unwrap().unwrap();
    assert!((200..=400).contains(&set.call_count), "{}", set.call_count);
    assert_eq!(set.build, Build::Grch37);

    let env = query_genetic_data(&s.store, &s.you, &json!({"rsids": ["rs4244285"]}));
    assert_eq!(env.status(), Status::Partial);
    assert!(
        env.assumptions()
            .contains(&Assumption::Genetics(GeneticsAssumption::NoGenotypeSet))
    );
    assert!(env.data().is_empty());
}

#[test]
fn seeding_twice_imports_the_same_set() {
    let mut s = seeded();
    let before = s.store.genotype_set(&s.mom.id).unwrap().unwrap();
    demo::seed(&mut s.store, &SeedOptions::default()).unwrap();
    let after = s.store.genotype_set(&s.mom.id).unwrap().unwrap();
    assert_eq!(
        (before.call_count, before.no_call_count),
        (after.call_count, after.no_call_count)
    );
    let n: i64 = s
        .store
        .raw()
        .query_row("SELECT count(*) FROM genotype_call", [], |r| r.get(0))
        .unwrap();
    assert_eq!(usize::try_from(n).unwrap(), after.call_count);
}

#[test]
fn the_same_rsid_answers_each_build_with_its_own_position() {
    let s = seeded();
    let ask = |build: &str| {
        let env = query_genetic_data(
            &s.store,
            &s.mom,
            &json!({"rsids": ["rs4244285"], "build": build}),
        );
        assert_eq!(env.status(), Status::Ok, "{}", render_compact(&env));
        row_of(&env, "genotypes", "rs4244285")
    };
    let g37 = ask("GRCh37");
    let g38 = ask("GRCh38");
    let raw = ask("raw");
    assert_eq!(g37["position"], Cell::Int(96_541_616));
    assert_eq!(g38["position"], Cell::Int(94_781_859));
    // The demo file is written in GRCh37, so its own coordinates are the GRCh37 ones.
    assert_eq!(raw["position"], Cell::Int(96_541_616));
    assert_eq!(g38["build"], Cell::from("GRCh38"));
    assert_eq!(raw["build"], Cell::from("raw"));
    assert_eq!(g37["genotype"], g38["genotype"]);
    assert_eq!(g37["call"], Cell::from("called"));

    let default = query_genetic_data(&s.store, &s.mom, &json!({"rsids": ["rs4244285"]}));
    assert_eq!(
        row_of(&default, "genotypes", "rs4244285")["position"],
        g38["position"]
    );
    let raw_env = query_genetic_data(
        &s.store,
        &s.mom,
        &json!({"rsids": ["rs4244285"], "build": "raw"}),
    );
    assert!(
        raw_env
            .assumptions()
            .contains(&Assumption::Genetics(GeneticsAssumption::RawCoordinates))
    );
    // What the file's header says travels beside the rows, without being asserted.
    assert_eq!(
        column(&raw_env, "genotype_set", "header_build"),
        [Cell::from("GRCh37")]
    );
    assert_eq!(
        column(&raw_env, "genotype_set", "format"),
        [Cell::from("twenty_three_and_me")]
    );
    assert!(!raw_env.assumptions().contains(&Assumption::Genetics(
        GeneticsAssumption::PositionsFromSiteIndex
    )));
}

#[test]
fn an_rsid_the_file_lacks_is_not_typed_and_says_so() {
    let s = seeded();
    let env = query_genetic_data(&s.store, &s.mom, &json!({"rsids": ["rs75017182", "rs1"]}));
    let lacking = row_of(&env, "genotypes", "rs75017182");
    assert_eq!(lacking["call"], Cell::from("not_typed"));
    assert_eq!(lacking["genotype"], Cell::Null);
    assert_eq!(lacking["gene"], Cell::from("DPYD"));
    let unknown = row_of(&env, "genotypes", "rs1");
    assert_eq!(
        (unknown["gene"].clone(), unknown["position"].clone()),
        (Cell::Null, Cell::Null)
    );
    assert!(
        env.assumptions()
            .contains(&Assumption::Genetics(GeneticsAssumption::NotTypedNotAbsent))
    );
}

#[test]
fn a_region_answers_the_indexed_sites_in_the_asked_build() {
    let s = seeded();
    let (start, end) = (94_761_000_i64, 94_853_000_i64);
    let env = query_genetic_data(
        &s.store,
        &s.mom,
        &json!({"chromosome": "chr10", "start": start, "end": end, "build": "GRCh38"}),
    );
    assert_eq!(env.status(), Status::Ok);
    let positions = column(&env, "genotypes", "position");
    assert!(positions.len() >= 30, "{}", positions.len());
    for p in &positions {
        let Cell::Int(p) = p else { panic!("{p:?}") };
        assert!((start..=end).contains(p));
    }
    assert!(
        column(&env, "genotypes", "gene")
            .iter()
            .all(|g| *g == Cell::from("CYP2C19"))
    );

    // The same coordinates read as GRCh37 fall between genes: no CYP2C19 site is there.
    let shifted = query_genetic_data(
        &s.store,
        &s.mom,
        &json!({"chromosome": "10", "start": start, "end": end, "build": "GRCh37"}),
    );
    assert!(column(&shifted, "genotypes", "rsid").is_empty());

    // raw reads the file's own (GRCh37) coordinates, and only the rows the file has.
    let raw = query_genetic_data(
        &s.store,
        &s.mom,
        &json!({"chromosome": "10", "start": 96_521_000, "end": 96_613_000, "build": "raw"}),
    );
    let calls = column(&raw, "genotypes", "call");
    assert!(!calls.is_empty());
    assert!(calls.iter().all(|c| *c != Cell::from("not_typed")));
    assert!(column(&raw, "genotypes", "rsid").contains(&Cell::from("rs4244285")));
}

/// A record of one person whose genotype set is the file `text`, imported.
fn imported(text: &str) -> (Store, Subject) {
    let mut store = Store::open_in_memory().unwrap();
    let who = store.upsert_subject("subj-x", "x", "UTC").unwrap();
    store
        .replace_genotypes(&who.id, &parse(text.as_bytes()).unwrap())
        .unwrap();
    (store, who)
}

#[test]
fn raw_reaches_rows_the_index_cannot_place() {
    let text = "#AncestryDNA\nrsid\tchromosome\tposition\tallele1\tallele2\n\
                rs28736870\t25\t2700157\tC\tT\nrs9923231\t16\t31107689\tC\tC\n";
    let (store, who) = imported(text);
    let env = query_genetic_data(
        &store,
        &who,
        &json!({"chromosome": "25", "start": 2_700_000, "end": 2_800_000, "build": "raw"}),
    );
    assert_eq!(
        column(&env, "genotypes", "rsid"),
        [Cell::from("rs28736870")]
    );
    assert_eq!(column(&env, "genotypes", "chromosome"), [Cell::from("25")]);
    let refused = query_genetic_data(
        &store,
        &who,
        &json!({"chromosome": "25", "start": 1, "end": 9, "build": "GRCh38"}),
    );
    assert!(
        render_compact(&refused)
            .starts_with("error (invalid_arguments): chromosome: expected a chromosome")
    );
}

#[test]
fn a_gene_answers_every_indexed_site_of_the_gene() {
    let s = seeded();
    let env = query_genetic_data(
        &s.store,
        &s.mom,
        &json!({"gene": "cyp2c19", "build": "GRCh37"}),
    );
    let rsids = column(&env, "genotypes", "rsid");
    assert_eq!(rsids.len(), SiteIndex::bundled().by_gene("CYP2C19").len());
    assert!(rsids.contains(&Cell::from("rs12248560")));
    let calls = column(&env, "genotypes", "call");
    assert!(calls.contains(&Cell::from("called")));
}

#[test]
fn refusals_name_what_to_fix() {
    let s = seeded();
    let cases = [
        (
            json!({"kind": "genes", "gene": "CYP2C19"}),
            "kind: unknown parameter",
        ),
        (
            json!({}),
            "rsids: give rsids, a gene, or chromosome with start, end and build",
        ),
        (
            json!({"rsids": ["rs1"], "gene": "TPMT"}),
            "gene: give only one of rsids, gene, or a region",
        ),
        (
            json!({"chromosome": "10", "start": 5, "end": 9}),
            "build: required but missing",
        ),
        (
            json!({"chromosome": "10", "start": 5, "build": "raw"}),
            "end: required but missing",
        ),
        (
            json!({"chromosome": "10", "start": 5.5, "end": 9, "build": "raw"}),
            "start: expected a whole position",
        ),
        (
            json!({"chromosome": "10", "start": 9, "end": 5, "build": "raw"}),
            "end: before start",
        ),
        (
            json!({"gene": "TPMT", "build": "hg19"}),
            "build: expected one of GRCh37, GRCh38, raw",
        ),
    ];
    for (args, want) in cases {
        let env = query_genetic_data(&s.store, &s.mom, &args);
        assert_eq!(
            env.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{args}"
        );
        let text = render_compact(&env);
        assert!(
            text.starts_with(&format!("error (invalid_arguments): {want}")),
            "{text}"
        );
    }
    let pgx_cases = [
        (
            json!({"drugs": ["warfarin"], "genes": ["VKORC1"]}),
            "genes: give drugs or genes, not both",
        ),
        (json!({"drug": "warfarin"}), "drug: unknown parameter"),
    ];
    for (args, want) in pgx_cases {
        let env = query_pharmacogenomics(&s.store, &s.mom, &args);
        let text = render_compact(&env);
        assert!(
            text.starts_with(&format!("error (invalid_arguments): {want}")),
            "{text}"
        );
    }
}

#[test]
fn a_broken_store_is_an_error_envelope_without_the_driver_message() {
    let s = seeded();
    s.store
        .raw()
        .execute_batch("DROP TABLE genotype_call")
        .unwrap();
    for env in [
        query_genetic_data(&s.store, &s.mom, &json!({"gene": "CYP2C19"})),
        query_pharmacogenomics(&s.store, &s.mom, &json!({"drugs": ["warfarin"]})),
    ] {
        assert_eq!(env.status(), Status::Error);
        assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault));
        let text = everything(&env);
        assert!(text.contains("answers_store::StoreError"), "{text}");
        assert!(
            !text.contains("no such table") && !text.contains("genotype_call"),
            "{text}"
        );
    }
}

#[test]
fn the_surface_dispatches_both_tools() {
    let s = seeded();
    for tool in ["query_genetic_data", "query_pharmacogenomics"] {
        let env =
            answers_tools::registry::call(&s.store, &s.mom, tool, &json!({"genes": ["TPMT"]}));
        assert!(env.is_some(), "{tool}");
    }
}

#[test]
fn a_gene_outside_the_index_says_so() {
    let s = seeded();
    let env = query_genetic_data(&s.store, &s.mom, &json!({"gene": "BRCA1"}));
    assert_eq!(env.status(), Status::Ok);
    assert!(column(&env, "genotypes", "rsid").is_empty());
    assert!(
        env.assumptions()
            .contains(&Assumption::Genetics(GeneticsAssumption::GeneNotIndexed))
    );
    let known = query_genetic_data(&s.store, &s.mom, &json!({"gene": "TPMT"}));
    assert!(
        !known
            .assumptions()
            .contains(&Assumption::Genetics(GeneticsAssumption::GeneNotIndexed))
    );
}

#[test]
fn more_rows_than_the_cap_are_cut_and_say_so() {
    use answers_tools::genetics::GENOTYPE_ROW_CAP;
    use std::fmt::Write as _;
    let mut text = String::from("# build 37\n");
    for i in 1..=GENOTYPE_ROW_CAP + 20 {
        let _ = writeln!(text, "rs{i}\t2\t{}\tAA", 1000 + i);
    }
    let (store, who) = imported(&text);
    let env = query_genetic_data(
        &store,
        &who,
        &json!({"chromosome": "2", "start": 1, "end": 1_000_000, "build": "raw"}),
    );
    assert_eq!(env.status(), Status::Partial);
    assert!(env.meta().truncated);
    assert_eq!(column(&env, "genotypes", "rsid").len(), GENOTYPE_ROW_CAP);
    let small = query_genetic_data(
        &store,
        &who,
        &json!({"chromosome": "2", "start": 1, "end": 1100, "build": "raw"}),
    );
    assert!(!small.meta().truncated);
    assert_eq!(column(&small, "genotypes", "rsid").len(), 100);
}
