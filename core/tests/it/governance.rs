//! Governance with scripted model policies: each loop pattern is stopped for its stated reason,
//! the turn still ends with an answer, and neither text nor logs carry a message or PHI.

use std::cell::RefCell;

use answers::governance::{
    Decision, GovernanceConfig, LimitExceeded, ModelAction, ModelCallLimit, ModelContext,
    ModelExitBehavior, ModelPolicy, RawToolCall, Salvage, SurfaceInvoker, Thread, ToolCallLimit,
    ToolExitBehavior, ToolInvoker, TurnEnd, TurnOutcome, chat_tools, run_turn, run_turn_in,
};
use answers::{Envelope, ErrorClass, ErrorKind, Meta, Status, ToolName, TypeName};
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt;

const QHI: ToolName = ToolName::QueryHealthIndicators;
const MEDS: ToolName = ToolName::QueryMedications;

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
fn repeat(tool: ToolName, args: &str, n: usize) -> Vec<ModelAction> {
    vec![ModelAction::call(tool, args); n]
}

/// A tool double that records every call it receives and answers with `answer`.
struct Recording<F> {
    calls: RefCell<Vec<(ToolName, Value)>>,
    answer: F,
}

impl<F: Fn(ToolName, &Value) -> Envelope> Recording<F> {
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

impl<F: Fn(ToolName, &Value) -> Envelope> ToolInvoker for Recording<F> {
    fn invoke(&self, tool: ToolName, args: &Value) -> Envelope {
        self.calls.borrow_mut().push((tool, args.clone()));
        (self.answer)(tool, args)
    }
}

fn ok_tool() -> Recording<impl Fn(ToolName, &Value) -> Envelope> {
    Recording::new(|_: ToolName, _: &Value| Envelope::ok(Meta::none()))
}

/// A tool whose store is broken: every call is an unrecoverable `store_fault`.
fn broken_tool() -> Recording<impl Fn(ToolName, &Value) -> Envelope> {
    Recording::new(|tool: ToolName, _: &Value| {
        Envelope::fault(
            tool,
            ErrorKind::StoreFault,
            TypeName::of::<std::io::Error>(),
        )
    })
}

fn no_caps() -> GovernanceConfig {
    GovernanceConfig::default().without_tool_limits()
}

fn budget(run_limit: u32, exit: ModelExitBehavior) -> ModelCallLimit {
    ModelCallLimit::new(None, Some(run_limit), exit).unwrap()
}

fn cap(tool: Option<ToolName>, run_limit: u32, exit: ToolExitBehavior) -> ToolCallLimit {
    ToolCallLimit::new(tool, None, Some(run_limit), exit).unwrap()
}

fn run(
    policy: &mut dyn ModelPolicy,
    tools: &dyn ToolInvoker,
    config: &GovernanceConfig,
) -> TurnOutcome {
    run_turn(policy, tools, config).expect("the turn ends with an answer")
}

/// Runs `f` with a subscriber that writes JSON log lines through phi-filter into memory.
fn logged<T>(f: impl FnOnce() -> T) -> (T, String) {
    let logs = phi_filter::MemoryWriter::default();
    let layer = phi_filter::PhiPolicy::default().wrap(phi_filter::json_layer(logs.clone()));
    let out = tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), f);
    (out, logs.text())
}

