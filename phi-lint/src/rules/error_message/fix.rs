//! The machine-applicable rewrite of `phi::error-message`: an error logged by value becomes
//! `error_type = %phi_filter::error_type(&e)`.
//!
//! A rewrite is attached only where it is certain (see the README's `phi-lint fix` section):
//! - the call is a `tracing` or `log` event macro (`info!`, `error!`, `event!`, `log!`, ...) that
//!   syn sees as a macro call; calls found only inside another macro's tokens are left alone;
//! - the call has exactly one error-message finding, and the error is a local or a field chain
//!   (`e`, `self.last_error`) logged as itself, `&e` or `e.to_string()`;
//! - a format-string placeholder is `{}`, `{:?}`, `{:#?}`, `{:#}` or the same with a name, used
//!   once, in a format string without explicit indices, width or precision arguments;
//! - the call has no other `error_type` field.
//!
//! Fields become `error_type = %phi_filter::error_type(&e)`. A format-string use loses its
//! placeholder and argument and gains that field before the message (tracing), or the key-value
//! `error_type = phi_filter::error_type(&e)` when the file already uses `log`'s key-values.
//! Elsewhere a `log` call keeps its message and prints the type in the placeholder's place, and so
//! does a bare level macro whose crate the file does not name (its fields stay in tracing's
//! syntax and its key-values in log's: the original compiled, so the crate accepts them).

use std::collections::BTreeMap;

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

use crate::finding::{Edit, Finding, Fix};
use crate::fmtspec::{self, ArgRef, Placeholder};
use crate::rules::Rule;
use crate::source::SourceFile;

/// What the attached fix says it does.
const DESCRIPTION: &str = "log the error's type, not its message";

/// Attaches a fix to each error-message finding whose rewrite is certain.
pub(crate) fn attach(file: &syn::File, source: &SourceFile<'_>, findings: &mut [Finding]) {
    if !findings.iter().any(|f| f.rule == Rule::ErrorMessage) {
        return;
    }
    let mut calls = Calls::default();
    calls.visit_file(file);
    let uses_kv = calls.list.iter().any(|c| {
        calls
            .imports
            .origin(&c.path)
            .is_some_and(|(krate, _)| krate == Crate::Log)
            && has_semi(&c.tokens)
    });
    // Each error-message finding's byte offset, in order: a call finds its own by a binary
    // search, not by a scan of every finding (a line of 10,000 calls that each log an error took
    // minutes, calls × findings).
    let mut at: Vec<(usize, usize)> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| f.rule == Rule::ErrorMessage)
        .map(|(i, f)| (source.offset(lc(f.start)), i))
        .collect();
    at.sort_unstable();
    for call in &calls.list {
        let Some((krate, name)) = calls.imports.origin(&call.path).or_else(|| {
            // A bare level macro the file does not import: tracing's or log's, or a wrapper
            // like them. Only forms both accept are rewritten.
            (!call.path.contains("::") && !calls.imports.foreign.contains(&call.path))
                .then(|| (Crate::Unknown, call.path.clone()))
        }) else {
            continue;
        };
        let level_arg = match name.as_str() {
            "trace" | "debug" | "info" | "warn" | "error" => false,
            _ if krate == Crate::Unknown => continue,
            "event" if krate == Crate::Tracing => true,
            "log" if krate == Crate::Log => true,
            _ => continue,
        };
        let (start, end) = (source.offset(call.span.0), source.offset(call.span.1));
        let first = at.partition_point(|&(o, _)| o < start);
        let mut mine = at[first..]
            .iter()
            .take_while(|&&(o, _)| o < end)
            .map(|&(_, i)| (i, &findings[i]))
            .filter(|(_, f)| f.macro_path == call.path);
        let (Some((i, finding)), None) = (mine.next(), mine.next()) else {
            continue;
        };
        if finding.message.contains(super::WITHIN) {
            continue;
        }
        let target = Target {
            krate,
            level_arg,
            uses_kv,
        };
        if let Some(edits) = plan(source, &call.tokens, finding, target) {
            let edits = edits
                .into_iter()
                .map(|(range, replacement)| Edit {
                    start_byte: range.0,
                    end_byte: range.1,
                    start: source.pos_at(range.0),
                    end: source.pos_at(range.1),
                    replacement,
                })
                .collect();
            findings[i].fix = Some(Box::new(Fix {
                description: DESCRIPTION.to_owned(),
                edits,
            }));
        }
    }
}

