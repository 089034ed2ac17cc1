//! The `sarif` format: SARIF 2.1.0 for GitHub code scanning, one run.
//!
//! Findings and stale baseline entries are results; baseline growth and unreadable files are
//! tool execution notifications. A finding with a machine-applicable rewrite carries it as
//! `fixes` (the edits `phi-lint fix` applies). **Invariant:** no source text reaches SARIF (no
//! `snippet`, no `contextRegion`): the line of a finding may hold protected health information in a
//! literal, and SARIF is uploaded to a third party. Messages name expressions, never values.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use phi_sarif::{
    ArtifactChange, ArtifactContent, ArtifactLocation, Configuration, Driver, Fix, Invocation,
    Location, Message, Notification, Region, Replacement, ReportingDescriptor, Run, SarifResult,
    Suppression, Tags, Tool, percent_encode,
};

use serde::{Serialize, Serializer};

use super::human::{GROWTH_CODE, file_error_message, growth_message, key_note, stale_message};
use super::{Report, Stale};
use crate::finding::Finding;
use crate::rules::Rule;

/// The URI base every artifact location is relative to: the scan root.
const SRCROOT: &str = "%SRCROOT%";

/// The key of our partial fingerprint; bump `v1` if the fingerprint's recipe changes.
const FINGERPRINT: &str = "phiLint/v1";

/// Writes the report as one SARIF log and a newline. Each result is made as it is written, so
/// a report with a finding on every statement of a large file is not held twice.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let run = Run {
        tool: Tool { driver: driver() },
        invocations: vec![invocation(report)],
        original_uri_base_ids: BTreeMap::from([(
            SRCROOT.to_owned(),
            ArtifactLocation {
                uri: root_uri(&report.root),
                uri_base_id: None,
            },
        )]),
        column_kind: Some("unicodeCodePoints".to_owned()),
        results: Results::new(report),
    };
    phi_sarif::Log::new(run).write(out)
}

/// phi-lint and every rule it has, in [`Rule::ALL`] order so `ruleIndex` is [`Rule::rank`].
fn driver() -> Driver {
    let mut driver = Driver::new("phi-lint", information_uri(), env!("CARGO_PKG_VERSION"));
    driver.rules = Rule::ALL
        .iter()
        .map(|rule| {
            let info = rule.info();
            ReportingDescriptor {
                id: rule.code().to_owned(),
                name: pascal_case(rule.code()),
                short_description: Message::text(info.summary),
                full_description: Message::text(info.summary),
                help: Some(Message {
                    text: info.help.to_owned(),
                    markdown: Some(info.docs.to_owned()),
                }),
                default_configuration: Configuration {
                    level: "error".to_owned(),
                },
                properties: Some(Tags {
                    tags: ["security", "phi", "cwe-532"].map(str::to_owned).to_vec(),
                }),
            }
        })
        .collect();
    driver
}

/// The crate's repository, or the workspace's when the crate does not inherit it.
fn information_uri() -> &'static str {
    match env!("CARGO_PKG_REPOSITORY") {
        "" => "https://example.invalid/phiguard",
        repository => repository,
    }
}

/// Findings (new and baselined), then stale baseline entries: serialized as a sequence of
/// results, each made when it is written.
struct Results<'a> {
    report: &'a Report,
    /// Why a baselined finding is suppressed.
    justification: String,
}

impl<'a> Results<'a> {
    fn new(report: &'a Report) -> Self {
        let justification = format!(
            "grandfathered by {}",
            report.baseline_path.as_deref().unwrap_or("the baseline")
        );
        Results {
            report,
            justification,
        }
    }

