//! Writers to stdout and stderr other than `print!`: `write!`/`writeln!` and the `Write`
//! methods (`write_all`, `write`, `write_fmt`) on `stdout()`, `stderr()`, their `lock()`s and the
//! locals and parameters bound to them; `Write::write_fmt(&mut stderr(), ..)`; and a
//! `log::Record` built with `.args(format_args!(..))`, which only exists to be logged.

use proc_macro2::{LineColumn, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, FnArg, Pat};

use super::Linter;
use super::tokens::MAX_TOKEN_DEPTH;
use crate::grammar::{Interp, Sink, Value};

/// `write_fmt`'s and the format macros' grammar.
const FORMAT: Sink = Sink::Format {
    skip: 0,
    printed: 0,
};

/// A `log::Record`'s message: a log event's grammar, so its findings are `phi::interpolation`.
const RECORD: Sink = Sink::Event { level_arg: false };

/// Identifiers that name a standard stream or its lock type.
fn is_stream_ident(id: &proc_macro2::Ident) -> bool {
    [
        "stdout",
        "stderr",
        "Stdout",
        "Stderr",
        "StdoutLock",
        "StderrLock",
    ]
    .iter()
    .any(|s| id == s)
}

/// Whether `tokens` name stdout or stderr, or one of `locals` bound to them (for types, and for
/// a `write!` destination that is not an expression).
fn mentions_stream(tokens: TokenStream, locals: &[String]) -> bool {
    let mut stack = vec![(tokens, 0usize)];
    while let Some((ts, depth)) = stack.pop() {
        if depth > MAX_TOKEN_DEPTH {
            continue;
        }
        for tt in ts {
            match tt {
                TokenTree::Ident(id) => {
                    if is_stream_ident(&id) || locals.iter().any(|l| id == l) {
                        return true;
                    }
                }
                TokenTree::Group(g) => stack.push((g.stream(), depth + 1)),
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
        }
    }
    false
}

/// Whether the first argument of a `write!` (its destination) is stdout or stderr.
pub(super) fn writes_to_std_stream(tokens: &TokenStream, locals: &[String]) -> bool {
    writes_to(tokens, locals, |e| is_stream(e, locals))
}

/// Whether the destination of a `write!` (its first argument) is a stream by `is`, or, if it is
/// no expression, names one.
fn writes_to(tokens: &TokenStream, locals: &[String], is: impl Fn(&Expr) -> bool) -> bool {
    let dest: TokenStream = tokens
        .clone()
        .into_iter()
        .take_while(|tt| !matches!(tt, TokenTree::Punct(p) if p.as_char() == ','))
        .collect();
    match syn::parse2::<Expr>(dest.clone()) {
        Ok(e) => is(&e),
        Err(_) => mentions_stream(dest, locals),
    }
}

/// Whether a type the index resolved is a stream, or holds one (`Stderr`,
/// `BufWriter<Stdout>`, `Mutex<StderrLock<'static>>`).
fn ty_is_stream(ty: &crate::types::Ty, depth: usize) -> bool {
    const MAX_TYPE_DEPTH: usize = 8;
    match ty {
        crate::types::Ty::Named(n, args) => {
            ["Stdout", "Stderr", "StdoutLock", "StderrLock"].contains(&n.as_str())
                || (depth < MAX_TYPE_DEPTH && args.iter().any(|a| ty_is_stream(a, depth + 1)))
        }
        _ => false,
    }
}

/// The writer under `&`, `&mut`, `*`, parentheses and `.lock()`, `.unwrap()`, `.expect(..)`,
/// `.by_ref()`, `.as_mut()`, `.borrow_mut()` and a lock's `.write()`.
fn writer_of(mut e: &Expr) -> &Expr {
    loop {
        e = match e {
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
            Expr::MethodCall(m)
                if ["lock", "unwrap", "expect", "by_ref", "as_mut", "borrow_mut"]
                    .iter()
                    .any(|n| m.method == n)
                    || (m.method == "write" && m.args.is_empty()) =>
            {
                &m.receiver
            }
            _ => return e,
        };
    }
}

/// Whether an expression is stdout or stderr: `stdout()`, `io::stderr()`, `tokio::io::stdout()`,
/// their `.lock()`, a `BufWriter`/`LineWriter`/`Box` around one, a local or parameter bound to
/// one, or anything named `stdout`/`stderr` (`self.stdout`, a binding `Stdout(stdout)`). A
/// builder's `.stdout(Stdio::piped())` or a child's `child.stdout.take()` is not.
pub(super) fn is_stream(mut e: &Expr, locals: &[String]) -> bool {
    let named = |id: &proc_macro2::Ident| id == "stdout" || id == "stderr";
    loop {
        e = match e {
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::Try(t) => &t.expr,
            Expr::Await(a) => &a.base,
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
            Expr::MethodCall(m) => {
                if ["lock", "unwrap", "expect", "by_ref", "as_mut", "borrow_mut"]
                    .iter()
                    .any(|n| m.method == n)
                {
                    &m.receiver
                } else {
                    return m.args.is_empty() && named(&m.method);
                }
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return false;
                };
                let mut segs = p.path.segments.iter().rev();
                let (Some(last), ty) = (segs.next(), segs.next()) else {
                    return false;
                };
                if c.args.is_empty() && named(&last.ident) {
                    return true;
                }
                let wraps = ty.is_some_and(|t| {
                    t.ident == "BufWriter" || t.ident == "LineWriter" || t.ident == "Box"
                });
                if c.args.len() == 1 && last.ident == "new" && wraps {
                    &c.args[0]
                } else if c.args.len() == 2 && last.ident == "with_capacity" && wraps {
                    // `BufWriter::with_capacity(1024, io::stdout())`
                    &c.args[1]
                } else {
                    return false;
                }
            }
            // `if to_err { &mut io::stderr() } else { &mut io::stdout() }`, a `match` choosing
            // the writer, a block ending in one: a stream if any branch is.
            Expr::If(i) => {
                let then = i.then_branch.stmts.last();
                return matches!(then, Some(syn::Stmt::Expr(t, None)) if is_stream(t, locals))
                    || i.else_branch
                        .as_ref()
                        .is_some_and(|(_, e)| is_stream(e, locals));
            }
            Expr::Match(m) => return m.arms.iter().any(|a| is_stream(&a.body, locals)),
            Expr::Block(b) => match b.block.stmts.last() {
                Some(syn::Stmt::Expr(t, None)) => t,
                _ => return false,
            },
            Expr::Path(p) => {
                return p
                    .path
                    .get_ident()
                    .is_some_and(|id| named(id) || locals.iter().any(|l| id == l));
            }
            Expr::Field(f) => {
                return matches!(&f.member, syn::Member::Named(id) if named(id));
            }
            _ => return false,
        };
    }
}

