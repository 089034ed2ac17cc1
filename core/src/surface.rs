//! What the CLI and the HTTP server call: a tool by name, for one authenticated subject.

use serde_json::Value;

use crate::Envelope;
use crate::store::{Store, Subject};
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
        ToolName::QueryGeneticData => Some(crate::tools::query_genetic_data(store, subject, args)),
        ToolName::QueryPharmacogenomics => {
            Some(crate::tools::query_pharmacogenomics(store, subject, args))
        }
        // The other tools arrive with the medications, genetics and terminology work.
        _ => None,
    }
}
