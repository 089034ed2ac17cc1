//! Parsing a file with the function bodies the lint would not walk left empty.
//!
//! The lint walks a function body only if its text may reach a sink (a macro call, a writer, a
//! `log`/`record`/`print` call, an attribute or a suppression comment: `may_reach_a_sink`); the
//! type index reads items and signatures, never statements. Most bodies of real code hold none
//! of these, yet parsing their statements is most of what syn spends on a file. So the file is
//! lexed whole, as `syn::parse_file` lexes it, each such body of a function at an item level (the
//! file, an inline `mod`, an `impl`, a `trait`) becomes an empty `{}` with the body's span, and
//! syn parses the rest. The tree is the one `syn::parse_file` builds, with every span the same,
//! except for the statements of those bodies, which nothing reads.
//!
//! A syntax error inside such a body is left to the compiler: the body cannot hold anything the
//! lint judges. Bodies inside macro arguments, `const` blocks and other bodies are parsed as
//! they are.
//!
//! What the lint parses as one piece is bounded: a function body it walks, a `const` or `static`
//! initializer that may log, or the input of a macro called at an item level (`cfg_if! { .. }`),
//! of 300,000 tokens or more is an error naming it ([`empty_tables`], [`bound_group`]).

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};

use super::visit::may_reach_a_sink;
use crate::resolve::outline::QuietBody;
use crate::source::SourceFile;

/// How deep inline `mod`s, `impl`s and `trait`s are followed; deeper ones are parsed whole. The
/// resolver's nesting bound ([`MAX_DEPTH`](crate::resolve::outline::MAX_DEPTH)) keeps syn's
/// own recursion in check.
const MAX_ITEM_DEPTH: usize = 32;

/// A file that is a run of statements, or one expression, rather than items: what `include!`
/// reads where an expression goes. rustc takes such a file only there, so a file that parses
/// only this way is one of those. Its statements become the body of one function, whose
/// signature is the only text not the file's; every position in the body is the file's own.
pub(super) fn parse_statements(text: &str) -> syn::Result<syn::File> {
    let stmts = syn::parse::Parser::parse_str(syn::Block::parse_within, text)?;
    let block = syn::Block {
        brace_token: syn::token::Brace::default(),
        stmts,
    };
    let item = syn::ItemFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        sig: syn::parse_quote!(fn included()),
        block: Box::new(block),
    };
    Ok(syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![syn::Item::Fn(item)],
    })
}

/// `syn::parse_file`, with the bodies described in the module docs left empty.
pub(super) fn parse_file(text: &str, keep: Option<usize>) -> syn::Result<syn::File> {
    parse_emptying(text, keep).map(|(file, _)| file)
}

/// `parse_file` of `original` with the insides of some of its quiet bodies (byte ranges, as
/// the resolver's outline found them: `Outline::quiet_bodies`) blanked first, so that they are
/// not even lexed. Every char in them becomes a space, every line break stays, so every
/// position is the same; the ranges are ASCII, so byte offsets are too.
///
/// The outline's lexer is not syn's: the result is taken only if the parse found each blanked
/// range to be the inside of a body it leaves empty. Otherwise (a file edited since the outline
/// read it, a lexer disagreement) `original` is parsed as it is.
pub(super) fn parse_blanking(
    original: &str,
    blanked: &str,
    ranges: &[(usize, usize)],
    keep: Option<usize>,
) -> syn::Result<syn::File> {
    if !ranges.is_empty()
        && let Ok((file, emptied)) = parse_emptying(blanked, keep)
    {
        let emptied: std::collections::HashSet<(usize, usize)> = emptied.into_iter().collect();
        if ranges.iter().all(|&(start, end)| {
            start
                .checked_sub(1)
                .zip(end.checked_add(1))
                .is_some_and(|body| emptied.contains(&body))
        }) {
            return Ok(file);
        }
    }
    parse_file(original, keep)
}

/// Blanks the insides of `bodies` in `text` (see [`parse_blanking`]): `None` if one is not
/// ASCII, does not lie inside `text` or between braces, or is no longer a body the outline
/// would blank (the file changed since it was read: a body must still call only macros the
/// scan showed neutral).
pub(super) fn blank(text: &str, bodies: &[QuietBody]) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    for body in bodies {
        let (start, end) = body.inside;
        let whole = text.get(start.checked_sub(1)?..end.checked_add(1)?)?;
        let delimited = matches!(
            (whole.as_bytes().first(), whole.as_bytes().last()),
            (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']')) | (Some(b'('), Some(b')'))
        );
        if !whole.is_ascii() || !delimited {
            return None;
        }
        let calls = super::neutral_macros(whole)?;
        if !calls.iter().all(|m| body.macros.iter().any(|k| k == m)) {
            return None;
        }
        for b in bytes[start..end].iter_mut().filter(|b| **b != b'\n') {
            *b = b' ';
        }
    }
    // Only ASCII bytes were replaced, by ASCII.
    String::from_utf8(bytes).ok()
}

