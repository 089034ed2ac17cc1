//! `macro_rules!` judged at each call site: a call to a macro this file defines is matched
//! against the macro's arms and its expansion is linted with the caller's arguments substituted,
//! so `($user_id:expr) => eprintln!("{}", $user_id)` called as `m!(patient.name)` is a finding at
//! `patient.name`. The definition is still linted on its own (for what its body logs by itself);
//! at a call site only the values the caller passed are reported.
//!
//! Which macro a call means: one defined in the same file, visible everywhere in it (the last
//! definition before the call wins, else the first after it), else each one other files of the
//! scan define (handed in by [`super::lint`], which lints such a caller twice); calls
//! by bare name or by `crate::`/`$crate::`/`self::`/`super::` path. A call no arm matches (as
//! [`MacroDef`] reads them), whose expansion exceeds the bounds, or whose name more than
//! [`MAX_DEFINITIONS`] definitions that reach a sink give, is an `unchecked-wrapper` finding at
//! the call: it fails closed. A byte-identical definition is read once.

use std::collections::HashMap;

use proc_macro2::{Delimiter, LineColumn, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;

use super::Linter;
use super::tokens::macro_calls;
use crate::grammar::{ExpandError, MacroDef, Value, sink_for};
use crate::rules::Rule;

/// Deepest chain of expansions followed (a macro calling a macro calling …).
const MAX_DEPTH: usize = 32;
/// Token trees expanded per file, over all calls.
const FILE_BUDGET: usize = 2_000_000;
/// Token trees expanded for one call written in the file, the expansions of the macros it
/// reaches included: a macro that explodes (one calling itself twice) stops at its own bound,
/// and the file's other calls are still expanded.
const CALL_BUDGET: usize = FILE_BUDGET / 10;
/// Most definitions read per file.
const MAX_MACROS: usize = 4096;
/// Most definitions one call is expanded with: a name other files define, distinct definitions
/// that reach a sink counted. Each is expanded and linted at every call, so 2,000 files defining
/// `m!` made each of its calls cost 2,000 expansions; past this bound the call is a finding.
pub(crate) const MAX_DEFINITIONS: usize = 64;

/// A `macro_rules!` of the file being linted.
pub(super) struct LocalMacro {
    name: String,
    at: LineColumn,
    def: MacroDef,
    /// Whether its expansion can reach a sink; a macro that cannot is not expanded.
    logs: bool,
    /// The text of its rules, for other files, if this file defines it.
    text: Option<String>,
}

/// The expansion being linted.
#[derive(Clone)]
pub(super) struct Expansion {
    /// The outermost call, in the file's source: where every finding of the expansion goes.
    pub(super) call: (LineColumn, LineColumn),
    /// The macros expanded, outermost first.
    names: Vec<String>,
    /// The file's count of expanded token trees when the outermost call began.
    start: usize,
}

impl Expansion {
    /// Whether a token came from the call's own text (an argument), not from a transcriber.
    pub(super) fn holds(&self, span: Span) -> bool {
        !span.byte_range().is_empty() && span.start() >= self.call.0 && span.end() <= self.call.1
    }

    /// ` (through `a!` → `b!`)`, for messages.
    pub(super) fn through(&self) -> String {
        format!(" (through `{}!`)", self.names.join("!` → `"))
    }
}

/// Collects the `macro_rules!` a file defines, anywhere in it.
struct Defs(Vec<(String, LineColumn, TokenStream)>);

impl<'ast> Visit<'ast> for Defs {
    fn visit_item_macro(&mut self, i: &'ast syn::ItemMacro) {
        if i.mac.path.is_ident("macro_rules")
            && let Some(name) = &i.ident
            && self.0.len() < MAX_MACROS
        {
            self.0
                .push((name.to_string(), name.span().start(), i.mac.tokens.clone()));
        }
    }
}

/// The `macro_rules!` a tree defines, anywhere in it: each one's name and the text of its
/// rules, as other files are handed them (at most [`MAX_MACROS`]).
pub(super) fn definitions(file: &syn::File) -> Vec<(String, String)> {
    let mut defs = Defs(Vec::new());
    defs.visit_file(file);
    defs.0
        .into_iter()
        .map(|(name, _, tokens)| (name, tokens.to_string()))
        .collect()
}

impl Linter<'_> {
    /// Reads the file's `macro_rules!` definitions, and those of other files it calls
    /// (`foreign`: name → the text of its rules), before it is linted.
    pub(super) fn collect_macros(
        &mut self,
        file: &syn::File,
        foreign: &HashMap<String, Vec<String>>,
    ) {
        let mut defs = Defs(Vec::new());
        defs.visit_file(file);
        let own_count = defs.0.len();
        let texts: Vec<String> = defs.0.iter().map(|(_, _, t)| t.to_string()).collect();
        let own: Vec<String> = defs.0.iter().map(|(n, _, _)| n.clone()).collect();
        self.macro_names.extend(own.iter().cloned());
        let mut foreign: Vec<(&String, &String)> = foreign
            .iter()
            .filter(|(name, _)| !own.contains(name))
            .flat_map(|(name, texts)| texts.iter().map(move |t| (name, t)))
            .collect();
        foreign.sort_unstable();
        // A definition copied into several files expands as one does.
        foreign.dedup();
        let start = LineColumn { line: 0, column: 0 };
        let foreign = foreign
            .into_iter()
            .filter_map(|(name, text)| Some((name.clone(), start, text.parse().ok()?)));
        self.macros = defs
            .0
            .into_iter()
            .chain(foreign)
            .enumerate()
            .filter_map(|(i, (name, at, tokens))| {
                Some(LocalMacro {
                    name,
                    at,
                    def: MacroDef::parse(tokens)?,
                    logs: false,
                    text: texts.get(i).cloned().filter(|_| i < own_count),
                })
            })
            .collect();
        // Which macros reach a sink, directly or through another macro of the file.
        loop {
            let mut changed = false;
            for i in 0..self.macros.len() {
                if !self.macros[i].logs && self.body_logs(&self.macros[i].def.bodies) {
                    self.macros[i].logs = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Other files need only the macros their arguments can reach a sink through.
        self.macro_defs = self
            .macros
            .iter()
            .filter(|m| m.logs)
            .filter_map(|m| Some((m.name.clone(), m.text.clone()?)))
            .collect();
    }

    /// Whether a caller's arguments can reach a sink through these transcribers: a sink call
    /// (or a call to a macro of the file that logs) with a metavariable among its arguments, a
    /// `write!` whose destination is a metavariable or a stream, or, where the body uses
    /// metavariables at all, a sink that is not a macro call (`.record`, `#[instrument]`, a
    /// writer method). A sink call the caller cannot reach is judged at the definition alone.
    fn body_logs(&self, bodies: &[TokenStream]) -> bool {
        bodies.iter().any(|b| {
            let mut found = false;
            let other = macro_calls(b.clone(), &mut |path: &str, args: &TokenStream| {
                if found || !has_metavariable(args) {
                    return;
                }
                let resolved = self.imports.resolve(path);
                let p = resolved.as_deref().unwrap_or(path);
                let last = p.rsplit("::").next().unwrap_or(p);
                found = if matches!(last, "write" | "writeln") {
                    let dest: TokenStream = args
                        .clone()
                        .into_iter()
                        .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                        .collect();
                    has_metavariable(&dest) || super::writers::writes_to_std_stream(&dest, &[])
                } else {
                    sink_for(p, Some(&|n: &str| self.config.wrapper(n))).is_some()
                        || self.macros.iter().any(|m| m.logs && m.name == last)
                        // `log::$level!(..)`, `$m!(..)`: the caller names the macro, which
                        // may be a sink; each call is expanded to see.
                        || last.starts_with('$')
                };
            });
            found || (other && has_metavariable(b))
        })
    }

    /// Notes a call the file cannot resolve: a macro another file may define.
    pub(super) fn want(&mut self, path: &str) {
        let Some(name) = project_macro_name(path) else {
            return;
        };
        if !self.wanted.contains(name) {
            self.wanted.insert(name.to_owned());
        }
    }

    /// Whether a bare macro name is one of the file's `macro_rules!` (then it is not the sink
    /// of that name).
    pub(super) fn defines_macro(&self, path: &str) -> bool {
        !path.contains("::") && self.macros.iter().any(|m| m.name == path)
    }

    /// The file's macro a call at `at` names, if it reaches a sink.
    /// A macro of this file wins; a name several other files define means each of them.
    pub(super) fn local_macros(&self, path: &str, at: LineColumn) -> Vec<usize> {
        if self.macros.is_empty() || self.macro_rules.is_some() {
            return Vec::new();
        }
        let Some(name) = project_macro_name(path) else {
            return Vec::new();
        };
        let at = self.expansion.as_ref().map_or(at, |e| e.call.0);
        let same = |own: bool| {
            self.macros
                .iter()
                .enumerate()
                .filter(move |(_, m)| m.name == name && m.text.is_some() == own)
        };
        let chosen = same(true)
            .rfind(|(_, m)| m.at <= at)
            .or_else(|| same(true).next());
        match chosen {
            Some((i, m)) => m.logs.then_some(i).into_iter().collect(),
            None => same(false)
                .filter(|(_, m)| m.logs)
                .map(|(i, _)| i)
                .collect(),
        }
    }

    /// Lints the expansions of a call with each of the macros `idxs` (one, unless several other
    /// files define the name). A call none of them expands is a finding.
    pub(super) fn expand_call(
        &mut self,
        idxs: &[usize],
        path: &str,
        tokens: TokenStream,
        span: (LineColumn, LineColumn),
    ) {
        if idxs.len() > MAX_DEFINITIONS {
            let name = self.macros[idxs[0]].name.clone();
            self.unexpanded(&name, path, Unexpanded::Definitions(idxs.len()), span);
            self.nested(tokens);
            return;
        }
        let depth = self.expansion.as_ref().map_or(0, |e| e.names.len());
        let start = self.expansion.as_ref().map_or(self.expanded, |e| e.start);
        let mut expansions = Vec::new();
        let mut failure = None;
        let mut limited = false;
        for &idx in idxs {
            let spent = self.expanded.saturating_sub(start);
            let result = if depth >= MAX_DEPTH || self.expanded > FILE_BUDGET || spent > CALL_BUDGET
            {
                Err(ExpandError::Limit)
            } else {
                self.macros[idx].def.expand(&tokens)
            };
            match result {
                Ok(ts) => {
                    self.expanded += count(&ts);
                    expansions.push((self.macros[idx].name.clone(), ts));
                }
                Err(e) => {
                    limited |= e == ExpandError::Limit;
                    failure.get_or_insert(e);
                }
            }
        }
        // A definition that matches none of the call's arms cannot be the one that compiles;
        // one past a bound may be, and another definition's expansion does not check it.
        if expansions.is_empty() || limited {
            let name = idxs.first().map(|&i| self.macros[i].name.clone());
            let name = name.unwrap_or_else(|| path.to_owned());
            let why = match failure {
                Some(e) if expansions.is_empty() => e,
                Some(_) => ExpandError::Limit,
                None => ExpandError::NoMatch,
            };
            let why = Unexpanded::Expand(why);
            self.unexpanded(&name, path, why, span);
            if expansions.is_empty() {
                self.nested(tokens);
                return;
            }
        }
        let outer = self.expansion.clone();
        for (name, expansion) in expansions {
            let mut inner = outer.clone().unwrap_or(Expansion {
                call: span,
                names: Vec::new(),
                start,
            });
            inner.names.push(name);
            self.expansion = Some(inner);
            self.nested(expansion);
        }
        self.expansion = outer;
    }

    /// A call that cannot be expanded: its arguments are not checked, which is a finding.
    fn unexpanded(
        &mut self,
        name: &str,
        path: &str,
        e: Unexpanded,
        span: (LineColumn, LineColumn),
    ) {
        self.statements += 1;
        let why = match e {
            Unexpanded::Expand(ExpandError::NoMatch) => {
                "phi-lint cannot match this call against its rules".to_owned()
            }
            Unexpanded::Expand(ExpandError::Limit) => {
                "its expansion exceeds phi-lint's bounds".to_owned()
            }
            Unexpanded::Definitions(n) => format!(
                "it has {n} definitions that do, over phi-lint's bound of {MAX_DEFINITIONS} \
                 definitions expanded for one call"
            ),
        };
        let message =
            format!("`{name}!` reaches a log, but {why}, so the values it passes are not checked");
        let stmt = self.statement(span);
        let expr = self.text(span.0, span.1).unwrap_or(path).to_owned();
        self.push(
            Rule::UncheckedWrapper,
            span,
            path,
            "",
            expr,
            format!("{path}!"),
            message,
            stmt,
        );
    }
}

/// Why a call is not expanded.
#[derive(Clone, Copy)]
enum Unexpanded {
    Expand(ExpandError),
    /// More definitions than [`MAX_DEFINITIONS`], this many.
    Definitions(usize),
}

/// Whether tokens hold a metavariable (`$x`, `$( .. )`), other than `$crate`.
fn has_metavariable(ts: &TokenStream) -> bool {
    let mut stack = vec![(ts.clone(), 0usize)];
    while let Some((ts, depth)) = stack.pop() {
        if depth > super::tokens::MAX_TOKEN_DEPTH {
            return true;
        }
        let mut dollar = false;
        for tt in ts {
            match &tt {
                TokenTree::Ident(id) if dollar && id != "crate" => return true,
                TokenTree::Group(_) if dollar => return true,
                TokenTree::Group(g) => stack.push((g.stream(), depth + 1)),
                _ => {}
            }
            dollar = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '$');
        }
    }
    false
}

/// Where, in the call, the caller wrote the part of a value that is not safe: the culprit's own
/// span if the caller wrote it, else the first token of the value the caller wrote. `None` if
/// the value is the transcriber's alone.
pub(super) fn caller_token(
    exp: &Expansion,
    value: &Value,
    culprit: Span,
) -> Option<(LineColumn, LineColumn)> {
    match value {
        Value::Capture { start, end, .. } => {
            (*start >= exp.call.0 && *end <= exp.call.1).then_some((*start, *end))
        }
        Value::Expr(e) => {
            if exp.holds(culprit) {
                return Some((culprit.start(), culprit.end()));
            }
            let mut stack = vec![e.to_token_stream()];
            let mut seen = 0usize;
            while let Some(ts) = stack.pop() {
                let mut groups = Vec::new();
                for tt in ts {
                    seen += 1;
                    if seen > crate::grammar::MAX_EXPANSION {
                        return None;
                    }
                    match tt {
                        TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
                            groups.push(g.stream());
                        }
                        TokenTree::Group(g) => {
                            if exp.holds(g.span_open()) {
                                return Some((g.span().start(), g.span().end()));
                            }
                            groups.push(g.stream());
                        }
                        other if exp.holds(other.span()) => {
                            return Some((other.span().start(), other.span().end()));
                        }
                        _ => {}
                    }
                }
                // Depth-first in source order: the first group's tokens before the next ones'.
                stack.extend(groups.into_iter().rev());
            }
            None
        }
    }
}

/// Token trees in a stream, nested ones included (bounded by the expansion's own bound).
fn count(ts: &TokenStream) -> usize {
    let mut n = 0;
    let mut stack = vec![ts.clone()];
    while let Some(ts) = stack.pop() {
        for tt in ts {
            n += 1;
            if let TokenTree::Group(g) = tt {
                stack.push(g.stream());
            }
        }
    }
    n
}

/// The `pub use` renames of `tracing`'s and `log`'s logging macros in these items and their
/// inline modules, each as the rules of a `macro_rules!` of the alias's name that forwards
/// everything to the macro it names.
pub(super) fn reexported_sinks(items: &[syn::Item], depth: usize, out: &mut Vec<(String, String)>) {
    if depth > 16 {
        return;
    }
    for item in items {
        match item {
            syn::Item::Use(u) if !matches!(u.vis, syn::Visibility::Inherited) => {
                for (alias, target) in super::imports::renames(std::iter::once(item)) {
                    let target = target.trim_start_matches("::");
                    let Some((krate, name)) = target.split_once("::") else {
                        continue;
                    };
                    if matches!(krate, "tracing" | "log")
                        && !name.contains("::")
                        && alias != name
                        && sink_for(name, None).is_some()
                    {
                        out.push((
                            alias,
                            format!("($($t:tt)*) => {{ ::{krate}::{name}!($($t)*) }};"),
                        ));
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    reexported_sinks(inner, depth + 1, out);
                }
            }
            _ => {}
        }
    }
}

/// The name of the project's macro a call path may name: a bare name, or the last segment of
/// a path from the crate's root or a module of it (`crate::logging::audit!`,
/// `super::logging::audit!`, `self::audit!`, the 2018 idiom for a `macro_rules!` made public
/// with `pub(crate) use`). A path from another crate (`anyhow::ensure!`, `tokio::select!`,
/// `common::audit!`) names that crate's macro, which may share a name with one of the
/// project's: it is not expanded with it.
fn project_macro_name(path: &str) -> Option<&str> {
    let Some((first, _)) = path.split_once("::") else {
        return Some(path);
    };
    if matches!(first, "crate" | "$crate" | "self" | "super") {
        return path.rsplit("::").next();
    }
    None
}
