//! `Assumption`: the methodology an answer rests on, from a closed set of templates.

use phi_macros::ClosedEnum;
use serde::{Deserialize, Serialize};

/// A note on how an answer was made: methodology, never a finding.
///
/// Every variant is a fixed template; a few take a number. There is no free-text variant, so
/// nothing about the person's data can travel here. The notes on absence are in this list, not
/// in prose a renderer might drop, because a model that is not told them draws the opposite
/// conclusion.
///
/// Serialized with its id as a tag: `{"id":"truncated","cap":50}`.
///
/// ```
/// use answers_protocol::{Assumption, AssumptionId};
///
/// let a = Assumption::AbsenceNotEvidence;
/// assert_eq!(
///     a.text(),
///     "no data for an indicator means it was never recorded, not that the condition is absent"
/// );
/// assert_eq!(a.id(), AssumptionId::AbsenceNotEvidence);
/// assert_eq!(Assumption::Truncated { cap: 50 }.text(), "rows are cut at 50 per indicator, newest first");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "id", rename_all = "snake_case", deny_unknown_fields)]
pub enum Assumption {
    /// On every readings answer.
    AbsenceNotEvidence,
    /// On every medication `plan` answer.
    PlanIsIntent,
    /// On every medication `log` answer.
    MissingDoseNotEvidence,
    /// No window was given, so the answer covers all recorded data.
    WindowAllRecorded,
    /// The window matched some rows by padding their naive timestamp a day either side.
    WindowDatePadded,
    /// Raw rows were cut at `cap` per indicator.
    Truncated {
        /// Rows kept per indicator.
        cap: u32,
    },
    /// What `view=stats` counts.
    StatsCountElectedDays,
    /// What `day`, `week` and `month` points are made of.
    ElectedSourcePerDay,
    /// No window was given to the medication log, so it covers the last `days` days.
    LogDefaultWindow {
        /// The length of the default window.
        days: u32,
    },
    /// What a cut answer means and how to see the rest: a narrower window or `view=stats`.
    CutMeansNewestOnly,
    /// The catalogue lists at most `cap` indicators.
    CatalogueCut {
        /// Indicators listed at most.
        cap: u32,
    },
    /// The keywords matched nothing in the record, so the answer is the catalogue.
    NoKeywordMatch,
    /// A medication answer with no rows: nothing recorded is not evidence nothing was taken.
    NoMedicationRecorded,
    /// The medication keywords matched no recorded drug.
    NoMedicationMatch,
    /// The dose log was cut at `cap` doses, newest first.
    DoseLogCut {
        /// Doses listed at most.
        cap: u32,
    },
    /// The name reaches several codes; the one whose canonical unit the reading's unit
    /// converts to was chosen, and the others are listed.
    CodingChosenByUnit,
    /// Genotypes are reported as the file states them.
    GenotypesAsTyped,
    /// GRCh37/GRCh38 positions come from the bundled site index.
    PositionsFromSiteIndex,
    /// Positions are the file's own coordinates.
    RawCoordinates,
    /// An rsid the file lacks was not typed.
    NotTypedNotAbsent,
    /// The person has no imported genotype file.
    NoGenotypeSet,
    /// Some gene's key variants are not all covered.
    CoverageIncomplete,
    /// Arrays do not type structural variants or HLA alleles.
    ArraysMissStructural,
    /// The CPIC pairs table's version.
    CpicPairsVersion,
    /// No CPIC pair matched.
    NoCpicPair,
    /// The gene has no site in the bundled index.
    GeneNotIndexed,
}

