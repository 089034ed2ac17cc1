//! The one tool registry: every tool the answers layer serves, keyed by [`ToolId`], with the
//! surfaces that publish it, when a person is shown it, its published argument schema and
//! what runs it (on REST too).
//!
//! [`ToolId`] is defined in `answers-protocol`, since an envelope, a next step and governance
//! name tools and sit below this package; it is given meaning here, and nowhere else.
//!
//! Every list of tools and every call is read from [`TOOLS`]: the record MCP server's
//! `tools/list` (through [`visible_tools`]), the vocabulary server's, the tools of a chat turn
//! ([`chat_tools`]), a tool by name ([`call`], [`vocab_call`]), the REST routes
//! ([`rest_call`]) and `answers tools --json`, which the Python MCP client and `phi-ci` read
//! instead of keeping copies.
//!
//! Adding a tool: its [`ToolId`] and its `ToolSchema` in the protocol (the compiler then asks
//! for its `schema_for` entry), its folder under `tools/`, and one entry here; the table is a
//! `ToolIdTable`, so a new [`ToolId`] does not compile without its entry.

use phi_macros::ClosedEnum;

pub use answers_protocol::{ToolId, ToolIdTable};
use serde_json::{Value, json};

use crate::readings::{Entries, RowBudget, query_entries_within};
use crate::store::{EntryKind, Store, StoreError, Subject};
use crate::terminology;
use answers_protocol::args::schema_for;
use answers_protocol::{Envelope, ToolSchema};

/// The registry entry of `tool`.
///
/// ```
/// use answers_tools::registry::{Surface, ToolId, spec};
/// assert!(spec(ToolId::ConvertUnit).on(Surface::VocabMcp));
/// ```
#[must_use]
pub fn spec(tool: ToolId) -> &'static ToolSpec {
    TOOLS.get(tool)
}

/// Where a tool is published.
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Surface {
    /// The record MCP server at `/mcp` on `answers serve` (and `answers query`).
    RecordMcp,
    /// The database-free vocabulary MCP server, `answers mcp` on stdio.
    VocabMcp,
    /// The tools a model may call in a governed chat turn.
    Chat,
    /// The REST API of `answers serve` (`/api/v1/…`).
    Rest,
}

/// When the record surface shows a person a tool: always, or only when the person has the data
/// the tool reads (a data tool for data the person never recorded is hidden, and cannot be
/// called).
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VisibleWhen {
    /// Every person sees it (the terminology tools read no record).
    Always,
    /// The person has a reading or a reported entry.
    HasReadings,
    /// The person has a medication plan.
    HasMedications,
    /// The person has a genotype set.
    HasGenotypes,
}

impl VisibleWhen {
    /// Whether `subject` is shown a tool with this rule.
    pub fn holds(self, store: &Store, subject: &Subject) -> Result<bool, StoreError> {
        match self {
            VisibleWhen::Always => Ok(true),
            VisibleWhen::HasReadings => store.has_entries(&subject.id),
            VisibleWhen::HasMedications => crate::store::has_medications(store, subject),
            VisibleWhen::HasGenotypes => crate::store::has_genotypes(store, subject),
        }
    }
}

/// What runs a tool.
#[derive(Clone, Copy)]
pub enum Run {
    /// A tool that reads the record of the one authenticated subject.
    Record(fn(&Store, &Subject, &Value) -> Envelope),
    /// A tool that reads no record.
    Vocab(fn(&Value) -> Envelope),
}

/// What a REST route runs: the tool for one of the browser's two lists, the entries of one
/// [`EntryKind`] (the Indicators tab reads [`EntryKind::Measured`], the journal
/// [`EntryKind::Reported`]), with the browser's budget.
pub type RestRun = fn(&Store, &Subject, &Value, EntryKind) -> Envelope;

/// One registry entry.
#[derive(Clone, Copy)]
pub struct ToolSpec {
    /// The tool.
    pub id: ToolId,
    /// The surfaces that publish it.
    pub surfaces: &'static [Surface],
    /// When the record surface shows it.
    pub visible_when: VisibleWhen,
    /// What runs it.
    pub run: Run,
    /// What a REST route runs, for a tool [`Surface::Rest`] publishes.
    pub rest: Option<RestRun>,
}

