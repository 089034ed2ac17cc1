//! ModelCallLimit and ToolCallLimit, with LangChain's parameter names and counting rules
//! (`langchain.agents.middleware`, 1.x).
//!
//! - A limit has a `thread_limit` (across the turns of a conversation, [`Thread`]) and a
//!   `run_limit` (one turn); at least one must be given, and for tools `run_limit` may not exceed
//!   `thread_limit`.
//! - A tool call is blocked if `count + 1 > limit` for either count. The thread count adds only
//!   the calls allowed; the run count also adds the calls blocked.
//! - The model is over its budget, before a model call, when `count >= limit`.
//!
//! [`Thread`]: super::Thread

use std::fmt;

use phi_macros::ClosedEnum;

use crate::tool::ToolId;

/// What a tool limit does when a call is over it (`exit_behavior`).
///
/// ```
/// use answers_governance::ToolExitBehavior;
///
/// assert_eq!(ToolExitBehavior::VARIANTS, ["continue", "error", "end"]);
/// assert_eq!("end".parse(), Ok(ToolExitBehavior::End));
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolExitBehavior {
    /// Refuse the call with an error message, remove the tool for the rest of the turn, and let
    /// the model answer from what it has.
    Continue,
    /// Fail the turn with [`LimitExceeded::ToolCalls`].
    Error,
    /// Refuse the message's calls and end the turn with a closing answer.
    End,
}

/// What the model budget does when it is spent (`exit_behavior`).
///
/// ```
/// use answers_governance::ModelExitBehavior;
///
/// assert_eq!(ModelExitBehavior::VARIANTS, ["end", "error"]);
/// assert!("continue".parse::<ModelExitBehavior>().is_err());
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelExitBehavior {
    /// End the turn with a closing answer that says the budget is spent.
    End,
    /// Fail the turn with [`LimitExceeded::ModelCalls`].
    Error,
}

/// A limit that cannot be built: the typed form of LangChain's `ValueError`s.
///
/// ```
/// use answers_governance::{LimitConfigError, ToolCallLimit};
///
/// assert_eq!(
///     ToolCallLimit::from_names(None, None, None, "continue").unwrap_err(),
///     LimitConfigError::NoLimit
/// );
/// assert_eq!(
///     ToolCallLimit::from_names(None, Some(3), None, "halt").unwrap_err().to_string(),
///     "invalid exit_behavior: expected one of continue, error, end"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LimitConfigError {
    /// Neither `thread_limit` nor `run_limit` was given.
    #[error("at least one limit must be specified")]
    NoLimit,
    /// `run_limit` is above `thread_limit`: the run could never reach its limit.
    #[error("run_limit ({run_limit}) cannot exceed thread_limit ({thread_limit})")]
    RunAboveThread {
        /// The run limit given.
        run_limit: u32,
        /// The thread limit given.
        thread_limit: u32,
    },
    /// `exit_behavior` is not one of the allowed values (which are named).
    #[error("invalid exit_behavior: expected one of {}", expected.join(", "))]
    ExitBehavior {
        /// The values allowed.
        expected: &'static [&'static str],
    },
    /// `tool_name` is not a tool of this layer.
    #[error("unknown tool_name: expected one of {}", ToolId::VARIANTS.join(", "))]
    ToolName,
    /// The same-call limit of RetryGovernance is zero: no call could ever run.
    #[error("same_call_limit must be at least 1")]
    SameCallLimitZero,
}

