//! ToolFault: a crashing tool becomes an error result, not a dead turn.
//!
//! The tool runs inside [`guarded`](crate::tools::fault::guarded): a panic becomes a
//! `tool_panic` envelope (unrecoverable) told by the tool's name and the payload's TYPE, never
//! its message, and is logged the same way. An error a tool answers with is already an error
//! envelope ([`ToolInvoker`] returns one), so it passes through as it is.

use std::cell::Cell;

use serde_json::Value;

use super::ToolInvoker;
use super::record::Decision;
use crate::envelope::Envelope;
use crate::tool::ToolName;
use crate::tools::fault::guarded;

/// Runs `tool` through `invoker`, containing a panic. Returns the answer and whether the tool
/// answered ([`Decision::Ran`]) or panicked ([`Decision::Faulted`]).
///
/// ```
/// use answers::governance::Decision;
/// use answers::governance::tool_fault::run_contained;
/// use answers::{ErrorKind, Envelope, ToolName, render_compact};
/// use serde_json::{Value, json};
///
/// let crashing = |_: ToolName, _: &Value| -> Envelope { panic!("LDL was 131 for mom") };
/// let (env, decision) = run_contained(&crashing, ToolName::QueryHealthIndicators, &json!({}));
/// assert_eq!(decision, Decision::Faulted);
/// assert_eq!(env.error_kind(), Some(ErrorKind::ToolPanic));
/// assert!(render_compact(&env).starts_with("error (tool_panic): query_health_indicators failed with &str"));
/// assert!(!render_compact(&env).contains("131"));
/// ```
pub fn run_contained(
    invoker: &dyn ToolInvoker,
    tool: ToolName,
    args: &Value,
) -> (Envelope, Decision) {
    let answered = Cell::new(false);
    let env = guarded(tool, Vec::new, || {
        let env = invoker.invoke(tool, args);
        answered.set(true);
        Ok(env)
    });
    let decision = if answered.get() {
        Decision::Ran
    } else {
        Decision::Faulted
    };
    (env, decision)
}
