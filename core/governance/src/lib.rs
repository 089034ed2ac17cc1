//! Governance: what stops a model from looping in a chat turn. A library the agent harness calls
//! around each tool call, and a driver, [`run_turn`], that runs a whole turn against a
//! [`ModelPolicy`] (a model, or a scripted stand-in) and a [`ToolInvoker`] (the tools).
//!
//! Four middlewares, outermost first:
//! 1. **ToolFault** ([`tool_fault`]): a crashing tool becomes an error result told by the tool's
//!    name, the fault kind and the panic payload's TYPE, never its message.
//! 2. **RetryGovernance** ([`retry`]): a call whose `(tool, normalised arguments)` already
//!    returned an unrecoverable result is refused before it runs (`repeated_call`); the same call
//!    run its per-turn limit is refused too (`call_limit`). Arguments are normalised
//!    ([`normalize`]), so `["a","b"]` and `["b","a"]` are one call.
//! 3. **InvalidToolCallRepair** ([`repair`]): raw argument text that does not parse as JSON
//!    reaches no tool; the model is told where it broke (line and column, never the text). Two
//!    deterministic cases are salvaged: `None`/`none` for `null`, and an unquoted ISO date.
//! 4. **ModelCallLimit** + **ToolCallLimit** ([`limits`]): the turn's model budget and a cap on
//!    tool calls, with LangChain's parameter names and counting rules. `exit_behavior=continue`
//!    removes the capped tool for the rest of the turn, so the model still writes its answer.
//!
//! Governance reads the [`Envelope`] beside each tool message ([`ToolMessage::artifact`]), never
//! the text: a harness may truncate the text to nothing and governance still governs.
//!
//! Every decision is recorded as a closed value ([`Decision`], [`TurnEnd`]), and logged as
//! such: the tool's name and the decision, never arguments or results.
//!
//! ```
//! use answers_governance::{
//!     GovernanceConfig, ModelAction, ModelContext, ModelPolicy, RawToolCall, TurnEnd, run_turn,
//! };
//! use answers_protocol::{Envelope, ErrorKind, Meta, ToolId, TypeName};
//! use serde_json::Value;
//!
//! /// A model that repeats a call until governance refuses it, then answers.
//! struct Stubborn;
//! impl ModelPolicy for Stubborn {
//!     fn next(&mut self, cx: &ModelContext<'_>) -> ModelAction {
//!         match cx.messages.last().and_then(|m| m.artifact.error_kind()) {
//!             Some(ErrorKind::RepeatedCall) => ModelAction::Answer("I could not read that".into()),
//!             _ => ModelAction::call(ToolId::QueryHealthIndicators, r#"{"view": "day"}"#),
//!         }
//!     }
//! }
//! let broken = |tool: ToolId, _: &Value| {
//!     Envelope::fault(tool, ErrorKind::StoreFault, TypeName::of::<std::io::Error>())
//! };
//! let outcome = run_turn(&mut Stubborn, &broken, &GovernanceConfig::new(ToolId::ALL.to_vec())).unwrap();
//! assert_eq!(outcome.end, TurnEnd::Answered);
//! assert_eq!(outcome.tool_runs(), 1);
//! ```

// The middleware names (ToolFault, RetryGovernance, …) and LangChain are names from the design,
// not Rust items, so they are written as prose.
#![allow(clippy::doc_markdown)]

pub mod config;
pub mod limits;
pub mod normalize;
pub mod record;
pub mod repair;
pub mod retry;
pub mod tool_fault;
pub mod turn;

use serde_json::Value;

use answers_protocol::{args, envelope, render, tool};

use crate::envelope::Envelope;
use crate::tool::ToolId;

pub use self::config::GovernanceConfig;
pub use self::limits::{
    LimitConfigError, LimitExceeded, ModelCallLimit, ModelExitBehavior, ToolCallLimit,
    ToolExitBehavior,
};
pub use self::record::{Decision, Guard, Step, TurnEnd, TurnFailed, TurnOutcome};
pub use self::repair::{JsonErrorCategory, ParsePosition, Salvage};
pub use self::turn::{Thread, Turn, run_turn, run_turn_in};

/// What runs a tool: the harness binds it to a store and the subject the turn was opened on
/// (`answers_server::chat::RecordTools` binds the record tools); governance knows no store.
///
/// A closure `Fn(ToolId, &Value) -> Envelope` is an invoker, which is how tests script tools.
///
/// ```
/// use answers_governance::ToolInvoker;
/// use answers_protocol::{Envelope, Meta, Status, ToolId};
///
/// let ok = |_: ToolId, _: &serde_json::Value| Envelope::ok(Meta::none());
/// let env = ok.invoke(ToolId::QueryMedications, &serde_json::json!({}));
/// assert_eq!(env.status(), Status::Ok);
/// ```
pub trait ToolInvoker {
    /// Runs `tool` with parsed `args` and answers with its envelope. It may panic: governance
    /// contains that.
    fn invoke(&self, tool: ToolId, args: &Value) -> Envelope;
}

