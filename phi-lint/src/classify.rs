//! Which interpolated expressions are allowed.
//!
//! After peeling `&`, `*`, parentheses, casts and class-preserving conversions, an expression is
//! allowed when it is a constant, or its last name (variable, field or zero-argument method) is
//! in a safe class of [`phi_filter::names`], or a structural method gives a count, a duration or
//! a status, or a type-name function gives a type name, or it is composed only of allowed parts,
//! or it calls a configured safe function. Deny stems beat the classes. Everything else is not
//! allowed; an error value gets its own verdict, because its message is the leak.

use phi_filter::names::{NamePolicy, NameVerdict, to_snake};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Member, Stmt};

use crate::grammar::{parse_format_args, tokens_text};

/// Why an expression is not allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Why {
    /// In no safe class.
    Unknown,
    /// A name along the expression carries a deny stem.
    Denied { name: String, stem: String },
    /// An error value: its message may quote SQL with bound parameters.
    Error,
}

/// The part of an expression that is not allowed, and why.
#[derive(Debug, Clone)]
pub(crate) struct Unsafe {
    pub(crate) span: Span,
    pub(crate) tokens: String,
    pub(crate) why: Why,
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
];
/// Zero-argument methods whose result is a count, whatever the receiver holds.
const COUNTS: &[&str] = &[
    "len", "count", "capacity", "is_empty", "is_some", "is_none", "is_ok", "is_err",
];
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

/// Classifies interpolated expressions under one name policy.
pub(crate) struct Classifier<'a> {
    pub(crate) names: &'a NamePolicy,
    pub(crate) safe_functions: &'a [String],
}