impl Linter<'_> {
    /// Whether `e` is stdout or stderr ([`is_stream`]), or a field whose declared type is one
    /// (`self.err.write_all(..)` with `err: io::Stderr`).
    pub(super) fn is_std_stream(&self, e: &Expr) -> bool {
        if is_stream(e, &self.std_streams) {
            return true;
        }
        let field = writer_of(e);
        let types = &self.classifier.types;
        matches!(field, Expr::Field(_))
            && ty_is_stream(
                &types.resolve(&crate::types::ty_of(field, &self.scope, types)),
                0,
            )
    }

    /// Whether a `write!`'s destination is stdout or stderr, by [`is_std_stream`](Self::is_std_stream).
    pub(super) fn writes_to_std_stream(&self, tokens: &TokenStream) -> bool {
        writes_to(tokens, &self.std_streams, |e| self.is_std_stream(e))
    }

    /// `let mut w = stderr();`, `let out = io::stdout().lock();`: `w` and `out` are streams
    /// from here on; a `let` that rebinds a stream's name to something else ends that.
    pub(super) fn note_local(&mut self, l: &syn::Local) {
        let (pat, ty) = match &l.pat {
            Pat::Type(t) => (&*t.pat, Some(&t.ty)),
            other => (other, None),
        };
        let Pat::Ident(pi) = pat else { return };
        let name = pi.ident.to_string();
        let stream = ty.is_some_and(|t| type_is_stream(t, 0))
            || l.init.as_ref().is_some_and(|i| self.is_std_stream(&i.expr));
        self.std_streams.retain(|s| *s != name);
        if stream {
            self.std_streams.push(name);
        }
    }

    /// `stream.write_all(..)`, `.write(..)`, `.write_fmt(..)` and `Record::builder().args(..)`.
    /// Returns whether the call was a sink (its receiver and arguments are then visited).
    pub(super) fn writer_method(&mut self, m: &syn::ExprMethodCall) -> bool {
        if m.args.len() != 1 {
            return false;
        }
        // Only for a sink: a receiver's span is a walk of all its tokens, and every one-argument
        // method call comes here.
        let span = || (m.receiver.span().start(), m.paren_token.span.close().end());
        if is_write_method(&m.method) && self.is_std_stream(&m.receiver) {
            self.written(&m.method.to_string(), &m.args[0], span());
        } else if m.method == "args" && builds_record(&m.receiver) {
            self.written_to(RECORD, "log::Record::args", &m.args[0], span());
        } else {
            return false;
        }
        self.visit_expr(&m.receiver);
        true
    }

    /// `Write::write_fmt(&mut stderr(), format_args!(..))` and `write_all` alike.
    pub(super) fn writer_fn(&mut self, c: &syn::ExprCall) -> bool {
        let Expr::Path(p) = &*c.func else {
            return false;
        };
        let Some(last) = p.path.segments.last() else {
            return false;
        };
        if c.args.len() != 2 || !is_write_method(&last.ident) || !self.is_std_stream(&c.args[0]) {
            return false;
        }
        let span = (c.func.span().start(), c.paren_token.span.close().end());
        self.written(&last.ident.to_string(), &c.args[1], span);
        self.visit_expr(&c.args[0]);
        true
    }

    /// What a writer call writes: format macros are checked argument by argument, a byte or
    /// string literal is safe, any other buffer is judged as a value.
    fn written(&mut self, path: &str, arg: &Expr, span: (LineColumn, LineColumn)) {
        self.written_to(FORMAT, path, arg, span);
    }

    fn written_to(&mut self, sink: Sink, path: &str, arg: &Expr, span: (LineColumn, LineColumn)) {
        let inner = bytes_of(arg);
        if let Expr::Macro(mac) = inner
            && crate::grammar::macro_named(&mac.mac, &["format", "format_args"])
        {
            self.sink_call(path, sink, mac.mac.tokens.clone(), span);
            return;
        }
        self.statements += 1;
        let stmt = self.statement(span);
        if !matches!(inner, Expr::Lit(_)) {
            let interp = Interp {
                field: "{fmt}".into(),
                value: Value::Expr(Box::new(inner.clone())),
                err_capture: false,
            };
            self.check_interp(path, sink, &interp, stmt);
        }
        self.visit_expr(arg);
    }
}

