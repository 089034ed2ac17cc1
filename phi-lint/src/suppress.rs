//! Inline suppressions: `// phi-lint: allow(reason = "…")` or
//! `// phi-lint: allow(RULE, reason = "…")`, on the line above a statement or at the end of its
//! first or last line. Text after the closing `)` is ignored. A suppression without a reason
//! suppresses nothing and is itself reported.
//!
//! A suppression is about one statement: on a line of its own, the first that starts on the
//! next line; at the end of a line, the one it sits inside or else the last that ends on its
//! line before it. `a!(..); b!(..); // phi-lint: allow(..)` covers `b!` only, and a logging
//! call nested inside the covered one (in a closure it passes) is a statement of its own.
//!
//! Comments are not in syn's token stream, so a small lexer finds them, skipping string, raw
//! string, byte string and character literals so that a `"// phi-lint: …"` inside a string is not
//! taken for a comment.

use crate::rules::Rule;

/// One `// phi-lint:` comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Suppression {
    /// 1-based line of the comment.
    pub(crate) line: u32,
    /// 1-based column of `//`, and the column after the comment's last character.
    pub(crate) columns: (u32, u32),
    /// The comment's bytes in the text, from `//` to the end of its line.
    pub(crate) bytes: std::ops::Range<usize>,
    /// Whether the comment is alone on its line (then it applies to the next line).
    pub(crate) own_line: bool,
    /// The rule it is limited to, if any.
    pub(crate) rule: Option<Rule>,
    /// Why it is malformed (no reason, unknown rule, bad syntax); it then suppresses nothing.
    pub(crate) problem: Option<String>,
}

impl Suppression {
    /// Whether this suppression covers a finding of `rule` in the statement it is about.
    pub(crate) fn covers(&self, rule: Rule) -> bool {
        self.problem.is_none() && self.rule.is_none_or(|r| r == rule)
    }
}

/// Finds every `// phi-lint:` line comment in `text`.
pub(crate) fn scan(text: &str) -> Vec<Suppression> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1u32;
    let mut line_start = 0usize;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = memchr_nl(b, i);
                let body = &text[i + 2..end];
                if let Some(rest) = body.trim_start().strip_prefix("phi-lint:") {
                    let own_line = text[line_start..i].trim().is_empty();
                    let (rule, problem) = parse_allow(rest);
                    out.push(Suppression {
                        line,
                        columns: (col(text, line_start, i), col(text, line_start, end)),
                        bytes: i..end,
                        own_line,
                        rule,
                        problem,
                    });
                }
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0usize;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if b[i] == b'\n' {
                            line += 1;
                            line_start = i + 1;
                        }
                        i += 1;
                    }
                }
            }
            b'"' => i = skip_string(b, i + 1, 0, &mut line, &mut line_start),
            b'r' | b'b' | b'c' if i == 0 || !is_ident_byte(b[i - 1]) => {
                // r"..", r#".."#, b"..", br"..", c"..", cr#".."#
                let mut j = i;
                while j < b.len() && matches!(b[j], b'r' | b'b' | b'c') && j - i < 2 {
                    j += 1;
                }
                let raw = text[i..j].contains('r');
                let mut hashes = 0;
                while raw && b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) == Some(&b'"') {
                    i = if raw {
                        skip_raw(b, j + 1, hashes, &mut line, &mut line_start)
                    } else {
                        skip_string(b, j + 1, 0, &mut line, &mut line_start)
                    };
                } else {
                    i += 1;
                }
            }
            b'\'' => i = skip_char_or_lifetime(text, i),
            _ => i += 1,
        }
    }
    out
}

/// Parses what follows `phi-lint:`: the rule it is limited to, or what is wrong with it.
fn parse_allow(rest: &str) -> (Option<Rule>, Option<String>) {
    let rest = rest.trim_start();
    let Some(inner) = rest.strip_prefix("allow(") else {
        return (None, Some("expected `allow(...)` after `phi-lint:`".into()));
    };
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut in_str = false;
    let mut escaped = false;
    let mut closed = false;
    for c in inner.chars() {
        if in_str {
            cur.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.push(c);
            }
            ',' => items.push(std::mem::take(&mut cur)),
            ')' => {
                closed = true;
                break;
            }
            _ => cur.push(c),
        }
    }
    if !closed {
        return (None, Some("unclosed `allow(`".into()));
    }
    items.push(cur);
    let mut rule = None;
    let mut reason = None;
    for item in items.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if let Some(value) = item.strip_prefix("reason") {
            let value = value.trim_start().strip_prefix('=').map(str::trim);
            match value
                .and_then(|v| v.strip_prefix('"'))
                .and_then(|v| v.strip_suffix('"'))
            {
                Some(text) => reason = Some(text.trim().to_owned()),
                None => return (None, Some("expected `reason = \"...\"`".into())),
            }
        } else {
            match Rule::from_code(item) {
                Some(r) => rule = Some(r),
                None => return (None, Some(format!("unknown rule `{item}`"))),
            }
        }
    }
    match reason {
        Some(r) if !r.is_empty() => (rule, None),
        _ => (
            rule,
            Some("a suppression needs `reason = \"...\"` saying why the value is safe".into()),
        ),
    }
}