/// A limit was hit with `exit_behavior = error`: the turn fails with the counts.
///
/// ```
/// use answers_governance::LimitExceeded;
///
/// let e = LimitExceeded::ModelCalls { thread_count: 3, run_count: 3, thread_limit: None, run_limit: Some(3) };
/// assert_eq!(e.to_string(), "Model call limits exceeded: run limit (3/3)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LimitExceeded {
    /// A tool call limit: the counts include the calls that were blocked.
    #[error("{}", tool_limit_text(*tool, *thread_count, *run_count, *thread_limit, *run_limit))]
    ToolCalls {
        /// The tool limited, or `None` for all tools.
        tool: Option<ToolId>,
        /// Calls in the thread, with the blocked ones.
        thread_count: u32,
        /// Calls in the run, with the blocked ones.
        run_count: u32,
        /// The thread limit.
        thread_limit: Option<u32>,
        /// The run limit.
        run_limit: Option<u32>,
    },
    /// The model budget.
    #[error("{}", model_limit_text(*thread_count, *run_count, *thread_limit, *run_limit))]
    ModelCalls {
        /// Model calls in the thread.
        thread_count: u32,
        /// Model calls in the run.
        run_count: u32,
        /// The thread limit.
        thread_limit: Option<u32>,
        /// The run limit.
        run_limit: Option<u32>,
    },
}

/// The limits that are reached, as `thread limit (n/m), run limit (n/m)`.
fn reached(
    thread: (u32, Option<u32>),
    run: (u32, Option<u32>),
    over: fn(u32, u32) -> bool,
) -> String {
    let mut parts = Vec::new();
    if let (count, Some(limit)) = thread
        && over(count, limit)
    {
        parts.push(format!("thread limit ({count}/{limit})"));
    }
    if let (count, Some(limit)) = run
        && over(count, limit)
    {
        parts.push(format!("run limit ({count}/{limit})"));
    }
    parts.join(", ")
}

fn model_limit_text(
    thread: u32,
    run: u32,
    thread_limit: Option<u32>,
    run_limit: Option<u32>,
) -> String {
    let parts = reached((thread, thread_limit), (run, run_limit), |c, l| c >= l);
    format!("Model call limits exceeded: {parts}")
}

fn tool_limit_text(
    tool: Option<ToolId>,
    thread: u32,
    run: u32,
    thread_limit: Option<u32>,
    run_limit: Option<u32>,
) -> String {
    let what = match tool {
        Some(tool) => format!("'{tool}' tool"),
        None => "Tool".to_owned(),
    };
    let parts = reached((thread, thread_limit), (run, run_limit), |c, l| c > l);
    format!("{what} call limit exceeded: {parts}")
}

/// Checks the two limits as LangChain does.
fn check_limits(thread_limit: Option<u32>, run_limit: Option<u32>) -> Result<(), LimitConfigError> {
    match (thread_limit, run_limit) {
        (None, None) => Err(LimitConfigError::NoLimit),
        (Some(thread_limit), Some(run_limit)) if run_limit > thread_limit => {
            Err(LimitConfigError::RunAboveThread {
                run_limit,
                thread_limit,
            })
        }
        _ => Ok(()),
    }
}

/// Whether either count has reached its limit (`count >= limit`; no limit is never reached).
fn at_limit(
    thread_count: u32,
    run_count: u32,
    thread_limit: Option<u32>,
    run_limit: Option<u32>,
) -> bool {
    let over = |count: u32, limit: Option<u32>| limit.is_some_and(|l| count >= l);
    over(thread_count, thread_limit) || over(run_count, run_limit)
}

/// The accessors of a limit's `thread_limit`, `run_limit` and `exit_behavior` (of the type
/// given), with their docs in that order.
macro_rules! limit_accessors {
    (#[doc = $thread:literal] #[doc = $run:literal] #[doc = $exit:literal] $behavior:ty) => {
        #[doc = $thread]
        #[must_use]
        pub fn thread_limit(&self) -> Option<u32> {
            self.thread_limit
        }

        #[doc = $run]
        #[must_use]
        pub fn run_limit(&self) -> Option<u32> {
            self.run_limit
        }

        #[doc = $exit]
        #[must_use]
        pub fn exit_behavior(&self) -> $behavior {
            self.exit_behavior
        }
    };
}