impl<F> ToolInvoker for F
where
    F: Fn(ToolId, &Value) -> Envelope,
{
    fn invoke(&self, tool: ToolId, args: &Value) -> Envelope {
        self(tool, args)
    }
}

/// One tool call as the model wrote it: the tool and its raw argument text.
///
/// The harness maps the model's tool name to a [`ToolId`]; a name that is no tool never
/// reaches governance (MCP answers it with a JSON-RPC error).
///
/// ```
/// use answers_governance::RawToolCall;
/// use answers_protocol::ToolId;
///
/// let call = RawToolCall { tool: ToolId::QueryHealthIndicators, arguments: r#"{"start": 2026-03-01}"#.into() };
/// assert!(serde_json::from_str::<serde_json::Value>(&call.arguments).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawToolCall {
    /// The tool called.
    pub tool: ToolId,
    /// The arguments as the model wrote them; they may not be JSON at all.
    pub arguments: String,
}

/// What the model does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelAction {
    /// Call these tools (in order), then ask the model again.
    CallTools(Vec<RawToolCall>),
    /// Answer the person; the turn ends.
    Answer(String),
}

impl ModelAction {
    /// One tool call.
    ///
    /// ```
    /// use answers_governance::ModelAction;
    /// use answers_protocol::ToolId;
    ///
    /// let a = ModelAction::call(ToolId::QueryMedications, "{}");
    /// assert!(matches!(a, ModelAction::CallTools(calls) if calls.len() == 1));
    /// ```
    #[must_use]
    pub fn call(tool: ToolId, arguments: &str) -> Self {
        Self::CallTools(vec![RawToolCall {
            tool,
            arguments: arguments.to_owned(),
        }])
    }
}

/// A tool's result as the model receives it: the rendered text, and the envelope beside it
/// (LangChain's `ToolMessage.artifact`). Governance reads only the envelope.
///
/// ```
/// use answers_governance::ToolMessage;
/// use answers_protocol::{Envelope, ErrorKind, ToolId, TypeName, render_compact};
///
/// let env = Envelope::fault(ToolId::QueryMedications, ErrorKind::StoreFault, TypeName::of::<u8>());
/// let message = ToolMessage { tool: ToolId::QueryMedications, text: render_compact(&env), artifact: env };
/// assert_eq!(message.artifact.error_kind(), Some(ErrorKind::StoreFault));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolMessage {
    /// The tool the message answers.
    pub tool: ToolId,
    /// What the model reads (possibly truncated by the harness).
    pub text: String,
    /// What programs read.
    pub artifact: Envelope,
}

/// What the model sees when it is asked for its next action.
///
/// ```
/// use answers_governance::ModelContext;
/// use answers_protocol::ToolId;
///
/// let tools = [ToolId::QueryHealthIndicators, ToolId::QueryMedications];
/// let cx = ModelContext { tools: &tools, messages: &[], model_calls: 1 };
/// assert_eq!(cx.tools.len(), 2);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ModelContext<'a> {
    /// The tools it may call now (a capped tool is gone).
    pub tools: &'a [ToolId],
    /// Every tool message of the turn so far, in order.
    pub messages: &'a [ToolMessage],
    /// Which model call of the turn this is (1-based).
    pub model_calls: u32,
}

/// A model, or a scripted stand-in for one. A closure
/// `FnMut(&ModelContext) -> ModelAction` is a policy.
///
/// ```
/// use answers_governance::{ModelAction, ModelContext, ModelPolicy};
/// use answers_protocol::ToolId;
///
/// struct Polite;
/// impl ModelPolicy for Polite {
///     fn next(&mut self, cx: &ModelContext<'_>) -> ModelAction {
///         ModelAction::Answer(format!("{} tools, no need", cx.tools.len()))
///     }
/// }
/// let tools = [ToolId::QueryMedications];
/// let cx = ModelContext { tools: &tools, messages: &[], model_calls: 1 };
/// assert_eq!(Polite.next(&cx), ModelAction::Answer("1 tools, no need".into()));
/// ```
pub trait ModelPolicy {
    /// The next action, given what the turn has seen.
    fn next(&mut self, context: &ModelContext<'_>) -> ModelAction;
}
