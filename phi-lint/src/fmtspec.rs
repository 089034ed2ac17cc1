//! A parser for `format_args!` format strings, because syn does not parse them.
//!
//! `format_args!` reads the literal's *value*, after its escapes: `"\x7b{e}\x7d"` is `{{e}}`,
//! which prints the text `{e}` and captures nothing, and `"{\x65}"` captures `e`. The parser walks
//! the literal's *source text* (the characters between the quotes), decoding each escape as it
//! comes, so that it reads what the macro reads while every placeholder it returns carries byte
//! offsets into the source, which map straight back to a line and column in the file.

use std::ops::Range;

/// Which argument a placeholder (or its width or precision) refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgRef {
    /// `{}`: the next positional argument.
    Next,
    /// `{0}`: an explicit positional argument.
    Index(usize),
    /// `{name}`: a named argument, or an inline capture of the variable `name`.
    Name(String),
}

/// One `{...}` in a format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placeholder {
    /// The argument that is printed.
    pub(crate) arg: ArgRef,
    /// Byte range of the argument's name or index in the source text, or of the whole
    /// placeholder when the argument is implicit.
    pub(crate) range: Range<usize>,
    /// Arguments consumed as width or precision: they shape the output but are not printed.
    pub(crate) counts: Vec<ArgRef>,
}

/// A malformed format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FmtError {
    /// Byte offset in the source text.
    pub(crate) at: usize,
    /// What is wrong, lower-case.
    pub(crate) message: &'static str,
}

/// Parses the source text of a string literal's contents. `raw` says whether it was a raw string
/// (`r"..."`), in which backslashes are not escapes.
pub(crate) fn parse(src: &str, raw: bool) -> Result<Vec<Placeholder>, FmtError> {
    placeholders(src, raw).collect()
}

/// The placeholders of a literal's contents one at a time, as [`parse`] finds them, ending
/// after the first error: a format string of thousands of placeholders is never held whole.
pub(crate) fn placeholders(src: &str, raw: bool) -> Placeholders<'_> {
    Placeholders {
        cur: Cursor { src, raw, at: 0 },
        failed: false,
    }
}

/// The value of a (not raw) string literal's contents, its escapes decoded; `None` if one is
/// malformed.
pub(crate) fn unescape(src: &str) -> Option<String> {
    let mut cur = Cursor {
        src,
        raw: false,
        at: 0,
    };
    let mut out = String::with_capacity(src.len());
    while let Some(c) = cur.bump() {
        out.push(c.ok()?);
    }
    Some(out)
}

/// See [`placeholders`].
pub(crate) struct Placeholders<'a> {
    cur: Cursor<'a>,
    failed: bool,
}

impl Iterator for Placeholders<'_> {
    type Item = Result<Placeholder, FmtError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.step();
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}

impl Placeholders<'_> {
    fn step(&mut self) -> Option<Result<Placeholder, FmtError>> {
        let cur = &mut self.cur;
        loop {
            let open = cur.at;
            let c = match cur.bump()? {
                Ok(c) => c,
                Err(e) => return Some(Err(e)),
            };
            match c {
                '{' if cur.eat('{') => {}
                '}' if cur.eat('}') => {}
                '}' => {
                    return Some(Err(FmtError {
                        at: open,
                        message: "unmatched `}` in format string",
                    }));
                }
                '{' => return Some(placeholder(cur, open)),
                _ => {}
            }
        }
    }
}

/// The source text of a literal's contents, read one character of its value at a time.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    src: &'a str,
    raw: bool,
    /// Byte offset in `src` of the next character.
    at: usize,
}