#[test]
fn the_chat_turn_offers_exactly_the_four_record_tools() {
    assert_eq!(
        chat_tools(),
        [
            ToolName::QueryHealthIndicators,
            ToolName::QueryMedications,
            ToolName::QueryGeneticData,
            ToolName::QueryPharmacogenomics,
        ]
    );
    assert_eq!(GovernanceConfig::default().tools(), chat_tools());
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
    assert!(
        out.messages[1]
            .text
            .starts_with("error (repeated_call): query_health_indicators was not run."),
        "{}",
        out.messages[1].text
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
    let config = GovernanceConfig::new(budget(5, ModelExitBehavior::End));
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
    assert_eq!(
        out.decisions(),
        [
            Decision::Ran,
            Decision::Ran,
            Decision::RefusedSameCallLimit,
            Decision::Ran
        ]
    );
    let refusal = &out.messages[2];
    assert_eq!(refusal.artifact.error_kind(), Some(ErrorKind::CallLimit));
    assert!(
        refusal
            .text
            .starts_with("The same call ran already (2 of 2) in this turn")
    );
    assert_eq!(tools.count(), 3);
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn broken_json_reaches_no_tool_and_the_model_is_told_where_not_what() {
    let tools = ok_tool();
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, r#"{"keywords": ["migraine"], "view": "day""#),
        ModelAction::call(QHI, "{'keywords': ['migraine']}"),
        ModelAction::call(QHI, r#"{"keywords": ["migraine"]}"#),
    ]);
    let (out, log) = logged(|| run(&mut model, &tools, &no_caps()));
    assert_eq!(
        out.decisions(),
        [
            Decision::RefusedUnparsable,
            Decision::RefusedUnparsable,
            Decision::Ran
        ]
    );
    assert_eq!(tools.count(), 1, "only the call that parsed ran");
    let first = &out.messages[0];
    assert!(
        first.text.starts_with(
            "The arguments are not valid JSON (unexpected end of text at line 1, column 40); nothing was run."
        ),
        "{}",
        first.text
    );
    assert_eq!(
        first.artifact.error_kind(),
        Some(ErrorKind::InvalidArguments)
    );
    assert_eq!(first.artifact.error_class(), Some(ErrorClass::Recoverable));
    let position = out.steps[1].parse_error.unwrap();
    assert_eq!((position.line, position.column), (1, 2));
    for m in &out.messages[..2] {
        assert!(
            !m.text.contains("migraine") && !m.text.contains("EOF while"),
            "{}",
            m.text
        );
    }
    assert!(log.contains("refused_unparsable"), "{log}");
    assert!(!log.contains("migraine"), "{log}");
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn python_none_is_salvaged_as_null() {
    let tools = ok_tool();
    let mut model = Scripted::new(vec![ModelAction::call(
        QHI,
        r#"{"indicators": ["Body weight"], "start": None, "end": none}"#,
    )]);
    let out = run(&mut model, &tools, &no_caps());
    assert_eq!(out.decisions(), [Decision::Ran]);
    assert_eq!(out.steps[0].salvage, [Salvage::NoneToNull]);
    assert_eq!(
        tools.args(),
        [json!({"indicators": ["Body weight"], "start": null, "end": null})]
    );
}

#[test]
fn an_unquoted_date_is_salvaged_and_nothing_else_is_guessed() {
    let tools = ok_tool();
    let mut model = Scripted::new(vec![
        ModelAction::call(
            QHI,
            r#"{"indicators": ["Body weight"], "start": 2026-03-01}"#,
        ),
        ModelAction::call(
            QHI,
            r#"{"indicators": ["Body weight"], "start": 2026-03-01T08:00}"#,
        ),
    ]);
    let out = run(&mut model, &tools, &no_caps());
    assert_eq!(
        out.decisions(),
        [Decision::Ran, Decision::RefusedUnparsable]
    );
    assert_eq!(out.steps[0].salvage, [Salvage::QuotedDate]);
    assert_eq!(
        tools.args(),
        [json!({"indicators": ["Body weight"], "start": "2026-03-01"})]
    );
}

/// Distinct calls, one per model message, so only a cap can stop them.
fn distinct_calls(tool: ToolName, n: usize) -> Vec<ModelAction> {
    (0..n)
        .map(|i| ModelAction::call(tool, &format!(r#"{{"keywords": ["k{i}"]}}"#)))
        .collect()
}

#[test]
fn over_the_tool_cap_continue_removes_the_tool_and_the_model_answers() {
    let tools = ok_tool();
    let config = no_caps().with_tool_limit(cap(Some(QHI), 2, ToolExitBehavior::Continue));
    let mut model = Scripted::new(distinct_calls(QHI, 6));
    let out = run(&mut model, &tools, &config);
    assert_eq!(
        out.decisions(),
        [Decision::Ran, Decision::Ran, Decision::BlockedToolLimit]
    );
    assert_eq!(tools.count(), 2);
    let blocked = &out.messages[2];
    assert!(blocked.text.starts_with(
        "Tool call limit exceeded. Do not call 'query_health_indicators' again.\nerror (call_limit)"
    ));
    assert_eq!(blocked.artifact.error_kind(), Some(ErrorKind::CallLimit));
    assert!(
        !out.tools.contains(&QHI),
        "the tool is gone for the rest of the turn"
    );
    assert_eq!(out.tools.len(), 3);
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn a_removed_tool_called_anyway_is_refused_as_over_its_limit() {
    let tools = ok_tool();
    let config = no_caps().with_tool_limit(cap(Some(QHI), 1, ToolExitBehavior::Continue));
    let mut model = Scripted::new(distinct_calls(QHI, 4)).stubborn();
    let out = run(&mut model, &tools, &config);
    assert_eq!(
        out.decisions(),
        [
            Decision::Ran,
            Decision::BlockedToolLimit,
            Decision::RefusedNotOffered,
            Decision::RefusedNotOffered
        ]
    );
    assert_eq!(out.steps[3].error_kind, Some(ErrorKind::CallLimit));
    assert_eq!(tools.count(), 1);
}

#[test]
fn a_cap_on_every_tool_with_continue_leaves_the_model_only_its_answer() {
    let tools = ok_tool();
    let config = no_caps().with_tool_limit(cap(None, 1, ToolExitBehavior::Continue));
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, "{}"),
        ModelAction::call(MEDS, "{}"),
    ]);
    let out = run(&mut model, &tools, &config);
    assert_eq!(out.decisions(), [Decision::Ran, Decision::BlockedToolLimit]);
    assert!(
        out.messages[1]
            .text
            .starts_with("Tool call limit exceeded. Do not make additional tool calls.")
    );
    assert!(out.tools.is_empty());
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn over_the_tool_cap_end_stops_the_turn_with_a_closing_answer() {
    let tools = ok_tool();
    let config = no_caps().with_tool_limit(cap(Some(QHI), 2, ToolExitBehavior::End));
    // The third message carries two calls: the allowed one does not run either.
    let mut model = Scripted::new(distinct_calls(QHI, 2)).stubborn();
    model.script.push(ModelAction::CallTools(vec![
        RawToolCall {
            tool: MEDS,
            arguments: "{}".into(),
        },
        RawToolCall {
            tool: QHI,
            arguments: r#"{"keywords": ["k9"]}"#.into(),
        },
    ]));
    let out = run(&mut model, &tools, &config);
    assert_eq!(
        out.decisions(),
        [
            Decision::Ran,
            Decision::Ran,
            Decision::NotRunTurnEnded,
            Decision::BlockedToolLimit
        ]
    );
    assert_eq!(tools.count(), 2);
    assert_eq!(out.end, TurnEnd::ToolCallLimit);
    assert_eq!(
        out.answer,
        "'query_health_indicators' tool call limit exceeded: run limit (3/2)"
    );
}

#[test]
fn over_the_tool_cap_error_fails_the_turn_with_langchains_counts() {
    let tools = ok_tool();
    let config = no_caps().with_tool_limit(cap(Some(QHI), 1, ToolExitBehavior::Error));
    let mut model = Scripted::new(vec![ModelAction::CallTools(
        (0..3)
            .map(|i| RawToolCall {
                tool: QHI,
                arguments: format!(r#"{{"keywords": ["k{i}"]}}"#),
            })
            .collect(),
    )]);
    let failed = run_turn(&mut model, &tools, &config).unwrap_err();
    // Nothing of the message runs; the thread count is as if the blocked calls were allowed.
    assert_eq!(tools.count(), 0);
    assert_eq!(
        failed.exceeded,
        LimitExceeded::ToolCalls {
            tool: Some(QHI),
            thread_count: 3,
            run_count: 3,
            thread_limit: None,
            run_limit: Some(1),
        }
    );
    assert!(failed.steps.is_empty());
}

#[test]
fn the_thread_count_adds_allowed_calls_and_the_run_count_also_blocked_ones() {
    let tools = ok_tool();
    let limit =
        ToolCallLimit::new(Some(QHI), Some(3), Some(2), ToolExitBehavior::Continue).unwrap();
    let config = no_caps().with_tool_limit(limit);
    let mut thread = Thread::new();
    // Turn 1: three calls in one message; the run limit blocks the third.
    let mut model = Scripted::new(vec![ModelAction::CallTools(
        (0..3)
            .map(|i| RawToolCall {
                tool: QHI,
                arguments: format!(r#"{{"keywords": ["a{i}"]}}"#),
            })
            .collect(),
    )]);
    let out = run_turn_in(&mut model, &tools, &config, &mut thread).unwrap();
    assert_eq!(
        out.decisions(),
        [Decision::Ran, Decision::Ran, Decision::BlockedToolLimit]
    );
    assert_eq!(
        thread.tool_calls(Some(QHI)),
        2,
        "the blocked call is not in the thread count"
    );
    // Turn 2: a fresh run; the thread limit (3) allows one more.
    let mut model = Scripted::new(distinct_calls(QHI, 3));
    let out = run_turn_in(&mut model, &tools, &config, &mut thread).unwrap();
    assert_eq!(out.decisions(), [Decision::Ran, Decision::BlockedToolLimit]);
    assert_eq!(thread.tool_calls(Some(QHI)), 3);
    assert_eq!(tools.count(), 3);
}

#[test]
fn limits_refuse_bad_parameters_with_typed_errors() {
    use answers::governance::LimitConfigError;
    assert_eq!(
        ToolCallLimit::from_names(Some("query_health_indicators"), None, None, "continue"),
        Err(LimitConfigError::NoLimit)
    );
    assert_eq!(
        ToolCallLimit::from_names(None, Some(1), Some(2), "end"),
        Err(LimitConfigError::RunAboveThread {
            run_limit: 2,
            thread_limit: 1
        })
    );
    assert_eq!(
        ToolCallLimit::from_names(Some("eval"), Some(1), None, "end"),
        Err(LimitConfigError::ToolName)
    );
    assert!(matches!(
        ModelCallLimit::from_names(Some(3), None, "continue"),
        Err(LimitConfigError::ExitBehavior {
            expected: ["end", "error"]
        })
    ));
    assert_eq!(
        ModelCallLimit::from_names(None, None, "end"),
        Err(LimitConfigError::NoLimit)
    );
    let ok =
        ToolCallLimit::from_names(Some("query_medications"), Some(4), Some(4), "error").unwrap();
    assert_eq!(
        (
            ok.tool_name(),
            ok.thread_limit(),
            ok.run_limit(),
            ok.exit_behavior()
        ),
        (Some(MEDS), Some(4), Some(4), ToolExitBehavior::Error)
    );
}

#[test]
fn over_the_model_budget_end_closes_the_turn_and_error_fails_it() {
    let tools = ok_tool();
    let mut model = Scripted::new(distinct_calls(QHI, 20)).stubborn();
    let config = GovernanceConfig::new(budget(3, ModelExitBehavior::End));
    let out = run(&mut model, &tools, &config);
    assert_eq!(
        (out.end, out.model_calls, tools.count()),
        (TurnEnd::ModelCallLimit, 3, 3)
    );
    assert_eq!(out.answer, "Model call limits exceeded: run limit (3/3)");

    let mut model = Scripted::new(distinct_calls(QHI, 20)).stubborn();
    let config = GovernanceConfig::new(budget(2, ModelExitBehavior::Error));
    let failed = run_turn(&mut model, &tools, &config).unwrap_err();
    assert_eq!(
        failed.exceeded,
        LimitExceeded::ModelCalls {
            thread_count: 2,
            run_count: 2,
            thread_limit: None,
            run_limit: Some(2)
        }
    );
    assert_eq!(failed.steps.len(), 2);
    assert_eq!(
        failed.to_string(),
        "Model call limits exceeded: run limit (2/2)"
    );
}

#[test]
fn the_thread_model_budget_spans_turns() {
    let tools = ok_tool();
    let limit = ModelCallLimit::new(Some(3), None, ModelExitBehavior::End).unwrap();
    let config = GovernanceConfig::new(limit);
    let mut thread = Thread::new();
    let mut model = Scripted::new(distinct_calls(QHI, 1));
    let first = run_turn_in(&mut model, &tools, &config, &mut thread).unwrap();
    assert_eq!((first.end, first.model_calls), (TurnEnd::Answered, 2));
    let mut model = Scripted::new(distinct_calls(MEDS, 5)).stubborn();
    let second = run_turn_in(&mut model, &tools, &config, &mut thread).unwrap();
    assert_eq!(
        (second.end, second.model_calls),
        (TurnEnd::ModelCallLimit, 1)
    );
    assert_eq!(
        second.answer,
        "Model call limits exceeded: thread limit (3/3)"
    );
    assert_eq!(thread.model_calls(), 3);
}

#[test]
fn a_panicking_tool_becomes_an_error_result_told_by_type_and_the_turn_goes_on() {
    let tools = Recording::new(|_: ToolName, args: &Value| -> Envelope {
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
    let (out, log) = logged(|| run(&mut model, &tools, &no_caps()));
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
    for text in [format!("{out:?}"), log] {
        assert!(
            !text.contains("PHI-CANARY") && !text.contains("131"),
            "{text}"
        );
    }
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn a_tool_the_chat_turn_does_not_offer_is_declined() {
    let tools = ok_tool();
    let mut model = Scripted::new(vec![ModelAction::call(ToolName::ConvertUnit, "{}")]).stubborn();
    let out = run(&mut model, &tools, &no_caps());
    assert_eq!(out.decisions(), [Decision::RefusedNotOffered]);
    assert_eq!(out.steps[0].error_kind, Some(ErrorKind::Unauthorized));
    assert!(
        out.messages[0]
            .text
            .starts_with("'convert_unit' is not offered in this turn.")
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
    Box::new(|_: ToolName, _: &Value| Envelope::ok(Meta::none()))
}

fn broken_tool_dyn() -> Box<dyn ToolInvoker> {
    Box::new(|tool: ToolName, _: &Value| {
        Envelope::fault(
            tool,
            ErrorKind::StoreFault,
            TypeName::of::<std::io::Error>(),
        )
    })
}

#[test]
fn the_real_readings_tool_over_the_demo_record_is_governed() {
    let d = crate::readings::demo();
    let tools = SurfaceInvoker::new(&d.store, &d.mom);
    let config = no_caps()
        .with_same_call_limit(1)
        .unwrap()
        .with_tool_limit(cap(Some(QHI), 4, ToolExitBehavior::Continue));
    let stats = r#"{"indicators": ["Body weight", "Resting Heart Rate"], "view": "stats"}"#;
    let reordered = r#"{"view": "stats", "indicators": "Resting Heart Rate, Body weight"}"#;
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, "{}"),
        ModelAction::call(QHI, stats),
        ModelAction::call(QHI, reordered),
        ModelAction::call(ToolName::QueryGeneticData, r#"{"gene": "CYP2C19"}"#),
    ])
    .stubborn();
    let (out, log) = logged(|| run(&mut model, &tools, &config));
    assert_eq!(
        out.decisions(),
        [
            Decision::Ran,
            Decision::Ran,
            Decision::RefusedSameCallLimit,
            Decision::Ran
        ]
    );
    assert_ne!(out.messages[0].artifact.status(), Status::Error);
    assert_eq!(out.messages[1].artifact.status(), Status::Ok);
    assert!(out.messages[1].artifact.meta().row_count >= 1);
    assert_eq!(
        out.steps[3].error_kind,
        Some(ErrorKind::Unauthorized),
        "not served yet"
    );

    // Break the store: the fault is unrecoverable, so the same call is not run again.
    d.store
        .conn()
        .execute_batch("DROP TABLE day_elected")
        .unwrap();
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, r#"{"indicators": ["Body weight"], "view": "stats"}"#),
        ModelAction::call(
            QHI,
            r#"{"view": "stats", "indicators": "[\"Body weight\"]"}"#,
        ),
    ]);
    let (broken, broken_log) = logged(|| run(&mut model, &tools, &config));
    assert_eq!(
        broken.decisions(),
        [Decision::Ran, Decision::RefusedRepeated]
    );
    assert_eq!(broken.steps[0].error_kind, Some(ErrorKind::StoreFault));
    assert_eq!(broken.end, TurnEnd::Answered);

    for text in [format!("{out:?}{broken:?}"), log, broken_log] {
        assert!(
            !text.contains(answers::demo::PHI_CANARY),
            "the canary leaked"
        );
        assert!(!text.contains("no such table"), "a driver message leaked");
    }
}
