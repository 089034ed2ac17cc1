//! The genetics tools: the importer, build choice, region and gene queries, pharmacogenomic
//! coverage, gating facts, refusals and faults.
//!
//! - `import`: the importer (both layouts, malformed lines, no-calls) and the CLI command;
//! - `query`: `query_genetic_data` (build choice, regions, genes, gating, refusals, faults);
//! - `pgx`: `query_pharmacogenomics` coverage and the bundled tables' integrity.

mod import;
mod pgx;
mod query;

use answers_demo::{self as demo, SeedOptions};
use answers_protocol::{Cell, Envelope, Table, render_compact, render_rest};
use answers_store::Subject;

pub(super) struct Seeded {
    /// On a file, so the fault tests can break it from outside.
    pub(super) store: crate::raw::FileStore,
    pub(super) you: Subject,
    pub(super) mom: Subject,
}

pub(super) fn seeded() -> Seeded {
    let mut store = crate::raw::FileStore::new();
    demo::seed(&mut store, &SeedOptions::default()).unwrap();
    let you = store.subject_by_handle("you").unwrap().unwrap();
    let mom = store.subject_by_handle("mom").unwrap().unwrap();
    Seeded { store, you, mom }
}

pub(super) fn table<'a>(env: &'a Envelope, name: &str) -> &'a Table {
    env.data()
        .iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no table {name}"))
}

/// The cells of column `col` of table `name`.
pub(super) fn column(env: &Envelope, name: &str, col: &str) -> Vec<Cell> {
    let t = table(env, name);
    let i = t.columns().iter().position(|c| c == col).unwrap();
    t.rows().iter().map(|r| r[i].clone()).collect()
}

/// The row of `rsid` in table `name`, as column → cell.
pub(super) fn row_of(
    env: &Envelope,
    name: &str,
    rsid: &str,
) -> std::collections::BTreeMap<String, Cell> {
    let t = table(env, name);
    let i = t.columns().iter().position(|c| c == "rsid").unwrap();
    let r = t
        .rows()
        .iter()
        .find(|r| r[i] == Cell::from(rsid))
        .unwrap_or_else(|| panic!("no row for {rsid}"));
    t.columns().iter().cloned().zip(r.iter().cloned()).collect()
}

pub(super) fn everything(env: &Envelope) -> String {
    format!("{}\n{}\n{env:?}", render_compact(env), render_rest(env))
}
