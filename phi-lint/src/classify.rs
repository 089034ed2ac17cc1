//! Which interpolated expressions are allowed.
//!
//! After peeling `&`, `*`, parentheses, casts and class-preserving conversions, an expression is
//! allowed when it is a constant, or its last name (variable, field or zero-argument method) is
//! in a safe class of [`phi_filter::names`], or a structural method gives a count, a duration or
//! a status, or a type-name function gives a type name, or it is composed only of allowed parts,
//! or it calls a configured safe function. Deny stems beat the classes. Everything else is not
//! allowed; an error value gets its own verdict, because its message is the leak.
//!
//! Name and type decide together ([`verdict`]): where the [type index](crate::types) knows a
//! value's type, a type can prove a class (a `Uuid` under any name), refute one (a struct under
//! `status`, a `String` under `account_id`), or leave it to the name (a number is safe only under
//! a safe name). A local is judged by what it was bound to ([`Origin`]).

use phi_filter::names::{NameClass, NamePolicy, NameVerdict, to_snake};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Member, Stmt};

use crate::grammar::parse_format_args;
use crate::ident::with_str;
pub(crate) use crate::types::Origin;
use crate::types::{Fact, Scope, Types, fact_of, ty_of};

mod verdict;

/// What a struct, a map or a collection is, in a refutation.
pub(crate) const COLLECTION: &str = "a struct, map or collection";

/// Why an expression is not allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Why {
    /// In no safe class.
    Unknown,
    /// A name along the expression carries a deny stem.
    Denied { name: String, stem: String },
    /// An error value: its message may quote SQL with bound parameters.
    Error,
    /// Errors held in a container (`Option<E>`, `Vec<E>`, a tuple): the container's name.
    ErrorWithin(String),
    /// The name claims a class that the value's type refutes (`status: AccountStatus`, a struct).
    Refuted {
        name: String,
        class: NameClass,
        ty: String,
        what: &'static str,
    },
    /// A named value in no safe class (`v.reason`, `body.text`), as the origin of a local: the
    /// local renames it, and a safe name does not make it safe (`let visit_kind = v.reason`).
    NoClass { name: String },
    /// A local bound to a value that is not allowed (`let user_id = &patient.name`). Made by
    /// [`Why::bound`], which keeps at most [`MAX_HOPS`] locals of a chain.
    Bound { local: String, source: Box<Why> },
    /// The far end of a chain of locals cut by [`Why::bound`]: `hops` more locals, each bound
    /// to the next, the last bound to `root`.
    Elided { hops: usize, root: Box<Why> },
}

/// How many locals of a chain (`let b = a; let c = b; ..`) a verdict names. A chain is copied
/// into each local bound along it, so a function of n such `let`s would otherwise hold n²/2
/// hops (6,000 `let`s: 2 GB) and its finding name all of them.
pub(crate) const MAX_HOPS: usize = 8;

/// Types that hold values without being one: an error inside one is logged with the rest.
/// Not a `Box`, `Arc`, `RefCell` or `Mutex` ([`HOLDERS`]), which hold exactly one value: the
/// type name of one of those names the error inside it, and says all the value did, unless what
/// it holds is a container.
const CONTAINERS: &[&str] = &[
    "Option",
    "Result",
    "Vec",
    "VecDeque",
    "LinkedList",
    "BinaryHeap",
    "HashMap",
    "BTreeMap",
    "IndexMap",
    "HashSet",
    "BTreeSet",
    "IndexSet",
    "SmallVec",
    "ArrayVec",
];

/// Types that hold exactly one value, looked through for a container.
const HOLDERS: &[&str] = &[
    "Box",
    "Arc",
    "Rc",
    "Mutex",
    "RwLock",
    "RefCell",
    "Cell",
    "MutexGuard",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "Ref",
    "RefMut",
    "Cow",
];

impl Why {
    /// `local` bound to a value that is not allowed for `source`: the chain's nearest
    /// [`MAX_HOPS`] locals are kept, and the farther ones only counted.
    pub(crate) fn bound(local: &str, source: &Why) -> Why {
        let mut depth = 0;
        let mut cur = source;
        while let Why::Bound { source, .. } = cur {
            depth += 1;
            cur = source;
        }
        // The new local and the source's `depth` locals: named if no more than MAX_HOPS.
        if depth < MAX_HOPS {
            return Why::Bound {
                local: local.to_owned(),
                source: Box::new(source.clone()),
            };
        }
        // Keep the MAX_HOPS - 1 nearest of the source's hops; the rest join the elided count.
        let mut kept = Vec::with_capacity(MAX_HOPS - 1);
        let mut cur = source;
        while let Why::Bound { local, source } = cur
            && kept.len() < MAX_HOPS - 1
        {
            kept.push(local.as_str());
            cur = source;
        }
        let mut dropped = 0;
        while let Why::Bound { source, .. } = cur {
            dropped += 1;
            cur = source;
        }
        let mut why = match cur {
            Why::Elided { hops, root } => Why::Elided {
                hops: hops + dropped,
                root: root.clone(),
            },
            root => Why::Elided {
                hops: dropped,
                root: Box::new(root.clone()),
            },
        };
        for hop in kept.into_iter().rev() {
            why = Why::Bound {
                local: hop.to_owned(),
                source: Box::new(why),
            };
        }
        Why::Bound {
            local: local.to_owned(),
            source: Box::new(why),
        }
    }
}