thread_local! {
    /// Whether the text being parsed renames OpenTelemetry's `Key` or `KeyValue`, so that no
    /// body of it is quiet (see [`renames_otel_key`](super::renames_otel_key)).
    static WALK_ALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a body's or initializer's text cannot reach a sink, so the parse may empty it.
fn quiet_text(t: &str) -> bool {
    !WALK_ALL.get() && !may_reach_a_sink(t)
}

/// Sets [`WALK_ALL`] for one parse if `text` (a chunk's, or its whole file's) renames an
/// OpenTelemetry `KeyValue`, and restores what it was after, however the parse ends.
pub(super) struct WalkAll(bool);

impl WalkAll {
    pub(super) fn set(text: &str) -> WalkAll {
        WalkAll::force(text.contains("opentelemetry") && super::renames_otel_key(text))
    }

    /// Sets it if `on` (a whole file's answer, found once for all its chunks).
    pub(super) fn force(on: bool) -> WalkAll {
        let outer = WALK_ALL.get();
        WALK_ALL.set(outer || on);
        WalkAll(outer)
    }
}

impl Drop for WalkAll {
    fn drop(&mut self) {
        WALK_ALL.set(self.0);
    }
}

/// The parse, and the bodies it left empty: the byte offsets of each one's `{` and past its `}`.
/// The body whose `{` is at byte `keep` is never emptied: it is a run of a function body cut
/// into runs, whose statements the next runs need even when this run cannot log.
fn parse_emptying(
    text: &str,
    keep: Option<usize>,
) -> syn::Result<(syn::File, Vec<(usize, usize)>)> {
    let _walk_all = WalkAll::set(text);
    let content = text.strip_prefix('\u{feff}').unwrap_or(text);
    // A shebang line does not lex as tokens, and syn strips it: it becomes spaces, so that the
    // rest goes through the bodies and bounds below with every position kept (until 2026-12-07
    // such a file went to syn whole, unbounded). An inner attribute (`#![..]`, at the top of
    // many a `lib.rs`) lexes, and goes through them as it is.
    let unshebanged;
    let shebang = shebang_len(content).map(|n| content[..n].to_owned());
    let content = match &shebang {
        Some(line) => {
            unshebanged = format!("{}{}", " ".repeat(line.len()), &content[line.len()..]);
            unshebanged.as_str()
        }
        None => content,
    };
    let bom = text.len() - content.len();
    let tokens: TokenStream = content.parse().map_err(syn::Error::from)?;
    let mut emptied = Vec::new();
    let keep = keep.and_then(|k| k.checked_sub(bom));
    let mut too_large = None;
    let tokens = quiet_items(
        tokens,
        &SourceFile::new(content),
        (&mut emptied, &mut too_large),
        (0, keep),
    );
    if let Some(e) = too_large {
        return Err(e);
    }
    let emptied = emptied
        .into_iter()
        .map(|(open, end)| (open + bom, end + bom))
        .collect();
    let mut file: syn::File = syn::parse2(tokens)?;
    file.shebang = shebang;
    Ok((file, emptied))
}

/// The length of `text`'s shebang line (up to its line break), if it starts with one, as syn
/// and rustc read it: `#!` not followed, past whitespace and comments, by `[` (which makes it
/// an inner attribute). Doc comments are not skipped (`#!///x` is a shebang).
pub(crate) fn shebang_len(text: &str) -> Option<usize> {
    let mut rest = text.strip_prefix("#!")?;
    loop {
        rest = rest.trim_start();
        if rest.starts_with("//")
            && (!rest.starts_with("///") || rest.starts_with("////"))
            && !rest.starts_with("//!")
        {
            rest = rest.find('\n').map_or("", |at| &rest[at..]);
        } else if rest.starts_with("/**/") {
            rest = &rest[4..];
        } else if rest.starts_with("/*")
            && (!rest.starts_with("/**") || rest.starts_with("/***"))
            && !rest.starts_with("/*!")
        {
            let end = crate::resolve::outline::block_comment_end(rest.as_bytes(), 0);
            rest = &rest[end..];
        } else {
            break;
        }
    }
    if rest.starts_with('[') {
        return None;
    }
    Some(text.find('\n').unwrap_or(text.len()))
}

/// Where the scan of an item list is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between items, or in an item that has no body to empty or list to enter yet.
    Item,
    /// After `fn`: the next token is the function's name, if this is a function item.
    FnKeyword,
    /// In a function's signature: its body is the first `{}` outside `<…>`.
    Signature,
    /// In the header of an `impl`, a `trait` or a `mod`: its item list is the first `{}`
    /// outside `<…>`.
    Container,
    /// After `extern`: an ABI string, then a block of foreign items (entered as an item list,
    /// so that each is bounded by itself), `fn` (a function with that ABI) or `crate`.
    Extern,
    /// After `const` or `static`: a name and a type until the `=` outside `<…>` (its
    /// initializer follows, read by [`initializer`]), or `fn`.
    Const,
}

/// `g` emptied, if its text cannot reach a sink (a function body, or a `const` or `static`
/// item's initializer); its byte range is noted in `emptied`.
fn quiet_group(
    g: &Group,
    text: &SourceFile<'_>,
    emptied: &mut Vec<(usize, usize)>,
    keep: Option<usize>,
) -> Option<TokenTree> {
    // The text as the lint's walk slices it, through the line index (`Span::byte_range`
    // counts every char of the file up to the group).
    let span = g.span();
    let (open, end) = (text.offset(span.start()), text.offset(span.end()));
    if keep == Some(open) {
        return None;
    }
    let inside = text.text().get(open..end)?;
    if open >= end || !quiet_text(inside) || super::is_main_body(text.text(), open) {
        return None;
    }
    emptied.push((open, end));
    let mut empty = Group::new(g.delimiter(), TokenStream::new());
    empty.set_span(span);
    Some(TokenTree::Group(empty))
}

/// The size, in bytes of source, from which a table in a body the lint walks is emptied.
pub(crate) const TABLE_BYTES: usize = 64 * 1024;

/// `g` (a function body the lint walks, or a `const` or `static` item's initializer that may
/// log) with each large table in it emptied, if it has one, and how many tokens it holds once
/// they are (counted only for a group of at least [`TABLE_BYTES`]): a `[..]` group of at least
/// [`TABLE_BYTES`] whose tokens are only literals, `true`, `false`, `,`, `-`, `;` and `[..]` or
/// `(..)` groups of the same (`[1, -2, 3]`, `[(0x1f, "a"), ..]`, `vec![..]` of them). A table cannot log and names nothing: every element is text compiled
/// into the program, which the lint judges safe, and `[]` is judged as it is, so the verdicts
/// stay the same. syn's tree of a table is about 35× its source; its tokens are lexed, but not
/// parsed into expressions. Attributes and the input of any macro but `vec!` are kept whole,
/// tables inside them included. A body smaller than a table is not looked into, so this costs
/// nothing on ordinary code.
///
/// A body, or a group in it, of [`STATEMENT_TOKENS`] or more once its tables are emptied is an
/// error naming where it starts (the innermost such group): syn's tree of it would be hundreds
/// of bytes per token, and one statement cannot be cut into chunks the way a long body is cut
/// into runs of statements. Tokens are counted, not bytes: a long string literal is one token.
fn empty_tables(g: &Group, text: &SourceFile<'_>) -> syn::Result<(Option<Group>, Option<usize>)> {
    if byte_len(g, text) < TABLE_BYTES {
        return Ok((None, None));
    }
    let mut tables = Vec::new();
    let mut too_large = None;
    let (_, tokens) = survey(g, text, &mut tables, &mut too_large);
    if tokens >= STATEMENT_TOKENS {
        too_large.get_or_insert((g.span(), tokens));
    }
    if let Some((span, tokens)) = too_large {
        return Err(too_large_error(span, tokens, "an expression"));
    }
    let lighter = (!tables.is_empty()).then(|| rebuild(g, text, &tables));
    Ok((lighter, Some(tokens)))
}

/// Whether a parse error is a bound's (a group of [`STATEMENT_TOKENS`] or more), not the
/// grammar's.
pub(super) fn is_bound_error(e: &syn::Error) -> bool {
    e.to_string()
        .contains(" tokens is too large to check (phi-lint parses up to ")
}

/// The error naming a group of [`STATEMENT_TOKENS`] or more: `what` it is.
fn too_large_error(span: proc_macro2::Span, tokens: usize, what: &str) -> syn::Error {
    syn::Error::new(
        span,
        format!(
            "{what} of {tokens} tokens is too large to check (phi-lint parses up to \
             {STATEMENT_TOKENS} tokens of one expression, macro input or item's group, literal \
             tables excepted): split it, or exclude the file"
        ),
    )
}

