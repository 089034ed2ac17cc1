//! A `format!` or `format_args!` anywhere in a log macro's other arguments (its level, its
//! `target:`, a span's name) is judged like the message: a project's own `log!` called as
//! `log!(&format!("…", name))` reads to the grammar as `log!`'s level argument, yet what it
//! formats is what reaches the log.

use syn::Expr;
use syn::visit::Visit;

use super::Linter;
use super::visit::path_text;
use crate::grammar::{Sink, parse_sink};

impl Linter<'_> {
    /// Judges the values of every `format!`/`format_args!` in `e`, an argument of the sink
    /// `sink_path` that the grammar does not record; closures are left to the walk.
    pub(super) fn formats_in(&mut self, sink_path: &str, sink: Sink, e: &Expr, stmt: (u32, u32)) {
        let mut found = Formats(Vec::new());
        found.visit_expr(e);
        for tokens in found.0 {
            let Ok(parsed) = parse_sink(
                Sink::Format {
                    skip: 0,
                    printed: 0,
                },
                tokens,
            ) else {
                continue; // not a format call after all: nothing this rule can judge
            };
            for interp in &parsed.interps {
                self.check_interp(sink_path, sink, interp, stmt);
            }
        }
    }
}

/// The argument tokens of the `format!`/`format_args!` calls in an expression.
struct Formats(Vec<proc_macro2::TokenStream>);

impl<'ast> Visit<'ast> for Formats {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let path = path_text(&mac.path);
        let last = path.rsplit("::").next().unwrap_or(&path);
        if matches!(last, "format" | "format_args") {
            self.0.push(mac.tokens.clone());
        }
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}
