//! A file's outline, from one cheap pass over its bytes before syn sees it: the `mod`
//! declarations and `include!`s the resolver follows, and the nesting bounds that keep syn's
//! recursive parser (and the visitor, and `Drop`) inside their stacks.
//!
//! The pass is a small Rust lexer (comments, strings, raw strings, chars and lifetimes) feeding a
//! state machine that knows only item prefixes: attributes, `pub(..)`, `mod NAME;`,
//! `mod NAME { .. }`, `macro_rules! NAME { .. }` and `include!("..")`. It never recurses.
//! It also counts the tokens of each group the parse bounds, so that a file over that bound is
//! refused before proc-macro2 lexes it (see `Count`).

use compact_str::CompactString;

use crate::engine::STATEMENT_TOKENS;

/// Brackets may nest at most this deep. Real code stays under 30; syn needs a few kilobytes of
/// stack per level, so 40,000 levels overflow any thread.
pub(crate) const MAX_DEPTH: usize = 256;

/// At most this many operator tokens (`.`, `+`, `!`, `else`, `as`, `return`, `break`, …) may
/// follow one another without a `,` or `;` at the same bracket level. Such a run is one deeply
/// nested expression (`a.b.c…`, `!!!x`, `if .. else if ..`, `return return x`), which syn's parser,
/// visitor and `Drop` walk recursively.
pub(crate) const MAX_CHAIN: usize = 4096;

/// What the lexer found in one file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Outline {
    /// The file's inner attributes (`#![cfg(test)]`), as source text.
    pub(crate) inner_attrs: Vec<String>,
    /// Out-of-line `mod NAME;` declarations.
    pub(crate) mods: Vec<ModDecl>,
    /// `include!("path")` calls with a string-literal path.
    pub(crate) includes: Vec<Include>,
    /// Every name an item of the file may define, anywhere in it (bodies and macro arguments
    /// included): the identifier after `struct`, `enum`, `union`, `type`, `trait`, `fn`,
    /// `const`, `static` (and `static mut`), `macro` and `macro_rules!`, and after `as` in a
    /// `use`. A superset of what the type index and the `macro_rules!` table hold for the file
    /// (raw identifiers without their `r#`), so a name missing here is defined by no item of it.
    pub(crate) names: Vec<CompactString>,
    /// Every identifier between an `impl` and the next `{` or `;`: a superset of the self types
    /// whose methods the type index holds for the file.
    pub(crate) impl_names: Vec<CompactString>,
    /// The ASCII function bodies at an item level (the file, an inline `mod`, an `impl`, a
    /// `trait`) whose text cannot reach a sink but through macros that may be neutral
    /// ([`neutral_macros`](crate::engine::neutral_macros)): the lint's parse may blank them
    /// (`engine::bodies`) once the scan shows those macros neutral.
    pub(crate) quiet_bodies: Vec<QuietBody>,
    /// The first group of the file over the parse's token bound (see [`Count`]): the file is
    /// an error if it is linted (a test file that is not is not refused).
    pub(crate) too_large: Option<Bound>,
}

/// The shortest body, braces included, recorded as quiet. Blanking a shorter one saves its
/// parse less than its record costs: a file of 200,000 `fn aN() {}` kept 10 MB of records
/// for 2.9 MB of source. A body left unrecorded is parsed and walked like any other.
const MIN_QUIET_BODY: usize = 16;

/// A function body whose inside the lint's parse may blank (see [`Outline::quiet_bodies`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QuietBody {
    /// The byte range between its braces.
    pub(crate) inside: (usize, usize),
    /// The macros it calls, by name: it is quiet only if no item of the scan defines one, and
    /// none is a configured wrapper.
    pub(crate) macros: Vec<String>,
}

/// The names that items of the scanned files may define ([`Outline::names`] of every file).
#[derive(Debug, Default, Clone)]
pub(crate) struct ItemNames {
    items: std::collections::HashSet<CompactString, foldhash::fast::RandomState>,
    impls: std::collections::HashSet<CompactString, foldhash::fast::RandomState>,
}

impl ItemNames {
    /// Adds a file's names.
    pub(crate) fn add(&mut self, outline: Outline) {
        self.items.extend(outline.names);
        self.impls.extend(outline.impl_names);
    }

    /// Whether some item may define `miss`, a name the type index or the macro table was asked
    /// for and did not have: a type, function, const, `use` rename or macro (`User`), or a
    /// method (`User::display_name`: an `impl` naming `User` and a `fn display_name`). `false`
    /// means no file defines it, so no index merged from these files can.
    pub(crate) fn could_define(&self, miss: &str) -> bool {
        fn bare(s: &str) -> &str {
            s.strip_prefix("r#").unwrap_or(s)
        }
        let miss = miss.trim_start_matches(crate::types::FOREIGN);
        match miss.rsplit_once("::") {
            // A trait's method (`dyn Source::user_id`): the trait is an item.
            Some((ty, method)) if ty.starts_with(crate::types::DYN) => {
                let ty = &ty[crate::types::DYN.len()..];
                self.items.contains(bare(ty)) && self.items.contains(bare(method))
            }
            Some((ty, method)) => {
                let ty = ty.rsplit("::").next().unwrap_or(ty);
                self.impls.contains(bare(ty)) && self.items.contains(bare(method))
            }
            None => self.items.contains(bare(miss)),
        }
    }
}

/// An inline `mod NAME { .. }` enclosing a declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Inline {
    pub(crate) name: String,
    /// Its outer attributes, as source text.
    pub(crate) attrs: Vec<String>,
}

/// One `mod NAME;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModDecl {
    pub(crate) name: String,
    /// 1-based line of the `mod` keyword.
    pub(crate) line: u32,
    /// Its outer attributes, as source text (`#[cfg(test)]`, `#[path = "x.rs"]`).
    pub(crate) attrs: Vec<String>,
    /// Enclosing inline modules, outermost first.
    pub(crate) inline: Vec<Inline>,
    /// Whether it sits in another macro's arguments (`cfg_if! { .. }`): the macro may not expand
    /// it into a module, so a missing file is not an error.
    pub(crate) in_macro: bool,
}

/// One `include!("path")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Include {
    pub(crate) path: String,
    pub(crate) line: u32,
    pub(crate) inline: Vec<Inline>,
    /// The call's own outer attributes (`#[cfg(feature = "gen")]`), as source text.
    pub(crate) attrs: Vec<String>,
}

/// A file beyond the nesting bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Brackets nest deeper than [`MAX_DEPTH`], first at this line.
    Depth(u32),
    /// A run of more than [`MAX_CHAIN`] operators or chained calls, ending at this line.
    Chain(u32),
    /// A group the parse bounds holds at least this many tokens (see [`Count`]); where it
    /// opens (1-based line, and column in characters).
    Tokens {
        line: u32,
        column: u32,
        tokens: usize,
        /// What the group is, as the parse's own error names it.
        what: &'static str,
    },
}

impl Bound {
    /// Where the file breaks the bound, if it is one place.
    pub(crate) fn pos(self) -> Option<crate::finding::Pos> {
        match self {
            Bound::Tokens { line, column, .. } => Some(crate::finding::Pos { line, column }),
            Bound::Depth(_) | Bound::Chain(_) => None,
        }
    }

    /// The bound broken by `what`, `tokens` long, that starts at byte `open` of `text`, on
    /// `line`.
    fn tokens(text: &str, (open, line): (usize, u32), tokens: usize, what: &'static str) -> Bound {
        // A byte-order mark is no column.
        let first = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let line_start = text[..open].rfind('\n').map_or(first, |p| p + 1);
        let column = text[line_start..open].chars().count().saturating_add(1);
        Bound::Tokens {
            line,
            column: u32::try_from(column).unwrap_or(u32::MAX),
            tokens,
            what,
        }
    }

