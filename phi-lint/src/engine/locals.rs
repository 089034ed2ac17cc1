//! The locals the classifier sees: parameters, `let`s, closure parameters, `for`, `if let` and
//! `match` bindings, each with the type the index gives it and the origin of its value, kept
//! in a [`Scope`] as the visitor walks a function.

use syn::visit::{self, Visit};
use syn::{Expr, FnArg, Pat};

use super::Linter;
use crate::classify::{Origin, Why};
use crate::types::{Binding, Fact, Ty, element, ty_of};

/// Methods whose receiver's elements are what they iterate (`accounts.iter()`).
const ITERATORS: &[&str] = &["iter", "into_iter", "iter_mut", "drain", "values", "keys"];

/// Methods whose closure argument receives the receiver's elements (or the option's value).
const ELEMENT_CLOSURES: &[&str] = &[
    "map",
    "for_each",
    "filter",
    "filter_map",
    "flat_map",
    "inspect",
    "any",
    "all",
    "find",
    "find_map",
    "position",
    "take_while",
    "skip_while",
    "and_then",
    "map_or",
    "map_or_else",
    "is_some_and",
    "unwrap_or_else",
    "then",
    "try_for_each",
    "fold",
];

/// How many closures bound to locals may be in scope at once with their trees kept (about
/// 1.7 KB each for a one-line closure that logs). A call of one bound past this many is not
/// followed into its body: an argument that is a leak is a finding at the call instead.
const MAX_KEPT_CLOSURES: usize = 1024;

/// How many bytes of closure bodies the calls in one chunk of a file may replay (see
/// `closure_call`). Each call of a closure passed a leak walks its body again, so a large
/// closure called on every line costs the product of the two; past this, a call is not followed
/// into the body, and a leak it is passed is a finding at the call instead.
const REPLAY_BYTES: usize = 4 << 20;

/// A closure bound to a local, and where its binding is in the scope; its tree, unless more
/// than [`MAX_KEPT_CLOSURES`] were in scope when it was bound.
pub(super) struct LocalClosure {
    name: String,
    at: usize,
    /// Shared, not copied, by each call that replays it.
    closure: Option<std::rc::Rc<syn::ExprClosure>>,
    /// The bytes of its source, what a replay of it costs.
    bytes: usize,
}

/// Where a closure's parameters come from: the closure (by address) and what its first
/// parameter is bound to.
pub(super) struct ClosureSource {
    closure: usize,
    origin: Origin,
    ty: Ty,
}

/// A function body cut into runs, parsed one at a time (see `outline::BodyRun`): the run being
/// walked.
pub(super) struct SplitBody<'a> {
    /// Where the body's `{` is in the run's text: which function is the one cut.
    pub(super) open: proc_macro2::LineColumn,
    /// Whether this is the first run, where the function's attributes are judged.
    pub(super) first: bool,
    /// Whether this is the last run, which hands nothing on.
    pub(super) last: bool,
    /// The `use` renames the body declares in any of its runs: in scope in all of them.
    pub(super) renames: &'a [(String, String)],
}

/// What one run of a body cut into runs hands the next, as if the body were one: the locals
/// bound so far (with their origins), the closures bound to them, and the locals bound to
/// stdout or stderr.
pub(super) struct Carry {
    bindings: Vec<Binding>,
    closures: Vec<LocalClosure>,
    std_streams: Vec<String>,
    /// The closures' spans are read in later runs: their run's parse must not be forgotten
    /// until the run that takes them over ends.
    hold: Option<super::spans::Hold>,
}