/// The input of a macro called at an item level (`cfg_if! { .. }`, `lazy_static! { .. }`) or
/// an attribute's (`what` it is), an error if it holds [`STATEMENT_TOKENS`] or more, as one
/// expression in a body does: the lint parses the input of a macro that may log as one piece,
/// and the chunks a long file is cut into end at items, never inside one. Its tables are kept,
/// as in any macro's input. A token is at least a byte, so a smaller group is not counted.
fn bound_group(g: &Group, text: &SourceFile<'_>, what: &str) -> syn::Result<()> {
    if byte_len(g, text) < STATEMENT_TOKENS {
        return Ok(());
    }
    let (_, tokens) = small(g);
    if tokens >= STATEMENT_TOKENS {
        return Err(too_large_error(g.span(), tokens, what));
    }
    Ok(())
}

/// How many tokens (a group counts as one, plus its own) a function body the lint walks, or a
/// group in it (an expression, a block, a macro's input), may hold once its literal tables are
/// emptied: a file that holds more is an error naming it (exit 2). A body is cut into runs of
/// statements of about a chunk (`CHUNK_BYTES`, 256 KiB, well under this many tokens), so only
/// one statement this large reaches it; syn's tree of 300,000 tokens is about 100 MB.
pub(crate) const STATEMENT_TOKENS: usize = 300_000;

/// The byte offsets of a group's delimiters: of its opening one and past its closing one.
fn byte_range(g: &Group, text: &SourceFile<'_>) -> (usize, usize) {
    let span = g.span();
    (text.offset(span.start()), text.offset(span.end()))
}

/// The bytes of source between a group's delimiters and including them.
fn byte_len(g: &Group, text: &SourceFile<'_>) -> usize {
    let (start, end) = byte_range(g, text);
    end.saturating_sub(start)
}

/// The tokens of an item list outside its bodies, lists and initializers since the last `;` or
/// body: an item's header, which syn parses whole.
#[derive(Default)]
struct Header {
    /// Tokens outside groups.
    flat: usize,
    /// The header's groups, counted only if the header is long enough to need it: a token is at
    /// least a byte, so a header of fewer bytes than the bound is under it.
    groups: Vec<Group>,
    /// The first token's and the last token's spans.
    span: Option<(proc_macro2::Span, proc_macro2::Span)>,
}

impl Header {
    fn add(&mut self, tt: &TokenTree, header_group: bool) {
        let at = tt.span();
        self.span = Some(self.span.map_or((at, at), |(first, _)| (first, at)));
        self.flat += 1;
        if header_group && let TokenTree::Group(g) = tt {
            self.groups.push(g.clone());
        }
    }

    /// Ends the header: one of [`STATEMENT_TOKENS`] or more is noted in `too_large`.
    fn end(&mut self, text: &SourceFile<'_>, too_large: &mut Option<syn::Error>) {
        let header = std::mem::take(self);
        let Some((first, last)) = header.span else {
            return;
        };
        if header.groups.is_empty() && header.flat < STATEMENT_TOKENS {
            return;
        }
        let bytes = text
            .offset(last.end())
            .saturating_sub(text.offset(first.start()));
        if bytes < STATEMENT_TOKENS {
            return;
        }
        let tokens = header.flat + header.groups.iter().map(|g| small(g).1).sum::<usize>();
        if tokens >= STATEMENT_TOKENS {
            too_large.get_or_insert(too_large_error(first, tokens, "an item's header"));
        }
    }
}

/// What the token before a group says of it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Before {
    /// `#`: the group is an attribute.
    Hash,
    /// `vec!`: the group is an array's elements.
    VecBang,
    /// Another macro's `!`: the group is that macro's input.
    Bang,
    /// Anything else: the group is an expression (or a type, which holds no literal table).
    Other,
}

/// Whether a large group (at least [`TABLE_BYTES`]) is a table, and how many tokens it holds
/// once its tables are emptied, in one pass that visits each token once: a large group inside
/// is surveyed by the same pass, a small one by [`small`]. The byte range of every table to
/// empty is added to `tables`, in source order; the first group inside of [`STATEMENT_TOKENS`]
/// or more is noted in `too_large`, with its count.
fn survey(
    g: &Group,
    text: &SourceFile<'_>,
    tables: &mut Vec<(usize, usize)>,
    too_large: &mut Option<(proc_macro2::Span, usize)>,
) -> (bool, usize) {
    let mut table = matches!(g.delimiter(), Delimiter::Bracket | Delimiter::Parenthesis);
    let mut tokens = 0usize;
    let (mut before, mut vec_name) = (Before::Other, false);
    for tt in g.stream() {
        tokens += 1;
        let next = match &tt {
            TokenTree::Literal(_) => Before::Other,
            TokenTree::Punct(p) => {
                table &= matches!(p.as_char(), ',' | '-' | ';');
                match p.as_char() {
                    '#' => Before::Hash,
                    '!' if vec_name => Before::VecBang,
                    '!' => Before::Bang,
                    _ => Before::Other,
                }
            }
            TokenTree::Ident(id) => {
                table &= id == "true" || id == "false";
                Before::Other
            }
            // An attribute, or the input of a macro other than `vec!`, is neither a table nor
            // looked into for one: a `macro_rules!` arm may match `[]` where it would not match
            // the table (`([], $e:expr) => {}` before the arm that logs `$e`).
            TokenTree::Group(inner) if matches!(before, Before::Hash | Before::Bang) => {
                table = false;
                let (_, inside) = small(inner);
                if inside >= STATEMENT_TOKENS {
                    too_large.get_or_insert((inner.span(), inside));
                }
                tokens += inside;
                Before::Other
            }
            TokenTree::Group(inner) if byte_len(inner, text) >= TABLE_BYTES => {
                let at = tables.len();
                let (inner_table, inside) = survey(inner, text, tables, too_large);
                table &= inner_table;
                if inner_table && inner.delimiter() == Delimiter::Bracket {
                    // The whole group goes: the tables found inside it go with it.
                    tables.truncate(at);
                    tables.push(byte_range(inner, text));
                } else {
                    if inside >= STATEMENT_TOKENS {
                        too_large.get_or_insert((inner.span(), inside));
                    }
                    tokens += inside;
                }
                Before::Other
            }
            TokenTree::Group(inner) => {
                let (inner_table, inside) = small(inner);
                table &= inner_table;
                tokens += inside;
                Before::Other
            }
        };
        vec_name = matches!(&tt, TokenTree::Ident(id) if id == "vec");
        before = next;
    }
    (table, tokens)
}

/// `g` with the groups that open at `tables` (sorted offsets) emptied, and the groups that
/// hold one rebuilt around it; every other token is kept as it is, span and all.
fn rebuild(g: &Group, text: &SourceFile<'_>, tables: &[(usize, usize)]) -> Group {
    let stream: TokenStream = g
        .stream()
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(inner) if byte_len(&inner, text) >= TABLE_BYTES => {
                let (start, end) = byte_range(&inner, text);
                let first = tables.partition_point(|&(t, _)| t < start);
                match tables.get(first) {
                    Some(&(t, _)) if t == start => {
                        let mut empty = Group::new(Delimiter::Bracket, TokenStream::new());
                        empty.set_span(inner.span());
                        TokenTree::Group(empty)
                    }
                    Some(&(t, _)) if t < end => TokenTree::Group(rebuild(&inner, text, tables)),
                    _ => TokenTree::Group(inner),
                }
            }
            tt => tt,
        })
        .collect();
    let mut lighter = Group::new(g.delimiter(), stream);
    lighter.set_span(g.span());
    lighter
}

