//! A parser for `format_args!` format strings, because syn does not parse them.
//!
//! It works on the literal's *source text* (the characters between the quotes, escapes
//! included), so every placeholder it returns carries byte offsets that map straight back to a
//! line and column in the file.

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
        src,
        raw,
        at: 0,
        failed: false,
    }
}

/// See [`placeholders`].
pub(crate) struct Placeholders<'a> {
    src: &'a str,
    raw: bool,
    at: usize,
    failed: bool,
}

impl Iterator for Placeholders<'_> {
    type Item = Result<Placeholder, FmtError>;

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.src.as_bytes();
        while !self.failed && self.at < b.len() {
            let i = self.at;
            match b[i] {
                b'\\' if !self.raw => self.at = skip_escape(b, i),
                b'{' if b.get(i + 1) == Some(&b'{') => self.at += 2,
                b'}' if b.get(i + 1) == Some(&b'}') => self.at += 2,
                b'}' => {
                    self.failed = true;
                    return Some(Err(FmtError {
                        at: i,
                        message: "unmatched `}` in format string",
                    }));
                }
                b'{' => {
                    return Some(match placeholder(self.src, i) {
                        Ok((ph, next)) => {
                            self.at = next;
                            Ok(ph)
                        }
                        Err(e) => {
                            self.failed = true;
                            Err(e)
                        }
                    });
                }
                _ => self.at += 1,
            }
        }
        None
    }
}

/// Skips a backslash escape starting at `i`; returns the index after it.
fn skip_escape(b: &[u8], i: usize) -> usize {
    if b.get(i + 1) == Some(&b'u') && b.get(i + 2) == Some(&b'{') {
        let mut j = i + 3;
        while j < b.len() && b[j] != b'}' {
            j += 1;
        }
        j + 1
    } else {
        // `\` plus one character; the character may be multi-byte, but the next loop iteration
        // only compares ASCII bytes, so stepping past the first byte is enough.
        i + 2
    }
}

/// Parses one placeholder whose `{` is at `open`; returns it and the index after its `}`.
fn placeholder(src: &str, open: usize) -> Result<(Placeholder, usize), FmtError> {
    let b = src.as_bytes();
    let unterminated = FmtError {
        at: open,
        message: "unterminated `{` in format string",
    };
    let mut i = open + 1;
    // The argument: an index, an identifier, or nothing.
    let arg_start = i;
    let arg = if b.get(i).is_some_and(u8::is_ascii_digit) {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        ArgRef::Index(src[arg_start..i].parse().map_err(|_| FmtError {
            at: arg_start,
            message: "argument index out of range",
        })?)
    } else if let Some(len) = ident_len(&src[i..]) {
        i += len;
        ArgRef::Name(src[arg_start..i].trim_start_matches("r#").to_owned())
    } else {
        ArgRef::Next
    };
    let range = if arg == ArgRef::Next {
        open..open
    } else {
        arg_start..i
    };
    let mut counts = Vec::new();
    match b.get(i) {
        Some(b'}') => i += 1,
        Some(b':') => {
            i = spec(src, i + 1, &mut counts)?;
            if b.get(i) != Some(&b'}') {
                return Err(FmtError {
                    at: i.min(b.len().saturating_sub(1)),
                    message: "invalid format spec",
                });
            }
            i += 1;
        }
        None => return Err(unterminated),
        Some(_) => {
            return Err(FmtError {
                at: i,
                message: "invalid format string argument",
            });
        }
    }
    let range = if range.is_empty() { open..i } else { range };
    Ok((Placeholder { arg, range, counts }, i))
}

/// Parses a format spec after `:` starting at `i`; returns the index of the closing `}`.
fn spec(src: &str, mut i: usize, counts: &mut Vec<ArgRef>) -> Result<usize, FmtError> {
    let b = src.as_bytes();
    let is_align = |c: Option<&u8>| matches!(c, Some(b'<' | b'^' | b'>'));
    // [[fill]align]: the fill may be any character, including a multi-byte one.
    if let Some(fill) = src[i..].chars().next() {
        let after = i + fill.len_utf8();
        if fill != '}' && is_align(b.get(after)) {
            i = after + 1;
        } else if is_align(b.get(i)) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    if b.get(i) == Some(&b'#') {
        i += 1;
    }
    if b.get(i) == Some(&b'0') && b.get(i + 1) != Some(&b'$') {
        i += 1;
    }
    // [width]
    i = count(src, i, counts, false)?;
    // ['.' precision]
    if b.get(i) == Some(&b'.') {
        i += 1;
        if b.get(i) == Some(&b'*') {
            counts.push(ArgRef::Next);
            i += 1;
        } else {
            let before = i;
            i = count(src, i, counts, true)?;
            if i == before {
                return Err(FmtError {
                    at: i,
                    message: "missing precision after `.`",
                });
            }
        }
    }
    // type: `?`, `x?`, `X?`, or an identifier (`x`, `e`, `b`, `o`, `p`).
    if let Some(len) = ident_len(&src[i..]) {
        i += len;
    }
    if b.get(i) == Some(&b'?') {
        i += 1;
    }
    Ok(i)
}

/// Parses an optional count (`5`, `5$`, `name$`) at `i`. An identifier not followed by `$` is
/// the type, not a count, and is left alone.
fn count(
    src: &str,
    i: usize,
    counts: &mut Vec<ArgRef>,
    precision: bool,
) -> Result<usize, FmtError> {
    let b = src.as_bytes();
    if b.get(i).is_some_and(u8::is_ascii_digit) {
        let mut j = i;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if b.get(j) == Some(&b'$') {
            let n = src[i..j].parse().map_err(|_| FmtError {
                at: i,
                message: "argument index out of range",
            })?;
            counts.push(ArgRef::Index(n));
            return Ok(j + 1);
        }
        return Ok(j);
    }
    if let Some(len) = ident_len(&src[i..])
        && b.get(i + len) == Some(&b'$')
    {
        counts.push(ArgRef::Name(src[i..i + len].to_owned()));
        return Ok(i + len + 1);
    }
    let _ = precision;
    Ok(i)
}

/// Length in bytes of a Rust identifier at the start of `s` (`r#` raw prefix allowed).
fn ident_len(s: &str) -> Option<usize> {
    let (prefix, rest) = match s.strip_prefix("r#") {
        Some(rest) => (2, rest),
        None => (0, s),
    };
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    if !(first == '_' || first.is_alphabetic()) {
        return None;
    }
    let end = chars
        .find(|&(_, c)| !(c == '_' || c.is_alphanumeric()))
        .map_or(rest.len(), |(at, _)| at);
    Some(prefix + end)
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
    fn errors() {
        assert!(parse("{", false).is_err());
        assert!(parse("}", false).is_err());
        assert!(parse("{x", false).is_err());
        assert!(parse("{:.}", false).is_err());
        assert!(parse("{ x}", false).is_err());
    }
}