impl Linter<'_> {
    /// Whether `b` is the body of the function this chunk is a run of.
    pub(super) fn is_split_body(&self, b: &syn::Block) -> bool {
        self.expansion.is_none()
            && self.replaying == 0
            && self
                .split
                .as_ref()
                .is_some_and(|s| b.brace_token.span.open().start() == s.open)
    }

    /// Enters a function: a new frame with its parameters.
    pub(super) fn enter_fn(&mut self, sig: &syn::Signature) {
        let self_ty = self.self_ty.clone();
        self.scope.enter_fn(self_ty.clone());
        let mut bounded = trait_bounded(&sig.generics);
        bounded.extend(self.impl_bounds.iter().cloned());
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(_) => self.scope.push(Binding {
                    name: "self".into(),
                    ty: self_ty.as_deref().map_or(Ty::Unknown, Ty::named),
                    origin: Origin::Unknown,
                }),
                FnArg::Typed(t) => {
                    let mut ty = Ty::from_syn(&t.ty, self_ty.as_deref());
                    // `s: &S` with `S: Session`: the trait's methods type its calls.
                    if let Ty::Named(n, args) = &ty
                        && args.is_empty()
                        && let Some((_, tr)) = bounded.iter().find(|(g, _)| g == n.as_str())
                    {
                        ty = tr.clone();
                    }
                    self.bind_pat(&t.pat, &Origin::Unknown, ty);
                }
            }
        }
    }

    pub(super) fn exit_fn(&mut self) {
        self.scope.exit_fn();
        let len = self.scope.mark();
        self.local_closures.retain(|c| c.at < len);
    }

    /// Ends the locals bound from `mark` on, and the closures bound to them: a later local
    /// bound at the same place in the scope is not the closure.
    fn end_scope(&mut self, mark: usize) {
        self.scope.truncate(mark);
        // Closures are bound in scope order, and each scope ends them here: the list is sorted
        // by place, and the ones ending are at its end.
        while self.local_closures.last().is_some_and(|c| c.at >= mark) {
            self.local_closures.pop();
        }
    }

    /// `let pat = init;` after `init` was visited: binds the pattern to the initializer.
    pub(super) fn bind_local(&mut self, l: &syn::Local) {
        let (origin, ty) = match &l.init {
            Some(init) => self.judge(&init.expr),
            None => (Origin::Unknown, Ty::Unknown),
        };
        self.bind_pat(&l.pat, &origin, ty);
        // `let log = |user_id| info!(..)`: kept, so its calls can bind the parameters.
        if let (Pat::Ident(id), Some(init)) = (&l.pat, &l.init)
            && let Expr::Closure(c) = crate::classify::peel(&init.expr)
        {
            let keep = self.local_closures.len() < MAX_KEPT_CLOSURES;
            let span = syn::spanned::Spanned::span(c);
            let bytes = self
                .source
                .offset(span.end())
                .saturating_sub(self.source.offset(span.start()));
            self.local_closures.push(LocalClosure {
                name: id.ident.to_string(),
                at: self.scope.mark() - 1,
                closure: keep.then(|| std::rc::Rc::new(c.clone())),
                bytes,
            });
        }
    }

    /// `log(&patient.name)` where `log` is a local closure: its body is judged again with its
    /// parameters bound to the arguments, when an argument is a leak (findings at the same
    /// place are reported once).
    pub(super) fn closure_call(&mut self, call: &syn::ExprCall) {
        let Expr::Path(p) = &*call.func else { return };
        if p.path.segments.len() != 1 || self.replaying > 1 {
            return;
        }
        let name = p.path.segments[0].ident.to_string();
        let Some(at) = self.scope.lookup_index(&name) else {
            return;
        };
        let Some(i) = self
            .local_closures
            .iter()
            .rposition(|c| c.name == name && c.at == at)
        else {
            return;
        };
        let args: Vec<(Origin, Ty)> = call.args.iter().map(|a| self.judge(a)).collect();
        if !args.iter().any(|(o, _)| matches!(o, Origin::Tainted(_))) {
            return;
        }
        let Some(closure) = self.local_closures[i].closure.clone() else {
            let why =
                format!("more than {MAX_KEPT_CLOSURES} closures are in scope in this function");
            self.unfollowed_closure(call, (&name, &why), &args);
            return;
        };
        let cost = self.local_closures[i].bytes.max(1);
        if self.replayed.saturating_add(cost) > REPLAY_BYTES {
            let why = format!(
                "replaying its {} KiB would bring the closure bodies replayed here to {} KiB, more than {} KiB",
                cost >> 10,
                self.replayed.saturating_add(cost) >> 10,
                REPLAY_BYTES >> 10
            );
            self.unfollowed_closure(call, (&name, &why), &args);
            return;
        }
        self.replayed += cost;
        let mark = self.scope.mark();
        for (p, (origin, ty)) in closure.inputs.iter().zip(args) {
            self.bind_pat(p, &origin, ty);
        }
        let statements = self.statements;
        self.replaying += 1;
        self.visit_expr(&closure.body);
        self.replaying -= 1;
        self.statements = statements;
        self.end_scope(mark);
    }

    /// `log(&patient.name)` where `log` is a closure whose tree was not kept (see
    /// [`MAX_KEPT_CLOSURES`]), or whose replay would pass [`REPLAY_BYTES`]: each argument that
    /// is a leak is a finding at the call, as if the closure logged it. The gate fails closed
    /// rather than miss a leak through the closure.
    fn unfollowed_closure(
        &mut self,
        call: &syn::ExprCall,
        (name, why_not): (&str, &str),
        args: &[(Origin, Ty)],
    ) {
        use syn::spanned::Spanned;
        let stmt = self.statement((
            call.func.span().start(),
            call.paren_token.span.close().end(),
        ));
        for (arg, (origin, _)) in call.args.iter().zip(args) {
            let Origin::Tainted(why) = origin else {
                continue;
            };
            let span = arg.span();
            let (start, end) = (span.start(), span.end());
            let culprit = self
                .text(start, end)
                .map_or_else(|| crate::grammar::tokens_text(arg), ToOwned::to_owned);
            let message = format!(
                "{}; it is passed to `{name}`, a closure phi-lint does not follow into ({why_not})",
                why.message(&culprit)
            );
            let tokens = crate::grammar::tokens_text(arg);
            self.push(
                crate::rules::Rule::Interpolation,
                (start, end),
                name,
                "",
                culprit,
                tokens,
                message,
                stmt,
            );
        }
    }

    /// The origin of one element of a collection whose own origin is `origin`. A collection
    /// under an id or count name is refuted by being a collection (`ids: Vec<Uuid>`), which says
    /// nothing of one element: the element is judged under the collection's name by its own
    /// type (`Uuid` proves an id; `String` under `ids` is free text), and where that passes it is
    /// judged by its own name and type. Any other taint of the collection is the element's.
    fn element_origin(&self, origin: Origin, elem: &Ty) -> Origin {
        let Origin::Tainted(why) = &origin else {
            return origin;
        };
        // An element of a collection in no safe class, of a type that says more (a fieldless
        // enum, a number, an id), is judged by that type and the name it is bound to.
        if why.is_no_class() {
            return match self.classifier.fact_ty(elem) {
                Fact::Integer | Fact::Float | Fact::Bool | Fact::FieldlessEnum(_) => {
                    Origin::Unknown
                }
                f if f.proves_class() => Origin::Unknown,
                _ => origin,
            };
        }
        let Why::Refuted { name, what, .. } = &**why else {
            return origin;
        };
        let fact = self.classifier.fact_ty(elem);
        // An element of a type the index does not know says nothing either.
        if *what != crate::classify::COLLECTION || fact == crate::types::Fact::Unknown {
            return origin;
        }
        match self.classifier.decide(name, fact, None) {
            Ok(()) => Origin::Unknown,
            Err(why) => Origin::Tainted(Box::new(why)),
        }
    }

    /// The origin and type of a value a pattern is bound to.
    fn judge(&self, e: &Expr) -> (Origin, Ty) {
        (
            self.classifier.origin(e, &self.scope),
            ty_of(e, &self.scope, &self.classifier.types),
        )
    }

    /// Binds every name a pattern introduces; `ty` is the type of the whole value.
    fn bind_pat(&mut self, pat: &Pat, origin: &Origin, ty: Ty) {
        let types = self.classifier.types;
        // A part of a value tainted only by its name being in no safe class (`(cmd, count)` of
        // `favorites`, `Msg::Deleted(attribute_name)` of `msg`) is named by the pattern.
        let part_origin = match origin {
            Origin::Tainted(why) if why.is_no_class() => &Origin::Unknown,
            other => other,
        };
        match pat {
            Pat::Ident(id) => {
                let mut origin = origin.clone();
                if let Some((_, sub)) = &id.subpat {
                    self.bind_pat(sub, &origin, ty.clone());
                    // `refusal @ Error::Unsupported`, `c @ b'a'`: the value is that constant. Not
                    // for `ref` or `mut` bindings, which can be changed after the match.
                    if id.by_ref.is_none() && id.mutability.is_none() && is_constant_pat(sub) {
                        origin = Origin::Safe;
                    }
                }
                self.scope.push(Binding {
                    name: crate::ident::with_str(&id.ident, |s| compact_str::CompactString::new(s)),
                    ty,
                    origin,
                });
            }
            Pat::Type(t) => {
                let declared = Ty::from_syn(&t.ty, self.scope.self_ty());
                // A declared number, bool or fieldless enum passes under a name of a safe class,
                // whatever the name of the value it came from (`let row_id: i64 = row.uid`).
                let origin = match self.classifier.fact_ty(&declared) {
                    Fact::Integer | Fact::Float | Fact::Bool | Fact::FieldlessEnum(_) => {
                        part_origin
                    }
                    f if f.proves_class() => part_origin,
                    _ => origin,
                };
                self.bind_pat(&t.pat, origin, declared);
            }
            Pat::Reference(r) => self.bind_pat(&r.pat, origin, ty),
            Pat::Paren(p) => self.bind_pat(&p.pat, origin, ty),
            Pat::Tuple(t) => {
                let origin = part_origin;
                for (i, p) in t.elems.iter().enumerate() {
                    let elem = match &ty {
                        Ty::Tuple(elems) => elems.get(i).cloned().unwrap_or_default(),
                        _ => Ty::Unknown,
                    };
                    self.bind_pat(p, origin, elem);
                }
            }
            Pat::TupleStruct(ts) => {
                let last = ts.path.segments.last().map(|s| s.ident.to_string());
                let resolved = types.resolve(&ty);
                for (i, p) in ts.elems.iter().enumerate() {
                    let (inner, origin) = match last.as_deref() {
                        // The value of a result tainted only by its type holding an error
                        // (`find(id)` returning `Result<Uuid, LookupError>`): it is not the
                        // error. A taint of the value built (`if s { Err(e) } else {
                        // Ok(p.ssn) }`) stays: an origin keeps only its first taint.
                        Some("Ok") if matches!(origin, Origin::Tainted(why) if why.is_result_error()) => {
                            (resolved.arg(0), &Origin::Unknown)
                        }
                        // The value in a `Some` or an `Ok` of a value in no safe class is judged
                        // by the name it is bound to, as the error in an `Err` is judged as an
                        // error: a verdict's rule must not turn on how the value was reached.
                        Some("Some" | "Ok") => (resolved.arg(0), part_origin),
                        // The error of a safe result (`args.status()`) is not safe; the error of
                        // a result in no safe class is judged as an error.
                        Some("Err") => (
                            resolved.arg(1),
                            if *origin == Origin::Safe {
                                &Origin::Unknown
                            } else {
                                part_origin
                            },
                        ),
                        // An extractor or wrapper from another crate (`Path(id): Path<String>`):
                        // its one field is its type argument.
                        _ if ts.elems.len() == 1
                            && types.def(resolved.name().unwrap_or_default()).is_none() =>
                        {
                            (resolved.arg(0), part_origin)
                        }
                        _ => (types.field(&resolved, &i.to_string()), part_origin),
                    };
                    self.bind_pat(p, origin, inner);
                }
            }
            Pat::Struct(s) => {
                let origin = part_origin;
                for f in &s.fields {
                    let member = match &f.member {
                        syn::Member::Named(id) => id.to_string(),
                        syn::Member::Unnamed(i) => i.index.to_string(),
                    };
                    self.bind_pat(&f.pat, origin, types.field(&ty, &member));
                }
            }
            Pat::Slice(s) => {
                for p in &s.elems {
                    self.bind_pat(p, origin, element(&ty));
                }
            }
            Pat::Or(o) => {
                for p in &o.cases {
                    self.bind_pat(p, origin, ty.clone());
                }
            }
            _ => {}
        }
    }

    /// `x = v`, `x += v`, `x.push_str(v)`: a local that was safe is only as safe as what it
    /// was given since.
    pub(super) fn mutated(&mut self, target: &Expr, value: Option<&Expr>) {
        let Expr::Path(p) = crate::classify::peel(target) else {
            return;
        };
        if p.path.segments.len() != 1 {
            return;
        }
        let name = p.path.segments[0].ident.to_string();
        let Some(old) = self.scope.lookup(&name).map(|b| b.origin.clone()) else {
            return;
        };
        if old != Origin::Safe {
            return;
        }
        let new = value.map_or(Origin::Unknown, |v| self.classifier.origin(v, &self.scope));
        if new != Origin::Safe {
            self.scope.set_origin(&name, new);
        }
    }

    /// Method calls that feed a value into their receiver (the value is the last argument:
    /// `insert_str(0, v)`, `replace_range(.., v)`), and calls that lend a local mutably
    /// (`describe(&mut msg, p)`), which may write any of their other arguments into it.
    pub(super) fn mutating_call(&mut self, m: &syn::ExprMethodCall) {
        if [
            "push",
            "push_str",
            "extend",
            "extend_from_slice",
            "insert",
            "insert_str",
            "replace_range",
            "append",
            "write_str",
            "write_fmt",
        ]
        .iter()
        .any(|n| m.method == n)
        {
            self.mutated(&m.receiver, m.args.last());
        }
        if m.args.iter().any(is_lent) {
            let all: Vec<&Expr> = std::iter::once(&*m.receiver).chain(&m.args).collect();
            self.lent(&all);
        }
    }

    /// `f(&mut msg, p)`: each text local lent mutably among `all` (a call's receiver and
    /// arguments) is only as safe as every other value among them. A number, a duration or
    /// anything else whose type says more (`count_lines(&mut line_count, input)`) is an
    /// out-parameter of its own type, judged by its name. Each value's origin is judged once:
    /// a call of thousands of `&mut` arguments costs their number, not its square.
    pub(super) fn lent(&mut self, all: &[&Expr]) {
        // The first two values that are not safe: a lent local is not judged by itself.
        let mut tainting: Vec<(usize, Origin)> = Vec::with_capacity(2);
        for (j, &e) in all.iter().enumerate() {
            let origin = self.classifier.origin(e, &self.scope);
            if origin != Origin::Safe {
                tainting.push((j, origin));
                if tainting.len() == 2 {
                    break;
                }
            }
        }
        if tainting.is_empty() {
            return;
        }
        for (i, &a) in all.iter().enumerate() {
            let Expr::Reference(r) = a else { continue };
            let Expr::Path(p) = crate::classify::peel(&r.expr) else {
                continue;
            };
            if r.mutability.is_none() || p.path.segments.len() != 1 {
                continue;
            }
            let name = p.path.segments[0].ident.to_string();
            let Some(b) = self.scope.lookup(&name) else {
                continue;
            };
            // An out-parameter named in a safe class (`&mut elapsed`, `&mut total`) holds
            // that class, as a buffer (`&mut msg`, `&mut line`) does not.
            if b.origin != Origin::Safe
                || !matches!(
                    self.classifier.fact_ty(&b.ty),
                    Fact::Text(_) | Fact::Composite(_) | Fact::Unknown
                )
                || matches!(
                    self.classifier.classify_name(&name),
                    phi_filter::names::NameVerdict::Allowed(_)
                )
            {
                continue;
            }
            if let Some((_, origin)) = tainting.iter().find(|(j, _)| *j != i) {
                self.scope.set_origin(&name, origin.clone());
            }
        }
    }

    /// `write!(msg, "{}", v)` into a local (a `String`, a buffer): it is only as safe as what
    /// was written.
    pub(super) fn written_into(&mut self, tokens: &proc_macro2::TokenStream) {
        use syn::parse::Parser;
        let Ok(args) = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated
            .parse2(tokens.clone())
        else {
            return;
        };
        let mut it = args.iter();
        let Some(dest) = it.next() else { return };
        // The format string's inline captures (`{name}`) are locals read by name.
        for a in it {
            match a {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => {
                    let value = s.value();
                    for p in crate::fmtspec::placeholders(&value, true).flatten() {
                        if let crate::fmtspec::ArgRef::Name(name) = p.arg
                            && let Ok(path) = syn::parse_str::<Expr>(&name)
                        {
                            self.mutated(dest, Some(&path));
                        }
                    }
                }
                Expr::Assign(named) => self.mutated(dest, Some(&named.right)),
                other => self.mutated(dest, Some(other)),
            }
        }
    }

    /// `recv.map(|x| ..)`: the closure's parameter is bound to the receiver's elements.
    pub(super) fn note_closure_args(&mut self, m: &syn::ExprMethodCall) {
        if !ELEMENT_CLOSURES.iter().any(|n| m.method == n) {
            return;
        }
        for arg in &m.args {
            if let Expr::Closure(c) = arg {
                let mut recv = &*m.receiver;
                while let Expr::MethodCall(inner) = recv
                    && ITERATORS.iter().any(|n| inner.method == n)
                {
                    recv = &inner.receiver;
                }
                let (origin, ty) = self.judge(recv);
                let ty = element(&self.classifier.types.resolve(&ty));
                let origin = self.element_origin(origin, &ty);
                self.closures.push(ClosureSource {
                    closure: std::ptr::from_ref(c) as usize,
                    origin,
                    ty,
                });
            }
        }
    }

    /// A closure: its parameters are bound (typed, or from [`Linter::note_closure_args`]) for
    /// the walk of its body.
    pub(super) fn closure(&mut self, c: &syn::ExprClosure) {
        let addr = std::ptr::from_ref(c) as usize;
        let source = self
            .closures
            .iter()
            .rposition(|s| s.closure == addr)
            .map(|i| self.closures.swap_remove(i));
        let mark = self.scope.mark();
        for (i, p) in c.inputs.iter().enumerate() {
            match (&source, i) {
                (Some(s), 0) => {
                    let (origin, ty) = (s.origin.clone(), s.ty.clone());
                    self.bind_pat(p, &origin, ty);
                }
                _ => self.bind_pat(p, &Origin::Unknown, Ty::Unknown),
            }
        }
        visit::visit_expr_closure(self, c);
        self.end_scope(mark);
    }

    /// `for pat in expr { body }`.
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let mut iter = &*f.expr;
        while let Expr::MethodCall(inner) = iter
            && ITERATORS.iter().any(|n| inner.method == n)
        {
            iter = &inner.receiver;
        }
        let (origin, ty) = self.judge(iter);
        let ty = element(&self.classifier.types.resolve(&ty));
        let origin = self.element_origin(origin, &ty);
        let mark = self.scope.mark();
        self.bind_pat(&f.pat, &origin, ty);
        self.visit_block(&f.body);
        self.end_scope(mark);
    }

    /// `if let pat = expr` / `while let`: bound until the enclosing block ends.
    pub(super) fn let_expr(&mut self, l: &syn::ExprLet) {
        self.visit_expr(&l.expr);
        let (origin, ty) = self.judge(&l.expr);
        self.bind_pat(&l.pat, &origin, ty);
    }

    /// `match expr { pat => body }`: each arm binds its pattern to the scrutinee.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let (origin, ty) = self.judge(&m.expr);
        for arm in &m.arms {
            let mark = self.scope.mark();
            self.bind_pat(&arm.pat, &origin, ty.clone());
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
            self.end_scope(mark);
        }
    }

    /// A block: its `let`s end with it.
    pub(super) fn block(&mut self, b: &syn::Block) {
        let mark = self.scope.mark();
        let split = self.is_split_body(b);
        // The previous run's hold on its parse, kept through this run's walk, which may call
        // the closures it carried.
        let mut held = None;
        if split && let Some(c) = self.carry.take() {
            // The parameters are bound again by the same signature, so `mark` is where the
            // previous run's locals started too, and its closures' places hold.
            self.scope.restore(c.bindings);
            self.local_closures.extend(c.closures);
            self.std_streams = c.std_streams;
            held = c.hold;
        }
        visit::visit_block(self, b);
        if split && self.split.as_ref().is_some_and(|s| !s.last) {
            let closures = std::mem::take(&mut self.local_closures);
            let (kept, carried): (_, Vec<_>) = closures.into_iter().partition(|c| c.at < mark);
            self.local_closures = kept;
            self.carry = Some(Carry {
                bindings: self.scope.split_off(mark),
                hold: (!carried.is_empty()).then(super::spans::Hold::new),
                closures: carried,
                std_streams: self.std_streams.clone(),
            });
        }
        self.end_scope(mark);
        drop(held);
    }
}

