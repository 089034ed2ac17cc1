//! What governance did in a turn, as closed values: a [`Step`] per tool call with its
//! [`Decision`], and how the turn ended ([`TurnEnd`]).

use phi_macros::ClosedEnum;

use super::ToolMessage;
use super::limits::LimitExceeded;
use super::repair::{ParsePosition, Salvage};
use crate::envelope::kinds::ErrorKind;
use crate::tool::ToolId;

/// The middleware that decided.
///
/// ```
/// use answers_governance::Guard;
///
/// assert_eq!(
///     Guard::VARIANTS,
///     ["tool_fault", "retry_governance", "invalid_tool_call_repair", "model_call_limit", "tool_call_limit", "tool_list"]
/// );
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Guard {
    /// A crashing tool became an error result.
    ToolFault,
    /// A repeated or over-repeated call was refused.
    RetryGovernance,
    /// Argument text that is not JSON was refused (or salvaged).
    InvalidToolCallRepair,
    /// The model budget.
    ModelCallLimit,
    /// A tool cap.
    ToolCallLimit,
    /// The turn does not offer the tool (not a chat tool, or removed by a cap).
    ToolList,
}

/// What governance did with one tool call.
///
/// ```
/// use answers_governance::{Decision, Guard};
///
/// assert_eq!(Decision::RefusedRepeated.guard(), Some(Guard::RetryGovernance));
/// assert_eq!(Decision::Ran.guard(), None);
/// assert!(!Decision::BlockedToolLimit.ran());
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The tool ran and answered (its answer may itself be an error envelope).
    Ran,
    /// The tool ran and panicked; ToolFault answered for it.
    Faulted,
    /// The tool is not offered in this turn.
    RefusedNotOffered,
    /// The argument text is not JSON, and no salvage made it so.
    RefusedUnparsable,
    /// The same normalised call already returned an unrecoverable result.
    RefusedRepeated,
    /// The same normalised call already ran its per-turn limit.
    RefusedSameCallLimit,
    /// A tool cap blocked the call.
    BlockedToolLimit,
    /// Not run: a tool cap with `exit_behavior = end` ended the turn on this model message.
    NotRunTurnEnded,
}

impl Decision {
    /// The middleware that made the decision; `None` when the call simply ran.
    #[must_use]
    pub fn guard(self) -> Option<Guard> {
        const GUARDS: DecisionTable<Option<Guard>> = DecisionTable {
            ran: None,
            faulted: Some(Guard::ToolFault),
            refused_not_offered: Some(Guard::ToolList),
            refused_unparsable: Some(Guard::InvalidToolCallRepair),
            refused_repeated: Some(Guard::RetryGovernance),
            refused_same_call_limit: Some(Guard::RetryGovernance),
            blocked_tool_limit: Some(Guard::ToolCallLimit),
            not_run_turn_ended: Some(Guard::ToolCallLimit),
        };
        *GUARDS.get(self)
    }

    /// Whether the tool's body ran.
    #[must_use]
    pub fn ran(self) -> bool {
        matches!(self, Decision::Ran | Decision::Faulted)
    }
}

/// One tool call of the turn and what governance did with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Which model call (1-based) asked for it.
    pub model_call: u32,
    /// The tool.
    pub tool: ToolId,
    /// What governance did.
    pub decision: Decision,
    /// Salvage applied to the argument text.
    pub salvage: Vec<Salvage>,
    /// Where the argument text broke, for [`Decision::RefusedUnparsable`].
    pub parse_error: Option<ParsePosition>,
    /// The error kind of the answer, if it was an error.
    pub error_kind: Option<ErrorKind>,
}

/// How the turn ended.
///
/// ```
/// assert_eq!(answers_governance::TurnEnd::VARIANTS, ["answered", "model_call_limit", "tool_call_limit"]);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TurnEnd {
    /// The model wrote the answer.
    Answered,
    /// The model budget was spent (`exit_behavior = end`); governance wrote the closing answer.
    ModelCallLimit,
    /// A tool cap with `exit_behavior = end` was hit; governance wrote the closing answer.
    ToolCallLimit,
}

/// A turn that ended.
///
/// ```
/// use answers_governance::{Decision, GovernanceConfig, ModelAction, TurnEnd, run_turn};
/// use answers_protocol::{Envelope, Meta, ToolId};
///
/// let mut model = |cx: &answers_governance::ModelContext<'_>| match cx.model_calls {
///     1 => ModelAction::call(ToolId::QueryHealthIndicators, "{broken"),
///     _ => ModelAction::Answer("sorry".into()),
/// };
/// let tools = |_: ToolId, _: &serde_json::Value| Envelope::ok(Meta::none());
/// let out = run_turn(&mut model, &tools, &GovernanceConfig::new(ToolId::ALL.to_vec())).unwrap();
/// assert_eq!(out.decisions(), [Decision::RefusedUnparsable]);
/// assert_eq!((out.tool_runs(), out.end, out.answer.as_str()), (0, TurnEnd::Answered, "sorry"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// How it ended.
    pub end: TurnEnd,
    /// The answer: the model's, or governance's closing message.
    pub answer: String,
    /// Every tool call, in order.
    pub steps: Vec<Step>,
    /// Every tool message, in order (one per step).
    pub messages: Vec<ToolMessage>,
    /// Model calls made in the turn.
    pub model_calls: u32,
    /// The tools offered at the end of the turn.
    pub tools: Vec<ToolId>,
}

impl TurnOutcome {
    /// How many tool bodies ran.
    #[must_use]
    pub fn tool_runs(&self) -> usize {
        self.steps.iter().filter(|s| s.decision.ran()).count()
    }

    /// The decisions, in order.
    #[must_use]
    pub fn decisions(&self) -> Vec<Decision> {
        self.steps.iter().map(|s| s.decision).collect()
    }
}

/// A turn that failed because a limit with `exit_behavior = error` was hit.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{exceeded}")]
pub struct TurnFailed {
    /// The limit and its counts.
    pub exceeded: LimitExceeded,
    /// The tool calls up to the failure.
    pub steps: Vec<Step>,
    /// The tool messages up to the failure.
    pub messages: Vec<ToolMessage>,
}
