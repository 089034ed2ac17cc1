//! The demo genotype set: `mom` only. Synthetic genotypes at real sites of the bundled index,
//! written as a 23andMe-style text file and imported through the real importer, so the demo
//! exercises the same path as a person's own file.
//!
//! Which sites the file holds is deliberate where the tests rely on it and drawn from the
//! seeded generator elsewhere:
//! - every key variant of CYP2C19, CYP2C9, VKORC1, CYP4F2, SLCO1B1 and TPMT is typed (full
//!   coverage);
//! - DPYD's key variants are typed except rs75017182 (an intronic `HapB3` site), which is left
//!   out (partial coverage);
//! - no HLA allele and no G6PD site is in the index at all (absent coverage);
//! - other sites are kept with probability 3/4, and 1 in 50 of those is a no-call;
//! - genotypes use each site's real alleles (`I`/`D` at an indel), mostly the reference.

use std::fmt::Write as _;

use super::profile::MOM;
use super::rng::SplitMix64;
use answers_genetics::cpic::CpicPairs;
use answers_genetics::import;
use answers_genetics::sites::{Site, SiteIndex};
use answers_store::{DbError, GenotypeSet, Store, StoreError};

/// Genes whose key variants the demo file types in full.
pub(crate) const FULL_GENES: [&str; 6] =
    ["CYP2C19", "CYP2C9", "VKORC1", "CYP4F2", "SLCO1B1", "TPMT"];

/// Genes whose key variants the demo file types, except those in [`LEFT_OUT`].
pub(crate) const PARTIAL_GENES: [&str; 1] = ["DPYD"];

/// Key variants the demo file leaves out on purpose.
pub(crate) const LEFT_OUT: [&str; 1] = ["rs75017182"];

/// The demo file's text: deterministic, so seeding twice imports the same rows.
pub(crate) fn file_text() -> String {
    let index = SiteIndex::bundled();
    let keys = CpicPairs::bundled();
    let is_key = |rsid: &str| keys.all_key_variants().iter().any(|k| k.rsid == rsid);
    let forced = |s: &Site| {
        (FULL_GENES.contains(&s.gene.as_str()) || PARTIAL_GENES.contains(&s.gene.as_str()))
            && keys.key_variants(&s.gene).iter().any(|k| k.rsid == s.rsid)
    };
    let mut sites: Vec<&Site> = index.iter().collect();
    sites.sort_by_key(|s| (chromosome_rank(&s.chromosome), s.grch37));
    let mut rng = SplitMix64::for_series(MOM.handle, "genotypes");
    let mut text = String::from(
        "# Synthetic demo genotype file for the phiguard demo account `mom`.\r\n\
         # The sites are real; every genotype is drawn from a seeded generator.\r\n\
         # More information on reference human assembly build 37 (GRCh37).\r\n\
         #\r\n\
         # rsid\tchromosome\tposition\tgenotype\r\n",
    );
    for s in sites {
        let keep_draw = rng.unit();
        let call_draw = rng.unit();
        if LEFT_OUT.contains(&s.rsid.as_str()) || (!forced(s) && keep_draw >= 0.75) {
            continue;
        }
        let genotype = if !forced(s) && !is_key(&s.rsid) && call_draw < 0.02 {
            "--".to_owned()
        } else {
            synthetic_genotype(s, call_draw)
        };
        let _ = write!(
            text,
            "{}\t{}\t{}\t{}\r\n",
            s.rsid, s.chromosome, s.grch37, genotype
        );
    }
    text
}

/// A genotype at `site` in the array letters: the reference and other allele where both are
/// one base, else `I` for the longer allele and `D` for the shorter (an indel). Homozygous
/// reference about 70 % of the time, heterozygous 25 %, homozygous for the other allele 5 %.
fn synthetic_genotype(site: &Site, draw: f64) -> String {
    let (r, a) = (site.grch37_ref.as_str(), site.alt.as_str());
    let (r, a) = if r.len() == 1 && a.len() == 1 {
        (r, a)
    } else if r.len() > a.len() {
        ("I", "D")
    } else {
        ("D", "I")
    };
    match draw {
        d if d < 0.70 => format!("{r}{r}"),
        d if d < 0.95 => format!("{r}{a}"),
        _ => format!("{a}{a}"),
    }
}

fn chromosome_rank(c: &str) -> u8 {
    match c {
        "X" => 23,
        "Y" => 24,
        "MT" => 25,
        n => n.parse().unwrap_or(26),
    }
}

/// Imports the demo file for `mom`, replacing any set she has.
pub(crate) fn seed(store: &mut Store) -> Result<GenotypeSet, StoreError> {
    let text = file_text();
    // The demo text is generated from the bundled index; a unit test parses it, so this
    // cannot fail in a released build. Told as a malformed row rather than a panic.
    let file = import::parse(text.as_bytes()).map_err(|_| {
        StoreError::Db(DbError::Malformed {
            table: "genotype_call",
        })
    })?;
    store.replace_genotypes(MOM.id, &file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use answers_genetics::Build;

    #[test]
    fn the_demo_file_parses_as_build_37_with_a_few_hundred_rows() {
        let file = import::parse(file_text().as_bytes()).unwrap();
        assert_eq!(file.build, Build::Grch37);
        assert!(
            (200..=400).contains(&file.calls.len()),
            "{}",
            file.calls.len()
        );
        assert!(file.no_calls() > 0);
        assert_eq!(file_text(), file_text());
    }

    #[test]
    fn every_call_is_made_of_the_site_alleles() {
        let file = import::parse(file_text().as_bytes()).unwrap();
        for c in file.calls.iter().filter(|c| c.genotype.is_some()) {
            let site = SiteIndex::bundled().site(&c.rsid).unwrap();
            let snv = site.grch37_ref.len() == 1 && site.alt.len() == 1;
            let allowed = if snv {
                format!("{}{}", site.grch37_ref, site.alt)
            } else {
                "ID".to_owned()
            };
            let g = c.genotype.as_deref().unwrap();
            assert!(g.chars().all(|x| allowed.contains(x)), "{} {g}", c.rsid);
        }
    }

    #[test]
    fn every_row_sits_at_its_indexed_grch37_position() {
        let file = import::parse(file_text().as_bytes()).unwrap();
        for c in &file.calls {
            let site = SiteIndex::bundled().site(&c.rsid).unwrap();
            assert_eq!(
                (c.chromosome.as_str(), c.position),
                (site.chromosome.as_str(), site.grch37)
            );
        }
    }
}