    /// The result of one finding.
    fn finding(&self, f: &Finding) -> SarifResult {
        let mut result = SarifResult::error(f.rule.code(), f.rule.rank(), f.message.clone());
        result.locations = vec![location(&f.file, Some(region(f.start, f.end)))];
        result.partial_fingerprints = fingerprint(f.fingerprint.to_string());
        result.baseline_state = Some(if f.baselined { "unchanged" } else { "new" }.to_owned());
        result.fixes = f.fix.iter().map(|fix| sarif_fix(&f.file, fix)).collect();
        if f.baselined {
            result.suppressions = vec![Suppression {
                kind: "external".to_owned(),
                status: "accepted".to_owned(),
                justification: self.justification.clone(),
            }];
        }
        result
    }

    /// The result of a baseline entry nothing matches any more.
    fn stale(&self, stale: &Stale) -> SarifResult {
        let rule = Rule::StaleBaseline;
        let message = format!("{}: {}", stale_message(stale), key_note(&stale.key));
        let mut result = SarifResult::error(rule.code(), rule.rank(), message);
        result.locations = baseline_location(self.report);
        result.partial_fingerprints = fingerprint(stale.key.fingerprint("stale"));
        result.baseline_state = Some("new".to_owned());
        result
    }
}

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let findings = self.report.findings.iter().map(|f| self.finding(f));
        let stale = self.report.stale.iter().map(|s| self.stale(s));
        serializer.collect_seq(findings.chain(stale))
    }
}

/// A finding's fix: its edits as replacements in its file. The inserted text is code phi-lint
/// wrote (a field naming the error's type), never text it read beyond the error's own name.
fn sarif_fix(file: &str, fix: &crate::finding::Fix) -> Fix {
    Fix {
        description: Some(Message::text(fix.description.clone())),
        artifact_changes: vec![ArtifactChange {
            artifact_location: artifact(file),
            replacements: fix
                .edits
                .iter()
                .map(|e| Replacement {
                    deleted_region: region(e.start, e.end),
                    inserted_content: (!e.replacement.is_empty()).then(|| ArtifactContent {
                        text: e.replacement.clone(),
                    }),
                })
                .collect(),
        }],
    }
}

fn fingerprint(value: String) -> BTreeMap<String, String> {
    BTreeMap::from([(FINGERPRINT.to_owned(), value)])
}

/// Baseline growth and files that could not be checked.
fn invocation(report: &Report) -> Invocation {
    let mut notifications = Vec::new();
    for growth in &report.growth {
        let message = growth_message(growth, report.baseline_ref.as_deref());
        let message = format!("{GROWTH_CODE}: {message}: {}", key_note(&growth.key));
        notifications.push(Notification {
            level: "error".to_owned(),
            message: Message::text(message),
            locations: baseline_location(report),
        });
    }
    for error in &report.errors {
        let region = error.pos.map(|pos| point(pos.line, Some(pos.column)));
        notifications.push(Notification {
            level: "error".to_owned(),
            message: Message::text(format!("cannot check {}", file_error_message(error))),
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
        .map(|path| location(path, Some(point(1, None))))
        .collect()
}

/// A line, or a point on it: no end. Lines and columns are at least 1.
fn point(line: u32, column: Option<u32>) -> Region {
    Region::line(u64::from(line.max(1)), column.map(|c| u64::from(c.max(1))))
}

/// A region SARIF accepts: lines and columns at least 1, the end not before the start.
pub(super) fn region(start: crate::finding::Pos, end: crate::finding::Pos) -> Region {
    let start_line = start.line.max(1);
    let start_column = start.column.max(1);
    let end_line = end.line.max(start_line);
    let end_column = if end_line == start_line {
        end.column.max(start_column)
    } else {
        end.column.max(1)
    };
    Region {
        start_line: u64::from(start_line),
        start_column: Some(u64::from(start_column)),
        end_line: Some(u64::from(end_line)),
        end_column: Some(u64::from(end_column)),
    }
}

pub(super) fn location(file: &str, region: Option<Region>) -> Location {
    Location::physical(artifact(file), region)
}

/// A file relative to the scan root.
pub(super) fn artifact(file: &str) -> ArtifactLocation {
    ArtifactLocation {
        uri: file_uri(file),
        uri_base_id: Some(SRCROOT.to_owned()),
    }
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
