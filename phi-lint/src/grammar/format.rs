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

/// The most placeholders one format string may hold: a format string is one token, so the
/// token bound of a statement does not see inside it, and each placeholder is a value to check
/// (and, when it leaks, a finding of a few hundred bytes). Real ones hold a few dozen.
pub(crate) const FORMAT_PLACEHOLDERS: usize = 65_536;

/// How the error of a format string over [`FORMAT_PLACEHOLDERS`] starts.
const TOO_MANY: &str = "a format string of more than";

/// Whether a parse error is that of a format string over [`FORMAT_PLACEHOLDERS`]: of a call
/// that is a format call, whose grammar was right, and whose values were not checked.
pub(crate) fn too_many_placeholders(e: &syn::Error) -> bool {
    e.to_string().starts_with(TOO_MANY)
}

impl FormatArgs {
    /// Emits the values the format string prints, each once: explicit arguments (positional,
    /// then named), then inline captures. Returns the expressions it does not print (width and
    /// precision arguments). A malformed format string, or one of more than
    /// [`FORMAT_PLACEHOLDERS`] placeholders, is an error at the literal, before any value is
    /// emitted.
    ///
    /// The string is read twice, once for which arguments it prints and once for its captures,
    /// so that its placeholders are never held as a list.
    pub(crate) fn into_values(self, emit: &mut dyn FnMut(Value)) -> syn::Result<Vec<Expr>> {
        let lit = match self.fmt {
            Fmt::Other(e) => {
                emit(Value::Expr(e));
                for e in self.positional {
                    emit(Value::Expr(Box::new(e)));
                }
                for (_, e) in self.named {
                    emit(Value::Expr(Box::new(e)));
                }
                return Ok(Vec::new());
            }
            Fmt::Lit(lit) => lit,
        };
        let src = lit.token().to_string();
        let (prefix, content, raw) = literal_content(&src);
        let (keys, named_exprs): (Vec<String>, Vec<Expr>) = self.named.into_iter().unzip();
        let mut printed_pos = vec![false; self.positional.len()];
        let mut printed_named = vec![false; keys.len()];
        // Each looked up by name once per placeholder: a format string of thousands of
        // placeholders must not scan every argument or capture for each.
        let named: std::collections::HashMap<&str, usize> = keys
            .iter()
            .enumerate()
            .rev()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut next = 0usize;
        for (n, ph) in fmtspec::placeholders(content, raw).enumerate() {
            let ph = ph.map_err(|e| syn::Error::new(lit.span(), e.message))?;
            if n == FORMAT_PLACEHOLDERS {
                return Err(syn::Error::new(
                    lit.span(),
                    format!(
                        "{TOO_MANY} {FORMAT_PLACEHOLDERS} placeholders is too large to check: split it"
                    ),
                ));
            }
            for count in &ph.counts {
                if let ArgRef::Next = count {
                    next += 1;
                }
            }
            match ph.arg {
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
                    }
                }
            }
        }

        let mut unprinted = Vec::new();
        for (e, p) in self.positional.into_iter().zip(printed_pos) {
            if p {
                emit(Value::Expr(Box::new(e)));
            } else {
                unprinted.push(e);
            }
        }
        for (e, p) in named_exprs.into_iter().zip(printed_named) {
            if p {
                emit(Value::Expr(Box::new(e)));
            } else {
                unprinted.push(e);
            }
        }

        // The captures: names no named argument takes, each once, in source order.
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
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
        for ph in fmtspec::placeholders(content, raw).flatten() {
            // The name as the macro reads it, after escapes (`{\x65}` captures `e`).
            let ArgRef::Name(name) = ph.arg else {
                continue;
            };
            if named.contains_key(name.as_str()) || seen.contains(&name) {
                continue;
            }
            let start = at(prefix + ph.range.start);
            let end = at(prefix + ph.range.end);
            seen.insert(name.clone());
            emit(Value::Capture {
                name: name.into(),
                start,
                end,
            });
        }
        Ok(unprinted)
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
