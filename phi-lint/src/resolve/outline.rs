//! A file's outline, from one cheap pass over its bytes before syn sees it: the `mod`
//! declarations and `include!`s the resolver follows, and the nesting bounds that keep syn's
//! recursive parser (and the visitor, and `Drop`) inside their stacks.
//!
//! The pass is a small Rust lexer (comments, strings, raw strings, chars and lifetimes) feeding a
//! state machine that knows only item prefixes: attributes, `pub(..)`, `mod NAME;`,
//! `mod NAME { .. }`, `macro_rules! NAME { .. }` and `include!("..")`. It never recurses.

/// Brackets may nest at most this deep. Real code stays under 30; syn needs a few kilobytes of
/// stack per level, so 40,000 levels overflow any thread.
pub(crate) const MAX_DEPTH: usize = 256;

/// At most this many operator tokens (`.`, `+`, `!`, `else`, `as`, …) may follow one another
/// without a `,` or `;` at the same bracket level. Such a run is one deeply nested expression
/// (`a.b.c…`, `!!!x`, `if .. else if ..`), which syn's visitor and `Drop` walk recursively.
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
    pub(crate) names: Vec<String>,
    /// Every identifier between an `impl` and the next `{` or `;`: a superset of the self types
    /// whose methods the type index holds for the file.
    pub(crate) impl_names: Vec<String>,
    /// The ASCII function bodies at an item level (the file, an inline `mod`, an `impl`, a
    /// `trait`) whose text cannot reach a sink but through macros that may be neutral
    /// ([`neutral_macros`](crate::engine::neutral_macros)): the lint's parse may blank them
    /// (`engine::bodies`) once the scan shows those macros neutral.
    pub(crate) quiet_bodies: Vec<QuietBody>,
}

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
    items: std::collections::HashSet<String, foldhash::fast::RandomState>,
    impls: std::collections::HashSet<String, foldhash::fast::RandomState>,
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
}

/// A file beyond the nesting bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Brackets nest deeper than [`MAX_DEPTH`], first at this line.
    Depth(u32),
    /// A run of more than [`MAX_CHAIN`] operators, ending at this line.
    Chain(u32),
}