impl ToolSpec {
    /// Its declared arguments: the published schema (flat, closed, enums inline) and their
    /// validation, from the protocol's one table (`schema_for`), which the renderer and
    /// governance also read.
    #[must_use]
    pub fn schema(&self) -> &'static ToolSchema {
        schema_for(self.id)
    }

    /// Whether `surface` publishes the tool.
    #[must_use]
    pub fn on(&self, surface: Surface) -> bool {
        self.surfaces.contains(&surface)
    }

    /// Runs the tool for `subject` (a tool that reads no record ignores the store).
    #[must_use]
    pub fn call(&self, store: &Store, subject: &Subject, args: &Value) -> Envelope {
        match self.run {
            Run::Record(run) => run(store, subject, args),
            Run::Vocab(run) => run(args),
        }
    }
}

use Surface::{Chat, RecordMcp, Rest, VocabMcp};

/// Every tool.
pub const TOOLS: ToolIdTable<ToolSpec> = ToolIdTable {
    query_health_indicators: ToolSpec {
        id: ToolId::QueryHealthIndicators,
        surfaces: &[RecordMcp, Chat, Rest],
        visible_when: VisibleWhen::HasReadings,
        run: Run::Record(crate::query_health_indicators),
        rest: Some(|store, subject, args, kind| {
            query_entries_within(store, subject, args, RowBudget::REST, Entries::Only(kind))
        }),
    },
    query_medications: ToolSpec {
        id: ToolId::QueryMedications,
        surfaces: &[RecordMcp, Chat],
        visible_when: VisibleWhen::HasMedications,
        run: Run::Record(crate::query_medications),
        rest: None,
    },
    query_genetic_data: ToolSpec {
        id: ToolId::QueryGeneticData,
        surfaces: &[RecordMcp, Chat],
        visible_when: VisibleWhen::HasGenotypes,
        run: Run::Record(crate::query_genetic_data),
        rest: None,
    },
    query_pharmacogenomics: ToolSpec {
        id: ToolId::QueryPharmacogenomics,
        surfaces: &[RecordMcp, Chat],
        visible_when: VisibleWhen::HasGenotypes,
        run: Run::Record(crate::query_pharmacogenomics),
        rest: None,
    },
    standardize_reading: ToolSpec {
        id: ToolId::StandardizeReading,
        surfaces: &[VocabMcp],
        visible_when: VisibleWhen::Always,
        run: Run::Vocab(terminology::standardize_reading),
        rest: None,
    },
    standardize_complaint: ToolSpec {
        id: ToolId::StandardizeComplaint,
        surfaces: &[VocabMcp],
        visible_when: VisibleWhen::Always,
        run: Run::Vocab(terminology::standardize_complaint),
        rest: None,
    },
    resolve_indicator: ToolSpec {
        id: ToolId::ResolveIndicator,
        surfaces: &[RecordMcp, VocabMcp],
        visible_when: VisibleWhen::Always,
        run: Run::Vocab(terminology::resolve_indicator),
        rest: None,
    },
    convert_unit: ToolSpec {
        id: ToolId::ConvertUnit,
        surfaces: &[RecordMcp, VocabMcp],
        visible_when: VisibleWhen::Always,
        run: Run::Vocab(terminology::convert_unit),
        rest: None,
    },
    normalize_unit: ToolSpec {
        id: ToolId::NormalizeUnit,
        surfaces: &[RecordMcp, VocabMcp],
        visible_when: VisibleWhen::Always,
        run: Run::Vocab(terminology::normalize_unit),
        rest: None,
    },
};

/// The entries `surface` publishes, in listing order.
pub fn on(surface: Surface) -> impl Iterator<Item = &'static ToolSpec> {
    ToolId::ALL
        .iter()
        .map(|&id| spec(id))
        .filter(move |spec| spec.on(surface))
}

