//! A subset of `macro_rules!`, enough to judge a macro at each call site: its arms are parsed,
//! a call's tokens are matched against them (literal tokens, groups, `$x:frag` for every fragment
//! kind syn can parse, `$(..) sep? op` repetitions with backtracking over the repetition count),
//! and the matching arm's transcriber is expanded with the arguments substituted.
//!
//! Tokens that come from the transcriber get `Span::call_site()`; substituted arguments keep the
//! spans they have at the call, so the lint can tell what the caller passed from what the macro
//! wrote. Every walk here is bounded: group nesting by [`MAX_NESTING`], matching work by a step
//! budget, expansion size by [`MAX_EXPANSION`]. Exceeding a bound is a failed match, never a crash.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};

/// Deepest group nesting walked in a matcher, a call or a transcriber.
const MAX_NESTING: usize = 64;
/// Matching work allowed for one call (token comparisons plus tokens handed to syn, counted
/// inside groups): a call of 110 two-parameter closures to `($($f:expr),*)` hands syn about
/// 600,000 tokens, as the closures' commas send each to the whole rest of the call.
const MAX_STEPS: usize = 2_000_000;
/// Largest expansion, in token trees, produced for one call.
pub(crate) const MAX_EXPANSION: usize = 100_000;

/// One parsed `macro_rules!` definition.
pub(crate) struct MacroDef {
    arms: Vec<Arm>,
    /// The transcribers, for deciding whether the macro can reach a log at all.
    pub(crate) bodies: Vec<TokenStream>,
}

struct Arm {
    matcher: Vec<Pat>,
    body: TokenStream,
}

enum Pat {
    Token(TokenTree),
    /// A literal, by its source text: compared without allocating a copy of the input's.
    Lit(String),
    Group(Delimiter, Vec<Pat>),
    Var(String, Frag),
    Rep {
        inner: Vec<Pat>,
        sep: Option<TokenTree>,
        op: char,
    },
}

#[derive(Clone, Copy)]
enum Frag {
    Tt,
    Ident,
    Literal,
    Lifetime,
    Expr,
    Ty,
    Path,
    Pat,
    Block,
    Stmt,
    Item,
    Meta,
    Vis,
}

/// What a metavariable matched: tokens, or one binding per repetition.
enum Binding {
    Tokens(Vec<TokenTree>),
    Seq(Vec<Binding>),
}

type Bindings = HashMap<String, Binding>;

/// The matching work allowed for one call is spent.
struct OutOfBudget;

/// Why a call could not be expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExpandError {
    /// No arm matches the call's tokens (as this subset reads them).
    NoMatch,
    /// The expansion exceeds a bound, or the transcriber is malformed.
    Limit,
}

impl MacroDef {
    /// Parses the tokens inside `macro_rules! name { .. }`. Arms whose matcher uses what this
    /// subset does not know are dropped; `None` if nothing is left to match with.
    pub(crate) fn parse(tokens: TokenStream) -> Option<MacroDef> {
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        let mut arms = Vec::new();
        let mut bodies = Vec::new();
        let mut i = 0;
        while i < tts.len() {
            let (TokenTree::Group(m), Some(TokenTree::Punct(eq)), Some(TokenTree::Punct(gt))) =
                (&tts[i], tts.get(i + 1), tts.get(i + 2))
            else {
                return None;
            };
            let Some(TokenTree::Group(body)) = tts.get(i + 3) else {
                return None;
            };
            if eq.as_char() != '=' || gt.as_char() != '>' {
                return None;
            }
            bodies.push(body.stream());
            if let Some(matcher) = parse_matcher(m.stream(), 0) {
                arms.push(Arm {
                    matcher,
                    body: body.stream(),
                });
            } else {
                // Keep the arm's place: an arm we cannot read must not let a later one match a
                // call the compiler gives to it.
                arms.push(Arm {
                    matcher: vec![Pat::Token(TokenTree::Punct(proc_macro2::Punct::new(
                        '$',
                        proc_macro2::Spacing::Alone,
                    )))],
                    body: TokenStream::new(),
                });
            }
            i += 4;
            if matches!(tts.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
                i += 1;
            }
        }
        Some(MacroDef { arms, bodies })
    }