impl Bound {
    /// Why the file is not parsed, lower-case.
    pub(crate) fn message(self) -> String {
        match self {
            Bound::Depth(line) => format!(
                "brackets nest deeper than {MAX_DEPTH} levels (line {line}); not parsed, to bound the lint's stack"
            ),
            Bound::Chain(line) => format!(
                "an expression chains more than {MAX_CHAIN} operators (line {line}); not parsed, to bound the lint's stack"
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
}

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

/// The end of the run of identifier bytes starting at `from`.
fn ident_end(b: &[u8], from: usize) -> usize {
    b.get(from..)
        .and_then(|rest| rest.iter().position(|&c| !is_ident_byte(c)))
        .map_or(b.len(), |p| from + p)
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text`, past a byte-order mark (which rustc and syn skip).
    fn new(text: &'a str) -> Self {
        Lexer {
            b: text.as_bytes(),
            text,
            i: if text.starts_with('\u{feff}') { 3 } else { 0 },
            line: 1,
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
                        i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p);
                    }
                    Some(b'*') => {
                        let j = block_comment_end(b, i);
                        self.line += memchr_count(&b[i..j]);
                        i = j;
                    }
                    _ => break,
                },
                Some(c) if c.is_ascii_whitespace() => i += 1,
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
            Some(&c) if c.is_ascii_alphabetic() || c == b'_' => ident_end(self.b, end),
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
                        let mut j = start + 1;
                        while j < self.b.len() && is_ident_byte(self.b[j]) {
                            j += 1;
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
                let mut j = start;
                while j < self.b.len()
                    && (is_ident_byte(self.b[j])
                        || (self.b[j] == b'.' && self.b.get(j + 1).is_some_and(u8::is_ascii_digit)))
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
                            let mut k = j + 1;
                            while k < self.b.len() && is_ident_byte(self.b[k]) {
                                k += 1;
                            }
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
                        return self.next().map(|(_, l)| (Tok::Lit, l));
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
            after_pub,
            items: ItemScan::Start,
            angles: 0,
            braced: false,
            initializer: false,
        }
    }

    /// Whether the frame is an item list, where function items and `impl`s are looked for.
    fn lists_items(&self) -> bool {
        matches!(self.kind, Kind::Root | Kind::InlineMod(_) | Kind::ItemList)
    }

    /// Moves the scan for function bodies past `tok` (the frame lists items), which starts at
    /// byte `start`; `arrow` when it is the `>` of `->`. Returns the kind of frame a `{` opens.
    fn scan_items(&mut self, tok: Tok<'_>, arrow: bool, open_at: usize) -> Option<Kind> {
        let header = matches!(self.items, ItemScan::Signature | ItemScan::Header);
        match tok {
            Tok::Punct(b';') => self.items = ItemScan::Start,
            Tok::Punct(b'<') if header => self.angles += 1,
            Tok::Punct(b'>') if header && !arrow => self.angles = self.angles.saturating_sub(1),
            Tok::Ident(word) => match self.items {
                ItemScan::Start if word == "fn" => self.items = ItemScan::FnKeyword,
                ItemScan::Start if word == "impl" || word == "trait" => {
                    (self.items, self.angles) = (ItemScan::Header, 0);
                }
                ItemScan::FnKeyword => (self.items, self.angles) = (ItemScan::Signature, 0),
                _ => {}
            },
            Tok::Open(b'{') if self.angles == 0 || !header => {
                let opens = match self.items {
                    ItemScan::Signature => Some(Kind::FnBody { open: open_at }),
                    ItemScan::Header => Some(Kind::ItemList),
                    _ => None,
                };
                self.items = ItemScan::Start;
                return opens;
            }
            _ if self.items == ItemScan::FnKeyword => self.items = ItemScan::Start,
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
    while let Some((tok, line)) = lx.next() {
        let arrow = tok == Tok::Punct(b'>') && lx.i - 1 == after_minus;
        after_minus = if tok == Tok::Punct(b'-') {
            lx.i
        } else {
            usize::MAX
        };
        match tok {
            Tok::Ident(word) => {
                if names_next && word != "mut" {
                    out.names.push(word.to_owned());
                }
                if in_impl {
                    out.impl_names.push(word.to_owned());
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
        let body_or_list = if top.lists_items() {
            top.scan_items(tok, arrow, lx.i - 1)
        } else {
            None
        };
        if tok != Tok::Close
            && top.include.1 < 2
            && matches!(top.kind, Kind::Macro { include: true })
        {
            if let Tok::Str(s) = tok {
                top.include.0 = Some(s);
            }
            top.include.1 += 1;
        }
        match tok {
            Tok::Open(delim) => {
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
                        include: name == "include" && delim == b'(',
                    },
                    _ => body_or_list.unwrap_or(Kind::Other),
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
                match frame.kind {
                    Kind::MacroRules => macro_rules_depth -= 1,
                    Kind::Macro { .. } => macro_depth -= 1,
                    Kind::FnBody { open } => {
                        // `lx.i` is just past the `}`.
                        let body = &text[open..lx.i];
                        if body.is_ascii()
                            && let Some(macros) = crate::engine::neutral_macros(body)
                        {
                            out.quiet_bodies.push(QuietBody {
                                inside: (open + 1, lx.i - 1),
                                macros: macros.into_iter().map(str::to_owned).collect(),
                            });
                        }
                    }
                    _ => {}
                }
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
                            out.includes.push(Include { path, line, inline });
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
                if matches!(word, "else" | "as") {
                    top.run += 1;
                }
                top.state = match (&top.state, word) {
                    (State::Idle | State::Pub, "pub") => State::Pub,
                    (State::Idle | State::Pub, "mod") => State::Mod,
                    (State::Mod, name) => State::ModName(name.to_owned()),
                    _ => {
                        top.pending.clear();
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
/// A chunk cut from inside an inline module larger than a chunk is `wrap`ped: it is parsed as
/// the module's own header (its attributes, `mod name {` and inner attributes, `header`, a
/// range of the file), `pad` line breaks, the chunk's text and a closing `}`. The header keeps
/// its lines and the chunk starts on its own line (or right after the header), so every
/// position in the parsed text is the file's, shifted by `lines_before` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChunkSpec {
    pub(crate) range: std::ops::Range<usize>,
    pub(crate) lines_before: u32,
    pub(crate) wrap: Option<Wrap>,
}

/// The module a wrapped chunk is cut from (see [`ChunkSpec`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wrap {
    pub(crate) header: std::ops::Range<usize>,
    pub(crate) pad: u32,
}

/// [`chunks`], with each top-level inline module larger than `target` cut into chunks of its
/// own items (one level: a module inside it is kept whole). Generated code often wraps
/// everything in one `pub mod … { }`, whose tree would otherwise be parsed, and held, whole.
pub(crate) fn chunk_specs(text: &str, target: usize) -> Vec<ChunkSpec> {
    let plain = |range, lines_before| ChunkSpec {
        range,
        lines_before,
        wrap: None,
    };
    let mut out = Vec::new();
    for (range, lines_before) in chunks(text, target) {
        if range.len() <= target.saturating_mul(2) {
            out.push(plain(range, lines_before));
            continue;
        }
        // The chunk's items, one by one: a run of them before a large module stays one chunk.
        let (mut run, mut run_lines) = (range.start, lines_before);
        for (item, lines) in chunks(&text[range.clone()], 1) {
            let item = range.start + item.start..range.start + item.end;
            let lines = lines_before + lines;
            if item.len() <= target {
                continue;
            }
            let Some(pieces) = split_module(text, item.clone(), lines, target) else {
                continue;
            };
            if run < item.start {
                out.push(plain(run..item.start, run_lines));
            }
            out.extend(pieces);
            run = item.end;
            run_lines = lines + newlines(&text[item]);
        }
        if run < range.end {
            out.push(plain(run..range.end, run_lines));
        }
    }
    out
}

/// The text parsed for the chunk `range` of `text`: the slice itself, or under its module's
/// header if it is wrapped (see [`ChunkSpec`]).
pub(crate) fn chunk_source<'a>(
    text: &'a str,
    range: &std::ops::Range<usize>,
    wrap: Option<&Wrap>,
) -> std::borrow::Cow<'a, str> {
    let Some(w) = wrap else {
        return std::borrow::Cow::Borrowed(&text[range.clone()]);
    };
    let pad = usize::try_from(w.pad).unwrap_or(usize::MAX);
    let mut out = String::with_capacity(w.header.len() + pad + range.len() + 3);
    out.push_str(&text[w.header.clone()]);
    out.extend(std::iter::repeat_n('\n', pad));
    out.push_str(&text[range.clone()]);
    out.push_str("\n}\n");
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

/// The chunks of the items of the inline module `item` (a range of `text` holding one item,
/// at a line start, with `lines` lines before it), or `None` if it is not an inline module or
/// its items make one chunk.
fn split_module(
    text: &str,
    item: std::ops::Range<usize>,
    lines: u32,
    target: usize,
) -> Option<Vec<ChunkSpec>> {
    let s = &text[item.clone()];
    let mut lx = Lexer::new(s);
    // Outer attributes, visibility, `mod`, the name and `{`.
    loop {
        match lx.next()?.0 {
            Tok::Punct(b'#') => {
                if lx.next()?.0 != Tok::Open(b'[') {
                    return None;
                }
                skip_group(&mut lx)?;
            }
            Tok::Ident("pub") => match lx.next()?.0 {
                Tok::Open(b'(') => skip_group(&mut lx)?,
                Tok::Ident("mod") => break,
                _ => return None,
            },
            Tok::Ident("mod") => break,
            _ => return None,
        }
    }
    if !matches!(lx.next()?.0, Tok::Ident(_)) || lx.next()?.0 != Tok::Open(b'{') {
        return None;
    }
    // Inner attributes belong to the header: each chunk of the module is under them.
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
    // The module's closing brace.
    let mut depth = 0usize;
    let close = loop {
        match lx.next()?.0 {
            Tok::Open(_) => depth += 1,
            Tok::Close if depth == 0 => break lx.i - 1,
            Tok::Close => depth -= 1,
            _ => {}
        }
    };
    if s.as_bytes().get(close) != Some(&b'}') || close < header_end {
        return None;
    }
    let body = &s[header_end..close];
    let pieces = chunks(body, target);
    if pieces.len() < 2 {
        return None;
    }
    let header = item.start..item.start + header_end;
    Some(
        pieces
            .into_iter()
            .map(|(r, pad)| ChunkSpec {
                range: header.end + r.start..header.end + r.end,
                lines_before: lines,
                wrap: Some(Wrap {
                    header: header.clone(),
                    pad,
                }),
            })
            .collect(),
    )
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

/// The value of a string literal without escapes (`"a/b.rs"`, `r#"a.rs"#`).
fn plain_string(lit: &str) -> Option<String> {
    let body = if let Some(raw) = lit.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        raw.get(hashes + 1..raw.len() - hashes - 1)?
    } else {
        let body = lit.strip_prefix('"')?.strip_suffix('"')?;
        if body.contains('\\') {
            return None;
        }
        body
    };
    Some(body.to_owned())
}

#[cfg(test)]
mod tests {
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
    }

    #[test]
    fn bounds_nesting_and_chains() {
        let deep = format!("fn f() {{ {}x{} }}", "(".repeat(40_000), ")".repeat(40_000));
        assert_eq!(outline(&deep), Err(Bound::Depth(1)));
        let ok = format!("fn f() {{ {}x{} }}", "(".repeat(200), ")".repeat(200));
        assert!(outline(&ok).is_ok());
        let chain = format!("fn f() {{ x{}; }}", ".a".repeat(5000));
        assert_eq!(outline(&chain), Err(Bound::Chain(1)));
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
        let specs = chunk_specs(&text, 200);
        let wrapped: Vec<&ChunkSpec> = specs.iter().filter(|c| c.wrap.is_some()).collect();
        assert!(wrapped.len() > 10, "{specs:?}");
        let header = &wrapped[0].wrap.as_ref().unwrap().header;
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
            let source = chunk_source(&text, &spec.range, spec.wrap.as_ref());
            let file = syn::parse_file(&source).unwrap_or_else(|e| panic!("{e}: {source}"));
            if spec.wrap.is_some() {
                assert!(matches!(&file.items[..], [syn::Item::Mod(_)]), "{source}");
            }
            let first = spec.lines_before as usize;
            for (k, line) in source.lines().enumerate() {
                let want = lines.get(first + k).copied().unwrap_or_default();
                // Blank padding lines, and the closing brace past the chunk, are not the file's.
                if !line.trim().is_empty() && line != "}" {
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
            })
            .collect();
        assert_eq!(chunk_specs(&plain, 200), as_chunks);
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
