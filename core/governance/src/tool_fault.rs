//! ToolFault: a crashing tool becomes an error result, not a dead turn.
//!
//! A panic in the tool becomes a `tool_panic` envelope (unrecoverable) told by the tool's name
//! and the payload's TYPE ([`TypeName::of_panic`]), never its message, and is logged the same
//! way. An error a tool answers with is already an error envelope ([`ToolInvoker`] returns one),
//! so it passes through as it is (the tools turn a store error into one themselves, with
//! `answers_tools::fault::guarded`).

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::ToolInvoker;
use super::record::Decision;
use crate::envelope::Envelope;
use crate::envelope::error::TypeName;
use crate::envelope::kinds::ErrorKind;
use crate::tool::ToolId;

/// Runs `tool` through `invoker`, containing a panic. Returns the answer and whether the tool
/// answered ([`Decision::Ran`]) or panicked ([`Decision::Faulted`]).
///
/// ```
/// use answers_governance::Decision;
/// use answers_governance::tool_fault::run_contained;
/// use answers_protocol::{ErrorKind, Envelope, ToolId, render_compact};
/// use serde_json::{Value, json};
///
/// let crashing = |_: ToolId, _: &Value| -> Envelope { panic!("LDL was 131 for mom") };
/// let (env, decision) = run_contained(&crashing, ToolId::QueryHealthIndicators, &json!({}));
/// assert_eq!(decision, Decision::Faulted);
/// assert_eq!(env.error_kind(), Some(ErrorKind::ToolPanic));
/// assert!(render_compact(&env).starts_with("error (tool_panic): query_health_indicators failed with &str"));
/// assert!(!render_compact(&env).contains("131"));
/// ```
pub fn run_contained(
    invoker: &dyn ToolInvoker,
    tool: ToolId,
    args: &Value,
) -> (Envelope, Decision) {
    // The invoker reads through shared references only; a panic halfway leaves nothing
    // half-written for the turn to observe.
    match catch_unwind(AssertUnwindSafe(|| invoker.invoke(tool, args))) {
        Ok(env) => (env, Decision::Ran),
        Err(payload) => {
            let error_type = TypeName::of_panic(payload.as_ref());
            tracing::error!(
                error_kind = ErrorKind::ToolPanic.as_str(),
                error_type = error_type.as_str(),
                "tool panicked"
            );
            (
                Envelope::fault(tool, ErrorKind::ToolPanic, error_type),
                Decision::Faulted,
            )
        }
    }
}
