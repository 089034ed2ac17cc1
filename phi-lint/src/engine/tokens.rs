//! Macro calls, and logging calls hidden in token streams that `syn::visit` never reaches:
//! other macros' arguments (`tokio::select!`, `futures::join!`, user macros) and `macro_rules!`
//! bodies, whose `$var` metavariables are read by name. Every token walk here is bounded by
//! [`MAX_TOKEN_DEPTH`].

use std::fmt::Write as _;

use proc_macro2::{Delimiter, Group, LineColumn, Spacing, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Expr, LitStr, Token};

use super::Linter;
use crate::grammar::{Interp, Sink, Value};
use crate::rules::Rule;

/// Deepest group nesting a token walk descends into.
pub(super) const MAX_TOKEN_DEPTH: usize = 256;

impl Linter<'_> {
    /// A macro call at `span`: a sink is parsed and checked; a call to a `macro_rules!` of this
    /// file that can reach a sink is expanded and its expansion linted; any other macro's tokens
    /// are searched for nested logging calls.
    ///
    /// A macro of the file beats a sink of the same name (`macro_rules! info` is not
    /// `tracing::info!`), unless it is a configured wrapper; `use` renames are followed
    /// (`use tracing::info as note;` makes `note!` a sink).
    pub(super) fn macro_call(
        &mut self,
        path: &str,
        tokens: TokenStream,
        span: (LineColumn, LineColumn),
    ) {
        let wrapper = self
            .config
            .wrapper(path.rsplit("::").next().unwrap_or(path))
            .is_some();
        let resolved = self.imports.resolve(path);
        // `use crate::show as s;` then `s!(..)`: the file's macro under another name.
        let mut local = self.local_macros(path, span.0);
        if local.is_empty()
            && let Some(r) = resolved.as_deref()
        {
            local = self.local_macros(r, span.0);
        }
        if !wrapper && !local.is_empty() {
            self.expand_call(&local, path, tokens, span);
            return;
        }
        // `log::$level!($($arg)*)` in a `macro_rules!` body: a logging macro the caller picks,
        // forwarding what the caller passes. Its calls in this scan are expanded; calls from
        // elsewhere are not seen, as for any forwarding wrapper.
        if self.macro_rules.is_some()
            && path.rsplit("::").next().is_some_and(|l| l.starts_with('$'))
        {
            let crate_of = resolved.as_deref().unwrap_or(path);
            let first = crate_of
                .trim_start_matches("::")
                .split("::")
                .next()
                .unwrap_or("");
            if matches!(first, "tracing" | "log") && strip_metavariables(tokens.clone()).1 {
                self.forwarding(path, span);
                return;
            }
        }
        let shadowed = !wrapper && self.defines_macro(path);
        let sink = match resolved.as_deref() {
            Some(r) => self.sink_of(r, &tokens),
            None => None,
        }
        .or_else(|| {
            if shadowed {
                None
            } else {
                self.sink_of(path, &tokens)
            }
        });
        let Some(sink) = sink else {
            // `write!(msg, ..)` into a local that is not a standard stream.
            if matches!(path.rsplit("::").next(), Some("write" | "writeln")) {
                self.written_into(&tokens);
            }
            if !shadowed {
                self.want(path);
                // `use crate::log_info as say;`: the macro another file defines is `log_info`.
                if let Some(r) = resolved.as_deref() {
                    self.want(r);
                }
            }
            self.nested(tokens);
            return;
        };
        if self.macro_rules.is_some() {
            let (stripped, repeats) = strip_metavariables(tokens);
            if repeats {
                self.forwarding(path, span);
                return;
            }
            self.sink_call(path, sink, stripped, span);
        } else {
            self.sink_call(path, sink, tokens, span);
        }
    }

    /// A `macro_rules!` body passes repeated arguments to a sink: fine when the macro is a
    /// configured wrapper (its calls are checked), else a finding, because its calls are not.
    fn forwarding(&mut self, path: &str, span: (LineColumn, LineColumn)) {
        let name = self.macro_rules.clone().unwrap_or_default();
        if self.config.wrapper(&name).is_some() {
            return;
        }
        self.statements += 1;
        let message = format!(
            "`{name}!` forwards its arguments to `{path}!`, so calls to `{name}!` are not checked"
        );
        let stmt = self.statement(span);
        let expr = format!("macro_rules! {name}");
        self.push(
            Rule::UncheckedWrapper,
            span,
            path,
            "",
            expr.clone(),
            expr,
            message,
            stmt,
        );
    }

    /// The tokens of a macro that is not a sink: parsed as expressions, statements or items
    /// where they are, so the full visitor sees closures and `#[instrument]`; otherwise scanned
    /// token by token.
    pub(super) fn nested(&mut self, tokens: TokenStream) {
        // Most macros (`vec!`, `format!`, `matches!`) hold no logging call: a cheap token walk
        // decides whether a parse is worth it.
        // A renamed OpenTelemetry `KeyValue` (`Kv::new(..)`) is no word of a sink.
        if !self.otel_renamed && !may_log(&tokens) {
            return;
        }
        // A `=>` outside any group (`tokio::select!` arms) parses as no expression list, no
        // statements and no file: each of the three parses below would copy the whole stream
        // into a buffer only to fail.
        if tokens.is_empty() || self.macro_rules.is_some() || has_fat_arrow(&tokens) {
            self.scan_tokens(tokens);
            return;
        }
        if let Ok(exprs) = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(tokens.clone()) {
            for e in &exprs {
                self.visit_expr(e);
            }
        } else if let Ok(stmts) =
            (|input: ParseStream| syn::Block::parse_within(input)).parse2(tokens.clone())
        {
            for s in &stmts {
                self.visit_stmt(s);
            }
        } else if let Ok(file) = syn::parse2::<syn::File>(tokens.clone()) {
            self.visit_file(&file);
        } else {
            self.scan_tokens(tokens);
        }
    }

    /// Finds macro calls (`path!(..)`) and `.record("k", v)` calls in raw tokens.
    pub(super) fn scan_tokens(&mut self, tokens: TokenStream) {
        self.scan_tokens_at(tokens, 0);
    }

    fn scan_tokens_at(&mut self, tokens: TokenStream, depth: usize) {
        if depth > MAX_TOKEN_DEPTH {
            return;
        }
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tts.len() {
            if let Some((path, group, next)) = macro_call_at(&tts, i) {
                let span = (tts[i].span().start(), group.span().end());
                self.macro_call(&path, group.stream(), span);
                i = next;
                continue;
            }
            if let Some(next) = self.record_call_at(&tts, i) {
                i = next;
                continue;
            }
            if let TokenTree::Group(g) = &tts[i] {
                self.scan_tokens_at(g.stream(), depth + 1);
            }
            i += 1;
        }
    }

    /// `.record("k", v)` at `i`: checks it and returns the index after it.
    fn record_call_at(&mut self, tts: &[TokenTree], i: usize) -> Option<usize> {
        let (TokenTree::Punct(dot), Some(TokenTree::Ident(method)), Some(TokenTree::Group(args))) =
            (&tts[i], tts.get(i + 1), tts.get(i + 2))
        else {
            return None;
        };
        if dot.as_char() != '.' || method != "record" || args.delimiter() != Delimiter::Parenthesis
        {
            return None;
        }
        let stream = if self.macro_rules.is_some() {
            strip_metavariables(args.stream()).0
        } else {
            args.stream()
        };
        let parsed = (|input: ParseStream| {
            let key: LitStr = input.parse()?;
            input.parse::<Token![,]>()?;
            let value = Expr::parse(input)?;
            let _ = input.parse::<Option<Token![,]>>()?;
            Ok((key, value))
        })
        .parse2(stream);
        let (key, value) = parsed.ok()?;
        self.statements += 1;
        let stmt = self.statement((dot.span().start(), args.span().end()));
        let interp = Interp {
            field: key.value().into(),
            value: Value::Expr(Box::new(value)),
            err_capture: false,
        };
        self.check_interp(".record", Sink::RecordAll, &interp, stmt);
        Some(i + 3)
    }
}

