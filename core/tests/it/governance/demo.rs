//! The real record tools over the seeded demo record, under governance: a reordered repeat, the
//! genetics tool on `mom`'s genotype set, and a broken store whose fault is not run again.

use super::*;

#[test]
fn the_real_readings_tool_over_the_demo_record_is_governed() {
    let d = crate::readings::demo();
    let tools = RecordTools::new(&d.store, &d.mom);
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
        ModelAction::call(ToolId::QueryGeneticData, r#"{"gene": "CYP2C19"}"#),
    ])
    .stubborn();
    let (out, log) = run_logged(&mut model, &tools, &config);
    assert_eq!(out.decisions(), THIRD_SAME_CALL_REFUSED);
    assert_ne!(out.messages[0].artifact.status(), Status::Error);
    assert_eq!(out.messages[1].artifact.status(), Status::Ok);
    assert!(out.messages[1].artifact.meta().row_count >= 1);
    assert_eq!(
        out.steps[3].error_kind, None,
        "the genetics tool answers for mom"
    );
    let genetics = out
        .messages
        .iter()
        .find(|m| m.tool == ToolId::QueryGeneticData)
        .expect("the genetics call has a message");
    assert!(
        genetics.artifact.meta().row_count >= 1,
        "mom's genotype set has CYP2C19 calls: {}",
        genetics.text
    );

    // Break the store: the fault is unrecoverable, so the same call is not run again.
    d.raw().execute_batch("DROP TABLE day_elected").unwrap();
    let mut model = Scripted::new(vec![
        ModelAction::call(QHI, r#"{"indicators": ["Body weight"], "view": "stats"}"#),
        ModelAction::call(
            QHI,
            r#"{"view": "stats", "indicators": "[\"Body weight\"]"}"#,
        ),
    ]);
    let (broken, broken_log) = run_logged(&mut model, &tools, &config);
    assert_eq!(
        broken.decisions(),
        [Decision::Ran, Decision::RefusedRepeated]
    );
    assert_eq!(broken.steps[0].error_kind, Some(ErrorKind::StoreFault));
    assert_eq!(broken.end, TurnEnd::Answered);

    for text in [format!("{out:?}{broken:?}"), log, broken_log] {
        assert!(
            !text.contains(answers_demo::PHI_CANARY),
            "the canary leaked"
        );
        assert!(!text.contains("no such table"), "a driver message leaked");
    }
}
