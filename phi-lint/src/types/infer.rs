//! The locals in scope, and the type of an expression where it is evident.

use syn::punctuated::Punctuated;
use syn::{BinOp, Expr, Lit, Member, PathSegment, Token};

use super::{Ty, TypeDef, Types};
use crate::classify::Why;

/// Where a local's value came from, judged once when it was bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Its initializer is safe to log (`rows.len()`, `user.id`, a literal).
    Safe,
    /// Its initializer is a leak (`&patient.name`, `err.to_string()`): the local is too,
    /// whatever its name.
    Tainted(Box<Why>),
    /// Not known (a parameter, a call): its name and type decide.
    Unknown,
}

/// One local: a `let`, a parameter, a closure parameter, a pattern binding.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub(crate) name: compact_str::CompactString,
    pub(crate) ty: Ty,
    pub(crate) origin: Origin,
}

/// The locals in scope at the current point of the walk, innermost last. A function starts a
/// frame: its body cannot see an enclosing function's locals.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    bindings: Vec<Binding>,
    /// Per function: where its bindings start, and its `Self` type.
    frames: Vec<(usize, Option<String>)>,
    /// Where each name is bound, for a function with many locals (see [`Scope::position`]).
    index: std::cell::RefCell<ByName>,
}

/// The positions of the bindings `..upto` by name, innermost last.
#[derive(Debug, Default)]
struct ByName {
    positions: super::Map<compact_str::CompactString, Vec<usize>>,
    upto: usize,
}

/// From how many locals in one function a name is looked up by the index rather than by a scan:
/// a body of 100,000 `let`s would otherwise scan them all for each name it reads, while a small
/// body never builds the index.
const INDEX_FROM: usize = 64;

impl Scope {
    /// The innermost binding of `name` in the current function.
    pub(crate) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.position(name).map(|i| &self.bindings[i])
    }

    pub(crate) fn push(&mut self, b: Binding) {
        self.bindings.push(b);
    }

    /// Where the innermost binding of `name` in the current function is.
    pub(crate) fn lookup_index(&self, name: &str) -> Option<usize> {
        self.position(name)
    }

    /// Changes the origin of the innermost binding of `name`.
    pub(crate) fn set_origin(&mut self, name: &str, origin: Origin) {
        if let Some(i) = self.position(name) {
            self.bindings[i].origin = origin;
        }
    }

    /// Where the innermost binding of `name` in the current function is: by a scan from the
    /// innermost when the function has few locals, else through the index, which is brought up
    /// to date first (each binding is added once, and taken out when it goes out of scope).
    fn position(&self, name: &str) -> Option<usize> {
        let base = self.frames.last().map_or(0, |f| f.0);
        let live = &self.bindings[base..];
        if live.len() <= INDEX_FROM {
            return live.iter().rposition(|b| b.name == name).map(|i| base + i);
        }
        let mut index = self.index.borrow_mut();
        while index.upto < self.bindings.len() {
            let at = index.upto;
            let name = &self.bindings[at].name;
            match index.positions.get_mut(name.as_str()) {
                Some(at_list) => at_list.push(at),
                None => {
                    index.positions.insert(name.clone(), vec![at]);
                }
            }
            index.upto += 1;
        }
        // The innermost binding of the name anywhere: in this function only if at or past `base`.
        let at = *index.positions.get(name)?.last()?;
        (at >= base).then_some(at)
    }

    /// A mark to [`Scope::truncate`] to when a block or closure ends.
    pub(crate) fn mark(&self) -> usize {
        self.bindings.len()
    }

    pub(crate) fn truncate(&mut self, mark: usize) {
        self.unindex(mark);
        self.bindings.truncate(mark);
    }

    /// The bindings from `mark` on, taken out. They keep the scope's buffer, and the scope
    /// keeps a copy of the few before `mark`: a long body's locals are carried from one run to
    /// the next (see `engine::locals`) without a second buffer of them.
    pub(crate) fn split_off(&mut self, mark: usize) -> Vec<Binding> {
        let mark = mark.min(self.bindings.len());
        self.unindex(mark);
        let mut rest = std::mem::take(&mut self.bindings);
        self.bindings = rest.drain(..mark).collect();
        rest
    }

    /// Puts bindings [`Scope::split_off`] took out back after those in scope, in their buffer.
    pub(crate) fn restore(&mut self, mut rest: Vec<Binding>) {
        let head = std::mem::take(&mut self.bindings);
        rest.splice(0..0, head);
        self.bindings = rest;
    }

    /// Takes the bindings from `mark` on out of the index, innermost first.
    fn unindex(&mut self, mark: usize) {
        let index = self.index.get_mut();
        while index.upto > mark {
            index.upto -= 1;
            let name = self.bindings[index.upto].name.as_str();
            if let Some(at_list) = index.positions.get_mut(name) {
                at_list.pop();
                if at_list.is_empty() {
                    index.positions.remove(name);
                }
            }
        }
    }

    pub(crate) fn enter_fn(&mut self, self_ty: Option<String>) {
        self.frames.push((self.bindings.len(), self_ty));
    }

    pub(crate) fn exit_fn(&mut self) {
        if let Some((base, _)) = self.frames.pop() {
            self.truncate(base);
        }
    }

    /// The `Self` type of the enclosing `impl`, if any.
    pub(crate) fn self_ty(&self) -> Option<&str> {
        self.frames.last().and_then(|f| f.1.as_deref())
    }
}