/// Takes the fix off each finding in a call, by bare name, of a `macro_rules!` the scan defines
/// (`project_macros`): a project's own `debug!` takes what its rules accept, which need not be
/// tracing's or log's forms, and `#[macro_use]` brings it into files that do not name it.
pub(crate) fn drop_project_macros(
    findings: &mut [Finding],
    project_macros: &std::collections::HashSet<String>,
) {
    for f in findings {
        if f.fix.is_some()
            && !f.macro_path.contains("::")
            && project_macros.contains(f.macro_path.as_str())
        {
            f.fix = None;
        }
    }
}

/// The crate a logging macro comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Crate {
    Tracing,
    Log,
    /// The file does not say: a field is written in tracing's syntax, a key-value in log's,
    /// and a format string is rewritten in place (the form both accept).
    Unknown,
}

impl Crate {
    fn of(name: &str) -> Option<Crate> {
        match name {
            "tracing" => Some(Crate::Tracing),
            "log" => Some(Crate::Log),
            _ => None,
        }
    }
}

/// How the rewrite is written for one call.
#[derive(Clone, Copy)]
struct Target {
    krate: Crate,
    level_arg: bool,
    /// The file already uses `log`'s key-values (so the `kv` feature is on).
    uses_kv: bool,
}

/// Which crate each bare macro name is imported from, by `use` items anywhere in the file.
#[derive(Default)]
struct Imports {
    /// Local name -> (crate, macro name); `None` when two imports disagree.
    names: BTreeMap<String, Option<(Crate, String)>>,
    globs: Vec<Crate>,
    /// Names imported from anywhere but tracing or log (`use defmt::info;`,
    /// `use crate::logging::warn;`): a macro of that name is not a bare level macro of unknown
    /// crate, whatever it accepts. A module of a level's name (`use crate::error;`) cannot be
    /// told from a re-exported macro, so it keeps such calls in the file from being rewritten.
    foreign: std::collections::BTreeSet<String>,
}

impl Imports {
    fn add(&mut self, local: String, krate: Crate, name: String) {
        let entry = self
            .names
            .entry(local)
            .or_insert(Some((krate, name.clone())));
        if entry.as_ref() != Some(&(krate, name)) {
            *entry = None;
        }
    }

    /// `first`: whether `tree` starts the path (so its first segment names the crate).
    fn walk(&mut self, tree: &syn::UseTree, root: Option<Crate>, first: bool) {
        match tree {
            syn::UseTree::Path(p) => {
                let name = p.ident.to_string();
                let root = match root {
                    Some(r) => Some(r),
                    None if first => Crate::of(&name),
                    None => None,
                };
                self.walk(&p.tree, root, false);
            }
            syn::UseTree::Name(n) => match root {
                Some(krate) => self.add(n.ident.to_string(), krate, n.ident.to_string()),
                None => {
                    self.foreign.insert(n.ident.to_string());
                }
            },
            syn::UseTree::Rename(r) => match root {
                Some(krate) => self.add(r.rename.to_string(), krate, r.ident.to_string()),
                None => {
                    self.foreign.insert(r.rename.to_string());
                }
            },
            syn::UseTree::Glob(_) => self.globs.extend(root),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.walk(t, root, first);
                }
            }
        }
    }

    /// The crate and macro name of a call path, if the file says which it is.
    fn origin(&self, path: &str) -> Option<(Crate, String)> {
        let path = path.trim_start_matches("::");
        if let Some((first, rest)) = path.split_once("::") {
            return (!rest.contains("::"))
                .then(|| Crate::of(first).map(|k| (k, rest.to_owned())))
                .flatten();
        }
        match self.names.get(path) {
            Some(found) => found.clone(),
            None => match self.globs.as_slice() {
                [krate] => Some((*krate, path.to_owned())),
                _ => None,
            },
        }
    }
}

