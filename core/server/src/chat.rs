//! The record tools bound for a governed chat turn: what an agent harness hands
//! `answers_governance::run_turn` (governance knows no store and no registry; this side does).
//!
//! - [`config`]: the default governance over the registry's chat tools;
//! - [`RecordTools`]: the record tools on one store, for one subject;
//! - [`Fallible`]: a tool body that fails with a [`ToolError`], made an invoker.

use answers_governance::{GovernanceConfig, ToolInvoker};
use answers_protocol::{
    Envelope, ErrorClass, ErrorDetail, ErrorKind, NextAction, NextStep, ToolId,
};
use answers_store::{Store, Subject};
use answers_tools::fault::{ToolError, guarded};
use answers_tools::registry;
use serde_json::Value;

/// The default governance of a chat turn: the registry's chat tools
/// ([`registry::chat_tools`]) under the original's defaults ([`GovernanceConfig::new`]): 50
/// model calls, 12 calls of `query_health_indicators` (then that tool alone is removed), the
/// same call twice.
///
/// ```
/// assert_eq!(answers_server::chat::config().tools().len(), 4);
/// ```
#[must_use]
pub fn config() -> GovernanceConfig {
    GovernanceConfig::new(registry::chat_tools())
}

/// The record tools of [`registry::call`], bound to one store and one subject.
///
/// A tool [`registry::call`] does not know is declined (`unauthorized`, unrecoverable), so
/// a model that asks for it is told once and refused after that.
///
/// ```
/// use answers_governance::ToolInvoker;
/// use answers_server::chat::RecordTools;
/// use answers_store::Store;
/// use answers_protocol::{Status, ToolId};
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// let tools = RecordTools::new(&store, &you);
/// let env = tools.invoke(ToolId::QueryHealthIndicators, &serde_json::json!({}));
/// assert_eq!(env.status(), Status::Ok);
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RecordTools<'a> {
    store: &'a Store,
    subject: &'a Subject,
}

impl<'a> RecordTools<'a> {
    /// The tools for `subject`'s record in `store`.
    #[must_use]
    pub fn new(store: &'a Store, subject: &'a Subject) -> Self {
        Self { store, subject }
    }
}

impl ToolInvoker for RecordTools<'_> {
    fn invoke(&self, tool: ToolId, args: &Value) -> Envelope {
        registry::call(self.store, self.subject, tool.as_str(), args).unwrap_or_else(|| {
            Envelope::error(
                ErrorKind::Unauthorized,
                ErrorClass::Unrecoverable,
                ErrorDetail::Declined { tool },
            )
        })
    }
}

/// A tool body that fails with a [`ToolError`], as a [`ToolInvoker`]: a busy or locked store
/// becomes `store_unavailable` (recoverable, with the same call as a `retry_later` step), any
/// other store error or a malformed row `store_fault` (unrecoverable), each told by the error's
/// type and never its message.
///
/// ```
/// use answers_governance::ToolInvoker;
/// use answers_server::chat::Fallible;
/// use answers_tools::fault::ToolError;
/// use answers_protocol::{ErrorClass, ErrorKind, NextAction, ToolId};
/// use serde_json::json;
///
/// let busy = Fallible(|_: ToolId, _: &serde_json::Value| {
///     Err(ToolError::Store(answers_store::StoreError::Db(answers_store::DbError::Sqlite {
///         op: "read readings",
///         kind: "DatabaseBusy".into(),
///     })))
/// });
/// let env = busy.invoke(ToolId::QueryHealthIndicators, &json!({"view": "day", "indicators": ["LDL"]}));
/// assert_eq!(env.error_kind(), Some(ErrorKind::StoreUnavailable));
/// assert_eq!(env.error_class(), Some(ErrorClass::Recoverable));
/// assert_eq!(env.next_steps()[0].action, NextAction::RetryLater);
/// assert_eq!(env.next_steps()[0].args["view"], "day");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Fallible<F>(pub F);

impl<F> ToolInvoker for Fallible<F>
where
    F: Fn(ToolId, &Value) -> Result<Envelope, ToolError>,
{
    fn invoke(&self, tool: ToolId, args: &Value) -> Envelope {
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
