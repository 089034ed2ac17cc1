//! The SARIF 2.1.0 model shared by phi-lint and phi-canary: serde types for the subset of the
//! standard they write, fixes included, and the URI helpers both need.
//!
//! Fields serialize in declaration order and optional ones are left out when empty, so a writer
//! that fills the same fields gets the same bytes. **Invariant:** the model has no `snippet` and
//! no `contextRegion`: neither tool may put scanned text into a SARIF file, which is uploaded to
//! third parties. (A fix's inserted text is code the tool wrote, never text it read.)
//!
//! ```
//! use phi_sarif::{Driver, Log, Message, Run, Tool};
//!
//! let run: Run = Run::new(Tool {
//!     driver: Driver::new("phi-lint", "https://example.invalid", "0.1.0"),
//! });
//! let log = Log::new(run);
//! let json = serde_json::to_value(&log)?;
//! assert_eq!(json["version"], "2.1.0");
//! assert_eq!(json["runs"][0]["tool"]["driver"]["name"], "phi-lint");
//! assert_eq!(Message::text("x").text, "x");
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use serde::{Deserialize, Serialize};

mod fix;

pub use fix::{ArtifactChange, ArtifactContent, Fix, Replacement};

/// The `$schema` every log names.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF version written.
pub const VERSION: &str = "2.1.0";

/// A SARIF log with one run. `R` is the run's results: a `Vec` of [`SarifResult`]s, or any
/// type that serializes as a sequence of them (a writer with many results can make each one as
/// it is written, instead of holding them all).
#[derive(Debug, Clone, Serialize)]
pub struct Log<R = Vec<SarifResult>> {
    /// [`SCHEMA`].
    #[serde(rename = "$schema")]
    pub schema: String,
    /// [`VERSION`].
    pub version: String,
    /// Exactly one run.
    pub runs: [Run<R>; 1],
}

impl<R: Serialize> Log<R> {
    /// A log of one run.
    #[must_use]
    pub fn new(run: Run<R>) -> Self {
        Log {
            schema: SCHEMA.to_owned(),
            version: VERSION.to_owned(),
            runs: [run],
        }
    }

    /// Writes the log pretty-printed, and a newline.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        writeln!(out)
    }
}

/// One run of one tool. `R` is its results, as in [`Log`].
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run<R = Vec<SarifResult>> {
    /// The tool and its rules.
    pub tool: Tool,
    /// Exactly one invocation (when written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invocations: Vec<Invocation>,
    /// `%SRCROOT%` and the like: the bases relative URIs resolve against.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub original_uri_base_ids: BTreeMap<String, ArtifactLocation>,
    /// How columns count: `unicodeCodePoints` (characters) or `utf16CodeUnits`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column_kind: Option<String>,
    /// What the tool found.
    pub results: R,
}

impl<R: Default> Run<R> {
    /// A run of `tool` with nothing else set.
    #[must_use]
    pub fn new(tool: Tool) -> Self {
        Run {
            tool,
            invocations: Vec::new(),
            original_uri_base_ids: BTreeMap::new(),
            column_kind: None,
            results: R::default(),
        }
    }
}

/// The tool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tool {
    /// The tool's main component.
    pub driver: Driver,
}

/// The tool's main component and its rules.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Driver {
    /// The tool's name.
    pub name: String,
    /// Where to read about it.
    pub information_uri: String,
    /// Its version.
    pub version: String,
    /// Its version, as semver.
    pub semantic_version: String,
    /// Its rules, indexed by each result's `ruleIndex`.
    pub rules: Vec<ReportingDescriptor>,
}

impl Driver {
    /// A driver with no rules; `version` is also the semantic version.
    #[must_use]
    pub fn new(name: &str, information_uri: &str, version: &str) -> Self {
        Driver {
            name: name.to_owned(),
            information_uri: information_uri.to_owned(),
            version: version.to_owned(),
            semantic_version: version.to_owned(),
            rules: Vec::new(),
        }
    }
}

/// A rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportingDescriptor {
    /// The stable id results refer to.
    pub id: String,
    /// A `PascalCase` name.
    pub name: String,
    /// One line.
    pub short_description: Message,
    /// The full description.
    pub full_description: Message,
    /// Help, in text and Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<Message>,
    /// The default level.
    pub default_configuration: Configuration,
    /// Tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Tags>,
}

