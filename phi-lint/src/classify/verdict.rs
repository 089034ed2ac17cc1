//! Name and type decide together.
//!
//! | type (from the index)                              | name in a safe class      | other name |
//! |----------------------------------------------------|---------------------------|------------|
//! | `Uuid`, `Ulid`, a `…Id` newtype over those or an integer; `Duration`, `Instant` differences; `StatusCode`, `Level` | allowed (the type proves it) | allowed |
//! | `&'static str`: text compiled into the program      | allowed                   | allowed    |
//! | a type whose own name is in a safe class and agrees with its content: a newtype or alias over a number (`RecordIdx(u64)`, `type RowIdx = u64`), over text under a type name (`AttributeName(String)`), a fieldless enum named as a state or class (`SearchMode`, `JobStatus`); no deny stem in the type's name | allowed | allowed |
//! | an integer, a float, a bool                        | allowed                   | finding    |
//! | a fieldless enum                                   | allowed                   | allowed under a `state`/`mode`/`phase` name, else a finding |
//! | a `String`, `str`, or a newtype over one           | a finding under an id, status or count name (the type refutes the name); allowed under a type-name or duration name | finding |
//! | a struct, an enum with data, a map, a collection   | a finding (refuted)       | finding    |
//! | an error type (`io::Error`, a struct named `…Error`) | error finding             | error finding |
//! | a fixed-message error (`ParseIntError`, a fieldless enum or unit struct) | allowed | allowed as an error, else by name |
//! | unknown                                            | allowed (today's name rule) | finding  |
//!
//! A tuple field (`version.0`) is judged under its base's name with its own type, and passes
//! where its base's type proves a class. A deny stem beats everything. An explicit `allow-names`
//! entry beats the type. The field key counts where the value's own name says nothing but its type
//! agrees with the key: in `count = n` with `n: usize`, or `status = s` with `s: Phase`
//! (fieldless), the key's class holds, as the runtime layer (which sees only the key) will also
//! judge it.

use phi_filter::names::{NameClass, NameVerdict};
use syn::Expr;

use super::{Classifier, Ctx, Origin, Unsafe, Why, is_constant_name, is_error_name, unsafe_at};
use crate::types::{Fact, Scope};

impl Classifier<'_> {
    /// The verdict on a value named `name` whose type gives `fact`; `at` is the expression.
    pub(super) fn leaf<'e>(
        &self,
        at: &'e Expr,
        name: &str,
        fact: Fact,
        cx: Ctx<'_>,
    ) -> Result<(), Unsafe<'e>> {
        match self.decide(name, fact, cx.key) {
            Ok(()) => Ok(()),
            Err(Why::Error) => Err(unsafe_at(
                at,
                self.error_of(&crate::types::ty_of(at, cx.scope, &self.types)),
            )),
            Err(why) => Err(unsafe_at(at, why)),
        }
    }

    /// The verdict on a value named `name` whose type gives `fact`, logged under a key of
    /// class `key` if one: the table above.
    pub(crate) fn decide(&self, name: &str, fact: Fact, key: Option<NameClass>) -> Result<(), Why> {
        let claim = match self.classify_name(name) {
            NameVerdict::Denied { stem } => {
                return Err(Why::Denied {
                    name: name.to_owned(),
                    stem,
                });
            }
            NameVerdict::AllowedByConfig => return Ok(()),
            NameVerdict::Allowed(c) => Some(c),
            NameVerdict::Unknown => None,
        };
        let refuted = |ty: String, what: &'static str| {
            Err(Why::Refuted {
                name: name.to_owned(),
                class: claim.unwrap_or(NameClass::OpaqueId),
                ty,
                what,
            })
        };
        match fact {
            // A type whose own name proves its class was judged on the built-in stems only (the
            // type index is shared by every configuration): the operator's stems still deny it.
            Fact::Classed(ty) if self.names.denied_stem(&ty).is_some() => Err(Why::Denied {
                name: ty.clone(),
                stem: self.names.denied_stem(&ty).unwrap_or_default().to_owned(),
            }),
            Fact::Id
            | Fact::Duration
            | Fact::Status
            | Fact::Constant
            | Fact::Classed(_)
            | Fact::FixedError => Ok(()),
            Fact::Error => Err(Why::Error),
            Fact::Integer | Fact::Float | Fact::Bool | Fact::Instant => {
                if claim.is_some() || key.is_some() {
                    Ok(())
                } else {
                    Err(Why::Unknown)
                }
            }
            Fact::FieldlessEnum(_) => {
                if claim.is_some() || key.is_some() || is_state_name(name) {
                    Ok(())
                } else {
                    Err(Why::Unknown)
                }
            }
            Fact::Text(ty) => match claim {
                Some(NameClass::OpaqueId | NameClass::Status | NameClass::Count) => {
                    refuted(ty, "free text")
                }
                Some(_) => Ok(()),
                None => Err(Why::Unknown),
            },
            Fact::Composite(ty) => match claim {
                Some(_) => refuted(ty, super::COLLECTION),
                None => Err(Why::Unknown),
            },
            Fact::Unknown => {
                self.by_name_only.set(true);
                claim.map_or(Err(Why::Unknown), |_| Ok(()))
            }
        }
    }

    /// The verdict on an inline format capture `{name}` (under field `key`, if any): a local is
    /// judged by its origin and type, anything else by its name.
    pub(crate) fn check_capture(
        &self,
        name: &str,
        key: Option<NameClass>,
        scope: &Scope,
    ) -> Result<(), Why> {
        let binding = scope.lookup(name);
        if let Some(b) = binding {
            match &b.origin {
                Origin::Safe => return Ok(()),
                Origin::Tainted(why) => {
                    return Err(Why::bound(name, &self.taint_of(why, Some(&b.ty))));
                }
                Origin::Unknown => {}
            }
        }
        // `{MAX_RETRIES}`: a constant, as the same name passed as an argument is; `{ResetColor}`,
        // no local, is a unit struct or variant, or a constant: built from constants alone.
        if binding.is_none()
            && (is_constant_name(name) || name.starts_with(|c: char| c.is_uppercase()))
        {
            return Ok(());
        }
        let fact = binding.map_or(Fact::Unknown, |b| self.fact_ty(&b.ty));
        let error = || binding.map_or(Why::Error, |b| self.error_of(&b.ty));
        if is_error_name(name) {
            return match fact {
                Fact::FixedError | Fact::FieldlessEnum(_) => Ok(()),
                f if f.proves_class() => Ok(()),
                _ => Err(error()),
            };
        }
        match self.decide(name, fact, key) {
            Err(Why::Error) => Err(error()),
            other => other,
        }
    }
}