impl Classifier<'_> {
    /// `Ok` if `e` may be logged, else the part that may not.
    pub(crate) fn check(&self, e: &Expr) -> Result<(), Unsafe> {
        let core = peel(e);
        if is_error(core) {
            return Err(unsafe_at(core, Why::Error));
        }
        match core {
            Expr::Lit(_) => Ok(()),
            Expr::Path(p) => {
                let segs = &p.path.segments;
                let Some(last) = segs.last() else {
                    return Ok(());
                };
                let name = last.ident.to_string();
                if is_constant_name(&name) || starts_upper(&name) {
                    return Ok(());
                }
                if p.qself.is_none() && segs.len() == 1 && name == "self" {
                    return Err(unsafe_at(core, Why::Unknown));
                }
                self.name(core, &name)
            }
            Expr::Field(f) => match &f.member {
                Member::Named(id) => {
                    self.chain_stems(&f.base, core)?;
                    self.name(core, &id.to_string())
                }
                Member::Unnamed(_) => Err(unsafe_at(core, Why::Unknown)),
            },
            Expr::MethodCall(m) => {
                let method = m.method.to_string();
                if m.args.is_empty() {
                    if COUNTS.contains(&method.as_str()) || DURATIONS.contains(&method.as_str()) {
                        return Ok(());
                    }
                    if STATUSES.contains(&method.as_str()) {
                        return self.chain_stems(&m.receiver, core);
                    }
                    self.chain_stems(&m.receiver, core)?;
                    return self.name(core, &method);
                }
                if self.is_safe_function(&method) {
                    return Ok(());
                }
                Err(unsafe_at(core, Why::Unknown))
            }
            Expr::Call(c) => self.call(core, c),
            Expr::Binary(b) => {
                self.check(&b.left)?;
                self.check(&b.right)
            }
            Expr::Unary(u) => self.check(&u.expr),
            Expr::If(i) => {
                self.block_tail(&i.then_branch.stmts, core)?;
                match &i.else_branch {
                    Some((_, e)) => self.check(e),
                    None => Err(unsafe_at(core, Why::Unknown)),
                }
            }
            Expr::Block(b) => self.block_tail(&b.block.stmts, core),
            Expr::Match(m) => m.arms.iter().try_for_each(|a| self.check(&a.body)),
            Expr::Tuple(t) => t.elems.iter().try_for_each(|e| self.check(e)),
            Expr::Array(a) => a.elems.iter().try_for_each(|e| self.check(e)),
            Expr::Range(r) => {
                if let Some(s) = &r.start {
                    self.check(s)?;
                }
                r.end.as_ref().map_or(Ok(()), |e| self.check(e))
            }
            Expr::Index(i) => self.check(&i.expr),
            Expr::Macro(m) => self.macro_call(core, &m.mac),
            _ => Err(unsafe_at(core, Why::Unknown)),
        }
    }

    /// A name's verdict; `at` is the expression it names.
    fn name(&self, at: &Expr, name: &str) -> Result<(), Unsafe> {
        match self.names.classify(name) {
            v if v.is_allowed() => Ok(()),
            NameVerdict::Denied { stem } => Err(unsafe_at(
                at,
                Why::Denied {
                    name: name.to_owned(),
                    stem,
                },
            )),
            _ => Err(unsafe_at(at, Why::Unknown)),
        }
    }

    /// Checks every name along a receiver chain (`patient.record.id`) for deny stems.
    fn chain_stems(&self, base: &Expr, at: &Expr) -> Result<(), Unsafe> {
        let mut cur = peel(base);
        loop {
            let name = match cur {
                Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                Expr::Field(f) => match &f.member {
                    Member::Named(id) => Some(id.to_string()),
                    Member::Unnamed(_) => None,
                },
                Expr::MethodCall(m) => Some(m.method.to_string()),
                _ => None,
            };
            if let Some(name) = name
                && let Some(stem) = self.names.denied_stem(&name)
            {
                return Err(unsafe_at(
                    at,
                    Why::Denied {
                        name,
                        stem: stem.to_owned(),
                    },
                ));
            }
            cur = match cur {
                Expr::Field(f) => peel(&f.base),
                Expr::MethodCall(m) => peel(&m.receiver),
                _ => return Ok(()),
            };
        }
    }

    fn call(&self, at: &Expr, c: &syn::ExprCall) -> Result<(), Unsafe> {
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
        Err(unsafe_at(at, Why::Unknown))
    }

    /// Whether a call path (`fingerprint`, `crate::audit::hmac`) is a configured safe function:
    /// equal to an entry, ending in `::entry`, or, for a bare entry, with that last segment.
    fn is_safe_function(&self, full: &str) -> bool {
        let last = full.rsplit("::").next().unwrap_or(full);
        self.safe_functions.iter().any(|f| {
            full == f || full.ends_with(&format!("::{f}")) || (!f.contains("::") && last == f)
        })
    }

    fn block_tail(&self, stmts: &[Stmt], at: &Expr) -> Result<(), Unsafe> {
        match stmts.last() {
            Some(Stmt::Expr(e, None)) => self.check(e),
            _ => Err(unsafe_at(at, Why::Unknown)),
        }
    }

    /// `format!`/`format_args!`/`write!`-style nesting is allowed when every printed argument is;
    /// constant macros are constants.
    fn macro_call(&self, at: &Expr, mac: &syn::Macro) -> Result<(), Unsafe> {
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
        let parsed = mac
            .parse_body_with(parse_format_args)
            .and_then(crate::grammar::FormatArgs::into_values);
        let Ok((printed, _)) = parsed else {
            return Err(unsafe_at(at, Why::Unknown));
        };
        for v in printed {
            match v {
                crate::grammar::Value::Expr(e) => self.check(&e)?,
                crate::grammar::Value::Capture { name, .. } => self
                    .names
                    .classify(&name)
                    .is_allowed()
                    .then_some(())
                    .ok_or_else(|| unsafe_at(at, Why::Unknown))?,
            }
        }
        Ok(())
    }
}

/// Peels what preserves a value's class: references, derefs, parentheses, casts, `?`,
/// single-expression blocks, conversions and `field::display`/`debug` wrappers.
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
                if (m.args.is_empty() && PRESERVING.contains(&m.method.to_string().as_str()))
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
    let last = p
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    matches!(
        last.as_str(),
        "display" | "debug" | "Some" | "Ok" | "from" | "Box"
    )
}

/// Whether a peeled expression is an error value or reaches into one.
fn is_error(e: &Expr) -> bool {
    match e {
        Expr::Path(p) if p.path.segments.len() == 1 => {
            is_error_name(&p.path.segments[0].ident.to_string())
        }
        Expr::Field(f) => match &f.member {
            Member::Named(id) => is_error_name(&id.to_string()),
            Member::Unnamed(_) => false,
        },
        Expr::MethodCall(m) => ERROR_METHODS.contains(&m.method.to_string().as_str()),
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

fn is_constant_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn starts_upper(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

fn unsafe_at(e: &Expr, why: Why) -> Unsafe {
    Unsafe {
        span: e.span(),
        tokens: tokens_text(e),
        why,
    }
}
