//! Reads a `#[derive(ClosedEnum)]` input into a model, refusing everything that would open the
//! set, with an error spanned at the cause.

use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Meta, Type, Visibility};

use crate::case::Case;

/// A closed enum, ready to expand.
pub(crate) struct ClosedEnum {
    pub(crate) ident: Ident,
    pub(crate) vis: Visibility,
    pub(crate) variants: Vec<Variant>,
}

/// One variant: its identifier, its wire name, and its one closed field, if any.
pub(crate) struct Variant {
    pub(crate) ident: Ident,
    pub(crate) wire: String,
    pub(crate) field: Option<Type>,
}

impl ClosedEnum {
    /// Whether no variant carries data.
    pub(crate) fn is_unit(&self) -> bool {
        self.variants.iter().all(|v| v.field.is_none())
    }
}

pub(crate) fn closed_enum(input: &DeriveInput) -> syn::Result<ClosedEnum> {
    let Data::Enum(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "ClosedEnum applies to enums; use ClosedFields on structs",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "a closed enum takes no generic parameters",
        ));
    }
    for attr in &input.attrs {
        if attr.path().is_ident("non_exhaustive") {
            return Err(syn::Error::new(
                attr.span(),
                "a closed enum cannot be #[non_exhaustive]: its set of values is the contract",
            ));
        }
        refuse_open_serde(attr)?;
    }
    let case = enum_case(&input.attrs)?;
    if data.variants.is_empty() {
        return Err(syn::Error::new(
            input.ident.span(),
            "a closed enum needs at least one variant",
        ));
    }
    let mut variants: Vec<Variant> = Vec::new();
    for v in &data.variants {
        for attr in &v.attrs {
            refuse_open_serde(attr)?;
        }
        let name = v.ident.to_string();
        if matches!(name.as_str(), "Other" | "Unknown") {
            return Err(syn::Error::new(
                v.ident.span(),
                format!("`{name}` is a catch-all: a closed enum names every value it accepts"),
            ));
        }
        let field = match &v.fields {
            Fields::Unit => None,
            Fields::Unnamed(f) if f.unnamed.len() == 1 => Some(f.unnamed[0].ty.clone()),
            Fields::Unnamed(f) => {
                return Err(syn::Error::new(
                    f.span(),
                    "a data variant of a closed enum carries exactly one field, itself a closed enum",
                ));
            }
            Fields::Named(f) => {
                return Err(syn::Error::new(
                    f.span(),
                    "a closed enum's variants are unit or one-field tuple variants, not structs",
                ));
            }
        };
        let wire = match variant_rename(&v.attrs)? {
            Some(w) => w,
            None => case.apply(&name),
        };
        if wire.is_empty() || wire.contains(':') {
            return Err(syn::Error::new(
                v.ident.span(),
                format!("the wire name `{wire}` must be non-empty and contain no `:`"),
            ));
        }
        if let Some(prev) = variants.iter().find(|p| p.wire == wire) {
            return Err(syn::Error::new(
                v.ident.span(),
                format!(
                    "`{}` and `{name}` both have the wire name `{wire}`",
                    prev.ident
                ),
            ));
        }
        variants.push(Variant {
            ident: v.ident.clone(),
            wire,
            field,
        });
    }
    Ok(ClosedEnum {
        ident: input.ident.clone(),
        vis: input.vis.clone(),
        variants,
    })
}

/// `#[serde(other)]`, `untagged`, `tag = ..`, `content = ..` and `alias = ..` open a set (serde
/// accepts values the schema does not list), so they are refused.
fn refuse_open_serde(attr: &Attribute) -> syn::Result<()> {
    if !attr.path().is_ident("serde") {
        return Ok(());
    }
    let Meta::List(list) = &attr.meta else {
        return Ok(());
    };
    for tt in list.tokens.clone() {
        if let proc_macro2::TokenTree::Ident(id) = tt {
            let name = id.to_string();
            if matches!(
                name.as_str(),
                "other" | "untagged" | "tag" | "content" | "alias"
            ) {
                return Err(syn::Error::new(
                    id.span(),
                    format!(
                        "#[serde({name})] makes serde accept values the closed set does not list; ClosedEnum writes Serialize and Deserialize itself"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The enum's `#[closed(rename_all = "...")]`, default `snake_case`.
fn enum_case(attrs: &[Attribute]) -> syn::Result<Case> {
    let mut case = Case::Snake;
    for attr in attrs.iter().filter(|a| a.path().is_ident("closed")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                let lit: LitStr = meta.value()?.parse()?;
                case = Case::from_name(&lit.value()).ok_or_else(|| {
                    syn::Error::new(
                        lit.span(),
                        format!(
                            "unknown rename_all `{}`; use one of {}",
                            lit.value(),
                            Case::NAMES
                        ),
                    )
                })?;
                Ok(())
            } else {
                Err(meta
                    .error("unknown closed attribute on an enum; expected `rename_all = \"...\"`"))
            }
        })?;
    }
    Ok(case)
}

/// A variant's `#[closed(rename = "...")]`.
fn variant_rename(attrs: &[Attribute]) -> syn::Result<Option<String>> {
    let mut rename = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("closed")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let lit: LitStr = meta.value()?.parse()?;
                rename = Some(lit.value());
                Ok(())
            } else {
                Err(meta
                    .error("unknown closed attribute on a variant; expected `rename = \"...\"`"))
            }
        })?;
    }
    Ok(rename)
}
