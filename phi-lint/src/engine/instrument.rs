//! `#[instrument]`: every argument not skipped is recorded (`self` included, and each name a
//! destructured argument binds, with `Debug`); `fields(..)` are checked like event fields; `err`
//! and `ret` record the error and the return value unless their types are safe.

use phi_filter::names::{NameClass, NameVerdict, to_snake};
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Pat, PathArguments, ReturnType, Type};

use super::Linter;
use crate::classify::Why;
use crate::grammar::{Sink, parse_instrument, tokens_text};
use crate::rules::{self, Rule};
use crate::types::Fact;

const MACRO: &str = "#[instrument]";

impl Linter<'_> {
    /// An `#[instrument]` (`meta`, which `attr` holds, maybe inside a `cfg_attr`) on `sig`.
    pub(super) fn instrument(
        &mut self,
        attr: &syn::Attribute,
        meta: &syn::Meta,
        sig: &syn::Signature,
    ) {
        self.statements += 1;
        let attr_span = attr.span();
        let stmt = self.statement((attr_span.start(), attr_span.end()));
        let args = match parse_instrument(meta) {
            Ok(a) => a,
            Err(e) => {
                let message = rules::unparsed_macro::instrument(&e);
                let text = tokens_text(attr);
                let span = (attr_span.start(), attr_span.end());
                self.push(
                    Rule::UnparsedMacro,
                    span,
                    MACRO,
                    "",
                    text.clone(),
                    text,
                    message,
                    stmt,
                );
                return;
            }
        };
        for interp in &args.fields.interps {
            self.check_interp(MACRO, Sink::Span { level_arg: false }, interp, stmt);
        }
        if !args.skip_all {
            // A set, not a scan per argument: `skip(..)` and the fields are as long as the
            // source makes them, and so is the argument list.
            let named: std::collections::HashSet<&str> = args
                .skip
                .iter()
                .chain(&args.field_keys)
                .map(String::as_str)
                .collect();
            for input in &sig.inputs {
                self.instrument_arg(input, &named, stmt);
            }
        }
        let (ok_ty, err_ty) = result_types(&sig.output);
        if let Some(at) = args.err
            && let Some(err_ty) = err_ty.filter(|t| !self.type_is_safe(t))
        {
            let text = self.shown(err_ty);
            let message = rules::error_message::instrument_err(&text);
            self.push(
                Rule::ErrorMessage,
                (at.start(), at.end()),
                MACRO,
                "error",
                text,
                tokens_text(err_ty),
                message,
                stmt,
            );
        }
        if let Some(at) = args.ret
            && let Some(ty) = ok_ty
        {
            // Without `err`, `ret` records the whole `Result` with `Debug`, its error included.
            let whole = match (&sig.output, args.err, err_ty) {
                (ReturnType::Type(_, whole), None, Some(_)) => Some(&**whole),
                _ => None,
            };
            // A function named in a class (`fn user_count()`) returns that class, unless its
            // declared type refutes it (`fn resolve_user_id() -> String` is free text).
            let fn_name_safe = match self.classifier.classify_name(&sig.ident.to_string()) {
                NameVerdict::Allowed(class) => !self.refuted_by_content(ty, class),
                verdict => verdict.is_allowed(),
            };
            let value_safe = self.type_is_safe(ty) || fn_name_safe;
            let error_safe = whole.is_none() || err_ty.is_some_and(|t| self.type_is_safe(t));
            let ty = whole.unwrap_or(ty);
            if !(value_safe && error_safe) {
                let text = self.shown(ty);
                let message = rules::instrument_ret::message(&text);
                self.push(
                    Rule::InstrumentRet,
                    (at.start(), at.end()),
                    MACRO,
                    "return",
                    text,
                    tokens_text(ty),
                    message,
                    stmt,
                );
            }
        }
    }

    fn instrument_arg(
        &mut self,
        input: &FnArg,
        named: &std::collections::HashSet<&str>,
        stmt: (crate::Pos, crate::Pos),
    ) {
        // An argument skipped or named by a field is not recorded under its own name.
        let recorded = |name: &str| !named.contains(name);
        match input {
            FnArg::Receiver(r) => {
                if recorded("self") {
                    let span = (r.self_token.span.start(), r.self_token.span.end());
                    let message = rules::instrument_arg::SELF.to_owned();
                    self.push(
                        Rule::InstrumentArg,
                        span,
                        MACRO,
                        "self",
                        "self".into(),
                        "self".into(),
                        message,
                        stmt,
                    );
                }
            }
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Wild(_) => {}
                Pat::Ident(pi) => {
                    let name = pi.ident.to_string();
                    let name = name.trim_start_matches("r#");
                    // An argument is a span field: a pseudonymized one records a keyed token.
                    if !recorded(name) || self.classifier.names.pseudonymizes(name) {
                        return;
                    }
                    let ty = crate::types::Ty::from_syn(&pt.ty, self.self_ty.as_deref());
                    self.recorded_name(&pi.ident, name, &ty, stmt, |lint| {
                        (!lint.type_is_safe(&pt.ty))
                            .then(|| rules::instrument_arg::recorded(name, &lint.shown(&*pt.ty)))
                    });
                }
                // tracing-attributes records each name the pattern binds, with `Debug`, and
                // `skip(..)` names those names (`State(state): State<App>` is `skip(state)`).
                // Each has its type in scope, bound with the parameters.
                other => {
                    let mut bound = Vec::new();
                    bound_names(other, &mut bound);
                    for ident in bound {
                        let name = ident.to_string();
                        let name = name.trim_start_matches("r#");
                        if !recorded(name) || self.classifier.names.pseudonymizes(name) {
                            continue;
                        }
                        let ty = self
                            .scope
                            .lookup(name)
                            .map_or(crate::types::Ty::Unknown, |b| b.ty.clone());
                        self.recorded_name(ident, name, &ty, stmt, |_| {
                            Some(rules::instrument_arg::destructured(name))
                        });
                    }
                }
            },
        }
    }

    /// One name `#[instrument]` records, of type `ty`, judged by name and type together as a
    /// value an event logs is: a type that proves a class passes under any name, and
    /// `user_id: &str` is free text under an id name. `unknown` gives the message of a name in
    /// no safe class, or `None` when something else (a declared type) makes it safe.
    fn recorded_name(
        &mut self,
        ident: &syn::Ident,
        name: &str,
        ty: &crate::types::Ty,
        stmt: (crate::Pos, crate::Pos),
        unknown: impl FnOnce(&Self) -> Option<String>,
    ) {
        let fact = self.classifier.fact_ty(ty);
        let message = match self.classifier.decide(name, fact, None) {
            Ok(()) => return,
            Err(Why::Unknown) => match unknown(self) {
                Some(m) => m,
                None => return,
            },
            Err(Why::Denied { name: n, stem }) if n == name => {
                rules::instrument_arg::denied(name, &stem)
            }
            Err(why) => format!("argument {}", why.message(name)),
        };
        self.push(
            Rule::InstrumentArg,
            (ident.span().start(), ident.span().end()),
            MACRO,
            name,
            name.to_owned(),
            name.to_owned(),
            message,
            stmt,
        );
    }

    /// A node's source text, or its tokens when the source is not at hand.
    fn shown(&self, node: &(impl Spanned + quote::ToTokens)) -> String {
        let span = node.span();
        self.text(span.start(), span.end())
            .map_or_else(|| tokens_text(node), ToOwned::to_owned)
    }

    /// `()`, fixed-message errors, configured safe types, and types whose name is in a safe
    /// class (`UserId`, `Uuid`, `Duration`, `StatusCode`, `ErrorKind`) unless the type index shows
    /// their content refutes it, looking through `&`, `Option` and `Box`. Numbers and bools are
    /// not safe by type alone: a reading is a number, an `is_pregnant` a bool; they pass under a
    /// name of a safe class (the argument's, or the function's for `ret`).
    fn type_is_safe(&self, ty: &Type) -> bool {
        match ty {
            Type::Reference(r) => self.type_is_safe(&r.elem),
            Type::Paren(p) => self.type_is_safe(&p.elem),
            Type::Group(g) => self.type_is_safe(&g.elem),
            Type::Tuple(t) => t.elems.iter().all(|e| self.type_is_safe(e)),
            Type::Path(p) => {
                let Some(last) = p.path.segments.last() else {
                    return false;
                };
                let name = last.ident.to_string();
                if matches!(
                    name.as_str(),
                    "Option" | "Box" | "Arc" | "Rc" | "Vec" | "Range" | "RangeInclusive"
                ) {
                    return single_generic(&last.arguments).is_some_and(|t| self.type_is_safe(t));
                }
                // An error whose message is fixed text (`ParseIntError`, a fieldless enum).
                self.classifier
                    .fact_ty(&crate::types::Ty::from_syn(ty, self.self_ty.as_deref()))
                    == Fact::FixedError
                    || self
                        .config
                        .safe_types
                        .iter()
                        .any(|s| s.rsplit("::").next() == Some(name.as_str()))
                    || match self.classifier.classify_name(&to_snake(&name)) {
                        NameVerdict::Allowed(class) => !self.refuted_by_content(ty, class),
                        verdict => verdict.is_allowed(),
                    }
            }
            _ => false,
        }
    }

    /// Whether the type index shows that a type whose name claims `class` holds something else,
    /// as a value an event logs is judged: free text under an id, status or count name
    /// (`UserId(CaseInsensitiveString)`, a login name), or a struct, map or collection under
    /// any. Text under a type name (`type MediaType = String`) agrees with it. A type the index
    /// does not hold is judged by its name.
    fn refuted_by_content(&self, ty: &Type, class: NameClass) -> bool {
        let ty = crate::types::Ty::from_syn(ty, self.self_ty.as_deref());
        match self.classifier.fact_ty(&ty) {
            Fact::Text(_) => matches!(
                class,
                NameClass::OpaqueId | NameClass::Status | NameClass::Count
            ),
            Fact::Composite(_) => true,
            _ => false,
        }
    }
}

