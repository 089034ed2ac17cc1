//! The syn visitor: items (with test code skipped), functions and their `#[instrument]`s
//! (also under `cfg_attr`), macro calls, `.record("k", v)` calls, writers to stdout and stderr,
//! and the `use` renames of each module and block.

use std::fmt::Write as _;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

use super::Linter;
use crate::grammar::{Interp, Sink, Value};
use crate::resolve::{cfg_is_test, path_attr};

impl<'ast> Visit<'ast> for Linter<'_> {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        if !self.config.scan_tests && item_attrs(i).is_some_and(|a| is_test_code(a, self.config)) {
            if let syn::Item::Mod(m) = i
                && m.content.is_none()
            {
                self.out_of_line_test_module(m);
            }
            self.skip(i);
            return;
        }
        visit::visit_item(self, i);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.modules.push(m.ident.to_string());
        let items = m.content.as_ref().map(|(_, items)| items.iter());
        self.imports.push(items.into_iter().flatten());
        visit::visit_item_mod(self, m);
        self.imports.pop();
        self.modules.pop();
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        // A body cut into runs: the `use` items of its other runs are in scope too.
        let split = self.is_split_body(b);
        if split && let Some(s) = &self.split {
            self.imports.push_renames(s.renames.to_vec());
        }
        self.imports.push(b.stmts.iter().filter_map(|s| match s {
            syn::Stmt::Item(i) => Some(i),
            _ => None,
        }));
        self.block(b);
        self.imports.pop();
        if split {
            self.imports.pop();
        }
    }

    fn visit_item_fn(&mut self, i: &'ast syn::ItemFn) {
        self.function_item(
            (&i.attrs, &i.sig, Some(&*i.block)),
            || {
                skipped_lines(&i.attrs, Some(i.block.brace_token.span.close()), || {
                    i.span()
                })
            },
            |this| {
                visit::visit_item_fn(this, i);
            },
        );
    }

    fn visit_impl_item_fn(&mut self, i: &'ast syn::ImplItemFn) {
        self.function_item(
            (&i.attrs, &i.sig, Some(&i.block)),
            || {
                skipped_lines(&i.attrs, Some(i.block.brace_token.span.close()), || {
                    i.span()
                })
            },
            |this| {
                visit::visit_impl_item_fn(this, i);
            },
        );
    }

    fn visit_trait_item_fn(&mut self, i: &'ast syn::TraitItemFn) {
        self.function_item(
            (&i.attrs, &i.sig, i.default.as_ref()),
            || {
                let last = match (&i.default, &i.semi_token) {
                    (Some(b), _) => Some(b.brace_token.span.close()),
                    (None, Some(semi)) => Some(semi.span),
                    (None, None) => None,
                };
                skipped_lines(&i.attrs, last, || i.span())
            },
            |this| {
                visit::visit_trait_item_fn(this, i);
            },
        );
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let name = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        self.context
            .push(name.clone().unwrap_or_else(|| "impl".into()));
        let outer = std::mem::replace(&mut self.self_ty, name);
        // `impl<S: Session> H<S>`: its methods' parameters of type `S` use `Session`'s methods.
        let bounds = std::mem::replace(
            &mut self.impl_bounds,
            super::locals::trait_bounded(&i.generics),
        );
        visit::visit_item_impl(self, i);
        self.impl_bounds = bounds;
        self.self_ty = outer;
        self.context.pop();
    }

    fn visit_item_trait(&mut self, i: &'ast syn::ItemTrait) {
        self.context.push(i.ident.to_string());
        let outer = self.self_ty.take();
        visit::visit_item_trait(self, i);
        self.self_ty = outer;
        self.context.pop();
    }

    fn visit_item_macro(&mut self, i: &'ast syn::ItemMacro) {
        if i.mac.path.is_ident("macro_rules") {
            let name = i
                .ident
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            let outer = self.macro_rules.replace(name);
            self.scan_tokens(i.mac.tokens.clone());
            self.macro_rules = outer;
            return;
        }
        visit::visit_item_macro(self, i);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let path = path_text(&mac.path);
        let span = (mac.path.span_start(), mac.delimiter_end());
        self.macro_call(&path, mac.tokens.clone(), span);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if self.writer_method(m) {
            return;
        }
        self.note_closure_args(m);
        self.mutating_call(m);
        if (m.method == "expect" || m.method == "expect_err")
            && m.args.len() == 1
            && self.printed_message(
                ".expect",
                &m.args[0],
                (m.method.span().start(), m.paren_token.span.close().end()),
            )
        {
            self.visit_expr(&m.receiver);
            return;
        }
        // `span.set_attribute("enduser.id", v)` (tracing-opentelemetry's span extension, and
        // OpenTelemetry's own span with a key and a value).
        if self.otel
            && m.method == "set_attribute"
            && m.args.len() == 2
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(key), ..
            }) = &m.args[0]
        {
            let span = (m.receiver.span_start(), m.paren_token.span.close().end());
            self.attribute(".set_attribute", &key.value(), &m.args[1], span);
        }
        // `.context(format!(..))?` in `main`: the message is printed with the error on exit.
        if self.main_result
            && m.args.len() == 1
            && ["context", "with_context", "wrap_err", "wrap_err_with"]
                .iter()
                .any(|k| m.method == k)
        {
            let msg = match crate::classify::peel(&m.args[0]) {
                Expr::Closure(c) => &*c.body,
                other => other,
            };
            let span = (m.method.span().start(), m.paren_token.span.close().end());
            if self.printed_message("main's error", msg, span) {
                self.visit_expr(&m.receiver);
                return;
            }
        }
        // `Key::new("enduser.id").string(v)`: OpenTelemetry's other way to build an attribute
        // (`i64`, `f64`, `bool` and `array` as well).
        if self.otel
            && m.args.len() == 1
            && ["string", "i64", "f64", "bool", "array"]
                .iter()
                .any(|k| m.method == k)
            && let Some(key) = self.otel_key(&m.receiver)
        {
            let span = (m.receiver.span_start(), m.paren_token.span.close().end());
            self.attribute("Key::new", &key, &m.args[0], span);
        }
        if m.method == "record"
            && m.args.len() == 2
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(key), ..
            }) = &m.args[0]
        {
            self.statements += 1;
            let stmt = self.statement((m.receiver.span_start(), m.paren_token.span.close().end()));
            let interp = Interp {
                field: key.value().into(),
                value: Value::Expr(Box::new(m.args[1].clone())),
                err_capture: false,
            };
            self.check_interp(".record", Sink::RecordAll, &interp, stmt);
        }
        visit::visit_expr_method_call(self, m);
    }

    // Locals, for the classifier (engine/locals.rs).
    fn visit_local(&mut self, l: &'ast syn::Local) {
        visit::visit_local(self, l);
        self.note_local(l);
        self.bind_local(l);
        // `let m = &mut msg;`: what is written through `m` is not followed, so `msg` is no
        // longer known to be safe.
        if let Some(init) = &l.init
            && let Expr::Reference(r) = &*init.expr
            && r.mutability.is_some()
        {
            self.mutated(&r.expr, None);
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.closure(c);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.for_loop(f);
    }

    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        self.let_expr(l);
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.match_expr(m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        // `KeyValue::new("enduser.id", v)`: an OpenTelemetry attribute, which exists only to be
        // exported with a span, an event, a metric or a resource.
        if self.otel
            && let Expr::Path(f) = &*c.func
            && c.args.len() == 2
            && self.is_otel_path(&f.path, "KeyValue", &["new"])
        {
            let key = match &c.args[0] {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(k), ..
                }) => k.value(),
                other => crate::grammar::tokens_text(other),
            };
            self.attribute(
                "KeyValue::new",
                &key,
                &c.args[1],
                (c.func.span_start(), c.paren_token.span.close().end()),
            );
        }
        // `Option::expect(found, &msg)`: the method called by its path.
        if let Expr::Path(f) = &*c.func
            && c.args.len() == 2
            && self.is_ufcs_expect(f)
            && self.printed_message(
                ".expect",
                &c.args[1],
                (c.func.span_start(), c.paren_token.span.close().end()),
            )
        {
            self.visit_expr(&c.args[0]);
            return;
        }
        // `std::panic::panic_any(msg)` panics with its argument as the message.
        if let Expr::Path(f) = &*c.func
            && f.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "panic_any")
            && c.args.len() == 1
        {
            let span = (c.func.span_start(), c.paren_token.span.close().end());
            match formatted_message(&c.args[0]) {
                Some(mac) => {
                    let format = Sink::Format {
                        skip: 0,
                        printed: 0,
                    };
                    self.sink_call("panic_any", format, mac.tokens.clone(), span);
                }
                None => self.panic_message("panic_any", &c.args[0], span),
            }
        }
        if !self.writer_fn(c) {
            visit::visit_expr_call(self, c);
        }
        if c.args.iter().any(super::locals::is_lent) {
            let all: Vec<&Expr> = c.args.iter().collect();
            self.lent(&all);
        }
        self.closure_call(c);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        visit::visit_expr_assign(self, a);
        self.mutated(&a.left, Some(&a.right));
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        visit::visit_expr_binary(self, b);
        if is_assign_op(b.op) {
            self.mutated(&b.left, Some(&b.right));
        }
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        let attrs = match s {
            syn::Stmt::Local(l) => Some(&l.attrs),
            syn::Stmt::Macro(m) => Some(&m.attrs),
            _ => None,
        };
        if !self.config.scan_tests && attrs.is_some_and(|a| is_test_code(a, self.config)) {
            return;
        }
        visit::visit_stmt(self, s);
    }
}

