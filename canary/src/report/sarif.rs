//! The `sarif` format: SARIF 2.1.0, one run.
//!
//! Each hit is a `leak` result; each unproven precondition an `inconclusive` result. Unreadable
//! sources and warnings are tool execution notifications. A hit in a file points at the file and
//! line; a hit in a stream with no file behind it (stdin, a container) has a logical location
//! named `SOURCE/STREAM`. The stream, byte offset, variant and canary id are result properties.
//! **Invariant:** no `snippet`, no `contextRegion`: the line is the PHI, and SARIF is uploaded to
//! third parties.

use std::fmt::Write as _;
use std::io::{self, Write};

use serde::Serialize;

use super::{Hit, Report, Verdict};

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
struct Run<'a> {
    tool: Tool,
    invocations: [Invocation; 1],
    results: Vec<SarifResult<'a>>,
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
    rules: [Rule; 2],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: &'static str,
    short_description: Text<&'static str>,
    full_description: Text<&'static str>,
    default_configuration: Level,
}

#[derive(Serialize)]
struct Text<T> {
    text: T,
}

#[derive(Serialize)]
struct Level {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    exit_code: u8,
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<&'a Hit>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<PhysicalLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    name: &'static str,
    fully_qualified_name: String,
    kind: &'static str,
}

const LEAK: usize = 0;
const INCONCLUSIVE: usize = 1;

const RULES: [(&str, &str, &str, &str); 2] = [
    (
        "leak",
        "Leak",
        "a canary planted in the record appeared in a log",
        "A canary planted in a record appeared in the service's logs, so the log path that \
         wrote it leaks protected health information. The line is not shown: it is the PHI. \
         Find the log statement at the source, stream and line given and stop it logging the \
         value.",
    ),
    (
        "inconclusive",
        "Inconclusive",
        "a precondition of a clean result was not proven",
        "The scan found no canary, but could not prove the logs were complete: a marker line of \
         the positive control is missing, or a source gave no bytes. Check that the service ran, \
         flushed its output and was stopped cleanly, and that the logs were captured whole.",
    ),
];

/// Writes the report as one SARIF log and a newline.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let verdict = report.verdict();
    let mut notifications = Vec::new();
    for source in &report.sources {
        for warning in &source.warnings {
            notifications.push(Notification {
                level: "warning",
                message: Text {
                    text: format!("{}: {warning}", source.name),
                },
            });
        }
        if let Some(error) = &source.error {
            notifications.push(Notification {
                level: "error",
                message: Text {
                    text: format!("{}: {error}", source.name),
                },
            });
        }
    }
    let mut results: Vec<SarifResult> = report.hits.iter().map(|h| leak(report, h)).collect();
    for reason in report.unproven() {
        results.push(SarifResult {
            rule_id: RULES[INCONCLUSIVE].0,
            rule_index: INCONCLUSIVE,
            level: "error",
            message: Text { text: reason },
            locations: Vec::new(),
            properties: None,
        });
    }
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "phi-canary",
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules: RULES.map(|(id, name, short, full)| Rule {
                        id,
                        name,
                        short_description: Text { text: short },
                        full_description: Text { text: full },
                        default_configuration: Level { level: "error" },
                    }),
                },
            },
            invocations: [Invocation {
                execution_successful: verdict != Verdict::Unreadable,
                exit_code: verdict.exit_code(),
                tool_execution_notifications: notifications,
            }],
            results,
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

fn leak<'a>(report: &Report, hit: &'a Hit) -> SarifResult<'a> {
    let kind = report
        .sources
        .iter()
        .find(|s| s.name == hit.source)
        .map_or("file", |s| s.kind);
    let location = if kind == "file" {
        Location {
            physical_location: Some(PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: path_uri(&hit.source),
                },
                region: Region {
                    start_line: hit.line,
                },
            }),
            logical_locations: Vec::new(),
        }
    } else {
        Location {
            physical_location: None,
            logical_locations: vec![LogicalLocation {
                name: hit.stream,
                fully_qualified_name: format!("{}/{}", hit.source, hit.stream),
                kind: "resource",
            }],
        }
    };
    SarifResult {
        rule_id: RULES[LEAK].0,
        rule_index: LEAK,
        level: "error",
        message: Text {
            text: format!(
                "canary `{}` found, variant `{}`, in {} stream {} at line {}, byte {}; the line \
                 is not shown",
                hit.canary,
                hit.variant.name(),
                hit.source,
                hit.stream,
                hit.line,
                hit.offset
            ),
        },
        locations: vec![location],
        properties: Some(hit),
    }
}

/// A path as a URI reference: relative paths stay relative, absolute ones become `file://`;
/// every byte but unreserved characters and `/` is percent-encoded.
fn path_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}