    /// Why the file is not parsed, lower-case.
    pub(crate) fn message(self) -> String {
        match self {
            Bound::Depth(line) => format!(
                "brackets nest deeper than {MAX_DEPTH} levels (line {line}); not parsed, to bound the lint's stack"
            ),
            Bound::Chain(line) => format!(
                "an expression chains more than {MAX_CHAIN} operators or calls (line {line}); not parsed, to bound the lint's stack"
            ),
            // As the parse words it (`engine::bodies`), with "at least": the count is a lower
            // bound of the parse's.
            Bound::Tokens { tokens, what, .. } => format!(
                "cannot parse: {what} of at least {tokens} tokens is too large to check \
                 (phi-lint parses up to {STATEMENT_TOKENS} tokens of one expression, macro input \
                 or item's group, literal tables excepted): split it, or exclude the file"
            ),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    Ident(&'a str),
    Punct(u8),
    /// A string literal's source text, quotes (and `r#`) included.
    Str(&'a str),
    /// Any other literal, or a lifetime.
    Lit,
    Open(u8),
    Close,
}

#[derive(Clone)]
struct Lexer<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    line: u32,
    /// Where the last token read starts.
    start: usize,
    /// proc-macro2's tokens of the doc comments skipped since this was last taken: a doc
    /// comment is an attribute there (`#`, `!` if inner, and `[doc = ".."]`), not trivia.
    docs: usize,
    /// The same, of the doc comments since the last token, and where the first of them starts
    /// (byte and line): a run of them is one item's attributes.
    doc_run: (usize, (usize, u32)),
}

/// Whether the parse bounds the headers of the item list on top of `stack`: one reached from
/// the file through modules, `impl`s and `trait`s only. One in a function body (which the parse
/// may blank as quiet), an initializer or a `macro_rules!` definition is not parsed as items.
fn headers_bounded(stack: &[Frame<'_>]) -> bool {
    stack
        .iter()
        .all(|f| matches!(f.kind, Kind::Root | Kind::InlineMod(_) | Kind::ItemList))
}

/// proc-macro2's tokens of an outer doc comment (`#`, then `[doc = ".."]`: one plus three).
const OUTER_DOC_TOKENS: usize = 5;

/// Bytes that may continue an identifier (or a number's suffix): ASCII letters, digits, `_`,
/// and every byte of a non-ASCII character.
const IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
        c += 1;
    }
    t
};

fn is_ident_byte(c: u8) -> bool {
    IDENT[c as usize]
}

/// The end of the run of identifier bytes starting at `from`: up to a byte that is not one, or
/// a character that proc-macro2 skips as whitespace.
fn ident_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < b.len() && ident_continues(b, j) {
        j += 1;
    }
    j
}

/// Whether the byte at `j` continues an identifier (or a number, a suffix).
fn ident_continues(b: &[u8], j: usize) -> bool {
    is_ident_byte(b[j]) && (b[j] < 0x80 || unicode_space(b, j) == 0)
}

/// The length of the whitespace character at `j` that is not ASCII (proc-macro2 skips any
/// `char::is_whitespace` and the two directional marks U+200E and U+200F), or 0.
fn unicode_space(b: &[u8], j: usize) -> usize {
    let Some(&lead) = b.get(j) else { return 0 };
    if lead < 0x80 {
        return 0;
    }
    let width = utf8_width(lead);
    let Some(c) = b
        .get(j..j + width)
        .and_then(|c| std::str::from_utf8(c).ok())
        .and_then(|s| s.chars().next())
    else {
        return 0;
    };
    if c.is_whitespace() || c == '\u{200e}' || c == '\u{200f}' {
        width
    } else {
        0
    }
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text`, past a byte-order mark (which rustc and syn skip).
    fn new(text: &'a str) -> Self {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer {
            b: text.as_bytes(),
            text,
            // Past a shebang line too, which is no tokens (`engine::shebang_len`).
            i: bom + crate::engine::shebang_len(&text[bom..]).unwrap_or(0),
            line: 1,
            start: 0,
            docs: 0,
            doc_run: (0, (0, 1)),
        }
    }

    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    /// Advances over `n` bytes, counting newlines.
    fn bump_to(&mut self, end: usize) {
        let end = end.min(self.b.len());
        self.line += memchr_count(&self.b[self.i..end]);
        self.i = end;
    }

    /// A doc comment of `tokens` of proc-macro2's tokens (none: a plain comment) at byte `at`.
    fn doc(&mut self, at: usize, tokens: usize) {
        if tokens == 0 {
            return;
        }
        self.docs = self.docs.saturating_add(tokens);
        if self.doc_run.0 == 0 {
            self.doc_run.1 = (at, self.line);
        }
        self.doc_run.0 = self.doc_run.0.saturating_add(tokens);
    }

    /// The doc comments since the last token, if they are [`STATEMENT_TOKENS`] or more of
    /// proc-macro2's tokens in an item list: the attributes of one item, whose header the
    /// parse bounds (`engine::bodies`) and refuses only after proc-macro2 has lexed them all.
    fn doc_run_over(&mut self, text: &str, item_list: bool) -> Option<Bound> {
        let (tokens, at) = std::mem::take(&mut self.doc_run);
        (item_list && tokens >= STATEMENT_TOKENS)
            .then(|| Bound::tokens(text, at, tokens, "an item's header"))
    }

    fn skip_trivia(&mut self) {
        let b = self.b;
        let mut i = self.i;
        loop {
            match b.get(i) {
                Some(b' ' | b'\t' | b'\r') => i += 1,
                Some(b'\n') => {
                    self.line += 1;
                    i += 1;
                }
                Some(b'/') => match b.get(i + 1) {
                    Some(b'/') => {
                        // `///` (not `////`) and `//!` are doc comments.
                        self.doc(
                            i,
                            match (b.get(i + 2), b.get(i + 3)) {
                                (Some(b'/'), Some(b'/')) => 0,
                                (Some(b'/'), _) => OUTER_DOC_TOKENS,
                                (Some(b'!'), _) => OUTER_DOC_TOKENS + 1,
                                _ => 0,
                            },
                        );
                        i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p);
                    }
                    Some(b'*') => {
                        // `/**` (not `/***` or `/**/`) and `/*!` are doc comments.
                        self.doc(
                            i,
                            match (b.get(i + 2), b.get(i + 3)) {
                                (Some(b'*'), Some(b'*' | b'/')) => 0,
                                (Some(b'*'), _) => OUTER_DOC_TOKENS,
                                (Some(b'!'), _) => OUTER_DOC_TOKENS + 1,
                                _ => 0,
                            },
                        );
                        let j = block_comment_end(b, i);
                        self.line += memchr_count(&b[i..j]);
                        i = j;
                    }
                    _ => break,
                },
                Some(c) if c.is_ascii_whitespace() || *c == 0x0b => i += 1,
                Some(c) if *c >= 0x80 => match unicode_space(b, i) {
                    0 => break,
                    width => i += width,
                },
                _ => break,
            }
        }
        self.i = i;
    }

    /// The end of a literal that ends at `end`, with its suffix (`"a"suffix`, `'c'x`, `r"s"_t`):
    /// an identifier right after it that starts with an ASCII letter or `_`, as proc-macro2
    /// lexes it. Without this `""r"\""` would read as `""` and the raw string `r"\"`, where
    /// rustc reads `""r` and `"\""`.
    fn suffix_end(&self, end: usize) -> usize {
        match self.b.get(end) {
            Some(&c)
                if c.is_ascii_alphabetic()
                    || c == b'_'
                    || (c >= 0x80 && unicode_space(self.b, end) == 0) =>
            {
                ident_end(self.b, end)
            }
            _ => end,
        }
    }

    /// A quoted string starting at the `"` at `self.i`; returns the end (after the quote).
    fn string_end(&self, from: usize) -> usize {
        let mut j = from + 1;
        while let Some(p) = self
            .b
            .get(j..)
            .and_then(|rest| memchr::memchr2(b'\\', b'"', rest))
        {
            j += p;
            if self.b[j] == b'"' {
                return j + 1;
            }
            j += 2;
        }
        self.b.len()
    }

    /// A raw string whose `#`s start at `from` (just after `r`); returns the end, or `None` if
    /// this is not a raw string.
    fn raw_string_end(&self, from: usize) -> Option<usize> {
        let hashes = self.b[from..].iter().take_while(|&&c| c == b'#').count();
        if self.b.get(from + hashes) != Some(&b'"') {
            return None;
        }
        let mut j = from + hashes + 1;
        while j < self.b.len() {
            if self.b[j] == b'"'
                && self
                    .b
                    .get(j + 1..j + 1 + hashes)
                    .is_some_and(|h| h.iter().all(|&c| c == b'#'))
            {
                return Some(j + 1 + hashes);
            }
            j += 1;
        }
        Some(self.b.len())
    }

    fn next(&mut self) -> Option<(Tok<'a>, u32)> {
        self.skip_trivia();
        let start = self.i;
        self.start = start;
        let c = *self.b.get(start)?;
        let line = self.line;
        let tok = match c {
            b'"' => {
                let end = self.string_end(start);
                self.bump_to(self.suffix_end(end));
                Tok::Str(&self.text[start..end])
            }
            b'\'' => {
                // A char literal, or a lifetime / label.
                let next = self.peek(1);
                let end = if next == b'\\' {
                    let mut j = start + 3;
                    while j < self.b.len() && self.b[j] != b'\'' {
                        j += 1;
                    }
                    self.suffix_end(j + 1)
                } else {
                    let width = utf8_width(next);
                    if self.b.get(start + 1 + width) == Some(&b'\'') {
                        self.suffix_end(start + 2 + width)
                    } else {
                        // A lifetime or label, `'r#a` (raw) included: one token here, two in
                        // proc-macro2.
                        let mut j = ident_end(self.b, start + 1);
                        if j == start + 2
                            && self.b[start + 1] == b'r'
                            && self.b.get(j) == Some(&b'#')
                            && self.b.get(j + 1).is_some_and(|&c| is_ident_byte(c))
                        {
                            j = ident_end(self.b, j + 1);
                        }
                        j
                    }
                };
                self.bump_to(end);
                Tok::Lit
            }
            b'(' | b'[' | b'{' => {
                self.i += 1;
                Tok::Open(c)
            }
            b')' | b']' | b'}' => {
                self.i += 1;
                Tok::Close
            }
            c if c.is_ascii_digit() => {
                let b = self.b;
                // Only decimal digits, `_` and `.` so far (`mantissa`), and then at most an
                // exponent's `e`, after which a sign is part of the literal (`1e-5`, `1e-_5`)
                // where `1usize-1`'s and `0x1e-5`'s are not.
                let hex = matches!(b.get(start + 1), Some(b'x' | b'o' | b'b'));
                let (mut mantissa, mut exponent) = (!hex, false);
                let mut j = start;
                while j < b.len() {
                    let c = b[j];
                    let sign = matches!(c, b'+' | b'-')
                        && exponent
                        && b.get(j + 1)
                            .is_some_and(|&n| n.is_ascii_digit() || n == b'_');
                    if !(ident_continues(b, j)
                        || (c == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit))
                        || sign)
                    {
                        break;
                    }
                    exponent = mantissa && matches!(c, b'e' | b'E');
                    mantissa &= c.is_ascii_digit() || matches!(c, b'_' | b'.');
                    j += 1;
                }
                // `1.` is a float, where `1..2`, `1.max(2)` and `1.0.0`'s second dot are not.
                if b.get(j) == Some(&b'.')
                    && mantissa
                    && !b[start..j].contains(&b'.')
                    && !b.get(j + 1).is_some_and(|&n| n == b'.' || is_ident_byte(n))
                {
                    j += 1;
                }
                self.i = j;
                Tok::Lit
            }
            c if is_ident_byte(c) => {
                let j = ident_end(self.b, start);
                let word = &self.text[start..j];
                let after = self.b.get(j).copied().unwrap_or(0);
                match (word, after) {
                    ("r" | "br" | "cr", b'"' | b'#') => {
                        if let Some(end) = self.raw_string_end(j) {
                            self.bump_to(self.suffix_end(end));
                            return Some((Tok::Str(&self.text[start..end]), line));
                        }
                        if word == "r" && after == b'#' {
                            // A raw identifier, `r#mod`.
                            let k = ident_end(self.b, j + 1);
                            self.i = k;
                            return Some((Tok::Ident(&self.text[j + 1..k]), line));
                        }
                        self.i = j;
                        Tok::Ident(word)
                    }
                    ("b" | "c", b'"') => {
                        let end = self.string_end(j);
                        self.bump_to(self.suffix_end(end));
                        Tok::Lit
                    }
                    ("b", b'\'') => {
                        self.i = j;
                        let byte = self.next().map(|(_, l)| (Tok::Lit, l));
                        self.start = start;
                        return byte;
                    }
                    _ => {
                        self.i = j;
                        Tok::Ident(word)
                    }
                }
            }
            c => {
                self.i += 1;
                Tok::Punct(c)
            }
        };
        Some((tok, line))
    }
}

/// The index just past the block comment that starts with the `/*` at `at`, nested as Rust's
/// are, or the end of `b` if it is unterminated (syn reports that).
pub(crate) fn block_comment_end(b: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut j = at;
    loop {
        let Some(p) = memchr::memchr2(b'/', b'*', &b[j..]) else {
            return b.len();
        };
        j += p;
        match (b[j], b.get(j + 1).copied().unwrap_or(0)) {
            (b'/', b'*') => {
                depth += 1;
                j += 2;
            }
            (b'*', b'/') if depth > 0 => {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return j;
                }
            }
            _ => j += 1,
        }
    }
}