impl Cursor<'_> {
    /// The offset of the next character's source text: past any line continuation (a `\` at the
    /// end of a line drops the newline and the whitespace after it from the value).
    fn here(&self) -> usize {
        let mut at = self.at;
        if self.raw {
            return at;
        }
        loop {
            let rest = self.src.get(at..).unwrap_or_default();
            if !(rest.starts_with("\\\n") || rest.starts_with("\\\r\n")) {
                return at;
            }
            let after = &rest[1..];
            at += 1 + after.len() - after.trim_start_matches([' ', '\t', '\n', '\r']).len();
        }
    }

    /// The next character of the value, and the offset after its source text; `None` at the end.
    fn peek(&self) -> Option<Result<(char, usize), FmtError>> {
        let at = self.here();
        let rest = self.src.get(at..)?;
        let c = rest.chars().next()?;
        if c != '\\' || self.raw {
            return Some(Ok((c, at + c.len_utf8())));
        }
        let bad = FmtError {
            at,
            message: "invalid escape in string literal",
        };
        let simple = |c| Some(Ok((c, at + 2)));
        match rest.as_bytes().get(1) {
            Some(b'n') => simple('\n'),
            Some(b'r') => simple('\r'),
            Some(b't') => simple('\t'),
            Some(b'\\') => simple('\\'),
            Some(b'0') => simple('\0'),
            Some(b'\'') => simple('\''),
            Some(b'"') => simple('"'),
            Some(b'x') => {
                let value = rest
                    .get(2..4)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .filter(u8::is_ascii);
                Some(value.map(|v| (char::from(v), at + 4)).ok_or(bad))
            }
            Some(b'u') if rest.as_bytes().get(2) == Some(&b'{') => {
                // At most six digits and their underscores: a bounded look.
                let head = rest.get(..rest.len().min(32)).unwrap_or(rest);
                let value = head.find('}').and_then(|close| {
                    let hex = rest[3..close].replace('_', "");
                    let n = u32::from_str_radix(&hex, 16).ok()?;
                    Some((char::from_u32(n)?, at + close + 1))
                });
                Some(value.ok_or(bad))
            }
            _ => Some(Err(bad)),
        }
    }

    /// Takes the next character; `None` at the end.
    fn bump(&mut self) -> Option<Result<char, FmtError>> {
        Some(self.peek()?.map(|(c, next)| {
            self.at = next;
            c
        }))
    }

    /// The next character, if there is one and it is not a malformed escape.
    fn peek_char(&self) -> Option<char> {
        self.peek()?.ok().map(|(c, _)| c)
    }

    /// Takes the next character if it is `want`.
    fn eat(&mut self, want: char) -> bool {
        match self.peek() {
            Some(Ok((c, next))) if c == want => {
                self.at = next;
                true
            }
            _ => false,
        }
    }

    /// An identifier at the cursor (`r#` raw prefix allowed): its name without the prefix, and
    /// the source range it spans. The cursor is left after it.
    fn ident(&mut self) -> Option<(String, Range<usize>)> {
        let start = self.here();
        let mut probe = *self;
        let mut name = String::new();
        if probe.eat('r') {
            if probe.eat('#') {
                // `r#name`
            } else {
                name.push('r');
            }
        }
        let first = probe.peek_char()?;
        if name.is_empty() && !(first == '_' || first.is_alphabetic()) {
            return None;
        }
        while let Some(c) = probe.peek_char() {
            if !(c == '_' || c.is_alphanumeric()) {
                break;
            }
            name.push(c);
            let _ = probe.bump();
        }
        if name.is_empty() {
            return None;
        }
        let end = probe.at;
        *self = probe;
        Some((name, start..end))
    }

    /// A run of ASCII digits at the cursor: their text and source range.
    fn digits(&mut self) -> Option<(String, Range<usize>)> {
        let start = self.here();
        let mut text = String::new();
        while let Some(c) = self.peek_char().filter(char::is_ascii_digit) {
            text.push(c);
            let _ = self.bump();
        }
        (!text.is_empty()).then_some((text, start..self.at))
    }
}

