//! The `sarif` format: SARIF 2.1.0 for GitHub code scanning, one run.
//!
//! Findings and stale baseline entries are results; baseline growth and unreadable files are
//! tool execution notifications. **Invariant:** no source text reaches SARIF (no `snippet`, no
//! `contextRegion`): the line of a finding may hold protected health information in a literal,
//! and SARIF is uploaded to a third party. Messages name expressions, never values.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::Report;
use super::human::{GROWTH_CODE, file_error_message, growth_message, key_note, stale_message};
use crate::finding::{FindingKey, fnv1a_hex};
use crate::rules::Rule;

/// The URI base every artifact location is relative to: the scan root.
const SRCROOT: &str = "%SRCROOT%";

/// The key of our partial fingerprint; bump `v1` if the fingerprint's recipe changes.
const FINGERPRINT: &str = "phiLint/v1";

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    invocations: [Invocation; 1],
    original_uri_base_ids: BTreeMap<&'static str, Uri>,
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    information_uri: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: String,
    short_description: Text<&'static str>,
    full_description: Text<&'static str>,
    help: Markdown,
    default_configuration: Level,
    properties: Tags,
}

#[derive(Serialize)]
struct Text<T> {
    text: T,
}

#[derive(Serialize)]
struct Markdown {
    text: &'static str,
    markdown: &'static str,
}

#[derive(Serialize)]
struct Level {
    level: &'static str,
}

#[derive(Serialize)]
struct Tags {
    tags: [&'static str; 3],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    exit_code: i32,
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    baseline_state: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<Suppression>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
struct Uri {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<u32>,
}

#[derive(Serialize)]
struct Suppression {
    kind: &'static str,
    status: &'static str,
    justification: String,
}

/// Writes the report as one SARIF log and a newline.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool { driver: driver() },
            invocations: [invocation(report)],
            original_uri_base_ids: BTreeMap::from([(
                SRCROOT,
                Uri {
                    uri: root_uri(&report.root),
                },
            )]),
            column_kind: "unicodeCodePoints",
            results: results(report),
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

/// phi-lint and every rule it has, in [`Rule::ALL`] order so `ruleIndex` is [`Rule::rank`].
fn driver() -> Driver {
    let rules = Rule::ALL
        .iter()
        .map(|rule| {
            let info = rule.info();
            RuleDescriptor {
                id: info.code,
                name: pascal_case(info.code),
                short_description: Text { text: info.summary },
                full_description: Text { text: info.summary },
                help: Markdown {
                    text: info.help,
                    markdown: info.docs,
                },
                default_configuration: Level { level: "error" },
                properties: Tags {
                    tags: ["security", "phi", "cwe-532"],
                },
            }
        })
        .collect();
    Driver {
        name: "phi-lint",
        information_uri: information_uri(),
        version: env!("CARGO_PKG_VERSION"),
        semantic_version: env!("CARGO_PKG_VERSION"),
        rules,
    }
}

/// The crate's repository, or the workspace's when the crate does not inherit it.
fn information_uri() -> &'static str {
    match env!("CARGO_PKG_REPOSITORY") {
        "" => "https://example.invalid/phiguard",
        repository => repository,
    }
}

/// Findings (new and baselined), then stale baseline entries.
fn results(report: &Report) -> Vec<SarifResult> {
    let justification = format!(
        "grandfathered by {}",
        report.baseline_path.as_deref().unwrap_or("the baseline")
    );
    let mut results: Vec<SarifResult> = report
        .findings
        .iter()
        .map(|f| SarifResult {
            rule_id: f.rule.code(),
            rule_index: f.rule.rank(),
            level: "error",
            message: text(f.message.clone()),
            locations: vec![location(&f.file, Some(region(f.start, f.end)))],
            partial_fingerprints: BTreeMap::from([(FINGERPRINT, f.fingerprint.clone())]),
            baseline_state: if f.baselined { "unchanged" } else { "new" },
            suppressions: if f.baselined {
                vec![Suppression {
                    kind: "external",
                    status: "accepted",
                    justification: justification.clone(),
                }]
            } else {
                Vec::new()
            },
        })
        .collect();
    for stale in &report.stale {
        let rule = Rule::StaleBaseline;
        let message = format!("{}: {}", stale_message(stale), key_note(&stale.key));
        results.push(SarifResult {
            rule_id: rule.code(),
            rule_index: rule.rank(),
            level: "error",
            message: text(message),
            locations: baseline_location(report),
            partial_fingerprints: BTreeMap::from([(FINGERPRINT, key_fingerprint(&stale.key))]),
            baseline_state: "new",
            suppressions: Vec::new(),
        });
    }
    results
}

/// Baseline growth and files that could not be checked.
fn invocation(report: &Report) -> Invocation {
    let mut notifications = Vec::new();
    for growth in &report.growth {
        let message = growth_message(growth, report.baseline_ref.as_deref());
        let message = format!("{GROWTH_CODE}: {message}: {}", key_note(&growth.key));
        notifications.push(Notification {
            level: "error",
            message: text(message),
            locations: baseline_location(report),
        });
    }
    for error in &report.errors {
        let region = error.pos.map(|pos| Region::at(pos.line, Some(pos.column)));
        notifications.push(Notification {
            level: "error",
            message: text(format!("cannot check {}", file_error_message(error))),
            locations: vec![location(&error.file, region)],
        });
    }
    Invocation {
        execution_successful: report.errors.is_empty(),
        exit_code: report.exit_code(),
        tool_execution_notifications: notifications,
    }
}

/// Line 1 of the baseline file, if there is one.
fn baseline_location(report: &Report) -> Vec<Location> {
    report
        .baseline_path
        .iter()
        .map(|path| location(path, Some(Region::at(1, None))))
        .collect()
}

impl Region {
    /// A line, or a point on it: no end.
    fn at(line: u32, column: Option<u32>) -> Region {
        let column = column.map(|c| c.max(1));
        Region {
            start_line: line.max(1),
            start_column: column,
            end_line: None,
            end_column: None,
        }
    }
}

/// A plain-text message.
fn text(text: String) -> Text<String> {
    Text { text }
}

/// A region SARIF accepts: lines and columns at least 1, the end not before the start.
fn region(start: crate::finding::Pos, end: crate::finding::Pos) -> Region {
    let start_line = start.line.max(1);
    let start_column = start.column.max(1);
    let end_line = end.line.max(start_line);
    let end_column = if end_line == start_line {
        end.column.max(start_column)
    } else {
        end.column.max(1)
    };
    Region {
        start_line,
        start_column: Some(start_column),
        end_line: Some(end_line),
        end_column: Some(end_column),
    }
}

fn location(file: &str, region: Option<Region>) -> Location {
    Location {
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation {
                uri: file_uri(file),
                uri_base_id: SRCROOT,
            },
            region,
        },
    }
}

