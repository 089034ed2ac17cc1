//! The grammars of the macros that reach a log, parsed from their token streams.
//!
//! One parser covers `tracing` and `log` events, because a bare `info!` may be either: a
//! top-level `;` means `log` key-values, otherwise the tracing field grammar applies (whose
//! message form is also `log`'s). Fields must precede the message; after the format string,
//! `x = y` is a named format argument, not a field.

use std::fmt::Write as _;

use compact_str::CompactString;
use proc_macro2::{LineColumn, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::{Expr, Ident, LitStr, Token, token};

mod format;
mod instrument;
mod macro_rules;

pub(crate) use format::{parse_format_args, too_many_placeholders};
pub(crate) use instrument::parse_instrument;
pub(crate) use macro_rules::{ExpandError, MAX_EXPANSION, MacroDef};

/// `input.peek(LitStr)`, with the same answer, without its cost on every other token: syn's
/// peek parses a whole literal on a fresh buffer and, for an identifier or a punctuation, builds
/// and drops a parse error. A string literal is only ever a literal token, so a cursor that is not
/// at one answers `false` at once.
pub(crate) fn peek_lit_str(input: ParseStream) -> bool {
    input
        .cursor()
        .literal()
        .is_some_and(|(lit, _)| matches!(syn::Lit::new(lit), syn::Lit::Str(_)))
}

/// The grammar a sink macro's arguments follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sink {
    /// `info!`, `event!` (with a level first), `log!`: prefixes, fields or key-values, message.
    Event { level_arg: bool },
    /// `span!` (with a level first), `info_span!`: prefixes, name, fields.
    Span { level_arg: bool },
    /// `record_all!(span, fields...)`.
    RecordAll,
    /// `println!` and friends: `skip` unprinted expressions (`assert!`'s condition), then
    /// `printed` expressions printed with `Debug` (`assert_eq!`'s operands), then format args.
    Format { skip: usize, printed: usize },
    /// `dbg!(a, b)`: every argument is printed with `Debug`.
    Dbg,
}

impl Sink {
    /// Whether the sink is stdout/stderr or a panic message rather than a logger.
    pub(crate) fn is_print(self) -> bool {
        matches!(self, Sink::Format { .. } | Sink::Dbg)
    }
}

/// Resolves a wrapper macro's name to the grammar it forwards to.
pub(crate) type WrapperLookup<'a> = dyn Fn(&str) -> Option<Sink> + 'a;

/// The sink grammar of a macro path (`info`, `tracing::info`, `::log::warn`), or of a
/// configured wrapper when `wrapper` resolves it.
pub(crate) fn sink_for(path: &str, wrapper: Option<&WrapperLookup<'_>>) -> Option<Sink> {
    let last = path.rsplit("::").next().unwrap_or(path).trim();
    let sink = match last {
        "trace" | "debug" | "info" | "warn" | "error" => Sink::Event { level_arg: false },
        "event" | "log" => Sink::Event { level_arg: true },
        "span" => Sink::Span { level_arg: true },
        "trace_span" | "debug_span" | "info_span" | "warn_span" | "error_span" => {
            Sink::Span { level_arg: false }
        }
        "record_all" => Sink::RecordAll,
        "print" | "println" | "eprint" | "eprintln" | "panic" | "unreachable" | "todo"
        | "unimplemented" => Sink::Format {
            skip: 0,
            printed: 0,
        },
        "assert" | "debug_assert" => Sink::Format {
            skip: 1,
            printed: 0,
        },
        "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne" => Sink::Format {
            skip: 0,
            printed: 2,
        },
        "dbg" => Sink::Dbg,
        other => return wrapper.and_then(|w| w(other)),
    };
    Some(sink)
}

/// A value that reaches the log.
///
/// Boxed, so that a value is 40 bytes, not syn's 200 and more: a format string of thousands of
/// inline captures holds a value for each, and a capture has no expression.
pub(crate) enum Value {
    /// An expression.
    Expr(Box<Expr>),
    /// An inline format capture `{name}`, at a position inside a string literal.
    Capture {
        name: CompactString,
        start: LineColumn,
        end: LineColumn,
    },
}

/// One value a sink records, under a field key or `{fmt}`.
pub(crate) struct Interp {
    /// Inline when short, as nearly every key is: no allocation per value.
    pub(crate) field: CompactString,
    pub(crate) value: Value,
    /// A `log` key-value with the `:err` capture: an error by declaration.
    pub(crate) err_capture: bool,
}

/// What a sink call's arguments parsed into.
#[derive(Default)]
pub(crate) struct Parsed {
    /// The values that reach the log.
    pub(crate) interps: Vec<Interp>,
    /// Expressions that do not reach the log (prefixes, levels, conditions) but may hold nested
    /// logging calls in closures.
    pub(crate) others: Vec<Expr>,
}

