//! `Assumption`: the methodology an answer rests on, from closed sets of templates, one set per
//! tool (or kind of tool), nested: `Assumption::Readings(ReadingsAssumption::Truncated { cap })`.
//!
//! Each tool's notes are its own closed set ([`ReadingsAssumption`], [`MedicationsAssumption`],
//! [`GeneticsAssumption`], [`PharmacogenomicsAssumption`], [`TerminologyAssumption`], and
//! [`WindowAssumption`] for what any windowed answer says); the envelope holds them as one
//! [`Assumption`]. On the wire the nesting does not show: every note is `{"id": …, params}`.

use phi_macros::ClosedEnum;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Defines [`Assumption`], each tool's set nested in it, [`AssumptionId`], [`Assumption::id`]
/// and [`Assumption::text`] from one list: each template's group, doc, name, parameters and
/// text stand once.
macro_rules! assumptions {
    ($(
        $(#[$group_doc:meta])*
        $group:ident($inner:ident) {
            $(
                $(#[$doc:meta])*
                $name:ident $({ $($(#[$field_doc:meta])* $field:ident: $ty:ty),* $(,)? })? => $text:expr,
            )*
        }
    )*) => {
        /// A note on how an answer was made: methodology, never a finding.
        ///
        /// Every note is a fixed template of one tool's closed set; a few take a number. There is
        /// no free-text variant, so nothing about the person's data can travel here. The notes on
        /// absence are in these sets, not in prose a renderer might drop, because a model that is
        /// not told them draws the opposite conclusion.
        ///
        /// Serialized as its inner note, with the id as a tag: `{"id":"truncated","cap":50}`.
        ///
        /// ```
        /// use answers_protocol::{Assumption, AssumptionId, ReadingsAssumption};
        ///
        /// let a = Assumption::Readings(ReadingsAssumption::AbsenceNotEvidence);
        /// assert_eq!(
        ///     a.text(),
        ///     "no data for an indicator means it was never recorded, not that the condition is absent"
        /// );
        /// assert_eq!(a.id(), AssumptionId::AbsenceNotEvidence);
        /// let cut = Assumption::from(ReadingsAssumption::Truncated { cap: 50 });
        /// assert_eq!(cut.text(), "rows are cut at 50 per indicator, newest first");
        /// assert_eq!(serde_json::to_string(&cut).unwrap(), r#"{"id":"truncated","cap":50}"#);
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Assumption {
            $($(#[$group_doc])* $group($inner),)*
        }

        $(
            $(#[$group_doc])*
            ///
            #[doc = concat!("Nested in [`Assumption::", stringify!($group), "`].")]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
            #[serde(tag = "id", rename_all = "snake_case", deny_unknown_fields)]
            pub enum $inner {
                $($(#[$doc])* $name $({ $($(#[$field_doc])* $field: $ty),* })?,)*
            }

            impl From<$inner> for Assumption {
                fn from(note: $inner) -> Self {
                    Assumption::$group(note)
                }
            }

            impl $inner {
                /// The template, filled in.
                #[must_use]
                pub fn text(&self) -> String {
                    match self {
                        $($inner::$name $({ $($field),* })? => String::from($text),)*
                    }
                }

                /// The template's id.
                #[must_use]
                pub const fn id(&self) -> AssumptionId {
                    match self {
                        $($inner::$name { .. } => AssumptionId::$name,)*
                    }
                }
            }
        )*

        /// The id of an [`Assumption`]: its template without parameters, whichever set holds it.
        ///
        /// ```
        /// use answers_protocol::{Assumption, AssumptionId, ReadingsAssumption};
        ///
        /// assert_eq!(Assumption::from(ReadingsAssumption::Truncated { cap: 50 }).id().as_str(), "truncated");
        /// assert_eq!(AssumptionId::ALL.len(), AssumptionId::VARIANTS.len());
        /// ```
        #[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum AssumptionId {
            $($(#[doc = concat!("[`", stringify!($inner), "::", stringify!($name), "`]")] $name,)*)*
        }

        impl Assumption {
            /// The template's id.
            ///
            /// ```
            /// use answers_protocol::{Assumption, MedicationsAssumption};
            ///
            /// assert_eq!(Assumption::from(MedicationsAssumption::PlanIsIntent).id().as_str(), "plan_is_intent");
            /// ```
            #[must_use]
            pub const fn id(&self) -> AssumptionId {
                match self {
                    $(Assumption::$group(note) => note.id(),)*
                }
            }

            /// The template, filled in.
            ///
            /// ```
            /// use answers_protocol::{Assumption, MedicationsAssumption};
            ///
            /// assert_eq!(
            ///     Assumption::from(MedicationsAssumption::MissingDoseNotEvidence).text(),
            ///     "a missing dose is not evidence it was not taken"
            /// );
            /// ```
            #[must_use]
            pub fn text(&self) -> String {
                match self {
                    $(Assumption::$group(note) => note.text(),)*
                }
            }
        }

        impl Serialize for Assumption {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(Assumption::$group(note) => note.serialize(serializer),)*
                }
            }
        }

        /// Reads the note's `id` and then the one set that holds it; an id no set holds is
        /// refused by name.
        impl<'de> Deserialize<'de> for Assumption {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = serde_json::Value::deserialize(deserializer)?;
                let id = match value.get("id") {
                    Some(serde_json::Value::String(id)) => id
                        .parse::<AssumptionId>()
                        .map_err(|_| D::Error::unknown_variant(id, AssumptionId::VARIANTS))?,
                    Some(_) => return Err(D::Error::custom("an assumption's id is a string")),
                    None => return Err(D::Error::missing_field("id")),
                };
                match id {
                    $($(AssumptionId::$name)|* => serde_json::from_value::<$inner>(value)
                        .map(Assumption::$group)
                        .map_err(D::Error::custom),)*
                }
            }
        }
    };
}

assumptions! {
    /// `query_health_indicators`: readings and reported entries.
    Readings(ReadingsAssumption) {
        /// On every readings answer.
        AbsenceNotEvidence => "no data for an indicator means it was never recorded, not that the condition is absent",
        /// The window matched some rows by padding their naive timestamp a day either side.
        WindowDatePadded => "some rows predate the stored local day and were matched by padding their timestamp a day either side, so their day is approximate",
        /// Raw rows were cut at `cap` per indicator.
        Truncated {
            /// Rows kept per indicator.
            cap: u32,
        } => format!("rows are cut at {cap} per indicator, newest first"),
        /// What `view=stats` counts.
        StatsCountElectedDays => "statistics count one value per series and local day where a source was elected for that day, and every reading of a day where none was",
        /// What a point of a day a source was elected for is made of.
        ElectedSourcePerDay => "where a source was elected for a day, that day's point comes from the one elected source",
        /// What a point of a day nothing elected is made of: the newest reading, as the original
        /// takes it.
        NewestReadingPerDay => "where no source was elected for a day, that day's point is its newest reading",
        /// What a cut answer means and how to see the rest: a narrower window or `view=stats`.
        CutMeansNewestOnly => "a cut answer holds only the newest rows; for the rest, narrow the window, or ask for view=stats over it",
        /// The catalogue lists at most `cap` indicators.
        CatalogueCut {
            /// Indicators listed at most.
            cap: u32,
        } => format!("the catalogue lists at most {cap} indicators, reported entries first, then the most recently recorded; fetch others by name with indicators, or narrow the window"),
        /// The keywords matched nothing in the record, so the answer is the catalogue.
        NoKeywordMatch => "no recorded indicator matched the keywords, so the answer lists the catalogue instead",
        /// The indicators matched nothing, so the answer is the catalogue.
        NoIndicatorMatch => "no recorded indicator matched the names given, so the answer lists the catalogue instead; ask again with names as it lists them",
        /// Of the names given, `count` matched no recorded indicator and were left out; the others
        /// were answered.
        SomeIndicatorsUnmatched {
            /// How many names matched nothing.
            count: u32,
        } => format!("names given that match no recorded indicator are left out of this answer ({count} of them); a call without indicators lists the names the record holds"),
        /// The rendered answer was cut at `chars` characters, by whole rows.
        RenderCut {
            /// Characters of rendered text at most.
            chars: u32,
        } => format!("the answer is cut at {chars} characters of text, by whole rows, each indicator keeping its newest rows; for the rest, ask for fewer indicators, a shorter window or a coarser view"),
        /// A reading recorded in another unit of the analyte was converted to the series' unit.
        UnitConverted => "readings recorded in another unit of the same analyte are converted to the unit of the indicator's code, mass and molar units through the analyte's molar mass",
    }
    /// `query_medications`: plans, the dose log and courses.
    Medications(MedicationsAssumption) {
        /// On every medication `plan` answer.
        PlanIsIntent => "a plan is what the person intends to take; it is not a record of doses taken",
        /// On every medication `log` answer.
        MissingDoseNotEvidence => "a missing dose is not evidence it was not taken",
        /// No window was given to the medication log, so it covers the `days` days ending today.
        LogDefaultWindow {
            /// The length of the default window.
            days: u32,
        } => format!("no window was given, so the log covers the last {days} days, ending today"),
        /// The medication log's default window has no dose, but the log has older ones.
        LogDefaultWindowEmpty {
            /// The length of the default window.
            days: u32,
        } => format!("no dose is recorded in the last {days} days; the log has older doses: give start (and end) to widen the window"),
        /// A medication answer with no rows: nothing recorded is not evidence nothing was taken.
        NoMedicationRecorded => "no medication is recorded for this person in the window; that is not evidence that none was taken",
        /// The medication keywords matched no recorded drug.
        NoMedicationMatch => "no recorded medication matched the keywords; the same call without keywords lists every one",
        /// The dose log was cut at `cap` doses, newest first.
        DoseLogCut {
            /// Doses listed at most.
            cap: u32,
        } => format!("the log lists at most {cap} doses, newest first; the counts cover the whole window; for older doses, narrow the window"),
        /// What a plan answer's `today` table is.
        DoseSlotsToday => "the today table lists today's planned dose slots of each active plan on a daily or weekly schedule: taken or missed only where a dose recorded today says so (missed is a dose recorded as skipped), due otherwise; a due slot is not evidence the dose was not taken",
    }
    /// `query_genetic_data` and `query_pharmacogenomics`: what a genotype file says.
    Genetics(GeneticsAssumption) {
        /// Genotypes are reported as the file states them.
        GenotypesAsTyped => "genotypes are reported as the file states them; no star allele, phenotype, risk or dose is inferred",
        /// GRCh37/GRCh38 positions come from the bundled site index.
        PositionsFromSiteIndex => "positions in GRCh37 and GRCh38 come from the bundled site index; a site outside the index has no position in those builds",
        /// Positions are the file's own coordinates.
        RawCoordinates => "positions are the file's own coordinates; no assembly is asserted",
        /// An rsid the file lacks was not typed.
        NotTypedNotAbsent => "a site the file does not contain was not typed; that says nothing about the genotype there",
        /// The person has no imported genotype file.
        NoGenotypeSet => "the person has no imported genotype file, so no site is typed",
        /// Some gene's key variants are not all covered.
        CoverageIncomplete => "the file does not cover every key variant of at least one gene; a gene read from partial or absent coverage is not a full reading of that gene",
        /// Arrays do not type structural variants or HLA alleles.
        ArraysMissStructural => "consumer arrays do not type gene deletions, duplications, hybrids or HLA alleles; genes without key variants in the bundled table have absent coverage",
        /// The gene has no site in the bundled index.
        GeneNotIndexed => "the bundled site index has no site of that gene; it holds pharmacogenes and a few common trait genes, and other sites can be read by rsids or by a raw region",
    }
    /// `query_pharmacogenomics`: CPIC's pairs.
    Pharmacogenomics(PharmacogenomicsAssumption) {
        /// The CPIC pairs table's version.
        CpicPairsVersion => "gene-drug pairs and levels are CPIC's table dated 2020-06-12 (CC0); levels rank the evidence for a pair, they are not a recommendation",
        /// No CPIC pair matched.
        NoCpicPair => "no CPIC gene-drug pair matched the drugs or genes given; CPIC lists drugs by generic name",
        /// A pharmacogenomics call naming no drug and no gene checks the active plans' drugs.
        PgxActivePlans => "no drugs or genes were given, so the drugs checked are those of the person's active medication plans, each matched by the CPIC generic name its recorded name contains",
        /// A pharmacogenomics call naming no drug and no gene, for a person with no active plan.
        PgxNoActivePlan => "no drugs or genes were given, and the person has no active medication plan to check; name drugs or genes",
        /// Some names given (or the active plans' drugs) matched no CPIC pair; the `unmatched`
        /// table lists them.
        PgxUnmatched => "the names in the unmatched table matched no CPIC gene-drug pair; CPIC lists drugs by generic name and genes by HGNC symbol",
    }
    /// The terminology tools.
    Terminology(TerminologyAssumption) {
        /// The name reaches several codes; the one whose canonical unit the reading's unit
        /// converts to was chosen, and the others are listed.
        CodingChosenByUnit => "the name matches several codes; the first whose canonical unit the reading's unit converts to was chosen, and the others are listed as candidates",
    }
    /// Any tool that reads a window of the record.
    Window(WindowAssumption) {
        /// No window was given, so the answer covers all recorded data.
        WindowAllRecorded => "no window was given, so the answer covers all recorded data",
    }
}