/// A macro call syn sees.
struct Call {
    path: String,
    tokens: TokenStream,
    span: (proc_macro2::LineColumn, proc_macro2::LineColumn),
}

#[derive(Default)]
struct Calls {
    list: Vec<Call>,
    imports: Imports,
}

/// The visit finds `use` items and the macro calls of expressions, statements and items; it does
/// not enter types, patterns, paths, signatures, generics or attributes, where no logging call
/// can be.
impl<'ast> Visit<'ast> for Calls {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.imports.walk(&u.tree, None, true);
    }

    fn visit_type(&mut self, _: &'ast syn::Type) {}

    fn visit_pat(&mut self, _: &'ast syn::Pat) {}

    fn visit_path(&mut self, _: &'ast syn::Path) {}

    fn visit_signature(&mut self, _: &'ast syn::Signature) {}

    fn visit_generics(&mut self, _: &'ast syn::Generics) {}

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let close = match &mac.delimiter {
            syn::MacroDelimiter::Paren(d) => d.span.close(),
            syn::MacroDelimiter::Brace(d) => d.span.close(),
            syn::MacroDelimiter::Bracket(d) => d.span.close(),
        };
        let path = path_text(&mac.path);
        let start = syn::spanned::Spanned::span(&mac.path).start();
        self.list.push(Call {
            path,
            tokens: mac.tokens.clone(),
            span: (start, close.end()),
        });
    }
}

/// A macro path as the engine writes it: `info`, `tracing::info`, `::log::warn`.
fn path_text(p: &syn::Path) -> String {
    let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    let joined = segments.join("::");
    if p.leading_colon.is_some() {
        format!("::{joined}")
    } else {
        joined
    }
}

fn lc(p: crate::Pos) -> proc_macro2::LineColumn {
    proc_macro2::LineColumn {
        line: p.line as usize,
        column: p.column.saturating_sub(1) as usize,
    }
}

fn has_semi(tokens: &TokenStream) -> bool {
    tokens
        .clone()
        .into_iter()
        .any(|t| matches!(&t, TokenTree::Punct(p) if p.as_char() == ';'))
}

/// One top-level argument of a call: its tokens and byte range, and the separator after it.
struct Seg {
    toks: Vec<TokenTree>,
    start: usize,
    end: usize,
    semi: bool,
}

/// Whether a segment reads as a tracing or log field: its key (what comes before a top-level
/// `=`, or the whole segment) is `%`/`?` then a dotted name (`r#` allowed) and, in log's
/// key-values, a capture (`reason:% = e`, `id:serde = x`), or a string key.
fn is_field(seg: &Seg) -> bool {
    let key_len = seg
        .toks
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '='))
        .unwrap_or(seg.toks.len());
    let mut key = seg.toks[..key_len].iter().peekable();
    if key
        .peek()
        .is_some_and(|t| matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), '%' | '?')))
    {
        key.next();
    }
    if let [TokenTree::Literal(l)] = &seg.toks[..key_len] {
        return l.to_string().starts_with('"') && key_len < seg.toks.len();
    }
    let mut want_name = true;
    while let Some(t) = key.next() {
        match t {
            TokenTree::Ident(_) if want_name => want_name = false,
            TokenTree::Punct(p) if !want_name && p.as_char() == '.' => want_name = true,
            TokenTree::Punct(p) if !want_name && p.as_char() == ':' => {
                let capture = match key.next() {
                    Some(TokenTree::Ident(_)) => true,
                    Some(TokenTree::Punct(p)) => matches!(p.as_char(), '%' | '?'),
                    _ => false,
                };
                return capture && key.next().is_none();
            }
            _ => return false,
        }
    }
    !want_name
}