/// Whether `tokens` can hold a logging statement: a macro call (`!`), a `.record` call, an
/// `#[instrument]` attribute, a write to stdout or stderr, or a `log::Record`. Anything else
/// cannot reach a log, so is not parsed again.
fn may_log(tokens: &TokenStream) -> bool {
    may_log_at(tokens, 0)
}

fn may_log_at(tokens: &TokenStream, depth: usize) -> bool {
    // Too deep to look into: parse it, and let the parse decide.
    depth > MAX_TOKEN_DEPTH
        || tokens.clone().into_iter().any(|tt| match tt {
            TokenTree::Punct(p) => p.as_char() == '!',
            TokenTree::Ident(id) => is_log_ident(&id),
            TokenTree::Group(g) => may_log_at(&g.stream(), depth + 1),
            TokenTree::Literal(_) => false,
        })
}

/// Whether `tokens` hold a `=>` outside their groups.
fn has_fat_arrow(tokens: &TokenStream) -> bool {
    let mut eq = false;
    tokens.clone().into_iter().any(|tt| {
        let arrow = eq && matches!(&tt, TokenTree::Punct(p) if p.as_char() == '>');
        eq = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '=' && p.spacing() == Spacing::Joint);
        arrow
    })
}

/// Identifiers that mark a sink that is not a macro call: a writer, a `Record`, an
/// OpenTelemetry attribute, a panic's message.
fn is_log_ident(id: &proc_macro2::Ident) -> bool {
    [
        "KeyValue",
        "Key",
        "set_attribute",
        "expect",
        "expect_err",
        "panic_any",
        "record",
        "instrument",
        "write_all",
        "write_fmt",
        "write",
        "stdout",
        "stderr",
        "Record",
    ]
    .iter()
    .any(|s| id == s)
}

