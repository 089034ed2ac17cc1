//! What the CLI and the HTTP server call: a tool by name, for one authenticated subject.

use serde_json::Value;

use crate::Envelope;
use crate::store::{Store, StoreError, Subject};
use crate::tool::ToolName;

/// Calls the tool named `tool` for `subject`; `None` if no tool of that name exists here.
///
/// ```
/// use answers::store::Store;
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-1", "you", "Europe/Berlin")?;
/// assert!(answers::surface::call(&store, &you, "query_health_indicators", &serde_json::json!({})).is_some());
/// assert!(answers::surface::call(&store, &you, "no_such_tool", &serde_json::json!({})).is_none());
/// # Ok::<(), answers::store::StoreError>(())
/// ```
#[must_use]
pub fn call(store: &Store, subject: &Subject, tool: &str, args: &Value) -> Option<Envelope> {
    match tool.parse::<ToolName>().ok()? {
        ToolName::QueryHealthIndicators => {
            Some(crate::tools::query_health_indicators(store, subject, args))
        }
        ToolName::QueryMedications => Some(crate::tools::query_medications(store, subject, args)),
        ToolName::ResolveIndicator => Some(crate::tools::terminology::resolve_indicator(args)),
        ToolName::ConvertUnit => Some(crate::tools::terminology::convert_unit(args)),
        ToolName::NormalizeUnit => Some(crate::tools::terminology::normalize_unit(args)),
        ToolName::QueryGeneticData => Some(crate::tools::query_genetic_data(store, subject, args)),
        ToolName::QueryPharmacogenomics => {
            Some(crate::tools::query_pharmacogenomics(store, subject, args))
        }
    }
}

/// The tools `subject` is shown: the seven, less each data tool the person has no data for
/// (no readings or entries hides `query_health_indicators`, no medication plan hides
/// `query_medications`, no genotype set hides both genetics tools).
///
/// ```
/// use answers::store::{NewReading, Store};
/// use answers::ToolName;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-1", "you", "Europe/Berlin")?;
/// assert!(!answers::surface::visible_tools(&store, &you)?.contains(&ToolName::QueryHealthIndicators));
/// # Ok::<(), answers::store::StoreError>(())
/// ```
pub fn visible_tools(store: &Store, subject: &Subject) -> Result<Vec<ToolName>, StoreError> {
    let readings = store.has_entries(&subject.id)?;
    let medications = crate::store::has_medications(store, subject)?;
    let genotypes = crate::store::has_genotypes(store, subject)?;
    Ok(ToolName::ALL
        .iter()
        .copied()
        .filter(|tool| match tool {
            ToolName::QueryHealthIndicators => readings,
            ToolName::QueryMedications => medications,
            ToolName::QueryGeneticData | ToolName::QueryPharmacogenomics => genotypes,
            ToolName::ResolveIndicator | ToolName::ConvertUnit | ToolName::NormalizeUnit => true,
        })
        .collect())
}