impl Linter<'_> {
    /// The key of an OpenTelemetry `Key` value: `Key::new("k")` (`from_static_str`, `from`) gives
    /// `k`; any other value the index types as a `Key` (`let k = Key::new(..)`, a `const NAME:
    /// Key`) gives its own text.
    fn otel_key(&self, recv: &Expr) -> Option<String> {
        let mut e = recv;
        while let Expr::Paren(p) = e {
            e = &p.expr;
        }
        if let Expr::Call(k) = e
            && let Expr::Path(f) = &*k.func
            && k.args.len() == 1
            && self.is_otel_path(&f.path, "Key", &["new", "from_static_str", "from"])
        {
            return Some(match crate::classify::peel(&k.args[0]) {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(k), ..
                }) => k.value(),
                other => crate::grammar::tokens_text(other),
            });
        }
        let ty = crate::types::ty_of(e, &self.scope, &self.classifier.types);
        (self.classifier.types.resolve(&ty).name() == Some("Key"))
            .then(|| crate::grammar::tokens_text(e))
    }

    /// `Option::expect`, `Result::expect_err`, `std::option::Option::expect`,
    /// `<Option<u8>>::expect` and a renamed `Option` (`use std::option::Option as Opt;`): the
    /// panicking methods called by their path.
    fn is_ufcs_expect(&self, f: &syn::ExprPath) -> bool {
        let Some(last) = f.path.segments.last() else {
            return false;
        };
        if last.ident != "expect" && last.ident != "expect_err" {
            return false;
        }
        let owner = |id: &str| id == "Option" || id == "Result";
        if let Some(q) = &f.qself {
            return f.path.segments.len() == 1
                && matches!(&*q.ty, syn::Type::Path(t)
                    if t.path.segments.last().is_some_and(|s| owner(&s.ident.to_string())));
        }
        self.is_otel_path(&f.path, "Option", &["expect", "expect_err"])
            || self.is_otel_path(&f.path, "Result", &["expect", "expect_err"])
    }

    /// Whether `path` names `ty::f` for one of `fns` (`KeyValue::new`,
    /// `opentelemetry::KeyValue::new`), through the file's renames (`Kv::new` after `use
    /// opentelemetry::KeyValue as Kv;`).
    fn is_otel_path(&self, path: &syn::Path, ty: &str, fns: &[&str]) -> bool {
        let text = path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::");
        let text = self.imports.resolve(&text).unwrap_or(text);
        let mut rev = text.rsplit("::");
        if !rev.next().is_some_and(|f| fns.contains(&f)) {
            return false;
        }
        // `type Kv = KeyValue;`: an alias the index knows.
        rev.next().is_some_and(|owner| {
            owner == ty
                || self
                    .classifier
                    .types
                    .resolve(&crate::types::Ty::named(owner))
                    .name()
                    == Some(ty)
        })
    }

    /// An OpenTelemetry attribute's value under `key`, judged as a span field is.
    fn attribute(
        &mut self,
        path: &str,
        key: &str,
        value: &Expr,
        span: (proc_macro2::LineColumn, proc_macro2::LineColumn),
    ) {
        self.statements += 1;
        let stmt = self.statement(span);
        let interp = Interp {
            field: key.into(),
            value: Value::Expr(Box::new(value.clone())),
            err_capture: false,
        };
        self.check_interp(path, Sink::RecordAll, &interp, stmt);
    }

    /// A message that is printed as it is: a panic's (`.expect(msg)`, `Option::expect(o, msg)`,
    /// under `path` `.expect`) or that of an error `main` returns (`.context(msg)`, under
    /// `main's error`). `&format!(..)` is checked as the format it is, and returns `true` (its
    /// arguments are walked; the caller walks the rest): clippy's `expect_fun_call` is about
    /// this very shape. Any other message but a string literal (`&msg`, `&p.email`) is checked
    /// as the value it is, and the call is walked as usual.
    fn printed_message(
        &mut self,
        path: &str,
        msg: &Expr,
        span: (proc_macro2::LineColumn, proc_macro2::LineColumn),
    ) -> bool {
        if let Some(mac) = formatted_message(msg) {
            let span = (mac.path.span_start(), mac.delimiter_end());
            self.sink_call(
                path,
                Sink::Format {
                    skip: 0,
                    printed: 0,
                },
                mac.tokens.clone(),
                span,
            );
            return true;
        }
        if !matches!(
            crate::classify::peel(msg),
            Expr::Lit(ExprLit {
                lit: Lit::Str(_),
                ..
            })
        ) {
            self.panic_message(path, msg, span);
        }
        false
    }

    /// A panic's message that is a value, not a literal or a `format!`: it is printed as a
    /// format argument would be.
    fn panic_message(
        &mut self,
        path: &str,
        arg: &Expr,
        span: (proc_macro2::LineColumn, proc_macro2::LineColumn),
    ) {
        // Text compiled in (`include_str!`, `concat!`, `env!`), and a value whose type is not
        // text: a project's own `expect(delim)` of a token kind is no panic message.
        if let Expr::Macro(m) = crate::classify::peel(arg)
            && crate::grammar::macro_named(
                &m.mac,
                &["include_str", "concat", "env", "stringify", "option_env"],
            )
        {
            return;
        }
        let ty = crate::types::ty_of(arg, &self.scope, &self.classifier.types);
        if !matches!(
            self.classifier.fact_ty(&ty),
            crate::types::Fact::Text(_)
                | crate::types::Fact::Composite(_)
                | crate::types::Fact::Error
                | crate::types::Fact::Unknown
        ) {
            return;
        }
        self.statements += 1;
        let stmt = self.statement(span);
        let interp = Interp {
            field: "{fmt}".into(),
            value: Value::Expr(Box::new(arg.clone())),
            err_capture: false,
        };
        let format = Sink::Format {
            skip: 0,
            printed: 0,
        };
        self.check_interp(path, format, &interp, stmt);
    }

    /// A function: skipped if it is a test, else its `#[instrument]`s are checked and its body
    /// is walked with its name as context.
    fn function_item(
        &mut self,
        (attrs, sig, body): (&[Attribute], &syn::Signature, Option<&syn::Block>),
        // Only for skipped test code: its first and last lines.
        lines: impl FnOnce() -> (u32, u32),
        walk: impl FnOnce(&mut Self),
    ) {
        if !self.config.scan_tests && is_test_code(attrs, self.config) {
            self.skipped.push(lines());
            return;
        }
        // A program's `main` returning a `Result`: an error it returns is printed to stderr
        // with `Debug` when the program exits.
        let main = sig.ident == "main"
            && self.context.is_empty()
            && self.modules.is_empty()
            && matches!(sig.output, syn::ReturnType::Type(..));
        let outer_main = std::mem::replace(&mut self.main_result, main);
        self.context.push(sig.ident.to_string());
        // The parameters are in scope for `#[instrument(fields(..))]` as for the body.
        self.enter_fn(sig);
        // A body cut into runs: its attributes are judged with its first run only.
        let later_run = body.is_some_and(|b| self.is_split_body(b))
            && self.split.as_ref().is_some_and(|s| !s.first);
        for attr in attrs.iter().filter(|_| !later_run) {
            let mut metas = Vec::new();
            self.instrument_metas(&attr.meta, &mut metas, 0);
            for meta in &metas {
                self.instrument(attr, meta, sig);
            }
        }
        let mut params = super::writers::stream_params(sig);
        params.extend(super::writers::handed_streams(sig, &self.handed));
        let outer = std::mem::replace(&mut self.std_streams, params);
        self.walk_body(body, walk);
        self.main_result = outer_main;
        self.exit_fn();
        self.std_streams = outer;
        self.context.pop();
    }

    /// Walks a function (its body and what syn visits with it). A first lint records what the
    /// walk produced and the names it missed; a final lint takes over, instead of walking, a
    /// function the first lint judged with no name another file defines, since the merged
    /// index cannot change its verdicts. Not in a macro's expansion, whose positions repeat.
    fn walk_body(&mut self, body: Option<&syn::Block>, walk: impl FnOnce(&mut Self)) {
        // A run of a body cut into runs is always walked: its locals are the next run's.
        let split = body.is_some_and(|b| self.is_split_body(b));
        if let Some(b) = body
            && !split
            && self.expansion.is_none()
            && let Some(text) = self.source.slice(
                b.brace_token.span.open().start(),
                b.brace_token.span.close().end(),
            )
            && !self.otel_renamed
            && !self.main_result
            && !may_reach_a_sink(text)
        {
            return;
        }
        let key = match body {
            Some(b) if self.expansion.is_none() && self.replaying == 0 => {
                let at = b.brace_token.span.open().start();
                Some((at.line, at.column))
            }
            _ => None,
        };
        if let (Some(key), Some(first)) = (key, self.reuse)
            && !first.dependent.contains(&key)
            && let Some(r) = first.functions.iter().find(|r| r.body == key)
        {
            self.raw.extend_from_slice(&first.raw[r.raw.clone()]);
            if self.raw.len() > self.budget {
                self.raw.truncate(self.budget);
                self.truncated = true;
            }
            self.skipped
                .extend_from_slice(&first.skipped[r.skipped.clone()]);
            self.statements += r.statements;
            self.expanded += r.expanded;
            return;
        }
        let recording = key.filter(|_| self.functions.is_some());
        let before = (
            self.raw.len(),
            self.skipped.len(),
            self.statements,
            self.expanded,
            self.classifier.types.missed(),
        );
        self.judged += usize::from(
            body.is_some() && !(split && self.split.as_ref().is_some_and(|s| !s.first)),
        );
        walk(self);
        let Some(body) = recording else { return };
        let mut misses = self.classifier.types.misses_since(before.4);
        misses.sort_unstable();
        misses.dedup();
        let record = super::FnRecord {
            body,
            misses,
            raw: before.0..self.raw.len(),
            skipped: before.1..self.skipped.len(),
            statements: self.statements - before.2,
            expanded: self.expanded - before.3,
        };
        if let Some(list) = &mut self.functions {
            list.push(record);
        }
    }

    /// The `#[instrument]`s an attribute applies: itself (also renamed by a `use`), or the
    /// attributes of a `cfg_attr(pred, a, b, ..)`, nested ones included. The predicate is not
    /// evaluated: any configuration may be the one that ships.
    fn instrument_metas(&self, meta: &Meta, out: &mut Vec<Meta>, depth: usize) {
        const MAX_CFG_ATTR_DEPTH: usize = 8;
        let path = path_text(meta.path());
        let resolved = self.imports.resolve(&path).unwrap_or(path);
        match resolved.rsplit("::").next() {
            Some("instrument") => out.push(meta.clone()),
            Some("cfg_attr") if depth < MAX_CFG_ATTR_DEPTH => {
                let Meta::List(list) = meta else { return };
                let Ok(args) = list.parse_args_with(
                    syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
                ) else {
                    return;
                };
                for m in args.iter().skip(1) {
                    self.instrument_metas(m, out, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// `#[cfg(test)] mod tests;`: the module's file (`tests.rs` or `tests/mod.rs`, or its
    /// `#[path]`) is test code too, although nothing in that file says so.
    fn out_of_line_test_module(&mut self, m: &syn::ItemMod) {
        let (dir, stem) = match self.rel.rsplit_once('/') {
            Some((d, f)) => (format!("{d}/"), f),
            None => (String::new(), self.rel),
        };
        let own_dir = match stem {
            "lib.rs" | "main.rs" | "mod.rs" => dir.clone(),
            other => format!("{dir}{}/", other.trim_end_matches(".rs")),
        };
        if let Some(path) = path_attr(&m.attrs) {
            self.test_modules.push(format!("{dir}{path}"));
            return;
        }
        let mut base = own_dir;
        for inline in &self.modules {
            base.push_str(inline);
            base.push('/');
        }
        let name = m.ident.to_string();
        self.test_modules.push(format!("{base}{name}.rs"));
        self.test_modules.push(format!("{base}{name}/"));
    }

    /// Records the lines of a skipped test item, so suppressions inside it are not reported as
    /// unused.
    fn skip(&mut self, i: &syn::Item) {
        let lines = match item_attrs(i) {
            Some(attrs) => skipped_lines(attrs, last_token(i), || i.span()),
            None => {
                let span = i.span();
                (span.start().line as u32, span.end().line as u32)
            }
        };
        self.skipped.push(lines);
    }
}

/// The first and last lines of a skipped test item, as `Spanned::span` gives them (from its
/// first outer attribute to its last token, `last`), without walking all of the item's tokens
/// as `span` does: a `#[cfg(test)] mod tests { .. }` is often a fifth of a file. Without an outer
/// attribute or a known last token, `whole` gives the span.
fn skipped_lines(
    attrs: &[Attribute],
    last: Option<proc_macro2::Span>,
    whole: impl FnOnce() -> proc_macro2::Span,
) -> (u32, u32) {
    let first = attrs
        .iter()
        .find(|a| matches!(a.style, syn::AttrStyle::Outer));
    match (first, last) {
        (Some(a), Some(last)) => (
            a.pound_token.span.start().line as u32,
            last.end().line as u32,
        ),
        _ => {
            let span = whole();
            (span.start().line as u32, span.end().line as u32)
        }
    }
}

/// The span of an item's last token: its closing brace or its `;`.
fn last_token(i: &syn::Item) -> Option<proc_macro2::Span> {
    use syn::{Fields, Item};
    Some(match i {
        Item::Const(x) => x.semi_token.span,
        Item::Enum(x) => x.brace_token.span.close(),
        Item::ExternCrate(x) => x.semi_token.span,
        Item::Fn(x) => x.block.brace_token.span.close(),
        Item::ForeignMod(x) => x.brace_token.span.close(),
        Item::Impl(x) => x.brace_token.span.close(),
        Item::Macro(x) => match (&x.semi_token, &x.mac.delimiter) {
            (Some(semi), _) => semi.span,
            (None, syn::MacroDelimiter::Paren(d)) => d.span.close(),
            (None, syn::MacroDelimiter::Brace(d)) => d.span.close(),
            (None, syn::MacroDelimiter::Bracket(d)) => d.span.close(),
        },
        Item::Mod(x) => match (&x.content, &x.semi) {
            (Some((brace, _)), _) => brace.span.close(),
            (None, Some(semi)) => semi.span,
            (None, None) => return None,
        },
        Item::Static(x) => x.semi_token.span,
        Item::Struct(x) => match (&x.semi_token, &x.fields) {
            (Some(semi), _) => semi.span,
            (None, Fields::Named(f)) => f.brace_token.span.close(),
            (None, _) => return None,
        },
        Item::Trait(x) => x.brace_token.span.close(),
        Item::TraitAlias(x) => x.semi_token.span,
        Item::Type(x) => x.semi_token.span,
        Item::Union(x) => x.fields.brace_token.span.close(),
        Item::Use(x) => x.semi_token.span,
        _ => return None,
    })
}

/// Whether a function body's text may hold anything the lint judges: a macro call (`name!(`,
/// `name! [`, `name!{`, comments allowed between the tokens), a method or call that writes,
/// logs or records (`write_all`, `.log(`, `.record(`, `print`), or a suppression comment. A
/// body with none of these produces no finding, no statement and no macro call, so its walk is
/// skipped (a cheap byte scan instead of the lint's walk, which binds and judges every local).
pub(crate) fn may_reach_a_sink(text: &str) -> bool {
    let bytes = text.as_bytes();
    if memchr::memchr_iter(b'!', bytes)
        .any(|i| may_end_a_name(&bytes[..i]) && opens_a_group(&bytes[i + 1..]))
    {
        return true;
    }
    has_trigger_word(bytes) || has_attribute(bytes) || has_panic_value(bytes)
}

/// Whether `bytes` may panic with a message that is a value: `panic_any(..)`, or `expect(`
/// (`expect_err(`) followed by anything but a string literal.
fn has_panic_value(bytes: &[u8]) -> bool {
    if memchr::memmem::find(bytes, b"panic_any").is_some() {
        return true;
    }
    memchr::memmem::find_iter(bytes, b"expect").any(|at| {
        // `Result::expect(r, ..)`: the message is the second argument.
        if bytes[..at].ends_with(b"::") {
            return true;
        }
        let rest = &bytes[at + b"expect".len()..];
        let rest = rest.strip_prefix(b"_err").unwrap_or(rest);
        let Some(open) = rest.iter().position(|&b| !is_rust_space(b)) else {
            return false;
        };
        if rest[open] != b'(' {
            return false;
        }
        rest[open + 1..]
            .iter()
            .find(|&&b| !is_rust_space(b))
            .is_some_and(|&b| b != b'"')
    })
}

/// The words of every sink that is not a macro call (a writer, `log::logger().log`, a
/// `Record` built with `.args(..)`, `span.record`), of `#[instrument]`, `macro_rules!` and
/// suppression comments. Case matters to Rust, so both cases are listed where both occur.
const TRIGGER_WORDS: [&str; 13] = [
    "Key",
    "set_attribute",
    "write",
    "log",
    "record",
    "Record",
    "print",
    "stdout",
    "Stdout",
    "stderr",
    "Stderr",
    "phi-lint",
    "instrument",
];

/// Whether `bytes` hold a [`TRIGGER_WORDS`] word or `macro_rules` (searchers built once: each
/// body of a scan is searched).
fn has_trigger_word(bytes: &[u8]) -> bool {
    static FINDERS: std::sync::LazyLock<Vec<memchr::memmem::Finder<'static>>> =
        std::sync::LazyLock::new(|| {
            TRIGGER_WORDS
                .iter()
                .chain(&["macro_rules"])
                .map(|w| memchr::memmem::Finder::new(w.as_bytes()))
                .collect()
        });
    FINDERS.iter().any(|f| f.find(bytes).is_some())
}

/// Whitespace to Rust (`Pattern_White_Space`) that is ASCII: space, tab, line feed, vertical
/// tab, form feed and carriage return.
fn is_rust_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// For the outline's choice of bodies to blank (see `engine::bodies`): `None` if a function
/// body's text may reach a sink other than through macros this scan may yet show to be neutral,
/// else the names of the macros it calls (none for a body [`may_reach_a_sink`] rejects). A macro
/// is neutral when nothing makes it a sink: not by name (`info`, `println`, `assert`, `write`,
/// …), not as a configured wrapper, and not as a macro or `use … as` rename some item of the scan
/// defines; the caller checks the last two once every file is outlined. The lint finds nothing
/// in a body whose only macros are neutral, so leaving it unparsed changes no report.
pub(crate) fn neutral_macros(text: &str) -> Option<Vec<&str>> {
    let bytes = text.as_bytes();
    // Macro calls first: in most bodies that log, a sink's name ends the search early.
    let mut names: Vec<&str> = Vec::new();
    for i in memchr::memchr_iter(b'!', bytes) {
        if !(may_end_a_name(&bytes[..i]) && opens_a_group(&bytes[i + 1..])) {
            continue;
        }
        // The name right before the `!` (spaces allowed); a comment or a line break between
        // them hides it, and then the body counts as one that may log.
        let end = bytes[..i]
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t'))
            .map_or(0, |p| p + 1);
        let start = bytes[..end]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .map_or(0, |p| p + 1);
        let name = &text[start..end];
        let plain = name.bytes().next().is_some_and(|b| !b.is_ascii_digit())
            && bytes.get(start.wrapping_sub(1)).is_none_or(u8::is_ascii);
        // `format_args!` only ever feeds a sink (a writer, a `Record`), whose words may be
        // spelt in ways the scan does not know: it never counts as neutral.
        if !plain
            || crate::grammar::sink_for(name, None).is_some()
            || matches!(
                name,
                "write" | "writeln" | "include" | "macro_rules" | "format_args"
            )
        {
            return None;
        }
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if has_trigger_word(bytes) || has_attribute(bytes) || has_panic_value(bytes) {
        return None;
    }
    // `.expect(&format!(..))` panics with the message it formats.
    if names.contains(&"format") && memchr::memmem::find(bytes, b"expect").is_some() {
        return None;
    }
    Some(names)
}

/// Whether `before` may end with an identifier, past whitespace and comments: a backwards scan
/// cannot tell a comment's text from code, so a line break or a `/` (the end of `*/`) answers
/// yes.
fn may_end_a_name(before: &[u8]) -> bool {
    match before
        .iter()
        .rev()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c'))
    {
        // A non-ASCII byte may be a letter or Unicode whitespace (U+2028, U+200E, ...).
        Some(b'\n' | b'/') => true,
        Some(&b) => b.is_ascii_alphanumeric() || b == b'_' || !b.is_ascii(),
        None => false,
    }
}

/// Whether `after` starts with `(`, `[` or `{`, past whitespace and comments (`info!/* */(..)`
/// is a call as much as `info!(..)`).
fn opens_a_group(after: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&b) = after.get(i) {
        match b {
            b'(' | b'[' | b'{' => return true,
            b if is_rust_space(b) => i += 1,
            // Unicode whitespace (U+2028, U+200E, ...) or not: judged as a call.
            b if !b.is_ascii() => return true,
            b'/' if after.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &after[i..]).map_or(after.len(), |p| i + p);
            }
            b'/' if after.get(i + 1) == Some(&b'*') => {
                i = crate::resolve::outline::block_comment_end(after, i);
            }
            _ => return false,
        }
    }
    false
}

/// Any attribute, `#[…]` or `#![…]`, spaces and comments allowed: a nested item's renamed
/// `#[instrument]` (`use tracing::instrument as trace_fn`) or a `cfg_attr` that carries one.
fn has_attribute(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'#', bytes).any(|i| {
        let rest = &bytes[i + 1..];
        let first = rest.iter().position(|b| !is_rust_space(*b));
        match first.map(|p| (p, rest[p])) {
            // `/`: a comment may come between the tokens, and a non-ASCII byte may be Unicode
            // whitespace: judged as an attribute.
            Some((_, b'[' | b'/')) => true,
            Some((_, b)) if !b.is_ascii() => true,
            Some((p, b'!')) => opens_a_group(&rest[p + 1..]),
            _ => false,
        }
    })
}

/// `+=`, `|=` and the other compound assignments.
fn is_assign_op(op: syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

/// The attributes of an item, for the test-code check.
fn item_attrs(i: &syn::Item) -> Option<&Vec<Attribute>> {
    use syn::Item;
    Some(match i {
        Item::Const(x) => &x.attrs,
        Item::Enum(x) => &x.attrs,
        Item::ExternCrate(x) => &x.attrs,
        Item::Fn(x) => &x.attrs,
        Item::ForeignMod(x) => &x.attrs,
        Item::Impl(x) => &x.attrs,
        Item::Macro(x) => &x.attrs,
        Item::Mod(x) => &x.attrs,
        Item::Static(x) => &x.attrs,
        Item::Struct(x) => &x.attrs,
        Item::Trait(x) => &x.attrs,
        Item::TraitAlias(x) => &x.attrs,
        Item::Type(x) => &x.attrs,
        Item::Union(x) => &x.attrs,
        Item::Use(x) => &x.attrs,
        _ => return None,
    })
}

/// A test attribute (`#[test]`, `#[tokio::test]`, `#[rstest]`, any path whose last segment ends
/// in `test`, or one listed in `test-attributes`), or `#[cfg(test)]` (also inside `all(..)`).
pub(crate) fn is_test_code(attrs: &[Attribute], config: &crate::config::Config) -> bool {
    attrs.iter().any(|a| {
        let Some(segment) = a.path().segments.last() else {
            return false;
        };
        if segment.ident != "cfg" {
            return config.is_test_attribute(&path_text(a.path()));
        }
        match &a.meta {
            Meta::List(list) => list
                .parse_args::<Meta>()
                .is_ok_and(|pred| cfg_is_test(&pred)),
            _ => false,
        }
    })
}

/// A macro path as written, without spaces: `info`, `tracing::info`, `::log::warn`.
pub(crate) fn path_text(p: &syn::Path) -> String {
    let mut s = String::new();
    if p.leading_colon.is_some() {
        s.push_str("::");
    }
    for (i, seg) in p.segments.iter().enumerate() {
        if i > 0 {
            s.push_str("::");
        }
        write!(s, "{}", seg.ident).expect("writing to a `String` cannot fail");
    }
    s
}

/// Start and end positions of syn nodes.
trait SpanEnds {
    fn span_start(&self) -> proc_macro2::LineColumn;
}

impl<T: syn::spanned::Spanned> SpanEnds for T {
    fn span_start(&self) -> proc_macro2::LineColumn {
        self.span().start()
    }
}

trait DelimiterEnd {
    fn delimiter_end(&self) -> proc_macro2::LineColumn;
}

impl DelimiterEnd for syn::Macro {
    fn delimiter_end(&self) -> proc_macro2::LineColumn {
        match &self.delimiter {
            syn::MacroDelimiter::Paren(d) => d.span.close().end(),
            syn::MacroDelimiter::Brace(d) => d.span.close().end(),
            syn::MacroDelimiter::Bracket(d) => d.span.close().end(),
        }
    }
}

/// The `format!(..)` an `expect` message is (`&format!(..)`, `format!(..).as_str()`,
/// `&*format!(..)`), if it is one.
fn formatted_message(arg: &Expr) -> Option<&syn::Macro> {
    match arg {
        Expr::Reference(r) => formatted_message(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => formatted_message(&u.expr),
        Expr::Paren(p) => formatted_message(&p.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && ["as_str", "as_ref", "borrow", "deref"]
                    .iter()
                    .any(|n| m.method == n) =>
        {
            formatted_message(&m.receiver)
        }
        Expr::Macro(m) if crate::grammar::macro_named(&m.mac, &["format"]) => Some(&m.mac),
        _ => None,
    }
}

/// `KeyValue::new` (`opentelemetry::KeyValue::new`).
/// Whether the body whose `{` is at byte `open` of `text` is a function named `main`'s: a
/// program's `main` that returns a `Result` prints the error it returns, so its body is never
/// skipped as quiet, whatever it calls (`.context(p.email.clone())?` holds no sink's word).
pub(crate) fn is_main_body(text: &str, open: usize) -> bool {
    let Some(before) = text.get(..open) else {
        return false;
    };
    let mut from = open.saturating_sub(512);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let window = &before[from..];
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    // The last `fn` keyword before the body is its signature's (`-> Result<(), [u8; 4]>` and a
    // path through `my_domain` are part of it).
    let Some(kw) = memchr::memmem::rfind_iter(window.as_bytes(), b"fn").find(|&at| {
        !window[..at].ends_with(ident) && window[at + 2..].starts_with(|c: char| c.is_whitespace())
    }) else {
        return false;
    };
    let after = window[kw + 2..].trim_start();
    after.strip_prefix("main").is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_whitespace() || c == '(')
            && !window[kw..].contains(['{', '}'])
    })
}

/// Whether `text` renames OpenTelemetry's `Key` or `KeyValue` (`use opentelemetry::KeyValue
/// as Kv;`): a body that builds one under the new name holds none of the words a sink is known
/// by, so no body of such a file may be skipped as quiet.
pub(crate) fn renames_otel_key(text: &str) -> bool {
    memchr::memmem::find_iter(text.as_bytes(), b"Key").any(|at| {
        let rest = &text.as_bytes()[at + 3..];
        let rest = rest.strip_prefix(b"Value").unwrap_or(rest);
        let trimmed = rest.trim_ascii_start();
        // `use opentelemetry::KeyValue as Kv;`
        let renamed = trimmed.len() < rest.len()
            && trimmed
                .strip_prefix(b"as")
                .is_some_and(|r| r.first().is_some_and(|&b| is_rust_space(b)));
        // `type Kv = opentelemetry::KeyValue;`: the path before it follows an `=`.
        let aliased = trimmed.first() == Some(&b';')
            && text.as_bytes()[..at].iter().rev().find(|&&b| {
                !(b.is_ascii_alphanumeric() || b == b'_' || b == b':' || is_rust_space(b))
            }) == Some(&b'=');
        renamed || aliased
    })
}

#[cfg(test)]
mod tests {
    use super::{item_attrs, last_token, may_reach_a_sink, skipped_lines};
    use syn::spanned::Spanned;

    #[test]
    fn main_bodies_are_found_by_their_signature() {
        use super::is_main_body;
        for text in [
            "fn main() {",
            "fn main() -> anyhow::Result<()> {",
            "#[tokio::main]\nasync fn main() -> Result<(), Box<dyn Error>> {",
            "pub fn  main ( ) {",
            "fn main() -> Result<(), my_domain::Error>\n{",
            "fn main() -> Result<(), [u8; 4]> // main: fails; see docs\n{",
        ] {
            assert!(is_main_body(text, text.len() - 1), "{text}");
        }
        for text in [
            "fn domain() {",
            "fn main_loop() {",
            "fn main() {}\nfn other() {",
            "fn main();\nfn f() {",
            "let main = 1; {",
            "fn main() {}\nfn domain() {",
        ] {
            assert!(!is_main_body(text, text.len() - 1), "{text}");
        }
    }

    #[test]
    fn skipped_lines_are_the_items_span() {
        let text = "/// doc\n#[cfg(test)]\nmod tests {\n    fn f() {}\n}\n\
            #[cfg(test)]\nmod out_of_line;\n\
            #[cfg(test)] pub(crate)\nfn g(\n) {\n}\n\
            #[cfg(test)]\nstruct Unit;\n#[cfg(test)]\nstruct Tuple(\nu8,\n);\n\
            #[cfg(test)]\nstruct Named {\n a: u8,\n}\n\
            #[cfg(test)]\nimpl A {\n}\n#[cfg(test)]\nenum E {\nX,\n}\n\
            #[cfg(test)]\nconst C: u8 =\n1;\n#[cfg(test)]\nuse a::{\nb};\n\
            #[cfg(test)]\nm! {\n}\n#[cfg(test)]\nm!(\n);\n\
            #[cfg(test)]\ntrait T {\n}\n#[cfg(test)]\ntype A =\nB;\n\
            mod inner_only {\n#![cfg(test)]\n}\n";
        let file = syn::parse_file(text).unwrap();
        assert_eq!(file.items.len(), 15);
        for item in &file.items {
            let span = item.span();
            let attrs = item_attrs(item).unwrap();
            assert_eq!(
                skipped_lines(attrs, last_token(item), || item.span()),
                (span.start().line as u32, span.end().line as u32),
                "item at line {}",
                span.start().line
            );
        }
    }

    #[test]
    fn neutral_macros_are_named_and_others_refused() {
        use super::neutral_macros;
        assert_eq!(neutral_macros("{ let n = a.len(); n + 1 }"), Some(vec![]));
        assert_eq!(
            neutral_macros("{ let v = vec![1]; bail!(\"x {}\", format!(\"{v:?}\")); m ! {} }"),
            Some(vec!["vec", "bail", "format", "m"])
        );
        for loud in [
            "{ info!(\"x\") }",
            "{ tracing::warn!(a = 1) }",
            "{ assert!(ok, \"{}\", p.name) }",
            "{ println!(\"{}\", p) }",
            "{ write!(w, \"{}\", p) }",
            "{ include!(\"gen.rs\") }",
            "{ let x = format!(\"{}\", p); span.record(\"k\", x) }",
            "{ #[traced] fn inner() {} }",
            "{ // phi-lint: allow(reason = \"x\")\n }",
            "{ m/* hides the name */!(x) }",
            "{ m\n!(x) }",
            "{ let r = Record::builder().args(format_args!(\"{}\", p.name)).build(); }",
            "{ let r = Record::builder().args(args).build(); }",
            "{ let a = format_args!(\"{}\", p.name); }",
            "{ m\u{2028}!(x) }",
        ] {
            assert_eq!(neutral_macros(loud), None, "{loud}");
        }
    }

    #[test]
    fn bodies_without_sinks_are_told_apart() {
        for quiet in [
            "{ let n = a.len(); n + 1 }",
            "{ if x != y && !done { return; } }",
            "{ match v { Some(x) => x, None => 0 } }",
        ] {
            assert!(!may_reach_a_sink(quiet), "{quiet}");
        }
        for body in [
            "{ info!(\"x\") }",
            "{ tracing :: warn ! (user = %u) }",
            "{ let v = vec! [1]; }",
            "{ m!{ a } }",
            "{ stderr().write_all(b\"x\") }",
            "{ logger().log(&r) }",
            "{ span.record(\"k\", v) }",
            "{ // phi-lint: allow(reason = \"x\")\n }",
            "{ #[instrument] fn inner() {} }",
            "{ #[trace_fn] fn inner(p: &Patient) {} }",
            "{ #[cfg_attr(feature = \"t\", traced)] fn inner() {} }",
            "{ # [trace_fn] fn inner() {} }",
            "{ info!/* a comment */(name = %p.name) }",
            "{ info! // a comment\n (name = %p.name) }",
            "{ info /* a comment */ !(name = %p.name) }",
            "{ info // a comment\n !(name = %p.name) }",
            "{ m!/* a /* nested */ comment */[p] }",
            "{ #/* a comment */[trace_fn] fn inner() {} }",
            "{ info!\x0c(name = %p.name) }",
            "{ info\x0c!(name = %p.name) }",
            "{ info!\x0b(name = %p.name) }",
            "{ info\x0b!(name = %p.name) }",
            "{ info!\u{2028}(name = %p.name) }",
            "{ info\u{200e}!(name = %p.name) }",
            "{ #\x0c[trace_fn] fn inner() {} }",
            "{ #\u{2028}[trace_fn] fn inner() {} }",
            "{ let r = Record::builder().args(args).build(); }",
        ] {
            assert!(may_reach_a_sink(body), "{body}");
        }
    }
}