/// The `Ok` and `Err` types of a `Result<T, E>` return type; for any other type, the type itself
/// and no error type. Unit functions return neither.
fn result_types(output: &ReturnType) -> (Option<&Type>, Option<&Type>) {
    let ReturnType::Type(_, ty) = output else {
        return (None, None);
    };
    if let Type::Path(p) = &**ty
        && let Some(last) = p.path.segments.last()
        && last.ident.to_string().ends_with("Result")
        && let PathArguments::AngleBracketed(args) = &last.arguments
    {
        let mut types = args.args.iter().filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        });
        let ok = types.next();
        // `anyhow::Result<T>` and `io::Result<T>` aliases name only `T`; their error is an
        // error type all the same.
        let err = types.next().or(Some(&**ty));
        return (ok, err);
    }
    (Some(ty), None)
}

fn single_generic(args: &PathArguments) -> Option<&Type> {
    let PathArguments::AngleBracketed(a) = args else {
        return None;
    };
    a.args.iter().find_map(|g| match g {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// The names a parameter pattern binds, as tracing-attributes finds them: through references,
/// struct, tuple and tuple-struct patterns; nothing else binds a recorded name.
fn bound_names<'p>(pat: &'p Pat, out: &mut Vec<&'p syn::Ident>) {
    match pat {
        Pat::Ident(pi) => out.push(&pi.ident),
        Pat::Reference(r) => bound_names(&r.pat, out),
        Pat::Struct(s) => s.fields.iter().for_each(|f| bound_names(&f.pat, out)),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| bound_names(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| bound_names(p, out)),
        _ => {}
    }
}