/// `ToolCallLimitMiddleware(tool_name, thread_limit, run_limit, exit_behavior)`.
///
/// ```
/// use answers_governance::{ToolCallLimit, ToolExitBehavior};
/// use answers_protocol::ToolId;
///
/// let cap = ToolCallLimit::new(Some(ToolId::QueryHealthIndicators), None, Some(3), ToolExitBehavior::Continue)?;
/// assert!(!cap.would_exceed(0, 2));
/// assert!(cap.would_exceed(0, 3));
/// assert_eq!(cap.message(), "Tool call limit exceeded. Do not call 'query_health_indicators' again.");
/// # Ok::<(), answers_governance::LimitConfigError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolCallLimit {
    tool_name: Option<ToolId>,
    thread_limit: Option<u32>,
    run_limit: Option<u32>,
    exit_behavior: ToolExitBehavior,
}

impl ToolCallLimit {
    /// The default cap, the original's: the data tool alone (`query_health_indicators`) runs at
    /// most 12 times per turn; the 13th call is refused and that tool only is removed for the
    /// rest of the turn (`continue`). The other tools are not capped by it.
    ///
    /// ```
    /// use answers_governance::{ToolCallLimit, ToolExitBehavior};
    /// use answers_protocol::ToolId;
    ///
    /// let cap = ToolCallLimit::DEFAULT;
    /// assert_eq!(cap.tool_name(), Some(ToolId::QueryHealthIndicators));
    /// assert!(!cap.applies_to(ToolId::QueryGeneticData));
    /// assert!(!cap.would_exceed(0, 11));
    /// assert!(cap.would_exceed(0, 12));
    /// assert_eq!(cap.exit_behavior(), ToolExitBehavior::Continue);
    /// ```
    pub const DEFAULT: Self = Self {
        tool_name: Some(ToolId::QueryHealthIndicators),
        thread_limit: None,
        run_limit: Some(12),
        exit_behavior: ToolExitBehavior::Continue,
    };

    /// A cap on `tool_name` (or on every tool, for `None`).
    pub fn new(
        tool_name: Option<ToolId>,
        thread_limit: Option<u32>,
        run_limit: Option<u32>,
        exit_behavior: ToolExitBehavior,
    ) -> Result<Self, LimitConfigError> {
        check_limits(thread_limit, run_limit)?;
        Ok(Self {
            tool_name,
            thread_limit,
            run_limit,
            exit_behavior,
        })
    }

    /// The same, from the names a configuration spells (`tool_name`, `exit_behavior`).
    ///
    /// ```
    /// use answers_governance::{LimitConfigError, ToolCallLimit};
    ///
    /// assert!(ToolCallLimit::from_names(Some("query_medications"), Some(4), Some(2), "end").is_ok());
    /// assert_eq!(
    ///     ToolCallLimit::from_names(Some("query_medications"), Some(2), Some(4), "end"),
    ///     Err(LimitConfigError::RunAboveThread { run_limit: 4, thread_limit: 2 })
    /// );
    /// ```
    pub fn from_names(
        tool_name: Option<&str>,
        thread_limit: Option<u32>,
        run_limit: Option<u32>,
        exit_behavior: &str,
    ) -> Result<Self, LimitConfigError> {
        let tool_name = tool_name
            .map(|t| t.parse::<ToolId>().map_err(|_| LimitConfigError::ToolName))
            .transpose()?;
        let exit_behavior = exit_behavior.parse::<ToolExitBehavior>().map_err(|_| {
            LimitConfigError::ExitBehavior {
                expected: ToolExitBehavior::VARIANTS,
            }
        })?;
        Self::new(tool_name, thread_limit, run_limit, exit_behavior)
    }

    /// The tool capped; `None` caps every tool (LangChain's `"__all__"` key).
    #[must_use]
    pub fn tool_name(&self) -> Option<ToolId> {
        self.tool_name
    }

    limit_accessors! {
        /// Calls across the thread.
        /// Calls in one run (one turn).
        /// What happens over the limit.
        ToolExitBehavior
    }

    /// Whether this limit counts calls to `tool`.
    #[must_use]
    pub fn applies_to(&self, tool: ToolId) -> bool {
        self.tool_name.is_none_or(|t| t == tool)
    }