/// A pattern that only a constant matches: a path of two or more segments (a unit variant, a
/// unit struct or an associated const: `Error::Unsupported`), a literal, or alternatives of
/// those. A one-segment name is not one: `x @ FOO` may bind a new name.
fn is_constant_pat(p: &Pat) -> bool {
    match p {
        Pat::Path(path) => path.qself.is_none() && path.path.segments.len() > 1,
        Pat::Lit(_) => true,
        Pat::Paren(inner) => is_constant_pat(&inner.pat),
        Pat::Or(o) => o.cases.iter().all(is_constant_pat),
        _ => false,
    }
}

/// `&mut x`: a value lent mutably.
pub(super) fn is_lent(e: &Expr) -> bool {
    matches!(e, Expr::Reference(r) if r.mutability.is_some())
}

/// The type parameters of `generics` bounded by a trait (`S: Session`, `where S: Session`), each
/// with its trait as a `dyn` type (see [`Ty::of_trait`]).
pub(super) fn trait_bounded(generics: &syn::Generics) -> Vec<(String, Ty)> {
    let mut out = Vec::new();
    for p in &generics.params {
        if let syn::GenericParam::Type(t) = p {
            let ty = Ty::of_trait(&t.bounds);
            if !ty.is_unknown() {
                out.push((t.ident.to_string(), ty));
            }
        }
    }
    for pred in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        if let syn::WherePredicate::Type(pt) = pred
            && let syn::Type::Path(p) = &pt.bounded_ty
            && let Some(id) = p.path.get_ident()
            && !out.iter().any(|(g, _)| id == g)
        {
            let ty = Ty::of_trait(&pt.bounds);
            if !ty.is_unknown() {
                out.push((id.to_string(), ty));
            }
        }
    }
    out
}