/// `None` where a top-level `,` may not separate arguments: inside a turbofish's or a closure's
/// unbracketed `<..>` or `|..|` (`type_name::<Result<u8, u16>>()`, `|a, b| a + b`). Counting
/// arguments there would pick the wrong placeholder, so such a call is left alone.
fn segments(source: &SourceFile<'_>, tokens: &TokenStream) -> Option<Vec<Seg>> {
    if tokens
        .clone()
        .into_iter()
        .any(|t| matches!(&t, TokenTree::Punct(p) if matches!(p.as_char(), '<' | '|')))
    {
        return None;
    }
    let mut out: Vec<Seg> = Vec::new();
    let mut cur: Vec<TokenTree> = Vec::new();
    let flush = |cur: &mut Vec<TokenTree>, out: &mut Vec<Seg>, semi: bool| {
        if let (Some(first), Some(last)) = (cur.first(), cur.last()) {
            let start = source.offset(first.span().start());
            let end = source.offset(last.span().end());
            out.push(Seg {
                toks: std::mem::take(cur),
                start,
                end,
                semi,
            });
        }
    };
    for tt in tokens.clone() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => flush(&mut cur, &mut out, false),
            TokenTree::Punct(p) if p.as_char() == ';' => flush(&mut cur, &mut out, true),
            _ => cur.push(tt),
        }
    }
    flush(&mut cur, &mut out, false);
    Some(out)
}

/// `ident:` but not `ident::`.
fn is_prefix(seg: &Seg) -> bool {
    matches!(seg.toks.first(), Some(TokenTree::Ident(id))
        if matches!(id.to_string().as_str(), "target" | "parent" | "name" | "logger"))
        && matches!(seg.toks.get(1), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Alone)
}

/// `ident = ...` (not `==`): a named argument or a keyed field.
fn named(seg: &Seg) -> Option<String> {
    match (seg.toks.first(), seg.toks.get(1)) {
        (Some(TokenTree::Ident(id)), Some(TokenTree::Punct(p)))
            if p.as_char() == '=' && p.spacing() == Spacing::Alone =>
        {
            Some(id.to_string())
        }
        _ => None,
    }
}

/// A string literal's source text split into (offset of its contents, contents, raw).
fn string_literal(tt: &TokenTree) -> Option<(String, usize, bool)> {
    let TokenTree::Literal(lit) = tt else {
        return None;
    };
    let src = lit.to_string();
    let (raw, body) = match src.strip_prefix('r') {
        Some(rest) => (true, rest),
        None => (false, src.as_str()),
    };
    if !body.trim_start_matches('#').starts_with('"') || !src.ends_with('"') && !src.ends_with('#')
    {
        return None;
    }
    let hashes = body.len() - body.trim_start_matches('#').len();
    let prefix = usize::from(raw) + hashes + 1;
    Some((src, prefix, raw))
}

/// `text` with whitespace removed.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether `value` logs the error `culprit` itself: `e`, `&e`, `e.to_string()`.
fn logs_itself(value: &str, culprit: &str) -> bool {
    let v = squash(value);
    let v = v.trim_start_matches(['%', '?']);
    [
        culprit.to_owned(),
        format!("&{culprit}"),
        format!("{culprit}.to_string()"),
    ]
    .contains(&v.to_owned())
}

/// A local or a field chain: `e`, `self.last_error`, `ctx.0`.
fn is_place(text: &str) -> bool {
    let mut parts = text.split('.');
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_alphabetic())
            && s.chars().all(|c| c == '_' || c.is_alphanumeric())
    };
    parts.next().is_some_and(ident)
        && parts.all(|p| ident(p) || (!p.is_empty() && p.chars().all(|c| c.is_ascii_digit())))
}

