//! The record server: the seven tools over streamable HTTP, for the one person a request is
//! authenticated as.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use super::result::{tool_definition, tool_result};
use crate::args::schema_for;
use crate::envelope::Envelope;
use crate::envelope::kinds::ErrorKind;
use crate::store::{Store, Subject};
use crate::surface;
use crate::tool::ToolName;

/// The subject a request is authenticated as; the HTTP layer inserts it into the request's
/// extensions before the request reaches [`RecordMcp`]. No tool parameter names a person.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Subject);

/// The record server's handler. Every request reads the store for the [`Authenticated`]
/// subject only; a request without one is refused.
#[derive(Debug, Clone)]
pub struct RecordMcp {
    store: Arc<Mutex<Store>>,
}

impl RecordMcp {
    /// A handler on `store`, shared with the rest of the service.
    #[must_use]
    pub fn new(store: Arc<Mutex<Store>>) -> Self {
        Self { store }
    }
}

/// The subject the HTTP layer authenticated, from the request's parts.
fn subject_of(ctx: &RequestContext<RoleServer>) -> Result<Subject, ErrorData> {
    ctx.extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Authenticated>())
        .map(|a| a.0.clone())
        .ok_or_else(|| ErrorData::invalid_request("not authenticated", None))
}

/// What `tools/call` answers for a tool that is not on the caller's list.
fn unknown_tool() -> ErrorData {
    ErrorData::invalid_params("tool not found", None)
}

impl ServerHandler for RecordMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("answers", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Tools over one person's health record: readings and reported entries, \
                 medications, genotypes and pharmacogenomics, and the vocabularies. Every \
                 answer states its window and its assumptions; absence of data is not \
                 evidence of absence.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let subject = subject_of(&ctx)?;
        let store = Arc::clone(&self.store);
        let visible = tokio::task::spawn_blocking(move || {
            let store = store.lock().unwrap_or_else(PoisonError::into_inner);
            surface::visible_tools(&store, &subject)
        })
        .await
        .map_err(|_| ErrorData::internal_error("the tool list failed", None))?
        .map_err(|_| ErrorData::internal_error("the record store is unavailable", None))?;
        let tools = visible
            .into_iter()
            .filter_map(schema_for)
            .map(tool_definition)
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let subject = subject_of(&ctx)?;
        let Ok(tool) = request.name.parse::<ToolName>() else {
            return Err(unknown_tool());
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        let store = Arc::clone(&self.store);
        let answer = tokio::task::spawn_blocking(move || {
            let store = store.lock().unwrap_or_else(PoisonError::into_inner);
            match surface::visible_tools(&store, &subject) {
                Ok(visible) if !visible.contains(&tool) => None,
                Ok(_) => surface::call(&store, &subject, tool.as_str(), &args),
                Err(e) => Some(Envelope::fault(
                    tool,
                    ErrorKind::StoreUnavailable,
                    crate::TypeName::of_val(&e),
                )),
            }
        })
        .await
        .map_err(|_| ErrorData::internal_error("the tool call failed", None))?;
        match answer {
            Some(env) => Ok(tool_result(&env).into()),
            None => Err(unknown_tool()),
        }
    }
}