fn memchr_nl(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| from + p)
}

fn col(text: &str, line_start: usize, at: usize) -> u32 {
    text[line_start..at].chars().count() as u32 + 1
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

fn skip_string(b: &[u8], mut i: usize, _: usize, line: &mut u32, line_start: &mut usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => {
                if b.get(i + 1) == Some(&b'\n') {
                    *line += 1;
                    *line_start = i + 2;
                }
                i += 2;
            }
            b'"' => return i + 1,
            b'\n' => {
                *line += 1;
                *line_start = i + 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    b.len()
}

fn skip_raw(
    b: &[u8],
    mut i: usize,
    hashes: usize,
    line: &mut u32,
    line_start: &mut usize,
) -> usize {
    while i < b.len() {
        if b[i] == b'"'
            && b.get(i + 1..i + 1 + hashes)
                .is_some_and(|h| h.iter().all(|&c| c == b'#'))
        {
            return i + 1 + hashes;
        }
        if b[i] == b'\n' {
            *line += 1;
            *line_start = i + 1;
        }
        i += 1;
    }
    b.len()
}

/// Skips `'x'`, `'\n'`, `'\u{..}'` or a lifetime `'a` starting at the quote.
fn skip_char_or_lifetime(text: &str, i: usize) -> usize {
    let rest = &text[i + 1..];
    if rest.starts_with('\\') {
        return rest.find('\'').map_or(text.len(), |p| {
            // `'\''`: the escaped quote is not the end.
            if rest.starts_with("\\'") {
                i + 1 + 3
            } else {
                i + 1 + p + 1
            }
        });
    }
    let mut chars = rest.chars();
    match (chars.next(), chars.next()) {
        (Some(c), Some('\'')) => i + 1 + c.len_utf8() + 1,
        _ => i + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_parses() {
        let src = r##"
let a = "// phi-lint: allow(reason = \"in a string\")";
// phi-lint: allow(reason = "ids only") trailing text
info!(x); // phi-lint: allow(phi::interpolation, reason = "x is a row number")
// phi-lint: allow(phi::interpolation)
/* // phi-lint: allow(reason = "in a block comment") */
let r = r#"// phi-lint: allow(reason = "raw")"#;
let c = '"'; // phi-lint: allow(nonsense, reason = "x")
/// phi-lint: allow(reason = "doc comments are docs")
"##;
        let s = scan(src);
        assert_eq!(s.len(), 4, "{s:#?}");
        assert_eq!(
            (s[0].line, s[0].own_line, s[0].rule, s[0].problem.clone()),
            (3, true, None, None)
        );
        assert_eq!(
            (s[1].line, s[1].own_line, s[1].rule),
            (4, false, Some(Rule::Interpolation))
        );
        assert!(s[1].problem.is_none());
        assert!(s[2].problem.as_deref().unwrap().contains("reason"));
        assert!(
            s[3].problem
                .as_deref()
                .unwrap()
                .contains("unknown rule `nonsense`")
        );
    }

    #[test]
    fn string_continuations_count_lines() {
        let s = scan("const A: &str = \"a\\\nb\";\n// phi-lint: allow(reason = \"r\")\n");
        assert_eq!(s[0].line, 3);
    }

    #[test]
    fn coverage() {
        let s = scan("// phi-lint: allow(reason = \"r\")\n");
        assert!(s[0].covers(Rule::Print) && s[0].covers(Rule::Interpolation));
        let t = scan("x // phi-lint: allow(phi::print, reason = \"r\")\n");
        assert!(t[0].covers(Rule::Print));
        assert!(!t[0].covers(Rule::Interpolation));
        let u = scan("x // phi-lint: allow(phi::print)\n");
        assert!(!u[0].covers(Rule::Print));
    }
}