    /// Whether one more call is over the limit: `count + 1 > limit` for either count.
    #[must_use]
    pub fn would_exceed(&self, thread_count: u32, run_count: u32) -> bool {
        // `count + 1 > limit`, written so that it cannot overflow.
        at_limit(thread_count, run_count, self.thread_limit, self.run_limit)
    }

    /// What the model is told for a blocked call.
    #[must_use]
    pub fn message(&self) -> String {
        match self.tool_name {
            Some(tool) => format!("Tool call limit exceeded. Do not call '{tool}' again."),
            None => "Tool call limit exceeded. Do not make additional tool calls.".to_owned(),
        }
    }
}

/// `ModelCallLimitMiddleware(thread_limit, run_limit, exit_behavior)`: the turn's budget.
///
/// ```
/// use answers_governance::{ModelCallLimit, ModelExitBehavior};
///
/// let budget = ModelCallLimit::new(Some(10), Some(4), ModelExitBehavior::End)?;
/// assert!(!budget.exceeded(3, 3));
/// assert!(budget.exceeded(4, 4));
/// assert_eq!(budget.message(4, 4), "Model call limits exceeded: run limit (4/4)");
/// # Ok::<(), answers_governance::LimitConfigError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelCallLimit {
    thread_limit: Option<u32>,
    run_limit: Option<u32>,
    exit_behavior: ModelExitBehavior,
}

impl ModelCallLimit {
    /// The default budget, the original's: 50 model calls per turn, then a closing answer
    /// (`end`).
    ///
    /// ```
    /// use answers_governance::ModelCallLimit;
    ///
    /// assert!(!ModelCallLimit::DEFAULT.exceeded(0, 49));
    /// assert!(ModelCallLimit::DEFAULT.exceeded(0, 50));
    /// ```
    pub const DEFAULT: Self = Self {
        thread_limit: None,
        run_limit: Some(50),
        exit_behavior: ModelExitBehavior::End,
    };

    /// A budget; at least one limit must be given.
    pub fn new(
        thread_limit: Option<u32>,
        run_limit: Option<u32>,
        exit_behavior: ModelExitBehavior,
    ) -> Result<Self, LimitConfigError> {
        if thread_limit.is_none() && run_limit.is_none() {
            return Err(LimitConfigError::NoLimit);
        }
        Ok(Self {
            thread_limit,
            run_limit,
            exit_behavior,
        })
    }

    /// The same, from the name a configuration spells for `exit_behavior`.
    ///
    /// ```
    /// use answers_governance::ModelCallLimit;
    ///
    /// assert!(ModelCallLimit::from_names(None, Some(5), "error").is_ok());
    /// assert!(ModelCallLimit::from_names(None, Some(5), "continue").is_err());
    /// ```
    pub fn from_names(
        thread_limit: Option<u32>,
        run_limit: Option<u32>,
        exit_behavior: &str,
    ) -> Result<Self, LimitConfigError> {
        let exit_behavior = exit_behavior.parse::<ModelExitBehavior>().map_err(|_| {
            LimitConfigError::ExitBehavior {
                expected: ModelExitBehavior::VARIANTS,
            }
        })?;
        Self::new(thread_limit, run_limit, exit_behavior)
    }

    limit_accessors! {
        /// Model calls across the thread.
        /// Model calls in one run (one turn).
        /// What happens when the budget is spent.
        ModelExitBehavior
    }

    /// Whether the budget is spent before the next model call: `count >= limit`.
    #[must_use]
    pub fn exceeded(&self, thread_count: u32, run_count: u32) -> bool {
        at_limit(thread_count, run_count, self.thread_limit, self.run_limit)
    }

    /// The closing answer (and the error text) when the budget is spent.
    #[must_use]
    pub fn message(&self, thread_count: u32, run_count: u32) -> String {
        model_limit_text(thread_count, run_count, self.thread_limit, self.run_limit)
    }
}

impl fmt::Display for ModelCallLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "model call limit (thread {:?}, run {:?}, {})",
            self.thread_limit, self.run_limit, self.exit_behavior
        )
    }
}
