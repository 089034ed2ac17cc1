//! The record server: the seven tools over streamable HTTP, for the one person a request is
//! authenticated as.

use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use answers_protocol::args::schema_for;
use answers_protocol::{Envelope, ErrorKind, ToolName, TypeName};
use answers_store::Subject;
use answers_tools::registry;

use super::result::{tool_definition, tool_result};
use crate::auth::Authenticated;
use crate::pool::StorePool;

/// The record server's handler. Every request reads the store for the [`Authenticated`]
/// subject only (the HTTP layer puts it in the request's extensions); a request without one is
/// refused.
#[derive(Debug, Clone)]
pub struct RecordMcp {
    pool: Arc<StorePool>,
}

impl RecordMcp {
    /// A handler on the stores of `pool`, shared with the rest of the service.
    #[must_use]
    pub fn new(pool: Arc<StorePool>) -> Self {
        Self { pool }
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
        let pool = Arc::clone(&self.pool);
        let visible =
            tokio::task::spawn_blocking(move || registry::visible_tools(&*pool.get()?, &subject))
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
        let pool = Arc::clone(&self.pool);
        let answer = tokio::task::spawn_blocking(move || {
            let answered = pool.get().and_then(|store| {
                let shown = registry::visible_tools(&store, &subject)?.contains(&tool);
                Ok(shown
                    .then(|| registry::call(&store, &subject, tool.as_str(), &args))
                    .flatten())
            });
            answered.unwrap_or_else(|e| {
                Some(Envelope::fault(
                    tool,
                    ErrorKind::StoreUnavailable,
                    TypeName::of_val(&e),
                ))
            })
        })
        .await
        .map_err(|_| ErrorData::internal_error("the tool call failed", None))?;
        match answer {
            Some(env) => Ok(tool_result(&env).into()),
            None => Err(unknown_tool()),
        }
    }
}
