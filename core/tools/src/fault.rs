//! How a tool that failed still answers: [`guarded`] runs a tool's body, and a store error, a
//! malformed row or a panic comes back as an error [`Envelope`] whose class says whether to retry.
//!
//! The envelope carries the fault kind and the error's TYPE, never its message: a driver message
//! quotes the statement with its bound parameters, and models echo what they are given. The log
//! line carries the same two facts and nothing else.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use answers_store::{DbError, StoreError};

use crate::envelope::Envelope;
use crate::envelope::error::TypeName;
use crate::envelope::kinds::ErrorKind;
use crate::tool::ToolId;

/// Why a tool's body could not answer.
///
/// ```
/// use answers_protocol::ErrorKind;
/// use answers_store::{DbError, StoreError};
/// use answers_tools::fault::ToolError;
///
/// let busy = ToolError::Store(StoreError::Db(DbError::Sqlite { op: "read readings", kind: "DatabaseBusy".into() }));
/// assert_eq!(busy.kind(), ErrorKind::StoreUnavailable);
/// assert_eq!(ToolError::Malformed { table: "series" }.kind(), ErrorKind::StoreFault);
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The store failed: busy or locked (retry later), or broken (do not). The store's error
    /// carries the driver error's code name, never its message.
    #[error("store error")]
    Store(StoreError),
    /// A stored row does not have the shape the schema promises (a timestamp that does not
    /// parse, a subject's zone that does not exist).
    #[error("malformed row in {table}")]
    Malformed {
        /// The table the row is in.
        table: &'static str,
    },
}

impl From<StoreError> for ToolError {
    /// A malformed row stays a malformed row (told by [`MalformedRow`]); every other store
    /// error is the store's.
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Db(DbError::Malformed { table }) => ToolError::Malformed { table },
            other => ToolError::Store(other),
        }
    }
}

/// The type a malformed row is told by: the row itself is PHI.
///
/// ```
/// use answers_protocol::TypeName;
///
/// assert_eq!(
///     TypeName::of::<answers_tools::fault::MalformedRow>().as_str(),
///     "answers_tools::fault::MalformedRow"
/// );
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MalformedRow;

impl ToolError {
    /// The error kind: `store_unavailable` (recoverable) when the database is busy, locked or
    /// cannot be opened, `store_fault` (unrecoverable) otherwise.
    ///
    /// ```
    /// use answers_protocol::ErrorKind;
    /// use answers_store::{DbError, StoreError};
    /// use answers_tools::fault::ToolError;
    ///
    /// let gone = ToolError::Store(StoreError::Db(DbError::Sqlite { op: "read readings", kind: "Corrupt".into() }));
    /// assert_eq!(gone.kind(), ErrorKind::StoreFault);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            ToolError::Store(e) if e.is_transient() => ErrorKind::StoreUnavailable,
            ToolError::Store(_) | ToolError::Malformed { .. } => ErrorKind::StoreFault,
        }
    }

    /// The type the fault is told by.
    ///
    /// ```
    /// use answers_store::{DbError, StoreError};
    /// use answers_tools::fault::ToolError;
    ///
    /// let e = ToolError::Store(StoreError::Db(DbError::Sqlite { op: "read readings", kind: "Corrupt".into() }));
    /// assert_eq!(e.type_name().as_str(), "answers_store::StoreError");
    /// ```
    #[must_use]
    pub fn type_name(&self) -> TypeName {
        match self {
            ToolError::Store(e) => TypeName::of_val(e),
            ToolError::Malformed { .. } => TypeName::of::<MalformedRow>(),
        }
    }
}