/// Parses a sink call's argument tokens.
pub(crate) fn parse_sink(sink: Sink, tokens: TokenStream) -> syn::Result<Parsed> {
    // Only an event's grammar depends on a top-level `;` (walking a stream the tree shares
    // copies it).
    let has_semi = matches!(sink, Sink::Event { .. })
        && tokens
            .clone()
            .into_iter()
            .any(|t| matches!(&t, TokenTree::Punct(p) if p.as_char() == ';'));
    let parser = |input: ParseStream| -> syn::Result<Parsed> {
        let mut out = Parsed::default();
        match sink {
            Sink::Event { level_arg } => {
                prefixes(input, &mut out)?;
                if level_arg {
                    leading_expr(input, &mut out)?;
                }
                if has_semi {
                    log_key_values(input, &mut out)?;
                    message(input, &mut out)?;
                } else {
                    fields(input, &mut out, FieldMode::Event)?;
                }
            }
            Sink::Span { level_arg } => {
                prefixes(input, &mut out)?;
                if level_arg {
                    leading_expr(input, &mut out)?;
                }
                let name: Expr = input.parse()?;
                out.others.push(name);
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                    fields(input, &mut out, FieldMode::Span)?;
                }
            }
            Sink::RecordAll => {
                leading_expr(input, &mut out)?;
                fields(input, &mut out, FieldMode::Span)?;
            }
            Sink::Format { skip, printed } => {
                for _ in 0..skip {
                    leading_expr(input, &mut out)?;
                }
                for side in ["left", "right"].into_iter().take(printed) {
                    let e: Expr = input.parse()?;
                    out.interps.push(Interp {
                        field: side.into(),
                        value: Value::Expr(Box::new(e)),
                        err_capture: false,
                    });
                    if input.is_empty() {
                        break;
                    }
                    input.parse::<Token![,]>()?;
                }
                if !input.is_empty() {
                    message(input, &mut out)?;
                }
            }
            Sink::Dbg => {
                let args = input.parse_terminated(Expr::parse, Token![,])?;
                for e in args {
                    out.interps.push(Interp {
                        field: "{fmt}".into(),
                        value: Value::Expr(Box::new(e)),
                        err_capture: false,
                    });
                }
            }
        }
        Ok(out)
    };
    parser.parse2(tokens)
}

/// `name:`, `target:`, `parent:` and `log`'s `logger:` prefixes, each `ident: expr,`.
fn prefixes(input: ParseStream, out: &mut Parsed) -> syn::Result<()> {
    loop {
        let fork = input.fork();
        let Ok(id) = fork.call(Ident::parse_any) else {
            return Ok(());
        };
        let is_prefix = ["name", "target", "parent", "logger"]
            .iter()
            .any(|p| id == p)
            && fork.peek(Token![:])
            && !fork.peek(Token![::]);
        if !is_prefix {
            return Ok(());
        }
        input.call(Ident::parse_any)?;
        input.parse::<Token![:]>()?;
        let e: Expr = input.parse()?;
        let mut core = &e;
        while let Expr::Reference(r) = core {
            core = &r.expr;
        }
        // `log` prints a target made at run time (`target: &p.name`) with every record;
        // tracing's is a constant, which passes. A macro's (`module_path!()`, `&format!(..)`)
        // is judged as the other prefixes are: by the format string it is.
        if id == "target" && !matches!(core, Expr::Macro(_)) {
            out.interps.push(Interp {
                field: "target".into(),
                value: Value::Expr(Box::new(e)),
                err_capture: false,
            });
        } else {
            out.others.push(e);
        }
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
}

/// An expression that is not recorded (a level, a prefix's value), followed by `,` or the end.
fn leading_expr(input: ParseStream, out: &mut Parsed) -> syn::Result<()> {
    let e: Expr = input.parse()?;
    out.others.push(e);
    if !input.is_empty() {
        input.parse::<Token![,]>()?;
    }
    Ok(())
}

/// Where a field list appears: events may end in a message; spans and `record_all!` may not;
/// in `#[instrument(fields(..))]` a bare name declares an empty field instead of capturing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldMode {
    Event,
    Span,
    Instrument,
}