/// The part of an expression that is not allowed, and why.
#[derive(Clone)]
pub(crate) struct Unsafe<'e> {
    /// Where the culprit is, when it is not `at`'s span: `Spanned::span` prints an expression
    /// to tokens, and most verdicts (a local's origin) never read it, so `span()` takes it from
    /// `at` only when asked.
    span: Option<Span>,
    /// The culprit, when it is an expression (not an inline capture).
    pub(crate) at: Option<&'e Expr>,
    pub(crate) why: Why,
}

impl Unsafe<'_> {
    /// Where the culprit is.
    pub(crate) fn span(&self) -> Span {
        self.span
            .or_else(|| self.at.map(Spanned::span))
            .unwrap_or_else(Span::call_site)
    }
}

/// Methods that return their receiver's class (an id stays an id).
const PRESERVING: &[&str] = &[
    "clone",
    "to_string",
    "to_owned",
    "as_str",
    "as_ref",
    "as_deref",
    "into",
    "borrow",
    "unwrap",
    "unwrap_or_default",
    "copied",
    "cloned",
    "get",
    "as_u8",
    "as_u16",
    "as_u32",
    "as_u64",
    "as_u128",
    "as_usize",
    "as_i8",
    "as_i16",
    "as_i32",
    "as_i64",
    "as_i128",
    "as_isize",
    "as_f32",
    "as_f64",
    "to_lowercase",
    "to_uppercase",
    "as_hyphenated",
    "simple",
    "hyphenated",
    "as_simple",
    "as_urn",
    "urn",
    "as_braced",
    "braced",
];
/// Zero-argument methods whose result is a count, whatever the receiver holds.
const COUNTS: &[&str] = &["len", "count", "capacity", "rows_affected"];
/// Zero-argument methods whose result is a bool about the receiver: `r.hiv_test.is_some()` says
/// whether a test was done, as an `is_pregnant` says a health fact. Safe only under a name of a
/// safe class, as any bool.
const PREDICATES: &[&str] = &["is_empty", "is_some", "is_none", "is_ok", "is_err"];
/// Zero-argument methods whose result is a duration.
const DURATIONS: &[&str] = &[
    "elapsed",
    "as_millis",
    "as_secs",
    "as_secs_f64",
    "as_secs_f32",
    "as_micros",
    "as_nanos",
    "subsec_millis",
    "subsec_micros",
    "subsec_nanos",
];
/// Methods whose result is the time between their receiver and their argument.
const SINCE: &[&str] = &[
    "duration_since",
    "checked_duration_since",
    "saturating_duration_since",
    "signed_duration_since",
];
/// Zero-argument methods whose result is a status code.
const STATUSES: &[&str] = &["status", "code", "status_code", "as_u16_status"];
/// Methods that reach into an error's message or chain.
const ERROR_METHODS: &[&str] = &[
    "root_cause",
    "source",
    "chain",
    "backtrace",
    "description",
    "cause",
    "sources",
];
/// Functions whose result is a type name.
const TYPE_NAME_FNS: &[&str] = &["type_name", "type_name_of_val", "error_type"];
/// Macros whose expansion is a constant.
const CONST_MACROS: &[&str] = &[
    "concat",
    "stringify",
    "env",
    "option_env",
    "file",
    "line",
    "column",
    "module_path",
];

/// Classifies interpolated expressions under one name policy and one type index.
pub(crate) struct Classifier<'a> {
    pub(crate) names: &'a NamePolicy,
    pub(crate) safe_functions: &'a [String],
    pub(crate) types: Types<'a>,
    /// Types declared safe (`safe-types`): their values may be logged under any name.
    pub(crate) safe_types: &'a [String],
    /// Verdicts on names already classified under `names` (see [`NameCache`]).
    pub(crate) cache: &'a NameCache,
    /// Set when a value passed by its name alone, its type unknown (see [`Classifier::origin`]).
    pub(crate) by_name_only: std::cell::Cell<bool>,
}

/// Verdicts on names already classified, under one [`NamePolicy`]: names repeat within a
/// file and across files, and a verdict matches them against every deny stem. A worker keeps
/// one for all the files of a run.
pub(crate) type NameCache = std::cell::RefCell<crate::types::Map<String, NameVerdict>>;

