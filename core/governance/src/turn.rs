//! A turn under governance: [`Turn`] holds the per-turn state and applies the middlewares to
//! each model call and each tool call; [`run_turn`] drives a whole turn with a [`ModelPolicy`].
//!
//! For each model message, in order:
//! 1. every call to a tool the turn does not offer is refused (a chat tool removed by a cap is
//!    refused as over its limit);
//! 2. InvalidToolCallRepair parses each call's argument text (with the two salvages), and
//!    refuses what does not parse; such a call is not counted by the caps (LangChain counts only
//!    parsed tool calls);
//! 3. ToolCallLimit counts the parsed calls against every cap that applies, and blocks the calls
//!    over a cap (`continue`: refused, and the tool removed for the rest of the turn; `end`: no
//!    call of the message runs and the turn ends; `error`: the turn fails);
//! 4. RetryGovernance refuses a repeated unrecoverable call, and a call over the same-call limit;
//! 5. ToolFault runs the tool, containing a panic.
//!
//! ModelCallLimit is checked before every model call.

mod messages;

use std::collections::HashMap;

use serde_json::Value;

use super::config::GovernanceConfig;
use super::limits::{LimitExceeded, ModelExitBehavior, ToolCallLimit, ToolExitBehavior};
use super::record::{Decision, Step, TurnEnd, TurnFailed, TurnOutcome};
use super::repair::{Salvage, parse_arguments};
use super::retry::RetryGovernance;
use super::{ModelAction, ModelContext, ModelPolicy, RawToolCall, ToolInvoker, ToolMessage};
use crate::tool::ToolId;

/// The counts that outlive a turn: LangChain's thread counts (a conversation of many turns).
///
/// ```
/// use answers_governance::Thread;
///
/// assert_eq!(Thread::new().model_calls(), 0);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Thread {
    model_calls: u32,
    tool_calls: HashMap<Option<ToolId>, u32>,
}

impl Thread {
    /// A thread with no calls yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Model calls across the thread.
    #[must_use]
    pub fn model_calls(&self) -> u32 {
        self.model_calls
    }

    /// Allowed calls counted by the cap on `tool` (`None`: the cap on every tool).
    ///
    /// ```
    /// use answers_governance::{GovernanceConfig, ModelAction, Thread, run_turn_in};
    /// use answers_protocol::{Envelope, Meta, ToolId};
    ///
    /// let mut thread = Thread::new();
    /// let mut model = |cx: &answers_governance::ModelContext<'_>| match cx.model_calls {
    ///     1 => ModelAction::call(ToolId::QueryHealthIndicators, "{}"),
    ///     _ => ModelAction::Answer("done".into()),
    /// };
    /// let tools = |_: ToolId, _: &serde_json::Value| Envelope::ok(Meta::none());
    /// run_turn_in(&mut model, &tools, &GovernanceConfig::new(ToolId::ALL.to_vec()), &mut thread).unwrap();
    /// // The default caps the data tool alone, so its calls are counted under its name.
    /// let counted = thread.tool_calls(Some(ToolId::QueryHealthIndicators));
    /// assert_eq!((counted, thread.tool_calls(None), thread.model_calls()), (1, 0, 2));
    /// ```
    #[must_use]
    pub fn tool_calls(&self, tool: Option<ToolId>) -> u32 {
        self.tool_calls.get(&tool).copied().unwrap_or(0)
    }
}

/// Whether the model may be called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelGate {
    /// Call the model.
    Proceed,
    /// The budget is spent (`exit_behavior = end`): the turn ends with this closing answer.
    Stop(String),
}

/// What happened to a model message's tool calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallsOutcome {
    /// The calls were answered (run or refused); ask the model again.
    Continue,
    /// A cap with `exit_behavior = end` ended the turn with this closing answer.
    End(String),
}