/// The id of an [`Assumption`]: its template without parameters.
///
/// ```
/// use answers_protocol::{Assumption, AssumptionId};
///
/// assert_eq!(Assumption::Truncated { cap: 50 }.id().as_str(), "truncated");
/// assert_eq!(AssumptionId::ALL.len(), AssumptionId::VARIANTS.len());
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AssumptionId {
    /// [`Assumption::AbsenceNotEvidence`]
    AbsenceNotEvidence,
    /// [`Assumption::PlanIsIntent`]
    PlanIsIntent,
    /// [`Assumption::MissingDoseNotEvidence`]
    MissingDoseNotEvidence,
    /// [`Assumption::WindowAllRecorded`]
    WindowAllRecorded,
    /// [`Assumption::WindowDatePadded`]
    WindowDatePadded,
    /// [`Assumption::Truncated`]
    Truncated,
    /// [`Assumption::StatsCountElectedDays`]
    StatsCountElectedDays,
    /// [`Assumption::ElectedSourcePerDay`]
    ElectedSourcePerDay,
    /// [`Assumption::LogDefaultWindow`]
    LogDefaultWindow,
    /// [`Assumption::CutMeansNewestOnly`]
    CutMeansNewestOnly,
    /// [`Assumption::CatalogueCut`]
    CatalogueCut,
    /// [`Assumption::NoKeywordMatch`]
    NoKeywordMatch,
    /// [`Assumption::NoMedicationRecorded`]
    NoMedicationRecorded,
    /// [`Assumption::NoMedicationMatch`]
    NoMedicationMatch,
    /// [`Assumption::DoseLogCut`]
    DoseLogCut,
    /// [`Assumption::CodingChosenByUnit`]
    CodingChosenByUnit,
    /// [`Assumption::GenotypesAsTyped`]
    GenotypesAsTyped,
    /// [`Assumption::PositionsFromSiteIndex`]
    PositionsFromSiteIndex,
    /// [`Assumption::RawCoordinates`]
    RawCoordinates,
    /// [`Assumption::NotTypedNotAbsent`]
    NotTypedNotAbsent,
    /// [`Assumption::NoGenotypeSet`]
    NoGenotypeSet,
    /// [`Assumption::CoverageIncomplete`]
    CoverageIncomplete,
    /// [`Assumption::ArraysMissStructural`]
    ArraysMissStructural,
    /// [`Assumption::CpicPairsVersion`]
    CpicPairsVersion,
    /// [`Assumption::NoCpicPair`]
    NoCpicPair,
    /// [`Assumption::GeneNotIndexed`]
    GeneNotIndexed,
}

impl Assumption {
    /// The template's id.
    ///
    /// ```
    /// assert_eq!(answers_protocol::Assumption::PlanIsIntent.id().as_str(), "plan_is_intent");
    /// ```
    #[must_use]
    pub const fn id(&self) -> AssumptionId {
        match self {
            Assumption::AbsenceNotEvidence => AssumptionId::AbsenceNotEvidence,
            Assumption::PlanIsIntent => AssumptionId::PlanIsIntent,
            Assumption::MissingDoseNotEvidence => AssumptionId::MissingDoseNotEvidence,
            Assumption::WindowAllRecorded => AssumptionId::WindowAllRecorded,
            Assumption::WindowDatePadded => AssumptionId::WindowDatePadded,
            Assumption::Truncated { .. } => AssumptionId::Truncated,
            Assumption::StatsCountElectedDays => AssumptionId::StatsCountElectedDays,
            Assumption::ElectedSourcePerDay => AssumptionId::ElectedSourcePerDay,
            Assumption::LogDefaultWindow { .. } => AssumptionId::LogDefaultWindow,
            Assumption::CutMeansNewestOnly => AssumptionId::CutMeansNewestOnly,
            Assumption::CatalogueCut { .. } => AssumptionId::CatalogueCut,
            Assumption::NoKeywordMatch => AssumptionId::NoKeywordMatch,
            Assumption::NoMedicationRecorded => AssumptionId::NoMedicationRecorded,
            Assumption::NoMedicationMatch => AssumptionId::NoMedicationMatch,
            Assumption::DoseLogCut { .. } => AssumptionId::DoseLogCut,
            Assumption::CodingChosenByUnit => AssumptionId::CodingChosenByUnit,
            Assumption::GenotypesAsTyped => AssumptionId::GenotypesAsTyped,
            Assumption::PositionsFromSiteIndex => AssumptionId::PositionsFromSiteIndex,
            Assumption::RawCoordinates => AssumptionId::RawCoordinates,
            Assumption::NotTypedNotAbsent => AssumptionId::NotTypedNotAbsent,
            Assumption::NoGenotypeSet => AssumptionId::NoGenotypeSet,
            Assumption::CoverageIncomplete => AssumptionId::CoverageIncomplete,
            Assumption::ArraysMissStructural => AssumptionId::ArraysMissStructural,
            Assumption::CpicPairsVersion => AssumptionId::CpicPairsVersion,
            Assumption::NoCpicPair => AssumptionId::NoCpicPair,
            Assumption::GeneNotIndexed => AssumptionId::GeneNotIndexed,
        }
    }

