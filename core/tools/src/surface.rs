//! What the CLI and the HTTP server call: a tool by name, for one authenticated subject.

use serde_json::Value;

use answers_protocol::Envelope;
use crate::registry::{self, Surface, ToolId};
use crate::store::{Store, StoreError, Subject};
use crate::tool::ToolName;

/// Calls the record surface's tool named `tool` for `subject` (through the registry); `None`
/// if the record surface has no tool of that name.
///
/// ```
/// use answers_store::Store;
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-1", "you", "Europe/Berlin")?;
/// assert!(answers_tools::surface::call(&store, &you, "query_health_indicators", &serde_json::json!({})).is_some());
/// assert!(answers_tools::surface::call(&store, &you, "no_such_tool", &serde_json::json!({})).is_none());
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn call(store: &Store, subject: &Subject, tool: &str, args: &Value) -> Option<Envelope> {
    let id = ToolId::from(tool.parse::<ToolName>().ok()?);
    Some(id.spec().call(store, subject, args))
}

/// The tools `subject` is shown: the record surface's, less each data tool the person has no
/// data for (each entry's [`VisibleWhen`](crate::registry::VisibleWhen): no readings or entries
/// hides `query_health_indicators`, no medication plan hides `query_medications`, no genotype
/// set hides both genetics tools).
///
/// ```
/// use answers_store::{NewReading, Store};
/// use answers_protocol::ToolName;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-1", "you", "Europe/Berlin")?;
/// assert!(!answers_tools::surface::visible_tools(&store, &you)?.contains(&ToolName::QueryHealthIndicators));
/// # Ok::<(), answers_store::StoreError>(())
/// ```
pub fn visible_tools(store: &Store, subject: &Subject) -> Result<Vec<ToolName>, StoreError> {
    let mut shown = Vec::new();
    for spec in registry::on(Surface::RecordMcp) {
        if let Some(tool) = spec.id.record()
            && spec.visible_when.holds(store, subject)?
        {
            shown.push(tool);
        }
    }
    Ok(shown)
}
