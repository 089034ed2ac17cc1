//! `query_genetic_data(rsids | gene | chromosome+start+end+build)`: the subject's genotype calls.
//!
//! - `rsids`: one row per rsid asked, `not_typed` where the file has none;
//! - `gene`: one row per indexed site of the gene;
//! - a region in `GRCh37` or `GRCh38`: one row per indexed site whose position in that build is
//!   in the region; in `raw`: one row per call of the file whose own coordinates are in it
//!   (the only path to rows the index does not hold, such as `AncestryDNA`'s PAR rows, `25`).
//!
//! Rows: `rsid, gene, chromosome, position, build, genotype, call` (`called`, `no_call`,
//! `not_typed`); a second table, `genotype_set`, says what the file is (`format`,
//! `header_build`, `calls`, `no_calls`). Positions are in the asked build (`GRCh38` by default);
//! for `GRCh37` and `GRCh38` they come from the bundled site index, for `raw` from the file. No row
//! interprets a genotype. The tool never raises: a store fault or a panic is an error envelope.

use std::collections::HashMap;

use serde_json::Value;

use crate::args::genetics::{QUERY_GENETIC_DATA, position};
use crate::envelope::Envelope;
use crate::envelope::assumption::{Assumption, GeneticsAssumption};
use crate::envelope::error::ArgProblem;
use crate::envelope::kinds::WindowSemantics;
use crate::envelope::meta::Meta;
use crate::envelope::table::{Cell, Table};
use crate::fault::{ToolError, guarded};
use crate::store::GenotypeSet;
use crate::store::{Store, Subject};
use crate::tool::ToolId;
use crate::window::Window;
use answers_genetics::Build;
use answers_genetics::import::GenotypeCall;
use answers_genetics::sites::{Site, SiteIndex, normalize_chromosome, normalize_rsid};

/// Rows answered at most; a larger answer is cut and says so.
///
/// ```
/// assert_eq!(answers_tools::genetics::GENOTYPE_ROW_CAP, 500);
/// ```
pub const GENOTYPE_ROW_CAP: usize = 500;

const COLUMNS: [&str; 7] = [
    "rsid",
    "gene",
    "chromosome",
    "position",
    "build",
    "genotype",
    "call",
];

/// Answers a genetics call for `subject`. Never panics.
///
/// ```
/// use answers_genetics::import;
/// use answers_store::Store;
/// use answers_tools::query_genetic_data;
/// use answers_protocol::{Status, render_compact};
/// use serde_json::json;
///
/// let mut store = Store::open_in_memory()?;
/// let mom = store.upsert_subject("subj-mom-1", "mom", "Asia/Shanghai")?;
/// let file = import::parse(b"# build 37\nrs4244285\t10\t96541616\tAG\n").unwrap();
/// store.replace_genotypes(&mom.id, &file)?;
/// let env = query_genetic_data(&store, &mom, &json!({"rsids": ["rs4244285"], "build": "GRCh37"}));
/// assert_eq!(env.status(), Status::Ok);
/// assert!(render_compact(&env).contains("96541616"));
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn query_genetic_data(store: &Store, subject: &Subject, args: &Value) -> Envelope {
    let valid = match QUERY_GENETIC_DATA.validate(args) {
        Ok(v) => v,
        Err(refusal) => return refusal,
    };
    let build = valid
        .choice("build")
        .and_then(|b| b.parse::<Build>().ok())
        .unwrap_or(Build::Grch38);
    let query = if let Some(rsids) = valid.text_list("rsids") {
        Query::Rsids(rsids.to_vec())
    } else if let Some(gene) = valid.text("gene") {
        Query::Gene(gene.to_owned())
    } else {
        let chromosome = valid.text("chromosome").unwrap_or_default();
        let Some(chromosome) = region_chromosome(chromosome, build) else {
            return Envelope::refusal(
                ToolId::QueryGeneticData,
                Some("chromosome"),
                ArgProblem::NotChromosome,
            );
        };
        Query::Region {
            chromosome,
            start: position(&valid, "start").unwrap_or(1),
            end: position(&valid, "end").unwrap_or(1),
        }
    };
    guarded(ToolId::QueryGeneticData, Vec::new, || {
        answer(store, subject, &query, build)
    })
}

/// What one call selects, validated.
enum Query {
    Rsids(Vec<String>),
    Gene(String),
    Region {
        chromosome: Vec<String>,
        start: u64,
        end: u64,
    },
}

/// The spellings a region's chromosome is matched under: the index's for an assembly; for
/// `raw`, the file's own (`25`, `XY`) as well as the index's.
fn region_chromosome(given: &str, build: Build) -> Option<Vec<String>> {
    let upper = given.trim().to_ascii_uppercase();
    let bare = upper.strip_prefix("CHR").unwrap_or(&upper).to_owned();
    match (normalize_chromosome(&bare), build) {
        (Some(n), Build::Raw) => {
            let mut all = vec![n.clone()];
            // AncestryDNA numbers X, Y and MT.
            let numbered = match n.as_str() {
                "X" => Some("23"),
                "Y" => Some("24"),
                "MT" => Some("26"),
                _ => None,
            };
            all.extend(numbered.map(str::to_owned));
            if bare != n && !all.contains(&bare) {
                all.push(bare);
            }
            Some(all)
        }
        (Some(n), _) => Some(vec![n]),
        (None, Build::Raw) if bare == "25" || bare == "XY" => Some(vec![bare]),
        (None, _) => None,
    }
}

