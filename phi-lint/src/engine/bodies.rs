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

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};

use super::visit::may_reach_a_sink;
use crate::source::SourceFile;

/// How deep inline `mod`s, `impl`s and `trait`s are followed; deeper ones are parsed whole. The
/// resolver's nesting bound ([`MAX_DEPTH`](crate::resolve::outline::MAX_DEPTH)) keeps syn's
/// own recursion in check.
const MAX_ITEM_DEPTH: usize = 32;

/// `syn::parse_file`, with the bodies described in the module docs left empty.
pub(super) fn parse_file(text: &str) -> syn::Result<syn::File> {
    let content = text.strip_prefix('\u{feff}').unwrap_or(text);
    if content.starts_with("#!") {
        // A shebang line or an inner attribute: syn tells them apart.
        return syn::parse_file(text);
    }
    let tokens: TokenStream = content.parse().map_err(syn::Error::from)?;
    syn::parse2(quiet_items(tokens, &SourceFile::new(content), 0))
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
}

/// The tokens of an item list, each quiet function body emptied and each inline item list
/// (`mod`, `impl`, `trait`) treated the same way.
fn quiet_items(tokens: TokenStream, text: &SourceFile<'_>, depth: usize) -> TokenStream {
    let tokens = tokens.into_iter();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.size_hint().0);
    let mut state = State::Item;
    // Angle brackets open in a signature or header (`<{ N }>` holds a brace group that is
    // neither body nor list), and whether the last token was the `-` of `->`.
    let mut angles = 0usize;
    let mut arrow = false;
    for tt in tokens {
        let was_arrow = std::mem::take(&mut arrow);
        match &tt {
            TokenTree::Punct(p) => match p.as_char() {
                ';' => state = State::Item,
                '-' => arrow = p.spacing() == Spacing::Joint,
                '<' if matches!(state, State::Signature | State::Container) => angles += 1,
                '>' if !was_arrow && matches!(state, State::Signature | State::Container) => {
                    angles = angles.saturating_sub(1);
                }
                _ if state == State::FnKeyword => state = State::Item,
                _ => {}
            },
            TokenTree::Ident(id) => match state {
                State::Item if id == "fn" => state = State::FnKeyword,
                State::Item if id == "impl" || id == "trait" || id == "mod" => {
                    state = State::Container;
                    angles = 0;
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
                        // The text as the lint's walk slices it, through the line index
                        // (`Span::byte_range` counts every char of the file up to the body).
                        let span = g.span();
                        if text
                            .slice(span.start(), span.end())
                            .is_some_and(|body| !may_reach_a_sink(body))
                        {
                            let mut empty = Group::new(Delimiter::Brace, TokenStream::new());
                            empty.set_span(g.span());
                            out.push(TokenTree::Group(empty));
                            continue;
                        }
                    }
                    State::Container if depth < MAX_ITEM_DEPTH => {
                        state = State::Item;
                        let TokenTree::Group(g) = tt else {
                            unreachable!("matched as a group above")
                        };
                        let span = g.span();
                        let inner = g.stream();
                        drop(g);
                        let mut list =
                            Group::new(Delimiter::Brace, quiet_items(inner, text, depth + 1));
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
        out.push(tt);
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::parse_file;
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
        let lazy = parse_file(text).expect("parses");
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
                (l, f) => assert_eq!(tokens(l), tokens(f)),
            }
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
"#;
        assert_eq!(
            emptied(text),
            ["quiet", "abi", "get", "provided", "deep", "m"]
        );
    }

    #[test]
    fn errors_and_shebangs_are_syn_s() {
        let shebang = "#!/usr/bin/env run-cargo-script\nfn main() { let a = 1; }\n";
        assert_eq!(
            parse_file(shebang).expect("parses").shebang.as_deref(),
            Some("#!/usr/bin/env run-cargo-script")
        );
        assert!(parse_file("#![allow(unused)]\nfn f() { let a = 1; }").is_ok());
        assert!(parse_file("\u{feff}fn f() { let a = 1; }").is_ok());
        for bad in [
            // A lexer error.
            "fn f() { \"open }",
            // A syntax error in a body that may log, and one outside any body.
            "fn f() { info!(\"x\"); let = 1; }",
            "fn f() { } struct ;",
        ] {
            let (ours, theirs) = (err(parse_file(bad)), err(syn::parse_file(bad)));
            assert_eq!(ours.to_string(), theirs.to_string(), "{bad}");
            assert_eq!(ours.span().start(), theirs.span().start(), "{bad}");
        }
        // In a quiet body it is left to the compiler.
        assert!(parse_file("fn f() { let = 1; }").is_ok());
    }
}