/// Calls the record surface's tool named `tool` for `subject` (through the registry); `None`
/// if the record surface has no tool of that name.
///
/// ```
/// use answers_store::Store;
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-1", "you", "Europe/Berlin")?;
/// assert!(answers_tools::registry::call(&store, &you, "query_health_indicators", &serde_json::json!({})).is_some());
/// assert!(answers_tools::registry::call(&store, &you, "no_such_tool", &serde_json::json!({})).is_none());
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn call(store: &Store, subject: &Subject, tool: &str, args: &Value) -> Option<Envelope> {
    let spec = spec(tool.parse().ok()?);
    spec.on(RecordMcp).then(|| spec.call(store, subject, args))
}

/// Runs `tool` for one REST list (the entries of `kind`) for `subject`, through the registry;
/// `None` if [`Surface::Rest`] does not publish the tool.
///
/// ```
/// use answers_store::{EntryKind, Store};
/// use answers_tools::registry::{ToolId, rest_call};
/// use serde_json::json;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-1", "you", "Europe/Berlin")?;
/// let tool = ToolId::QueryHealthIndicators;
/// assert!(rest_call(tool, EntryKind::Reported, &store, &you, &json!({})).is_some());
/// assert!(rest_call(ToolId::QueryMedications, EntryKind::Measured, &store, &you, &json!({})).is_none());
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[must_use]
pub fn rest_call(
    tool: ToolId,
    kind: EntryKind,
    store: &Store,
    subject: &Subject,
    args: &Value,
) -> Option<Envelope> {
    let spec = spec(tool);
    match spec.rest {
        Some(run) if spec.on(Rest) => Some(run(store, subject, args, kind)),
        _ => None,
    }
}

/// The tools `subject` is shown: the record surface's, less each data tool the person has no
/// data for (each entry's [`VisibleWhen`]: no readings or entries hides
/// `query_health_indicators`, no medication plan hides `query_medications`, no genotype set
/// hides both genetics tools).
///
/// ```
/// use answers_store::Store;
/// use answers_tools::registry::ToolId;
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-1", "you", "Europe/Berlin")?;
/// let shown = answers_tools::registry::visible_tools(&store, &you)?;
/// assert!(!shown.contains(&ToolId::QueryHealthIndicators));
/// assert!(shown.contains(&ToolId::ConvertUnit));
/// # Ok::<(), answers_store::StoreError>(())
/// ```
pub fn visible_tools(store: &Store, subject: &Subject) -> Result<Vec<ToolId>, StoreError> {
    let mut shown = Vec::new();
    for spec in on(Surface::RecordMcp) {
        if spec.visible_when.holds(store, subject)? {
            shown.push(spec.id);
        }
    }
    Ok(shown)
}

/// Every tool the record surface publishes, in listing order: what a person is shown when their
/// data could not be checked (the record MCP server then lists every tool, as the original does,
/// and a call answers with the store's real fault).
///
/// ```
/// use answers_tools::registry::{ToolId, record_tools};
/// assert_eq!(record_tools().len(), 7);
/// assert!(!record_tools().contains(&ToolId::StandardizeReading));
/// ```
#[must_use]
pub fn record_tools() -> Vec<ToolId> {
    on(RecordMcp).map(|spec| spec.id).collect()
}

/// The tools a chat turn offers the model: the four record tools, not the three terminology
/// tools (the readings tool already resolves names and units).
#[must_use]
pub fn chat_tools() -> Vec<ToolId> {
    on(Chat).map(|spec| spec.id).collect()
}

/// Calls the vocabulary server's tool named `tool`; `None` if it serves no tool of that name.
///
/// ```
/// use answers_tools::registry::vocab_call;
/// use serde_json::json;
///
/// let env = vocab_call("standardize_complaint", &json!({"text": "头疼"})).unwrap();
/// assert!(answers_protocol::render_compact(&env).contains("N01"));
/// assert!(vocab_call("query_health_indicators", &json!({})).is_none());
/// ```
#[must_use]
pub fn vocab_call(tool: &str, args: &Value) -> Option<Envelope> {
    let spec = spec(tool.parse().ok()?);
    match spec.run {
        Run::Vocab(run) if spec.on(VocabMcp) => Some(run(args)),
        _ => None,
    }
}