/// The tracing field grammar: `k = v`, `k = %v`, `k = ?v`, bare `k`, `%k`, `?k`, dotted keys,
/// `"lit" = v`, `{CONST} = v`, block form `{ fields }`, then (for events) the message.
pub(crate) fn fields(input: ParseStream, out: &mut Parsed, mode: FieldMode) -> syn::Result<()> {
    while !input.is_empty() {
        let starts_message = (peek_lit_str(input) && !input.peek2(Token![=]))
            // `!` first: syn's `peek(Ident)` allocates the name to rule out keywords.
            || (input.peek2(Token![!]) && input.peek(Ident));
        if starts_message {
            if mode != FieldMode::Event {
                return Err(input.error("expected a field, found a message"));
            }
            return message(input, out);
        }
        if input.peek(token::Brace) && !input.peek2(Token![=]) {
            let content;
            syn::braced!(content in input);
            fields(&content, out, mode)?;
        } else {
            field(input, out, mode)?;
        }
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(())
}

fn field(input: ParseStream, out: &mut Parsed, mode: FieldMode) -> syn::Result<()> {
    if input.peek(Token![?]) || input.peek(Token![%]) {
        sigil(input)?;
        let (key, expr) = dotted(input)?;
        out.interps.push(Interp {
            field: key.into(),
            value: Value::Expr(Box::new(expr)),
            err_capture: false,
        });
        return Ok(());
    }
    let (key, bare) = if peek_lit_str(input) {
        (input.parse::<LitStr>()?.value(), None)
    } else if input.peek(token::Brace) {
        let content;
        syn::braced!(content in input);
        let e: Expr = content.parse()?;
        (format!("{{{}}}", tokens_text(&e)), None)
    } else {
        let (key, expr) = dotted(input)?;
        (key, Some(expr))
    };
    if input.peek(Token![=]) && !input.peek(Token![==]) {
        input.parse::<Token![=]>()?;
        sigil(input)?;
        let v: Expr = input.parse()?;
        out.interps.push(Interp {
            field: key.into(),
            value: Value::Expr(Box::new(v)),
            err_capture: false,
        });
    } else if let Some(expr) = bare {
        if mode != FieldMode::Instrument {
            out.interps.push(Interp {
                field: key.into(),
                value: Value::Expr(Box::new(expr)),
                err_capture: false,
            });
        }
    } else {
        return Err(input.error("expected `=` after a field name"));
    }
    Ok(())
}

fn sigil(input: ParseStream) -> syn::Result<()> {
    if input.peek(Token![?]) {
        input.parse::<Token![?]>()?;
    } else if input.peek(Token![%]) {
        input.parse::<Token![%]>()?;
    }
    Ok(())
}

/// A dotted key `a.b.c` (keywords allowed), as its text and as a field-access expression.
fn dotted(input: ParseStream) -> syn::Result<(String, Expr)> {
    let mut key = String::new();
    let mut segments: Vec<(Option<Token![.]>, Ident)> = Vec::new();
    loop {
        let dot = if segments.is_empty() {
            None
        } else {
            Some(input.parse::<Token![.]>()?)
        };
        let id = input.call(Ident::parse_any)?;
        write!(key, "{id}").expect("writing to a `String` cannot fail");
        segments.push((dot, id));
        if input.peek(Token![.]) && !input.peek(Token![..]) {
            key.push('.');
        } else {
            break;
        }
    }
    let expr = field_chain(segments)?;
    Ok((key.trim_start_matches("r#").to_owned(), expr))
}

/// The expression `a.b.c` of a dotted key's segments, built as syn would parse it. A segment
/// that is a keyword or a contextual one goes through syn's parser, as before.
fn field_chain(segments: Vec<(Option<Token![.]>, Ident)>) -> syn::Result<Expr> {
    if segments.iter().any(|(_, id)| !plain_ident(id)) {
        let mut ts = TokenStream::new();
        for (dot, id) in segments {
            ts.extend(dot.map(|dot| quote::quote!(#dot)));
            ts.extend(std::iter::once(TokenTree::Ident(id)));
        }
        return syn::parse2::<Expr>(ts);
    }
    let mut segments = segments.into_iter();
    let Some((_, first)) = segments.next() else {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "expected ident",
        ));
    };
    let mut expr = Expr::Path(syn::ExprPath {
        attrs: Vec::new(),
        qself: None,
        path: syn::Path::from(first),
    });
    for (dot, id) in segments {
        let Some(dot_token) = dot else {
            return Err(syn::Error::new(id.span(), "expected `.`"));
        };
        expr = Expr::Field(syn::ExprField {
            attrs: Vec::new(),
            base: Box::new(expr),
            dot_token,
            member: syn::Member::Named(id),
        });
    }
    Ok(expr)
}

/// Whether syn's expression parser reads `id` as a plain path or field name: not a keyword
/// (syn's list) nor a word some expression form starts with.
fn plain_ident(id: &Ident) -> bool {
    crate::ident::with_str(id, |s| {
        !matches!(
            s,
            "_" | "abstract"
                | "as"
                | "async"
                | "await"
                | "become"
                | "box"
                | "break"
                | "const"
                | "continue"
                | "crate"
                | "do"
                | "dyn"
                | "else"
                | "enum"
                | "extern"
                | "false"
                | "final"
                | "fn"
                | "for"
                | "if"
                | "impl"
                | "in"
                | "let"
                | "loop"
                | "macro"
                | "match"
                | "mod"
                | "move"
                | "mut"
                | "override"
                | "priv"
                | "pub"
                | "ref"
                | "return"
                | "Self"
                | "self"
                | "static"
                | "struct"
                | "super"
                | "trait"
                | "true"
                | "try"
                | "type"
                | "typeof"
                | "unsafe"
                | "unsized"
                | "use"
                | "virtual"
                | "where"
                | "while"
                | "yield"
                | "union"
                | "default"
                | "auto"
                | "raw"
                | "gen"
                | "builtin"
                | "macro_rules"
                | "safe"
        ) && !s.starts_with("r#")
    })
}

/// `log`'s key-values before `;`: `k = v`, `k:? = v`, `k:% = v`, `k:err = v`, bare `k`, `k:%`.
fn log_key_values(input: ParseStream, out: &mut Parsed) -> syn::Result<()> {
    while !input.peek(Token![;]) {
        let (key, bare) = if peek_lit_str(input) {
            (input.parse::<LitStr>()?.value(), None)
        } else {
            let id = input.call(Ident::parse_any)?;
            let key = id.to_string();
            (key, Some(field_chain(vec![(None, id)])?))
        };
        let mut err_capture = false;
        if input.peek(Token![:]) {
            input.parse::<Token![:]>()?;
            if input.peek(Token![?]) || input.peek(Token![%]) {
                sigil(input)?;
            } else {
                let cap = input.call(Ident::parse_any)?;
                err_capture = cap == "err";
            }
        }
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            input.parse::<Expr>()?
        } else {
            bare.ok_or_else(|| input.error("a string-literal key needs `= value`"))?
        };
        out.interps.push(Interp {
            field: key.into(),
            value: Value::Expr(Box::new(value)),
            err_capture,
        });
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        } else if !input.peek(Token![;]) {
            return Err(input.error("expected `,` or `;` after a key-value"));
        }
    }
    input.parse::<Token![;]>()?;
    Ok(())
}