/// Parameters typed as a stream (`out: &mut StdoutLock<'_>`).
pub(super) fn stream_params(sig: &syn::Signature) -> Vec<String> {
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(pi) if type_is_stream(&pt.ty, 0) => Some(pi.ident.to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect()
}

/// The parameters of `sig` that a call in the same file hands a standard stream
/// (`emit(&mut io::stderr(), p)` makes `w` of `fn emit<W: Write>(w: &mut W, ..)` a stream).
pub(super) fn handed_streams(sig: &syn::Signature, streamed: &[(String, usize)]) -> Vec<String> {
    if streamed.is_empty() {
        return Vec::new();
    }
    streamed
        .iter()
        .filter(|(name, _)| sig.ident == name)
        .filter_map(|&(_, i)| match sig.inputs.iter().nth(i)? {
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(pi) => Some(pi.ident.to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect()
}

/// Every call in `file` that hands a function a standard stream, as the function's name and
/// the argument's index among its parameters (`self` counted for a method call): a stream
/// written as a call (`io::stderr()`, `stdout().lock()`), or a local or parameter bound to one
/// in the calling function. A helper that writes to a writer it is given prints when it is
/// given stdout or stderr; its body is linted with that parameter as a stream (by name, so a
/// function of the same name elsewhere in the file is too).
pub(super) fn streamed_params(file: &syn::File) -> Vec<(String, usize)> {
    #[derive(Default)]
    struct Calls {
        locals: Vec<String>,
        out: Vec<(String, usize)>,
    }
    impl Calls {
        fn function(&mut self, sig: &syn::Signature, walk: impl FnOnce(&mut Self)) {
            let outer = std::mem::replace(&mut self.locals, stream_params(sig));
            walk(self);
            self.locals = outer;
        }
        fn note(&mut self, name: String, i: usize) {
            if !self.out.iter().any(|(n, k)| *n == name && *k == i) {
                self.out.push((name, i));
            }
        }
    }
    impl<'ast> Visit<'ast> for Calls {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.function(&f.sig, |this| syn::visit::visit_item_fn(this, f));
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.function(&f.sig, |this| syn::visit::visit_impl_item_fn(this, f));
        }
        fn visit_local(&mut self, l: &'ast syn::Local) {
            syn::visit::visit_local(self, l);
            let pat = match &l.pat {
                Pat::Type(t) => &*t.pat,
                other => other,
            };
            if let (Pat::Ident(pi), Some(init)) = (pat, &l.init)
                && is_stream(&init.expr, &self.locals)
            {
                self.locals.push(pi.ident.to_string());
            }
        }
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            syn::visit::visit_expr_call(self, c);
            if let Expr::Path(p) = &*c.func
                && let Some(last) = p.path.segments.last()
            {
                for (i, a) in c.args.iter().enumerate() {
                    if is_stream(a, &self.locals) {
                        self.note(last.ident.to_string(), i);
                    }
                }
            }
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            syn::visit::visit_expr_method_call(self, m);
            for (i, a) in m.args.iter().enumerate() {
                if is_stream(a, &self.locals) {
                    self.note(m.method.to_string(), i + 1);
                }
            }
        }
    }
    let mut calls = Calls::default();
    calls.visit_file(file);
    calls.out
}

fn is_write_method(id: &proc_macro2::Ident) -> bool {
    id == "write_all" || id == "write" || id == "write_fmt"
}

/// Whether a type names a stream (`Stdout`, `&mut StderrLock<'_>`, `BufWriter<Stdout>`).
fn type_is_stream(ty: &syn::Type, depth: usize) -> bool {
    const MAX_TYPE_DEPTH: usize = 8;
    if depth > MAX_TYPE_DEPTH {
        return false;
    }
    match ty {
        syn::Type::Reference(r) => type_is_stream(&r.elem, depth + 1),
        syn::Type::Paren(p) => type_is_stream(&p.elem, depth + 1),
        syn::Type::Group(g) => type_is_stream(&g.elem, depth + 1),
        syn::Type::Path(p) => p.path.segments.iter().any(|s| {
            is_stream_ident(&s.ident)
                || matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                    if a.args.iter().any(|g| matches!(g,
                        syn::GenericArgument::Type(t) if type_is_stream(t, depth + 1))))
        }),
        _ => false,
    }
}

/// The buffer under `&`, `.as_bytes()`, `.as_ref()`, `.as_slice()` and `.as_str()`.
fn bytes_of(mut e: &Expr) -> &Expr {
    loop {
        e = match e {
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && ["as_bytes", "as_ref", "as_slice", "as_str"]
                        .iter()
                        .any(|n| m.method == n) =>
            {
                &m.receiver
            }
            _ => return e,
        };
    }
}

/// Whether a method chain starts at `Record::builder()` or `RecordBuilder::new()`.
fn builds_record(mut e: &Expr) -> bool {
    loop {
        e = match e {
            Expr::MethodCall(m) => &m.receiver,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return false;
                };
                return p
                    .path
                    .segments
                    .iter()
                    .any(|s| s.ident == "Record" || s.ident == "RecordBuilder");
            }
            _ => return false,
        };
    }
}