fn utf8_width(lead: u8) -> usize {
    match lead {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

fn memchr_count(b: &[u8]) -> u32 {
    memchr::memchr_iter(b'\n', b).count() as u32
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Root,
    /// An attribute's brackets: where its `#` started, and whether it is `#!`.
    Attr {
        start: usize,
        inner: bool,
    },
    InlineMod(Inline),
    MacroRules,
    /// Another macro's arguments; `include` when the macro is `include!`.
    Macro {
        include: bool,
    },
    /// The item list of an `impl` or a `trait`.
    ItemList,
    /// A function body at an item level, opened at byte `open`.
    FnBody {
        open: usize,
    },
    /// The group a `const` or `static` item's initializer is (`= [..]`, `= &[..]`,
    /// `= Table { .. }`, `= make(..)`), opened at byte `open`: generated tables are large, and
    /// quiet like a function body that cannot log. It is blanked only if the rest of the
    /// initializer cannot reach a sink either: in `= Some(&PATIENT.name).map(|user_id|
    /// info!(..))` the first group binds what the rest logs, and the lint's parse keeps it.
    Initializer {
        open: usize,
    },
    Other,
}

/// Where an item list's scan for function bodies is (as `engine::bodies` scans tokens).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ItemScan {
    /// Between items, or in an item with no body or list to find.
    Start,
    /// After `fn`: a name follows if this is a function item.
    FnKeyword,
    /// In a function's signature: its body is the first `{` outside `<…>`.
    Signature,
    /// In an `impl` or `trait` header: its list is the first `{` outside `<…>`.
    Header,
    /// After `const` or `static`: a name and a type until the `=` outside `<…>`, or `fn`.
    Const,
    /// After a `const` or `static` item's `=`: `&`, `mut` and a path may come before the
    /// initializer's group.
    Initializer,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Idle,
    Hash { start: usize, inner: bool },
    Pub,
    Mod,
    ModName(String),
}

struct Frame<'a> {
    kind: Kind,
    pending: Vec<String>,
    /// The attributes before the last `include` word: an `include!` call's own.
    include_attrs: Vec<String>,
    state: State,
    /// Operators since the last `,` or `;`.
    run: usize,
    /// The last three tokens, newest first, to recognise `macro_rules! NAME {` and `NAME!(`.
    last: [Option<Tok<'a>>; 3],
    /// An `include!`'s tokens: the string literal, and how many tokens there were.
    include: (Option<&'a str>, usize),
    /// Whether the state before this frame opened was `Pub` (a `pub(crate)` group).
    after_pub: bool,
    /// In an item list: where the scan for function bodies is, and the `<` open in a
    /// signature or header.
    items: ItemScan,
    angles: u32,
    /// Whether the frame was opened by `{`.
    braced: bool,
    /// In an item list: whether an `=` came since the last `;` (a `const` or `static`
    /// initializer, where a `{}` may be one operand of a longer expression).
    initializer: bool,
    /// In an item list: the byte after the last `=` that began an initializer, and the
    /// initializer's quiet group with its byte range, kept until the item's `;` shows that the
    /// rest of the initializer cannot reach a sink either (see [`Kind::Initializer`]).
    init: (usize, Option<(QuietBody, usize, usize)>),
    /// What the parse's token bound would count of this group (see [`Count`]).
    count: Count,
    /// In an item list, in a `const` or `static` item's initializer: the list's count when its
    /// `=` was read, and where the initializer's first token starts. The parse bounds such an
    /// initializer as one expression, all its groups together, when it may log.
    init_sum: Option<(usize, Option<(usize, u32)>)>,
    /// The item scan's state before the last token: a macro's input is bounded as one at an
    /// item level only where an item starts, as the parse bounds it.
    scan_before: ItemScan,
}

/// A group's tokens, counted as the lint's parse bounds them
/// ([`STATEMENT_TOKENS`](crate::engine::STATEMENT_TOKENS)), before proc-macro2 lexes
/// them: a file over the bound is exit 2 either way, and proc-macro2's tokens of it cost about
/// 30 times its size, which is what a 5 MB `match` cost to be refused.
///
/// The count is a lower bound of proc-macro2's, so a file this refuses the parse would refuse
/// too: each token of the outline's lexer is at least one of proc-macro2's (a lifetime is one
/// here and two there, a doc comment none here), a group counts one plus its own, and a group
/// that could be a literal table (see `engine::bodies`) of
/// [`TABLE_BYTES`](crate::engine::TABLE_BYTES) or more counts one whatever its
/// delimiter and context, where the parse empties only some. Only the groups the parse bounds
/// are judged: not an item list, a function body as a whole (it is cut into runs) or a
/// `macro_rules!` definition; a group in a function body or a `const` or `static`
/// initializer only when the body or initializer may log (one that cannot is not parsed).
#[derive(Debug, Clone, Copy)]
struct Count {
    /// The byte of the group's opening delimiter, and its line.
    open: (usize, u32),
    tokens: usize,
    /// Whether every token so far could be in a literal table: a literal, `true`, `false`,
    /// `,`, `-`, `;`, or a group of the same.
    table: bool,
    /// Whether the parse bounds this group as one: see [`Count`].
    bounded: bool,
    /// Whether the group is inside one the parse does not bound (a `macro_rules!` definition,
    /// an initializer).
    unbounded_inside: bool,
    /// Whether the group is an attribute's or the input of a macro other than `vec!`, or inside
    /// one: the parse empties no literal table there, so none is counted as one token.
    tables_kept: bool,
    /// In a function body at an item level, or an item list in a `const` or `static`
    /// initializer: the first group in it over the bound, where it opens, its tokens and what
    /// the parse calls it.
    first_over: Option<((usize, u32), usize, &'static str)>,
}

impl Count {
    const ROOT: Count = Count {
        open: (0, 1),
        tokens: 0,
        table: false,
        bounded: false,
        unbounded_inside: false,
        tables_kept: false,
        first_over: None,
    };

    /// One more token of this group.
    fn add(&mut self, tok: Tok<'_>) {
        self.tokens = self.tokens.saturating_add(1);
        self.table &= match tok {
            Tok::Lit | Tok::Str(_) | Tok::Open(b'[' | b'(') => true,
            Tok::Ident(word) => word == "true" || word == "false",
            Tok::Punct(c) => matches!(c, b',' | b'-' | b';'),
            Tok::Open(_) | Tok::Close => false,
        };
    }

    /// The closed group `inner` (its closing delimiter ends before byte `end`) added to this
    /// one: a large table as the one token it was counted as when it opened, anything else
    /// with its own.
    fn close(&mut self, inner: &Count, end: usize) {
        let table =
            inner.table && !inner.tables_kept && end - inner.open.0 >= crate::engine::TABLE_BYTES;
        if !table {
            self.tokens = self.tokens.saturating_add(inner.tokens);
        }
        self.table &= inner.table;
    }

    /// The bound broken by the closed group `self`, if the parse bounds it as one.
    fn over(&self) -> Option<((usize, u32), usize)> {
        // A table the parse empties is no expression; one in a macro's input is counted.
        let emptied = self.table && !self.tables_kept;
        (self.bounded && !emptied && self.tokens >= STATEMENT_TOKENS)
            .then_some((self.open, self.tokens))
    }
}

impl<'a> Frame<'a> {
    fn new(kind: Kind, after_pub: bool) -> Self {
        Frame {
            kind,
            pending: Vec::new(),
            state: State::Idle,
            run: 0,
            last: [None; 3],
            include: (None, 0),
            include_attrs: Vec::new(),
            after_pub,
            items: ItemScan::Start,
            angles: 0,
            braced: false,
            initializer: false,
            init: (0, None),
            count: Count::ROOT,
            init_sum: None,
            scan_before: ItemScan::Start,
        }
    }

    /// Whether the frame is an item list, where function items and `impl`s are looked for.
    fn lists_items(&self) -> bool {
        matches!(self.kind, Kind::Root | Kind::InlineMod(_) | Kind::ItemList)
    }

    /// Moves the scan for function bodies past `tok` (the frame lists items), which starts at
    /// byte `start`; `arrow` when it is the `>` of `->`. Returns the kind of frame a `{` opens.
    fn scan_items(&mut self, tok: Tok<'_>, arrow: bool, open_at: usize) -> Option<Kind> {
        let header = matches!(
            self.items,
            ItemScan::Signature | ItemScan::Header | ItemScan::Const
        );
        // Angle brackets are counted between items too (`struct W<const N: usize = { 4 }>`),
        // where a `const` is a generic parameter, not an item.
        let angled = header || self.items == ItemScan::Start;
        match tok {
            Tok::Punct(b';') => (self.items, self.angles) = (ItemScan::Start, 0),
            Tok::Punct(b'<') if angled => self.angles += 1,
            Tok::Punct(b'>') if angled && !arrow => self.angles = self.angles.saturating_sub(1),
            Tok::Punct(b'=') if self.items == ItemScan::Const && self.angles == 0 => {
                self.items = ItemScan::Initializer;
            }
            Tok::Punct(b'&' | b':') if self.items == ItemScan::Initializer => {}
            Tok::Ident(word) => match self.items {
                ItemScan::Start | ItemScan::Const if word == "fn" => {
                    self.items = ItemScan::FnKeyword;
                }
                ItemScan::Start if word == "impl" || word == "trait" => {
                    (self.items, self.angles) = (ItemScan::Header, 0);
                }
                ItemScan::Start if (word == "const" || word == "static") && self.angles == 0 => {
                    (self.items, self.angles) = (ItemScan::Const, 0);
                }
                ItemScan::FnKeyword => (self.items, self.angles) = (ItemScan::Signature, 0),
                _ => {}
            },
            Tok::Open(b'{') if self.angles == 0 || !header => {
                let opens = match self.items {
                    ItemScan::Signature => Some(Kind::FnBody { open: open_at }),
                    ItemScan::Header => Some(Kind::ItemList),
                    ItemScan::Initializer => Some(Kind::Initializer { open: open_at }),
                    _ => None,
                };
                self.items = ItemScan::Start;
                return opens;
            }
            Tok::Open(_) if self.items == ItemScan::Initializer => {
                self.items = ItemScan::Start;
                return Some(Kind::Initializer { open: open_at });
            }
            _ if matches!(self.items, ItemScan::FnKeyword | ItemScan::Initializer) => {
                self.items = ItemScan::Start;
            }
            _ => {}
        }
        None
    }

    fn push_last(&mut self, t: Tok<'a>) {
        self.last = [Some(t), self.last[0], self.last[1]];
    }
}

/// Reads `text`'s outline, or the bound it breaks.
pub(crate) fn outline(text: &str) -> Result<Outline, Bound> {
    outline_with(text, MIN_QUIET_BODY)
}

/// [`outline`], recording quiet bodies of at least `min_quiet` bytes.
pub(crate) fn outline_with(text: &str, min_quiet: usize) -> Result<Outline, Bound> {
    // A body that builds an OpenTelemetry attribute under a renamed `KeyValue` holds no word a
    // sink is known by: no body of such a file is quiet.
    let min_quiet = if text.contains("opentelemetry") && crate::engine::renames_otel_key(text) {
        usize::MAX
    } else {
        min_quiet
    };
    let mut lx = Lexer::new(text);
    let mut out = Outline::default();
    let mut stack: Vec<Frame<'_>> = vec![Frame::new(Kind::Root, false)];
    // Open `macro_rules!` bodies and other macros' arguments around the current token.
    let (mut macro_rules_depth, mut macro_depth) = (0usize, 0usize);
    // Whether the next identifier is a name an item defines, whether a `use` is open, and
    // whether an `impl` header is.
    let (mut names_next, mut in_use, mut in_impl) = (false, false, false);
    // The byte after the last `-`, to tell the `>` of `->` from a closing angle bracket.
    let mut after_minus = usize::MAX;
    // The end of the token before this one.
    let mut last_end = 0usize;
    while let Some((tok, line)) = lx.next() {
        let prev_end = std::mem::replace(&mut last_end, lx.i);
        let arrow = tok == Tok::Punct(b'>') && lx.i - 1 == after_minus;
        after_minus = if tok == Tok::Punct(b'-') {
            lx.i
        } else {
            usize::MAX
        };
        match tok {
            Tok::Ident(word) => {
                if names_next && word != "mut" {
                    out.names.push(word.into());
                }
                if in_impl {
                    out.impl_names.push(word.into());
                }
                in_impl |= word == "impl";
                names_next = matches!(
                    word,
                    "struct"
                        | "enum"
                        | "union"
                        | "type"
                        | "trait"
                        | "fn"
                        | "const"
                        | "static"
                        | "macro"
                        | "macro_rules"
                ) || (word == "as" && in_use)
                    || (word == "mut" && names_next);
                in_use |= word == "use";
            }
            // `macro_rules! NAME`.
            Tok::Punct(b'!') if names_next => {}
            Tok::Punct(b';') => (names_next, in_use, in_impl) = (false, false, false),
            Tok::Open(b'{') => (names_next, in_impl) = (false, false),
            _ => names_next = false,
        }
        let top = stack.last_mut().expect("the root frame is never popped");
        if let Some(bound) = lx.doc_run_over(text, top.lists_items() && headers_bounded(&stack)) {
            out.too_large.get_or_insert(bound);
        }
        let top = stack.last_mut().expect("the root frame is never popped");
        // The doc comments before this token are tokens of the group it is in.
        let docs = std::mem::take(&mut lx.docs);
        if docs > 0 {
            top.count.tokens = top.count.tokens.saturating_add(docs);
            top.count.table = false;
        }
        top.scan_before = top.items;
        let body_or_list = if top.lists_items() {
            top.scan_items(tok, arrow, lx.i - 1)
        } else {
            None
        };
        if tok != Tok::Close {
            top.count.add(tok);
            if tok == Tok::Punct(b'=') && top.items == ItemScan::Initializer {
                top.init_sum.get_or_insert((top.count.tokens, None));
            } else if let Some((_, first @ None)) = &mut top.init_sum {
                *first = Some((lx.start, line));
            }
        }
        if tok != Tok::Close
            && top.include.1 < 2
            && matches!(top.kind, Kind::Macro { include: true })
        {
            if let Tok::Str(s) = tok {
                top.include.0 = Some(s);
            }
            // `include!("a.rs",)`: a trailing comma is no second argument.
            if !(tok == Tok::Punct(b',') && top.include.1 == 1) {
                top.include.1 += 1;
            }
        }
        match tok {
            Tok::Open(delim) => {
                // A call or an index of what a bracket closed (`g()()`, `t[0][1]`, `(f)(x)`)
                // nests the tree one deeper with no operator token between.
                if matches!(delim, b'(' | b'[') && top.last[0] == Some(Tok::Close) {
                    top.run += 1;
                    if top.run > MAX_CHAIN {
                        return Err(Bound::Chain(line));
                    }
                }
                let kind = match (&top.state, top.last) {
                    (State::Hash { start, inner }, _) if delim == b'[' => Kind::Attr {
                        start: *start,
                        inner: *inner,
                    },
                    (State::ModName(name), _) if delim == b'{' => Kind::InlineMod(Inline {
                        name: name.clone(),
                        attrs: std::mem::take(&mut top.pending),
                    }),
                    (
                        _,
                        [
                            Some(Tok::Ident(_)),
                            Some(Tok::Punct(b'!')),
                            Some(Tok::Ident("macro_rules")),
                        ],
                    ) => Kind::MacroRules,
                    (_, [Some(Tok::Punct(b'!')), Some(Tok::Ident(name)), _]) => Kind::Macro {
                        // `include!{..}` and `include![..]` are the same call.
                        include: name == "include",
                    },
                    _ => body_or_list.unwrap_or(Kind::Other),
                };
                // The parse enters an `extern { .. }` block as an item list, so it is not
                // bounded as one group.
                let extern_block = delim == b'{'
                    && top.lists_items()
                    && matches!(
                        top.last,
                        [Some(Tok::Ident("extern")), ..]
                            | [Some(Tok::Str(_)), Some(Tok::Ident("extern")), _]
                    );
                let unbounded_inside =
                    top.count.unbounded_inside || matches!(kind, Kind::MacroRules);
                let tables_kept = top.count.tables_kept
                    || matches!(kind, Kind::Attr { .. })
                    || (matches!(kind, Kind::Macro { .. })
                        && top.last[1] != Some(Tok::Ident("vec")));
                let count = Count {
                    open: (lx.i - 1, line),
                    tokens: 0,
                    table: matches!(delim, b'[' | b'('),
                    bounded: !unbounded_inside
                        && !extern_block
                        && match kind {
                            Kind::Attr { .. } | Kind::Initializer { .. } | Kind::Other => true,
                            // `static X: m!{..}`, `fn f() -> m!{..}`, `impl X for m!{..}`: a
                            // macro in a type, which the parse does not bound.
                            Kind::Macro { .. } => {
                                !top.lists_items() || top.scan_before == ItemScan::Start
                            }
                            _ => false,
                        },
                    unbounded_inside,
                    tables_kept,
                    first_over: None,
                };
                let after_pub = top.state == State::Pub;
                top.push_last(tok);
                match kind {
                    Kind::MacroRules => macro_rules_depth += 1,
                    Kind::Macro { .. } => macro_depth += 1,
                    _ => {}
                }
                stack.push(Frame {
                    braced: delim == b'{',
                    count,
                    ..Frame::new(kind, after_pub)
                });
                if stack.len() > MAX_DEPTH + 1 {
                    return Err(Bound::Depth(line));
                }
            }
            Tok::Close => {
                if stack.len() == 1 {
                    continue; // unbalanced: syn reports it
                }
                let frame = stack.pop().expect("more than the root");
                let mut quiet_body = false;
                match frame.kind {
                    Kind::MacroRules => macro_rules_depth -= 1,
                    Kind::Macro { .. } => macro_depth -= 1,
                    Kind::FnBody { open } | Kind::Initializer { open } => {
                        // `lx.i` is just past the closing bracket.
                        let body = &text[open..lx.i];
                        if body.len() >= min_quiet
                            && body.is_ascii()
                            && !crate::engine::is_main_body(text, open)
                            && let Some(macros) = crate::engine::neutral_macros(body)
                        {
                            quiet_body = true;
                            let quiet = QuietBody {
                                inside: (open + 1, lx.i - 1),
                                macros: macros.into_iter().map(str::to_owned).collect(),
                            };
                            match frame.kind {
                                Kind::Initializer { .. } => {
                                    let parent = stack.last_mut().expect("the root");
                                    parent.init.1 = Some((quiet, open, lx.i));
                                }
                                _ => out.quiet_bodies.push(quiet),
                            }
                        }
                    }
                    _ => {}
                }
                // The token bound: a group over it fails the file now, or when the function
                // body it is in turns out to be one the parse walks.
                if let Kind::FnBody { open } = frame.kind
                    && let Some((at, tokens, what)) = frame.count.first_over
                    && !quiet_body
                    && crate::engine::may_reach_a_sink(&text[open..lx.i])
                {
                    out.too_large
                        .get_or_insert(Bound::tokens(text, at, tokens, what));
                }
                if let Some((at, tokens)) = frame.count.over() {
                    // What the item-level group around it is.
                    let outer = match stack
                        .iter()
                        .rev()
                        .take_while(|f| !f.lists_items())
                        .last()
                        .map_or(&frame.kind, |f| &f.kind)
                    {
                        Kind::Attr { .. } => Some("an attribute"),
                        Kind::Macro { .. } => Some("a macro's input"),
                        _ => None,
                    };
                    // Judged when the body or the initializer it is in ends: the parse bounds
                    // what is in either only if it may log.
                    match stack.iter_mut().rev().find(|f| {
                        matches!(f.kind, Kind::FnBody { .. })
                            || (f.lists_items() && f.init_sum.is_some())
                    }) {
                        Some(f) => {
                            // The parse's initializer calls an attribute's input a macro's.
                            let what = match (&f.kind, outer) {
                                (Kind::FnBody { .. }, _) | (_, None) => "an expression",
                                (_, Some(_)) => "a macro's input",
                            };
                            f.count.first_over.get_or_insert((at, tokens, what));
                        }
                        None => {
                            let what = outer.unwrap_or("an item's group");
                            out.too_large
                                .get_or_insert(Bound::tokens(text, at, tokens, what));
                        }
                    }
                }
                stack
                    .last_mut()
                    .expect("the root")
                    .count
                    .close(&frame.count, lx.i);
                let inline = if matches!(frame.kind, Kind::Macro { include: true }) {
                    inline_stack(&stack)
                } else {
                    Vec::new()
                };
                let parent = stack.last_mut().expect("the root");
                parent.push_last(tok);
                // A `{}` in an item list ends an item (a function, an `impl`, a `struct`),
                // unless it is an operand of an initializer: the operators before it and
                // after it belong to no one expression.
                if matches!(
                    frame.kind,
                    Kind::FnBody { .. } | Kind::ItemList | Kind::InlineMod(_)
                ) {
                    parent.initializer = false;
                    parent.init.1 = None;
                    // The parse reads a `const` or `static` initializer to its `;`, whatever
                    // it holds.
                    if parent.init_sum.is_none() {
                        parent.count.first_over = None;
                    }
                }
                if frame.braced && parent.lists_items() && !parent.initializer {
                    parent.run = 0;
                }
                match frame.kind {
                    Kind::Attr { start, inner } => {
                        let attr = text[start..lx.i].to_owned();
                        if inner {
                            if matches!(parent.kind, Kind::Root) {
                                out.inner_attrs.push(attr);
                            } else if let Kind::InlineMod(m) = &mut parent.kind {
                                m.attrs.push(attr);
                            }
                        } else {
                            parent.pending.push(attr);
                        }
                        parent.state = State::Idle;
                    }
                    Kind::Macro { include: true } if macro_rules_depth == 0 => {
                        if let (Some(lit), 1) = frame.include
                            && let Some(path) = plain_string(lit)
                        {
                            out.includes.push(Include {
                                path,
                                line,
                                inline,
                                attrs: std::mem::take(&mut parent.include_attrs),
                            });
                        }
                        parent.state = State::Idle;
                        parent.pending.clear();
                    }
                    _ if frame.after_pub => parent.state = State::Pub,
                    _ => {
                        parent.state = State::Idle;
                        parent.pending.clear();
                    }
                }
            }
            Tok::Punct(c) => {
                match c {
                    b',' | b';' => top.run = 0,
                    _ => top.run += 1,
                }
                if top.lists_items() {
                    if c == b'=' && !top.initializer {
                        top.init = (lx.i, None);
                    }
                    // A `const` or `static` initializer that may log, as the parse judges it
                    // (its text from its first token to its last): a group in it over the
                    // token bound, or all of it (many groups, each under the bound).
                    if c == b';'
                        && let Some((at_eq, Some(first))) = top.init_sum.take()
                    {
                        let over = top.count.first_over.take();
                        let tokens = top.count.tokens.saturating_sub(at_eq + 1);
                        if (over.is_some() || tokens >= STATEMENT_TOKENS)
                            && text
                                .get(first.0..prev_end)
                                .is_some_and(crate::engine::may_reach_a_sink)
                        {
                            let bound = match over {
                                Some((at, tokens, what)) => Bound::tokens(text, at, tokens, what),
                                None => Bound::tokens(
                                    text,
                                    first,
                                    tokens,
                                    "a `const` or `static` initializer",
                                ),
                            };
                            out.too_large.get_or_insert(bound);
                        }
                    }
                    if c == b';' {
                        top.count.first_over = None;
                    }
                    // An initializer's quiet group, if nothing else in it can reach a sink.
                    if c == b';'
                        && let (at, Some((quiet, open, end))) = std::mem::take(&mut top.init)
                        && [(at, open), (end, lx.i - 1)].iter().all(|&(from, to)| {
                            text.get(from..to)
                                .is_some_and(|t| !crate::engine::may_reach_a_sink(t))
                        })
                    {
                        out.quiet_bodies.push(quiet);
                    }
                    top.initializer = match c {
                        b'=' => true,
                        b';' => false,
                        _ => top.initializer,
                    };
                }
                if top.run > MAX_CHAIN {
                    return Err(Bound::Chain(line));
                }
                if let (State::ModName(name), b';') = (&top.state, c) {
                    let name = name.clone();
                    let attrs = std::mem::take(&mut top.pending);
                    top.state = State::Idle;
                    top.push_last(tok);
                    if macro_rules_depth == 0 {
                        out.mods.push(ModDecl {
                            name,
                            line,
                            attrs,
                            inline: inline_stack(&stack),
                            in_macro: macro_depth > 0,
                        });
                    }
                    continue;
                }
                top.state = match (&top.state, c) {
                    (
                        State::Hash {
                            start,
                            inner: false,
                        },
                        b'!',
                    ) => State::Hash {
                        start: *start,
                        inner: true,
                    },
                    (_, b'#') => State::Hash {
                        start: lx.i - 1,
                        inner: false,
                    },
                    _ => {
                        top.pending.clear();
                        State::Idle
                    }
                };
                top.push_last(tok);
            }
            Tok::Ident(word) => {
                // Keywords that chain an expression with no operator token between them:
                // `if .. else if ..`, `x as u8 as u16`, `return return x`, `break break x`.
                if matches!(
                    word,
                    "else" | "as" | "return" | "break" | "yield" | "become"
                ) {
                    top.run += 1;
                    if top.run > MAX_CHAIN {
                        return Err(Bound::Chain(line));
                    }
                }
                top.state = match (&top.state, word) {
                    (State::Idle | State::Pub, "pub") => State::Pub,
                    (State::Idle | State::Pub, "mod") => State::Mod,
                    (State::Mod, name) => State::ModName(name.to_owned()),
                    _ => {
                        // `#[cfg(..)] include!(..)`: its attributes go with the call.
                        let pending = std::mem::take(&mut top.pending);
                        if word == "include" {
                            top.include_attrs = pending;
                        }
                        State::Idle
                    }
                };
                top.push_last(tok);
            }
            Tok::Str(_) | Tok::Lit => {
                top.state = State::Idle;
                top.pending.clear();
                top.push_last(tok);
            }
        }
    }
    // Doc comments at the end of the file (`//!` lines of a module of no items).
    let top = stack.last().expect("the root frame is never popped");
    if let Some(bound) = lx.doc_run_over(text, top.lists_items() && headers_bounded(&stack)) {
        out.too_large.get_or_insert(bound);
    }
    Ok(out)
}

/// Splits `text` into runs of whole top-level items of at least `target` bytes (the last may be
/// shorter), each starting at a line start, so that positions inside a chunk only shift by the
/// lines before it: `(byte range, lines before it)`. A text no longer than `target` is one
/// chunk. Cuts fall only after a top-level `;` or `}` that ends its line.
pub(crate) fn chunks(text: &str, target: usize) -> Vec<(std::ops::Range<usize>, u32)> {
    if text.len() <= target {
        return vec![(0..text.len(), 0)];
    }
    let mut lx = Lexer::new(text);
    let mut out = Vec::new();
    let (mut chunk_start, mut chunk_lines) = (0usize, 0u32);
    let mut open: Vec<u8> = Vec::new();
    // The last top-level `;` or `}`: its line and the byte after it.
    let mut boundary: Option<(u32, usize)> = None;
    while let Some((tok, line)) = lx.next() {
        if let Some((bline, bend)) = boundary.take()
            && line > bline
            && tok != Tok::Punct(b';')
            && let Some(nl) = text[bend..].find('\n')
        {
            let cut = bend + nl + 1;
            if cut - chunk_start >= target && !text[bend..cut].contains("/*") {
                out.push((chunk_start..cut, chunk_lines));
                (chunk_start, chunk_lines) = (cut, bline);
            }
        }
        match tok {
            Tok::Open(d) => open.push(d),
            Tok::Close => {
                let closed = open.pop();
                if closed == Some(b'{') && open.is_empty() {
                    boundary = Some((line, lx.i));
                }
            }
            Tok::Punct(b';') if open.is_empty() => boundary = Some((line, lx.i)),
            _ => {}
        }
    }
    out.push((chunk_start..text.len(), chunk_lines));
    out
}

/// A chunk of a file to parse on its own: a byte range of the file and the lines before it.
/// A chunk cut from inside an item larger than a chunk (an inline module, an `impl`, or a
/// function's body) is `wrap`ped: it is parsed under the headers of the items it is cut from
/// (each item's attributes, its text up to its `{` and its inner attributes), with the line
/// breaks between them, then the chunk's text and a closing `}` for each header. Every header
/// keeps its lines and the chunk starts on its own line (or right after the last header), so
/// every position in the parsed text is the file's, shifted by `lines_before` lines.
///
/// A chunk cut from a long line (see [`cut_long_lines`]) starts inside it: it is parsed after
/// `pad` spaces, one for each character of its line before it, so its columns are the file's
/// too. Such a chunk is never wrapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChunkSpec {
    pub(crate) range: std::ops::Range<usize>,
    /// Lines of the file before the chunk, or before its outermost header if it is wrapped.
    pub(crate) lines_before: u32,
    pub(crate) wrap: Option<Wrap>,
    /// Characters of its first line before the chunk, parsed as spaces.
    pub(crate) pad: usize,
}

/// The items a wrapped chunk is cut from (see [`ChunkSpec`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wrap {
    /// Each enclosing item's header, outermost first: a range of the file, starting at a line
    /// start, and the line breaks between its end and the next header (or the chunk).
    pub(crate) headers: Vec<(std::ops::Range<usize>, u32)>,
    /// Set if the innermost header is a function's: the chunk is a run of its statements.
    pub(crate) body: Option<BodyRun>,
}

/// A run of the statements of a function body larger than a chunk: the body's locals, `use`
/// items and closures are carried from one run to the next (see `engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyRun {
    /// The file's byte offset of the body's `{`: which function the run belongs to.
    pub(crate) open: usize,
    /// Whether this is the body's first run (its attributes and signature are judged there).
    pub(crate) first: bool,
    /// Whether this is the body's last run.
    pub(crate) last: bool,
}

