//! `ModelCallLimit` and `ToolCallLimit`: each exit behaviour, the counting rules (thread and
//! run) across the turns of a thread, and the typed errors of a bad configuration.

use super::*;

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
    assert_starts_with(
        &out.messages[1].text,
        "Tool call limit exceeded. Do not make additional tool calls.",
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
    let mut calls: Vec<RawToolCall> = (0..3)
        .map(|i| RawToolCall {
            tool: QHI,
            arguments: format!(r#"{{"keywords": ["k{i}"]}}"#),
        })
        .collect();
    calls.push(RawToolCall {
        tool: QHI,
        arguments: "{keywords".into(),
    });
    let mut model = Scripted::new(vec![ModelAction::CallTools(calls)]);
    let failed = governed(|| run_turn(&mut model, &tools, &config)).unwrap_err();
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
    // The record keeps the call refused before the caps (it is not counted by them).
    let decisions: Vec<Decision> = failed.steps.iter().map(|s| s.decision).collect();
    assert_eq!(decisions, [Decision::RefusedUnparsable]);
    assert_eq!(
        failed.to_string(),
        "'query_health_indicators' tool call limit exceeded: run limit (3/1)"
    );
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
    let out = governed(|| run_turn_in(&mut model, &tools, &config, &mut thread)).unwrap();
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
    let out = governed(|| run_turn_in(&mut model, &tools, &config, &mut thread)).unwrap();
    assert_eq!(out.decisions(), [Decision::Ran, Decision::BlockedToolLimit]);
    assert_eq!(thread.tool_calls(Some(QHI)), 3);
    assert_eq!(tools.count(), 3);
}

#[test]
fn limits_refuse_bad_parameters_with_typed_errors() {
    use answers_governance::LimitConfigError;
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
    let config = answers_server::chat::config()
        .with_model_limit(budget(3, ModelExitBehavior::End))
        .without_tool_limits();
    let out = run(&mut model, &tools, &config);
    assert_eq!(
        (out.end, out.model_calls, tools.count()),
        (TurnEnd::ModelCallLimit, 3, 3)
    );
    assert_eq!(out.answer, "Model call limits exceeded: run limit (3/3)");

    let mut model = Scripted::new(distinct_calls(QHI, 20)).stubborn();
    let config = answers_server::chat::config()
        .with_model_limit(budget(2, ModelExitBehavior::Error))
        .without_tool_limits();
    let failed = governed(|| run_turn(&mut model, &tools, &config)).unwrap_err();
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
    let config = answers_server::chat::config()
        .with_model_limit(limit)
        .without_tool_limits();
    let mut thread = Thread::new();
    let mut model = Scripted::new(distinct_calls(QHI, 1));
    let first = governed(|| run_turn_in(&mut model, &tools, &config, &mut thread)).unwrap();
    assert_eq!((first.end, first.model_calls), (TurnEnd::Answered, 2));
    let mut model = Scripted::new(distinct_calls(MEDS, 5)).stubborn();
    let second = governed(|| run_turn_in(&mut model, &tools, &config, &mut thread)).unwrap();
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
fn by_default_the_data_tool_alone_is_capped_at_twelve_and_only_it_is_removed() {
    let tools = ok_tool();
    let config = answers_server::chat::config();
    // Thirteen distinct readings calls, then the other record tools.
    let mut script = distinct_calls(QHI, 13);
    script.extend(distinct_calls(MEDS, 13));
    script.push(ModelAction::call(ToolId::QueryGeneticData, "{}"));
    let mut model = Scripted::new(script).stubborn();
    let out = run(&mut model, &tools, &config);
    let decisions = out.decisions();
    assert!(decisions[..12].iter().all(|d| *d == Decision::Ran));
    assert_eq!(decisions[12], Decision::BlockedToolLimit);
    assert_eq!(
        out.steps[12].error_kind,
        Some(ErrorKind::CallLimit),
        "the 13th readings call is refused as over its cap"
    );
    assert_starts_with(
        &out.messages[12].text,
        "Tool call limit exceeded. Do not call 'query_health_indicators' again.",
    );
    // The cap counts the data tool only: thirteen medication calls and a genetics call all run.
    assert!(
        decisions[13..].iter().all(|d| *d == Decision::Ran),
        "{decisions:?}"
    );
    assert_eq!(tools.count(), 12 + 13 + 1);
    assert_eq!(
        out.tools,
        [
            MEDS,
            ToolId::QueryGeneticData,
            ToolId::QueryPharmacogenomics
        ],
        "only the capped tool is removed"
    );
    assert_eq!(out.end, TurnEnd::Answered);
}

#[test]
fn by_default_a_turn_has_fifty_model_calls() {
    let tools = ok_tool();
    let config = answers_server::chat::config();
    // Distinct medication calls (not capped by the default): only the budget stops them.
    let mut model = Scripted::new(distinct_calls(MEDS, 80)).stubborn();
    let out = run(&mut model, &tools, &config);
    assert_eq!(
        (out.end, out.model_calls, tools.count()),
        (TurnEnd::ModelCallLimit, 50, 50)
    );
    assert_eq!(out.answer, "Model call limits exceeded: run limit (50/50)");
}

#[test]
fn the_default_caps_are_configurable() {
    let tools = ok_tool();
    let cap = ToolCallLimit::from_names(Some("query_health_indicators"), None, Some(3), "continue")
        .unwrap();
    let config = answers_server::chat::config()
        .without_tool_limits()
        .with_tool_limit(cap)
        .with_model_limit(budget(10, ModelExitBehavior::End));
    let mut model = Scripted::new(distinct_calls(QHI, 20)).stubborn();
    let out = run(&mut model, &tools, &config);
    assert_eq!(tools.count(), 3);
    assert_eq!(out.decisions()[3], Decision::BlockedToolLimit);
    assert_eq!((out.end, out.model_calls), (TurnEnd::ModelCallLimit, 10));
}