/// Calls `f` with the path and the arguments of every macro call in `tokens` (nested groups
/// included), and returns whether the tokens name a sink that is not a macro call (see
/// [`may_log`]).
pub(super) fn macro_calls(tokens: TokenStream, f: &mut dyn FnMut(&str, &TokenStream)) -> bool {
    let mut other = false;
    let mut stack = vec![(tokens, 0usize)];
    while let Some((ts, depth)) = stack.pop() {
        if depth > MAX_TOKEN_DEPTH {
            other = true;
            continue;
        }
        let tts: Vec<TokenTree> = ts.into_iter().collect();
        let mut i = 0;
        while i < tts.len() {
            if let Some((path, group, next)) = macro_call_at(&tts, i) {
                let args = group.stream();
                f(&path, &args);
                stack.push((args, depth + 1));
                i = next;
                continue;
            }
            match &tts[i] {
                TokenTree::Group(g) => stack.push((g.stream(), depth + 1)),
                TokenTree::Ident(id) => other |= is_log_ident(id),
                _ => {}
            }
            i += 1;
        }
    }
    other
}

/// A macro call starting at `i`: `[::]a::b!(..)` or `$crate::a!(..)`. Returns its path, its
/// argument group and the index after it.
fn macro_call_at(tts: &[TokenTree], i: usize) -> Option<(String, &Group, usize)> {
    let mut j = i;
    let mut path = String::new();
    if is_punct(tts.get(j), '$')
        && matches!(tts.get(j + 1), Some(TokenTree::Ident(id)) if id == "crate")
    {
        path.push_str("$crate");
        j += 2;
        if !is_path_sep(tts, j) {
            return None;
        }
    } else if is_punct(tts.get(j), '$')
        && let Some(TokenTree::Ident(id)) = tts.get(j + 1)
        && is_punct(tts.get(j + 2), '!')
    {
        // `$m!(..)`: a macro the caller names, in a `macro_rules!` body.
        write!(path, "${id}").expect("writing to a `String` cannot fail");
        j += 2;
    } else if is_path_sep(tts, j) {
        // A leading `::` only starts a path if nothing path-like precedes it.
        if i > 0 && matches!(tts[i - 1], TokenTree::Ident(_)) {
            return None;
        }
    } else if !matches!(tts.get(j), Some(TokenTree::Ident(_))) {
        return None;
    } else if i > 0 && (is_punct(tts.get(i - 1), '$') || is_path_sep_before(tts, i)) {
        // `$name` metavariable, or the middle of a path that started earlier.
        return None;
    }
    while !path.starts_with('$') || path == "$crate" || is_path_sep(tts, j) {
        if is_path_sep(tts, j) {
            path.push_str("::");
            j += 2;
        }
        match tts.get(j) {
            Some(TokenTree::Ident(id)) => {
                write!(path, "{id}").expect("writing to a `String` cannot fail");
                j += 1;
            }
            // `log::$level!(..)`: a segment the caller names.
            Some(t) if is_punct(Some(t), '$') && path.ends_with("::") => {
                let Some(TokenTree::Ident(id)) = tts.get(j + 1) else {
                    return None;
                };
                write!(path, "${id}").expect("writing to a `String` cannot fail");
                j += 2;
            }
            _ => return None,
        }
        if !is_path_sep(tts, j) {
            break;
        }
    }
    if !is_punct(tts.get(j), '!') {
        return None;
    }
    match tts.get(j + 1) {
        Some(TokenTree::Group(g)) if g.delimiter() != Delimiter::None => Some((path, g, j + 2)),
        _ => None,
    }
}

