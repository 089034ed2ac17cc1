//! `ToolName`: the closed set of tools that answer with an [`Envelope`](crate::Envelope).

use phi_macros::ClosedEnum;

/// A tool of the answers layer, by its published name.
///
/// The seven tools of the MCP surface. An error envelope names its tool with this type, so a
/// tool name in an envelope is always one the server publishes, never text a caller made up.
///
/// ```
/// use answers_protocol::ToolName;
///
/// assert_eq!(ToolName::QueryHealthIndicators.as_str(), "query_health_indicators");
/// assert_eq!("convert_unit".parse::<ToolName>(), Ok(ToolName::ConvertUnit));
/// assert_eq!(ToolName::ALL.len(), 7);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolName {
    /// Readings and reported entries: the catalogue, keyword search, values by view.
    QueryHealthIndicators,
    /// Medication plans, the dose log and the history of courses.
    QueryMedications,
    /// Genotype facts by rsid, gene or region.
    QueryGeneticData,
    /// CPIC drug-gene links and coverage.
    QueryPharmacogenomics,
    /// An indicator name to its LOINC coding.
    ResolveIndicator,
    /// A value from one unit to another.
    ConvertUnit,
    /// A unit as printed to its UCUM form.
    NormalizeUnit,
}