/// Runs `body` and answers with what it returns, or with an error envelope when it fails or
/// panics. Never panics itself, and never lets a message through.
///
/// - a [`ToolError`] becomes [`Envelope::fault`] with [`ToolError::kind`], and a recoverable
///   fault carries the steps `retry` gives;
/// - a panic becomes `tool_panic` (unrecoverable), told by the payload's type.
///
/// ```
/// use answers_tools::fault::{ToolError, guarded};
/// use answers_protocol::{ErrorKind, Envelope, Meta, ToolId, render_compact};
///
/// let env = guarded(ToolId::QueryHealthIndicators, Vec::new, || {
///     Err(ToolError::Malformed { table: "series" })
/// });
/// assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault));
///
/// let env = guarded(ToolId::QueryHealthIndicators, Vec::new, || -> Result<Envelope, ToolError> {
///     panic!("the reading was 7.2")
/// });
/// assert_eq!(env.error_kind(), Some(ErrorKind::ToolPanic));
/// assert!(!render_compact(&env).contains("7.2"));
/// ```
pub fn guarded<F, R>(tool: ToolId, retry: R, body: F) -> Envelope
where
    F: FnOnce() -> Result<Envelope, ToolError>,
    R: FnOnce() -> Vec<answers_protocol::NextStep>,
{
    // The body reads through shared references only; a panic halfway leaves nothing
    // half-written for the caller to observe.
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(env)) => env,
        Ok(Err(e)) => {
            let kind = e.kind();
            let type_name = e.type_name();
            tracing::error!(
                error_kind = kind.as_str(),
                error_type = type_name.as_str(),
                "tool failed"
            );
            let env = Envelope::fault(tool, kind, type_name);
            if kind.default_class() == answers_protocol::ErrorClass::Recoverable {
                env.with_next_steps(retry())
            } else {
                env
            }
        }
        Err(payload) => Envelope::fault(tool, ErrorKind::ToolPanic, logged_panic(payload.as_ref())),
    }
}

/// Logs a tool's panic with the kind and its payload's type only ([`TypeName::of_panic`]),
/// and returns the type, which is all the fault tells of it.
pub(crate) fn logged_panic(payload: &(dyn Any + Send)) -> TypeName {
    let error_type = TypeName::of_panic(payload);
    tracing::error!(
        error_kind = ErrorKind::ToolPanic.as_str(),
        error_type = error_type.as_str(),
        "tool panicked"
    );
    error_type
}

#[cfg(test)]
mod tests {
    use super::*;
    use answers_protocol::{ErrorClass, Meta, NextAction, NextStep};

    fn retry() -> Vec<NextStep> {
        vec![NextStep::new(
            NextAction::RetryLater,
            ToolId::QueryHealthIndicators,
        )]
    }

    #[test]
    fn busy_is_recoverable_with_a_retry_and_no_message() {
        let env = guarded(ToolId::QueryHealthIndicators, retry, || {
            Err(ToolError::Store(StoreError::Db(DbError::Sqlite {
                op: "read readings",
                kind: "DatabaseLocked".into(),
            })))
        });
        assert_eq!(env.error_kind(), Some(ErrorKind::StoreUnavailable));
        assert_eq!(env.error_class(), Some(ErrorClass::Recoverable));
        assert_eq!(env.next_steps()[0].action, NextAction::RetryLater);
        let text = format!("{env:?}{}", answers_protocol::render_compact(&env));
        assert!(text.contains("answers_store::StoreError"), "{text}");
    }

    #[test]
    fn a_broken_store_is_unrecoverable_without_steps() {
        let env = guarded(ToolId::QueryHealthIndicators, retry, || {
            Err(ToolError::Store(StoreError::Db(DbError::Sqlite {
                op: "read readings",
                kind: "QueryReturnedNoRows".into(),
            })))
        });
        assert_eq!(env.error_kind(), Some(ErrorKind::StoreFault));
        assert_eq!(env.error_class(), Some(ErrorClass::Unrecoverable));
        assert!(env.next_steps().is_empty());
    }

    #[test]
    fn panics_are_told_by_payload_type() {
        let owned = guarded(ToolId::QueryHealthIndicators, retry, || {
            std::panic::panic_any(String::from("value 131 mg/dL"))
        });
        let opaque = guarded(ToolId::QueryHealthIndicators, retry, || {
            std::panic::panic_any(42_u8)
        });
        let fine = guarded(ToolId::QueryHealthIndicators, retry, || {
            Ok(Envelope::ok(Meta::none()))
        });
        assert_eq!(owned.error_kind(), Some(ErrorKind::ToolPanic));
        let reason = owned.error_detail().unwrap().reason();
        assert_eq!(
            reason,
            "query_health_indicators failed with alloc::string::String"
        );
        assert!(opaque.error_detail().unwrap().reason().contains("Box<dyn"));
        assert!(fine.error_kind().is_none());
    }
}
