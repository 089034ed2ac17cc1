//! InvalidToolCallRepair: raw argument text that does not parse as JSON reaches no tool.
//!
//! The model is told where the text broke ([`ParsePosition`]: a category, a line and a column),
//! never the text or the parser's message. Two deterministic mistakes are salvaged, outside
//! string literals only, and only when the text as sent does not parse:
//! - a Python-style `None` or `none` becomes `null` ([`Salvage::NoneToNull`]);
//! - an unquoted ISO date in value position, `"start": 2026-03-01`, is quoted
//!   ([`Salvage::QuotedDate`]).
//!
//! Nothing else is guessed: if the salvaged text still does not parse, the position reported is
//! the one in the text the model sent.

use std::fmt;

use phi_macros::ClosedEnum;
use serde_json::Value;

/// A deterministic repair applied to argument text.
///
/// ```
/// use answers_governance::Salvage;
///
/// assert_eq!(Salvage::VARIANTS, ["none_to_null", "quoted_date"]);
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Salvage {
    /// `None` / `none` outside a string became `null`.
    NoneToNull,
    /// An unquoted `YYYY-MM-DD` value was quoted.
    QuotedDate,
}

/// What kind of parse error it was (`serde_json::error::Category`).
///
/// ```
/// assert_eq!(answers_governance::JsonErrorCategory::Eof.as_str(), "eof");
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonErrorCategory {
    /// Not syntactically valid JSON.
    Syntax,
    /// The text ended before the value did.
    Eof,
    /// Valid JSON the parser still refused (too deeply nested, say).
    Data,
    /// Reading the text failed.
    Io,
}

/// Where argument text stopped being JSON. Holds no text.
///
/// ```
/// use answers_governance::repair::parse_arguments;
///
/// let err = parse_arguments("{\"view\": day}").unwrap_err();
/// assert_eq!((err.line, err.column), (1, 10));
/// assert_eq!(err.to_string(), "syntax error at line 1, column 10");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsePosition {
    /// The kind of error.
    pub category: JsonErrorCategory,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in bytes) on that line.
    pub column: usize,
}

impl ParsePosition {
    fn of(err: &serde_json::Error) -> Self {
        use serde_json::error::Category;
        let category = match err.classify() {
            Category::Syntax => JsonErrorCategory::Syntax,
            Category::Eof => JsonErrorCategory::Eof,
            Category::Data => JsonErrorCategory::Data,
            Category::Io => JsonErrorCategory::Io,
        };
        Self {
            category,
            line: err.line(),
            column: err.column(),
        }
    }
}

impl fmt::Display for ParsePosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.category {
            JsonErrorCategory::Syntax => "syntax error",
            JsonErrorCategory::Eof => "unexpected end of text",
            JsonErrorCategory::Data => "unusable JSON",
            JsonErrorCategory::Io => "unreadable text",
        };
        write!(f, "{what} at line {}, column {}", self.line, self.column)
    }
}

/// Arguments that parsed, and the salvage it took (empty when the text was JSON as sent).
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The arguments.
    pub value: Value,
    /// The repairs applied, each kind once, in the order first applied.
    pub salvage: Vec<Salvage>,
}

/// Parses raw argument text, salvaging the two deterministic cases.
///
/// ```
/// use answers_governance::Salvage;
/// use answers_governance::repair::parse_arguments;
/// use serde_json::json;
///
/// let p = parse_arguments(r#"{"start": 2026-03-01, "end": None, "keywords": ["None"]}"#).unwrap();
/// assert_eq!(p.value, json!({"start": "2026-03-01", "end": null, "keywords": ["None"]}));
/// assert_eq!(p.salvage, [Salvage::QuotedDate, Salvage::NoneToNull]);
/// assert!(parse_arguments(r#"{"view": "day""#).is_err());
/// ```
pub fn parse_arguments(raw: &str) -> Result<Parsed, ParsePosition> {
    let original = match serde_json::from_str::<Value>(raw) {
        Ok(value) => {
            return Ok(Parsed {
                value,
                salvage: Vec::new(),
            });
        }
        Err(e) => ParsePosition::of(&e),
    };
    let (text, salvage) = salvaged(raw);
    if salvage.is_empty() {
        return Err(original);
    }
    serde_json::from_str::<Value>(&text)
        .map(|value| Parsed { value, salvage })
        .map_err(|_| original)
}

