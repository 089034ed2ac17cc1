//! The closed sets a medication plan and a dose are made of: the drug code system, the plan's
//! lifecycle, why a course closed, how often and by which route a dose is taken, and whether a
//! dose was taken. Each is a `ClosedEnum` stored as its wire name; a stored value outside the
//! set reads as a driver error that carries no value.

use phi_macros::ClosedEnum;

/// The code system a drug is coded on, when it is coded at all.
///
/// ```
/// use answers_store::DrugCodeSystem;
///
/// assert_eq!(DrugCodeSystem::VARIANTS, ["rxnorm", "atc"]);
/// assert!(DrugCodeSystem::Rxnorm.is_valid_code("6918"));
/// assert!(!DrugCodeSystem::Rxnorm.is_valid_code("C07AB02"));
/// assert!(DrugCodeSystem::Atc.is_valid_code("C07AB02"));
/// assert!(DrugCodeSystem::Atc.is_valid_code("C10AA"));
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DrugCodeSystem {
    /// `RxNorm` (US National Library of Medicine): a concept id, all digits.
    Rxnorm,
    /// WHO ATC: an anatomical, therapeutic and chemical class, one to five levels.
    Atc,
}

impl DrugCodeSystem {
    /// Whether `code` has the shape of a code of this system (not whether it exists).
    ///
    /// ```
    /// use answers_store::DrugCodeSystem;
    ///
    /// assert!(DrugCodeSystem::Atc.is_valid_code("C"));
    /// assert!(!DrugCodeSystem::Atc.is_valid_code("c07ab02"));
    /// assert!(!DrugCodeSystem::Rxnorm.is_valid_code(""));
    /// ```
    #[must_use]
    pub fn is_valid_code(self, code: &str) -> bool {
        match self {
            DrugCodeSystem::Rxnorm => {
                (1..=10).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_digit())
            }
            DrugCodeSystem::Atc => {
                // Levels: A, A01, A01A, A01AA, A01AA01.
                let b = code.as_bytes();
                let shape: &[fn(u8) -> bool] = &[
                    |c| c.is_ascii_uppercase(),
                    |c| c.is_ascii_digit(),
                    |c| c.is_ascii_digit(),
                    |c| c.is_ascii_uppercase(),
                    |c| c.is_ascii_uppercase(),
                    |c| c.is_ascii_digit(),
                    |c| c.is_ascii_digit(),
                ];
                matches!(b.len(), 1 | 3 | 4 | 5 | 7) && b.iter().zip(shape).all(|(c, ok)| ok(*c))
            }
        }
    }
}

/// Where a plan is in its lifecycle.
///
/// ```
/// use answers_store::PlanStatus;
///
/// assert_eq!(PlanStatus::VARIANTS, ["active", "completed", "stopped"]);
/// assert!(PlanStatus::Stopped.is_closed());
/// assert!(!PlanStatus::Active.is_closed());
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlanStatus {
    /// The person intends to take it (an end date, if any, is the planned end).
    Active,
    /// The course ran to its planned end.
    Completed,
    /// The course was ended before its planned end, or had none.
    Stopped,
}

impl PlanStatus {
    /// Whether the course is over, so it has an end date and a reason it closed.
    ///
    /// ```
    /// assert!(answers_store::PlanStatus::Completed.is_closed());
    /// ```
    #[must_use]
    pub const fn is_closed(self) -> bool {
        !matches!(self, PlanStatus::Active)
    }
}

/// Why a course closed. The details are the plan's note, which is PHI and never returned.
///
/// ```
/// use answers_store::ClosedReason;
///
/// assert_eq!(ClosedReason::SideEffect.as_str(), "side_effect");
/// assert!("other".parse::<ClosedReason>().is_err());
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClosedReason {
    /// The planned course was finished.
    CourseCompleted,
    /// Stopped because of an unwanted effect.
    SideEffect,
    /// Stopped because it did not work well enough.
    NotEffective,
    /// Replaced by another drug or another dose (a new plan).
    Replaced,
    /// The prescriber stopped it.
    PrescriberStopped,
    /// The person stopped it on their own.
    PersonStopped,
}

/// How often a dose is planned.
///
/// ```
/// use answers_store::Frequency;
///
/// assert_eq!(Frequency::TwiceDaily.as_str(), "twice_daily");
/// assert_eq!(Frequency::TwiceDaily.doses_per_day(), Some(2));
/// assert_eq!(Frequency::AsNeeded.doses_per_day(), None);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Frequency {
    /// Once a day.
    OnceDaily,
    /// Twice a day.
    TwiceDaily,
    /// Three times a day.
    ThreeTimesDaily,
    /// Four times a day.
    FourTimesDaily,
    /// Every second day.
    EveryOtherDay,
    /// Once a week.
    Weekly,
    /// When needed, no schedule.
    AsNeeded,
}

impl Frequency {
    /// Doses on each day it is taken, for the daily schedules.
    ///
    /// ```
    /// use answers_store::Frequency;
    ///
    /// assert_eq!(Frequency::FourTimesDaily.doses_per_day(), Some(4));
    /// assert_eq!(Frequency::Weekly.doses_per_day(), None);
    /// ```
    #[must_use]
    pub const fn doses_per_day(self) -> Option<u8> {
        match self {
            Frequency::OnceDaily => Some(1),
            Frequency::TwiceDaily => Some(2),
            Frequency::ThreeTimesDaily => Some(3),
            Frequency::FourTimesDaily => Some(4),
            Frequency::EveryOtherDay | Frequency::Weekly | Frequency::AsNeeded => None,
        }
    }
}

/// How a dose is taken.
///
/// ```
/// assert_eq!(answers_store::Route::Oral.as_str(), "oral");
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Route {
    /// Swallowed.
    Oral,
    /// Under the tongue.
    Sublingual,
    /// On the skin, for a local effect.
    Topical,
    /// Through the skin (a patch).
    Transdermal,
    /// Breathed in.
    Inhaled,
    /// Into the nose.
    Nasal,
    /// Into the eye.
    Ophthalmic,
    /// Injected under the skin.
    Subcutaneous,
    /// Injected into a muscle.
    Intramuscular,
    /// Into a vein.
    Intravenous,
    /// Rectally.
    Rectal,
}

/// What the person recorded about a planned dose. A dose with no record is not here: it is
/// absent from the log, and that is not evidence it was not taken.
///
/// ```
/// assert_eq!(answers_store::DoseStatus::VARIANTS, ["taken", "skipped"]);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DoseStatus {
    /// Taken.
    Taken,
    /// Recorded as skipped.
    Skipped,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atc_shapes_by_level() {
        for ok in ["C", "C07", "C07A", "C07AB", "C07AB02"] {
            assert!(DrugCodeSystem::Atc.is_valid_code(ok), "{ok}");
        }
        for bad in ["", "C0", "C07AB0", "C07AB021", "7C", "C07ab02"] {
            assert!(!DrugCodeSystem::Atc.is_valid_code(bad), "{bad}");
        }
    }
}