impl Wrap {
    /// How many bytes of the chunk's source come before the chunk's own text.
    pub(crate) fn before(&self) -> usize {
        headers_len(&self.headers)
    }

    /// Where the file's byte `at`, inside the innermost header, is in the chunk's source.
    pub(crate) fn in_last_header(&self, at: usize) -> Option<usize> {
        let ((last, _), outer) = self.headers.split_last()?;
        last.contains(&at)
            .then(|| headers_len(outer) + at - last.start)
    }
}

/// The length of these headers in a chunk's source, with the line breaks after each.
fn headers_len(headers: &[(std::ops::Range<usize>, u32)]) -> usize {
    headers
        .iter()
        .map(|(h, pad)| h.len() + usize::try_from(*pad).unwrap_or(0))
        .sum()
}

/// How deep the splitter enters items inside items; deeper ones are parsed whole.
const MAX_SPLIT_DEPTH: usize = 8;

/// [`chunks`], with each item larger than `target` cut into chunks of its own: an inline
/// module or an `impl` into runs of its items, a function into runs of its body's statements,
/// entering items inside them too (to [`MAX_SPLIT_DEPTH`]). Generated code often wraps
/// everything in one `pub mod … { }` or one long function, whose tree would otherwise be
/// parsed, and held, whole. A function whose body's inside is one of `quiet` (byte ranges
/// that will be blanked before parsing) is not cut: its body is empty by then.
#[cfg(test)]
pub(crate) fn chunk_specs(text: &str, target: usize, quiet: &[(usize, usize)]) -> Vec<ChunkSpec> {
    chunk_specs_with(text, (target, target), quiet)
}