/// A format string and its arguments; every printed argument becomes a `{fmt}` value.
fn message(input: ParseStream, out: &mut Parsed) -> syn::Result<()> {
    let interps = &mut out.interps;
    let unprinted = parse_format_args(input)?.into_values(&mut |value| {
        interps.push(Interp {
            field: "{fmt}".into(),
            value,
            err_capture: false,
        });
    })?;
    out.others.extend(unprinted);
    Ok(())
}

/// Whether a macro call's path ends in one of `names` (`format`, `std::format`).
pub(crate) fn macro_named(mac: &syn::Macro, names: &[&str]) -> bool {
    mac.path
        .segments
        .last()
        .is_some_and(|s| names.iter().any(|n| s.ident == n))
}

/// An expression's tokens, one space apart: the normalised form used in baseline keys.
pub(crate) fn tokens_text(e: &impl quote::ToTokens) -> String {
    let mut out = String::new();
    push_tokens(&mut out, e.to_token_stream());
    out
}

fn push_tokens(out: &mut String, ts: TokenStream) {
    let mut joint = false;
    for tt in ts {
        if !out.is_empty() && !joint && !out.ends_with(['(', '[', '{']) {
            out.push(' ');
        }
        joint = false;
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push_str(open);
                push_tokens(out, g.stream());
                out.push_str(close);
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                joint = p.spacing() == proc_macro2::Spacing::Joint;
            }
            other => out.push_str(&other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peek_lit_str_answers_as_syn_does() {
        let cases = [
            ("\"msg\", x", true),
            ("r#\"raw\"#", true),
            ("\"suffixed\"s", true),
            ("b\"bytes\"", false),
            ("c\"cstr\"", false),
            ("'c'", false),
            ("1", false),
            ("-1", false),
            ("true", false),
            ("user_id = 1", false),
            ("= 1", false),
            ("(\"in a group\")", false),
            ("", false),
        ];
        for (src, want) in cases {
            let tokens: TokenStream = src.parse().expect("valid tokens");
            let (ours, syns) = (|input: ParseStream| {
                let answers = (peek_lit_str(input), input.peek(LitStr));
                input.parse::<TokenStream>()?;
                Ok(answers)
            })
            .parse2(tokens)
            .expect("the parser consumes every token");
            assert_eq!(ours, syns, "{src}");
            assert_eq!(ours, want, "{src}");
        }
    }
}
