//! How a tool and its answer look on the wire: a tool definition from its closed schema, and a
//! `CallToolResult` from an envelope.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};

use answers_protocol::args::ToolSchema;
use answers_protocol::{Envelope, Status, render_compact};

/// The published definition of a tool: its name, its description and its flat, closed input
/// schema (`additionalProperties: false`).
///
/// ```
/// use answers_protocol::args::health_indicators::QUERY_HEALTH_INDICATORS;
///
/// let tool = answers_server::mcp::tool_definition(&QUERY_HEALTH_INDICATORS);
/// assert_eq!(tool.name, "query_health_indicators");
/// assert_eq!(tool.input_schema["additionalProperties"], false);
/// ```
#[must_use]
pub fn tool_definition(schema: &ToolSchema) -> Tool {
    let input: JsonObject = match schema.json_schema() {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    Tool::new(schema.tool.as_str(), schema.description, Arc::new(input))
}

/// An envelope as a tool result: the compact rendering as the text content, the envelope as
/// `structuredContent`, and `isError: true` for an error envelope.
///
/// ```
/// use answers_protocol::{Envelope, Meta, Window, WindowSemantics};
///
/// let env = Envelope::ok(Meta::new(Window::ALL_RECORDED, "UTC", WindowSemantics::TzExact));
/// let result = answers_server::mcp::tool_result(&env);
/// assert_eq!(result.is_error, Some(false));
/// assert_eq!(result.structured_content.unwrap()["status"], "ok");
/// ```
#[must_use]
pub fn tool_result(env: &Envelope) -> CallToolResult {
    let content = vec![ContentBlock::text(render_compact(env))];
    let mut result = if env.status() == Status::Error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = serde_json::to_value(env).ok();
    result
}