/// [`chunk_specs`] with items cut into chunks of about `targets.0` and function bodies into
/// runs of about `targets.1`: a run carries the locals and closures of the runs before it, so
/// shorter runs cost more than they save.
pub(crate) fn chunk_specs_with(
    text: &str,
    targets: (usize, usize),
    quiet: &[(usize, usize)],
) -> Vec<ChunkSpec> {
    let (target, run_target) = targets;
    let mut out = Vec::new();
    let top = Nest {
        lines_before: 0,
        headers: Vec::new(),
    };
    let split = Splitter {
        text,
        target,
        run_target,
        quiet,
    };
    for (range, lines_before) in chunks(text, target) {
        if range.len() <= target.saturating_mul(2) {
            top.emit(range, lines_before, None, &mut out);
            continue;
        }
        for (piece, lines, pad) in cut_long_lines(text, range, lines_before, target) {
            if pad == 0 && piece.len() > target.saturating_mul(2) {
                split.items(piece, lines, &top, 0, &mut out);
            } else {
                out.push(ChunkSpec {
                    range: piece,
                    lines_before: lines,
                    wrap: None,
                    pad,
                });
            }
        }
    }
    out
}

/// The largest header an item is cut under (see `Splitter::split`): 29,000 `where` bounds on
/// a trait of 80,000 methods (3.5 MB) took 16 s cut, 1 s parsed whole.
const MAX_CUT_HEADER: usize = 16 << 10;

/// On a long line, a piece is at least this share of the bytes of its line before it (see
/// [`cut_long_lines`]): the pads parsed add up to at most this many times the line.
const LONG_LINE_SHARE: usize = 32;

/// A chunk `range` (with `lines_before` line breaks before it) that [`chunks`] could not cut,
/// cut where it runs on a line past `target` bytes: after a top-level `;`, or after a top-level
/// `}` that an item follows, in the middle of the line. A generated file of one 5 MB line was
/// parsed whole (613 MB, 116× its size). Each piece: its range, the line breaks before it and
/// the characters of its line before it (0 for a piece that starts a line). A range with no
/// such cut is one piece.
fn cut_long_lines(
    text: &str,
    range: std::ops::Range<usize>,
    lines_before: u32,
    target: usize,
) -> Vec<(std::ops::Range<usize>, u32, usize)> {
    let mut cuts = Vec::new();
    let slice = &text[range.clone()];
    let mut lx = Lexer::new(slice);
    let mut open: Vec<u8> = Vec::new();
    let mut piece_start = 0usize;
    // Where the line the current piece starts on starts (a range starts a line).
    let mut line_start = 0usize;
    // A piece is parsed after a pad of the characters of its line before it, so that its
    // columns are the file's. On a line of many pieces those pads add up to the square of
    // the line: a piece at least a `LONG_LINE_SHARE`th of its pad keeps their sum linear (an
    // 11 MB line of `fn aN(){}` took 13.5 s with pieces of `target` alone).
    let min_len = |piece_start: usize, line_start: usize| {
        target.max((piece_start - line_start) / LONG_LINE_SHARE)
    };
    let mut cut = |at: usize, piece_start: &mut usize, line_start: &mut usize| {
        cuts.push(at);
        if let Some(nl) = memchr::memrchr(b'\n', &slice.as_bytes()[*piece_start..at]) {
            *line_start = *piece_start + nl + 1;
        }
        *piece_start = at;
    };
    // The byte after a top-level `}`, until the next token says whether an item follows.
    let mut after_brace: Option<usize> = None;
    while let Some((tok, _)) = lx.next() {
        if let Some(at) = after_brace.take() {
            let item = match tok {
                Tok::Punct(b'#') => true,
                Tok::Ident(word) => matches!(
                    word,
                    "fn" | "pub"
                        | "struct"
                        | "enum"
                        | "union"
                        | "impl"
                        | "mod"
                        | "use"
                        | "const"
                        | "static"
                        | "type"
                        | "trait"
                        | "extern"
                        | "unsafe"
                        | "async"
                        | "macro_rules"
                ),
                _ => false,
            };
            if item && at - piece_start >= min_len(piece_start, line_start) {
                cut(at, &mut piece_start, &mut line_start);
            }
        }
        match tok {
            Tok::Open(d) => open.push(d),
            Tok::Close if open.pop() == Some(b'{') && open.is_empty() => {
                after_brace = Some(lx.i);
            }
            Tok::Punct(b';')
                if open.is_empty() && lx.i - piece_start >= min_len(piece_start, line_start) =>
            {
                cut(lx.i, &mut piece_start, &mut line_start);
            }
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let (mut start, mut lines) = (0usize, lines_before);
    for end in cuts.into_iter().chain(std::iter::once(slice.len())) {
        if end <= start {
            continue;
        }
        let line_start = slice[..start].rfind('\n').map_or(0, |p| p + 1);
        let before = &slice[line_start..start];
        // A byte-order mark is no column: the first chunk's parse strips it.
        let before = match range.start + line_start {
            0 => before.strip_prefix('\u{feff}').unwrap_or(before),
            _ => before,
        };
        let pad = before.chars().count();
        out.push((range.start + start..range.start + end, lines, pad));
        lines = lines.saturating_add(newlines(&slice[start..end]));
        start = end;
    }
    out
}

/// The headers a chunk is cut under so far, and the lines before the outermost.
#[derive(Clone)]
struct Nest {
    lines_before: u32,
    /// All but the innermost header's pad are known; the innermost's is the chunk's.
    headers: Vec<(std::ops::Range<usize>, u32)>,
}

impl Nest {
    /// A chunk `range` with `lines` line breaks before it: in the file if there is no header,
    /// else after the innermost header.
    fn emit(
        &self,
        range: std::ops::Range<usize>,
        lines: u32,
        body: Option<BodyRun>,
        out: &mut Vec<ChunkSpec>,
    ) {
        let Some(((last, _), outer)) = self.headers.split_last() else {
            out.push(ChunkSpec {
                range,
                lines_before: lines,
                wrap: None,
                pad: 0,
            });
            return;
        };
        let mut headers = outer.to_vec();
        headers.push((last.clone(), lines));
        out.push(ChunkSpec {
            range,
            lines_before: self.lines_before,
            wrap: Some(Wrap { headers, body }),
            pad: 0,
        });
    }

    /// This nest with one more header, which `lines` line breaks follow after the previous one.
    fn enter(&self, header: std::ops::Range<usize>, lines: u32) -> Nest {
        let mut next = self.clone();
        match next.headers.last_mut() {
            Some((_, pad)) => *pad = lines,
            None => next.lines_before = lines,
        }
        next.headers.push((header, 0));
        next
    }
}

struct Splitter<'a> {
    text: &'a str,
    target: usize,
    /// The size of a function body's runs.
    run_target: usize,
    quiet: &'a [(usize, usize)],
}

impl Splitter<'_> {
    /// The items of `range` (`lines` line breaks before it, as [`Nest::emit`] counts them):
    /// runs of them as chunks, and each item larger than the target cut on its own.
    fn items(
        &self,
        range: std::ops::Range<usize>,
        lines: u32,
        nest: &Nest,
        depth: usize,
        out: &mut Vec<ChunkSpec>,
    ) {
        let (mut run, mut run_lines) = (range.start, lines);
        for (item, item_lines) in chunks(&self.text[range.clone()], 1) {
            let item = range.start + item.start..range.start + item.end;
            let item_lines = lines + item_lines;
            let mut pieces = Vec::new();
            if item.len() <= self.target
                || !self.split(item.clone(), item_lines, nest, depth, &mut pieces)
            {
                continue;
            }
            if run < item.start {
                nest.emit(run..item.start, run_lines, None, out);
            }
            out.append(&mut pieces);
            run = item.end;
            run_lines = item_lines + newlines(&self.text[item]);
        }
        if run < range.end {
            nest.emit(run..range.end, run_lines, None, out);
        }
    }

    /// Cuts the item `item` (`lines` line breaks before it) into chunks under its header, if
    /// it is an inline module, an `impl` or a function with a body, and can be cut.
    fn split(
        &self,
        item: std::ops::Range<usize>,
        lines: u32,
        nest: &Nest,
        depth: usize,
        out: &mut Vec<ChunkSpec>,
    ) -> bool {
        if depth >= MAX_SPLIT_DEPTH {
            return false;
        }
        let Some(h) = item_header(&self.text[item.clone()]) else {
            return false;
        };
        let (open, header_end, close) = (
            item.start + h.open,
            item.start + h.end,
            item.start + h.close,
        );
        // Every chunk of the item is parsed under its header: a header of a chunk's size or
        // more (a `where` clause of thousands of bounds) would be parsed once per chunk.
        if header_end - item.start > MAX_CUT_HEADER {
            return false;
        }
        let body = &self.text[header_end..close];
        let inner = nest.enter(item.start..header_end, lines);
        match h.kind {
            Inside::Items => {
                let pieces = chunks(body, self.target);
                if pieces.len() < 2 && pieces.iter().all(|(r, _)| r.len() <= self.target) {
                    return false;
                }
                for (r, plines) in pieces {
                    let r = header_end + r.start..header_end + r.end;
                    if r.len() <= self.target.saturating_mul(2) {
                        inner.emit(r, plines, None, out);
                    } else {
                        self.items(r, plines, &inner, depth + 1, out);
                    }
                }
                true
            }
            Inside::Statements => {
                if self.quiet.binary_search(&(open + 1, close)).is_ok() {
                    return false;
                }
                let runs = statement_runs(body, self.run_target);
                if runs.len() < 2 {
                    return false;
                }
                let n = runs.len();
                for (k, (r, plines)) in runs.into_iter().enumerate() {
                    let run = BodyRun {
                        open,
                        first: k == 0,
                        last: k + 1 == n,
                    };
                    inner.emit(
                        header_end + r.start..header_end + r.end,
                        plines,
                        Some(run),
                        out,
                    );
                }
                true
            }
        }
    }
}

/// What is between an item's braces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inside {
    /// Items: an inline module or an `impl`.
    Items,
    /// Statements: a function's body.
    Statements,
}

/// An item with a braced body, as [`item_header`] reads it (offsets into the item's text).
#[derive(Debug)]
struct Header {
    kind: Inside,
    /// The body's `{`.
    open: usize,
    /// Past the `{` and the inner attributes after it: where the header ends.
    end: usize,
    /// The body's `}`, the item's last token.
    close: usize,
}

