//! The bundled tables' reader: RFC 4180 through the `csv` crate, a header that must be the one
//! the loader expects, and every record as wide as it. Errors name the file and line, never a
//! field's text.

/// One record: the line it starts on and its fields.
pub(crate) struct Record {
    pub(crate) line: usize,
    pub(crate) fields: Vec<String>,
}

/// The records of `text` after a header that must equal `header`.
pub(crate) fn read(file: &str, text: &str, header: &[&str]) -> Result<Vec<Record>, String> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let line = |e: &csv::Error| line_at(text, e.position());
    let found = reader
        .headers()
        .map_err(|e| format!("{file}:{}: malformed", line(&e)))?;
    if !found.iter().eq(header.iter().copied()) {
        return Err(format!("{file}: unexpected header"));
    }
    reader
        .records()
        .map(|r| {
            let r = r.map_err(|e| format!("{file}:{}: malformed", line(&e)))?;
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
    use super::read;

    #[test]
    fn reads_quoted_fields_and_both_line_ends_and_refuses_a_bad_header_or_width() {
        let rows = read("t.csv", "a,b\r\n1,\"x, \"\"y\"\"\"\n\n2,\n", &["a", "b"]).unwrap();
        let fields: Vec<_> = rows.iter().map(|r| (r.line, r.fields.clone())).collect();
        assert_eq!(
            fields,
            [
                (2, vec!["1".to_owned(), "x, \"y\"".to_owned()]),
                (4, vec!["2".to_owned(), String::new()])
            ]
        );
        assert_eq!(
            read("t.csv", "a,c\n1,2\n", &["a", "b"]).err().as_deref(),
            Some("t.csv: unexpected header")
        );
        assert_eq!(
            read("t.csv", "a,b\n1,2\n3\n", &["a", "b"]).err().as_deref(),
            Some("t.csv:3: malformed")
        );
    }
}
