//! `query_genetic_data(rsids | gene | chromosome+start+end+build)` and
//! `query_pharmacogenomics(drugs | genes)`: their schemas and argument matrices.
//!
//! The genetics matrix:
//! - exactly one selector: `rsids`, `gene`, or a region (`chromosome`, `start`, `end`);
//! - a region needs all three, and `build`: positions mean nothing without their coordinates;
//! - `start` and `end` are whole positions of at least 1, `end` not before `start`.
//!
//! The pharmacogenomics matrix: `drugs` or `genes`, not both; neither checks the drugs of the
//! person's active medication plans.

use super::repair::Repair;
use super::{Domain, Param, ParamType, Refused, ToolSchema, ValidArgs};
use crate::envelope::error::ArgProblem;
use crate::envelope::next_step::NextAction;
use crate::tool::ToolId;

/// `query_genetic_data`'s published arguments.
///
/// ```
/// use answers_protocol::args::genetics::QUERY_GENETIC_DATA;
/// use answers_protocol::render_compact;
/// use serde_json::json;
///
/// assert!(QUERY_GENETIC_DATA.validate(&json!({"gene": "CYP2C19", "build": "GRCh37"})).is_ok());
/// let refused = QUERY_GENETIC_DATA.validate(&json!({"chromosome": "10", "start": 1, "end": 9})).unwrap_err();
/// assert!(render_compact(&refused).starts_with("error (invalid_arguments): build: required"));
/// ```
pub static QUERY_GENETIC_DATA: ToolSchema = ToolSchema {
    tool: ToolId::QueryGeneticData,
    description: "Read the person's genotype calls from their imported consumer-array file. \
        Select by rsids, by gene, or by a region (chromosome, start, end and build). build \
        chooses the coordinates positions are given in: GRCh37 or GRCh38 from the bundled site \
        index, or raw, the file's own coordinates without asserting an assembly. Reports what \
        the file says; it does not interpret genotypes.",
    params: &[
        Param::optional("rsids", ParamType::TextList, "dbSNP ids, e.g. rs4244285"),
        Param::optional(
            "gene",
            ParamType::Text,
            "a gene symbol, e.g. CYP2C19: the indexed sites of that gene",
        ),
        Param::optional(
            "chromosome",
            ParamType::Text,
            "a region's chromosome: 1-22, X, Y or MT; with start, end and build",
        ),
        Param::optional(
            "start",
            ParamType::Number,
            "a region's first position, 1-based, inclusive",
        ),
        Param::optional(
            "end",
            ParamType::Number,
            "a region's last position, 1-based, inclusive",
        ),
        Param::optional(
            "build",
            ParamType::OneOf(Domain::Build),
            "coordinates of positions: GRCh37, GRCh38 (default for rsids and gene), or raw \
             (the file's own); required with a region",
        ),
    ],
    rules: genetic_rules,
    examples: &[
        r#"{"rsids": ["rs4244285", "rs12248560"]}"#,
        r#"{"gene": "CYP2C19", "build": "GRCh37"}"#,
        r#"{"chromosome": "10", "start": 94761000, "end": 94853000, "build": "GRCh38"}"#,
        r#"{"chromosome": "10", "start": 96521000, "end": 96613000, "build": "raw"}"#,
    ],
    repairs: true,
};

const REGION: [&str; 3] = ["chromosome", "start", "end"];

