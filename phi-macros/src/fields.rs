//! `#[derive(ClosedFields)]`: a field marked `#[closed]` must hold a closed enum.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, GenericArgument, PathArguments, Type};

use crate::expand::MARKER;

pub(crate) fn closed_fields(input: &DeriveInput) -> syn::Result<TokenStream> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "ClosedFields applies to structs; use ClosedEnum on enums",
        ));
    };
    let mut checks = TokenStream::new();
    let mut marked = 0usize;
    for field in &data.fields {
        let mut is_closed = false;
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("closed")) {
            attr.meta.require_path_only()?;
            is_closed = true;
        }
        if !is_closed {
            continue;
        }
        marked += 1;
        let inner = closed_type(&field.ty);
        let closed_marker = syn::Ident::new(MARKER, inner.span());
        checks.extend(quote_spanned! {inner.span()=>
            const _: () = { let _: () = <#inner>::#closed_marker; };
        });
    }
    if marked == 0 {
        return Err(syn::Error::new(
            input.ident.span(),
            "ClosedFields checks fields marked #[closed], and none is",
        ));
    }
    Ok(checks)
}

/// The type a closed field must be closed over: through `Option`, `Vec`, `Box`, and map values.
fn closed_type(ty: &Type) -> &Type {
    let Type::Path(p) = ty else { return ty };
    let Some(last) = p.path.segments.last() else {
        return ty;
    };
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return ty;
    };
    let types: Vec<&Type> = args
        .args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    match (last.ident.to_string().as_str(), types.as_slice()) {
        ("Option" | "Vec" | "Box" | "BTreeSet" | "HashSet", [inner]) => closed_type(inner),
        ("BTreeMap" | "HashMap", [_, value]) => closed_type(value),
        _ => ty,
    }
}