    /// Expands a call: the first arm that matches, transcribed.
    pub(crate) fn expand(&self, call: &TokenStream) -> Result<TokenStream, ExpandError> {
        let input: Vec<TokenTree> = call.clone().into_iter().collect();
        let mut steps = 0usize;
        for arm in &self.arms {
            let mut bindings = Bindings::new();
            if match_seq(&arm.matcher, &input, 0, &mut bindings, &mut steps, 0, true)
                .map_err(|OutOfBudget| ExpandError::Limit)?
                .is_some()
            {
                let mut out = Vec::new();
                let mut size = 0usize;
                transcribe(
                    &arm.body,
                    &bindings,
                    &mut Vec::new(),
                    &mut out,
                    &mut size,
                    0,
                )
                .ok_or(ExpandError::Limit)?;
                return Ok(out.into_iter().collect());
            }
            if steps > MAX_STEPS {
                return Err(ExpandError::Limit);
            }
        }
        Err(ExpandError::NoMatch)
    }
}

fn parse_matcher(tokens: TokenStream, depth: usize) -> Option<Vec<Pat>> {
    if depth > MAX_NESTING {
        return None;
    }
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tts.len() {
        match (&tts[i], tts.get(i + 1)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(name))) if p.as_char() == '$' => {
                let (Some(TokenTree::Punct(colon)), Some(TokenTree::Ident(kind))) =
                    (tts.get(i + 2), tts.get(i + 3))
                else {
                    return None;
                };
                if colon.as_char() != ':' {
                    return None;
                }
                out.push(Pat::Var(name.to_string(), frag(&kind.to_string())?));
                i += 4;
            }
            (TokenTree::Punct(p), Some(TokenTree::Group(g)))
                if p.as_char() == '$' && g.delimiter() == Delimiter::Parenthesis =>
            {
                let inner = parse_matcher(g.stream(), depth + 1)?;
                let (sep, op, used) = rep_suffix(&tts[i + 2..])?;
                out.push(Pat::Rep { inner, sep, op });
                i += 2 + used;
            }
            (TokenTree::Group(g), _) => {
                out.push(Pat::Group(
                    g.delimiter(),
                    parse_matcher(g.stream(), depth + 1)?,
                ));
                i += 1;
            }
            (TokenTree::Literal(l), _) => {
                out.push(Pat::Lit(l.to_string()));
                i += 1;
            }
            (tt, _) => {
                out.push(Pat::Token(tt.clone()));
                i += 1;
            }
        }
    }
    Some(out)
}

/// The separator and operator after `$( .. )`, and how many tokens they take.
fn rep_suffix(rest: &[TokenTree]) -> Option<(Option<TokenTree>, char, usize)> {
    let op = |t: Option<&TokenTree>| match t {
        Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?') => Some(p.as_char()),
        _ => None,
    };
    if let Some(c) = op(rest.first()) {
        return Some((None, c, 1));
    }
    let c = op(rest.get(1))?;
    Some((Some(rest[0].clone()), c, 2))
}

fn frag(kind: &str) -> Option<Frag> {
    Some(match kind {
        "tt" => Frag::Tt,
        "ident" => Frag::Ident,
        "literal" => Frag::Literal,
        "lifetime" => Frag::Lifetime,
        "expr" | "expr_2021" => Frag::Expr,
        "ty" => Frag::Ty,
        "path" => Frag::Path,
        "pat" | "pat_param" => Frag::Pat,
        "block" => Frag::Block,
        "stmt" => Frag::Stmt,
        "item" => Frag::Item,
        "meta" => Frag::Meta,
        "vis" => Frag::Vis,
        _ => return None,
    })
}