/// Parses one placeholder whose `{` started at `open` (the cursor is after it).
fn placeholder(cur: &mut Cursor<'_>, open: usize) -> Result<Placeholder, FmtError> {
    let unterminated = FmtError {
        at: open,
        message: "unterminated `{` in format string",
    };
    // The argument: an index, an identifier, or nothing.
    let (arg, range) = if let Some((text, range)) = cur.digits() {
        let n = text.parse().map_err(|_| FmtError {
            at: range.start,
            message: "argument index out of range",
        })?;
        (ArgRef::Index(n), range)
    } else if let Some((name, range)) = cur.ident() {
        (ArgRef::Name(name), range)
    } else {
        (ArgRef::Next, open..open)
    };
    let mut counts = Vec::new();
    let in_spec = cur.eat(':');
    if in_spec {
        spec(cur, &mut counts)?;
    }
    // Whitespace may come before the `}`.
    while cur.peek_char().is_some_and(char::is_whitespace) {
        let _ = cur.bump();
    }
    match cur.peek() {
        Some(Ok(('}', next))) => cur.at = next,
        None => return Err(unterminated),
        Some(Err(e)) => return Err(e),
        Some(Ok(_)) => {
            return Err(FmtError {
                at: cur.here(),
                message: if in_spec {
                    "invalid format spec"
                } else {
                    "invalid format string argument"
                },
            });
        }
    }
    let range = if range.is_empty() {
        open..cur.at
    } else {
        range
    };
    Ok(Placeholder { arg, range, counts })
}

/// Parses a format spec after `:`; leaves the cursor at what follows it.
fn spec(cur: &mut Cursor<'_>, counts: &mut Vec<ArgRef>) -> Result<(), FmtError> {
    let is_align = |c: Option<char>| matches!(c, Some('<' | '^' | '>'));
    // [[fill]align]: the fill may be any character, an escaped one included.
    let mut after_fill = *cur;
    if let Some(Ok(fill)) = after_fill.bump()
        && fill != '}'
        && is_align(after_fill.peek_char())
    {
        let _ = after_fill.bump();
        *cur = after_fill;
    } else if is_align(cur.peek_char()) {
        let _ = cur.bump();
    }
    if matches!(cur.peek_char(), Some('+' | '-')) {
        let _ = cur.bump();
    }
    cur.eat('#');
    if cur.peek_char() == Some('0') {
        let mut probe = *cur;
        let _ = probe.bump();
        if probe.peek_char() != Some('$') {
            *cur = probe;
        }
    }
    // [width]
    count(cur, counts)?;
    // ['.' precision]
    if cur.eat('.') {
        if cur.eat('*') {
            counts.push(ArgRef::Next);
        } else {
            let before = cur.at;
            count(cur, counts)?;
            if cur.at == before {
                return Err(FmtError {
                    at: cur.here(),
                    message: "missing precision after `.`",
                });
            }
        }
    }
    // type: `?`, `x?`, `X?`, or an identifier (`x`, `e`, `b`, `o`, `p`).
    let _ = cur.ident();
    cur.eat('?');
    Ok(())
}