/// A message: plain text, and Markdown where the reader can render it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Plain text.
    pub text: String,
    /// The same in Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
}

impl Message {
    /// A plain-text message.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Message {
            text: text.into(),
            markdown: None,
        }
    }
}

/// A rule's default configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Configuration {
    /// `error`, `warning` or `note`.
    pub level: String,
}

/// A rule's tags.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tags {
    /// The tags, e.g. `security`.
    pub tags: Vec<String>,
}

/// How the run went.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Invocation {
    /// Whether the tool did its job (findings do not make it unsuccessful).
    pub execution_successful: bool,
    /// The process exit code.
    pub exit_code: i32,
    /// What went wrong beside the results.
    pub tool_execution_notifications: Vec<Notification>,
}

/// A tool execution notification.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Notification {
    /// `error`, `warning` or `note`.
    pub level: String,
    /// What happened.
    pub message: Message,
    /// Where, if anywhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
}

/// One result: a finding. `P` is the type of its `properties` bag.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult<P = ()> {
    /// The rule's id.
    pub rule_id: String,
    /// The rule's index in the driver's rules.
    pub rule_index: usize,
    /// `error`, `warning` or `note`.
    pub level: String,
    /// What was found.
    pub message: Message,
    /// Where.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
    /// Fingerprints that survive edits elsewhere in the file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub partial_fingerprints: BTreeMap<String, String>,
    /// `new` or `unchanged` against the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_state: Option<String>,
    /// Why the result is accepted, if it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppressions: Vec<Suppression>,
    /// Machine-applicable edits that resolve the result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<Fix>,
    /// Tool-specific properties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<P>,
}

impl<P> SarifResult<P> {
    /// A result of `rule_id` at `rule_index` with a message; level `error`, nothing else set.
    #[must_use]
    pub fn error(rule_id: &str, rule_index: usize, message: impl Into<String>) -> Self {
        SarifResult {
            rule_id: rule_id.to_owned(),
            rule_index,
            level: "error".to_owned(),
            message: Message::text(message),
            locations: Vec::new(),
            partial_fingerprints: BTreeMap::new(),
            baseline_state: None,
            suppressions: Vec::new(),
            fixes: Vec::new(),
            properties: None,
        }
    }
}

/// Where a result is: a file and region, or a logical place (a stream).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// A file and region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_location: Option<PhysicalLocation>,
    /// A logical place with no file behind it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logical_locations: Vec<LogicalLocation>,
}

impl Location {
    /// A location in a file.
    #[must_use]
    pub fn physical(artifact_location: ArtifactLocation, region: Option<Region>) -> Self {
        Location {
            physical_location: Some(PhysicalLocation {
                artifact_location,
                region,
            }),
            logical_locations: Vec::new(),
        }
    }
}

/// A file and a region in it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    /// The file.
    pub artifact_location: ArtifactLocation,
    /// The region; the whole file when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

/// A file, by URI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLocation {
    /// The URI, relative to `uri_base_id` when that is set.
    pub uri: String,
    /// The base the URI resolves against, e.g. `%SRCROOT%`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri_base_id: Option<String>,
}

/// A region: lines and columns are 1-based, `end_column` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    /// The first line.
    pub start_line: u64,
    /// The first column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_column: Option<u64>,
    /// The last line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    /// The column after the region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u64>,
}

impl Region {
    /// A whole line, or a point on it when `column` is given.
    #[must_use]
    pub fn line(line: u64, column: Option<u64>) -> Self {
        Region {
            start_line: line,
            start_column: column,
            end_line: None,
            end_column: None,
        }
    }
}

/// A place with no file behind it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogicalLocation {
    /// Its short name.
    pub name: String,
    /// Its full name.
    pub fully_qualified_name: String,
    /// Its kind, e.g. `resource`.
    pub kind: String,
}

/// Why a result is accepted.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Suppression {
    /// `inSource` or `external`.
    pub kind: String,
    /// `accepted`, `underReview` or `rejected`.
    pub status: String,
    /// The reason.
    pub justification: String,
}

/// Percent-encodes every byte but RFC 3986 unreserved characters and the bytes in `keep`.
///
/// ```
/// assert_eq!(phi_sarif::percent_encode(b"a b/c:d", b"/"), "a%20b/c%3Ad");
/// ```
#[must_use]
pub fn percent_encode(bytes: &[u8], keep: &[u8]) -> String {
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