/// The stable fingerprint of a stale entry: its key's hash, marked as stale.
fn key_fingerprint(key: &FindingKey) -> String {
    fnv1a_hex(&[
        &key.path,
        &key.rule,
        &key.macro_name,
        &key.field,
        &key.expr,
        &key.function,
        "stale",
    ])
}

/// `phi::stale-baseline` -> `StaleBaseline`.
fn pascal_case(code: &str) -> String {
    let tail = code.rsplit("::").next().unwrap_or(code);
    tail.split(['-', '_'])
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars))
                .into_iter()
                .flatten()
        })
        .collect()
}

/// A relative file path as a URI reference: `/` separators, everything but unreserved
/// characters and `/` percent-encoded (so `:` cannot be read as a scheme).
fn file_uri(file: &str) -> String {
    percent_encode(file.replace('\\', "/").as_bytes(), b"/")
}

/// The scan root as an absolute `file://` URI with a trailing slash, for `originalUriBaseIds`.
pub(super) fn root_uri(root: &Path) -> String {
    let absolute = std::fs::canonicalize(root)
        .or_else(|_| std::path::absolute(root))
        .unwrap_or_else(|_| root.to_path_buf());
    let mut path =
        percent_encode(absolute.as_os_str().as_encoded_bytes(), b"/:").replace("%5C", "/");
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    if !path.ends_with('/') {
        path.push('/');
    }
    format!("file://{path}")
}

/// Percent-encodes every byte but RFC 3986 unreserved characters and `keep`.
fn percent_encode(bytes: &[u8], keep: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || keep.contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}
