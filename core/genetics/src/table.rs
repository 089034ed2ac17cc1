//! The bundled tables' reader: RFC 4180 through the `csv` crate, a header that must be the one
//! the loader expects, and every record as wide as it. Errors name the file and line, never a
//! field's text.

/// One record: the line it starts on and its fields.
pub(crate) struct Record {
    pub(crate) line: u64,
    pub(crate) fields: Vec<String>,
}

/// The records of `text` after a header that must equal `header`.
pub(crate) fn read(file: &str, text: &str, header: &[&str]) -> Result<Vec<Record>, String> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let line = |e: &csv::Error| e.position().map_or(0, csv::Position::line);
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
                // A record's position counts the line ends before it; it starts on the next line.
                line: r.position().map_or(0, |p| p.line() + 1),
                fields: r.iter().map(str::to_owned).collect(),
            })
        })
        .collect()
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
