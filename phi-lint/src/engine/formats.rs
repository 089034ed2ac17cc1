//! A `format!` or `format_args!` anywhere in a log macro's other arguments (its level, its
//! `target:`, a span's name) is judged like the message: a project's own `log!` called as
//! `log!(&format!("…", name))` reads to the grammar as `log!`'s level argument, yet what it
//! formats is what reaches the log.

use syn::Expr;
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::Linter;
use super::visit::path_text;
use crate::grammar::{Sink, parse_sink, too_many_placeholders};
use crate::rules::{self, Rule};

impl Linter<'_> {
    /// Judges the values of every `format!`/`format_args!` in `e`, an argument of the sink
    /// `sink_path` that the grammar does not record; closures are left to the walk. A call whose
    /// format string holds more placeholders than the bound is a `phi::unparsed-macro` finding
    /// at it, as a sink's is.
    pub(super) fn formats_in(
        &mut self,
        sink_path: &str,
        sink: Sink,
        e: &Expr,
        stmt: (crate::Pos, crate::Pos),
    ) {
        let mut found = Formats(Vec::new());
        found.visit_expr(e);
        for (path, tokens, span) in found.0 {
            match parse_sink(
                Sink::Format {
                    skip: 0,
                    printed: 0,
                },
                tokens,
            ) {
                Ok(parsed) => {
                    for interp in &parsed.interps {
                        self.check_interp(sink_path, sink, interp, stmt);
                    }
                }
                // Not a format call after all (a macro of the same name takes other input):
                // nothing this rule can judge.
                Err(err) if !too_many_placeholders(&err) => {}
                Err(err) => {
                    let at = err.span();
                    let (start, end) = if at.start().line == 0 {
                        (span.start(), span.end())
                    } else {
                        (at.start(), at.end())
                    };
                    let message = rules::unparsed_macro::message(&path, &err);
                    let expr = self
                        .text(span.start(), span.end())
                        .unwrap_or(&path)
                        .to_owned();
                    self.push(
                        Rule::UnparsedMacro,
                        (start, end),
                        sink_path,
                        "",
                        expr,
                        path.clone(),
                        message,
                        stmt,
                    );
                }
            }
        }
    }
}

/// The path, argument tokens and span of the `format!`/`format_args!` calls in an expression.
struct Formats(Vec<(String, proc_macro2::TokenStream, proc_macro2::Span)>);

impl<'ast> Visit<'ast> for Formats {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let path = path_text(&mac.path);
        let last = path.rsplit("::").next().unwrap_or(&path);
        if matches!(last, "format" | "format_args") {
            let span = mac.span();
            self.0.push((path, mac.tokens.clone(), span));
        }
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}
