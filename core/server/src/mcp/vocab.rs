//! The vocabulary server: `answers mcp` on stdio, with no database and no key. Five tools over
//! the bundled vocabularies: `standardize_reading` (a reading as printed to a FHIR R4
//! `Observation`), `standardize_complaint` (a complaint to its ICPC code) and the three
//! terminology tools, with the same bodies as on the record server.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;

use super::result::{tool_definition, tool_result};
use answers_tools::registry::{self, Surface, vocab_call};

/// The vocabulary server's handler; it holds nothing, since the vocabularies are bundled.
#[derive(Debug, Clone, Copy, Default)]
pub struct VocabMcp;

/// Why the stdio server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    /// The runtime could not start, or the transport failed; the I/O error kind.
    #[error("cannot {op} ({kind:?})")]
    Io {
        /// What the server was doing.
        op: &'static str,
        /// The I/O error kind.
        kind: std::io::ErrorKind,
    },
    /// The MCP session could not start (the client spoke something else).
    #[error("the MCP session could not start")]
    Session,
}

/// Serves [`VocabMcp`] on standard input and output until the client closes them. Logs go to
/// standard error (standard output is the protocol).
pub fn serve_stdio() -> Result<(), StdioError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StdioError::Io {
            op: "start the runtime",
            kind: e.kind(),
        })?;
    runtime.block_on(async {
        let service = VocabMcp
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|_| StdioError::Session)?;
        service.waiting().await.map_err(|e| StdioError::Io {
            op: "serve on stdio",
            kind: std::io::Error::other(e).kind(),
        })?;
        Ok(())
    })
}

impl ServerHandler for VocabMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "answers-vocab",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Health vocabularies offline: LOINC codes for readings, ICPC codes for \
                 complaints, UCUM units and conversions. No record is read.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            registry::on(Surface::VocabMcp)
                .map(|spec| tool_definition(spec.schema()))
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        match vocab_call(&request.name, &args) {
            Some(env) => Ok(tool_result(&env).into()),
            None => Err(ErrorData::invalid_params("tool not found", None)),
        }
    }
}