/// What one check knows besides the expression: the locals in scope and the field key.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'s> {
    pub(crate) scope: &'s Scope,
    /// The class the field key names (`uuid` in `uuid = ?eventid`), if any.
    pub(crate) key: Option<NameClass>,
}

impl Classifier<'_> {
    /// `Ok` if `e`, recorded under field `key` (`{fmt}` for a format argument), may be logged,
    /// else the part that may not.
    pub(crate) fn check_value<'e>(
        &self,
        e: &'e Expr,
        key: &str,
        scope: &Scope,
    ) -> Result<(), Unsafe<'e>> {
        let key = match self.classify_name(key) {
            NameVerdict::Allowed(c) => Some(c),
            _ => None,
        };
        self.check(e, Ctx { scope, key })
    }

    /// The policy's verdict on a name, cached per worker.
    pub(crate) fn classify_name(&self, name: &str) -> NameVerdict {
        if let Some(v) = self.cache.borrow().get(name) {
            return v.clone();
        }
        let v = self.names.classify(name);
        self.cache.borrow_mut().insert(name.to_owned(), v.clone());
        v
    }

    /// Where a local bound to `init` came from.
    pub(crate) fn origin(&self, init: &Expr, scope: &Scope) -> Origin {
        // A sum or product over records is an aggregate, not a record's value: its name and
        // type decide (`let row_count: usize = accounts.iter().map(..).sum()`).
        if let Expr::MethodCall(m) = peel(init)
            && (m.method == "sum" || m.method == "product")
        {
            return Origin::Unknown;
        }
        self.by_name_only.set(false);
        match self.check(init, Ctx { scope, key: None }) {
            // An initializer that passed only by a name whose type is unknown
            // (`user.input.id`) says no more than the local's own name: both must pass, so the
            // local's name and type decide as if its origin were unknown.
            Ok(()) if self.by_name_only.get() => Origin::Unknown,
            Ok(()) => Origin::Safe,
            // A named value (a local, a parameter, a field chain) in no safe class keeps its
            // verdict under a new name, unless the local's type says more: a number, bool or
            // fieldless enum passes under a name of a safe class, the local's as a key's, and
            // a conversion may make a type that proves a class (`AttributeName::from(field)`).
            Err(u) if u.why == Why::Unknown || u.why.is_no_class() => {
                let core = peel(init);
                if !matches!(core, Expr::Path(_) | Expr::Field(_)) {
                    return Origin::Unknown;
                }
                let cx = Ctx { scope, key: None };
                // The value's type or the local's (`salvage.as_str()` of a fieldless enum).
                let says_more = |f: &Fact| {
                    f.proves_class()
                        || matches!(
                            f,
                            Fact::Integer | Fact::Float | Fact::Bool | Fact::FieldlessEnum(_)
                        )
                };
                match self.fact(init, cx) {
                    f if says_more(&f) => Origin::Unknown,
                    _ if says_more(&self.fact(core, cx)) => Origin::Unknown,
                    _ if u.why == Why::Unknown => {
                        Origin::Tainted(Box::new(Why::NoClass { name: dotted(core) }))
                    }
                    _ => Origin::Tainted(Box::new(u.why)),
                }
            }
            Err(u) => Origin::Tainted(Box::new(u.why)),
        }
    }

    /// `Ok` if `e` may be logged, else the part that may not.
    pub(crate) fn check<'e>(&self, e: &'e Expr, cx: Ctx<'_>) -> Result<(), Unsafe<'e>> {
        let core = peel(e);
        if is_error(core) {
            return self.error_value(core, cx);
        }
        match core {
            Expr::Lit(_) => Ok(()),
            Expr::Path(p) => {
                let segs = &p.path.segments;
                let Some(last) = segs.last() else {
                    return Ok(());
                };
                with_str(&last.ident, |name| {
                    // A `static` holding run-time data (`static LAST_EMAIL: Mutex<String>`) is
                    // not compiled text: it is judged by its name and type as any value.
                    // A table or byte string (`&[u8]`, `[&str; 12]`) is compiled text.
                    if is_constant_name(name)
                        && let Some(ty) = self.types.constant(name)
                        && !matches!(ty, crate::types::Ty::Slice(_))
                        && matches!(
                            self.fact_ty(ty),
                            Fact::Text(_) | Fact::Composite(_) | Fact::Error | Fact::Unknown
                        )
                    {
                        let fact = self.fact_ty(ty);
                        return self.leaf(core, &to_snake(name), fact, cx);
                    }
                    if is_constant_name(name) || starts_upper(name) {
                        return Ok(());
                    }
                    if p.qself.is_none() && segs.len() == 1 && name == "self" {
                        // `self` names nothing; in an `impl` of a type that proves a class by
                        // itself (`impl OrderId`, `OrderId(Uuid)`), it is that class.
                        return if self.fact(core, cx).proves_class() {
                            Ok(())
                        } else {
                            Err(unsafe_at(core, Why::Unknown))
                        };
                    }
                    if segs.len() == 1
                        && let Some(b) = cx.scope.lookup(name)
                    {
                        // A name the configuration allows is an explicit decision, whatever the
                        // local was bound to (`allow = ["listen_addr"]`).
                        if matches!(self.classify_name(name), NameVerdict::AllowedByConfig) {
                            return Ok(());
                        }
                        return match &b.origin {
                            Origin::Safe => Ok(()),
                            Origin::Tainted(why) => Err(unsafe_at(
                                core,
                                Why::bound(name, &self.taint_of(why, Some(&b.ty))),
                            )),
                            Origin::Unknown => self.leaf(core, name, self.fact_ty(&b.ty), cx),
                        };
                    }
                    let fact = self.fact(core, cx);
                    self.leaf(core, name, fact, cx)
                })
            }
            Expr::Field(f) => match &f.member {
                Member::Named(id) => {
                    self.chain_stems(&f.base, core, cx)?;
                    let fact = self.fact(core, cx);
                    with_str(id, |name| self.leaf(core, name, fact, cx))
                }
                Member::Unnamed(_) => {
                    self.chain_stems(&f.base, core, cx)?;
                    // `version.0`, `id.0`: the only or a positional field of a newtype or
                    // tuple is what the base holds, so the base's name and the field's type
                    // decide together. A base with no name (`self.0`) leaves the type alone.
                    // A base whose type proves a class (`SchemaVersion(i16)`) vouches for its
                    // field.
                    let fact = self.fact(core, cx);
                    if fact.proves_class() || self.fact(&f.base, cx).proves_class() {
                        return Ok(());
                    }
                    let name = value_name(&f.base).unwrap_or_default();
                    self.leaf(core, &name, fact, cx)
                }
            },
            Expr::MethodCall(m) => {
                // Computed from a literal alone (`"✓".bold()`, `"─".repeat(width)`): the
                // receiver chain starts at a literal, and every argument along it is allowed.
                if let Some(args) = literal_chain(core) {
                    return args.into_iter().try_for_each(|a| self.check(a, cx));
                }
                with_str(&m.method, |method| {
                    if m.args.is_empty() {
                        if COUNTS.contains(&method) {
                            return Ok(());
                        }
                        // The time since a person's date is their age (`dob.elapsed()`): the
                        // receiver's names decide, as for any value.
                        if DURATIONS.contains(&method) {
                            // An `Instant` is the process's own monotonic clock, never a
                            // person's date (`url_timer.elapsed().as_millis()`).
                            let mut r = &*m.receiver;
                            loop {
                                if ty_of(r, cx.scope, &self.types).name() == Some("Instant") {
                                    return Ok(());
                                }
                                match peel(r) {
                                    Expr::MethodCall(inner) => r = &inner.receiver,
                                    _ => break,
                                }
                            }
                            return self.chain_stems(&m.receiver, core, cx);
                        }
                        if PREDICATES.contains(&method) {
                            self.chain_stems(&m.receiver, core, cx)?;
                            return self.leaf(core, method, Fact::Bool, cx);
                        }
                        if STATUSES.contains(&method) {
                            return self.chain_stems(&m.receiver, core, cx);
                        }
                        self.chain_stems(&m.receiver, core, cx)?;
                        let fact = self.fact(core, cx);
                        return self.leaf(core, method, fact, cx);
                    }
                    // The time between a person's date and another is their age
                    // (`now.duration_since(p.dob)`): the argument's names decide as well as the
                    // receiver's, unless it is an `Instant`, the process's own clock.
                    if SINCE.contains(&method) {
                        self.chain_stems(core, core, cx)?;
                    }
                    if self.is_safe_function(method) {
                        return Ok(());
                    }
                    match self.fact(core, cx) {
                        f if f.proves_class() => Ok(()),
                        // A method declared to return a number, bool or fieldless enum is
                        // judged by its name and that type, as a field of that type is
                        // (`self.patient_repo.count_active(t)` returning `usize`).
                        f @ (Fact::Integer | Fact::Float | Fact::Bool | Fact::FieldlessEnum(_)) => {
                            self.leaf(core, method, f, cx)
                        }
                        _ => {
                            // What a method makes of a value with a deny stem
                            // (`p.email.split_once('@')`) comes from that value.
                            self.chain_stems(&m.receiver, core, cx)?;
                            if let Some(why) = self.denied_key(&m.args) {
                                return Err(unsafe_at(core, why));
                            }
                            // A closure's result may be the value (`users.first().map(|u|
                            // u.email.clone())`): what it returns taints the call, where it says
                            // more than "unknown".
                            for a in &m.args {
                                if let Expr::Closure(c) = a
                                    && let Err(u) = self.check(&c.body, cx)
                                    && u.why != Why::Unknown
                                {
                                    return Err(u);
                                }
                            }
                            Err(unsafe_at(core, Why::Unknown))
                        }
                    }
                })
            }
            Expr::Call(c) => self.call(core, c, cx),
            Expr::Binary(b) => {
                self.check(&b.left, cx)?;
                self.check(&b.right, cx)
            }
            Expr::Unary(u) => self.check(&u.expr, cx),
            Expr::If(i) => {
                self.block_tail(&i.then_branch.stmts, core, cx)?;
                match &i.else_branch {
                    Some((_, e)) => self.check(e, cx),
                    None => Err(unsafe_at(core, Why::Unknown)),
                }
            }
            Expr::Block(b) => self.block_tail(&b.block.stmts, core, cx),
            Expr::Match(m) => m.arms.iter().try_for_each(|a| self.check(&a.body, cx)),
            Expr::Tuple(t) => t.elems.iter().try_for_each(|e| self.check(e, cx)),
            Expr::Array(a) => a.elems.iter().try_for_each(|e| self.check(e, cx)),
            Expr::Range(r) => {
                if let Some(s) = &r.start {
                    self.check(s, cx)?;
                }
                r.end.as_ref().map_or(Ok(()), |e| self.check(e, cx))
            }
            Expr::Index(i) => match self.denied_key(std::iter::once(&*i.index)) {
                Some(why) => Err(unsafe_at(core, why)),
                None => {
                    self.check(&i.expr, cx)?;
                    // An entry of a table compiled into the program is chosen by its index,
                    // which it gives away (`MONTHS[p.birth_month as usize]`,
                    // `LABELS[p.diagnosis as usize]`): the index decides, as a range's bounds
                    // do. A literal key or a range of a collection's elements does not.
                    let table = |p: &syn::ExprPath| {
                        p.path.segments.last().is_some_and(|s| {
                            with_str(&s.ident, |n| {
                                is_constant_name(n)
                                    || (p.path.segments.len() == 1
                                        && cx
                                            .scope
                                            .lookup(n)
                                            .is_some_and(|b| b.origin == Origin::Safe))
                            })
                        })
                    };
                    match (peel(&i.expr), peel(&i.index)) {
                        (Expr::Path(p), Expr::Path(_) | Expr::Field(_) | Expr::MethodCall(_))
                            if table(p) =>
                        {
                            self.check(&i.index, cx)
                        }
                        _ => Ok(()),
                    }
                }
            },
            Expr::Macro(m) => self.macro_call(core, &m.mac, cx),
            _ => Err(unsafe_at(core, Why::Unknown)),
        }
    }

    /// The error verdict on a value of type `ty`: [`Why::ErrorWithin`] when the type holds the
    /// error in a container, whose type name says nothing of what the value held.
    pub(crate) fn error_of(&self, ty: &crate::types::Ty) -> Why {
        use crate::types::Ty;
        let mut ty = self.types.resolve(ty);
        // Through what holds exactly one value: `Mutex<Option<E>>` is an Option of errors.
        for _ in 0..8 {
            match ty {
                Ty::Named(n, args) if HOLDERS.contains(&n.as_str()) && !args.is_empty() => {
                    ty = self.types.resolve(&args[0]);
                }
                Ty::Named(n, args) if !args.is_empty() && CONTAINERS.contains(&n.as_str()) => {
                    return Why::ErrorWithin(n.to_string());
                }
                Ty::Tuple(t) if !t.is_empty() => return Why::ErrorWithin("tuple".into()),
                Ty::Slice(_) => return Why::ErrorWithin("slice".into()),
                _ => return Why::Error,
            }
        }
        Why::Error
    }

    /// What a local bound to `why` carries, its own type `ty` (`None`: a part of it is logged):
    /// errors held in a container stay so only where the local is a container too. `for err in
    /// errors` and `if let Some(err) = &pending` bind one error.
    pub(crate) fn taint_of(&self, why: &Why, ty: Option<&crate::types::Ty>) -> Why {
        fn strip(why: &Why) -> Why {
            match why {
                Why::ErrorWithin(_) => Why::Error,
                Why::Bound { local, source } => Why::Bound {
                    local: local.clone(),
                    source: Box::new(strip(source)),
                },
                Why::Elided { hops, root } => Why::Elided {
                    hops: *hops,
                    root: Box::new(strip(root)),
                },
                other => other.clone(),
            }
        }
        // Where the local's type is not known, it may be the container: it stays so.
        let keep = ty.is_some_and(|t| {
            matches!(self.types.resolve(t), crate::types::Ty::Unknown)
                || matches!(self.error_of(t), Why::ErrorWithin(_))
        });
        if keep || !why.is_error() {
            why.clone()
        } else {
            strip(why)
        }
    }

    /// The fact the type index knows about `e`'s type.
    fn fact(&self, e: &Expr, cx: Ctx<'_>) -> Fact {
        self.fact_ty(&ty_of(e, cx.scope, &self.types))
    }

    /// The fact of a type; a configured `safe-types` entry is safe under any name.
    pub(crate) fn fact_ty(&self, ty: &crate::types::Ty) -> Fact {
        if let Some(name) = self.types.resolve(ty).name()
            && self.safe_types.iter().any(|t| t == name)
        {
            return Fact::Id;
        }
        fact_of(ty, &self.types)
    }

    /// An expression named like an error: an error, unless its type shows it cannot quote its
    /// input (a fieldless enum, a unit struct, a fixed-message error such as `ParseIntError`)
    /// or is no error at all (a `Uuid`, a `Duration`).
    fn error_value<'e>(&self, core: &'e Expr, cx: Ctx<'_>) -> Result<(), Unsafe<'e>> {
        if let Expr::Path(p) = core
            && let Some(b) = with_str(&p.path.segments[0].ident, |n| cx.scope.lookup(n))
        {
            match &b.origin {
                Origin::Safe => return Ok(()),
                Origin::Tainted(_) | Origin::Unknown => {}
            }
        }
        match self.fact(core, cx) {
            Fact::FixedError | Fact::FieldlessEnum(_) => Ok(()),
            f if f.proves_class() => Ok(()),
            _ => Err(unsafe_at(
                core,
                self.error_of(&ty_of(core, cx.scope, &self.types)),
            )),
        }
    }

    /// Checks every name along a receiver chain (`patient.record.id`) for deny stems, and the
    /// origin of a local at its root (`p.id` where `p` iterates over patients' names).
    fn chain_stems<'e>(&self, base: &Expr, at: &'e Expr, cx: Ctx<'_>) -> Result<(), Unsafe<'e>> {
        let mut cur = peel(base);
        loop {
            if let Expr::Path(p) = cur
                && p.path.segments.len() == 1
                && let Some(b) = with_str(&p.path.segments[0].ident, |n| cx.scope.lookup(n))
                && let Origin::Tainted(why) = &b.origin
                && !matches!(**why, Why::Refuted { .. })
                && !why.is_no_class()
            {
                let local = p.path.segments[0].ident.to_string();
                return Err(unsafe_at(at, Why::bound(&local, &self.taint_of(why, None))));
            }
            let name = match cur {
                Expr::Path(p) => p.path.segments.last().map(|s| &s.ident),
                Expr::Field(f) => match &f.member {
                    Member::Named(id) => Some(id),
                    Member::Unnamed(_) => None,
                },
                Expr::MethodCall(m) => Some(&m.method),
                _ => None,
            };
            if let Some(name) = name
                && let Some((name, stem)) = with_str(name, |n| match self.classify_name(n) {
                    NameVerdict::Denied { stem } => Some((n.to_owned(), stem)),
                    _ => None,
                })
            {
                return Err(unsafe_at(at, Why::Denied { name, stem }));
            }
            // A key read along the chain (`q.get("email").cloned()`, `v["ssn"].as_str()`).
            let key = match cur {
                Expr::MethodCall(m) => self.denied_key(&m.args),
                Expr::Call(c) => self.denied_key(&c.args),
                Expr::Index(i) => self.denied_key(std::iter::once(&*i.index)),
                _ => None,
            };
            if let Some(why) = key {
                return Err(unsafe_at(at, why));
            }
            // `SystemTime::now().duration_since(p.dob)`: an age, along the chain too, and called
            // by its path (`SystemTime::duration_since(&now, p.dob)`).
            let since_args = match cur {
                Expr::MethodCall(m) if with_str(&m.method, |n| SINCE.contains(&n)) => Some(&m.args),
                Expr::Call(c)
                    if matches!(&*c.func, Expr::Path(p) if p.path.segments.last()
                        .is_some_and(|s| with_str(&s.ident, |n| SINCE.contains(&n)))) =>
                {
                    Some(&c.args)
                }
                _ => None,
            };
            for a in since_args.into_iter().flatten() {
                let ty = self.types.resolve(&ty_of(a, cx.scope, &self.types));
                if ty.name() != Some("Instant") {
                    self.chain_stems(a, at, cx)?;
                }
            }
            cur = match cur {
                Expr::Field(f) => peel(&f.base),
                Expr::MethodCall(m) => peel(&m.receiver),
                Expr::Index(i) => peel(&i.expr),
                _ => return Ok(()),
            };
        }
    }

    fn call<'e>(&self, at: &'e Expr, c: &'e syn::ExprCall, cx: Ctx<'_>) -> Result<(), Unsafe<'e>> {
        let Expr::Path(p) = &*c.func else {
            return Err(unsafe_at(at, Why::Unknown));
        };
        let path: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let full = path.join("::");
        if path
            .last()
            .is_some_and(|l| TYPE_NAME_FNS.contains(&l.as_str()))
        {
            return Ok(());
        }
        if self.is_safe_function(&full) {
            return Ok(());
        }
        // A tuple struct or an enum variant built from allowed values is a composition of them
        // (`SetAttribute(Attribute::Bold)`, `Event::Started(job_id)`).
        if !c.args.is_empty() && path.last().is_some_and(|l| starts_upper(l)) {
            return c.args.iter().try_for_each(|a| self.check(a, cx));
        }
        match self.fact(at, cx) {
            f if f.proves_class() => Ok(()),
            _ => Err(unsafe_at(
                at,
                self.denied_key(&c.args).unwrap_or(Why::Unknown),
            )),
        }
    }

    /// A value read by a literal key names what it reads: `row.get("email")`,
    /// `headers.get("authorization")`, `json["ssn"]`, `env::var("DB_PASSWORD")`. The first
    /// argument that is a key (one word of letters, digits, `_`, `-` or `.`, not a sentence or a
    /// format string) with a deny stem. A local bound to it is then tainted, whatever the local
    /// is called (`let user_id = q.get("email")`).
    fn denied_key<'a>(&self, args: impl IntoIterator<Item = &'a Expr>) -> Option<Why> {
        args.into_iter().find_map(|a| {
            let key = match peel(a) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => s.value(),
                // The HTTP headers that carry credentials, by their `http::header` names.
                Expr::Path(p) => {
                    let last = p.path.segments.last()?.ident.to_string();
                    return matches!(
                        last.as_str(),
                        "AUTHORIZATION" | "PROXY_AUTHORIZATION" | "COOKIE" | "SET_COOKIE"
                    )
                    .then(|| {
                        let name = last.to_lowercase();
                        Why::Denied {
                            stem: name.clone(),
                            name,
                        }
                    });
                }
                _ => return None,
            };
            // The HTTP `Authorization` header's value is a credential.
            if key.eq_ignore_ascii_case("authorization")
                || key.eq_ignore_ascii_case("proxy-authorization")
            {
                return Some(Why::Denied {
                    stem: key.to_lowercase(),
                    name: key,
                });
            }
            let is_key = (1..=64).contains(&key.len())
                && key.starts_with(|c: char| c.is_ascii_alphabetic())
                && key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
            if !is_key {
                return None;
            }
            match self.classify_name(&key.replace('.', "_")) {
                NameVerdict::Denied { stem } => Some(Why::Denied { name: key, stem }),
                _ => None,
            }
        })
    }

    /// Whether a call path (`fingerprint`, `crate::audit::hmac`) is a configured safe function:
    /// equal to an entry, ending in `::entry`, or, for a bare entry, with that last segment.
    fn is_safe_function(&self, full: &str) -> bool {
        let last = full.rsplit("::").next().unwrap_or(full);
        self.safe_functions.iter().any(|f| {
            full == f || full.ends_with(&format!("::{f}")) || (!f.contains("::") && last == f)
        })
    }

    fn block_tail<'e>(
        &self,
        stmts: &'e [Stmt],
        at: &'e Expr,
        cx: Ctx<'_>,
    ) -> Result<(), Unsafe<'e>> {
        match stmts.last() {
            Some(Stmt::Expr(e, None)) => self.check(e, cx),
            _ => Err(unsafe_at(at, Why::Unknown)),
        }
    }

    /// `format!`/`format_args!`/`write!`-style nesting is allowed when every printed argument is;
    /// constant macros are constants.
    fn macro_call<'e>(
        &self,
        at: &'e Expr,
        mac: &syn::Macro,
        cx: Ctx<'_>,
    ) -> Result<(), Unsafe<'e>> {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if CONST_MACROS.contains(&name.as_str()) {
            return Ok(());
        }
        if !matches!(name.as_str(), "format" | "format_args") {
            return Err(unsafe_at(at, Why::Unknown));
        }
        // The first value that leaks is the culprit; the rest are not judged.
        let mut culprit: Option<Unsafe> = None;
        let parsed = mac.parse_body_with(parse_format_args).and_then(|args| {
            args.into_values(&mut |v| {
                if culprit.is_some() {
                    return;
                }
                culprit = match v {
                    crate::grammar::Value::Expr(e) => self.check(&e, cx).err().map(|u| Unsafe {
                        // The inner culprit's span is in the source; the expression is not kept.
                        span: Some(u.span()),
                        at: None,
                        why: u.why,
                    }),
                    crate::grammar::Value::Capture { name, .. } => self
                        .check_capture(&name, None, cx.scope)
                        .err()
                        .map(|why| unsafe_at(at, why)),
                };
            })
        });
        if parsed.is_err() {
            return Err(unsafe_at(at, Why::Unknown));
        }
        if let Some(u) = culprit {
            return Err(u);
        }
        Ok(())
    }
}

