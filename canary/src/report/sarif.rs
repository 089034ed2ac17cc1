//! The `sarif` format: SARIF 2.1.0, one run.
//!
//! Each hit is a `leak` result; each unproven precondition an `inconclusive` result. Unreadable
//! sources and warnings are tool execution notifications. A hit in a file points at the file and
//! line; a hit in a stream with no file behind it (stdin, a container) has a logical location
//! named `SOURCE/STREAM`. The stream, byte offset, variant and canary id are result properties.
//! **Invariant:** no `snippet`, no `contextRegion`: the line is the PHI, and SARIF is uploaded to
//! third parties.

use std::io::{self, Write};

use phi_sarif::{
    ArtifactLocation, Configuration, Driver, Invocation, Location, LogicalLocation, Message,
    Notification, Region, ReportingDescriptor, Run, SarifResult, Tool,
};

use super::{Hit, Report, Verdict};

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
            notifications.push(notification(
                "warning",
                format!("{}: {warning}", source.name),
            ));
        }
        if let Some(error) = &source.error {
            notifications.push(notification("error", format!("{}: {error}", source.name)));
        }
    }
    let mut results: Vec<SarifResult<&Hit>> = report.hits.iter().map(|h| leak(report, h)).collect();
    for reason in report.unproven() {
        results.push(SarifResult::error(
            RULES[INCONCLUSIVE].0,
            INCONCLUSIVE,
            reason,
        ));
    }
    let mut driver = Driver::new(
        "phi-canary",
        env!("CARGO_PKG_REPOSITORY"),
        env!("CARGO_PKG_VERSION"),
    );
    driver.rules = RULES
        .iter()
        .map(|&(id, name, short, full)| ReportingDescriptor {
            id: id.to_owned(),
            name: name.to_owned(),
            short_description: Message::text(short),
            full_description: Message::text(full),
            help: None,
            default_configuration: Configuration {
                level: "error".to_owned(),
            },
            properties: None,
        })
        .collect();
    let mut run = Run::new(Tool { driver });
    run.invocations = vec![Invocation {
        execution_successful: verdict != Verdict::Unreadable,
        exit_code: i32::from(verdict.exit_code()),
        tool_execution_notifications: notifications,
    }];
    run.results = results;
    phi_sarif::Log::new(run).write(out)
}

fn notification(level: &str, text: String) -> Notification {
    Notification {
        level: level.to_owned(),
        message: Message::text(text),
        locations: Vec::new(),
    }
}

fn leak<'a>(report: &Report, hit: &'a Hit) -> SarifResult<&'a Hit> {
    let kind = report
        .sources
        .iter()
        .find(|s| s.name == hit.source)
        .map_or("file", |s| s.kind);
    let location = if kind == "file" {
        Location::physical(
            ArtifactLocation {
                uri: path_uri(&hit.source),
                uri_base_id: None,
            },
            Some(Region::line(hit.line, None)),
        )
    } else {
        Location {
            physical_location: None,
            logical_locations: vec![LogicalLocation {
                name: hit.stream.to_owned(),
                fully_qualified_name: format!("{}/{}", hit.source, hit.stream),
                kind: "resource".to_owned(),
            }],
        }
    };
    // A hit in a request names the field; one in a stream, the line: neither is shown.
    let withheld = if hit.field.is_some() { "value" } else { "line" };
    let message = format!("{hit}; the {withheld} is not shown");
    let mut result = SarifResult::error(RULES[LEAK].0, LEAK, message);
    result.locations = vec![location];
    result.properties = Some(hit);
    result
}

/// A path as a URI reference: relative paths stay relative, absolute ones become `file://`;
/// every byte but unreserved characters and `/` is percent-encoded.
fn path_uri(path: &str) -> String {
    let encoded = phi_sarif::percent_encode(path.as_bytes(), b"/");
    if path.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}
