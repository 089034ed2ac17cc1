//! ToolFault: a crashing tool becomes an error result, not a dead turn.
//!
//! The tool runs inside [`crate::tools::fault::guarded`]: a panic becomes a
//! `tool_panic` envelope (unrecoverable) told by the tool's name and the payload's TYPE, never
//! its message, and is logged the same way. An error a tool answers with is already an error
//! envelope ([`ToolInvoker`] returns one), so it passes through as it is; a tool body that
//! returns `Result<Envelope, ToolError>` is made an invoker by [`Fallible`], which turns the
//! error into a fault envelope the same way.

use std::cell::Cell;

use serde_json::Value;

use super::ToolInvoker;
use super::record::Decision;
use crate::envelope::Envelope;
use crate::envelope::next_step::{NextAction, NextStep};
use crate::tool::ToolName;
use crate::tools::fault::{ToolError, guarded};

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

/// A tool body that fails with a [`ToolError`], as a [`ToolInvoker`]: a busy or locked store
/// becomes `store_unavailable` (recoverable, with the same call as a `retry_later` step), any
/// other store error or a malformed row `store_fault` (unrecoverable), each told by the error's
/// type and never its message.
///
/// ```
/// use answers::governance::ToolInvoker;
/// use answers::governance::tool_fault::Fallible;
/// use answers::tools::fault::ToolError;
/// use answers::{ErrorClass, ErrorKind, NextAction, ToolName};
/// use serde_json::json;
///
/// let busy = Fallible(|_: ToolName, _: &serde_json::Value| {
///     Err(ToolError::Store(answers::store::StoreError::Sqlite {
///         op: "read readings",
///         kind: "DatabaseBusy".into(),
///     }))
/// });
/// let env = busy.invoke(ToolName::QueryHealthIndicators, &json!({"view": "day", "indicators": ["LDL"]}));
/// assert_eq!(env.error_kind(), Some(ErrorKind::StoreUnavailable));
/// assert_eq!(env.error_class(), Some(ErrorClass::Recoverable));
/// assert_eq!(env.next_steps()[0].action, NextAction::RetryLater);
/// assert_eq!(env.next_steps()[0].args["view"], "day");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Fallible<F>(pub F);

impl<F> ToolInvoker for Fallible<F>
where
    F: Fn(ToolName, &Value) -> Result<Envelope, ToolError>,
{
    fn invoke(&self, tool: ToolName, args: &Value) -> Envelope {
        let retry = || {
            let mut step = NextStep::new(NextAction::RetryLater, tool);
            if let Some(obj) = args.as_object() {
                for (name, value) in obj {
                    step = step.arg(name.clone(), value.clone());
                }
            }
            vec![step]
        };
        guarded(tool, retry, || (self.0)(tool, args))
    }
}