/// Parses an optional count (`5`, `5$`, `name$`) at the cursor. An identifier not followed by
/// `$` is the type, not a count, and is left alone.
fn count(cur: &mut Cursor<'_>, counts: &mut Vec<ArgRef>) -> Result<(), FmtError> {
    if let Some((text, range)) = cur.digits() {
        if cur.eat('$') {
            let n = text.parse().map_err(|_| FmtError {
                at: range.start,
                message: "argument index out of range",
            })?;
            counts.push(ArgRef::Index(n));
        }
        return Ok(());
    }
    let mut probe = *cur;
    if let Some((name, _)) = probe.ident()
        && probe.eat('$')
    {
        counts.push(ArgRef::Name(name));
        *cur = probe;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{ArgRef, parse, placeholders};

    fn args(src: &str) -> Vec<(ArgRef, String, Vec<ArgRef>)> {
        parse(src, false)
            .expect("parses")
            .into_iter()
            .map(|p| (p.arg, src[p.range].to_owned(), p.counts))
            .collect()
    }

    #[test]
    fn plain_and_escapes() {
        assert!(args("no placeholders").is_empty());
        assert!(args("{{literal}} braces").is_empty());
        assert!(args(r"unicode \u{1F600} escape").is_empty());
        assert_eq!(args("a {} b").len(), 1);
        assert_eq!(args("{{{}}}")[0].0, ArgRef::Next);
    }

    #[test]
    fn implicit_index_and_named() {
        let a = args("{} {0} {name} {x:?} {y:#?} {z:>8}");
        let refs: Vec<_> = a.iter().map(|x| x.0.clone()).collect();
        assert_eq!(
            refs,
            vec![
                ArgRef::Next,
                ArgRef::Index(0),
                ArgRef::Name("name".into()),
                ArgRef::Name("x".into()),
                ArgRef::Name("y".into()),
                ArgRef::Name("z".into()),
            ]
        );
        assert_eq!(a[2].1, "name");
        assert_eq!(a[0].1, "{}");
    }

    #[test]
    fn width_and_precision_captures() {
        let a = args("{:w$} {:.p$} {:.*} {v:>1$.2$} {:08.3} {:0$} {:x} {:X?} {:e}");
        assert_eq!(a[0].2, vec![ArgRef::Name("w".into())]);
        assert_eq!(a[1].2, vec![ArgRef::Name("p".into())]);
        assert_eq!(a[2].2, vec![ArgRef::Next]);
        assert_eq!(a[3].0, ArgRef::Name("v".into()));
        assert_eq!(a[3].2, vec![ArgRef::Index(1), ArgRef::Index(2)]);
        assert!(a[4].2.is_empty());
        assert_eq!(a[5].2, vec![ArgRef::Index(0)]);
        assert!(a[6].2.is_empty() && a[7].2.is_empty() && a[8].2.is_empty());
    }

    #[test]
    fn fill_characters() {
        let a = args("{:*^9} {:é<4} {:->3}");
        assert_eq!(a.len(), 3);
    }

    #[test]
    fn raw_strings_do_not_escape() {
        let p = parse(r"\{}", true).unwrap();
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn placeholders_come_one_at_a_time_and_end_at_the_first_error() {
        let got: Vec<Result<ArgRef, &str>> = placeholders("{a} }{b}", false)
            .map(|p| p.map(|p| p.arg).map_err(|e| e.message))
            .collect();
        assert_eq!(
            got,
            [
                Ok(ArgRef::Name("a".into())),
                Err("unmatched `}` in format string")
            ]
        );
        assert_eq!(placeholders("{{}}", false).count(), 0);
    }

    #[test]
    fn escapes_are_read_as_the_macro_reads_them() {
        // `\x7b{e}\x7d` is `{{e}}`: text, no placeholder.
        assert!(args(r"\x7b{e}\x7d").is_empty());
        assert!(args(r"\u{7B}{e}\u{007d}").is_empty());
        // `\u{7b}x}` is `{x}`; `{\x65}` captures `e`, and its range is its source text.
        let a = args(r"\u{7b}x}");
        assert_eq!(
            (a[0].0.clone(), a[0].1.as_str()),
            (ArgRef::Name("x".into()), "x")
        );
        let a = args(r"{\x65}");
        assert_eq!(
            (a[0].0.clone(), a[0].1.as_str()),
            (ArgRef::Name("e".into()), r"\x65")
        );
        // A line continuation drops the newline and the indentation.
        let a = args("{\\\n        name}");
        assert_eq!(
            (a[0].0.clone(), a[0].1.as_str()),
            (ArgRef::Name("name".into()), "name")
        );
        // An escaped fill, an escaped `?`, whitespace before `}`.
        assert_eq!(args(r"{:\n>5}").len(), 1);
        assert_eq!(args(r"{x:\x3f}")[0].0, ArgRef::Name("x".into()));
        assert_eq!(args("{x }")[0].0, ArgRef::Name("x".into()));
        // `{\x7bx}` is `{{x}`: an unmatched `}`.
        assert!(parse(r"{\x7bx}", false).is_err());
        // A malformed escape is an error, never a panic.
        for bad in [r"\x", r"\xZZ", r"\xff", r"\u{", r"\u{110000}", r"\q", "\\"] {
            assert!(parse(bad, false).is_err(), "{bad}");
        }
        // In a raw string a backslash is a backslash.
        assert_eq!(parse(r"\x7b{e}", true).unwrap().len(), 1);
    }

    #[test]
    fn errors() {
        assert!(parse("{", false).is_err());
        assert!(parse("}", false).is_err());
        assert!(parse("{x", false).is_err());
        assert!(parse("{:.}", false).is_err());
        assert!(parse("{ x}", false).is_err());
    }
}
