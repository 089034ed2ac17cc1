//! Governance with scripted model policies: each loop pattern is stopped for its stated reason,
//! the turn still ends with an answer, and neither text nor logs carry a message or PHI.

mod caps;
mod demo;
mod repair;

use std::cell::RefCell;

use crate::capture::logged;
use answers_governance::{
    Decision, GovernanceConfig, LimitExceeded, ModelAction, ModelCallLimit, ModelContext,
    ModelExitBehavior, ModelPolicy, RawToolCall, Salvage, Thread, ToolCallLimit, ToolExitBehavior,
    ToolInvoker, TurnEnd, TurnOutcome, run_turn, run_turn_in,
};
use answers_protocol::{Envelope, ErrorClass, ErrorKind, Meta, Status, ToolId, TypeName};
use answers_server::chat::{self, RecordTools};
use answers_tools::registry::chat_tools;
use serde_json::{Value, json};

const QHI: ToolId = ToolId::QueryHealthIndicators;
const MEDS: ToolId = ToolId::QueryMedications;

/// Two calls run, the third is a repeat over the same-call limit and is refused, and the next,
/// a different call, runs.
const THIRD_SAME_CALL_REFUSED: [Decision; 4] = [
    Decision::Ran,
    Decision::Ran,
    Decision::RefusedSameCallLimit,
    Decision::Ran,
];

/// A model that plays a script of actions, then answers; it answers at once when the last tool
/// message's envelope says governance refused (`repeated_call` or `call_limit`) or when the
/// tool it would call is no longer offered. It reads envelopes only.
struct Scripted {
    script: Vec<ModelAction>,
    next: usize,
    /// Keep calling past a refusal (a model that does not listen).
    stubborn: bool,
}

impl Scripted {
    fn new(script: Vec<ModelAction>) -> Self {
        Self {
            script,
            next: 0,
            stubborn: false,
        }
    }

    fn stubborn(mut self) -> Self {
        self.stubborn = true;
        self
    }
}

impl ModelPolicy for Scripted {
    fn next(&mut self, cx: &ModelContext<'_>) -> ModelAction {
        let refused = cx.messages.last().is_some_and(|m| {
            matches!(
                m.artifact.error_kind(),
                Some(ErrorKind::RepeatedCall | ErrorKind::CallLimit)
            )
        });
        let Some(action) = self.script.get(self.next).cloned() else {
            return ModelAction::Answer(format!("answer after {} messages", cx.messages.len()));
        };
        let offered = match &action {
            ModelAction::CallTools(calls) => calls.iter().all(|c| cx.tools.contains(&c.tool)),
            ModelAction::Answer(_) => true,
        };
        if !self.stubborn && (refused || !offered) {
            return ModelAction::Answer("answer from what I have".into());
        }
        self.next += 1;
        action
    }
}

/// The same call, `n` times.
fn repeat(tool: ToolId, args: &str, n: usize) -> Vec<ModelAction> {
    vec![ModelAction::call(tool, args); n]
}

/// A tool double that records every call it receives and answers with `answer`.
struct Recording<F> {
    calls: RefCell<Vec<(ToolId, Value)>>,
    answer: F,
}

impl<F: Fn(ToolId, &Value) -> Envelope> Recording<F> {
    fn new(answer: F) -> Self {
        Self {
            calls: RefCell::new(Vec::new()),
            answer,
        }
    }

    fn count(&self) -> usize {
        self.calls.borrow().len()
    }

    fn args(&self) -> Vec<Value> {
        self.calls.borrow().iter().map(|(_, a)| a.clone()).collect()
    }
}

impl<F: Fn(ToolId, &Value) -> Envelope> ToolInvoker for Recording<F> {
    fn invoke(&self, tool: ToolId, args: &Value) -> Envelope {
        self.calls.borrow_mut().push((tool, args.clone()));
        (self.answer)(tool, args)
    }
}

fn ok_tool() -> Recording<impl Fn(ToolId, &Value) -> Envelope> {
    Recording::new(|_: ToolId, _: &Value| Envelope::ok(Meta::none()))
}

/// A tool whose store is broken: every call is an unrecoverable `store_fault`.
fn broken_tool() -> Recording<impl Fn(ToolId, &Value) -> Envelope> {
    Recording::new(|tool: ToolId, _: &Value| {
        Envelope::fault(
            tool,
            ErrorKind::StoreFault,
            TypeName::of::<std::io::Error>(),
        )
    })
}

