//! `phi-ci local` against the debug `answers`, and against its leak-drill build.

use super::{answers_debug, answers_leak_drill, assert_no_canary_text, layer_line, phi_ci, utf8};

#[test]
fn local_passes_all_four_layers() {
    let bin = utf8(answers_debug());
    let out = phi_ci(&["local", "--answers-bin", bin]);
    out.assert_code(0);
    let stdout = out.stdout.as_str();
    let static_ = layer_line(stdout, 1);
    assert!(
        static_.contains("static") && static_.contains("PASS"),
        "{static_}"
    );
    assert!(static_.contains("new findings 0"), "{static_}");
    let runtime = layer_line(stdout, 2);
    assert!(
        runtime.contains("runtime") && runtime.contains("PASS"),
        "{runtime}"
    );
    assert!(runtime.contains("stop clean"), "{runtime}");
    // Over HTTP: 2 accounts × (catalogue, keywords, 8 views, a window, 4 argument errors, 2
    // token errors) + the fault and the call after the repair = 36. Over MCP, every POST
    // rmcp's client makes, per account: tools/list after the handshake (initialize,
    // notifications/initialized, tools/list: 3), server/discover (1), one call per listed tool
    // and view (mom: 10 over seven tools, you: 4 over four), an unknown parameter, an unknown
    // tool, the personal URL secret (3) and a forged token (1: initialize, refused), so mom 20
    // and you 14; + the fault over MCP (discover and the call: 2) = 36.
    assert!(
        runtime.contains("tool calls 72, as expected 72, served 72"),
        "{runtime}"
    );
    let e2e = layer_line(stdout, 3);
    assert!(e2e.contains("end-to-end") && e2e.contains("PASS"), "{e2e}");
    assert!(e2e.contains("canary present yes"), "{e2e}");
    assert!(e2e.contains("markers proven 2/2"), "{e2e}");
    assert!(e2e.contains("hits 0"), "{e2e}");
    // The export: both markers on traces and logs, and a span per call (72, as above), none
    // of them carrying a canary.
    let telemetry = layer_line(stdout, 4);
    assert!(
        telemetry.contains("telemetry") && telemetry.contains("PASS"),
        "{telemetry}"
    );
    assert!(telemetry.contains("spans 72,"), "{telemetry}");
    // Per route: the 36 REST calls and the 36 MCP requests, each in its route's span.
    assert!(
        telemetry.contains("spans per route /mcp 36/36, GET /api/v1/health-indicators 36/36,"),
        "{telemetry}"
    );
    assert!(telemetry.contains("markers proven 2/2"), "{telemetry}");
    assert!(telemetry.contains("verdict clean"), "{telemetry}");
    assert!(stdout.trim_end().ends_with("result: PASS"), "{stdout}");
    assert_no_canary_text(&out);
}

#[test]
fn local_with_the_leak_drill_fails_at_layers_3_and_4_with_exit_1() {
    let bin = utf8(answers_leak_drill());
    let out = phi_ci(&["local", "--answers-bin", bin]);
    out.assert_code(1);
    let stdout = out.stdout.as_str();
    assert!(layer_line(stdout, 1).contains("PASS"), "{stdout}");
    assert!(layer_line(stdout, 2).contains("PASS"), "{stdout}");
    let e2e = layer_line(stdout, 3);
    assert!(
        e2e.contains("FAIL") && e2e.contains("verdict leak"),
        "{e2e}"
    );
    assert!(!e2e.contains("hits 0,"), "{e2e}");
    assert!(stdout.contains("- leak: canary run:"), "{stdout}");
    // The span attribute written through the OpenTelemetry API reached the export: the
    // receiver names the span and the attribute, never the value.
    let telemetry = layer_line(stdout, 4);
    assert!(
        telemetry.contains("FAIL") && telemetry.contains("verdict leak"),
        "{telemetry}"
    );
    assert!(
        stdout.contains("traces request") && stdout.contains("> attribute \"message\""),
        "{stdout}"
    );
    assert!(stdout.trim_end().ends_with("result: FAIL"), "{stdout}");
    // The report names positions and canary ids, never the leaking line.
    assert_no_canary_text(&out);
}

#[test]
fn a_missing_answers_binary_is_an_error_not_a_pass() {
    let out = phi_ci(&["local", "--answers-bin", "/nonexistent/answers"]);
    out.assert_code(2);
}