/// Whether a `[..]` or `(..)` group holds only literals, `true`, `false`, `,`, `-`, `;` and
/// groups of the same, and how many tokens it holds (its groups' included).
fn small(g: &Group) -> (bool, usize) {
    let mut table = matches!(g.delimiter(), Delimiter::Bracket | Delimiter::Parenthesis);
    let mut tokens = 0;
    for tt in g.stream() {
        tokens += 1;
        match tt {
            TokenTree::Literal(_) => {}
            TokenTree::Punct(p) => table &= matches!(p.as_char(), ',' | '-' | ';'),
            TokenTree::Ident(id) => table &= id == "true" || id == "false",
            TokenTree::Group(inner) => {
                let (inner_table, inside) = small(&inner);
                table &= inner_table;
                tokens += inside;
            }
        }
    }
    (table, tokens)
}

/// The tokens of an item list, each quiet function body emptied and each inline item list
/// (`mod`, `impl`, `trait`) treated the same way.
fn quiet_items(
    tokens: TokenStream,
    text: &SourceFile<'_>,
    (emptied, too_large): (&mut Vec<(usize, usize)>, &mut Option<syn::Error>),
    (depth, keep): (usize, Option<usize>),
) -> TokenStream {
    let tokens = tokens.into_iter();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.size_hint().0);
    let mut state = State::Item;
    // Angle brackets open in a signature or header (`<{ N }>` holds a brace group that is
    // neither body nor list; `struct S<const N: usize = { 4 }>` holds a `const` that is no
    // item), and whether the last token was the `-` of `->`.
    let mut angles = 0usize;
    let mut arrow = false;
    // What the last two tokens were, for the group that follows them: `#` (an attribute), `!`
    // after `#` (an inner attribute), another `!` (a macro's input), or `'` (a lifetime's).
    let mut before = (Prev::Other, Prev::Other);
    // How far `macro_rules ! name` has been read: its rules, the group after, are kept as
    // tokens by syn, not parsed into a tree.
    let mut macro_rules = 0u8;
    // Tokens of this list outside any group since the last `;` or brace group: an item's
    // header (`fn f<'a0, 'a1, ..>`, `where` clauses) is parsed whole, as one expression is.
    let mut run = Header::default();
    let mut tokens = tokens.peekable();
    while let Some(tt) = tokens.next() {
        let was_arrow = std::mem::take(&mut arrow);
        let prev = before;
        before = (before.1, Prev::of(&tt));
        // A group of the header (parameters, `where` bounds, a tuple struct's fields) is parsed
        // with it; a body or item list ends the header.
        let header_group = matches!(&tt, TokenTree::Group(g)
            if !(g.delimiter() == Delimiter::Brace && angles == 0));
        run.add(&tt, header_group);
        let rules_group = macro_rules == 3 && matches!(tt, TokenTree::Group(_));
        macro_rules = match &tt {
            TokenTree::Ident(id) if id == "macro_rules" => 1,
            TokenTree::Punct(p) if macro_rules == 1 && p.as_char() == '!' => 2,
            TokenTree::Ident(_) if macro_rules == 2 => 3,
            _ => 0,
        };
        if let TokenTree::Group(g) = &tt {
            let what = match prev {
                (Prev::Hash, Prev::Bang) | (_, Prev::Hash) => Some("an attribute"),
                (_, Prev::Bang) if state == State::Item => Some("a macro's input"),
                _ => None,
            };
            if let Some(what) = what
                && let Err(e) = bound_group(g, text, what)
            {
                too_large.get_or_insert(e);
            }
            if g.delimiter() == Delimiter::Brace && angles == 0 {
                run.end(text, too_large);
            }
        }
        match &tt {
            TokenTree::Punct(p) => match p.as_char() {
                ';' => {
                    state = State::Item;
                    angles = 0;
                    run.end(text, too_large);
                }
                '-' => arrow = p.spacing() == Spacing::Joint,
                '<' if matches!(
                    state,
                    State::Item | State::Signature | State::Container | State::Const
                ) =>
                {
                    angles += 1;
                }
                '>' if !was_arrow
                    && matches!(
                        state,
                        State::Item | State::Signature | State::Container | State::Const
                    ) =>
                {
                    angles = angles.saturating_sub(1);
                }
                '=' if state == State::Const && angles == 0 => {
                    // The initializer, up to the item's `;`: bounded as one expression, and
                    // not part of the header.
                    state = State::Item;
                    out.push(tt);
                    let mut init = Vec::new();
                    while let Some(next) = tokens.next_if(|t| !is_semicolon(t)) {
                        init.push(next);
                    }
                    out.extend(initializer(init, text, (emptied, too_large), keep));
                    continue;
                }
                _ if state == State::FnKeyword => state = State::Item,
                _ => {}
            },
            TokenTree::Ident(id) => match state {
                State::Item | State::Const | State::Extern if id == "fn" => {
                    state = State::FnKeyword;
                }
                State::Item if id == "extern" => state = State::Extern,
                State::Extern if id == "crate" => state = State::Item,
                State::Item if id == "impl" || id == "trait" || id == "mod" => {
                    state = State::Container;
                    angles = 0;
                }
                // Not a generic parameter (`struct S<const N: usize = 4>`) or a lifetime
                // (`&'static str`).
                State::Item
                    if (id == "const" || id == "static")
                        && angles == 0
                        && prev.1 != Prev::Quote =>
                {
                    state = State::Const;
                }
                State::FnKeyword => {
                    state = State::Signature;
                    angles = 0;
                }
                _ => {}
            },
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && angles == 0 => {
                match state {
                    State::Signature => {
                        state = State::Item;
                        if let Some(lighter) = quiet_group(g, text, emptied, keep)
                            .or_else(|| without_tables(g, text, too_large))
                        {
                            out.push(lighter);
                            continue;
                        }
                    }
                    State::Container | State::Extern if depth < MAX_ITEM_DEPTH => {
                        state = State::Item;
                        let TokenTree::Group(g) = tt else {
                            unreachable!("matched as a group above")
                        };
                        let span = g.span();
                        let inner = g.stream();
                        drop(g);
                        let mut list = Group::new(
                            Delimiter::Brace,
                            quiet_items(inner, text, (emptied, too_large), (depth + 1, keep)),
                        );
                        list.set_span(span);
                        out.push(TokenTree::Group(list));
                        continue;
                    }
                    _ => state = State::Item,
                }
            }
            TokenTree::Group(_) | TokenTree::Literal(_) if state == State::FnKeyword => {
                // `fn(u8) -> u8`, a function pointer type: not an item.
                state = State::Item;
            }
            _ => {}
        }
        // Any other group of an item is parsed whole: a struct's fields, an enum's variants,
        // a signature's parameters. Not a `macro_rules! name { .. }`: syn keeps its rules as
        // tokens, and each call's expansion is bounded where it is linted.
        if let TokenTree::Group(g) = &tt
            && !matches!(prev.1, Prev::Hash | Prev::Bang)
            && !rules_group
            && let Err(e) = bound_group(g, text, "an item's group")
        {
            too_large.get_or_insert(e);
        }
        out.push(tt);
    }
    run.end(text, too_large);
    out.into_iter().collect()
}

