//! The two inputs, bounded: a whole `Bundle` read into memory up to a size limit, or an NDJSON
//! export streamed a line at a time, each line up to a length limit. Nesting is bounded by
//! `serde_json`'s recursion limit (128 levels) on both.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{ImportError, Position, Rule, json_rule};
use crate::fields::{Obj, string};

/// How the file is laid out.
///
/// ```
/// use answers_fhir::Format;
/// use std::path::Path;
///
/// assert_eq!(Format::of_path(Path::new("export/Observation.ndjson")), Format::Ndjson);
/// assert_eq!(Format::of_path(Path::new("record.json")), Format::Bundle);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON `Bundle` (any `type`), its resources in `entry[].resource`.
    Bundle,
    /// A bulk export: one resource per line.
    Ndjson,
}

impl Format {
    /// `Ndjson` for a file named `*.ndjson`, else `Bundle`.
    #[must_use]
    pub fn of_path(path: &Path) -> Format {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ndjson"))
        {
            Format::Ndjson
        } else {
            Format::Bundle
        }
    }
}

/// The bounds on the input.
///
/// ```
/// let limits = answers_fhir::Limits::default();
/// assert_eq!(limits.max_bundle_bytes, 64 * 1024 * 1024);
/// assert_eq!(limits.max_line_bytes, 1024 * 1024);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest whole-Bundle file read (64 MiB): a Bundle is parsed in memory, so a larger
    /// record is exported as NDJSON, which is streamed.
    pub max_bundle_bytes: u64,
    /// The longest NDJSON line (1 MiB): one resource.
    pub max_line_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bundle_bytes: 64 * 1024 * 1024,
            max_line_bytes: 1024 * 1024,
        }
    }
}

/// An opened input, walked once per pass.
pub(crate) enum Input {
    Bundle(Value),
    Ndjson { path: PathBuf, max_line: usize },
}

/// The UTF-8 byte order mark, which FHIR servers and Windows tools put before the JSON.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading byte order mark (JSON itself has none, RFC 8259 §8.1, but a
/// reader may ignore one).
fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

fn io(e: &std::io::Error) -> ImportError {
    ImportError::Io(e.kind())
}

impl Input {
    pub(crate) fn open(path: &Path, format: Format, limits: Limits) -> Result<Input, ImportError> {
        match format {
            Format::Ndjson => {
                // Opened once here so a missing file fails before the first pass.
                File::open(path).map_err(|e| io(&e))?;
                Ok(Input::Ndjson {
                    path: path.to_owned(),
                    max_line: limits.max_line_bytes,
                })
            }
            Format::Bundle => {
                let file = File::open(path).map_err(|e| io(&e))?;
                let mut bytes = Vec::new();
                file.take(limits.max_bundle_bytes + 1)
                    .read_to_end(&mut bytes)
                    .map_err(|e| io(&e))?;
                if bytes.len() as u64 > limits.max_bundle_bytes {
                    return Err(ImportError::file(Rule::BundleTooLarge {
                        limit: limits.max_bundle_bytes,
                    }));
                }
                let value: Value = serde_json::from_slice(strip_bom(&bytes))
                    .map_err(|e| ImportError::file(json_rule(&e)))?;
                let is_bundle = value
                    .as_object()
                    .and_then(|o| o.get("resourceType"))
                    .and_then(Value::as_str)
                    == Some("Bundle");
                if !is_bundle {
                    return Err(ImportError::file(Rule::NotABundle));
                }
                Ok(Input::Bundle(value))
            }
        }
    }

    /// Calls `f` with each resource, its position, and (in a Bundle) its entry's `fullUrl`.
    pub(crate) fn each(
        &self,
        mut f: impl FnMut(Position, &Value, Option<&str>) -> Result<(), ImportError>,
    ) -> Result<(), ImportError> {
        match self {
            Input::Bundle(bundle) => {
                let refused = |at, rule| ImportError::Refused {
                    at: Some(at),
                    resource: None,
                    rule,
                };
                let entries = match bundle.get("entry") {
                    None | Some(Value::Null) => return Ok(()),
                    Some(Value::Array(entries)) => entries,
                    Some(_) => {
                        return Err(ImportError::file(Rule::FieldType {
                            field: "Bundle.entry",
                            expected: "an array",
                        }));
                    }
                };
                for (i, entry) in entries.iter().enumerate() {
                    let at = Position::Entry(i);
                    let entry: &Obj = entry.as_object().ok_or(refused(at, Rule::NotAnObject))?;
                    let full_url =
                        string(entry, "fullUrl", "fullUrl").map_err(|r| refused(at, r))?;
                    let resource = entry
                        .get("resource")
                        .ok_or(refused(at, Rule::Missing { field: "resource" }))?;
                    f(at, resource, full_url)?;
                }
                Ok(())
            }
            Input::Ndjson { path, max_line } => {
                let file = File::open(path).map_err(|e| io(&e))?;
                let mut reader = BufReader::with_capacity(1 << 16, file);
                let mut line = Vec::new();
                let mut number = 0u64;
                loop {
                    line.clear();
                    number += 1;
                    let at = Position::Line(number);
                    // The first line may start with a byte order mark, which is no part of it.
                    let bom = if number == 1 { BOM.len() as u64 } else { 0 };
                    let read = (&mut reader)
                        .take(*max_line as u64 + 1 + bom)
                        .read_until(b'\n', &mut line)
                        .map_err(|e| io(&e))?;
                    if read == 0 {
                        return Ok(());
                    }
                    let mut text = line.strip_suffix(b"\n").unwrap_or(&line);
                    if number == 1 {
                        text = strip_bom(text);
                    }
                    if text.len() > *max_line {
                        return Err(ImportError::Refused {
                            at: Some(at),
                            resource: None,
                            rule: Rule::LineTooLong { limit: *max_line },
                        });
                    }
                    if text.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    let value: Value =
                        serde_json::from_slice(text).map_err(|e| ImportError::Refused {
                            at: Some(at),
                            resource: None,
                            rule: json_rule(&e),
                        })?;
                    f(at, &value, None)?;
                }
            }
        }
    }
}
