//! Snapshots of the four formats for a representative report and a clean one, the SARIF output
//! validated against the official SARIF 2.1.0 schema, and the escaping and alignment details.

use std::path::Path;

use serde_json::Value;

use super::{Format, Growth, Report, Stale, exit, github, human, sarif};
use crate::finding::{FileError, Finding, Pos, assign_fingerprints};
use crate::rules::Rule;

/// `src/handlers.rs` in the scan root: tabs on line 5, a value over lines 10–11, a literal that
/// stands for protected health information on line 15.
const HANDLERS: [&str; 16] = [
    "use tracing::{error, info};",
    "",
    "pub fn save(store: &Store, record: &Record) {",
    "\tif let Err(e) = store.insert(record) {",
    "\t\terror!(error = %e, \"save failed\");",
    "\t}",
    "}",
    "",
    "pub fn load(patient: &Patient) {",
    "    info!(summary = %format!(\"{} {}\",",
    "        patient.name, patient.mrn), \"loaded\");",
    "}",
    "",
    "pub fn sign_in(user: &User) {",
    "    info!(user = %user.email, \"signed in as Jane Roe\");",
    "}",
];

/// The value over lines 10–11, as written.
const FORMAT_EXPR: &str = "format!(\"{} {}\",\n        patient.name, patient.mrn)";

/// The literal on line 15: the human format may show it, SARIF never.
const PHI_LITERAL: &str = "Jane Roe";

/// Where `needle` starts on 1-based `line` of [`HANDLERS`], as a 1-based character column.
fn col(line: u32, needle: &str) -> u32 {
    let text = HANDLERS[line as usize - 1];
    let byte = text.find(needle).expect("needle is on the line");
    text[..byte].chars().count() as u32 + 1
}

fn pos(line: u32, column: u32) -> Pos {
    Pos { line, column }
}

/// A finding at `span` with `[macro, field, expr, function]`; the rest is derived.
fn finding(rule: Rule, file: &str, span: (Pos, Pos), parts: [&str; 4], message: &str) -> Finding {
    let [macro_path, field, expr, function] = parts;
    Finding {
        rule,
        file: file.into(),
        start: span.0,
        end: span.1,
        macro_path: macro_path.into(),
        field: field.into(),
        expr: expr.into(),
        expr_tokens: expr.split_whitespace().collect::<Vec<_>>().join(" ").into(),
        message: message.to_owned(),
        function: function.into(),
        statement: span,
        fingerprint: compact_str::CompactString::default(),
        baselined: false,
        fix: None,
    }
}

/// The grandfathered finding in `src/db.rs`, a file that is not in the scan root.
fn baselined_finding() -> Finding {
    let mut f = finding(
        Rule::Interpolation,
        "src/db.rs",
        (pos(20, 9), pos(20, 19)),
        ["tracing::warn", "mrn", "record.mrn", "Store::insert"],
        "`record.mrn` is not an opaque id, count, duration, status or type name",
    );
    f.baselined = true;
    f
}

/// A report with every kind of entry, rooted in a temporary directory holding `src/handlers.rs`.
fn full_report(root: &Path) -> Report {
    let e = col(5, "%e") + 1;
    let format = (
        pos(10, col(10, "format!")),
        pos(11, col(11, ", \"loaded\"")),
    );
    let email = col(15, "user.email");
    let mut findings = vec![
        baselined_finding(),
        finding(
            Rule::Print,
            "src/gone.rs",
            (pos(3, 15), pos(3, 27)),
            ["println", "{fmt}", "patient.name", "main"],
            "`patient.name` is printed, and stdout is collected like a log",
        ),
        finding(
            Rule::ErrorMessage,
            "src/handlers.rs",
            (pos(5, e), pos(5, e + 1)),
            ["error", "error", "e", "save"],
            "the error `e` is logged with its message, which may quote the data it failed on",
        ),
        finding(
            Rule::Interpolation,
            "src/handlers.rs",
            format,
            ["info", "summary", FORMAT_EXPR, "load"],
            "`format!(..)` interpolates `patient.name`, which is not an opaque id, count, duration, status or type name",
        ),
        finding(
            Rule::Interpolation,
            "src/handlers.rs",
            (pos(15, email), pos(15, email + 10)),
            ["info", "user", "user.email", "sign_in"],
            "`user.email` is not an opaque id, count, duration, status or type name",
        ),
    ];
    assign_fingerprints(&mut findings);
    let parts = ["error", "error", "e", "Store::insert"];
    let stale_key = finding(
        Rule::ErrorMessage,
        "src/db.rs",
        (pos(1, 1), pos(1, 2)),
        parts,
        "",
    )
    .key();
    Report {
        root: root.to_path_buf(),
        baseline_path: Some("phi-lint.baseline.json".to_owned()),
        baseline_ref: Some("origin/main".to_owned()),
        files: 5,
        statements: 23,
        growth: vec![Growth {
            key: findings[0].key(),
            ref_count: 0,
            count: 1,
        }],
        findings,
        stale: vec![Stale {
            key: stale_key,
            baseline_count: 2,
            found_count: 1,
        }],
        errors: vec![
            FileError {
                file: "src/broken.rs".to_owned(),
                pos: Some(pos(4, 9)),
                message: "expected `;`, found `}`".to_owned(),
            },
            FileError {
                file: "src/binary.rs".to_owned(),
                pos: None,
                message: "stream did not contain valid utf-8".to_owned(),
            },
        ],
        suppressions: 1,
        suppressed: 2,
        ..Report::default()
    }
}

