//! `format_args!`-style arguments: a format string, positional and named arguments, and the
//! inline captures the string names.

use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Expr, Ident, LitStr, Token};

use super::Value;
use crate::fmtspec::{self, ArgRef};
use crate::source::advance;

/// A format string and its arguments, before resolving which are printed.
pub(crate) struct FormatArgs {
    fmt: Fmt,
    positional: Vec<Expr>,
    named: Vec<(String, Expr)>,
}

enum Fmt {
    Lit(LitStr),
    /// A format string that is not a literal (`concat!(..)`, a const): every argument counts as
    /// printed, and so does the format expression itself.
    Other(Box<Expr>),
}

/// Parses `"fmt", a, b, name = c` (a trailing comma allowed).
pub(crate) fn parse_format_args(input: ParseStream) -> syn::Result<FormatArgs> {
    let fmt = if super::peek_lit_str(input) {
        Fmt::Lit(input.parse()?)
    } else {
        Fmt::Other(Box::new(input.parse()?))
    };
    let mut positional = Vec::new();
    let mut named = Vec::new();
    while !input.is_empty() {
        input.parse::<Token![,]>()?;
        if input.is_empty() {
            break;
        }
        if input.peek(Ident::peek_any) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
            let id = input.call(Ident::parse_any)?;
            input.parse::<Token![=]>()?;
            named.push((id.to_string(), input.parse()?));
        } else {
            positional.push(input.parse()?);
        }
    }
    Ok(FormatArgs {
        fmt,
        positional,
        named,
    })
}

impl FormatArgs {
    /// Splits the arguments into the values the format string prints (explicit arguments and
    /// inline captures, each once) and the expressions it does not print (width and precision
    /// arguments). A malformed format string is an error at the literal.
    pub(crate) fn into_values(self) -> syn::Result<(Vec<Value>, Vec<Expr>)> {
        let lit = match self.fmt {
            Fmt::Other(e) => {
                let mut printed = vec![Value::Expr(*e)];
                printed.extend(self.positional.into_iter().map(Value::Expr));
                printed.extend(self.named.into_iter().map(|(_, e)| Value::Expr(e)));
                return Ok((printed, Vec::new()));
            }
            Fmt::Lit(lit) => lit,
        };
        let src = lit.token().to_string();
        let (prefix, content, raw) = literal_content(&src);
        let placeholders =
            fmtspec::parse(content, raw).map_err(|e| syn::Error::new(lit.span(), e.message))?;

        let mut printed_pos = vec![false; self.positional.len()];
        let mut printed_named = vec![false; self.named.len()];
        let mut captures: Vec<Value> = Vec::new();
        // Each looked up by name once per placeholder: a format string of thousands of
        // placeholders must not scan every argument or capture for each.
        let named: std::collections::HashMap<&str, usize> = self
            .named
            .iter()
            .enumerate()
            .rev()
            .map(|(i, (n, _))| (n.as_str(), i))
            .collect();
        let mut seen_names: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let mut next = 0usize;
        // Placeholders come in source order: each position is counted on from the last one.
        let mut cursor = (0usize, lit.span().start());
        let mut at = |offset: usize| {
            let offset = offset.min(src.len());
            if offset < cursor.0 {
                cursor = (0, lit.span().start());
            }
            let pos = advance(cursor.1, &src[cursor.0..], offset - cursor.0);
            cursor = (offset, pos);
            pos
        };
        for ph in &placeholders {
            for count in &ph.counts {
                if let ArgRef::Next = count {
                    next += 1;
                }
            }
            match &ph.arg {
                ArgRef::Next | ArgRef::Index(_) => {
                    let i = if let ArgRef::Index(i) = ph.arg {
                        i
                    } else {
                        next += 1;
                        next - 1
                    };
                    let slot = printed_pos.get_mut(i).ok_or_else(|| {
                        syn::Error::new(lit.span(), "format string refers to a missing argument")
                    })?;
                    *slot = true;
                }
                ArgRef::Name(name) => {
                    if let Some(&i) = named.get(name.as_str()) {
                        printed_named[i] = true;
                    } else if seen_names.insert(name) {
                        let start = at(prefix + ph.range.start);
                        let end = at(prefix + ph.range.end);
                        captures.push(Value::Capture {
                            name: name.clone(),
                            start,
                            end,
                        });
                    }
                }
            }
        }

        let mut printed = Vec::new();
        let mut unprinted = Vec::new();
        for (e, p) in self.positional.into_iter().zip(printed_pos) {
            if p {
                printed.push(Value::Expr(e));
            } else {
                unprinted.push(e);
            }
        }
        for ((_, e), p) in self.named.into_iter().zip(printed_named) {
            if p {
                printed.push(Value::Expr(e));
            } else {
                unprinted.push(e);
            }
        }
        printed.extend(captures);
        Ok((printed, unprinted))
    }
}

/// Splits a string literal's source text into (offset of its contents, contents, is raw).
fn literal_content(src: &str) -> (usize, &str, bool) {
    let (raw, body) = match src.strip_prefix('r') {
        Some(rest) => (true, rest),
        None => (false, src),
    };
    let hashes = body.len() - body.trim_start_matches('#').len();
    let prefix = usize::from(raw) + hashes + 1;
    let end = src.len().saturating_sub(hashes + 1).max(prefix);
    (prefix, &src[prefix..end], raw)
}

#[cfg(test)]
mod tests {
    use super::literal_content;

    #[test]
    fn literal_contents() {
        assert_eq!(literal_content(r#""a{}""#), (1, "a{}", false));
        assert_eq!(literal_content(r##"r#"a"{}"#"##), (3, r#"a"{}"#, true));
        assert_eq!(literal_content(r#"r"x""#), (2, "x", true));
    }
}