/// One turn's governance state.
///
/// A harness with a real model calls [`Turn::begin_model_call`] before each model call, offers
/// [`Turn::tools`] to it, passes the message's tool calls to [`Turn::handle_calls`], and ends
/// with [`Turn::finish`]. [`run_turn`] does exactly that with a [`ModelPolicy`].
///
/// ```
/// use answers_governance::{GovernanceConfig, RawToolCall, Thread, Turn};
/// use answers_governance::turn::{CallsOutcome, ModelGate};
/// use answers_protocol::{Envelope, Meta, ToolId};
///
/// let config = GovernanceConfig::new(ToolId::ALL.to_vec());
/// let mut thread = Thread::new();
/// let mut turn = Turn::new(&config, &mut thread);
/// assert_eq!(turn.begin_model_call(), Ok(ModelGate::Proceed));
/// let call = RawToolCall { tool: ToolId::QueryHealthIndicators, arguments: "{view: day}".into() };
/// let tools = |_: ToolId, _: &serde_json::Value| Envelope::ok(Meta::none());
/// assert_eq!(turn.handle_calls(&[call], &tools), Ok(CallsOutcome::Continue));
/// assert!(turn.messages()[0].text.starts_with("The arguments are not valid JSON (syntax error at line 1, column 2)"));
/// ```
#[derive(Debug)]
pub struct Turn<'a> {
    config: &'a GovernanceConfig,
    thread: &'a mut Thread,
    model_calls: u32,
    run_tool_calls: HashMap<Option<ToolId>, u32>,
    tools: Vec<ToolId>,
    retry: RetryGovernance,
    steps: Vec<Step>,
    messages: Vec<ToolMessage>,
}

/// A parsed call waiting for the caps and the retry check.
struct Pending {
    index: usize,
    tool: ToolId,
    args: Value,
    salvage: Vec<Salvage>,
}

/// A call's record and message, before they are put in order.
type Slot = Option<(Step, ToolMessage)>;

impl<'a> Turn<'a> {
    /// A turn of `thread` under `config`.
    #[must_use]
    pub fn new(config: &'a GovernanceConfig, thread: &'a mut Thread) -> Self {
        Self {
            config,
            thread,
            model_calls: 0,
            run_tool_calls: HashMap::new(),
            tools: config.tools().to_vec(),
            retry: RetryGovernance::new(config.same_call_limit()),
            steps: Vec::new(),
            messages: Vec::new(),
        }
    }

    /// The tools to offer the next model call.
    #[must_use]
    pub fn tools(&self) -> &[ToolId] {
        &self.tools
    }

    /// The tool messages so far.
    #[must_use]
    pub fn messages(&self) -> &[ToolMessage] {
        &self.messages
    }