fn is_punct(tt: Option<&TokenTree>, c: char) -> bool {
    matches!(tt, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

fn is_path_sep(tts: &[TokenTree], j: usize) -> bool {
    matches!((tts.get(j), tts.get(j + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
}

fn is_path_sep_before(tts: &[TokenTree], i: usize) -> bool {
    i >= 2 && is_path_sep(tts, i - 2)
}

/// Rewrites a `macro_rules!` transcriber fragment so syn can parse it: `$name` becomes `name`,
/// `$crate` becomes `crate`, and a repetition `$( .. ) sep? *` becomes its contents. Returns
/// whether a repetition was present (the body forwards a variable number of arguments).
fn strip_metavariables(tokens: TokenStream) -> (TokenStream, bool) {
    strip_at(tokens, 0)
}

fn strip_at(tokens: TokenStream, depth: usize) -> (TokenStream, bool) {
    if depth > MAX_TOKEN_DEPTH {
        return (TokenStream::new(), true);
    }
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tts.len());
    let mut repeats = false;
    let mut i = 0;
    while i < tts.len() {
        match (&tts[i], tts.get(i + 1)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(id))) if p.as_char() == '$' => {
                out.push(TokenTree::Ident(id.clone()));
                i += 2;
            }
            (TokenTree::Punct(p), Some(TokenTree::Group(g)))
                if p.as_char() == '$' && g.delimiter() == Delimiter::Parenthesis =>
            {
                repeats = true;
                let (inner, _) = strip_at(g.stream(), depth + 1);
                out.extend(inner);
                i += 2;
                let is_op = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?'));
                if is_op(tts.get(i)) {
                    i += 1;
                } else if is_op(tts.get(i + 1)) {
                    i += 2;
                }
            }
            (TokenTree::Group(g), _) => {
                let (inner, r) = strip_at(g.stream(), depth + 1);
                repeats |= r;
                let mut ng = Group::new(g.delimiter(), inner);
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
                i += 1;
            }
            (tt, _) => {
                out.push(tt.clone());
                i += 1;
            }
        }
    }
    (out.into_iter().collect(), repeats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_metavariables() {
        let ts: TokenStream = "info!(n = $count, $crate::x)".parse().unwrap();
        let (out, rep) = strip_metavariables(ts);
        assert!(!rep);
        assert_eq!(out.to_string(), "info ! (n = count , crate :: x)");
        let ts: TokenStream = "error!(target: \"a\", $($arg)*)".parse().unwrap();
        assert!(strip_metavariables(ts).1);
    }

    #[test]
    fn finds_macro_paths() {
        let tts: Vec<TokenTree> = "a :: b ! (x) ; c != d ; ::e!{} ; $crate::f![]"
            .parse::<TokenStream>()
            .unwrap()
            .into_iter()
            .collect();
        let mut found = Vec::new();
        let mut i = 0;
        while i < tts.len() {
            if let Some((p, _, next)) = macro_call_at(&tts, i) {
                found.push(p);
                i = next;
            } else {
                i += 1;
            }
        }
        assert_eq!(found, vec!["a::b", "::e", "$crate::f"]);
    }
}