/// Peels what preserves a value's class: references, derefs, parentheses, casts, `?`,
/// single-expression blocks, conversions and `field::display`/`debug` wrappers.
/// A path or field chain as written, without the spaces of its tokens (`v.reason`, `self.0`).
fn dotted(e: &Expr) -> String {
    match e {
        Expr::Field(f) => {
            let member = match &f.member {
                Member::Named(id) => id.to_string(),
                Member::Unnamed(i) => i.index.to_string(),
            };
            format!("{}.{member}", dotted(peel(&f.base)))
        }
        Expr::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::"),
        other => crate::grammar::tokens_text(other),
    }
}

pub(crate) fn peel(mut e: &Expr) -> &Expr {
    loop {
        e = match e {
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::Cast(c) => &c.expr,
            Expr::Try(t) => &t.expr,
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                Stmt::Expr(inner, None) => inner,
                _ => return e,
            },
            Expr::MethodCall(m)
                if (m.args.is_empty() && PRESERVING.iter().any(|n| m.method == n))
                    || (m.method == "expect" && m.args.len() == 1) =>
            {
                &m.receiver
            }
            Expr::Call(c) if c.args.len() == 1 && is_wrapper_fn(&c.func) => &c.args[0],
            _ => return e,
        };
    }
}

fn is_wrapper_fn(func: &Expr) -> bool {
    let Expr::Path(p) = func else { return false };
    let last = p.path.segments.last().map(|s| &s.ident);
    last.is_some_and(|l| {
        ["display", "debug", "Some", "Ok", "from", "Box"]
            .iter()
            .any(|n| l == n)
    })
}