/// Matches `pats` against `input[pos..]` and returns where the match ends (with `must_end`, only
/// at the end of `input`). Fragments and repetitions are greedy; a repetition backs off one
/// iteration at a time until the rest of the matcher matches. `Ok(None)`: no match.
fn match_seq(
    pats: &[Pat],
    input: &[TokenTree],
    pos: usize,
    out: &mut Bindings,
    steps: &mut usize,
    depth: usize,
    must_end: bool,
) -> Result<Option<usize>, OutOfBudget> {
    let Some((first, rest)) = pats.split_first() else {
        return Ok((!must_end || pos == input.len()).then_some(pos));
    };
    *steps += 1;
    if *steps > MAX_STEPS || depth > MAX_NESTING {
        return Err(OutOfBudget);
    }
    match first {
        Pat::Token(t) => {
            if input.get(pos).is_some_and(|i| same_token(t, i)) {
                match_seq(rest, input, pos + 1, out, steps, depth, must_end)
            } else {
                Ok(None)
            }
        }
        Pat::Lit(want) => {
            // Comparing costs the pattern's length: a long literal is charged by its KiB.
            *steps += want.len() / 1024;
            if input
                .get(pos)
                .is_some_and(|i| matches!(i, TokenTree::Literal(l) if literal_is(l, want)))
            {
                match_seq(rest, input, pos + 1, out, steps, depth, must_end)
            } else {
                Ok(None)
            }
        }
        Pat::Group(delim, inner) => {
            let Some(TokenTree::Group(g)) = input.get(pos) else {
                return Ok(None);
            };
            if g.delimiter() != *delim {
                return Ok(None);
            }
            let inner_input: Vec<TokenTree> = g.stream().into_iter().collect();
            if match_seq(inner, &inner_input, 0, out, steps, depth + 1, true)?.is_none() {
                return Ok(None);
            }
            match_seq(rest, input, pos + 1, out, steps, depth, must_end)
        }
        Pat::Var(name, kind) => {
            let Some(n) = fragment_len(*kind, &input[pos.min(input.len())..], steps) else {
                return Ok(None);
            };
            let tokens = input[pos..pos + n].to_vec();
            let value = match kind {
                // An `expr` fragment is one opaque operand wherever it is substituted.
                Frag::Expr => {
                    let ts: TokenStream = tokens.iter().cloned().collect();
                    let mut g = Group::new(Delimiter::None, ts);
                    if let (Some(first), Some(last)) = (tokens.first(), tokens.last()) {
                        g.set_span(first.span().join(last.span()).unwrap_or(first.span()));
                    }
                    vec![TokenTree::Group(g)]
                }
                _ => tokens,
            };
            out.insert(name.clone(), Binding::Tokens(value));
            match_seq(rest, input, pos + n, out, steps, depth, must_end)
        }
        Pat::Rep { inner, sep, op } => {
            let mut ends = vec![pos];
            let mut iterations: Vec<Bindings> = Vec::new();
            let max = if *op == '?' { 1 } else { usize::MAX };
            while iterations.len() < max {
                let last = *ends.last().unwrap_or(&pos);
                let mut at = last;
                if !iterations.is_empty()
                    && let Some(s) = sep
                {
                    if !input.get(at).is_some_and(|i| same_token(s, i)) {
                        break;
                    }
                    at += 1;
                }
                let mut b = Bindings::new();
                let Some(end) = match_seq(inner, input, at, &mut b, steps, depth + 1, false)?
                else {
                    break;
                };
                if end == last {
                    break; // an iteration that consumes nothing would repeat forever
                }
                iterations.push(b);
                ends.push(end);
            }
            let min = usize::from(*op == '+');
            if iterations.len() < min {
                return Ok(None);
            }
            let names = pat_names(inner);
            for k in (min..=iterations.len()).rev() {
                let mut tail = Bindings::new();
                if let Some(end) =
                    match_seq(rest, input, ends[k], &mut tail, steps, depth, must_end)?
                {
                    for name in &names {
                        let seq = iterations[..k]
                            .iter_mut()
                            .map(|it| it.remove(name).unwrap_or(Binding::Seq(Vec::new())))
                            .collect();
                        out.insert(name.clone(), Binding::Seq(seq));
                    }
                    out.extend(tail);
                    return Ok(Some(end));
                }
            }
            Ok(None)
        }
    }
}

/// How many token trees a fragment of `kind` takes at the start of `input`.
fn fragment_len(kind: Frag, input: &[TokenTree], steps: &mut usize) -> Option<usize> {
    let first = input.first();
    match kind {
        Frag::Tt => first.map(|_| 1),
        Frag::Ident => matches!(first, Some(TokenTree::Ident(_))).then_some(1),
        Frag::Literal => match (first, input.get(1)) {
            (Some(TokenTree::Literal(_)), _) => Some(1),
            (Some(TokenTree::Punct(p)), Some(TokenTree::Literal(_))) if p.as_char() == '-' => {
                Some(2)
            }
            _ => None,
        },
        Frag::Lifetime => match (first, input.get(1)) {
            (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(_))) if p.as_char() == '\'' => {
                Some(2)
            }
            _ => None,
        },
        Frag::Expr => syn_len::<syn::Expr>(input, steps),
        Frag::Ty => syn_len::<syn::Type>(input, steps),
        Frag::Path => syn_len::<syn::Path>(input, steps),
        Frag::Block => syn_len::<syn::Block>(input, steps),
        Frag::Item => syn_len::<syn::Item>(input, steps),
        Frag::Meta => syn_len::<syn::Meta>(input, steps),
        Frag::Vis => syn_len::<syn::Visibility>(input, steps),
        Frag::Stmt => syn_len::<syn::Stmt>(input, steps),
        Frag::Pat => parsed_len(input, steps, |s| {
            syn::Pat::parse_multi_with_leading_vert(s).map(drop)
        }),
    }
}

