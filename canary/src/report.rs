//! `Report`: what a scan found, the verdict and exit code it implies, and its renderings.
//!
//! **Invariant:** no rendering shows a byte of a scanned line. A hit is its source, stream, line,
//! byte offset, variant and canary id; the rest of the line is the PHI.

mod human;
mod json;
mod sarif;

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};

use serde::Serialize;

use crate::marker::{MarkerKind, MarkerTally};
use crate::matcher::Matcher;
use crate::variant::{Variant, VariantSet};

/// The exit codes, a contract documented in `--help` and the README.
pub mod exit {
    /// Clean, with every precondition proven.
    pub const CLEAN: u8 = 0;
    /// A canary was found: a leak.
    pub const LEAK: u8 = 1;
    /// The logs could not be read, or a usage error: fails closed.
    pub const UNREADABLE: u8 = 2;
    /// Inconclusive: a precondition was not proven (a marker missing, a source empty).
    pub const INCONCLUSIVE: u8 = 3;
}

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: one block per hit, then a summary line.
    Human,
    /// One JSON object (see the README for its fields).
    Json,
    /// SARIF 2.1.0, without snippets.
    Sarif,
}

/// The outcome of a scan, worst first: a leak outranks an unreadable source, which outranks an
/// unproven precondition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No canary found, and every precondition proven.
    Clean,
    /// At least one canary found.
    Leak,
    /// A source could not be read completely.
    Unreadable,
    /// Nothing found, but a precondition was not proven.
    Inconclusive,
}

impl Verdict {
    /// The process exit code for this verdict.
    #[must_use]
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Clean => exit::CLEAN,
            Verdict::Leak => exit::LEAK,
            Verdict::Unreadable => exit::UNREADABLE,
            Verdict::Inconclusive => exit::INCONCLUSIVE,
        }
    }
}

/// A canary found in a log. Positions and names only: never the line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hit {
    /// The source's name: a path, `stdin`, `docker:NAME`.
    pub source: String,
    /// The stream: `stdout`, `stderr`, `tty`, `file`, `stdin`.
    pub stream: &'static str,
    /// The 1-based line.
    pub line: u64,
    /// The byte offset of the match in the stream.
    pub offset: u64,
    /// The encoding that matched.
    pub variant: Variant,
    /// The canary's id (`demo`, `core`, `run:0123abcd`, `canary-2`).
    pub canary: String,
    /// For a hit found by decoding, the steps and the match (`base64>gzip>exact`); the offset
    /// is then the start of the outermost decoded run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// For a hit in an OTLP export, where in the request: `resource 0 > scope 0 > span 3 >
    /// attribute "http.url"`. `line` is then the request's number on its signal, and `offset`
    /// the byte in that string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl fmt::Display for Hit {
    /// Which canary was found, in which encoding, and where; never a byte of what matched:
    /// ``canary `demo` found, variant `exact`, in app.log stream file at line 3, byte 7``, or for
    /// an OTLP hit ``… in otlp logs request 1, resource 0 > log 2 > body, byte 0``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "canary `{}` found, variant `{}`, in {} ",
            self.canary,
            self.variant.name(),
            self.source
        )?;
        match &self.field {
            Some(field) => write!(
                f,
                "{} request {}, {field}, byte {}",
                self.stream, self.line, self.offset
            ),
            None => write!(
                f,
                "stream {} at line {}, byte {}",
                self.stream, self.line, self.offset
            ),
        }
    }
}

/// A canary scanned for, by id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CanarySummary {
    /// Its id.
    pub id: String,
    /// How many distinct patterns it contributed.
    pub patterns: usize,
}

/// One stream of a source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StreamReport {
    /// `stdout`, `stderr`, `tty`, `file`, `stdin`.
    pub name: &'static str,
    /// Bytes scanned.
    pub bytes: u64,
    /// Lines scanned.
    pub lines: u64,
    /// Whether the marker lines must appear here (when `--expect-marker` is given).
    pub expects_markers: bool,
    /// The marker lines seen.
    pub markers: MarkerTally,
    /// Hits in this stream, including any beyond the listed ones.
    pub hits: u64,
    /// An OTLP signal's spans, log records or metrics, markers included: what a pipeline
    /// compares with the calls it made, so an export that carried nothing cannot pass. `None`
    /// (and left out of JSON) for a log stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
    /// An OTLP traces stream's spans counted by name, for the names the receiver was asked to
    /// count ([`Receiver::count_spans`](crate::otlp::Receiver::count_spans)), each with its
    /// count, zero included: only names the caller gave appear, never one read from a payload,
    /// so a span name that carries PHI never reaches a report. `None` (and left out of JSON)
    /// elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spans_named: Option<BTreeMap<String, u64>>,
}

/// One source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceReport {
    /// Its name.
    pub name: String,
    /// `file`, `stdin`, `docker`.
    pub kind: &'static str,
    /// Its streams, in the order the source opened them.
    pub streams: Vec<StreamReport>,
    /// Conditions that weaken the scan without stopping it.
    pub warnings: Vec<String>,
    /// Why the source could not be read completely.
    pub error: Option<String>,
}

