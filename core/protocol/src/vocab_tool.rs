//! `VocabToolName`: the closed set of tools the database-free vocabulary server (`answers mcp`,
//! stdio) serves.

use phi_macros::ClosedEnum;

use crate::tool::ToolName;

/// A tool of the vocabulary server, by its published name.
///
/// Five tools: the vocabulary server's own two (`standardize_reading`, `standardize_complaint`),
/// which no record surface serves and which are therefore not [`ToolName`]s, and the three
/// terminology tools, whose bodies the record surface shares.
///
/// ```
/// use answers_protocol::{ToolName, VocabToolName};
///
/// assert_eq!(VocabToolName::ALL.len(), 5);
/// assert_eq!("standardize_reading".parse::<VocabToolName>(), Ok(VocabToolName::StandardizeReading));
/// assert_eq!(VocabToolName::ConvertUnit.published(), Some(ToolName::ConvertUnit));
/// assert_eq!(VocabToolName::StandardizeComplaint.published(), None);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VocabToolName {
    /// A reading as printed to a FHIR R4 `Observation` with its LOINC coding and UCUM quantity.
    StandardizeReading,
    /// A complaint as said to its ICPC code and title.
    StandardizeComplaint,
    /// An indicator name to its LOINC coding.
    ResolveIndicator,
    /// A value from one unit to another.
    ConvertUnit,
    /// A unit as printed to its UCUM form.
    NormalizeUnit,
}

impl VocabToolName {
    /// The same tool among the seven the record surface publishes, if it is one of them.
    ///
    /// ```
    /// use answers_protocol::{ToolName, VocabToolName};
    ///
    /// assert_eq!(VocabToolName::ResolveIndicator.published(), Some(ToolName::ResolveIndicator));
    /// assert_eq!(VocabToolName::StandardizeReading.published(), None);
    /// ```
    #[must_use]
    pub const fn published(self) -> Option<ToolName> {
        match self {
            VocabToolName::StandardizeReading | VocabToolName::StandardizeComplaint => None,
            VocabToolName::ResolveIndicator => Some(ToolName::ResolveIndicator),
            VocabToolName::ConvertUnit => Some(ToolName::ConvertUnit),
            VocabToolName::NormalizeUnit => Some(ToolName::NormalizeUnit),
        }
    }
}