fn genetic_rules(args: &ValidArgs) -> Result<(), Refused> {
    let region = REGION.iter().any(|p| args.has(p));
    let selectors = [args.has("rsids"), args.has("gene"), region];
    match selectors.iter().filter(|s| **s).count() {
        0 => {
            return Err(
                Refused::new(Some("rsids"), ArgProblem::GeneticSelectorMissing)
                    .repair(Repair::new(NextAction::FixArguments).supply("rsids"))
                    .repair(Repair::new(NextAction::FixArguments).supply("gene")),
            );
        }
        1 => {}
        _ => {
            let keep = |name: &'static str| {
                let mut r = Repair::new(NextAction::RemoveParameter);
                for other in ["rsids", "gene", "chromosome", "start", "end"] {
                    if other != name && !(name == "chromosome" && REGION.contains(&other)) {
                        r = r.remove(other);
                    }
                }
                r
            };
            let named = if args.has("gene") { "gene" } else { "rsids" };
            return Err(
                Refused::new(Some(named), ArgProblem::GeneticSelectorConflict)
                    .repair(keep("rsids"))
                    .repair(keep("gene"))
                    .repair(keep("chromosome")),
            );
        }
    }
    if region {
        for p in REGION {
            if !args.has(p) {
                return Err(Refused::new(Some(p), ArgProblem::Missing)
                    .repair(Repair::new(NextAction::FixArguments).supply(p)));
            }
        }
        if !args.has("build") {
            return Err(Refused::new(Some("build"), ArgProblem::Missing)
                .repair(Repair::new(NextAction::FixArguments).supply("build")));
        }
        for p in ["start", "end"] {
            if position(args, p).is_none() {
                return Err(Refused::new(Some(p), ArgProblem::NotPosition)
                    .repair(Repair::new(NextAction::FixArguments).supply(p)));
            }
        }
        if let (Some(start), Some(end)) = (position(args, "start"), position(args, "end"))
            && end < start
        {
            return Err(
                Refused::new(Some("end"), ArgProblem::EndBeforeStart).repair(
                    Repair::new(NextAction::FixArguments)
                        .set("start", end.into())
                        .set("end", start.into()),
                ),
            );
        }
    }
    Ok(())
}

/// A validated number that is a whole position of at least 1.
///
/// ```
/// use answers_protocol::args::genetics::{QUERY_GENETIC_DATA, position};
/// use serde_json::json;
///
/// let args = QUERY_GENETIC_DATA
///     .validate(&json!({"chromosome": "1", "start": 5, "end": 7, "build": "raw"}))
///     .unwrap();
/// assert_eq!(position(&args, "end"), Some(7));
/// ```
#[must_use]
pub fn position(args: &ValidArgs, name: &str) -> Option<u64> {
    let x = args.number(name)?;
    if !(1.0..9.0e15).contains(&x) || x.fract() != 0.0 {
        return None;
    }
    // Whole and below 2^53, so the conversion is exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let whole = x as u64;
    Some(whole)
}

/// `query_pharmacogenomics`' published arguments.
///
/// ```
/// use answers_protocol::args::genetics::QUERY_PHARMACOGENOMICS;
/// use serde_json::json;
///
/// assert!(QUERY_PHARMACOGENOMICS.validate(&json!({"drugs": ["clopidogrel"]})).is_ok());
/// // Neither: the active plans' drugs are checked.
/// assert!(QUERY_PHARMACOGENOMICS.validate(&json!({})).is_ok());
/// assert!(QUERY_PHARMACOGENOMICS.validate(&json!({"drugs": ["x"], "genes": ["y"]})).is_err());
/// ```
pub static QUERY_PHARMACOGENOMICS: ToolSchema = ToolSchema {
    tool: ToolId::QueryPharmacogenomics,
    description: "Check CPIC gene-drug pairs (with their CPIC level) against the person's \
        genotype calls, by drugs or by genes; with neither, the drugs of the person's active \
        medication plans are checked. Lists the names that matched no pair. Reports, per gene, which of its key variants the \
        person's file covers and the calls there; it does not infer star alleles, phenotypes \
        or doses, and it is not medical advice.",
    params: &[
        Param::optional(
            "drugs",
            ParamType::TextList,
            "drug names as CPIC lists them, e.g. clopidogrel; not with genes",
        ),
        Param::optional(
            "genes",
            ParamType::TextList,
            "gene symbols, e.g. CYP2C19; not with drugs",
        ),
    ],
    rules: pgx_rules,
    examples: &[
        r"{}",
        r#"{"drugs": ["clopidogrel", "warfarin"]}"#,
        r#"{"genes": ["CYP2C19"]}"#,
    ],
    repairs: true,
};

/// `drugs` or `genes`, not both; neither checks the drugs of the active medication plans, as
/// the original implementation does.
fn pgx_rules(args: &ValidArgs) -> Result<(), Refused> {
    match (args.has("drugs"), args.has("genes")) {
        (true, true) => Err(Refused::new(Some("genes"), ArgProblem::PgxSelectorConflict)
            .repair(Repair::new(NextAction::RemoveParameter).remove("genes"))
            .repair(Repair::new(NextAction::RemoveParameter).remove("drugs"))),
        _ => Ok(()),
    }
}