fn syn_len<T: syn::parse::Parse + ToTokens>(
    input: &[TokenTree],
    steps: &mut usize,
) -> Option<usize> {
    parsed_len(input, steps, |s| s.parse::<T>().map(drop))
}

/// Charges `steps` for a parse of `input`, counted deep (see [`deep_len`]); `false` once the
/// budget is spent.
fn charge(input: &[TokenTree], steps: &mut usize) -> bool {
    *steps += deep_len(input, MAX_STEPS + 1 - (*steps).min(MAX_STEPS));
    *steps <= MAX_STEPS
}

/// How many tokens `input` holds, groups' contents included, counted up to `cap`: what a parse
/// of it may read. A group counted as one token let each arm of a macro re-parse a call's
/// 40,000-element array for one step (2,000 arms: 100 s).
fn deep_len(input: &[TokenTree], cap: usize) -> usize {
    let mut n = 0usize;
    let mut stack: Vec<TokenStream> = Vec::new();
    for tt in input {
        n += 1;
        if let TokenTree::Group(g) = tt {
            stack.push(g.stream());
        }
        while let Some(ts) = stack.pop() {
            for inner in ts {
                n += 1;
                if n >= cap {
                    return n;
                }
                if let TokenTree::Group(g) = inner {
                    stack.push(g.stream());
                }
            }
        }
        if n >= cap {
            return n;
        }
    }
    n
}

/// Parses a prefix of `input` with `f` and returns how many token trees it took.
///
/// The tokens before the first `,` or `;` outside a group are tried first, alone: a fragment
/// that is all of them is what a parse of the whole input takes too (no fragment goes on past a
/// separator it did not need), and a call of n arguments then costs each of them its own
/// length, not the rest of the call (400 arguments, each parsed with the 800 tokens after it,
/// made one call quadratic). A fragment that needs the separator (`|a, b| a + b`, `Map<K, V>`)
/// fails that try and is parsed from the whole input.
fn parsed_len(
    input: &[TokenTree],
    steps: &mut usize,
    f: impl Fn(ParseStream) -> syn::Result<()>,
) -> Option<usize> {
    if input.is_empty() {
        return None;
    }
    if let Some(k) = input
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';')))
        .filter(|&k| k > 0 && k < input.len())
    {
        if !charge(&input[..k], steps) {
            return None;
        }
        let head: TokenStream = input[..k].iter().cloned().collect();
        let whole = (|s: ParseStream| {
            f(s)?;
            if s.is_empty() {
                Ok(())
            } else {
                Err(s.error("more"))
            }
        })
        .parse2(head);
        if whole.is_ok() {
            return Some(k);
        }
    }
    if !charge(input, steps) {
        return None;
    }
    let ts: TokenStream = input.iter().cloned().collect();
    let rest = (|s: ParseStream| {
        f(s)?;
        s.parse::<TokenStream>()
    })
    .parse2(ts)
    .ok()?;
    Some(input.len() - rest.into_iter().count())
}

/// Whether `lit` is written `want`, without copying `lit`'s text: a 1 MB literal in a call was
/// copied for each comparison against each arm's literal.
fn literal_is(lit: &proc_macro2::Literal, want: &str) -> bool {
    /// Consumes `want` as the literal is written, failing at the first difference.
    struct Prefix<'a>(&'a str);
    impl std::fmt::Write for Prefix<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 = self.0.strip_prefix(s).ok_or(std::fmt::Error)?;
            Ok(())
        }
    }
    let mut rest = Prefix(want);
    std::fmt::write(&mut rest, format_args!("{lit}")).is_ok() && rest.0.is_empty()
}