/// Everything a scan found, and nothing of what it read.
///
/// ```
/// use phi_canary::report::{Report, Verdict};
///
/// let empty = Report::default();
/// assert_eq!(empty.verdict(), Verdict::Clean);
/// assert_eq!(empty.exit_code(), 0);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The canaries scanned for.
    pub canaries: Vec<CanarySummary>,
    /// The variants matched.
    pub variants: VariantSet,
    /// The positive control's nonce, when requested.
    pub marker: Option<String>,
    /// Every source, in the order given.
    pub sources: Vec<SourceReport>,
    /// The hits listed (at most [`MAX_HITS_PER_STREAM`](crate::scan::MAX_HITS_PER_STREAM) per
    /// stream), in source, stream and offset order.
    pub hits: Vec<Hit>,
    /// Every hit, listed or not.
    pub hits_total: u64,
}

impl Report {
    /// The report of a scan with `matcher` before it reads anything: what it scans for, no
    /// source and no hit.
    pub(crate) fn scanning(matcher: &Matcher) -> Self {
        Self {
            canaries: matcher
                .canaries()
                .iter()
                .enumerate()
                .map(|(i, c)| CanarySummary {
                    id: c.id().to_owned(),
                    patterns: matcher.pattern_count(i),
                })
                .collect(),
            variants: matcher.variants(),
            marker: matcher.marker().map(|n| n.as_str().to_owned()),
            ..Self::default()
        }
    }

    /// The verdict: leak, else unreadable, else inconclusive, else clean.
    #[must_use]
    pub fn verdict(&self) -> Verdict {
        if self.hits_total > 0 {
            Verdict::Leak
        } else if self.sources.iter().any(|s| s.error.is_some()) {
            Verdict::Unreadable
        } else if !self.unproven().is_empty() {
            Verdict::Inconclusive
        } else {
            Verdict::Clean
        }
    }

    /// The process exit code.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        self.verdict().exit_code()
    }

    /// The preconditions not proven, one sentence each, for the sources that were read: a
    /// source that gave no bytes (an OTLP receiver that got no request), and with `--expect-marker`
    /// every expecting stream without a start line followed by an end line.
    #[must_use]
    pub fn unproven(&self) -> Vec<String> {
        let mut out = Vec::new();
        for source in self.sources.iter().filter(|s| s.error.is_none()) {
            let otlp = source.kind == "otlp";
            if otlp && source.streams.iter().all(|s| s.lines == 0) {
                // An OTLP stream's `lines` are its requests.
                out.push(format!("{}: no request arrived", source.name));
            } else if !otlp && self.marker.is_none() && source.streams.iter().all(|s| s.bytes == 0)
            {
                out.push(format!("{}: no bytes were read", source.name));
            }
            let Some(nonce) = &self.marker else { continue };
            for stream in source.streams.iter().filter(|s| s.expects_markers) {
                let at = format!("{} ({})", source.name, stream.name);
                let m = &stream.markers;
                for (count, kind) in [(m.start, MarkerKind::Start), (m.end, MarkerKind::End)] {
                    if count == 0 {
                        out.push(format!(
                            "{at}: no `{} {} {nonce}` {}",
                            crate::marker::PREFIX,
                            kind.word(),
                            if otlp { "span or log record" } else { "line" }
                        ));
                    }
                }
                if m.start > 0 && m.end > 0 && !m.bracketed() {
                    if m.start == m.end && m.first_start < m.last_end {
                        out.push(format!(
                            "{at}: a start marker comes after the last end marker"
                        ));
                    } else if m.start == m.end {
                        out.push(format!(
                            "{at}: the last end marker comes before the first start marker"
                        ));
                    } else {
                        out.push(format!(
                            "{at}: {} start and {} end markers; every start must be followed \
                             by its end (a restart?)",
                            m.start, m.end
                        ));
                    }
                }
            }
        }
        out
    }

    /// Streams that carried both marker lines in order.
    #[must_use]
    pub fn proven_streams(&self) -> usize {
        self.expecting_streams()
            .filter(|s| s.markers.bracketed())
            .count()
    }

    /// Streams of readable sources that must carry the marker lines.
    pub(crate) fn expecting_streams(&self) -> impl Iterator<Item = &StreamReport> {
        self.sources
            .iter()
            .filter(|s| s.error.is_none())
            .flat_map(|s| &s.streams)
            .filter(|s| s.expects_markers)
    }

    /// Writes the report in `format`.
    pub fn write(&self, format: Format, out: &mut dyn Write) -> io::Result<()> {
        match format {
            Format::Human => human::write(self, out),
            Format::Json => json::write(self, out),
            Format::Sarif => sarif::write(self, out),
        }
    }

    /// The one-line summary that ends the human format.
    #[must_use]
    pub fn summary(&self) -> String {
        human::summary(self)
    }
}

#[cfg(test)]
mod tests;