/// Methods whose result has the receiver's type, as far as the verdict cares.
const SAME_TYPE: &[&str] = &[
    "clone",
    "to_owned",
    "borrow",
    "as_ref",
    "as_mut",
    "as_deref",
    "into",
    "to_string",
    "as_hyphenated",
    "hyphenated",
    "simple",
    "lock",
    "read",
    "write",
];

/// Methods of `String` and `str` that return text, and the type they return.
const TEXT_FROM_TEXT: &[(&str, &str)] = &[
    ("as_str", "str"),
    ("trim", "str"),
    ("trim_start", "str"),
    ("trim_end", "str"),
    ("trim_matches", "str"),
    ("trim_start_matches", "str"),
    ("trim_end_matches", "str"),
    ("to_lowercase", "String"),
    ("to_uppercase", "String"),
    ("to_ascii_lowercase", "String"),
    ("to_ascii_uppercase", "String"),
    ("repeat", "String"),
    ("replace", "String"),
    ("replacen", "String"),
];

/// Whether a type is text: `String`, `str`, or a `Cow`, `Box`, `Arc` or `Rc` of `str`.
fn is_text(ty: &Ty) -> bool {
    match ty.name() {
        Some("String" | "str") => true,
        Some("Cow" | "Box" | "Arc" | "Rc") => ty.arg(0).name() == Some("str"),
        _ => false,
    }
}

/// The type of `e`, where the code makes it evident; else [`Ty::Unknown`].
pub(crate) fn ty_of(e: &Expr, scope: &Scope, index: &Types<'_>) -> Ty {
    ty_depth(e, scope, index, 0)
}