/// Reads an item's text (one item, as [`chunks`] cuts them): an inline module, an `impl`, a
/// `trait` (until 2026-12-08 parsed whole: 10 MB of one trait took 1.05 GB) or a function with
/// a body, with outer attributes, visibility and qualifiers, whose closing brace
/// ends the text (only comments and whitespace may follow). `None` for any other item, or
/// for several items on one line, which are not cut.
fn item_header(s: &str) -> Option<Header> {
    let mut lx = Lexer::new(s);
    let kind = loop {
        match lx.next()?.0 {
            Tok::Punct(b'#') => {
                if lx.next()?.0 != Tok::Open(b'[') {
                    return None;
                }
                skip_group(&mut lx)?;
            }
            Tok::Ident("pub") => {
                let mut ahead = lx.clone();
                if ahead.next()?.0 == Tok::Open(b'(') {
                    lx = ahead;
                    skip_group(&mut lx)?;
                }
            }
            Tok::Ident("unsafe" | "const" | "async" | "extern" | "default" | "safe")
            | Tok::Str(_) => {}
            Tok::Ident("mod") => {
                if !matches!(lx.next()?.0, Tok::Ident(_)) {
                    return None;
                }
                break Inside::Items;
            }
            Tok::Ident("impl" | "trait") => break Inside::Items,
            Tok::Ident("fn") => break Inside::Statements,
            _ => return None,
        }
    };
    // The body's `{`: the first outside parentheses and brackets (a signature or an `impl`'s
    // header has no braces of its own but in generics, which the closing check below refutes).
    loop {
        match lx.next()?.0 {
            Tok::Open(b'{') => break,
            Tok::Open(_) => skip_group(&mut lx)?,
            Tok::Punct(b';') | Tok::Close => return None,
            _ => {}
        }
    }
    let open = lx.i - 1;
    // Inner attributes belong to the header: each chunk of the body is under them.
    let mut header_end = lx.i;
    loop {
        let mut ahead = lx.clone();
        if ahead.next()?.0 != Tok::Punct(b'#')
            || ahead.next()?.0 != Tok::Punct(b'!')
            || ahead.next()?.0 != Tok::Open(b'[')
        {
            break;
        }
        skip_group(&mut ahead)?;
        header_end = ahead.i;
        lx = ahead;
    }
    let mut depth = 0usize;
    let close = loop {
        match lx.next()?.0 {
            Tok::Open(_) => depth += 1,
            Tok::Close if depth == 0 => break lx.i - 1,
            Tok::Close => depth -= 1,
            _ => {}
        }
    };
    if s.as_bytes().get(close) != Some(&b'}') || s.as_bytes().get(open) != Some(&b'{') {
        return None;
    }
    // Nothing but comments after the body: a second item on the line would be lost.
    if lx.next().is_some() {
        return None;
    }
    Some(Header {
        kind,
        open,
        end: header_end,
        close,
    })
}

/// Cuts a function body's text (between its header and its `}`) into runs of whole statements
/// of at least `target` bytes, as [`chunks`] cuts items: `(byte range, line breaks before
/// it)`. A cut falls only after a `;` outside any bracket that ends its line, which ends a
/// statement; the first run starts where the body does, every other one at a line start.
fn statement_runs(body: &str, target: usize) -> Vec<(std::ops::Range<usize>, u32)> {
    let mut lx = Lexer::new(body);
    let mut out = Vec::new();
    let (mut start, mut start_lines) = (0usize, 0u32);
    let mut depth = 0usize;
    // The first line break at or after a byte, once looked for: the `;`s of one long line all
    // share it, so a line is searched once, not once per `;` (quadratic on a one-line body).
    let mut newline: Option<(usize, Option<usize>)> = None;
    while let Some((tok, line)) = lx.next() {
        match tok {
            Tok::Open(_) => depth += 1,
            Tok::Close => depth = depth.saturating_sub(1),
            Tok::Punct(b';') if depth == 0 && lx.i - start >= target => {
                let end = lx.i;
                let nl = match newline {
                    Some((from, found)) if from <= end && found.is_none_or(|at| end <= at) => found,
                    _ => {
                        let found = memchr::memchr(b'\n', &body.as_bytes()[end..]).map(|p| end + p);
                        newline = Some((end, found));
                        found
                    }
                };
                let Some(nl) = nl else {
                    continue;
                };
                // Stops at the first byte that is not blank: a `;` followed by more text on its
                // line is answered at once, however much blank follows that text.
                if !body.as_bytes()[end..nl].iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let cut = nl + 1;
                out.push((start..cut, start_lines));
                (start, start_lines) = (cut, line);
            }
            _ => {}
        }
    }
    match out.last_mut() {
        // Nothing but whitespace and comments left: the last run takes it.
        Some((last, _)) if Lexer::new(&body[start..]).next().is_none() => last.end = body.len(),
        _ => out.push((start..body.len(), start_lines)),
    }
    out
}

/// The text parsed for the chunk `range` of `text`: the slice itself, after `pad` spaces if it
/// starts inside a line, or under its headers if it is wrapped (see [`ChunkSpec`]).
pub(crate) fn chunk_source<'a>(
    text: &'a str,
    range: &std::ops::Range<usize>,
    wrap: Option<&Wrap>,
    pad: usize,
) -> std::borrow::Cow<'a, str> {
    const SPACES: &str = match str::from_utf8(&[b' '; 1024]) {
        Ok(s) => s,
        Err(_) => panic!("spaces are UTF-8"),
    };
    let Some(w) = wrap else {
        if pad == 0 {
            return std::borrow::Cow::Borrowed(&text[range.clone()]);
        }
        let mut out = String::with_capacity(pad + range.len());
        let mut left = pad;
        while left > 0 {
            let n = left.min(SPACES.len());
            out.push_str(&SPACES[..n]);
            left -= n;
        }
        out.push_str(&text[range.clone()]);
        return std::borrow::Cow::Owned(out);
    };
    let mut out = String::with_capacity(w.before() + range.len() + 2 * w.headers.len() + 1);
    for (header, pad) in &w.headers {
        out.push_str(&text[header.clone()]);
        out.extend(std::iter::repeat_n(
            '\n',
            usize::try_from(*pad).unwrap_or(0),
        ));
    }
    out.push_str(&text[range.clone()]);
    // The closing braces go right after the chunk: never on a line past the real ones (a
    // skipped test function's lines end at its `}`), and nothing after a chunk's last token
    // can comment them out (a chunk ends at a line break, or before its item's own `}`).
    for _ in &w.headers {
        out.push('}');
    }
    out.push('\n');
    std::borrow::Cow::Owned(out)
}

fn newlines(text: &str) -> u32 {
    u32::try_from(memchr::memchr_iter(b'\n', text.as_bytes()).count()).unwrap_or(u32::MAX)
}

/// Skips the rest of a group whose opening bracket `lx` just read.
fn skip_group(lx: &mut Lexer<'_>) -> Option<()> {
    let mut depth = 1usize;
    while depth > 0 {
        match lx.next()?.0 {
            Tok::Open(_) => depth += 1,
            Tok::Close => depth -= 1,
            _ => {}
        }
    }
    Some(())
}