/// The envelope every genetics answer starts from.
pub(crate) fn base(subject: &Subject) -> Envelope {
    Envelope::ok(Meta::new(
        Window::ALL_RECORDED,
        subject.tz_name(),
        WindowSemantics::TzExact,
    ))
}

fn answer(
    store: &Store,
    subject: &Subject,
    query: &Query,
    build: Build,
) -> Result<Envelope, ToolError> {
    let index = SiteIndex::bundled();
    let set = store.genotype_set(&subject.id)?;
    let mut env =
        base(subject).with_assumption(Assumption::Genetics(GeneticsAssumption::GenotypesAsTyped));
    env = match build {
        Build::Raw => env.with_assumption(Assumption::Genetics(GeneticsAssumption::RawCoordinates)),
        _ => env.with_assumption(Assumption::Genetics(
            GeneticsAssumption::PositionsFromSiteIndex,
        )),
    };
    let Some(set) = set else {
        return Ok(env
            .with_assumption(Assumption::Genetics(GeneticsAssumption::NoGenotypeSet))
            .partial());
    };
    let rows = match query {
        Query::Rsids(rsids) => {
            let wanted: Vec<String> = rsids
                .iter()
                .map(|r| normalize_rsid(r).unwrap_or_else(|| r.trim().to_ascii_lowercase()))
                .collect();
            let refs: Vec<&str> = wanted.iter().map(String::as_str).collect();
            let calls = by_rsid(store, &set, &refs)?;
            wanted
                .iter()
                .map(|r| row(r, index.site(r), calls.get(r.as_str()), build))
                .collect::<Vec<_>>()
        }
        Query::Gene(gene) => {
            let sites = index.by_gene(gene);
            if sites.is_empty() {
                env = env.with_assumption(Assumption::Genetics(GeneticsAssumption::GeneNotIndexed));
            }
            indexed_rows(store, &set, &sites, build)?
        }
        Query::Region {
            chromosome,
            start,
            end,
        } => match build {
            Build::Raw => store
                .genotype_calls_in_raw_region(
                    &set,
                    chromosome,
                    (*start, *end),
                    GENOTYPE_ROW_CAP + 1,
                )?
                .iter()
                .map(|c| row(&c.rsid, index.site(&c.rsid), Some(c), build))
                .collect(),
            _ => {
                let c = chromosome.first().map_or("", String::as_str);
                let sites = index.in_region(build, c, *start, *end);
                indexed_rows(store, &set, &sites, build)?
            }
        },
    };
    if rows.iter().any(|r| r[6] == Cell::from("not_typed")) {
        env = env.with_assumption(Assumption::Genetics(GeneticsAssumption::NotTypedNotAbsent));
    }
    let cut = rows.len() > GENOTYPE_ROW_CAP;
    let mut table = Table::new("genotypes", COLUMNS);
    for r in rows.into_iter().take(GENOTYPE_ROW_CAP) {
        table.push_row(r).map_err(|_| ToolError::Malformed {
            table: "genotype_call",
        })?;
    }
    env = env.with_table(table).with_table(set_table(&set)?);
    Ok(if cut { env.truncated() } else { env })
}

/// What the file is: its layout, the build its header names (`raw` when it names none), and
/// its row counts. Saying what the header says is not asserting an assembly.
fn set_table(set: &GenotypeSet) -> Result<Table, ToolError> {
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    Table::new(
        "genotype_set",
        ["format", "header_build", "calls", "no_calls"],
    )
    .with_row([
        Cell::from(set.format.as_str()),
        Cell::from(set.build.as_str()),
        Cell::from(count(set.call_count)),
        Cell::from(count(set.no_call_count)),
    ])
    .map_err(|_| ToolError::Malformed {
        table: "genotype_set",
    })
}

fn by_rsid(
    store: &Store,
    set: &GenotypeSet,
    rsids: &[&str],
) -> Result<HashMap<String, GenotypeCall>, ToolError> {
    Ok(store
        .genotype_calls(set, rsids)?
        .into_iter()
        .map(|c| (c.rsid.clone(), c))
        .collect())
}

fn indexed_rows(
    store: &Store,
    set: &GenotypeSet,
    sites: &[&Site],
    build: Build,
) -> Result<Vec<Vec<Cell>>, ToolError> {
    let rsids: Vec<&str> = sites.iter().map(|s| s.rsid.as_str()).collect();
    let calls = by_rsid(store, set, &rsids)?;
    Ok(sites
        .iter()
        .map(|s| row(&s.rsid, Some(s), calls.get(&s.rsid), build))
        .collect())
}

/// One row: what the index says of the site, and what the file says of it.
pub(crate) fn row(
    rsid: &str,
    site: Option<&Site>,
    call: Option<&GenotypeCall>,
    build: Build,
) -> Vec<Cell> {
    let (chromosome, position) = match build {
        Build::Raw => (
            call.map(|c| c.chromosome.clone()),
            call.and_then(|c| i64::try_from(c.position).ok()),
        ),
        _ => (
            site.map(|s| s.chromosome.clone()),
            site.and_then(|s| s.position(build))
                .and_then(|p| i64::try_from(p).ok()),
        ),
    };
    let state = match call {
        None => "not_typed",
        Some(c) if c.genotype.is_none() => "no_call",
        Some(_) => "called",
    };
    vec![
        Cell::from(rsid),
        Cell::from(site.map(|s| s.gene.clone())),
        Cell::from(chromosome),
        Cell::from(position),
        Cell::from(build.as_str()),
        Cell::from(call.and_then(|c| c.genotype.clone())),
        Cell::from(state),
    ]
}