fn same_token(pat: &TokenTree, tt: &TokenTree) -> bool {
    match (pat, tt) {
        (TokenTree::Ident(a), TokenTree::Ident(b)) => a == b,
        (TokenTree::Punct(a), TokenTree::Punct(b)) => a.as_char() == b.as_char(),
        (TokenTree::Literal(a), TokenTree::Literal(b)) => literal_is(b, &a.to_string()),
        (TokenTree::Group(a), TokenTree::Group(b)) => {
            a.delimiter() == b.delimiter() && a.stream().to_string() == b.stream().to_string()
        }
        _ => false,
    }
}

/// The metavariables a matcher binds.
fn pat_names(pats: &[Pat]) -> Vec<String> {
    let mut out = Vec::new();
    for p in pats {
        match p {
            Pat::Var(n, _) => out.push(n.clone()),
            Pat::Group(_, inner) | Pat::Rep { inner, .. } => out.extend(pat_names(inner)),
            Pat::Token(_) | Pat::Lit(_) => {}
        }
    }
    out
}

/// Expands a transcriber with `b`, inside the repetitions `idx`. `None` on a bound exceeded or a
/// malformed repetition.
fn transcribe(
    body: &TokenStream,
    b: &Bindings,
    idx: &mut Vec<usize>,
    out: &mut Vec<TokenTree>,
    size: &mut usize,
    depth: usize,
) -> Option<()> {
    if depth > MAX_NESTING {
        return None;
    }
    let tts: Vec<TokenTree> = body.clone().into_iter().collect();
    let mut i = 0;
    while i < tts.len() {
        *size += 1;
        if *size > MAX_EXPANSION {
            return None;
        }
        match (&tts[i], tts.get(i + 1)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(name))) if p.as_char() == '$' => {
                if name == "crate" {
                    out.push(TokenTree::Ident(proc_macro2::Ident::new(
                        "crate",
                        Span::call_site(),
                    )));
                } else {
                    match lookup(b, &name.to_string(), idx) {
                        Some(Binding::Tokens(ts)) => {
                            *size += ts.len();
                            out.extend(ts.iter().cloned());
                        }
                        Some(Binding::Seq(_)) => return None,
                        // Not a metavariable of this macro (a nested `macro_rules!`'s).
                        None => {
                            out.push(respan(&tts[i]));
                            out.push(respan(&tts[i + 1]));
                        }
                    }
                }
                i += 2;
            }
            (TokenTree::Punct(p), Some(TokenTree::Group(g)))
                if p.as_char() == '$' && g.delimiter() == Delimiter::Parenthesis =>
            {
                let (sep, _, used) = rep_suffix(&tts[i + 2..])?;
                let count = repeat_count(b, &g.stream(), idx, depth)?;
                for j in 0..count {
                    if j > 0
                        && let Some(s) = &sep
                    {
                        out.push(respan(s));
                    }
                    idx.push(j);
                    transcribe(&g.stream(), b, idx, out, size, depth + 1)?;
                    idx.pop();
                }
                i += 2 + used;
            }
            (TokenTree::Group(g), _) => {
                let mut inner = Vec::new();
                transcribe(&g.stream(), b, idx, &mut inner, size, depth + 1)?;
                let mut ng = Group::new(g.delimiter(), inner.into_iter().collect());
                ng.set_span(Span::call_site());
                out.push(TokenTree::Group(ng));
                i += 1;
            }
            (tt, _) => {
                out.push(respan(tt));
                i += 1;
            }
        }
    }
    Some(())
}

fn respan(tt: &TokenTree) -> TokenTree {
    let mut tt = tt.clone();
    tt.set_span(Span::call_site());
    tt
}

/// A metavariable's binding inside the repetitions `idx`.
fn lookup<'b>(b: &'b Bindings, name: &str, idx: &[usize]) -> Option<&'b Binding> {
    let mut cur = b.get(name)?;
    for &j in idx {
        match cur {
            Binding::Seq(v) => cur = v.get(j)?,
            Binding::Tokens(_) => break,
        }
    }
    Some(cur)
}

/// How many times `$( body )` repeats: the length of the repetitions of the metavariables it
/// uses that still repeat at this depth.
fn repeat_count(b: &Bindings, body: &TokenStream, idx: &[usize], depth: usize) -> Option<usize> {
    let mut names = Vec::new();
    body_names(body, &mut names, depth)?;
    names.iter().find_map(|n| match lookup(b, n, idx) {
        Some(Binding::Seq(v)) => Some(v.len()),
        _ => None,
    })
}

