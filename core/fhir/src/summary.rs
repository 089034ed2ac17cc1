//! What an import did, in counts: what was written, and what was left out and why. Unknown
//! codes and units are counted here, by kind, never guessed and never named.

use std::fmt;

/// Why a valid resource, or part of one, was not imported. Each is a kind: the summary counts
/// them and names no code, unit or value.
///
/// ```
/// use answers_fhir::Skip;
///
/// assert_eq!(Skip::UnknownUnit.as_str(), "unknown_unit");
/// assert!(Skip::ALL.iter().any(|s| *s == Skip::UnknownLoincCode));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// A resource of a type this importer does not map (Patient, Device, Encounter …).
    ResourceType,
    /// An Observation whose status says it has no usable result (registered, cancelled,
    /// entered-in-error, unknown).
    ObservationStatus,
    /// An Observation (or component) coded on no system this importer maps.
    CodeSystem,
    /// A LOINC code the bundled vocabulary does not have.
    UnknownLoincCode,
    /// A condition or reported finding whose codes map to no complaint of the bundled
    /// vocabulary.
    UnknownComplaintCode,
    /// A value other than a `valueQuantity` (a string, a coded answer, a range …), or none.
    NotAQuantity,
    /// A quantity with a comparator (`<`, `>=` …): not a value to chart.
    Comparator,
    /// A unit the bundled vocabulary does not know.
    UnknownUnit,
    /// A `device` whose display names no one kind of device the importer knows (or that has
    /// no display): its readings are left out rather than put under a guessed source.
    UnknownDevice,
    /// No time, or one given only to the year or month.
    TimePrecision,
    /// A Condition refuted or entered in error.
    ConditionStatus,
    /// A medication status with no plan status (on-hold, draft, entered-in-error, unknown,
    /// not-taken).
    MedicationStatus,
    /// A medication given by `medicationReference` rather than a concept, or without a name.
    MedicationName,
    /// A dosage timing this importer cannot map to the plan's frequencies.
    UnknownFrequency,
    /// A route code this importer cannot map, or none.
    UnknownRoute,
    /// A plan with no start day, or a closed one with no end day.
    MedicationPeriod,
    /// An administration neither completed nor not-done.
    DoseStatus,
    /// An administration with no `request`, or whose plan the same file has but left out.
    DosePlan,
}

impl Skip {
    /// Every kind, in the order the summary prints them.
    pub const ALL: [Skip; 18] = [
        Skip::ResourceType,
        Skip::ObservationStatus,
        Skip::CodeSystem,
        Skip::UnknownLoincCode,
        Skip::UnknownComplaintCode,
        Skip::NotAQuantity,
        Skip::Comparator,
        Skip::UnknownUnit,
        Skip::UnknownDevice,
        Skip::TimePrecision,
        Skip::ConditionStatus,
        Skip::MedicationStatus,
        Skip::MedicationName,
        Skip::UnknownFrequency,
        Skip::UnknownRoute,
        Skip::MedicationPeriod,
        Skip::DoseStatus,
        Skip::DosePlan,
    ];

    /// The kind's name in the summary.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Skip::ResourceType => "resource_type",
            Skip::ObservationStatus => "observation_status",
            Skip::CodeSystem => "code_system",
            Skip::UnknownLoincCode => "unknown_loinc_code",
            Skip::UnknownComplaintCode => "unknown_complaint_code",
            Skip::NotAQuantity => "not_a_quantity",
            Skip::Comparator => "comparator",
            Skip::UnknownUnit => "unknown_unit",
            Skip::UnknownDevice => "unknown_device",
            Skip::TimePrecision => "time_precision",
            Skip::ConditionStatus => "condition_status",
            Skip::MedicationStatus => "medication_status",
            Skip::MedicationName => "medication_name",
            Skip::UnknownFrequency => "unknown_frequency",
            Skip::UnknownRoute => "unknown_route",
            Skip::MedicationPeriod => "medication_period",
            Skip::DoseStatus => "dose_status",
            Skip::DosePlan => "dose_plan",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// The counts of one import. `readings`, `journal`, `plans` and `doses` are what was written
/// (a re-import writes the same rows again, unchanged).
///
/// ```
/// use answers_fhir::{Skip, Summary};
///
/// let mut s = Summary::default();
/// s.readings = 2;
/// s.skip(Skip::UnknownUnit);
/// assert_eq!(s.skipped(Skip::UnknownUnit), 1);
/// assert_eq!(s.to_string(), "resources 0\nreadings 2\njournal 0\nplans 0\ndoses 0\nskipped unknown_unit 1\n");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Resources read.
    pub resources: u64,
    /// Readings written (one per Observation, or one per component of a panel).
    pub readings: u64,
    /// Journal entries written (Conditions and reported Observations).
    pub journal: u64,
    /// Medication plans written.
    pub plans: u64,
    /// Doses written.
    pub doses: u64,
    skipped: [u64; Skip::ALL.len()],
}

impl Summary {
    /// Counts one `why`.
    pub fn skip(&mut self, why: Skip) {
        self.skipped[why.index()] += 1;
    }

    /// How many were left out for `why`.
    #[must_use]
    pub fn skipped(&self, why: Skip) -> u64 {
        self.skipped[why.index()]
    }

    /// Everything left out, over every kind.
    #[must_use]
    pub fn skipped_total(&self) -> u64 {
        self.skipped.iter().sum()
    }
}

impl fmt::Display for Summary {
    /// One `name count` line per figure; a skip kind with no count is left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "resources {}", self.resources)?;
        writeln!(f, "readings {}", self.readings)?;
        writeln!(f, "journal {}", self.journal)?;
        writeln!(f, "plans {}", self.plans)?;
        writeln!(f, "doses {}", self.doses)?;
        for why in Skip::ALL {
            let n = self.skipped(why);
            if n > 0 {
                writeln!(f, "skipped {} {n}", why.as_str())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_is_in_index_order() {
        for (i, why) in Skip::ALL.iter().enumerate() {
            assert_eq!(why.index(), i, "{}", why.as_str());
        }
    }
}
