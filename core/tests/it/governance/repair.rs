//! `InvalidToolCallRepair`: broken JSON reaches no tool and is answered with a position, and the
//! two salvages are applied and nothing else is guessed.

use super::*;

#[test]
fn broken_json_reaches_no_tool_and_the_model_is_told_where_not_what() {
    let tools = ok_tool();
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, r#"{"keywords": ["migraine"], "view": "day""#),
        ModelAction::call(QHI, "{'keywords': ['migraine']}"),
        ModelAction::call(QHI, r#"{"keywords": ["migraine"]}"#),
    ]);
    let (out, log) = run_logged(&mut model, &tools, &no_caps());
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