/// `raw` with the two repairs applied outside string literals, and which were applied.
fn salvaged(raw: &str) -> (String, Vec<Salvage>) {
    let bytes = raw.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(raw.len() + 8);
    let mut applied: Vec<Salvage> = Vec::new();
    let note = |s: Salvage, applied: &mut Vec<Salvage>| {
        if !applied.contains(&s) {
            applied.push(s);
        }
    };
    let mut in_string = false;
    let mut escaped = false;
    // The last significant byte outside strings, to tell value position.
    let mut last = b'\0';
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                last = b'"';
            }
        } else if b == b'"' {
            in_string = true;
        } else if b.is_ascii_alphabetic() && !word_byte(bytes, i.wrapping_sub(1)) {
            let end = word_end(bytes, i);
            let word = &bytes[i..end];
            if word == b"None" || word == b"none" {
                out.extend_from_slice(b"null");
                note(Salvage::NoneToNull, &mut applied);
            } else {
                out.extend_from_slice(word);
            }
            last = b'l';
            i = end;
            continue;
        } else if b.is_ascii_digit()
            && matches!(last, b':' | b'[' | b',')
            && let Some(end) = iso_date_end(bytes, i)
        {
            out.push(b'"');
            out.extend_from_slice(&bytes[i..end]);
            out.push(b'"');
            note(Salvage::QuotedDate, &mut applied);
            last = b'"';
            i = end;
            continue;
        } else if !b.is_ascii_whitespace() {
            last = b;
        }
        out.push(b);
        i += 1;
    }
    // Only ASCII was inserted, between whole characters of `raw`: the bytes are UTF-8.
    (String::from_utf8(out).unwrap_or_default(), applied)
}

/// Whether the byte at `i` (if any) belongs to a bare word or number.
fn word_byte(bytes: &[u8], i: usize) -> bool {
    bytes
        .get(i)
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn word_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while word_byte(bytes, end) {
        end += 1;
    }
    end
}

/// The end of a `YYYY-MM-DD` starting at `start`, if one does and nothing word-like follows it.
fn iso_date_end(bytes: &[u8], start: usize) -> Option<usize> {
    let shape = b"dddd-dd-dd";
    let date = bytes.get(start..start + shape.len())?;
    let fits = date.iter().zip(shape).all(|(b, s)| match s {
        b'd' => b.is_ascii_digit(),
        _ => b == s,
    });
    let end = start + shape.len();
    let clean_end = bytes
        .get(end)
        .is_none_or(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b':' | b'.')));
    (fits && clean_end).then_some(end)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn valid_json_is_not_touched() {
        let p = parse_arguments(r#"{"keywords": ["none"], "x": null}"#).unwrap();
        assert!(p.salvage.is_empty());
        assert_eq!(p.value, json!({"keywords": ["none"], "x": null}));
    }

    #[test]
    fn words_inside_strings_and_longer_words_are_left_alone() {
        let (text, applied) = salvaged(r#"{"a": "None", "b": Nonesuch, "c": none}"#);
        assert_eq!(text, r#"{"a": "None", "b": Nonesuch, "c": null}"#);
        assert_eq!(applied, [Salvage::NoneToNull]);
        let (text, _) = salvaged(r#"{"a": "say \"2026-03-01\"", "b": [2026-03-01, 2026-03-02]}"#);
        assert_eq!(
            text,
            r#"{"a": "say \"2026-03-01\"", "b": ["2026-03-01", "2026-03-02"]}"#
        );
    }

    #[test]
    fn only_a_bare_date_is_quoted() {
        for raw in [
            r#"{"start": 2026-03-01T10:00}"#,
            r#"{"start": 2026-3-01}"#,
            r#"{"start": 20260301-01}"#,
            r#"{"start": 2026-03-011}"#,
        ] {
            assert!(parse_arguments(raw).is_err(), "{raw}");
        }
    }

    #[test]
    fn a_salvage_that_does_not_help_reports_the_original_position() {
        let err = parse_arguments(r#"{"end": None, "view": day}"#).unwrap_err();
        assert_eq!(
            (err.category, err.line, err.column),
            (JsonErrorCategory::Syntax, 1, 9)
        );
        let eof = parse_arguments("{\"view\":\n").unwrap_err();
        assert_eq!((eof.category, eof.line), (JsonErrorCategory::Eof, 2));
    }

    #[test]
    fn never_panics_on_any_text() {
        for raw in [
            "",
            "\u{e9}\"",
            "[2026-03-0",
            "\"\\",
            "none",
            "{\"a\":2026-03-01",
            "[1,2026-03-01]",
        ] {
            let _ = parse_arguments(raw);
        }
        assert_eq!(parse_arguments("none").unwrap().value, Value::Null);
    }
}