/// Nothing new: one baselined finding, one suppression.
fn clean_report(root: &Path) -> Report {
    let mut findings = vec![baselined_finding()];
    assign_fingerprints(&mut findings);
    Report {
        root: root.to_path_buf(),
        baseline_path: Some("phi-lint.baseline.json".to_owned()),
        files: 12,
        statements: 40,
        findings,
        suppressions: 1,
        suppressed: 1,
        ..Report::default()
    }
}

/// A scan root with `src/handlers.rs` in it.
fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("src")).expect("src dir");
    let text = HANDLERS.join("\n") + "\n";
    std::fs::write(dir.path().join("src/handlers.rs"), text).expect("handlers.rs");
    dir
}

fn render(report: &Report, format: Format) -> String {
    let mut out = Vec::new();
    report
        .write(format, &mut out)
        .expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("output is UTF-8")
}

/// SARIF with the temporary root replaced by a fixed placeholder.
fn render_sarif(report: &Report) -> String {
    render(report, Format::Sarif).replace(&sarif::root_uri(&report.root), "file:///ROOT/")
}

/// Snapshots the four renderings of `report`, each named `FORMAT_CASE` (`human_full`).
fn assert_renderings(case: &str, report: &Report) {
    insta::assert_snapshot!(format!("human_{case}"), render(report, Format::Human));
    insta::assert_snapshot!(format!("json_{case}"), render(report, Format::Json));
    insta::assert_snapshot!(format!("sarif_{case}"), render_sarif(report));
    insta::assert_snapshot!(format!("github_{case}"), render(report, Format::Github));
}

#[test]
fn snapshots_full() {
    let dir = root();
    assert_renderings("full", &full_report(dir.path()));
}

#[test]
fn snapshots_clean() {
    let dir = root();
    let report = clean_report(dir.path());
    assert_eq!(report.exit_code(), exit::CLEAN);
    assert_renderings("clean", &report);
}

#[test]
fn sarif_matches_the_official_schema() {
    let dir = root();
    for report in [full_report(dir.path()), clean_report(dir.path())] {
        let sarif: Value = serde_json::from_str(&render(&report, Format::Sarif)).expect("JSON");
        phi_testkit::sarif::assert_valid(&sarif);
    }
    // The validator is not vacuous: it rejects a region that starts on line 0.
    let mut sarif: Value =
        serde_json::from_str(&render(&full_report(dir.path()), Format::Sarif)).expect("JSON");
    sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert!(!phi_testkit::sarif::schema_errors(&sarif).is_empty());
}

#[test]
fn sarif_declares_every_rule_and_indexes_it() {
    let dir = root();
    let report = full_report(dir.path());
    let sarif: Value = serde_json::from_str(&render(&report, Format::Sarif)).expect("JSON");
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    let codes: Vec<&str> = Rule::ALL.iter().map(|r| r.code()).collect();
    assert_eq!(ids, codes);
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), report.findings.len() + report.stale.len());
    for result in results {
        let index =
            usize::try_from(result["ruleIndex"].as_u64().expect("ruleIndex")).expect("small");
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
    assert_eq!(results[0]["baselineState"], "unchanged");
    assert_eq!(results[0]["suppressions"][0]["kind"], "external");
    assert_eq!(results[1]["baselineState"], "new");
    assert!(results[1].get("suppressions").is_none());
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notifications = invocation["toolExecutionNotifications"]
        .as_array()
        .expect("notifications");
    assert_eq!(
        notifications.len(),
        report.growth.len() + report.errors.len()
    );
    let root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .expect("root uri");
    assert!(
        root.starts_with("file:///") && root.ends_with('/'),
        "{root}"
    );
}