/// The registry as `answers tools --json` prints it:
/// `{"tools":[{"name":…,"surfaces":[…],"visible_when":…}, …]}`, in listing order.
#[must_use]
pub fn to_json() -> Value {
    let tools: Vec<Value> = ToolId::ALL
        .iter()
        .map(|id| {
            let spec = spec(*id);
            json!({
                "name": id.as_str(),
                "surfaces": spec.surfaces.iter().map(Surface::as_str).collect::<Vec<_>>(),
                "visible_when": spec.visible_when.as_str(),
            })
        })
        .collect();
    json!({ "tools": tools })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_keyed_by_its_own_id_and_published_somewhere() {
        for &id in ToolId::ALL {
            assert_eq!(spec(id).id, id);
            assert!(!spec(id).surfaces.is_empty(), "{id}");
        }
    }

    #[test]
    fn the_record_and_vocabulary_surfaces_publish_seven_and_five() {
        use ToolId::{
            ConvertUnit, NormalizeUnit, QueryGeneticData, QueryHealthIndicators, QueryMedications,
            QueryPharmacogenomics, ResolveIndicator, StandardizeComplaint, StandardizeReading,
        };
        let ids = |surface| on(surface).map(|s| s.id).collect::<Vec<_>>();
        assert_eq!(
            ids(RecordMcp),
            [
                QueryHealthIndicators,
                QueryMedications,
                QueryGeneticData,
                QueryPharmacogenomics,
                ResolveIndicator,
                ConvertUnit,
                NormalizeUnit,
            ]
        );
        assert_eq!(
            ids(VocabMcp),
            [
                StandardizeReading,
                StandardizeComplaint,
                ResolveIndicator,
                ConvertUnit,
                NormalizeUnit,
            ]
        );
    }

    #[test]
    fn a_record_call_is_refused_for_a_tool_only_the_vocabulary_server_serves() {
        let store = Store::open_in_memory().unwrap();
        let you = store.upsert_subject("subj-1", "you", "UTC").unwrap();
        let args = json!({"text": "headache"});
        assert!(call(&store, &you, "standardize_complaint", &args).is_none());
        assert!(vocab_call("standardize_complaint", &args).is_some());
    }

    #[test]
    fn a_tool_is_on_rest_exactly_when_it_has_a_rest_run() {
        for spec in ToolId::ALL.iter().map(|&id| super::spec(id)) {
            assert_eq!(spec.on(Rest), spec.rest.is_some(), "{}", spec.id);
        }
        assert_eq!(on(Rest).count(), 1);
    }

    #[test]
    fn a_chat_offers_the_four_record_tools() {
        assert_eq!(
            chat_tools(),
            [
                ToolId::QueryHealthIndicators,
                ToolId::QueryMedications,
                ToolId::QueryGeneticData,
                ToolId::QueryPharmacogenomics,
            ]
        );
    }

    #[test]
    fn the_json_names_each_tool_once_with_closed_values() {
        let json = to_json();
        let tools = json["tools"].as_array().unwrap();
        assert_eq!(tools.len(), ToolId::ALL.len());
        assert_eq!(
            tools[0],
            json!({"name": "query_health_indicators", "surfaces": ["record_mcp", "chat", "rest"], "visible_when": "has_readings"})
        );
        for t in tools {
            assert!(VisibleWhen::VARIANTS.contains(&t["visible_when"].as_str().unwrap()));
        }
    }

    #[test]
    fn each_schema_is_the_closed_one_its_tool_publishes() {
        for spec in ToolId::ALL.iter().map(|&id| super::spec(id)) {
            assert_eq!(spec.schema().tool, spec.id);
            assert_eq!(
                spec.schema().json_schema()["additionalProperties"],
                json!(false),
                "{}",
                spec.id
            );
        }
    }
}