/// The edits (byte range, replacement) that rewrite the one error the finding names.
fn plan(
    source: &SourceFile<'_>,
    tokens: &TokenStream,
    finding: &Finding,
    target: Target,
) -> Option<Vec<((usize, usize), String)>> {
    let text = source.text();
    let culprit_start = source.offset(lc(finding.start));
    let culprit = text.get(culprit_start..source.offset(lc(finding.end)))?;
    if !is_place(culprit) {
        return None;
    }
    let segs = segments(source, tokens)?;
    let mut i = 0;
    while segs.get(i).is_some_and(is_prefix) {
        i += 1;
    }
    if target.level_arg {
        i += 1;
    }
    let kv_end = segs.iter().position(|s| s.semi);
    let krate = match (target.krate, kv_end) {
        (Crate::Tracing, Some(_)) => return None,
        (Crate::Unknown, Some(_)) => Crate::Log,
        (krate, _) => krate,
    };
    let message = match kv_end {
        Some(k) => Some(k + 1).filter(|&m| m < segs.len()),
        None => (i..segs.len())
            .find(|&j| segs[j].toks.len() == 1 && string_literal(&segs[j].toks[0]).is_some()),
    };
    let fields = &segs[i.min(segs.len())..kv_end.map_or(message.unwrap_or(segs.len()), |k| k + 1)];
    // tracing's `{ id = 1 }` field group: after it a field is not accepted, only the message and
    // its arguments.
    if fields.iter().any(|s| {
        matches!(s.toks.first(), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Brace)
    }) {
        return None;
    }
    // Every field must read as one (`key = value`, `%x`, `?a.b`, `x`): a message that is not a
    // string literal (`concat!("x ", "{}")`) would otherwise be taken for a field, and what
    // follows it for fields too, which they are not.
    if !fields.iter().all(is_field) {
        return None;
    }
    let here = |s: &Seg| (s.start..s.end.max(s.start + 1)).contains(&culprit_start);
    // `error_type = ..`, `error_type`, `%error_type`, `?error_type`, `error_type.kind = ..`,
    // `r#error_type = ..`, `"error_type" = ..`.
    let others_named_error_type = |skip: Option<usize>| {
        fields.iter().enumerate().any(|(j, s)| {
            let mut toks = s.toks.iter().skip_while(
                |t| matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), '%' | '?')),
            );
            Some(j) != skip
                && match toks.next() {
                    Some(TokenTree::Ident(id)) => {
                        matches!(id.to_string().as_str(), "error_type" | "r#error_type")
                    }
                    // `"error_type" = ..`: a string key.
                    Some(TokenTree::Literal(l)) => l.to_string() == "\"error_type\"",
                    _ => false,
                }
        })
    };
    let sigil = match krate {
        Crate::Tracing | Crate::Unknown => "%",
        Crate::Log => "",
    };
    let field = format!("error_type = {sigil}phi_filter::error_type(&{culprit})");

    // A field or key-value.
    if let Some(j) = fields.iter().position(here) {
        let seg = &fields[j];
        let seg_text = &text[seg.start..seg.end];
        let value = match seg_text.find('=') {
            Some(at) if !seg_text[at..].starts_with("==") => &seg_text[at + 1..],
            _ => seg_text,
        };
        if !logs_itself(value, culprit) || others_named_error_type(Some(j)) {
            return None;
        }
        return Some(vec![((seg.start, seg.end), field)]);
    }

    // The message: its format string, then its arguments.
    let message = message?;
    let lit_seg = segs.get(message)?;
    let (lit_src, prefix, raw) = string_literal(lit_seg.toks.first()?)?;
    let content_len =
        lit_src.len() - prefix - (lit_src.len() - lit_src.trim_end_matches('#').len()) - 1;
    let content = lit_src.get(prefix..prefix + content_len)?;
    if !raw && escapes_brace(content) {
        return None;
    }
    let placeholders = fmtspec::parse(content, raw).ok()?;
    if placeholders
        .iter()
        .any(|p| matches!(p.arg, ArgRef::Index(_)) || !p.counts.is_empty())
    {
        return None;
    }
    let args = &segs[message + 1..];
    let content_at = lit_seg.start + prefix;
    let (ph, arg) = if here(lit_seg) {
        // An inline capture `{e}`.
        let offset = culprit_start.checked_sub(content_at)?;
        let ph = placeholders.iter().find(|p| p.range.start == offset)?;
        let ArgRef::Name(name) = &ph.arg else {
            return None;
        };
        if name != culprit || args.iter().any(|a| named(a).as_deref() == Some(name)) {
            return None;
        }
        (ph, None)
    } else {
        let a = args.iter().position(here)?;
        let seg = &args[a];
        let seg_text = &text[seg.start..seg.end];
        let (ph, value) = match named(seg) {
            Some(name) => {
                let ph = placeholders
                    .iter()
                    .find(|p| matches!(&p.arg, ArgRef::Name(n) if *n == name))?;
                (ph, &seg_text[seg_text.find('=')? + 1..])
            }
            None => {
                let k = args[..a].iter().filter(|s| named(s).is_none()).count();
                let ph = placeholders
                    .iter()
                    .filter(|p| p.arg == ArgRef::Next)
                    .nth(k)?;
                (ph, seg_text)
            }
        };
        if !logs_itself(value, culprit) {
            return None;
        }
        (ph, Some(a))
    };
    if matches!(ph.arg, ArgRef::Name(_))
        && placeholders.iter().filter(|p| p.arg == ph.arg).count() != 1
    {
        return None;
    }
    let (open, close, spec) = extent(content, ph)?;
    if !matches!(spec, "" | ":?" | ":#?" | ":#") || content[open..close].contains('\\') {
        return None;
    }

    let kv = krate == Crate::Log;
    if (kv && !target.uses_kv && kv_end.is_none()) || krate == Crate::Unknown {
        // `log` without key-values, or a crate the file does not name: print the type where
        // the error was.
        if arg.is_none()
            && (placeholders
                .iter()
                .any(|p| p.arg == ArgRef::Name("error_type".into()))
                || args
                    .iter()
                    .any(|a| named(a).as_deref() == Some("error_type")))
        {
            return None;
        }
        let value = format!("phi_filter::error_type(&{culprit})");
        let spec_at = close - 1 - spec.len();
        let mut edits = Vec::new();
        match arg {
            Some(a) => {
                if !spec.is_empty() {
                    edits.push((
                        (content_at + spec_at, content_at + close - 1),
                        String::new(),
                    ));
                }
                let seg = &args[a];
                let replacement = match named(seg) {
                    Some(name) => format!("{name} = {value}"),
                    None => value,
                };
                edits.push(((seg.start, seg.end), replacement));
            }
            None => {
                edits.push((
                    (content_at + open + 1, content_at + close - 1),
                    "error_type".to_owned(),
                ));
                let end = args.last().map_or(lit_seg.end, |s| s.end);
                edits.push(((end, end), format!(", error_type = {value}")));
            }
        }
        return Some(edits);
    }

    if others_named_error_type(None) {
        return None;
    }
    let (a, b) = tidy(content, open, close);
    let mut edits = Vec::new();
    let insert = match (kv, kv_end) {
        (true, Some(_)) => {
            let first = fields.first()?.start;
            ((first, first), format!("{field}, "))
        }
        (true, None) => ((lit_seg.start, lit_seg.start), format!("{field}; ")),
        (false, _) => ((lit_seg.start, lit_seg.start), format!("{field}, ")),
    };
    edits.push(insert);
    edits.push(((content_at + a, content_at + b), String::new()));
    if let Some(a) = arg {
        let prev_end = if a == 0 { lit_seg.end } else { args[a - 1].end };
        // A comment between the previous argument and this one would be lost or moved.
        let between = text.get(prev_end..args[a].start)?;
        if between.contains("//") || between.contains("/*") {
            return None;
        }
        edits.push(((prev_end, args[a].end), String::new()));
    }
    edits.sort_by_key(|e| e.0);
    Some(edits)
}