/// Whether `tt` is a `;`.
fn is_semicolon(tt: &TokenTree) -> bool {
    matches!(tt, TokenTree::Punct(p) if p.as_char() == ';')
}

/// The tokens of a `const` or `static` item's initializer (after its `=`, up to its `;`) to
/// parse in their place.
///
/// An initializer whose text cannot reach a sink is replaced by `{}`, as a quiet body is
/// emptied: nothing in it can log, and no verdict depends on it (the type index reads the
/// item's declared type). One that may log is parsed whole, as
/// one expression in a body is, with its literal tables emptied: every group of it can bind
/// what another logs (`= Some(&PATIENT.name).map(|user_id| info!("{user_id}"))`), so none is
/// emptied. It is an error if it holds [`STATEMENT_TOKENS`] or more once its tables are
/// emptied: `= Builder::new().step({ .. }).step({ .. })` of thousands of calls is one
/// expression, however small each group is.
fn initializer(
    init: Vec<TokenTree>,
    text: &SourceFile<'_>,
    (emptied, too_large): (&mut Vec<(usize, usize)>, &mut Option<syn::Error>),
    keep: Option<usize>,
) -> Vec<TokenTree> {
    let (Some(first), Some(last)) = (init.first(), init.last()) else {
        return init;
    };
    let (start_at, end) = (first.span(), last.span().end());
    let start = text.offset(start_at.start());
    let end = text.offset(end);
    let quiet = text
        .text()
        .get(start..end)
        .is_some_and(|t| start < end && quiet_text(t));
    let kept = |tt: &TokenTree| matches!(tt, TokenTree::Group(g) if keep == Some(text.offset(g.span().start())));
    if quiet && !init.iter().any(kept) {
        // The whole expression becomes `{}`, which parses wherever an expression may: emptying
        // its groups alone could leave what does not (`size_of::<[]>()`, `[1, 2][]`), and its
        // tokens outside groups (`f::<u8, u8, ..>()`) would still be parsed. Each group counts
        // as emptied, as the resolver's outline may have blanked the first.
        for tt in &init {
            if let TokenTree::Group(g) = tt {
                emptied.push(byte_range(g, text));
            }
        }
        let mut empty = Group::new(Delimiter::Brace, TokenStream::new());
        empty.set_span(start_at);
        return vec![TokenTree::Group(empty)];
    }
    // A token is at least a byte: a shorter initializer is not counted.
    let count = end.saturating_sub(start) >= STATEMENT_TOKENS;
    let mut tokens = 0usize;
    let mut before = Prev::Other;
    let mut out = Vec::with_capacity(init.len());
    for tt in init {
        tokens += 1;
        let prev = std::mem::replace(&mut before, Prev::of(&tt));
        let TokenTree::Group(g) = &tt else {
            out.push(tt);
            continue;
        };
        // An attribute or a macro's input is kept whole, tables and all.
        if matches!(prev, Prev::Hash | Prev::Bang) {
            if let Err(e) = bound_group(g, text, "a macro's input") {
                too_large.get_or_insert(e);
            }
            if count {
                tokens += small(g).1;
            }
            out.push(tt);
            continue;
        }
        match empty_tables(g, text) {
            Ok((lighter, inside)) => {
                if count {
                    tokens += inside.unwrap_or_else(|| small(g).1);
                }
                out.push(lighter.map_or(tt, TokenTree::Group));
            }
            Err(e) => {
                too_large.get_or_insert(e);
                out.push(tt);
            }
        }
    }
    if tokens >= STATEMENT_TOKENS {
        too_large.get_or_insert(too_large_error(
            start_at,
            tokens,
            "a `const` or `static` initializer",
        ));
    }
    out
}

/// [`empty_tables`] of `g` as the token to parse in its place, if it changed; a group over the
/// token bound is noted in `too_large` (the first one found is reported) and kept.
fn without_tables(
    g: &Group,
    text: &SourceFile<'_>,
    too_large: &mut Option<syn::Error>,
) -> Option<TokenTree> {
    match empty_tables(g, text) {
        Ok((lighter, _)) => lighter.map(TokenTree::Group),
        Err(e) => {
            too_large.get_or_insert(e);
            None
        }
    }
}

/// What a token is, for the group after it (see `quiet_items`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// `#`: an attribute's `[..]` follows, or `!` and one.
    Hash,
    /// `!`: a macro's input follows, or an inner attribute's `[..]` after `#!`.
    Bang,
    /// `'`: a lifetime's name follows (`'static`).
    Quote,
    Other,
}

