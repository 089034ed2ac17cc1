//! Genotype data: the consumer-array importer, the bundled site index, and the bundled CPIC
//! gene–drug pairs with the key variants of each gene.
//!
//! - [`import`]: [`import::parse`] reads a 23andMe-style or `AncestryDNA` raw-data file into
//!   [`import::ParsedGenotypes`], refusing a malformed line by its number, never its text.
//! - [`sites`]: [`sites::SiteIndex`], each shipped rsid's gene, chromosome and `GRCh37` and
//!   `GRCh38` positions.
//! - [`cpic`]: [`cpic::CpicPairs`], the CPIC gene–drug pairs with their level, and the key
//!   variants whose coverage a pharmacogenomics answer reports.
//! - [`Build`]: which coordinates a position is in.
//!
//! ```
//! use answers_genetics::{Build, sites::SiteIndex};
//!
//! let site = SiteIndex::bundled().site("rs4244285").unwrap();
//! assert_eq!(site.gene, "CYP2C19");
//! assert_eq!(site.position(Build::Grch37), Some(96_541_616));
//! assert_eq!(site.position(Build::Grch38), Some(94_781_859));
//! assert_eq!(site.position(Build::Raw), None);
//! ```

pub mod cpic;
pub mod import;
pub mod sites;

use phi_macros::ClosedEnum;

/// The coordinates a position is given in: a reference assembly, or `raw`, the file's own
/// coordinates with no assembly asserted.
///
/// A file whose header does not name its build is stored as `raw`; on the wire the three are
/// `GRCh37`, `GRCh38` and `raw`.
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Build {
    /// `GRCh37` (hg19), the build of most consumer-array files.
    #[closed(rename = "GRCh37")]
    Grch37,
    /// `GRCh38` (hg38).
    #[closed(rename = "GRCh38")]
    Grch38,
    /// The file's own coordinates, without asserting an assembly.
    Raw,
}

#[cfg(test)]
mod tests {
    use super::Build;

    #[test]
    fn builds_are_named_as_the_assemblies_are() {
        assert_eq!(Build::VARIANTS, ["GRCh37", "GRCh38", "raw"]);
        assert_eq!("GRCh38".parse(), Ok(Build::Grch38));
    }
}