/// Names under which a fieldless enum is a state, not a fact about a person.
fn is_state_name(name: &str) -> bool {
    let n = phi_filter::names::to_snake(name);
    let last = n.rsplit('_').next().unwrap_or(&n);
    matches!(last, "state" | "mode" | "phase" | "direction")
}

impl Why {
    /// Whether the finding is about an error value (rule `phi::error-message`).
    pub(crate) fn is_error(&self) -> bool {
        match self {
            Why::Error | Why::ErrorWithin(_) => true,
            Why::Bound { source, .. } | Why::Elided { root: source, .. } => source.is_error(),
            _ => false,
        }
    }

    /// The finding's message; `culprit` is the source text of the culprit.
    /// Whether the taint is only the name of a value in no safe class (through the locals
    /// bound to it): a part of that value has a name of its own.
    pub(crate) fn is_no_class(&self) -> bool {
        match self {
            Why::NoClass { .. } => true,
            Why::Bound { source, .. } => source.is_no_class(),
            Why::Elided { root, .. } => root.is_no_class(),
            _ => false,
        }
    }

    /// Whether the taint is only that a `Result`'s type holds an error (through the locals
    /// bound to it), not a value built from one.
    pub(crate) fn is_result_error(&self) -> bool {
        match self {
            Why::ErrorWithin(container) => container == "Result",
            Why::Bound { source, .. } => source.is_result_error(),
            Why::Elided { root, .. } => root.is_result_error(),
            _ => false,
        }
    }

    pub(crate) fn message(&self, culprit: &str) -> String {
        use crate::rules::{error_message, interpolation};
        match self {
            Why::Error => error_message::message(culprit),
            Why::ErrorWithin(container) => error_message::within(culprit, container),
            Why::Denied { name, stem } => interpolation::denied(name, stem.trim_matches('_')),
            Why::Unknown => interpolation::unknown(culprit),
            Why::NoClass { name } => interpolation::unknown(name),
            Why::Elided { root, .. } => root.message(culprit),
            Why::Refuted {
                name,
                class,
                ty,
                what,
            } => {
                let article = if *class == NameClass::OpaqueId {
                    "an"
                } else {
                    "a"
                };
                interpolation::refuted(name, &format!("{article} {class}"), ty, what)
            }
            Why::Bound { local, source } => {
                // Follow `row_id` ← `b` ← `a` to the value the chain started from.
                let mut hops = String::new();
                let mut root = &**source;
                loop {
                    match root {
                        Why::Bound { local, source } => {
                            hops.push('`');
                            hops.push_str(local);
                            hops.push_str("`, bound to ");
                            root = source;
                        }
                        Why::Elided { hops: n, root: r } => {
                            hops.push_str("a chain of ");
                            hops.push_str(&n.to_string());
                            hops.push_str(if *n == 1 {
                                " more local"
                            } else {
                                " more locals"
                            });
                            hops.push_str(", bound to ");
                            root = r;
                        }
                        _ => break,
                    }
                }
                let because = match root {
                    Why::Error => "an error, whose message can quote the data it failed on".into(),
                    Why::ErrorWithin(container) => format!(
                        "a value that {}{}, whose messages can quote the data they failed on",
                        error_message::WITHIN,
                        error_message::article(container)
                    ),
                    Why::Denied { name, stem } => format!(
                        "`{name}`, which contains the deny stem `{}`",
                        stem.trim_matches('_')
                    ),
                    Why::Refuted { name, ty, .. } => {
                        format!("`{name}`, whose type `{ty}` can hold personal data")
                    }
                    Why::NoClass { name } => format!(
                        "`{name}`, which is not an opaque id, count, duration, status or type name"
                    ),
                    Why::Bound { .. } | Why::Elided { .. } | Why::Unknown => {
                        "a value that is not allowed".into()
                    }
                };
                interpolation::bound(local, &format!("{hops}{because}"))
            }
        }
    }
}