impl Prev {
    fn of(tt: &TokenTree) -> Prev {
        match tt {
            TokenTree::Punct(p) => match p.as_char() {
                '#' => Prev::Hash,
                '!' => Prev::Bang,
                '\'' => Prev::Quote,
                _ => Prev::Other,
            },
            _ => Prev::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_file;
    use crate::resolve::outline::QuietBody;
    use quote::ToTokens;

    fn tokens(t: &impl ToTokens) -> String {
        t.to_token_stream().to_string()
    }

    fn err(r: syn::Result<syn::File>) -> syn::Error {
        r.err().expect("a parse error")
    }

    /// The functions whose bodies the parse left empty; everything else must print as syn's
    /// own tree of the text prints.
    fn emptied(text: &str) -> Vec<String> {
        let lazy = parse_file(text, None).expect("parses");
        let full = syn::parse_file(text).expect("parses");
        let mut out = Vec::new();
        items(&lazy.items, &full.items, &mut out);
        out
    }

    fn items(lazy: &[syn::Item], full: &[syn::Item], out: &mut Vec<String>) {
        assert_eq!(lazy.len(), full.len());
        for (l, f) in lazy.iter().zip(full) {
            match (l, f) {
                (syn::Item::Fn(l), syn::Item::Fn(f)) => {
                    assert_eq!(tokens(&l.sig), tokens(&f.sig));
                    body(&l.sig, &l.block, &f.block, out);
                }
                (syn::Item::Impl(l), syn::Item::Impl(f)) => {
                    assert_eq!(tokens(&l.self_ty), tokens(&f.self_ty));
                    assert_eq!(l.items.len(), f.items.len());
                    for (li, fi) in l.items.iter().zip(&f.items) {
                        match (li, fi) {
                            (syn::ImplItem::Fn(l), syn::ImplItem::Fn(f)) => {
                                assert_eq!(tokens(&l.sig), tokens(&f.sig));
                                body(&l.sig, &l.block, &f.block, out);
                            }
                            (syn::ImplItem::Const(l), syn::ImplItem::Const(f)) => {
                                assert_eq!(tokens(&l.ty), tokens(&f.ty));
                                initializer(&l.ident, &l.expr, &f.expr, out);
                            }
                            (l, f) => assert_eq!(tokens(l), tokens(f)),
                        }
                    }
                }
                (syn::Item::Trait(l), syn::Item::Trait(f)) => {
                    assert_eq!(l.items.len(), f.items.len());
                    for (li, fi) in l.items.iter().zip(&f.items) {
                        match (li, fi) {
                            (syn::TraitItem::Fn(l), syn::TraitItem::Fn(f)) => {
                                match (&l.default, &f.default) {
                                    (Some(lb), Some(fb)) => body(&l.sig, lb, fb, out),
                                    (a, b) => assert_eq!(a.is_some(), b.is_some()),
                                }
                            }
                            (l, f) => assert_eq!(tokens(l), tokens(f)),
                        }
                    }
                }
                (syn::Item::Mod(l), syn::Item::Mod(f)) => match (&l.content, &f.content) {
                    (Some((_, l)), Some((_, f))) => items(l, f, out),
                    (a, b) => assert_eq!(a.is_some(), b.is_some()),
                },
                (syn::Item::Const(l), syn::Item::Const(f)) => {
                    assert_eq!(tokens(&l.ty), tokens(&f.ty));
                    initializer(&l.ident, &l.expr, &f.expr, out);
                }
                (syn::Item::Static(l), syn::Item::Static(f)) => {
                    assert_eq!(tokens(&l.ty), tokens(&f.ty));
                    initializer(&l.ident, &l.expr, &f.expr, out);
                }
                (l, f) => assert_eq!(tokens(l), tokens(f)),
            }
        }
    }

    /// A `const` or `static` item's initializer: as syn parses it, or its group emptied.
    fn initializer(name: &syn::Ident, lazy: &syn::Expr, full: &syn::Expr, out: &mut Vec<String>) {
        let (l, f) = (tokens(lazy), tokens(full));
        if l != f {
            assert!(
                l.contains("{ }") || l.contains("[]") || l.contains("()"),
                "`{name}`: {l} vs {f}"
            );
            out.push(name.to_string());
        }
    }

    fn body(sig: &syn::Signature, lazy: &syn::Block, full: &syn::Block, out: &mut Vec<String>) {
        let (l, f) = (lazy.brace_token.span, full.brace_token.span);
        assert_eq!(
            (l.open().start(), l.close().end()),
            (f.open().start(), f.close().end()),
            "the body of `{}` keeps its span",
            sig.ident
        );
        if lazy.stmts.is_empty() && !full.stmts.is_empty() {
            out.push(sig.ident.to_string());
        } else {
            assert_eq!(tokens(lazy), tokens(full));
        }
    }

    #[test]
    fn quiet_bodies_are_emptied_and_the_rest_is_as_syn_parses_it() {
        let text = r#"
use tracing::info;
pub fn quiet(a: u8) -> u8 { let b = a + 1; b * 2 }
pub fn loud(p: &Patient) { info!(name = %p.name); }
pub async unsafe extern "C" fn abi<T: Fn(u8) -> u8, const N: usize>(t: T) -> Arr<{ N }>
where T: Clone { let x = t(1); x }
static F: fn(u8) -> u8 = quiet;
type G = fn() -> u8;
const C: u8 = { fn nested() -> u8 { 1 } nested() };
impl<T: Into<Vec<u8>>> Store<T> where T: Clone {
    fn get(&self) -> Option<&T> { self.items.first() }
    fn put(&self, p: Patient) { println!("{}", p.name) }
    const K: u8 = 1;
}
trait Api: Fn() -> u8 {
    fn required(&self);
    fn provided(&self) -> u8 { 3 }
    fn noisy(&self) { // phi-lint: allow(reason = "x")
        let _ = 1;
    }
}
mod inner {
    fn deep() -> u32 { 40 + 2 }
    impl super::Store<u8> { fn m(&self) -> u8 { 0 } }
}
m! { fn in_macro() -> u8 { 1 } }
fn commented() { info!/* c */(a = 1) }
fn tagged() { #[allow(unused)] let x = 1; }
static TABLE: [u8; 3] = [1, 2, 3];
pub static mut REFS: &mut [&str] = &mut ["a", "b"];
const GEN: Foo<{ 3 }> = Foo { a: 1 };
const CALL: S = S::new(1, 2);
static LOUD: Lazy<S> = Lazy::new(|| { info!("x"); S });
static MACRO: Map = phf_map! { "a" => 1 };
static SUM: u8 = (1) + 2;
pub const unsafe fn cf() -> u8 { 1 }
pub struct Def<T: 'static = [u8; 4]>(T);
pub struct Gen<const N: usize = { 4 }>;
type Stat = &'static [u8; { 2 }];
type Wh<T> where T: 'static = [T; { 2 }];
type Arr<const N: usize> = [u8; { N }];
static LATER: Lazy<S> = (Lazy::new)(|| { info!("x"); S });
static BINDS: Option<()> = Some(&PATIENT.name).map(|user_id| info!("{user_id}"));
static CHAIN: S = S::new().step({ 1 }).step((2, 3));
const SIZE: usize = core::mem::size_of::<[u64; 4]>();
const Q: *const [u8; 4] = &A as *const [u8; 4];
impl S { pub const K: u8 = [1, 2][0]; }
const W: usize = <[u8; 4]>::len(&[0; 4]);
static F: &(dyn Fn(&[u8; 2]) -> u8 + Sync) = &|x: &[u8; 2]| x.len() as u8;
const FIRST: u8 = TABLE[0];
const TURBO: u8 = f::<u8, u8, u8>;
const PLAIN: u8 = 1 + 2;
"#;
        // An initializer that may log is kept whole, its first group too: `LATER`, and `BINDS`,
        // whose first group binds what the rest logs. A quiet one has every group emptied.
        assert_eq!(
            emptied(text),
            [
                "quiet", "abi", "C", "get", "K", "provided", "deep", "m", "TABLE", "REFS", "GEN",
                "CALL", "SUM", "cf", "CHAIN", "SIZE", "Q", "K", "W", "F", "FIRST", "TURBO",
                "PLAIN"
            ]
        );
        // A quiet initializer is `{}`, whatever its shape, so it parses wherever one does.
        let lazy = parse_file(text, None).expect("parses");
        let Some(syn::Item::Const(plain)) = lazy.items.last() else {
            panic!("the last item is `PLAIN`")
        };
        assert_eq!(tokens(&plain.expr), "{ }");
    }

    /// The resolver's outline finds the quiet bodies this parse empties (ASCII ones), with its
    /// own lexer; blanking them first gives the same tree.
    #[test]
    fn the_outline_finds_the_bodies_the_parse_empties() {
        let text = r##"
use tracing::info;
pub fn quiet(a: u8) -> u8 { let s = "} { fn x() {"; let c = '{'; s.len() as u8 + a }
pub fn raw() -> &'static str { r#"} "{ info!(x)"#; /* } { */ "x" }
pub fn loud(p: &Patient) { info!(name = %p.name); }
fn generic<T: Fn(u8) -> u8, const N: usize>(t: T) -> Arr<{ N }> where T: Clone { t(1); todo() }
fn lifetimes<'a>(x: &'a str) -> &'a str { x }
fn unicode() -> &'static str { "é" }
static F: fn(u8) -> u8 = quiet;
impl<T: Into<Vec<u8>>> Store<T> where T: Clone {
    fn get(&self) -> Option<&T> { self.items.first() }
    fn put(&self, p: Patient) { println!("{}", p.name) }
}
trait Api: Fn() -> u8 {
    fn required(&self);
    fn provided(&self) -> u8 { 3 }
}
mod inner {
    fn deep() -> u32 { 40 + 2 }
    mod deeper { impl super::X { fn m(&self) -> u8 { 0 } } }
}
m! { fn in_macro() -> u8 { 1 } }
const C: u8 = { fn nested() -> u8 { 1 } nested() };
fn commented() { info!/* c */(a = 1) }
static BINDS: Option<()> = Some(&PATIENT.name).map(|user_id| info!("{user_id}"));
static TAIL: Option<()> = (make)(1).map(|_| m!());
pub struct Gen<const N: usize = { 4 }>;
type Arr<const N: usize = { 3 }> = [u8; N];
fn neutral() -> String { format!("{}", vec![1].len()) }
"##;
        // Every body, however short: the parse empties them all.
        let outline = crate::resolve::outline::outline_with(text, 0).expect("outlined");
        let (_, emptied) = super::parse_emptying(text, None).expect("parses");
        let ascii: Vec<(usize, usize)> = emptied
            .into_iter()
            .filter(|&(open, end)| text[open..end].is_ascii())
            .map(|(open, end)| (open + 1, end - 1))
            .collect();
        // Bodies that call macros are the outline's only addition, each with the macros' names:
        // quiet once the scan shows them neutral.
        let (plain, with_macros): (Vec<_>, Vec<_>) = outline
            .quiet_bodies
            .iter()
            .partition(|b| b.macros.is_empty());
        let plain: Vec<(usize, usize)> = plain.iter().map(|b| b.inside).collect();
        assert_eq!(plain, ascii);
        let neutral = text.rfind("{ format!").expect("the neutral body");
        assert_eq!(
            with_macros
                .iter()
                .map(|b| (b.inside.0, b.macros.clone()))
                .collect::<Vec<_>>(),
            [(neutral + 1, vec!["format".to_owned(), "vec".to_owned()])]
        );
        let file = super::parse_blanking(
            text,
            &super::blank(text, &[with_macros[0].clone()]).expect("blanked"),
            &[with_macros[0].inside],
            None,
        )
        .unwrap();
        let Some(syn::Item::Fn(last)) = file.items.last() else {
            panic!("the last item is `neutral`")
        };
        assert!(last.block.stmts.is_empty(), "a blanked body parses empty");
        let names: Vec<&str> = plain
            .iter()
            .map(|&(start, _)| {
                let before = &text[..start - 1];
                // A function's name follows its `fn`, an initializer's after its `const`.
                let keyword = if before.trim_end().ends_with('=') {
                    "const "
                } else {
                    "fn "
                };
                let after_fn = &text[before.rfind(keyword).expect("a signature") + keyword.len()..];
                let end = after_fn
                    .find(|c: char| !c.is_alphanumeric() && c != '_')
                    .expect("a name");
                &after_fn[..end]
            })
            .collect();
        assert_eq!(
            names,
            // `raw`'s string holds `info!(`: the text scan cannot tell, so it is parsed.
            [
                "quiet",
                "generic",
                "lifetimes",
                "get",
                "provided",
                "deep",
                "m",
                "C"
            ]
        );
        let quiet: Vec<QuietBody> = plain.iter().map(|&inside| quiet(inside, &[])).collect();
        let blanked = super::blank(text, &quiet).expect("ASCII, between braces");
        assert_eq!(blanked.len(), text.len());
        assert_eq!(blanked.lines().count(), text.lines().count());
        let from_blanked = super::parse_blanking(text, &blanked, &plain, None).unwrap();
        assert_eq!(
            tokens(&from_blanked),
            tokens(&parse_file(text, None).unwrap())
        );
    }

    fn quiet(inside: (usize, usize), macros: &[&str]) -> QuietBody {
        QuietBody {
            inside,
            macros: macros.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    /// The outline's lexer and proc-macro2's agree on where each body ends, through every
    /// literal and comment form: generated bodies of tricky pieces, each quiet, must be found
    /// with the span proc-macro2 gives their group (a disagreement would blank a wrong range).
    #[test]
    fn the_outline_ends_bodies_where_proc_macro2_does() {
        const PIECES: [&str; 34] = [
            "\"\"",
            "\"}\"",
            "\"{\"",
            "\"\\\"\"",
            "\"\\\\\"",
            "r\"}\"",
            "r#\"\"}\"#",
            "br\"{\"",
            "b\"}\"",
            "c\"{\"",
            "'}'",
            "'{'",
            "'\\''",
            "'\"'",
            "b'}'",
            "'a",
            "'static",
            "\"x\"r",
            "\"\"r",
            "'c'x",
            "r\"x\"_s",
            "1u8",
            "1.0e5",
            "x",
            "_",
            "r#x",
            "{",
            "}",
            "/* } */",
            "/* /* { */ */",
            "// }\n",
            "\n",
            "-> u8",
            "<{ 1 }>",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = 0;
        for _ in 0..20_000 {
            let n = (next() % 8) as usize;
            // Pieces side by side, or apart: a suffix is only one when it touches its literal.
            let mut inner = String::new();
            for _ in 0..n {
                inner.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
                if next() % 2 == 0 {
                    inner.push(' ');
                }
            }
            let text = format!("fn f() {{ {inner} }}\nfn g() {{ 1 }}\n");
            let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
                continue; // unbalanced: the parse fails whatever the outline says
            };
            let groups: Vec<(usize, usize)> = tokens
                .into_iter()
                .filter_map(|t| match t {
                    proc_macro2::TokenTree::Group(g)
                        if g.delimiter() == proc_macro2::Delimiter::Brace =>
                    {
                        let r = g.span().byte_range();
                        Some((r.start + 1, r.end - 1))
                    }
                    _ => None,
                })
                .collect();
            let Ok(outline) = crate::resolve::outline::outline_with(&text, 0) else {
                continue;
            };
            // Every body the outline would blank is one of proc-macro2's groups.
            for q in &outline.quiet_bodies {
                assert!(
                    groups.contains(&q.inside),
                    "{text:?}: {q:?} not in {groups:?}"
                );
            }
            checked += 1;
        }
        assert!(checked > 5000, "only {checked} texts lexed");
    }

    /// Ranges that are not a quiet body's inside are not taken: the original text is parsed.
    #[test]
    fn blanking_that_the_parse_does_not_confirm_is_not_taken() {
        let text = "struct User { name: String }\nfn f() -> u8 { 1 }\n";
        let fields = (text.find('{').unwrap() + 1, text.find('}').unwrap());
        let blanked = super::blank(text, &[quiet(fields, &[])]).expect("between braces");
        assert!(blanked.starts_with("struct User {              }"));
        let file = super::parse_blanking(text, &blanked, &[fields], None).unwrap();
        assert_eq!(tokens(&file), tokens(&parse_file(text, None).unwrap()));
        assert!(tokens(&file).contains("name : String"));
        // Not between braces, out of the text, or not ASCII: nothing is blanked.
        assert_eq!(super::blank(text, &[quiet((1, 3), &[])]), None);
        assert_eq!(super::blank(text, &[quiet((40, 400), &[])]), None);
        assert_eq!(
            super::blank("fn f() { \"é\" }", &[quiet((8, 13), &[])]),
            None
        );
        // A body that changed since the outline read it: a sink now, or another macro.
        let now = "fn f() { info!(a = 1) }";
        assert_eq!(super::blank(now, &[quiet((8, 22), &[])]), None);
        let other = "fn f() { shout!(p.name) }";
        assert_eq!(super::blank(other, &[quiet((8, 24), &["vec"])]), None);
        assert!(super::blank(other, &[quiet((8, 24), &["shout"])]).is_some());
        // A range at the very start (no brace before it) is not a body.
        assert!(super::parse_blanking(text, text, &[(0, 3)], None).is_ok());
        // A parse error of the blanked text is not taken either.
        let broken = "fn f() -> u8 { 1 }";
        assert!(super::parse_blanking(broken, "fn f() -> u8 { 1 ", &[(14, 16)], None).is_ok());
    }

    /// `n` elements of `piece(i)`, comma-separated: over 64 KiB for `n` = 20,000.
    fn elements(n: usize, piece: impl Fn(usize) -> String) -> String {
        (0..n).map(piece).collect::<Vec<_>>().join(", ")
    }

    #[test]
    fn large_tables_in_a_walked_body_are_emptied_and_nothing_else() {
        let numbers = elements(20_000, |i| format!("{}u64", i * 7));
        let nested = elements(8_000, |i| format!("(-{i}, \"c{i}\", [true, 0x{i:x}])"));
        let with_name = format!("{numbers}, p.id");
        let small = elements(10, |i| i.to_string());
        let text = format!(
            "pub fn f(p: &Patient) {{\n\
             \x20   tracing::info!(name = %p.name);\n\
             \x20   let a = [{numbers}];\n\
             \x20   let b = vec![{nested}];\n\
             \x20   let c = [{with_name}];\n\
             \x20   let d = ([{numbers}], p.id);\n\
             \x20   let e = [{small}];\n\
             \x20   let g = shout![{numbers}];\n\
             \x20   #[doc = \"x\"] let h = ({numbers});\n\
             \x20   let k = shout!(p.id, [{numbers}]);\n\
             \x20   tracing::info!(count = a.len());\n\
             }}\n"
        );
        let file = parse_file(&text, None).expect("parses");
        let syn::Item::Fn(f) = &file.items[0] else {
            panic!("a function")
        };
        let init = |name: &str| -> String {
            f.block
                .stmts
                .iter()
                .find_map(|s| match s {
                    syn::Stmt::Local(l) if tokens(&l.pat) == name => {
                        Some(tokens(&l.init.as_ref().expect("an initializer").expr))
                    }
                    _ => None,
                })
                .expect("the local")
        };
        // Tables: emptied, alone (`a`, `b`) or inside a group that is not one (`d`).
        assert_eq!(init("a"), "[]");
        assert_eq!(init("b"), "vec ! []");
        assert_eq!(init("d"), "([] , p . id)");
        // Not tables, or not emptied: a path among the elements, a small one, another macro's
        // input, a parenthesized group.
        assert!(init("c").ends_with("p . id]"), "{}", &init("c")[..40]);
        assert_eq!(init("e"), format!("[{}]", small.replace(',', " ,")));
        assert!(init("g").len() > 64 * 1024);
        assert!(init("h").len() > 64 * 1024);
        // Nor a table inside another macro's input: its arms may match `[]` differently.
        assert!(init("k").len() > 64 * 1024);
        // Everything after the tables keeps its place.
        let last = f.block.stmts.last().expect("statements");
        let line = syn::spanned::Spanned::span(last).start().line;
        assert_eq!(line, text.lines().count() - 1);
        // A body under 64 KiB is not looked into, nor is one the lint does not walk.
        let quiet = format!("fn q() -> u64 {{ let a = [{numbers}]; a[0] }}");
        assert!(emptied(&quiet).contains(&"q".to_owned()));
    }

    #[test]
    fn errors_and_shebangs_are_syn_s() {
        let shebang = "#!/usr/bin/env run-cargo-script\nfn quiet() { let a = 1; }\n";
        assert_eq!(
            parse_file(shebang, None)
                .expect("parses")
                .shebang
                .as_deref(),
            Some("#!/usr/bin/env run-cargo-script")
        );
        // Its quiet bodies are emptied, as any file's: it is bounded as any file is.
        let (_, emptied) = super::parse_emptying(shebang, None).expect("parses");
        assert_eq!(emptied.len(), 1);
        // A `#!` that a comment separates from `[` starts an inner attribute, as syn reads it.
        for attr in [
            "#!/**/[allow(x)]\nfn f() {}",
            "#! // c\n[allow(x)]\nfn f() {}",
        ] {
            let file = parse_file(attr, None).expect("parses");
            assert_eq!((file.shebang, file.attrs.len()), (None, 1), "{attr}");
        }
        assert!(parse_file("#![allow(unused)]\nfn f() { let a = 1; }", None).is_ok());
        assert!(parse_file("\u{feff}fn f() { let a = 1; }", None).is_ok());
        for bad in [
            // A lexer error.
            "fn f() { \"open }",
            // A syntax error in a body that may log, and one outside any body.
            "fn f() { info!(\"x\"); let = 1; }",
            "fn f() { } struct ;",
        ] {
            let (ours, theirs) = (err(parse_file(bad, None)), err(syn::parse_file(bad)));
            assert_eq!(ours.to_string(), theirs.to_string(), "{bad}");
            assert_eq!(ours.span().start(), theirs.span().start(), "{bad}");
        }
        // In a quiet body it is left to the compiler.
        assert!(parse_file("fn f() { let = 1; }", None).is_ok());
    }
}
