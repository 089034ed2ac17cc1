//! The reader of the answers layer's bundled data tables (the vocabularies' and genetics'
//! CSV files): RFC 4180 through the `csv` crate, a header row that must be the one the loader
//! expects, and every record as wide as the header. Errors name the file and line, never a
//! field's text, so a loader may log them.
//!
//! ```
//! let rows = answers_tables::read("t.csv", "code,title\nN01,Headache\n", &["code", "title"])?;
//! assert_eq!((rows[0].line, rows[0].fields[0].as_str()), (2, "N01"));
//! # Ok::<(), answers_tables::CsvError>(())
//! ```

/// Why a data file does not parse. Carries the file and line, never a field's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
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
    /// The reader gave up on the text (it is not UTF-8).
    #[error("{file}:{line}: malformed")]
    Malformed {
        /// The data file.
        file: &'static str,
        /// The 1-based line the reader stopped on.
        line: usize,
    },
}

/// One record: its fields and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The 1-based line the record starts on.
    pub line: usize,
    /// The record's fields, as many as the header has.
    pub fields: Vec<String>,
}

/// The records of `text` after a header that must equal `header`; blank lines are skipped.
pub fn read(file: &'static str, text: &str, header: &[&str]) -> Result<Vec<Record>, CsvError> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let refused = |e: &csv::Error| {
        let line = line_at(text, e.position());
        match e.kind() {
            csv::ErrorKind::UnequalLengths { .. } => CsvError::Width {
                file,
                line,
                expected: header.len(),
            },
            _ => CsvError::Malformed { file, line },
        }
    };
    let found = reader.headers().map_err(|e| refused(&e))?;
    if !found.iter().eq(header.iter().copied()) {
        return Err(CsvError::Header { file });
    }
    reader
        .records()
        .map(|r| {
            let r = r.map_err(|e| refused(&e))?;
            Ok(Record {
                line: line_at(text, r.position()),
                fields: r.iter().map(str::to_owned).collect(),
            })
        })
        .collect()
}

/// The 1-based line a record starts on, from the byte the reader began it at (a record begins
/// after the previous one's terminator, so blank lines and a `\n` after a `\r` come first).
fn line_at(text: &str, pos: Option<&csv::Position>) -> usize {
    let bytes = text.as_bytes();
    let at = pos.map_or(0, |p| {
        usize::try_from(p.byte())
            .unwrap_or(usize::MAX)
            .min(bytes.len())
    });
    let start = at
        + bytes[at..]
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
    text.get(..start).map_or(0, |t| t.matches('\n').count()) + 1
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
        let lines: Vec<usize> = read("t.csv", text, &["a", "b"])
            .unwrap()
            .iter()
            .map(|r| r.line)
            .collect();
        assert_eq!(lines, [2, 4]);
    }

    #[test]
    fn a_last_line_without_newline_is_read() {
        assert_eq!(fields("a\nz", &["a"]).unwrap(), [vec!["z"]]);
    }

    #[test]
    fn refuses_a_wrong_header_or_width() {
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
    }
}