/// Distinct calls, one per model message, so only a cap can stop them.
fn distinct_calls(tool: ToolId, n: usize) -> Vec<ModelAction> {
    (0..n)
        .map(|i| ModelAction::call(tool, &format!(r#"{{"keywords": ["k{i}"]}}"#)))
        .collect()
}

fn no_caps() -> GovernanceConfig {
    chat::config().without_tool_limits()
}

fn budget(run_limit: u32, exit: ModelExitBehavior) -> ModelCallLimit {
    ModelCallLimit::new(None, Some(run_limit), exit).unwrap()
}

fn cap(tool: Option<ToolId>, run_limit: u32, exit: ToolExitBehavior) -> ToolCallLimit {
    ToolCallLimit::new(tool, None, Some(run_limit), exit).unwrap()
}

fn run(
    policy: &mut dyn ModelPolicy,
    tools: &dyn ToolInvoker,
    config: &GovernanceConfig,
) -> TurnOutcome {
    run_logged(policy, tools, config).0
}

/// [`run`], and the turn's log.
fn run_logged(
    policy: &mut dyn ModelPolicy,
    tools: &dyn ToolInvoker,
    config: &GovernanceConfig,
) -> (TurnOutcome, String) {
    let (out, log) = logged(|| run_turn(policy, tools, config));
    assert!(
        !log.contains("PHI-CANARY"),
        "the canary reached the log: {log}"
    );
    (out.expect("the turn ends with an answer"), log)
}

/// Runs `f` (a turn) under a logging subscriber and checks its log carries no canary.
///
/// Every turn of these tests runs so: tracing caches a callsite's interest globally, and a
/// callsite first reached on a thread with no subscriber can be cached as never-enabled while
/// another test is capturing its log.
fn governed<T>(f: impl FnOnce() -> T) -> T {
    let (out, log) = logged(f);
    assert!(
        !log.contains("PHI-CANARY"),
        "the canary reached the log: {log}"
    );
    out
}

/// Asserts that a turn's message `text` starts with `prefix`, showing the text when it does not.
#[track_caller]
fn assert_starts_with(text: &str, prefix: &str) {
    assert!(
        text.starts_with(prefix),
        "{text:?} does not start with {prefix:?}"
    );
}

#[test]
fn the_chat_turn_offers_exactly_the_registry_chat_tools() {
    // Which tools those are (the four record tools) is the registry's own test,
    // `registry::tests::a_chat_offers_the_four_record_tools`.
    assert_eq!(chat::config().tools(), chat_tools());
}

#[test]
fn a_loop_on_an_unrecoverable_call_is_refused_before_it_runs_again() {
    let tools = broken_tool();
    let mut model = Scripted::new(repeat(
        QHI,
        r#"{"view": "stats", "indicators": ["LDL"]}"#,
        10,
    ));
    let out = run(&mut model, &tools, &no_caps());
    assert_eq!(tools.count(), 1, "the failing call ran once");
    assert_eq!(out.decisions(), [Decision::Ran, Decision::RefusedRepeated]);
    assert_eq!(out.steps[0].error_kind, Some(ErrorKind::StoreFault));
    let refusal = &out.messages[1].artifact;
    assert_eq!(refusal.error_kind(), Some(ErrorKind::RepeatedCall));
    assert_eq!(refusal.error_class(), Some(ErrorClass::Unrecoverable));
    assert_starts_with(
        &out.messages[1].text,
        "error (repeated_call): query_health_indicators was not run.",
    );
    assert_eq!(
        (out.end, out.answer.as_str()),
        (TurnEnd::Answered, "answer from what I have")
    );
}

#[test]
fn a_model_that_ignores_refusals_is_stopped_by_its_budget_and_the_tool_runs_once() {
    let tools = broken_tool();
    let mut model = Scripted::new(repeat(QHI, r#"{"indicators": ["LDL"]}"#, 50)).stubborn();
    let config = chat::config()
        .with_model_limit(budget(5, ModelExitBehavior::End))
        .without_tool_limits();
    let out = run(&mut model, &tools, &config);
    assert_eq!(tools.count(), 1);
    assert_eq!(out.model_calls, 5);
    assert_eq!(out.steps.len(), 5);
    assert!(
        out.steps[1..]
            .iter()
            .all(|s| s.decision == Decision::RefusedRepeated)
    );
    assert_eq!(out.end, TurnEnd::ModelCallLimit);
    assert_eq!(out.answer, "Model call limits exceeded: run limit (5/5)");
}

#[test]
fn reordered_and_restringified_arguments_are_the_same_call() {
    let tools = broken_tool();
    let mut model = Scripted::new(vec![
        ModelAction::call(
            QHI,
            r#"{"indicators": ["LDL Cholesterol", "HDL Cholesterol"], "view": "stats"}"#,
        ),
        ModelAction::call(
            QHI,
            r#"{"view": " stats ", "indicators": "[\"HDL Cholesterol\", \"LDL Cholesterol\"]", "start": null}"#,
        ),
    ]);
    let out = run(&mut model, &tools, &no_caps());
    assert_eq!(tools.count(), 1);
    assert_eq!(out.decisions(), [Decision::Ran, Decision::RefusedRepeated]);
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn a_different_call_after_a_failure_still_runs() {
    let tools = broken_tool();
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, r#"{"indicators": ["LDL Cholesterol"]}"#),
        ModelAction::call(QHI, r#"{"indicators": ["HDL Cholesterol"]}"#),
        ModelAction::call(MEDS, r#"{"indicators": ["LDL Cholesterol"]}"#),
    ])
    .stubborn();
    let out = run(&mut model, &tools, &no_caps());
    assert_eq!(tools.count(), 3);
    assert_eq!(out.decisions(), [Decision::Ran; 3]);
}

#[test]
fn the_same_successful_call_runs_at_most_its_per_turn_limit() {
    let tools = ok_tool();
    let mut model = Scripted::new(repeat(QHI, r#"{"keywords": ["sleep", "heart"]}"#, 2)).stubborn();
    model
        .script
        .push(ModelAction::call(QHI, r#"{"keywords": "heart, sleep"}"#));
    model
        .script
        .push(ModelAction::call(QHI, r#"{"keywords": ["heart"]}"#));
    let out = run(&mut model, &tools, &no_caps());
    assert_eq!(out.decisions(), THIRD_SAME_CALL_REFUSED);
    let refusal = &out.messages[2];
    assert_eq!(refusal.artifact.error_kind(), Some(ErrorKind::CallLimit));
    assert_starts_with(
        &refusal.text,
        "The same call ran already (2 of 2) in this turn",
    );
    assert_eq!(tools.count(), 3);
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn a_panicking_tool_becomes_an_error_result_told_by_type_and_the_turn_goes_on() {
    let tools = Recording::new(|_: ToolId, args: &Value| -> Envelope {
        assert!(
            args.get("keywords").is_none(),
            "PHI-CANARY: LDL 131 mg/dL for mom"
        );
        Envelope::ok(Meta::none())
    });
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, r#"{"keywords": ["LDL"]}"#),
        ModelAction::call(QHI, r#"{"keywords": ["LDL"]}"#),
        ModelAction::call(QHI, "{}"),
    ])
    .stubborn();
    let (out, log) = run_logged(&mut model, &tools, &no_caps());
    assert_eq!(
        out.decisions(),
        [Decision::Faulted, Decision::RefusedRepeated, Decision::Ran]
    );
    let fault = &out.messages[0];
    assert_eq!(fault.artifact.error_kind(), Some(ErrorKind::ToolPanic));
    assert_eq!(
        fault.text,
        "error (tool_panic): query_health_indicators failed with &str. Do not repeat this call; answer from what you have."
    );
    assert!(
        log.contains("tool_panic") && log.contains("faulted"),
        "{log}"
    );
    // The reading is looked for as the panic wrote it: a log line's timestamp may hold the
    // digits `131` (`00:05:30.913147Z`).
    for text in [format!("{out:?}"), log] {
        assert!(
            !text.contains("PHI-CANARY") && !text.contains("131 mg") && !text.contains("for mom"),
            "{text}"
        );
    }
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn a_tool_the_chat_turn_does_not_offer_is_declined() {
    let tools = ok_tool();
    let mut model = Scripted::new(vec![ModelAction::call(ToolId::ConvertUnit, "{}")]).stubborn();
    let out = run(&mut model, &tools, &no_caps());
    assert_eq!(out.decisions(), [Decision::RefusedNotOffered]);
    assert_eq!(out.steps[0].error_kind, Some(ErrorKind::Unauthorized));
    assert_starts_with(
        &out.messages[0].text,
        "'convert_unit' is not offered in this turn.",
    );
    assert_eq!(tools.count(), 0);
}

#[test]
fn governance_reads_the_envelope_so_truncated_text_changes_nothing() {
    let scenarios: Vec<(GovernanceConfig, Vec<ModelAction>, bool)> = vec![
        (
            no_caps(),
            repeat(QHI, r#"{"indicators": ["a", "b"]}"#, 4),
            true,
        ),
        (
            no_caps().with_tool_limit(cap(Some(QHI), 2, ToolExitBehavior::Continue)),
            distinct_calls(QHI, 5),
            false,
        ),
        (
            no_caps(),
            vec![ModelAction::call(QHI, "{]"), ModelAction::call(QHI, "{}")],
            false,
        ),
    ];
    for (config, script, broken) in scenarios {
        let outcome = |config: &GovernanceConfig| {
            let tools = if broken {
                broken_tool_dyn()
            } else {
                ok_tool_dyn()
            };
            let mut model = Scripted::new(script.clone());
            let out = run(&mut model, tools.as_ref(), config);
            (out.decisions(), out.end, out.answer.clone(), out.messages)
        };
        let (full, full_end, full_answer, full_messages) = outcome(&config);
        let (cut, cut_end, cut_answer, cut_messages) = outcome(&config.clone().with_text_limit(0));
        assert!(
            full.iter().any(|d| *d != Decision::Ran),
            "{full:?}: governance acted"
        );
        assert!(full_messages.iter().all(|m| !m.text.is_empty()));
        assert!(
            cut_messages.iter().all(|m| m.text.is_empty()),
            "the text is gone"
        );
        assert_eq!((full, full_end, full_answer), (cut, cut_end, cut_answer));
    }
}

fn ok_tool_dyn() -> Box<dyn ToolInvoker> {
    Box::new(|_: ToolId, _: &Value| Envelope::ok(Meta::none()))
}

fn broken_tool_dyn() -> Box<dyn ToolInvoker> {
    Box::new(|tool: ToolId, _: &Value| {
        Envelope::fault(
            tool,
            ErrorKind::StoreFault,
            TypeName::of::<std::io::Error>(),
        )
    })
}

#[test]
fn a_tool_error_is_a_fault_whose_class_decides_whether_it_may_run_again() {
    use answers_server::chat::Fallible;
    use answers_tools::fault::ToolError;
    let busy = || {
        ToolError::Store(answers_store::StoreError::Db(
            answers_store::DbError::Sqlite {
                op: "read readings",
                kind: "DatabaseBusy".into(),
            },
        ))
    };
    let tools = Fallible(
        move |_: ToolId, args: &Value| -> Result<Envelope, ToolError> {
            if args.get("view").is_some() {
                Err(ToolError::Malformed { table: "series" })
            } else {
                Err(busy())
            }
        },
    );
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, r#"{"indicators": ["LDL"]}"#),
        ModelAction::call(QHI, r#"{"indicators": ["LDL"]}"#),
        ModelAction::call(QHI, r#"{"indicators": ["LDL"]}"#),
        ModelAction::call(QHI, r#"{"indicators": ["LDL"], "view": "day"}"#),
        ModelAction::call(QHI, r#"{"view": "day", "indicators": ["LDL"]}"#),
    ])
    .stubborn();
    let out = run(&mut model, &tools, &no_caps());
    // Busy is recoverable: the same call is tried again, up to the same-call limit.
    let decisions = out.decisions();
    let (first, last) = decisions.split_at(THIRD_SAME_CALL_REFUSED.len());
    assert_eq!(first, THIRD_SAME_CALL_REFUSED);
    assert_eq!(last, [Decision::RefusedRepeated]);
    let kinds: Vec<_> = out.steps.iter().map(|s| s.error_kind).collect();
    assert_eq!(
        kinds,
        [
            Some(ErrorKind::StoreUnavailable),
            Some(ErrorKind::StoreUnavailable),
            Some(ErrorKind::CallLimit),
            Some(ErrorKind::StoreFault),
            Some(ErrorKind::RepeatedCall)
        ]
    );
    assert_starts_with(
        &out.messages[3].text,
        "error (store_fault): query_health_indicators failed with answers_tools::fault::MalformedRow",
    );
}