fn body_names(body: &TokenStream, out: &mut Vec<String>, depth: usize) -> Option<()> {
    if depth > MAX_NESTING {
        return None;
    }
    let mut dollar = false;
    for tt in body.clone() {
        match &tt {
            TokenTree::Ident(id) if dollar => out.push(id.to_string()),
            TokenTree::Group(g) => body_names(&g.stream(), out, depth + 1)?,
            _ => {}
        }
        dollar = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '$');
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(src: &str) -> MacroDef {
        MacroDef::parse(src.parse().unwrap()).expect("parses")
    }

    fn expand(d: &MacroDef, call: &str) -> Result<String, ExpandError> {
        d.expand(&call.parse().unwrap()).map(|t| t.to_string())
    }

    #[test]
    fn substitutes_fragments() {
        let d = def("($id:expr) => { eprintln!(\"{}\", $id) };");
        assert_eq!(
            expand(&d, "patient.name").unwrap(),
            "eprintln ! (\"{}\" , patient . name)"
        );
    }

    #[test]
    fn picks_the_first_matching_arm() {
        let d = def("(quiet $x:ident) => {}; ($x:expr, $y:literal) => { f($x, $y) }");
        assert_eq!(expand(&d, "quiet a").unwrap(), "");
        assert_eq!(expand(&d, "a + 1, 2").unwrap(), "f (a + 1 , 2)");
        assert_eq!(expand(&d, "a, b"), Err(ExpandError::NoMatch));
    }

    #[test]
    fn repetitions_nest_and_back_off() {
        let d = def("($($k:ident = $v:expr),* ; $($t:tt)*) => { $(g($k, $v);)* h($($t)*) }");
        assert_eq!(
            expand(&d, "a = 1, b = x.y ; z w").unwrap(),
            "g (a , 1) ; g (b , x . y) ; h (z w)"
        );
        let d = def("($($t:tt)* ; $e:expr) => { k($e) }");
        assert_eq!(expand(&d, "a b ; c").unwrap(), "k (c)");
        let d = def("($($a:expr),+ $(,)?) => { [$($a),+] }");
        assert_eq!(expand(&d, "1, 2,").unwrap(), "[1 ,2]"); // `expr`s are invisible groups
        assert_eq!(expand(&d, ""), Err(ExpandError::NoMatch));
    }

    #[test]
    fn a_fragment_costs_its_own_length() {
        // 2,000 arguments: each parsed alone, not with the rest of the call after it.
        let d = def("($first:expr $(, $e:expr)*) => { f($first) }");
        let call = vec!["x"; 2_000].join(", ");
        assert_eq!(expand(&d, &call).unwrap(), "f (x)");
        // A fragment that needs the separator is parsed from the whole input.
        let d = def("($c:expr ; $t:ty) => { g($c) }");
        assert_eq!(
            expand(&d, "|a, b| a + b ; Map<K, V>").unwrap(),
            "g (| a , b | a + b)"
        );
        // A group is as long as what it holds: arms that each parse a 40,000-element array
        // spend the budget, and the call is refused rather than re-parsed by every arm.
        let mut arms = String::new();
        for i in 0..50 {
            arms.push_str("($a:expr ; k");
            arms.push_str(&i.to_string());
            arms.push_str(") => { f($a) };");
        }
        let d = def(&arms);
        let call = format!("[{}] ; x", vec!["x"; 40_000].join(", "));
        assert_eq!(expand(&d, &call), Err(ExpandError::Limit));
    }

    #[test]
    fn crate_and_foreign_metavariables() {
        let d = def("() => { $crate::log!($other) }");
        assert_eq!(expand(&d, "").unwrap(), "crate :: log ! ($ other)");
    }

    #[test]
    fn transcriber_tokens_lose_their_spans() {
        let d = def("($x:expr) => { f($x) }");
        let call: TokenStream = "\n\n   value".parse().unwrap();
        let out: Vec<TokenTree> = d.expand(&call).unwrap().into_iter().collect();
        assert_eq!(out[0].span().byte_range(), 0..0);
        let TokenTree::Group(args) = &out[1] else {
            panic!()
        };
        let arg = args.stream().into_iter().next().unwrap();
        assert_eq!(arg.span().start().line, 3);
    }

    #[test]
    fn deep_nesting_is_a_failed_match_not_a_crash() {
        let deep = format!("{}x{}", "(".repeat(500), ")".repeat(500));
        let d = def(&format!("({deep}) => {{}}"));
        assert!(d.expand(&deep.parse().unwrap()).is_err());
    }
}
