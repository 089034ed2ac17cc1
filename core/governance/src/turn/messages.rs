//! The tool messages of a turn: each call's record and what the model reads, whether the tool
//! answered or governance did. Governance's own line comes first, then the envelope's
//! rendering; the harness's text limit cuts both.

use super::{Pending, Turn};
use crate::envelope::Envelope;
use crate::envelope::error::{ArgProblem, ErrorDetail};
use crate::envelope::kinds::{ErrorClass, ErrorKind};
use crate::limits::ToolCallLimit;
use crate::record::{Decision, Step};
use crate::render::render_compact;
use crate::repair::{ParsePosition, Salvage};
use crate::tool::ToolId;
use crate::tool_fault::run_contained;
use crate::{ToolInvoker, ToolMessage};

impl Turn<'_> {
    /// A record and a message for `tool`: `note` (governance's own line, if any) before the
    /// envelope's rendering, cut to the harness's text limit.
    pub(super) fn slot(
        &self,
        tool: ToolId,
        decision: Decision,
        env: Envelope,
        note: Option<String>,
        salvage: Vec<Salvage>,
        parse_error: Option<ParsePosition>,
    ) -> (Step, ToolMessage) {
        let rendered = render_compact(&env);
        let mut text = match note {
            Some(note) => format!("{note}\n{rendered}"),
            None => rendered,
        };
        if let Some(limit) = self.config.text_limit() {
            text = text.chars().take(limit).collect();
        }
        let step = Step {
            model_call: self.model_calls,
            tool,
            decision,
            salvage,
            parse_error,
            error_kind: env.error_kind(),
        };
        let message = ToolMessage {
            tool,
            text,
            artifact: env,
        };
        (step, message)
    }

    pub(super) fn not_offered(&self, tool: ToolId) -> (Step, ToolMessage) {
        // A chat tool missing from the list was removed by a cap.
        let (kind, note) = if self.config.tools().contains(&tool) {
            (
                ErrorKind::CallLimit,
                format!("Tool call limit exceeded. Do not call '{tool}' again."),
            )
        } else {
            (
                ErrorKind::Unauthorized,
                format!("'{tool}' is not offered in this turn."),
            )
        };
        let env = Envelope::error(
            kind,
            ErrorClass::Unrecoverable,
            ErrorDetail::Declined { tool },
        );
        self.slot(
            tool,
            Decision::RefusedNotOffered,
            env,
            Some(note),
            Vec::new(),
            None,
        )
    }

    pub(super) fn unparsable(&self, tool: ToolId, position: ParsePosition) -> (Step, ToolMessage) {
        let (tool_id, parse_error_kind) = (tool.as_str(), position.category.as_str());
        tracing::warn!(
            tool_id,
            parse_error_kind,
            "governance: tool call arguments are not JSON"
        );
        let env = Envelope::refusal(tool, None, ArgProblem::NotAnObject);
        let note = format!(
            "The arguments are not valid JSON ({position}); nothing was run. Send them as one JSON object."
        );
        self.slot(
            tool,
            Decision::RefusedUnparsable,
            env,
            Some(note),
            Vec::new(),
            Some(position),
        )
    }

    /// A call a cap blocked (`Some`), or one not run because the turn ended on this message.
    pub(super) fn refused(&self, p: &Pending, cap: Option<ToolCallLimit>) -> (Step, ToolMessage) {
        let (decision, note) = match cap {
            Some(limit) => (Decision::BlockedToolLimit, limit.message()),
            None => (
                Decision::NotRunTurnEnded,
                "Not run: the turn ended at its tool call limit.".to_owned(),
            ),
        };
        let env = Envelope::error(
            ErrorKind::CallLimit,
            ErrorClass::Unrecoverable,
            ErrorDetail::Declined { tool: p.tool },
        );
        self.slot(p.tool, decision, env, Some(note), p.salvage.clone(), None)
    }

    /// A call RetryGovernance refused.
    pub(super) fn declined(&self, p: &Pending, decision: Decision) -> (Step, ToolMessage) {
        let (kind, note) = if decision == Decision::RefusedRepeated {
            (ErrorKind::RepeatedCall, None)
        } else {
            let n = self.config.same_call_limit();
            let times = if n == 1 { "once" } else { "already" };
            (
                ErrorKind::CallLimit,
                Some(format!(
                    "The same call ran {times} ({n} of {n}) in this turn; its answer is above."
                )),
            )
        };
        let env = Envelope::error(
            kind,
            ErrorClass::Unrecoverable,
            ErrorDetail::Declined { tool: p.tool },
        );
        self.slot(p.tool, decision, env, note, p.salvage.clone(), None)
    }

    /// Runs the call under ToolFault and remembers its answer for RetryGovernance.
    pub(super) fn run(&mut self, p: &Pending, invoker: &dyn ToolInvoker) -> (Step, ToolMessage) {
        let tool_id = p.tool.as_str();
        for salvage in &p.salvage {
            let salvage_kind = salvage.as_str();
            tracing::info!(
                tool_id,
                salvage_kind,
                "governance: tool call arguments salvaged"
            );
        }
        let (env, decision) = run_contained(invoker, p.tool, &p.args);
        self.retry.record(p.tool, &p.args, &env);
        self.slot(p.tool, decision, env, None, p.salvage.clone(), None)
    }
}