/// The arguments along a method chain that starts at a literal (`"─".repeat(n).red()` gives
/// `[n]`), or `None` if the chain starts anywhere else.
fn literal_chain(e: &Expr) -> Option<Vec<&Expr>> {
    let mut args = Vec::new();
    let mut cur = peel(e);
    loop {
        match cur {
            Expr::MethodCall(m) => {
                args.extend(m.args.iter());
                cur = peel(&m.receiver);
            }
            Expr::Lit(_) => return Some(args),
            _ => return None,
        }
    }
}

/// The name a value goes by: a variable's, a named field's, a method's or a function's (the
/// last segment), after peeling; `None` for `self` and for anything else.
fn value_name(e: &Expr) -> Option<String> {
    match peel(e) {
        Expr::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .filter(|n| n != "self"),
        Expr::Field(f) => match &f.member {
            Member::Named(id) => Some(id.to_string()),
            Member::Unnamed(_) => value_name(&f.base),
        },
        Expr::MethodCall(m) => Some(m.method.to_string()),
        Expr::Await(a) => value_name(&a.base),
        Expr::Call(c) => value_name(&c.func),
        _ => None,
    }
}

/// Whether a peeled expression is an error value or reaches into one.
fn is_error(e: &Expr) -> bool {
    match e {
        Expr::Path(p) if p.path.segments.len() == 1 => {
            with_str(&p.path.segments[0].ident, is_error_name)
        }
        Expr::Field(f) => match &f.member {
            Member::Named(id) => with_str(id, is_error_name),
            Member::Unnamed(_) => false,
        },
        Expr::MethodCall(m) => ERROR_METHODS.iter().any(|n| m.method == n),
        _ => false,
    }
}

/// `e`, `err`, `error`, `*_err`, `*_error`, `err_*` and the like, unless the name is in a safe
/// class (`error_kind`, `error_code`, `err_count`).
pub(crate) fn is_error_name(name: &str) -> bool {
    let n = to_snake(name);
    if phi_filter::names::name_class(&n).is_some() {
        return false;
    }
    matches!(
        n.as_str(),
        "e" | "err" | "error" | "errs" | "errors" | "ex" | "exc" | "exception" | "cause"
    ) || n.ends_with("_err")
        || n.ends_with("_error")
        || n.ends_with("_errors")
        || n.starts_with("err_")
        || n.starts_with("error_")
}

pub(crate) fn is_constant_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn starts_upper(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

fn unsafe_at(e: &Expr, why: Why) -> Unsafe<'_> {
    Unsafe {
        span: None,
        at: Some(e),
        why,
    }
}
