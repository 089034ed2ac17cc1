//! Output formats, on one leaking tree: `human`, `github`, `json` and `sarif`, written to stdout
//! or to `--output`, with the paths and suppression counts they report.

use phi_lint::Rule;
use serde_json::Value;

use super::{ONE_LEAK, Tree, span};

/// One safe statement, an interpolated email (line 7) and an error's message (line 12).
const LEAKY: &str = include_str!("../../fixtures/cli/leaky.rs");

#[test]
fn format_human() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let run = tree.run(&["check", "--format", "human", &tree.root_arg()]);
    run.assert_out(
        1,
        &["error[phi::interpolation]", "error[phi::error-message]"],
    );
    insta::assert_snapshot!("format_human", tree.redact(&run.stdout));
}

#[test]
fn format_github() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let run = tree.run(&["check", "--format", "github", &tree.root_arg()]);
    run.assert_out(
        1,
        &["::error file=src/lib.rs,", "::group::", "::endgroup::"],
    );
    insta::assert_snapshot!("format_github", tree.redact(&run.stdout));
}

#[test]
fn format_json() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let json = tree.json(&[&tree.root_arg()], 1);
    assert_eq!(json["version"], 1);
    let summary = &json["summary"];
    for (key, want) in [
        ("files", 1),
        ("statements", 3),
        ("findings", 2),
        ("new", 2),
        ("baselined", 0),
        ("stale", 0),
        ("growth", 0),
        ("errors", 0),
        ("suppressions", 0),
        ("suppressed", 0),
        ("exit_code", 1),
    ] {
        assert_eq!(summary[key], want, "summary.{key} in {summary}");
    }
    let findings = json["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 2, "{json:#}");

    let email = &findings[0];
    assert_eq!(email["rule"], "phi::interpolation");
    assert_eq!(email["file"], "src/lib.rs");
    assert_eq!(span(email), [7, 29, 7, 39], "{email:#}");
    assert_eq!(email["macro"], "tracing::info");
    assert_eq!(email["field"], "email");
    assert_eq!(email["expr"], "user.email");
    assert_eq!(email["message"], "`email` contains the deny stem `email`");
    assert_eq!(email["function"], "register");
    assert_eq!(email["baselined"], false);
    let fingerprint = email["fingerprint"].as_str().expect("fingerprint");
    assert!(
        fingerprint.len() == 16 && fingerprint.chars().all(|c| c.is_ascii_hexdigit()),
        "{fingerprint}"
    );

    let error = &findings[1];
    assert_eq!(error["rule"], "phi::error-message");
    assert_eq!(span(error), [12, 25, 12, 26], "{error:#}");
    assert_eq!(error["macro"], "error");
    assert_eq!(error["field"], "error");
    assert_eq!(error["function"], "save");
    assert_ne!(error["fingerprint"], email["fingerprint"]);

    // Each span is the value's: 1-based, in characters, `end_column` exclusive.
    for finding in findings {
        assert_eq!(
            text_at(LEAKY, span(finding)),
            finding["expr"],
            "{finding:#}"
        );
    }
}

/// The text of `source` at a one-line `[line, column, end_line, end_column]` span.
fn text_at(source: &str, [line, column, end_line, end_column]: [u64; 4]) -> String {
    assert_eq!(line, end_line, "a one-line span");
    let at = |n: u64| usize::try_from(n - 1).expect("small");
    let text = source.lines().nth(at(line)).expect("the line exists");
    text.chars()
        .skip(at(column))
        .take(at(end_column) - at(column))
        .collect()
}

#[test]
fn format_sarif() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let run = tree.run(&["check", "--format", "sarif", &tree.root_arg()]);
    run.assert_out(1, &[]);
    let sarif: Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");

    phi_testkit::sarif::assert_valid(&sarif);
    // The validator is not vacuous: it rejects a result whose level is not a SARIF level.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!phi_testkit::sarif::schema_errors(&broken).is_empty());

    let run0 = &sarif["runs"][0];
    let declared: Vec<&str> = run0["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().expect("rule id"))
        .collect();
    for rule in Rule::ALL {
        assert!(
            declared.contains(&rule.code()),
            "{} is not declared in {declared:?}",
            rule.code()
        );
    }

    let results = run0["results"].as_array().expect("results");
    let json = tree.json(&[&tree.root_arg()], 1);
    assert_eq!(results.len(), 2, "{run0:#}");
    for (result, finding) in results
        .iter()
        .zip(json["findings"].as_array().expect("findings"))
    {
        assert_eq!(result["ruleId"], finding["rule"]);
        let index =
            usize::try_from(result["ruleIndex"].as_u64().expect("ruleIndex")).expect("index");
        assert_eq!(declared[index], result["ruleId"]);
        let fingerprints = result["partialFingerprints"]
            .as_object()
            .expect("partialFingerprints");
        assert!(!fingerprints.is_empty(), "{result:#}");
        // The same fingerprint as the JSON report's, so alerts and baselines agree.
        assert!(
            fingerprints.values().any(|v| *v == finding["fingerprint"]),
            "{result:#}"
        );
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "src/lib.rs");
        assert_eq!(location["region"]["startLine"], finding["line"]);
        assert_eq!(location["region"]["startColumn"], finding["column"]);
    }
    assert_eq!(run0["invocations"][0]["exitCode"], 1);
}

#[test]
fn output_writes_the_report_to_a_file_and_nothing_to_stdout() {
    let tree = Tree::new(&[("src/lib.rs", LEAKY)]);
    let run = tree.run(&["check", "--format", "json", "--output", "report.json"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (1, "", ""),
        "{run}"
    );
    let report: Value = serde_json::from_str(&tree.read("report.json")).expect("report is JSON");
    assert_eq!(report["summary"]["findings"], 2);

    let run = tree.run(&["check", "--output", "report.txt"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (1, "", ""),
        "{run}"
    );
    assert!(
        tree.read("report.txt")
            .contains("error[phi::interpolation]")
    );
}

#[test]
fn an_explicit_absolute_file_is_reported_by_its_path() {
    let tree = Tree::new(&[("src/lib.rs", ONE_LEAK)]);
    let elsewhere = Tree::new(&[]);
    let file = tree.root().join("src/lib.rs");
    let file = file.to_string_lossy();
    let json = elsewhere.json(&[&file], 1);
    assert_eq!(json["findings"][0]["file"], *file);
    let run = elsewhere.run(&["check", "--format", "sarif", &file]);
    let sarif: Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    let uri = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert!(!uri.as_str().expect("uri").starts_with("//"), "{uri}");
}

#[test]
fn suppressions_are_counted_in_the_json_summary() {
    let source = r#"pub fn f(reading: &Reading) {
    // phi-lint: allow(reason = "a LOINC code names the test, not the person")
    tracing::info!(code = %reading.code, unit = %reading.unit);
    tracing::info!(code = %reading.code); // phi-lint: allow(phi::interpolation, reason = "a LOINC code")
    tracing::info!(value = %reading.value);
}
"#;
    let tree = Tree::new(&[("src/lib.rs", source)]);
    let json = tree.json(&[], 1);
    let summary = &json["summary"];
    assert_eq!(summary["suppressions"], 2, "{summary}");
    assert_eq!(summary["suppressed"], 3, "{summary}");
    // Only the unsuppressed value is reported.
    assert_eq!(summary["findings"], 1);
    assert_eq!(json["findings"][0]["expr"], "reading.value");
    let run = tree.run(&["check"]);
    assert!(
        run.summary()
            .ends_with("2 suppressions covering 3 findings; 0 reached by a crate, 1 unreached"),
        "{run}"
    );
}
