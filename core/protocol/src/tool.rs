//! `ToolId`: the one closed set of tools that answer with an [`Envelope`](crate::Envelope), on
//! every surface.

use phi_macros::ClosedEnum;

/// A tool of the answers layer, by its published name.
///
/// The one tool id: an envelope, a next step, a schema and governance name a tool with it, and
/// `answers_tools::registry::TOOLS` (a `ToolIdTable`) says where each is published, when a
/// person is shown it and what runs it. A tool name in an envelope is therefore always one the
/// service serves, never text a caller made up.
///
/// The order is the order every surface lists its tools in: the record tools, then the
/// vocabulary server's own two, then the three terminology tools both MCP servers publish.
///
/// ```
/// use answers_protocol::ToolId;
///
/// assert_eq!(ToolId::QueryHealthIndicators.as_str(), "query_health_indicators");
/// assert_eq!("convert_unit".parse::<ToolId>(), Ok(ToolId::ConvertUnit));
/// assert_eq!(ToolId::ALL.len(), 9);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolId {
    /// Readings and reported entries: the catalogue, keyword search, values by view.
    QueryHealthIndicators,
    /// Medication plans, the dose log and the history of courses.
    QueryMedications,
    /// Genotype facts by rsid, gene or region.
    QueryGeneticData,
    /// CPIC drug-gene links and coverage.
    QueryPharmacogenomics,
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