    /// The template, filled in.
    ///
    /// ```
    /// assert_eq!(
    ///     answers_protocol::Assumption::MissingDoseNotEvidence.text(),
    ///     "a missing dose is not evidence it was not taken"
    /// );
    /// ```
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            Assumption::AbsenceNotEvidence => {
                "no data for an indicator means it was never recorded, not that the condition is absent".into()
            }
            Assumption::PlanIsIntent => {
                "a plan is what the person intends to take; it is not a record of doses taken".into()
            }
            Assumption::MissingDoseNotEvidence => {
                "a missing dose is not evidence it was not taken".into()
            }
            Assumption::WindowAllRecorded => {
                "no window was given, so the answer covers all recorded data".into()
            }
            Assumption::WindowDatePadded => {
                "some rows predate the stored local day and were matched by padding their timestamp a day either side, so their day is approximate".into()
            }
            Assumption::Truncated { cap } => {
                format!("rows are cut at {cap} per indicator, newest first")
            }
            Assumption::StatsCountElectedDays => {
                "statistics count one value per series and local day where a source was elected for that day, and every reading of a day where none was".into()
            }
            Assumption::ElectedSourcePerDay => {
                "each day's point comes from the one source elected for that day".into()
            }
            Assumption::LogDefaultWindow { days } => {
                format!("no window was given, so the log covers the last {days} days")
            }
            Assumption::CutMeansNewestOnly => {
                "a cut answer holds only the newest rows; for the rest, narrow the window, or ask for view=stats over it".into()
            }
            Assumption::CatalogueCut { cap } => {
                format!("the catalogue lists at most {cap} indicators, reported entries first, then the most recently recorded; fetch others by name with indicators, or narrow the window")
            }
            Assumption::NoKeywordMatch => {
                "no recorded indicator matched the keywords, so the answer lists the catalogue instead".into()
            }
            Assumption::NoMedicationRecorded => {
                "no medication is recorded for this person in the window; that is not evidence that none was taken".into()
            }
            Assumption::NoMedicationMatch => {
                "no recorded medication matched the keywords; the same call without keywords lists every one".into()
            }
            Assumption::DoseLogCut { cap } => {
                format!("the log lists at most {cap} doses, newest first; the counts cover the whole window; for older doses, narrow the window")
            }
            Assumption::CodingChosenByUnit => {
                "the name matches several codes; the first whose canonical unit the reading's unit converts to was chosen, and the others are listed as candidates".into()
            }
            Assumption::GenotypesAsTyped => {
                "genotypes are reported as the file states them; no star allele, phenotype, risk or dose is inferred".into()
            }
            Assumption::PositionsFromSiteIndex => {
                "positions in GRCh37 and GRCh38 come from the bundled site index; a site outside the index has no position in those builds".into()
            }
            Assumption::RawCoordinates => {
                "positions are the file's own coordinates; no assembly is asserted".into()
            }
            Assumption::NotTypedNotAbsent => {
                "a site the file does not contain was not typed; that says nothing about the genotype there".into()
            }
            Assumption::NoGenotypeSet => {
                "the person has no imported genotype file, so no site is typed".into()
            }
            Assumption::CoverageIncomplete => {
                "the file does not cover every key variant of at least one gene; a gene read from partial or absent coverage is not a full reading of that gene".into()
            }
            Assumption::ArraysMissStructural => {
                "consumer arrays do not type gene deletions, duplications, hybrids or HLA alleles; genes without key variants in the bundled table have absent coverage".into()
            }
            Assumption::CpicPairsVersion => {
                "gene-drug pairs and levels are CPIC's table dated 2020-06-12 (CC0); levels rank the evidence for a pair, they are not a recommendation".into()
            }
            Assumption::NoCpicPair => {
                "no CPIC gene-drug pair matched the drugs or genes given; CPIC lists drugs by generic name".into()
            }
            Assumption::GeneNotIndexed => {
                "the bundled site index has no site of that gene; it holds pharmacogenes and a few common trait genes, and other sites can be read by rsids or by a raw region".into()
            }
        }
    }
}