#[test]
fn sarif_never_contains_source_text() {
    let dir = root();
    let full = full_report(dir.path());
    // Precondition: the literal is in the source, and the human format shows that line.
    assert!(render(&full, Format::Human).contains(PHI_LITERAL));
    for report in [full, clean_report(dir.path())] {
        let sarif = render(&report, Format::Sarif);
        assert!(!sarif.contains("snippet"));
        assert!(!sarif.contains(PHI_LITERAL));
    }
}

#[test]
fn root_uri_is_absolute_and_percent_encoded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let spaced = dir.path().join("my project");
    std::fs::create_dir(&spaced).expect("dir");
    let uri = sarif::root_uri(&spaced);
    assert!(uri.starts_with("file:///"), "{uri}");
    assert!(uri.ends_with("/my%20project/"), "{uri}");
}

#[test]
fn json_parses_and_counts_match() {
    let dir = root();
    let report = full_report(dir.path());
    let json: Value = serde_json::from_str(&render(&report, Format::Json)).expect("JSON");
    assert_eq!(json["version"], 1);
    let summary = serde_json::json!({
        "files": 5, "statements": 23, "findings": 5, "new": 4, "baselined": 1, "stale": 1,
        "growth": 1, "errors": 2, "suppressions": 1, "suppressed": 2, "exit_code": exit::ERROR,
        "reached": 0, "unreached": 0, "given": 0, "test_files": 0, "excluded": 0,
        "no_statements": false,
    });
    assert_eq!(json["summary"], summary);
    let findings = json["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 5);
    assert_eq!(
        findings.iter().filter(|f| f["baselined"] == true).count(),
        1
    );
    assert_eq!(findings[4]["macro"], "info");
    assert_eq!(findings[4]["line"], 15);
    assert_eq!(json["stale"][0]["baseline_count"], 2);
    assert_eq!(json["growth"][0]["macro"], "warn");
    assert_eq!(json["errors"][1]["line"], Value::Null);
}

#[test]
fn human_carets_sit_under_the_value() {
    let dir = root();
    let report = full_report(dir.path());
    let out = render(&report, Format::Human);
    let lines: Vec<&str> = out.lines().collect();
    // Each snippet is a numbered source line followed by its caret line.
    let marked: Vec<String> = lines
        .windows(2)
        .filter(|w| {
            w[0].split(" | ")
                .next()
                .is_some_and(|n| n.trim().parse::<u32>().is_ok())
        })
        .map(|w| {
            let source = w[0].split_once(" | ").map_or("", |(_, s)| s);
            let carets = w[1].split_once(" | ").map_or("", |(_, s)| s);
            let offset = carets.len() - carets.trim_start().len();
            let len = carets.trim_start().len();
            source.chars().skip(offset).take(len).collect()
        })
        .collect();
    assert_eq!(marked, ["e", "format!(\"{} {}\",", "user.email"]);
    assert!(
        out.contains(" --> src/gone.rs:3:15\n  |\n  = help: "),
        "no snippet for a missing file"
    );
}

/// A long line is cut to a window around the value: the finding shows where the value is, not
/// the whole generated line.
#[test]
fn mark_cuts_a_long_line_to_a_window_around_the_value() {
    let line = format!(
        "{}info!(\"{{}}\", user.email);{}",
        "a".repeat(5000),
        "b".repeat(5000)
    );
    let col = 5000 + "info!(\"{}\", ".len() + 1;
    let m = human::mark(&line, col as u32, Some(col as u32 + 10));
    assert!(
        m.text.chars().count() <= human::SHOWN + 6,
        "{}",
        m.text.len()
    );
    assert!(m.text.starts_with("...") && m.text.ends_with("..."));
    let shown: String = m.text.chars().skip(m.offset).take(m.len).collect();
    assert_eq!(shown, "user.email");
    // A value running past the window is marked to its edge.
    let m = human::mark(&line, col as u32, None);
    assert_eq!(m.offset + m.len, m.text.chars().count() - 3);
    // A short line is shown whole.
    let m = human::mark("  info!(\"{}\", x);", 16, Some(17));
    assert_eq!(
        (m.text.as_str(), m.offset, m.len),
        ("  info!(\"{}\", x);", 15, 1)
    );
}

#[test]
fn mark_clamps_and_counts_characters() {
    let m = human::mark("é\tx", 3, Some(4));
    assert_eq!((m.text.as_str(), m.offset, m.len), ("é    x", 5, 1));
    let m = human::mark("ab", 10, Some(12));
    assert_eq!((m.offset, m.len), (2, 1));
    let m = human::mark("", 1, None);
    assert_eq!((m.text.as_str(), m.offset, m.len), ("", 0, 1));
}

#[test]
fn github_orders_annotations_by_rank() {
    let dir = root();
    let out = render(&full_report(dir.path()), Format::Github);
    let titles: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("::error "))
        .filter_map(|l| l.split("title=").nth(1)?.split("::").next())
        .collect();
    let expected = [
        "phi%3A%3Aerror-message",
        "phi%3A%3Ainterpolation",
        "phi%3A%3Ainterpolation",
        "phi%3A%3Aprint",
        "phi%3A%3Astale-baseline",
        "baseline-growth",
        "phi-lint%3A cannot check file",
        "phi-lint%3A cannot check file",
    ];
    assert_eq!(titles, expected);
}