fn ty_depth(e: &Expr, scope: &Scope, index: &Types<'_>, depth: u8) -> Ty {
    if depth > 16 {
        return Ty::Unknown;
    }
    let rec = |e: &Expr| ty_depth(e, scope, index, depth + 1);
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) if !i.suffix().is_empty() => Ty::named(i.suffix()),
            Lit::Int(_) => Ty::named("{integer}"),
            Lit::Float(f) if !f.suffix().is_empty() => Ty::named(f.suffix()),
            Lit::Float(_) => Ty::named("{float}"),
            Lit::Bool(_) => Ty::named("bool"),
            Lit::Str(_) => Ty::named("str"),
            _ => Ty::Unknown,
        },
        Expr::Path(p) if p.qself.is_none() => {
            let segs = &p.path.segments;
            if segs.len() == 1 {
                let name = segs[0].ident.to_string();
                if let Some(b) = scope.lookup(&name) {
                    return b.ty.clone();
                }
                return index.constant(&name).cloned().unwrap_or_default();
            }
            // `Kind::Variant` of a known enum, or `Type::CONST`.
            let Some(owner) = path_owner(segs, scope) else {
                return Ty::Unknown;
            };
            match index.def(&owner) {
                Some(TypeDef::Enum { .. }) => Ty::named(&owner),
                _ => {
                    let last = segs[segs.len() - 1].ident.to_string();
                    index.constant(&last).cloned().unwrap_or_default()
                }
            }
        }
        Expr::Field(f) => {
            let base = rec(&f.base);
            if base.is_unknown() {
                return Ty::Unknown;
            }
            let member = match &f.member {
                Member::Named(id) => id.to_string(),
                Member::Unnamed(i) => i.index.to_string(),
            };
            index.field(&base, &member)
        }
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            match method.as_str() {
                "len" | "count" | "capacity" => return Ty::named("usize"),
                "is_empty" | "is_some" | "is_none" | "is_ok" | "is_err" | "contains" => {
                    return Ty::named("bool");
                }
                "elapsed" | "duration_since" | "saturating_duration_since" => {
                    return Ty::named("Duration");
                }
                _ => {}
            }
            let recv = index.resolve(&rec(&m.receiver));
            if SAME_TYPE.contains(&method.as_str()) {
                return recv;
            }
            if matches!(
                method.as_str(),
                "unwrap" | "expect" | "unwrap_or" | "unwrap_or_default" | "unwrap_or_else"
            ) && matches!(recv.name(), Some("Option" | "Result"))
            {
                return recv.arg(0);
            }
            if matches!(method.as_str(), "iter" | "into_iter" | "iter_mut") {
                return recv;
            }
            // Text made from text: `login.trim()`, `name.to_lowercase()`, `s.as_str()`.
            if let Some((_, ty)) = TEXT_FROM_TEXT.iter().find(|(m, _)| *m == method)
                && is_text(&recv)
            {
                return Ty::named(ty);
            }
            // `web::Path<String>::into_inner()`, `Json<T>::into_inner()`.
            if method == "into_inner"
                && let Ty::Named(n, args) = &recv
                && args.len() == 1
                && index.def(n).is_none()
            {
                return args[0].clone();
            }
            match recv.name() {
                Some(n) => index
                    .method(n, &method)
                    .map(|s| s.ret.clone())
                    .unwrap_or_default(),
                None => Ty::Unknown,
            }
        }
        Expr::Call(c) => call_ty(c, scope, index, depth),
        Expr::Binary(b) => match b.op {
            BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_)
            | BinOp::And(_)
            | BinOp::Or(_) => Ty::named("bool"),
            BinOp::Sub(_) => {
                let (l, r) = (index.resolve(&rec(&b.left)), index.resolve(&rec(&b.right)));
                if l.name() == Some("Instant") && r.name() == Some("Instant") {
                    Ty::named("Duration")
                } else if l.is_unknown() {
                    r
                } else {
                    l
                }
            }
            _ => {
                let l = rec(&b.left);
                if l.is_unknown() { rec(&b.right) } else { l }
            }
        },
        Expr::Unary(u) => match u.op {
            syn::UnOp::Not(_) if rec(&u.expr).name() == Some("bool") => Ty::named("bool"),
            _ => rec(&u.expr),
        },
        Expr::Reference(r) => rec(&r.expr),
        Expr::Paren(p) => rec(&p.expr),
        Expr::Group(g) => rec(&g.expr),
        Expr::Await(a) => rec(&a.base),
        Expr::Try(t) => {
            let inner = index.resolve(&rec(&t.expr));
            match inner.name() {
                Some("Option" | "Result") => inner.arg(0),
                _ => Ty::Unknown,
            }
        }
        Expr::Cast(c) => Ty::from_syn(&c.ty, scope.self_ty()),
        // `v[a..b]` is a slice of the elements, `v[i]` one of them.
        Expr::Index(i) if matches!(*i.index, Expr::Range(_)) => {
            Ty::Slice(Box::new(element(&index.resolve(&rec(&i.expr)))))
        }
        Expr::Index(i) => element(&index.resolve(&rec(&i.expr))),
        Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(e, None)) => rec(e),
            _ => Ty::Unknown,
        },
        Expr::Macro(m) if crate::grammar::macro_named(&m.mac, &["format"]) => Ty::named("String"),
        _ => Ty::Unknown,
    }
}

/// The element type of a collection or an option (what a `for` or a `.map(|x| ..)` binds).
pub(crate) fn element(ty: &Ty) -> Ty {
    match ty {
        Ty::Slice(t) => (**t).clone(),
        Ty::Named(n, args) => match n.as_str() {
            "HashMap" | "BTreeMap" | "IndexMap" if args.len() == 2 => Ty::Tuple(args.clone()),
            "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "IndexSet" | "Option" | "Result" => {
                args.first().cloned().unwrap_or_default()
            }
            _ => Ty::Unknown,
        },
        _ => Ty::Unknown,
    }
}

/// Constructors whose result is their type: `Uuid::new_v4()`, `Instant::now()`,
/// `Duration::from_secs(3)`.
fn is_constructor(f: &str) -> bool {
    matches!(f, "new" | "now" | "default" | "nil" | "max" | "zero")
        || f.starts_with("new_")
        || f.starts_with("now_")
        || f.starts_with("from_")
        || f.starts_with("with_")
}

/// The type a path `Owner::item` starts from (its second-to-last segment), with `Self` read from
/// the scope; `None` for `Self` outside an `impl`. `segs` has at least two segments.
fn path_owner(segs: &Punctuated<PathSegment, Token![::]>, scope: &Scope) -> Option<String> {
    let owner = segs[segs.len() - 2].ident.to_string();
    if owner == "Self" {
        scope.self_ty().map(str::to_owned)
    } else {
        Some(owner)
    }
}

