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

use answers_protocol::{Envelope, NextAction, NextStep, ToolId};
use answers_store::{Store, StoreError, Subject};
use answers_tools::fault::{ToolError, guarded};
use answers_tools::registry::{self, Surface};

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

/// Which tools a person is shown, or that it could not be decided.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shown {
    /// The store answered every visibility check: these tools.
    Decided(Vec<ToolId>),
    /// A check failed (the store is busy or broken): every tool is listed and callable, as the
    /// original does, rather than hiding a tool the person may have data for. A call then
    /// answers with the store's real fault.
    Undecided,
}

/// [`registry::visible_tools`] for `subject`, or [`Shown::Undecided`] when a check fails. The
/// failure is logged by its type only.
fn visibility(store: &Store, subject: &Subject) -> Shown {
    match registry::visible_tools(store, subject) {
        Ok(tools) => Shown::Decided(tools),
        Err(e) => {
            tracing::warn!(
                error_type = %phi_filter::error_type(&e),
                "mcp: tool visibility undecided, every tool is listed"
            );
            Shown::Undecided
        }
    }
}

/// [`visibility`] on a handle of `pool` (a handle that cannot be opened leaves it undecided).
fn shown_to(pool: &Arc<StorePool>, subject: &Subject) -> Shown {
    match pool.get() {
        Ok(store) => visibility(&store, subject),
        Err(e) => {
            tracing::warn!(
                error_type = %phi_filter::error_type(&e),
                "mcp: tool visibility undecided, every tool is listed"
            );
            Shown::Undecided
        }
    }
}

/// The tools `tools/list` publishes: the decided ones, or every record tool.
fn listed(shown: Shown) -> Vec<ToolId> {
    match shown {
        Shown::Decided(tools) => tools,
        Shown::Undecided => registry::record_tools(),
    }
}

/// The answer to a call whose store handle could not be opened: the fault the store's error is
/// (`store_unavailable` with a retry step when it may pass, `store_fault` when it will not), told
/// by its type.
fn store_failed(tool: ToolId, e: StoreError) -> Envelope {
    let retry = || vec![NextStep::new(NextAction::RetryLater, tool)];
    guarded(tool, retry, || Err(ToolError::from(e)))
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
        let decided = tokio::task::spawn_blocking(move || shown_to(&pool, &subject)).await;
        let tools = listed(decided.unwrap_or(Shown::Undecided))
            .into_iter()
            .map(|tool| tool_definition(registry::spec(tool).schema()))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let subject = subject_of(&ctx)?;
        let on_record = |tool: &ToolId| registry::spec(*tool).on(Surface::RecordMcp);
        let Some(tool) = request.name.parse::<ToolId>().ok().filter(on_record) else {
            return Err(unknown_tool());
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        let pool = Arc::clone(&self.pool);
        let answer = tokio::task::spawn_blocking(move || {
            let store = match pool.get() {
                Ok(store) => store,
                Err(e) => return Some(store_failed(tool, e)),
            };
            let callable = match visibility(&store, &subject) {
                Shown::Decided(tools) => tools.contains(&tool),
                // Listed, so callable: the tool answers for itself, with the store's real fault
                // if it fails (unrecoverable when permanent, so governance stops retrying).
                Shown::Undecided => true,
            };
            callable
                .then(|| registry::call(&store, &subject, tool.as_str(), &args))
                .flatten()
        })
        .await
        .map_err(|_| ErrorData::internal_error("the tool call failed", None))?;
        match answer {
            Some(env) => Ok(tool_result(&env).into()),
            None => Err(unknown_tool()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use answers_protocol::{ErrorClass, ErrorKind};
    use answers_store::DbError;

    #[test]
    fn undecided_visibility_lists_every_record_tool() {
        assert_eq!(listed(Shown::Undecided), registry::record_tools());
        assert_eq!(listed(Shown::Undecided).len(), 7);
        let decided = vec![ToolId::ResolveIndicator];
        assert_eq!(listed(Shown::Decided(decided.clone())), decided);
    }

    #[test]
    fn a_handle_that_fails_answers_its_real_fault() {
        let busy = StoreError::Db(DbError::Sqlite {
            op: "open",
            kind: "DatabaseBusy".into(),
        });
        let env = store_failed(ToolId::QueryMedications, busy);
        assert_eq!(env.error_kind(), Some(ErrorKind::StoreUnavailable));
        assert_eq!(env.error_class(), Some(ErrorClass::Recoverable));
        assert_eq!(env.next_steps()[0].action, NextAction::RetryLater);

        let env = store_failed(ToolId::QueryMedications, StoreError::Db(DbError::Missing));
        assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault));
        assert_eq!(env.error_class(), Some(ErrorClass::Unrecoverable));
        assert!(env.next_steps().is_empty());
    }
}
