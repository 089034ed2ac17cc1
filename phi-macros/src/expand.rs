//! Generates a closed enum's items from one list of wire spellings.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use crate::case::Case;
use crate::parse::ClosedEnum;

/// The marker every closed enum carries; `ClosedFields` and data variants check for it.
/// Named so that its absence explains itself: "no associated item named
/// `__MUST_DERIVE_CLOSED_ENUM` found for struct `String`".
pub(crate) const MARKER: &str = "__MUST_DERIVE_CLOSED_ENUM";

pub(crate) fn closed_enum(e: &ClosedEnum) -> TokenStream {
    let ident = &e.ident;
    let vis = &item_vis(&e.vis);
    let marker = format_ident!("{}", MARKER);
    let wires: Vec<&str> = e.variants.iter().map(|v| v.wire.as_str()).collect();
    let variants_doc = format!("The wire names of `{ident}`, in declaration order.");

    // Compile-time proof that each data variant's field is itself closed.
    let field_checks = e
        .variants
        .iter()
        .filter_map(|v| v.field.as_ref())
        .map(|ty| {
            let marker = Ident::new(MARKER, ty.span());
            quote_spanned! {ty.span()=>
                const _: () = { let _: () = <#ty>::#marker; };
            }
        });

    let display_arms = e.variants.iter().map(|v| {
        let (vi, w) = (&v.ident, &v.wire);
        match &v.field {
            None => quote! { #ident::#vi => f.write_str(#w) },
            Some(_) => quote! { #ident::#vi(inner) => write!(f, "{}:{}", #w, inner) },
        }
    });
    let parse_arms = e.variants.iter().map(|v| {
        let (vi, w) = (&v.ident, &v.wire);
        match &v.field {
            None => quote! { if s == #w { return ::core::result::Result::Ok(#ident::#vi); } },
            Some(ty) => {
                let prefix = format!("{w}:");
                quote! {
                    if let ::core::option::Option::Some(rest) = s.strip_prefix(#prefix) {
                        return rest
                            .parse::<#ty>()
                            .map(#ident::#vi)
                            .map_err(|inner| ::std::format!("`{}`: {}", s, inner));
                    }
                }
            }
        }
    });
    let schema_values = e.variants.iter().map(|v| {
        let w = &v.wire;
        match &v.field {
            None => quote! { values.push(::serde_json::Value::from(#w)); },
            Some(ty) => quote_spanned! {ty.span()=>
                if let ::core::option::Option::Some(inner) = <#ty>::json_schema()["enum"].as_array() {
                    for x in inner {
                        if let ::core::option::Option::Some(x) = x.as_str() {
                            values.push(::serde_json::Value::from(::std::format!("{}:{}", #w, x)));
                        }
                    }
                }
            },
        }
    });

    let unit_items = if e.is_unit() {
        unit_items(e)
    } else {
        TokenStream::new()
    };
    let expecting = format!("a `{ident}`: one of {}", wires.join(", "));

    quote! {
        #(#field_checks)*

        impl #ident {
            #[doc = #variants_doc]
            #vis const VARIANTS: &'static [&'static str] = &[#(#wires),*];

            /// The JSON Schema of this closed set: `{"type": "string", "enum": [...]}`, inline.
            #[must_use]
            #vis fn json_schema() -> ::serde_json::Value {
                let mut values: ::std::vec::Vec<::serde_json::Value> = ::std::vec::Vec::new();
                #(#schema_values)*
                let mut schema = ::serde_json::Map::new();
                schema.insert("type".into(), ::serde_json::Value::from("string"));
                schema.insert("enum".into(), ::serde_json::Value::Array(values));
                ::serde_json::Value::Object(schema)
            }

            #[doc(hidden)]
            #[allow(unreachable_pub)] // checked from other crates' closed fields
            pub const #marker: () = ();
        }

        #unit_items

        impl ::core::fmt::Display for #ident {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    #(#display_arms,)*
                }
            }
        }

        impl ::core::str::FromStr for #ident {
            type Err = ::std::string::String;

            fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {
                #(#parse_arms)*
                ::core::result::Result::Err(::std::format!(
                    "`{}` is not one of {}",
                    s,
                    Self::VARIANTS.join(", ")
                ))
            }
        }

        impl ::serde::Serialize for #ident {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #ident {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                struct Visitor;
                impl<'de> ::serde::de::Visitor<'de> for Visitor {
                    type Value = #ident;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(#expecting)
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<#ident, E> {
                        v.parse::<#ident>().map_err(E::custom)
                    }
                }
                deserializer.deserialize_str(Visitor)
            }
        }
    }
}

/// `ALL`, `as_str` and the dispatch table: for enums whose variants carry no data.
fn unit_items(e: &ClosedEnum) -> TokenStream {
    let ident = &e.ident;
    let vis = &item_vis(&e.vis);
    let idents: Vec<&Ident> = e.variants.iter().map(|v| &v.ident).collect();
    let wires: Vec<&str> = e.variants.iter().map(|v| v.wire.as_str()).collect();
    let table = format_ident!("{}Table", ident);
    let fields: Vec<Ident> = idents.iter().map(|i| field_ident(i)).collect();
    let table_doc = format!(
        "A value per `{ident}` variant: a dispatch table that cannot miss a case (leaving a field out of its literal does not compile)."
    );
    let field_docs = wires.iter().map(|w| format!("The entry for `{w}`."));
    quote! {
        impl #ident {
            /// Every value, in declaration order.
            #vis const ALL: &'static [#ident] = &[#(#ident::#idents),*];

            /// The wire name.
            #[must_use]
            #vis const fn as_str(&self) -> &'static str {
                match self {
                    #(#ident::#idents => #wires,)*
                }
            }
        }

        #[doc = #table_doc]
        #[derive(Debug, Clone, PartialEq, Eq)]
        #vis struct #table<T> {
            #(
                #[doc = #field_docs]
                pub #fields: T,
            )*
        }

        impl<T> #table<T> {
            /// The entry for `key`.
            #[must_use]
            #vis fn get(&self, key: #ident) -> &T {
                match key {
                    #(#ident::#idents => &self.#fields,)*
                }
            }
        }
    }
}

/// The visibility of generated items: the enum's own, and crate-wide for a private enum, so
/// sibling modules can use its `VARIANTS` and table.
fn item_vis(vis: &syn::Visibility) -> TokenStream {
    match vis {
        syn::Visibility::Inherited => quote! { pub(crate) },
        other => quote! { #other },
    }
}

/// The table field for a variant: its identifier in `snake_case` (raw if it is a keyword).
fn field_ident(variant: &Ident) -> Ident {
    let name = Case::Snake.apply(&variant.to_string());
    syn::parse_str::<Ident>(&name).unwrap_or_else(|_| Ident::new_raw(&name, Span::call_site()))
}
