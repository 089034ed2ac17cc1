//! The arguments of `#[instrument(...)]`: `skip(..)`, `skip_all`, `fields(..)`, `err`, `ret`
//! and the rest (`name`, `target`, `level`, `parent`, `follows_from`), which record nothing.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, Meta, Token, token};

use super::{FieldMode, Parsed, fields};

/// What an `#[instrument]` attribute records.
#[derive(Default)]
pub(crate) struct InstrumentArgs {
    pub(crate) skip_all: bool,
    /// Argument names in `skip(..)`.
    pub(crate) skip: Vec<String>,
    /// Values recorded by `fields(..)`.
    pub(crate) fields: Parsed,
    /// Every key `fields(..)` declares; an argument of the same name is not recorded.
    pub(crate) field_keys: Vec<String>,
    /// `err` or `err(..)`, where it is written.
    pub(crate) err: Option<Span>,
    /// `ret` or `ret(..)`, where it is written.
    pub(crate) ret: Option<Span>,
}

/// Parses an `#[instrument]` attribute's meta (`#[instrument]` alone records every argument).
pub(crate) fn parse_instrument(meta: &Meta) -> syn::Result<InstrumentArgs> {
    match meta {
        Meta::Path(_) => Ok(InstrumentArgs::default()),
        Meta::List(list) => (|input: ParseStream| args(input)).parse2(list.tokens.clone()),
        Meta::NameValue(nv) => Err(syn::Error::new_spanned(nv, "expected `#[instrument(...)]`")),
    }
}

fn args(input: ParseStream) -> syn::Result<InstrumentArgs> {
    let mut out = InstrumentArgs::default();
    while !input.is_empty() {
        let id = input.call(Ident::parse_any)?;
        match id.to_string().as_str() {
            "skip_all" => out.skip_all = true,
            "skip" => {
                let content;
                syn::parenthesized!(content in input);
                let names = content.parse_terminated(Ident::parse_any, Token![,])?;
                out.skip.extend(names.iter().map(ToString::to_string));
            }
            "fields" => {
                let content;
                syn::parenthesized!(content in input);
                let keys = content.fork();
                fields(&content, &mut out.fields, FieldMode::Instrument)?;
                out.field_keys = field_keys(&keys);
            }
            "err" | "ret" => {
                if input.peek(token::Paren) {
                    let content;
                    syn::parenthesized!(content in input);
                    let _: proc_macro2::TokenStream = content.parse()?;
                }
                if id == "err" {
                    out.err = Some(id.span());
                } else {
                    out.ret = Some(id.span());
                }
            }
            _ => {
                // `name = ..`, `target = ..`, `level = ..`, `parent = ..`, `follows_from = ..`:
                // metadata, not recorded values.
                if input.peek(Token![=]) {
                    input.parse::<Token![=]>()?;
                    let _: syn::Expr = input.parse()?;
                } else if input.peek(token::Paren) {
                    let content;
                    syn::parenthesized!(content in input);
                    let _: proc_macro2::TokenStream = content.parse()?;
                }
            }
        }
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(out)
}

/// The keys declared in a `fields(..)` list: the first token of each comma-separated entry
/// (after a `?`/`%` sigil), as text.
fn field_keys(input: ParseStream) -> Vec<String> {
    let Ok(ts) = input.parse::<proc_macro2::TokenStream>() else {
        return Vec::new();
    };
    let mut keys = Vec::new();
    let mut at_start = true;
    let mut key = String::new();
    for tt in ts {
        match &tt {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == ',' => {
                if !key.is_empty() {
                    keys.push(std::mem::take(&mut key));
                }
                at_start = true;
            }
            proc_macro2::TokenTree::Punct(p) if at_start && matches!(p.as_char(), '?' | '%') => {}
            proc_macro2::TokenTree::Ident(i) if at_start => {
                key.push_str(&i.to_string());
                at_start = false;
            }
            proc_macro2::TokenTree::Literal(l) if at_start => {
                key.push_str(l.to_string().trim_matches('"'));
                at_start = false;
            }
            _ => at_start = false,
        }
    }
    if !key.is_empty() {
        keys.push(key);
    }
    keys
}