/// The placeholder's `{` and the index after its `}` in the contents, and its spec (`:?`).
fn extent<'c>(content: &'c str, ph: &Placeholder) -> Option<(usize, usize, &'c str)> {
    let bytes = content.as_bytes();
    let (open, after_arg) = if ph.arg == ArgRef::Next {
        (ph.range.start, ph.range.start + 1)
    } else {
        (ph.range.start.checked_sub(1)?, ph.range.end)
    };
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let close = after_arg + content.get(after_arg..)?.find('}')? + 1;
    Some((open, close, &content[after_arg..close - 1]))
}

/// Whether a literal's contents hold an escape that is a brace at run time (`\x7b`, `\u{7d}`):
/// the format string the macro sees is not the one the source shows.
fn escapes_brace(content: &str) -> bool {
    let b = content.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match b.get(i + 1) {
            Some(b'x') => {
                if content
                    .get(i + 2..i + 4)
                    .is_some_and(|h| h.eq_ignore_ascii_case("7b") || h.eq_ignore_ascii_case("7d"))
                {
                    return true;
                }
                i += 2;
            }
            Some(b'u') => {
                let end = content[i..].find('}').map_or(b.len(), |e| i + e);
                let hex = content.get(i + 3..end).unwrap_or_default().replace('_', "");
                if matches!(u32::from_str_radix(&hex, 16), Ok(0x7b | 0x7d)) {
                    return true;
                }
                i = end;
            }
            _ => i += 2,
        }
    }
    false
}