    /// The tool calls so far.
    #[must_use]
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// What the model sees for its next call.
    #[must_use]
    pub fn context(&self) -> ModelContext<'_> {
        ModelContext {
            tools: &self.tools,
            messages: &self.messages,
            model_calls: self.model_calls,
        }
    }

    /// ModelCallLimit, before a model call: counts the call if the budget allows it.
    pub fn begin_model_call(&mut self) -> Result<ModelGate, LimitExceeded> {
        let limit = self.config.model_limit();
        let (thread_count, run_count) = (self.thread.model_calls, self.model_calls);
        if limit.exceeded(thread_count, run_count) {
            let exit_kind = limit.exit_behavior().as_str();
            tracing::warn!(
                model_call_count = run_count,
                exit_kind,
                "governance: model call limit reached"
            );
            return match limit.exit_behavior() {
                ModelExitBehavior::End => {
                    Ok(ModelGate::Stop(limit.message(thread_count, run_count)))
                }
                ModelExitBehavior::Error => Err(LimitExceeded::ModelCalls {
                    thread_count,
                    run_count,
                    thread_limit: limit.thread_limit(),
                    run_limit: limit.run_limit(),
                }),
            };
        }
        self.thread.model_calls = self.thread.model_calls.saturating_add(1);
        self.model_calls = self.model_calls.saturating_add(1);
        Ok(ModelGate::Proceed)
    }

    /// Governs and answers one model message's tool calls, in order.
    pub fn handle_calls(
        &mut self,
        calls: &[RawToolCall],
        invoker: &dyn ToolInvoker,
    ) -> Result<CallsOutcome, LimitExceeded> {
        let mut slots: Vec<Slot> = vec![None; calls.len()];
        let mut pending: Vec<Pending> = Vec::new();
        for (index, call) in calls.iter().enumerate() {
            if !self.tools.contains(&call.tool) {
                slots[index] = Some(self.not_offered(call.tool));
                continue;
            }
            match parse_arguments(&call.arguments) {
                Ok(parsed) => pending.push(Pending {
                    index,
                    tool: call.tool,
                    args: parsed.value,
                    salvage: parsed.salvage,
                }),
                Err(position) => slots[index] = Some(self.unparsable(call.tool, position)),
            }
        }

        // ToolCallLimit over the whole message, before anything runs.
        let mut blocked: Vec<(usize, ToolCallLimit)> = Vec::new();
        for p in &pending {
            if let Some(limit) = self.count_call(p.tool) {
                blocked.push((p.index, limit));
            }
        }
        // The first cap that stops the turn, if any: `error` and `end` outrank `continue`.
        let stop = blocked
            .iter()
            .map(|(_, l)| *l)
            .find(|l| l.exit_behavior() != ToolExitBehavior::Continue);
        if let Some(limit) = stop {
            let error = self.exceeded(limit, &blocked);
            let exit_kind = limit.exit_behavior().as_str();
            tracing::warn!(
                exit_kind,
                blocked_count = blocked.len(),
                "governance: tool call limit reached"
            );
            if limit.exit_behavior() == ToolExitBehavior::Error {
                // The calls refused before the caps are kept in the record; none of the
                // message's parsed calls runs.
                self.push_slots(slots);
                return Err(error);
            }
            for p in &pending {
                let cap = blocked.iter().find(|(i, _)| *i == p.index).map(|(_, l)| *l);
                slots[p.index] = Some(self.refused(p, cap));
            }
            self.push_slots(slots);
            return Ok(CallsOutcome::End(error.to_string()));
        }

        for p in pending {
            if let Some((_, limit)) = blocked.iter().find(|(i, _)| *i == p.index) {
                let limit = *limit;
                slots[p.index] = Some(self.refused(&p, Some(limit)));
                match limit.tool_name() {
                    Some(tool) => self.tools.retain(|t| *t != tool),
                    None => self.tools.clear(),
                }
                continue;
            }
            slots[p.index] = Some(match self.retry.check(p.tool, &p.args) {
                Some(decision) => self.declined(&p, decision),
                None => self.run(&p, invoker),
            });
        }
        self.push_slots(slots);
        Ok(CallsOutcome::Continue)
    }

    /// Ends the turn.
    #[must_use]
    pub fn finish(self, end: TurnEnd, answer: String) -> TurnOutcome {
        let (end_kind, model_call_count) = (end.as_str(), self.model_calls);
        tracing::info!(
            end_kind,
            model_call_count,
            tool_call_count = self.steps.len(),
            "governance: turn ended"
        );
        TurnOutcome {
            end,
            answer,
            steps: self.steps,
            messages: self.messages,
            model_calls: self.model_calls,
            tools: self.tools,
        }
    }

    /// Fails the turn on a limit with `exit_behavior = error`.
    #[must_use]
    pub fn fail(self, exceeded: LimitExceeded) -> TurnFailed {
        TurnFailed {
            exceeded,
            steps: self.steps,
            messages: self.messages,
        }
    }

    /// The error `limit` raises once the message is counted, as LangChain reports it: the
    /// thread count as if the blocked calls had been allowed, and the run count.
    fn exceeded(&self, limit: ToolCallLimit, blocked: &[(usize, ToolCallLimit)]) -> LimitExceeded {
        let key = limit.tool_name();
        let by_this = blocked.iter().filter(|(_, l)| *l == limit).count();
        LimitExceeded::ToolCalls {
            tool: key,
            thread_count: self
                .thread
                .tool_calls(key)
                .saturating_add(u32::try_from(by_this).unwrap_or(u32::MAX)),
            run_count: self.run_calls(key),
            thread_limit: limit.thread_limit(),
            run_limit: limit.run_limit(),
        }
    }

    /// Counts a parsed call against every cap that applies. Returns the first cap it is over.
    fn count_call(&mut self, tool: ToolId) -> Option<ToolCallLimit> {
        let limits: Vec<ToolCallLimit> = self
            .config
            .tool_limits()
            .iter()
            .copied()
            .filter(|l| l.applies_to(tool))
            .collect();
        let over = limits.iter().copied().find(|l| {
            let key = l.tool_name();
            l.would_exceed(self.thread.tool_calls(key), self.run_calls(key))
        });
        for l in &limits {
            let key = l.tool_name();
            let run = self.run_tool_calls.entry(key).or_insert(0);
            *run = run.saturating_add(1);
            if over.is_none() {
                let thread = self.thread.tool_calls.entry(key).or_insert(0);
                *thread = thread.saturating_add(1);
            }
        }
        over
    }

    fn run_calls(&self, key: Option<ToolId>) -> u32 {
        self.run_tool_calls.get(&key).copied().unwrap_or(0)
    }

    fn push_slots(&mut self, slots: Vec<Slot>) {
        for (step, message) in slots.into_iter().flatten() {
            if step.decision != Decision::Ran {
                let (tool_id, decision_kind) = (step.tool.as_str(), step.decision.as_str());
                tracing::warn!(
                    tool_id,
                    decision_kind,
                    "governance: tool call not answered by the tool"
                );
            }
            self.steps.push(step);
            self.messages.push(message);
        }
    }
}