/// The inline modules enclosing the innermost frame, outermost first.
fn inline_stack(stack: &[Frame<'_>]) -> Vec<Inline> {
    stack
        .iter()
        .filter_map(|f| match &f.kind {
            Kind::InlineMod(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// The value of a string literal (`"a/b.rs"`, `r#"a.rs"#`, `"gen/leak\x2ein"`), its escapes
/// decoded as rustc decodes them; `None` if one is malformed.
fn plain_string(lit: &str) -> Option<String> {
    if let Some(raw) = lit.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        return raw
            .get(hashes + 1..raw.len() - hashes - 1)
            .map(str::to_owned);
    }
    crate::fmtspec::unescape(lit.strip_prefix('"')?.strip_suffix('"')?)
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;

    fn mods(text: &str) -> Vec<(String, Vec<String>, Vec<String>, bool)> {
        outline(text)
            .expect("within bounds")
            .mods
            .into_iter()
            .map(|m| {
                (
                    m.name,
                    m.attrs,
                    m.inline.into_iter().map(|i| i.name).collect(),
                    m.in_macro,
                )
            })
            .collect()
    }

    #[test]
    fn finds_declarations_with_attributes_and_inline_parents() {
        let text = r##"
            //! docs
            #![cfg_attr(x, y)]
            use a::b;
            #[cfg(test)]
            mod tests;
            pub(crate) mod a;
            /// doc comment
            #[path = ".gen/leak.rs"] pub mod leak;
            mod outer { #[cfg(test)] mod inner { mod deep; } pub mod next; }
            fn f() { let s = "mod fake;"; let c = '{'; let l: &'static str = r#"mod x;"#; }
            /* mod commented; /* nested */ */
            macro_rules! m { () => { mod not_a_module; } }
            cfg_if::cfg_if! { if #[cfg(unix)] { mod unix; } }
            mod r#type;
        "##;
        let found = mods(text);
        let names: Vec<&str> = found.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(
            names,
            ["tests", "a", "leak", "deep", "next", "unix", "type"]
        );
        assert_eq!(found[0].1, ["#[cfg(test)]"]);
        assert!(found[1].1.is_empty());
        assert_eq!(found[2].1, ["#[path = \".gen/leak.rs\"]"]);
        assert_eq!(found[3].2, ["outer", "inner"]);
        assert_eq!(found[4].2, ["outer"]);
        assert!(found[5].3, "inside cfg_if!");
        assert!(!found[0].3);
        let o = outline(text).unwrap();
        assert_eq!(o.inner_attrs, ["#![cfg_attr(x, y)]"]);
    }

    #[test]
    fn inline_module_attributes_are_kept() {
        let o = outline("#[path = \"x\"] mod a { #![allow(y)] mod b; }").unwrap();
        assert_eq!(
            o.mods[0].inline[0].attrs,
            ["#[path = \"x\"]", "#![allow(y)]"]
        );
    }

    #[test]
    fn includes_with_literal_paths() {
        let o = outline(
            "include!(\"gen.rs\");\nfn f() { include!(concat!(env!(\"OUT_DIR\"), \"/x.rs\")); }\nmod m { include!(r\"in.rs\"); }\n",
        )
        .unwrap();
        let paths: Vec<&str> = o.includes.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["gen.rs", "in.rs"]);
        assert_eq!(o.includes[1].line, 3);
        assert_eq!(o.includes[1].inline[0].name, "m");
        // Any delimiter, a trailing comma, and escapes in the path are the same call to rustc.
        let o = outline(
            "include!{\"a.rs\"}\ninclude![\"b.rs\"];\ninclude!(\"c.rs\",);\ninclude!(\"d\\x2ers\");\n\
             include!(\"e\\u{2e}rs\");\ninclude!(\"two.rs\", \"x\");\ninclude!(\"bad\\q.rs\");\n",
        )
        .unwrap();
        let paths: Vec<&str> = o.includes.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["a.rs", "b.rs", "c.rs", "d.rs", "e.rs"]);
    }

    #[test]
    fn doc_comments_count_as_the_attributes_they_are() {
        // Five of proc-macro2's tokens each (`#`, then `[doc = ".."]`), six for an inner one:
        // a run of them in an item list is one item's header.
        let at_bound = STATEMENT_TOKENS / 5;
        let docs = |n: usize, doc: &str| format!("{}pub fn f() {{}}\n", doc.repeat(n));
        let o = outline(&docs(at_bound - 1, "/// x\n")).expect("within bounds");
        assert!(o.too_large.is_none());
        for doc in ["/// x\n", "/** x */\n", "//! x\n", "/*! x */\n"] {
            match outline(&docs(at_bound, doc)).map(|o| o.too_large) {
                Ok(Some(Bound::Tokens { line: 1, what, .. })) => {
                    assert_eq!(what, "an item's header");
                }
                other => panic!("{doc:?}: {other:?}"),
            }
        }
        // Plain comments are no tokens.
        for plain in ["//// x\n", "// x\n", "/*** x */\n", "/**/\n"] {
            let o = outline(&docs(at_bound * 2, plain)).expect("within bounds");
            assert!(o.too_large.is_none(), "{plain:?}");
        }
        // Not in an item list the parse does not read as items: a module in a function body
        // (which may be blanked as quiet), an initializer, a `macro_rules!` definition.
        let run = "/// x\n".repeat(at_bound + 1);
        for text in [
            format!("pub fn f() {{ mod m {{ {run} pub fn g() {{}} }} }}\n"),
            format!("pub const C: () = {{ mod m {{ {run} pub fn g() {{}} }} }};\n"),
            format!("macro_rules! mm {{ () => {{ mod inner {{ {run} pub fn g() {{}} }} }} }}\n"),
        ] {
            let o = outline(&text).expect("within bounds");
            assert!(o.too_large.is_none(), "{}", &text[..40]);
        }
        // In a group, they count with it.
        let fields = format!(
            "pub struct S {{\n{}    pub a: u8,\n}}\n",
            "    /// x\n".repeat(at_bound)
        );
        assert!(matches!(
            outline(&fields).map(|o| o.too_large),
            Ok(Some(Bound::Tokens { line: 1, .. }))
        ));
    }

    #[test]
    fn bounds_nesting_and_chains() {
        let deep = format!("fn f() {{ {}x{} }}", "(".repeat(40_000), ")".repeat(40_000));
        assert_eq!(outline(&deep), Err(Bound::Depth(1)));
        let ok = format!("fn f() {{ {}x{} }}", "(".repeat(200), ")".repeat(200));
        assert!(outline(&ok).is_ok());
        let chain = format!("fn f() {{ x{}; }}", ".a".repeat(5000));
        assert_eq!(outline(&chain), Err(Bound::Chain(1)));
        // Keywords chain with no operator token between them, and a `;` right after the run
        // does not hide it.
        for word in ["return ", "break ", "yield ", "become "] {
            let chain = format!("fn f() {{ loop {{ {}x; }} }}", word.repeat(5000));
            assert_eq!(outline(&chain), Err(Bound::Chain(1)), "{word}");
        }
        let casts = format!("fn f() {{ x{}; }}", " as u8".repeat(5000));
        assert_eq!(outline(&casts), Err(Bound::Chain(1)));
        // Calls and indexes of what a bracket closed chain too, in an attribute as well; an
        // index or call of a name does not (`c[i] * x[i] + ..` nests no deeper than its
        // operators).
        let calls = format!("fn f() {{ g{}; }}", "()".repeat(5000));
        assert_eq!(outline(&calls), Err(Bound::Chain(1)));
        let indexes = format!("fn f() {{ t{}; }}", "[0]".repeat(5000));
        assert_eq!(outline(&indexes), Err(Bound::Chain(1)));
        let attr = format!(
            "#![doc = g{}]
fn f() {{}}",
            "()".repeat(5000)
        );
        assert_eq!(outline(&attr), Err(Bound::Chain(1)));
        let terms = format!("fn f() -> u8 {{ {}0 }}", "c[1] * x[2] + ".repeat(1300));
        assert!(outline(&terms).is_ok());
        let long_but_separated = format!("fn f() {{ {} }}", "a.b.c;".repeat(5000));
        assert!(outline(&long_but_separated).is_ok());
        // Many items in one list are no chain, though no `;` comes between them: functions
        // with `->`, an `impl` of many methods, structs under attributes.
        let fns = "fn f() -> u8 { 1 }\n".repeat(5000);
        assert!(outline(&fns).is_ok());
        let methods = format!("impl S {{ {} }}", "fn m(&self) -> u8 { 1 }\n".repeat(5000));
        assert!(outline(&methods).is_ok());
        let structs = "#[derive(Debug)]\n#[allow(dead_code)]\nstruct S { a: u8 }\n".repeat(3000);
        assert!(outline(&structs).is_ok());
        // A chain whose operands are blocks, in an initializer, is still one.
        let blocks = format!("const C: u8 = {};", "{ 1 } + ".repeat(5000) + "1");
        assert_eq!(outline(&blocks), Err(Bound::Chain(1)));
        // Brackets in strings, chars and comments do not count.
        let quoted = format!(
            "const S: &str = \"{}\"; // {}\n",
            "(".repeat(1000),
            "[".repeat(1000)
        );
        assert!(outline(&quoted).is_ok());
    }

    /// A body's runs end after a top-level `;` that ends its line, once a run is long enough:
    /// the same cuts as a search for the line break after each `;`, on lines that hold many
    /// statements (whose `;`s share one search), one statement, or a `;` followed by more text.
    #[test]
    fn statement_runs_cut_where_a_search_per_semicolon_cuts() {
        fn naive(body: &str, target: usize) -> Vec<usize> {
            let mut lx = Lexer::new(body);
            let (mut start, mut depth, mut cuts) = (0, 0usize, Vec::new());
            while let Some((tok, _)) = lx.next() {
                match tok {
                    Tok::Open(_) => depth += 1,
                    Tok::Close => depth = depth.saturating_sub(1),
                    Tok::Punct(b';') if depth == 0 && lx.i - start >= target => {
                        if let Some(nl) = body[lx.i..].find('\n')
                            && body[lx.i..lx.i + nl].trim().is_empty()
                        {
                            start = lx.i + nl + 1;
                            cuts.push(start);
                        }
                    }
                    _ => {}
                }
            }
            // Nothing but whitespace left after the last cut: no run of its own.
            if cuts
                .last()
                .is_some_and(|&c| Lexer::new(&body[c..]).next().is_none())
            {
                cuts.pop();
            }
            cuts
        }
        let mut body = String::new();
        for i in 0..400 {
            match i % 5 {
                0 => body.push_str(&"a; ".repeat(i % 17 + 1)),
                1 => body.push_str("b { c; };"),
                2 => body.push_str("d; e"),
                3 => body.push_str("f;   "),
                _ => body.push_str("g(h; i);"),
            }
            body.push('\n');
        }
        for target in [1, 7, 40, 300] {
            let runs = statement_runs(&body, target);
            let cuts: Vec<usize> = runs.iter().skip(1).map(|(r, _)| r.start).collect();
            assert_eq!(cuts, naive(&body, target), "target {target}");
            assert!(cuts.len() > 3, "target {target}: {cuts:?}");
        }
    }

    #[test]
    fn chunks_cut_after_whole_items_at_line_starts() {
        let item = "/// doc\n#[derive(Debug)]\npub struct S {\n    a: u8,\n}\nconst X: S = S {\n    a: 1 }\n;\nfn f() {} /* a\n b */\n";
        let text = item.repeat(50);
        let chunks = chunks(&text, 100);
        assert!(chunks.len() > 10, "{}", chunks.len());
        let mut next = 0;
        for (range, lines_before) in &chunks {
            assert_eq!(range.start, next);
            next = range.end;
            let chunk = &text[range.clone()];
            assert_eq!(
                *lines_before as usize,
                text[..range.start].matches('\n').count()
            );
            syn::parse_file(chunk).unwrap_or_else(|e| panic!("{e}: {chunk}"));
        }
        assert_eq!(next, text.len());
        assert_eq!(super::chunks("fn f() {}\n", 100), [(0..10, 0)]);
    }

    /// A module larger than a chunk is cut into chunks of its items, each parsed under the
    /// module's header (outer and inner attributes included) where every line is the file's.
    #[test]
    fn large_modules_are_cut_under_their_header() {
        let items =
            "    /// doc\n    pub fn f() -> u8 { 1 }\n    struct S; const X: u8 = {\n 2 };\n";
        let text = format!(
            "fn before() {{}}\n/// outer\n#[cfg(feature = \"x\")]\npub(in crate::a) mod m {{ #![allow(x)]\n    \
             #![doc = \"inner\"] // after\n{}}} // end\nfn after() {{}}\nmod small {{ fn g() {{}} }}\n",
            items.repeat(100)
        );
        let specs = chunk_specs(&text, 200, &[]);
        let wrapped: Vec<&ChunkSpec> = specs.iter().filter(|c| c.wrap.is_some()).collect();
        assert!(wrapped.len() > 10, "{specs:?}");
        let header = &wrapped[0].wrap.as_ref().unwrap().headers[0].0;
        assert!(
            text[header.clone()].starts_with("/// outer\n#[cfg"),
            "{specs:?}"
        );
        assert!(
            text[header.clone()].ends_with("#![doc = \"inner\"]"),
            "{specs:?}"
        );
        let lines: Vec<&str> = text.lines().collect();
        let mut next = 0;
        for spec in &specs {
            // The chunks cover the file in order, but for the headers and the closing brace.
            assert!(spec.range.start >= next, "{specs:?}");
            next = spec.range.end;
            let source = chunk_source(&text, &spec.range, spec.wrap.as_ref(), spec.pad);
            let file = syn::parse_file(&source).unwrap_or_else(|e| panic!("{e}: {source}"));
            if spec.wrap.is_some() {
                assert!(matches!(&file.items[..], [syn::Item::Mod(_)]), "{source}");
            }
            let first = spec.lines_before as usize;
            for (k, line) in source.lines().enumerate() {
                let mut want = lines.get(first + k).copied().unwrap_or_default().to_owned();
                if k == 0 && spec.pad > 0 {
                    // The chunk starts inside its line: what comes before it is spaces.
                    let rest: String = want.chars().skip(spec.pad).collect();
                    want = " ".repeat(spec.pad) + &rest;
                }
                // Blank padding lines, and the closing brace past the chunk, are not the file's.
                let line = line.trim_end_matches('}');
                if !line.trim().is_empty() {
                    assert!(want.starts_with(line), "{k}: {line:?} vs {want:?}");
                }
            }
        }
        assert!(text[next..].trim().is_empty(), "{:?}", &text[next..]);
        // Not a module, or small: as `chunks` cuts it.
        let plain = "fn f() {}\n".repeat(100);
        let as_chunks: Vec<_> = chunks(&plain, 200)
            .into_iter()
            .map(|(range, lines_before)| ChunkSpec {
                range,
                lines_before,
                wrap: None,
                pad: 0,
            })
            .collect();
        assert_eq!(chunk_specs(&plain, 200, &[]), as_chunks);
    }

    /// Checks the chunks of `text` as the lint relies on them: each parses on its own, every
    /// line of it is the file's line at the same place, and every byte of the file is in a
    /// chunk but for headers, the closing braces after the chunks and whitespace.
    fn check_specs(text: &str, specs: &[ChunkSpec]) {
        let lines: Vec<&str> = text.lines().collect();
        let mut covered = vec![false; text.len()];
        let mut next = 0;
        for spec in specs {
            assert!(spec.range.start >= next, "{specs:?}");
            next = spec.range.end;
            covered[spec.range.clone()].fill(true);
            if let Some(w) = &spec.wrap {
                for (h, _) in &w.headers {
                    covered[h.clone()].fill(true);
                }
            }
            let source = chunk_source(text, &spec.range, spec.wrap.as_ref(), spec.pad);
            syn::parse_file(&source).unwrap_or_else(|e| panic!("{e}: {source}"));
            let first = spec.lines_before as usize;
            for (k, line) in source.lines().enumerate() {
                let mut want = lines.get(first + k).copied().unwrap_or_default().to_owned();
                if k == 0 && spec.pad > 0 {
                    // The chunk starts inside its line: what comes before it is spaces.
                    let rest: String = want.chars().skip(spec.pad).collect();
                    want = " ".repeat(spec.pad) + &rest;
                }
                // The closing braces past the chunk are not the file's.
                let line = line.trim_end_matches('}');
                if !line.trim().is_empty() {
                    assert!(want.starts_with(line), "{k}: {line:?} vs {want:?}");
                }
            }
        }
        for (i, c) in text.bytes().enumerate() {
            assert!(
                covered[i] || c == b'}' || c.is_ascii_whitespace(),
                "byte {i} ({:?}) is in no chunk: {specs:?}",
                &text[i..(i + 20).min(text.len())]
            );
        }
    }

    /// A file of one long line is cut inside the line, after a top-level `;` or after a `}`
    /// that an item follows, never inside an item or before an initializer's `;`; each chunk
    /// but the first starts after as many spaces as characters precede it, so its columns are
    /// the file's.
    #[test]
    fn a_long_line_is_cut_between_items() {
        let mut text = String::from("use a::b as c; ");
        for i in 0..60 {
            let _ = write!(
                text,
                "pub fn f{i}() {{ info!(x); }} static S{i}: T = T {{ é: {i} }}; #[a] struct U{i}; "
            );
        }
        let specs = chunk_specs(&text, 300, &[]);
        check_specs(&text, &specs);
        assert!(specs.len() > 10, "{specs:?}");
        // A byte-order mark is not counted: syn strips it from the first chunk.
        let marked = format!("\u{feff}{text}");
        let shifted: Vec<_> = chunk_specs(&marked, 300, &[])
            .into_iter()
            .map(|c| (c.range.start.saturating_sub(3), c.range.end - 3, c.pad))
            .collect();
        let plain: Vec<_> = specs
            .iter()
            .map(|c| (c.range.start, c.range.end, c.pad))
            .collect();
        assert_eq!(shifted[1..], plain[1..]);
        for spec in &specs[1..] {
            let piece = &text[spec.range.clone()];
            assert_eq!(
                spec.pad,
                text[..spec.range.start].chars().count(),
                "{piece}"
            );
            assert!(
                piece.starts_with(" pub fn")
                    || piece.starts_with(" static")
                    || piece.starts_with(" #[a]"),
                "{piece}"
            );
            assert_eq!((spec.lines_before, spec.wrap.is_none()), (0, true));
        }
    }

    /// A trait larger than a chunk is cut into runs of its items under its header, as an
    /// `impl` is: each parses on its own as the same trait with fewer items.
    #[test]
    fn a_large_trait_is_cut_under_its_header() {
        let text = format!(
            "pub trait Big: Send {{\n{}}}\n",
            "    fn m(&self) -> u8;\n".repeat(200)
        );
        let specs = chunk_specs(&text, 300, &[]);
        check_specs(&text, &specs);
        assert!(specs.len() > 3, "{specs:?}");
        for c in &specs {
            let w = c.wrap.as_ref().expect("under the trait's header");
            assert!(text[w.headers[0].0.clone()].starts_with("pub trait Big"));
        }
    }

    /// The pads of a line's pieces add up to a bounded multiple of the line, however many
    /// items it holds: each piece is at least a share of the line before it.
    #[test]
    fn the_pads_of_a_long_line_stay_linear_in_it() {
        let mut text = String::new();
        for i in 0..20_000 {
            let _ = write!(text, "fn a{i}(){{}}");
        }
        let specs = chunk_specs(&text, 300, &[]);
        check_specs(&text, &specs);
        assert!(specs.len() > 50, "{}", specs.len());
        let pads: usize = specs.iter().map(|c| c.pad).sum();
        assert!(
            pads <= (LONG_LINE_SHARE + 1) * text.len(),
            "{pads} pad bytes for a line of {}",
            text.len()
        );
        for c in &specs {
            assert!(
                c.range.len() + 20 >= (c.pad / LONG_LINE_SHARE).min(text.len() - c.range.start),
                "{c:?}"
            );
        }
        // Short lines are cut at the target as before.
        let mut lines = String::new();
        for i in 0..2_000 {
            let _ = writeln!(lines, "fn a{i}(){{}}");
        }
        assert!(chunk_specs(&lines, 300, &[]).iter().all(|c| c.pad == 0));
    }

    /// A body shorter than `MIN_QUIET_BODY` is not recorded: it is parsed like any other.
    #[test]
    fn short_bodies_are_not_recorded_as_quiet() {
        let short = "fn a() -> u8 { 1 }\n";
        assert!(outline(short).expect("outlined").quiet_bodies.is_empty());
        assert_eq!(
            outline_with(short, 0).expect("outlined").quiet_bodies.len(),
            1
        );
        let long = format!("fn a() -> u8 {{ {}1 }}\n", "let x = 0; ".repeat(6));
        assert_eq!(outline(&long).expect("outlined").quiet_bodies.len(), 1);
    }

    /// A function larger than a chunk is cut between statements (after a `;` that ends its
    /// line), each run under the function's header, and under its `impl`'s and module's when
    /// it is a method of a large module; the first and last runs are marked.
    #[test]
    fn large_functions_are_cut_into_runs_of_statements() {
        let stmts = "    let a = 1;\n    if a > 0 {\n        info!(a);\n    }\n    m!(a,\n b);\n";
        let text = format!(
            "use x::y;\n#[instrument(skip_all)]\npub(crate) async fn big(a: u8) -> Result<(), E> {{ \
             #![allow(x)]\n{}    Ok(())\n}}\nfn after() {{}}\n",
            stmts.repeat(60)
        );
        let specs = chunk_specs(&text, 300, &[]);
        check_specs(&text, &specs);
        let runs: Vec<BodyRun> = specs
            .iter()
            .filter_map(|c| c.wrap.as_ref().and_then(|w| w.body))
            .collect();
        assert!(runs.len() > 5, "{specs:?}");
        assert!(runs[0].first && !runs[0].last);
        assert!(runs[1..runs.len() - 1].iter().all(|r| !r.first && !r.last));
        assert!(runs[runs.len() - 1].last);
        let open = text.find("{ #![allow").expect("body");
        assert!(runs.iter().all(|r| r.open == open));
        let header = &specs[1].wrap.as_ref().expect("wrapped").headers[0].0;
        assert!(text[header.clone()].starts_with("#[instrument"));
        assert!(text[header.clone()].ends_with("#![allow(x)]"));

        // A method of an `impl` in a module: three headers.
        let text = format!(
            "pub mod generated {{\n    pub struct S;\n    impl S {{\n        pub fn load(&self) {{\n{}        }}\n    }}\n{}}}\n",
            stmts.repeat(60),
            "    pub fn small() {}\n".repeat(20)
        );
        let specs = chunk_specs(&text, 300, &[]);
        check_specs(&text, &specs);
        assert!(
            specs.iter().any(|c| c
                .wrap
                .as_ref()
                .is_some_and(|w| w.headers.len() == 3 && w.body.is_some())),
            "{specs:?}"
        );
    }

    /// What is not cut: a body the lint will blank, a body of one long statement, and an item
    /// followed by another on the line of its closing brace (which a cut would lose).
    #[test]
    fn functions_that_cannot_be_cut_are_kept_whole() {
        let stmts = "    info!(a);\n".repeat(100);
        let text = format!("fn big() {{\n{stmts}}}\n");
        let open = text.find('{').expect("body");
        let close = text.rfind('}').expect("body");
        assert!(chunk_specs(&text, 300, &[]).len() > 1);
        assert_eq!(chunk_specs(&text, 300, &[(open + 1, close)]).len(), 1);
        let one = format!(
            "fn big() {{\n    let v = vec![\n{}    ];\n}}\n",
            "        1,\n".repeat(200)
        );
        assert_eq!(chunk_specs(&one, 300, &[]).len(), 1);
        // An item after a large one on the line of its closing brace is a chunk of its own,
        // starting inside the line; the large one is cut as any other.
        for text in [
            format!(
                "mod m {{\n{}}} fn leak() {{ info!(p.name); }}\n",
                "    fn f() {}\n".repeat(100)
            ),
            format!("fn big() {{\n{stmts}}} fn leak() {{ info!(p.name); }}\n"),
        ] {
            let specs = chunk_specs(&text, 300, &[]);
            check_specs(&text, &specs);
            let last = specs.last().expect("chunks");
            assert_eq!(&text[last.range.clone()], " fn leak() { info!(p.name); }\n");
            assert_eq!((last.pad, last.wrap.is_none()), (1, true), "{specs:?}");
        }
    }

    #[test]
    fn names_items_may_define() {
        let o = outline(
            "use a::{B as C, d::E};\nstatic mut COUNTER: u8 = 0;\npub const fn make() {}\n\
             struct r#Type; enum Kind {} union U {} type Alias = u8; trait T { type Item; }\n\
             #[macro_export] macro_rules! audit { () => { struct Hidden; } }\n\
             impl<X: Into<String>> T for Wrapper<X> where X: Send { fn method(&self) {} }\n\
             fn f() { let x = 1 as u32; let s = \"struct Quoted\"; // fn commented\n}\n",
        )
        .unwrap();
        assert_eq!(
            o.names,
            [
                "C", "COUNTER", "fn", "make", "Type", "Kind", "U", "Alias", "T", "Item", "audit",
                "Hidden", "method", "f"
            ]
        );
        assert_eq!(
            o.impl_names,
            [
                "X", "Into", "String", "T", "for", "Wrapper", "X", "where", "X", "Send"
            ]
        );
    }

    /// On real code (this crate's sources, tests and benches), every name the type index records for a file
    /// is among the names its outline may define, so a miss the outline does not name cannot
    /// be found by any merged index.
    #[test]
    fn the_type_index_defines_nothing_the_outline_does_not_name() {
        let mut files = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
        let mut checked = 0;
        while let Some(p) = files.pop() {
            if p.is_dir() {
                files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            if p.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let (Ok(o), Ok(file)) = (outline(&text), syn::parse_file(&text)) else {
                continue; // a fixture of a file the lint refuses
            };
            let mut names = ItemNames::default();
            names.add(o);
            for key in crate::types::index_file("src/x.rs", &file).keys() {
                assert!(names.could_define(key), "{}: {key}", p.display());
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn lines_count_across_strings_and_comments() {
        let o = outline("/* a\nb */\nconst S: &str = \"x\ny\";\nmod m;\n").unwrap();
        assert_eq!(o.mods[0].line, 5);
        // `/*/` opens a comment and does not close it; `//` inside a block comment is text.
        let o = outline("/*/ mod x; // */\n/* a /* b */ mod y; */\tmod z;\r\n").unwrap();
        let names: Vec<&str> = o.mods.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["z"]);
        assert_eq!(o.mods[0].line, 2);
        // An unterminated comment ends the file.
        assert!(outline("fn f() {}\n/* mod w;").unwrap().mods.is_empty());
    }
}

/// What the token bound's count makes of each group of `text`: where it opens (1-based line,
/// column in characters) and its tokens, in the order the groups close.
#[cfg(test)]
fn group_counts(text: &str) -> Vec<((u32, u32), usize)> {
    let mut lx = Lexer::new(text);
    let mut stack = vec![Count::ROOT];
    let mut out = Vec::new();
    while let Some((tok, line)) = lx.next() {
        let depth = stack.len();
        let top = stack.last_mut().expect("the root is never popped");
        match tok {
            Tok::Close if depth > 1 => {
                let inner = stack.pop().expect("more than the root");
                let Bound::Tokens { line, column, .. } = Bound::tokens(text, inner.open, 0, "")
                else {
                    unreachable!("a token bound")
                };
                out.push(((line, column), inner.tokens));
                stack.last_mut().expect("the root").close(&inner, lx.i);
            }
            Tok::Close => {}
            Tok::Open(delim) => {
                top.add(tok);
                stack.push(Count {
                    open: (lx.i - 1, line),
                    table: matches!(delim, b'[' | b'('),
                    ..Count::ROOT
                });
            }
            tok => top.add(tok),
        }
    }
    out
}

#[cfg(test)]
mod count_tests {
    use proc_macro2::{TokenStream, TokenTree};

    use super::group_counts;

    /// proc-macro2's count of each group of `text`, keyed as `group_counts` keys them.
    fn lexed(text: &str) -> Vec<((u32, u32), usize)> {
        fn walk(ts: TokenStream, out: &mut Vec<((u32, u32), usize)>) -> usize {
            let mut n = 0;
            for tt in ts {
                n += 1;
                if let TokenTree::Group(g) = tt {
                    let inside = walk(g.stream(), out);
                    let at = g.span().start();
                    let line = u32::try_from(at.line).expect("line");
                    let column = u32::try_from(at.column + 1).expect("column");
                    out.push(((line, column), inside));
                    n += inside;
                }
            }
            n
        }
        let mut out = Vec::new();
        walk(text.parse().expect("lexes"), &mut out);
        out.sort_unstable();
        out
    }

    /// Every group's count is at most proc-macro2's, group for group (proc-macro2 has more: a
    /// doc comment is an attribute there). Returns how many are equal.
    fn at_most_lexed(text: &str) -> usize {
        let theirs: std::collections::HashMap<(u32, u32), usize> =
            lexed(text).into_iter().collect();
        let mut equal = 0;
        for (at, ours) in group_counts(text) {
            let Some(&lexed) = theirs.get(&at) else {
                panic!("no group of proc-macro2's at {at:?}");
            };
            assert!(
                ours <= lexed,
                "group at {at:?}: {ours} > proc-macro2's {lexed}"
            );
            equal += usize::from(ours == lexed);
        }
        equal
    }

    /// The tokens that the outline's lexer and proc-macro2 could split differently: numbers
    /// (an exponent's sign, `1.`, a suffix ending in `e`), lifetimes, raw identifiers and
    /// strings, byte and C strings, chars, doc comments.
    #[test]
    fn the_count_is_at_most_proc_macro2_s_token_for_token() {
        let exact = [
            "f(1e-5, 1.0E+3, 2.5e-3f32, 0x1e-5, 1usize-1, 1.max(2), 1..2, 1., 1_000e-3)",
            "g(r#type, r\"a\", r#\"b\"#, b'x', b\"y\", c\"z\", 'c', '\\n', '\\u{1F600}', \"s\"suffix)",
            "h([1, -2, 3], ((0x1f, \"a\"), (2, \"b\")), {x; y}, a::b::<c>() -> d => e)",
            "k(x.0.1, t.0 .1, 1.e5, 1._x, -1.5, 3.14f64 as u8)",
            // What a review found split more finely here: an exponent's `_`, suffixes that are
            // not ASCII, whitespace that is not ASCII or is a vertical tab.
            "m(1e-_5, \"a\"é, 'c'é, a\u{0b}b, c\u{a0}d, e\u{200e}f, g\u{2028}h)",
        ];
        for text in exact {
            let groups = group_counts(text).len();
            assert_eq!(at_most_lexed(text), groups, "{text}");
        }
        // A lifetime is two of proc-macro2's tokens, a doc comment an attribute, and `1.0.0`
        // three (`1.0`, `.`, `0`): fewer here.
        for fewer in [
            "fn f<'a>(x: &'a u8) {\n    /// doc\n    let y = x;\n    //! inner\n}\n",
            "g(1.0.0)",
            "h('r#a)",
        ] {
            assert!(at_most_lexed(fewer) < group_counts(fewer).len(), "{fewer}");
        }
    }

    /// The same on every Rust file of this workspace, and of the directories in
    /// `PHI_LINT_CORPORA` (`:`-separated, as the benchmark takes them) when it is set: real code
    /// of every shape phi-lint meets.
    #[test]
    fn the_count_is_at_most_proc_macro2_s_on_the_workspace() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut walk = ignore::WalkBuilder::new(&root);
        for dir in std::env::var("PHI_LINT_CORPORA")
            .unwrap_or_default()
            .split(':')
        {
            if !dir.is_empty() {
                walk.add(dir);
            }
        }
        let mut files = 0;
        for entry in walk.build().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            // A file that does not lex (a fixture of broken code) says nothing here.
            if text.parse::<proc_macro2::TokenStream>().is_err() || text.starts_with("#!/") {
                continue;
            }
            at_most_lexed(&text);
            files += 1;
        }
        assert!(files > 200, "only {files} files");
    }
}