/// What a placeholder at either end of a message leaves dangling.
const SEPARATORS: &[u8] = b" :,;-=";

/// The range to delete for a placeholder at `a..b`: with a wrapping `(..)`, `[..]`, quotes or
/// backticks, and the separator that would be left dangling (`"failed: {}"` -> `"failed"`).
fn tidy(content: &str, mut a: usize, mut b: usize) -> (usize, usize) {
    let bytes = content.as_bytes();
    // `\'` is an escaped quote, not an opening one: `"a \'{e}' b"` keeps its quotes.
    let escaped = |at: usize| {
        bytes[..at]
            .iter()
            .rev()
            .take_while(|&&c| c == b'\\')
            .count()
            % 2
            == 1
    };
    let wrapped = a > 0
        && b < bytes.len()
        && !escaped(a - 1)
        && matches!(
            (bytes[a - 1], bytes[b]),
            (b'(', b')') | (b'[', b']') | (b'\'', b'\'') | (b'`', b'`')
        );
    if wrapped {
        a -= 1;
        b += 1;
    }
    if b == bytes.len() {
        while a > 0 && SEPARATORS.contains(&bytes[a - 1]) {
            a -= 1;
        }
    } else if a == 0 {
        while b < bytes.len() && SEPARATORS.contains(&bytes[b]) {
            b += 1;
        }
    } else if bytes[a - 1] == b' ' && matches!(bytes[b], b' ' | b':' | b',' | b';' | b'.') {
        a -= 1;
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::{escapes_brace, is_place, tidy};

    #[test]
    fn places_and_tidying() {
        assert!(is_place("e") && is_place("self.last_error") && is_place("ctx.0"));
        assert!(!is_place("e.source()") && !is_place("&e") && !is_place("0"));
        let cut = |s: &str, a, b| {
            let (a, b) = tidy(s, a, b);
            format!("{}{}", &s[..a], &s[b..])
        };
        assert_eq!(cut("insert failed: {}", 15, 17), "insert failed");
        assert_eq!(cut("{e}: retrying", 0, 3), "retrying");
        assert_eq!(cut("failed {e} while saving", 7, 10), "failed while saving");
        assert_eq!(cut("failed ({e}) twice", 8, 11), "failed twice");
        assert_eq!(cut("failed {e}: twice", 7, 10), "failed: twice");
        assert_eq!(cut("{e}", 0, 3), "");
        assert_eq!(cut("a \\'{e}' b", 4, 7), "a \\'' b");
        assert_eq!(cut("a \\\\'{e}' b", 5, 8), "a \\\\ b");
    }

    #[test]
    fn escaped_braces() {
        assert!(
            escapes_brace("\\x7b{e}\\x7D")
                && escapes_brace("\\u{7b}")
                && escapes_brace("\\u{00_7D}")
        );
        assert!(!escapes_brace("\\x7a {e} \\u{e9} \\\\x7b"));
    }
}