/// Runs one turn of a new thread: see [`run_turn_in`].
///
/// ```
/// use answers_governance::{GovernanceConfig, ModelAction, ModelContext, TurnEnd, run_turn};
/// use answers_protocol::{Envelope, Meta, ToolId};
///
/// let mut answer_at_once = |_: &ModelContext<'_>| ModelAction::Answer("nothing to look up".into());
/// let tools = |_: ToolId, _: &serde_json::Value| Envelope::ok(Meta::none());
/// let outcome = run_turn(&mut answer_at_once, &tools, &GovernanceConfig::new(ToolId::ALL.to_vec())).unwrap();
/// assert_eq!((outcome.end, outcome.model_calls), (TurnEnd::Answered, 1));
/// ```
pub fn run_turn(
    policy: &mut dyn ModelPolicy,
    invoker: &dyn ToolInvoker,
    config: &GovernanceConfig,
) -> Result<TurnOutcome, TurnFailed> {
    run_turn_in(policy, invoker, config, &mut Thread::new())
}

/// Runs one turn of `thread`: asks `policy` for actions, governs and answers its tool calls with
/// `invoker`, until the model answers or a limit ends the turn. Always ends, since the model
/// budget always has a limit.
///
/// `Err` only for a limit with `exit_behavior = error`.
///
/// ```
/// use answers_governance::{
///     GovernanceConfig, LimitExceeded, ModelAction, ModelCallLimit, ModelExitBehavior, Thread, run_turn_in,
/// };
/// use answers_protocol::{Envelope, Meta, ToolId};
///
/// let budget = ModelCallLimit::new(Some(2), None, ModelExitBehavior::Error)?;
/// let config = GovernanceConfig::new(ToolId::ALL.to_vec()).with_model_limit(budget).without_tool_limits();
/// let mut thread = Thread::new();
/// let mut chatty = |cx: &answers_governance::ModelContext<'_>| {
///     ModelAction::call(ToolId::QueryHealthIndicators, &format!(r#"{{"keywords": ["k{}"]}}"#, cx.model_calls))
/// };
/// let tools = |_: ToolId, _: &serde_json::Value| Envelope::ok(Meta::none());
/// let failed = run_turn_in(&mut chatty, &tools, &config, &mut thread).unwrap_err();
/// assert!(matches!(failed.exceeded, LimitExceeded::ModelCalls { thread_count: 2, .. }));
/// assert_eq!(failed.steps.len(), 2);
/// # Ok::<(), answers_governance::LimitConfigError>(())
/// ```
pub fn run_turn_in(
    policy: &mut dyn ModelPolicy,
    invoker: &dyn ToolInvoker,
    config: &GovernanceConfig,
    thread: &mut Thread,
) -> Result<TurnOutcome, TurnFailed> {
    let mut turn = Turn::new(config, thread);
    loop {
        match turn.begin_model_call() {
            Ok(ModelGate::Proceed) => {}
            Ok(ModelGate::Stop(answer)) => return Ok(turn.finish(TurnEnd::ModelCallLimit, answer)),
            Err(exceeded) => return Err(turn.fail(exceeded)),
        }
        match policy.next(&turn.context()) {
            ModelAction::Answer(answer) => return Ok(turn.finish(TurnEnd::Answered, answer)),
            ModelAction::CallTools(calls) => match turn.handle_calls(&calls, invoker) {
                Ok(CallsOutcome::Continue) => {}
                Ok(CallsOutcome::End(answer)) => {
                    return Ok(turn.finish(TurnEnd::ToolCallLimit, answer));
                }
                Err(exceeded) => return Err(turn.fail(exceeded)),
            },
        }
    }
}

impl<F> ModelPolicy for F
where
    F: FnMut(&ModelContext<'_>) -> ModelAction,
{
    fn next(&mut self, context: &ModelContext<'_>) -> ModelAction {
        self(context)
    }
}