#[test]
fn github_escapes_data_and_properties() {
    let nasty = "100%, a:b\r\n::warning::x";
    assert_eq!(github::escape_data(nasty), "100%25, a:b%0D%0A::warning::x");
    assert_eq!(
        github::escape_property(nasty),
        "100%25%2C a%3Ab%0D%0A%3A%3Awarning%3A%3Ax"
    );

    let dir = root();
    let mut report = clean_report(dir.path());
    report.findings[0].baselined = false;
    report.findings[0].file = "src/a,b:c.rs".into();
    report.findings[0].message = "100% of `x`\n::warning::pwned".to_owned();
    let out = render(&report, Format::Github);
    let annotation = "::error file=src/a%2Cb%3Ac.rs,line=20,endLine=20,col=9,endColumn=19,\
                      title=phi%3A%3Ainterpolation::100%25 of `x`%0A::warning::pwned\n";
    assert!(out.starts_with(annotation), "{out}");
    assert!(
        out.contains(
            "\nsrc/a,b%3Ac.rs:20:9: phi::interpolation: 100%25 of `x`%0A::warning::pwned\n"
        ),
        "{out}"
    );
    assert!(!out.lines().any(|l| l.starts_with("::warning")), "{out}");
}

#[test]
fn sarif_carries_the_fixes_phi_lint_fix_applies() {
    let text = "fn f(e: E, user: User) {\n    tracing::error!(user_id = %user.id, \"save failed: {}\", e);\n}\n";
    let lint = crate::lint_source(&crate::Config::default(), "src/a.rs", text).expect("parses");
    let dir = root();
    let report = Report {
        root: dir.path().to_path_buf(),
        files: 1,
        statements: lint.statements,
        findings: lint.findings,
        ..Report::default()
    };
    let rewritten = crate::fix::apply_fixes(text, &report.findings);
    assert_eq!(rewritten.1, 1, "{:?}", report.findings);
    let sarif: Value = serde_json::from_str(&render(&report, Format::Sarif)).expect("JSON");
    phi_testkit::sarif::assert_valid(&sarif);
    let fixes = &sarif["runs"][0]["results"][0]["fixes"];
    insta::assert_snapshot!(
        "sarif_fixes",
        serde_json::to_string_pretty(fixes).expect("JSON")
    );
    // Applying the SARIF replacements by line and column gives what `phi-lint fix` writes.
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let offset = |region: &Value, line: &str, column: &str| {
        let l = usize::try_from(region[line].as_u64().expect("line")).expect("line") - 1;
        let c = usize::try_from(region[column].as_u64().expect("column")).expect("column") - 1;
        let before: usize = lines[..l].iter().map(|s| s.len()).sum();
        before
            + lines[l]
                .char_indices()
                .nth(c)
                .map_or(lines[l].len(), |(i, _)| i)
    };
    let mut edits: Vec<(usize, usize, String)> = fixes[0]["artifactChanges"][0]["replacements"]
        .as_array()
        .expect("replacements")
        .iter()
        .map(|r| {
            let region = &r["deletedRegion"];
            let text = r["insertedContent"]["text"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            (
                offset(region, "startLine", "startColumn"),
                offset(region, "endLine", "endColumn"),
                text,
            )
        })
        .collect();
    edits.sort();
    let mut out = String::new();
    let mut at = 0;
    for (start, end, insert) in edits {
        out.push_str(&text[at..start]);
        out.push_str(&insert);
        at = end;
    }
    out.push_str(&text[at..]);
    assert_eq!(out, rewritten.0);
    // The JSON format carries the same edits, by line and column.
    let json: Value = serde_json::from_str(&render(&report, Format::Json)).expect("JSON");
    let edits = &json["findings"][0]["fix"]["edits"];
    assert_eq!(edits.as_array().map(Vec::len), Some(3), "{json}");
    assert_eq!(
        edits[0]["replacement"],
        "error_type = %phi_filter::error_type(&e), "
    );
    assert_eq!(
        (
            &edits[1]["line"],
            &edits[1]["column"],
            &edits[1]["end_column"]
        ),
        (&Value::from(2), &Value::from(53), &Value::from(57))
    );
    assert!(
        out.contains("error_type = %phi_filter::error_type(&e), \"save failed\")"),
        "{out}"
    );
}
