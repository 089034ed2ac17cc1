//! The MCP surfaces, on the official SDK (`rmcp`), with the project's own closed schemas.
//!
//! - [`RecordMcp`]: the record server mounted at `/mcp` by [`router`](crate::router), one person
//!   per request (the HTTP layer authenticates a bearer token or a personal URL secret and
//!   hands the [`Authenticated`](crate::Authenticated) subject down). `tools/list` shows the seven
//!   tools less the data tools the person has no data for (all seven when the store cannot tell, as
//!   the original does; a call then answers with the store's real fault); `tools/call` answers with
//!   the compact rendering as text, the [`Envelope`](answers_protocol::Envelope) as
//!   `structuredContent`, and `isError` for an error envelope.
//! - [`VocabMcp`]: the vocabulary server `answers mcp` speaks on stdio, with no database and no
//!   key.
//!
//! Arguments are taken as a JSON object and validated by the tool's own closed schema, so an
//! unknown parameter is a structured refusal naming it, never the SDK's deserialisation text.
//! An unknown tool is a JSON-RPC error.

pub(crate) mod http;
mod ids;
mod record;
mod result;
mod vocab;

pub use self::record::RecordMcp;
pub use self::result::{tool_definition, tool_result};
pub use self::vocab::{StdioError, VocabMcp, serve_stdio};
