//! A reader for the bundled data files: RFC 4180 CSV (comma-separated, `"`-quoted fields with
//! `""` for a quote, `\n` or `\r\n` line ends), a header row, and every record as wide as the
//! header. The files are ours and small, so this is the whole of what they need.

/// Why a data file does not parse. Carries the file and line, never a field's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CsvError {
    /// The header is not the one the loader expects.
    #[error("{file}: unexpected header")]
    Header {
        /// The data file.
        file: &'static str,
    },
    /// A record has a different number of fields from the header.
    #[error("{file}:{line}: expected {expected} fields")]
    Width {
        /// The data file.
        file: &'static str,
        /// The 1-based line the record starts on.
        line: usize,
        /// How many fields the header has.
        expected: usize,
    },
    /// A quoted field is not closed, or a quote appears inside an unquoted field.
    #[error("{file}:{line}: malformed quoting")]
    Quote {
        /// The data file.
        file: &'static str,
        /// The 1-based line the record starts on.
        line: usize,
    },
}

/// One record: its fields and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) line: usize,
    pub(crate) fields: Vec<String>,
}

/// The records of `text` after a header that must equal `header`.
pub(crate) fn read(
    file: &'static str,
    text: &str,
    header: &[&str],
) -> Result<Vec<Record>, CsvError> {
    let mut records = split(file, text)?.into_iter();
    match records.next() {
        Some(first)
            if first
                .fields
                .iter()
                .map(String::as_str)
                .eq(header.iter().copied()) => {}
        _ => return Err(CsvError::Header { file }),
    }
    records
        .map(|r| {
            if r.fields.len() == header.len() {
                Ok(r)
            } else {
                Err(CsvError::Width {
                    file,
                    line: r.line,
                    expected: header.len(),
                })
            }
        })
        .collect()
}

/// Every record of `text`, blank lines skipped.
fn split(file: &'static str, text: &str) -> Result<Vec<Record>, CsvError> {
    let mut records = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false; // inside a quoted field
    let mut was_quoted = false; // the current field was quoted (only a separator may follow)
    let mut line = 1;
    let mut start = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() && !was_quoted => {
                quoted = true;
                was_quoted = true;
            }
            ',' => {
                fields.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                if !(fields.is_empty() && field.is_empty() && !was_quoted) {
                    fields.push(std::mem::take(&mut field));
                    records.push(Record {
                        line: start,
                        fields: std::mem::take(&mut fields),
                    });
                }
                was_quoted = false;
                line += 1;
                start = line;
            }
            _ if was_quoted || c == '"' => return Err(CsvError::Quote { file, line: start }),
            _ => field.push(c),
        }
    }
    if quoted {
        return Err(CsvError::Quote { file, line: start });
    }
    if !(fields.is_empty() && field.is_empty() && !was_quoted) {
        fields.push(field);
        records.push(Record {
            line: start,
            fields,
        });
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str, header: &[&str]) -> Result<Vec<Vec<String>>, CsvError> {
        read("t.csv", text, header).map(|rs| rs.into_iter().map(|r| r.fields).collect())
    }

    #[test]
    fn reads_quoted_fields_and_both_line_ends() {
        let text = "a,b\r\n1,\"x, \"\"y\"\"\"\n\n2,\n";
        assert_eq!(
            fields(text, &["a", "b"]).unwrap(),
            [vec!["1", "x, \"y\""], vec!["2", ""]]
        );
    }

    #[test]
    fn a_last_line_without_newline_is_read() {
        assert_eq!(fields("a\nz", &["a"]).unwrap(), [vec!["z"]]);
    }

    #[test]
    fn refuses_a_wrong_header_width_or_quoting() {
        assert_eq!(
            fields("a,c\n1,2\n", &["a", "b"]),
            Err(CsvError::Header { file: "t.csv" })
        );
        assert_eq!(
            fields("a,b\n1,2\n3\n", &["a", "b"]),
            Err(CsvError::Width {
                file: "t.csv",
                line: 3,
                expected: 2
            })
        );
        for bad in ["a\n\"open\n", "a\nx\"y\n", "a\n\"q\"z\n"] {
            assert_eq!(
                fields(bad, &["a"]),
                Err(CsvError::Quote {
                    file: "t.csv",
                    line: 2
                }),
                "{bad:?}"
            );
        }
    }
}