fn call_ty(c: &syn::ExprCall, scope: &Scope, index: &Types<'_>, depth: u8) -> Ty {
    let Expr::Path(p) = &*c.func else {
        return Ty::Unknown;
    };
    let segs = &p.path.segments;
    let Some(last) = segs.last() else {
        return Ty::Unknown;
    };
    let f = last.ident.to_string();
    if segs.len() == 1 {
        let wrapper = match f.as_str() {
            "Some" => Some("Option"),
            "Ok" => Some("Result"),
            _ => None,
        };
        if let Some(wrapper) = wrapper {
            let inner = c.args.first().map(|a| ty_depth(a, scope, index, depth + 1));
            return Ty::Named(wrapper.into(), vec![inner.unwrap_or_default()]);
        }
        if let Some(sig) = index.function(&f) {
            return sig.ret.clone();
        }
        if let Some(TypeDef::Struct { tuple: true, .. }) = index.def(&f) {
            return Ty::named(&f);
        }
        return Ty::Unknown;
    }
    let Some(owner) = path_owner(segs, scope) else {
        return Ty::Unknown;
    };
    if let Some(sig) = index.method(&owner, &f) {
        return sig.ret.clone();
    }
    if owner.starts_with(char::is_uppercase) && is_constructor(&f) {
        return Ty::named(&owner);
    }
    Ty::Unknown
}

#[cfg(test)]
mod tests {
    use super::{Binding, INDEX_FROM, Origin, Scope, Ty};

    fn binding(name: &str, origin: Origin) -> Binding {
        Binding {
            name: name.into(),
            ty: Ty::Unknown,
            origin,
        }
    }

    /// What `lookup` answers for `name`, against a scan of the bindings in scope.
    fn agrees(scope: &Scope, names: &[String]) {
        let base = scope.frames.last().map_or(0, |f| f.0);
        for name in names {
            let scanned = scope.bindings[base..]
                .iter()
                .rposition(|b| b.name == name)
                .map(|i| base + i);
            assert_eq!(scope.lookup_index(name), scanned, "{name}");
        }
    }

    #[test]
    fn a_scope_with_many_locals_answers_as_a_scan_does() {
        let names: Vec<String> = (0..40).map(|i| format!("v{i}")).collect();
        let mut scope = Scope::default();
        scope.enter_fn(None);
        scope.push(binding("outer_only", Origin::Unknown));
        scope.enter_fn(None);
        // Small, then over the index's threshold, with shadowing; then blocks that end.
        for i in 0..(INDEX_FROM * 5) {
            scope.push(binding(&names[i * 7 % names.len()], Origin::Unknown));
            if i % 13 == 0 {
                agrees(&scope, &names);
            }
        }
        agrees(&scope, &names);
        // The enclosing function's locals are not in scope.
        assert_eq!(scope.lookup("outer_only").map(|b| b.name.as_str()), None);
        let mark = scope.mark();
        for name in &names[..10] {
            scope.push(binding(name, Origin::Safe));
        }
        scope.set_origin(
            "v3",
            Origin::Tainted(Box::new(crate::classify::Why::Unknown)),
        );
        agrees(&scope, &names);
        assert!(matches!(
            scope.lookup("v3").map(|b| &b.origin),
            Some(Origin::Tainted(_))
        ));
        scope.truncate(mark);
        agrees(&scope, &names);
        assert!(matches!(
            scope.lookup("v3").map(|b| &b.origin),
            Some(Origin::Unknown)
        ));
        let before: Vec<compact_str::CompactString> =
            scope.bindings.iter().map(|b| b.name.clone()).collect();
        let buffer = scope.bindings.capacity();
        let taken = scope.split_off(mark - 20);
        assert_eq!(taken.len(), 20);
        // The locals carried keep the buffer: no second one as large.
        assert_eq!(taken.capacity(), buffer);
        agrees(&scope, &names);
        scope.restore(taken);
        let after: Vec<compact_str::CompactString> =
            scope.bindings.iter().map(|b| b.name.clone()).collect();
        assert_eq!(after, before);
        agrees(&scope, &names);
        scope.truncate(mark - INDEX_FROM * 4);
        agrees(&scope, &names);
        scope.exit_fn();
        assert_eq!(
            scope.lookup("outer_only").map(|b| b.name.as_str()),
            Some("outer_only")
        );
        agrees(&scope, &names);
    }
}
