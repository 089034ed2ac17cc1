//! A type index of the scanned code, from syn alone: no rustc, no rust-analyzer.
//!
//! Each file contributes a [`FileIndex`] (its structs and their fields, enums, type aliases,
//! consts and statics, free functions and methods with their parameter and return types, and
//! `use` renames), built in the same parallel pass that parses it for the lint. The per-file
//! indexes merge into one [`TypeIndex`], keyed by the last segment of a name: a name defined
//! twice with different definitions (two `User`s in two crates) is ambiguous, and an ambiguous
//! name resolves to nothing. So the index answers across the files of a crate and across the
//! crates of a workspace where the answer is unambiguous, and says "unknown" elsewhere. A file's
//! own definitions answer first for that file (see [`TypeIndex::view`]), in its first lint with
//! its own index and in its lint with the merged one alike.

use std::cell::RefCell;
use std::sync::Arc;

use compact_str::{CompactString, ToCompactString};
/// phi-lint's hash tables: keyed by identifiers from the scanned code, hashed with a per-process
/// random seed (foldhash), several times faster than the standard `SipHash` on short keys.
pub(crate) type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

use syn::{GenericArgument, Item, PathArguments, ReturnType, Type};

mod facts;
mod infer;

pub(crate) use facts::{Fact, fact_of};
pub(crate) use infer::{Binding, Origin, Scope, element, ty_of};

/// A type as the index keeps it: references, `Box`, `Arc`, `Rc` and `Cow` peeled, paths cut to
/// their last segment, generic arguments kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) enum Ty {
    /// A named type: `Uuid`, `Option<Uuid>`, `HashMap<String, u32>`, `u64`, `str`.
    Named(CompactString, Vec<Ty>),
    /// A tuple.
    Tuple(Vec<Ty>),
    /// A slice or an array of the element type.
    Slice(Box<Ty>),
    /// Not known.
    #[default]
    Unknown,
}

impl Ty {
    pub(crate) fn named(name: &str) -> Ty {
        Ty::Named(name.into(), Vec::new())
    }

    /// The name of a named type.
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Ty::Named(n, _) => Some(n),
            _ => None,
        }
    }

    /// The first generic argument (`T` of `Option<T>`, `Vec<T>`, `Result<T, E>`).
    pub(crate) fn arg(&self, i: usize) -> Ty {
        match self {
            Ty::Named(_, args) => args.get(i).cloned().unwrap_or_default(),
            Ty::Slice(t) if i == 0 => (**t).clone(),
            _ => Ty::Unknown,
        }
    }

    pub(crate) fn is_unknown(&self) -> bool {
        matches!(self, Ty::Unknown)
    }

    /// The type written in source, with `Self` replaced by `self_ty`.
    /// The type of a `const` or `static`, whose references are `'static` without saying so:
    /// `const MISSING: &str` is text compiled into the program, as `&[&str]` holds such text.
    pub(crate) fn of_item(t: &Type) -> Ty {
        match t {
            Type::Reference(r) if matches!(&*r.elem, Type::Path(p) if p.qself.is_none() && p.path.is_ident("str")) => {
                Ty::named(facts::STATIC_STR)
            }
            Type::Reference(r) => Ty::of_item(&r.elem),
            Type::Slice(s) => Ty::Slice(Box::new(Ty::of_item(&s.elem))),
            Type::Array(a) => Ty::Slice(Box::new(Ty::of_item(&a.elem))),
            other => Ty::from_syn(other, None),
        }
    }

    /// `dyn Trait` for the first trait of `bounds` that is not an auto or marker trait
    /// (`dyn Send + Session` is a `dyn Session`).
    pub(crate) fn of_trait(
        bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
    ) -> Ty {
        const MARKERS: &[&str] = &[
            "Send",
            "Sync",
            "Unpin",
            "Sized",
            "UnwindSafe",
            "RefUnwindSafe",
        ];
        bounds
            .iter()
            .find_map(|b| match b {
                syn::TypeParamBound::Trait(t) => t
                    .path
                    .segments
                    .last()
                    .filter(|s| !MARKERS.iter().any(|m| s.ident == m)),
                _ => None,
            })
            .map_or(Ty::Unknown, |s| {
                Ty::Named(compact_str::format_compact!("{DYN}{}", s.ident), Vec::new())
            })
    }

    pub(crate) fn from_syn(t: &Type, self_ty: Option<&str>) -> Ty {
        match t {
            // `&'static str`: text compiled into the program, kept apart from `&str`.
            Type::Reference(r)
                if r.lifetime.as_ref().is_some_and(|l| l.ident == "static")
                    && matches!(&*r.elem, Type::Path(p) if p.qself.is_none() && p.path.is_ident("str")) =>
            {
                Ty::named(facts::STATIC_STR)
            }
            Type::Reference(r) => Ty::from_syn(&r.elem, self_ty),
            Type::Paren(p) => Ty::from_syn(&p.elem, self_ty),
            Type::Group(g) => Ty::from_syn(&g.elem, self_ty),
            Type::Slice(s) => Ty::Slice(Box::new(Ty::from_syn(&s.elem, self_ty))),
            Type::Array(a) => Ty::Slice(Box::new(Ty::from_syn(&a.elem, self_ty))),
            Type::Tuple(t) => Ty::Tuple(t.elems.iter().map(|e| Ty::from_syn(e, self_ty)).collect()),
            // `dyn Source`, `impl Source`: named for the trait, whose methods the index keeps
            // as `dyn Source::method`; the value itself proves nothing (see `facts`).
            Type::TraitObject(t) => Ty::of_trait(&t.bounds),
            Type::ImplTrait(t) => Ty::of_trait(&t.bounds),
            Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return Ty::Unknown;
                };
                let mut name = last.ident.to_compact_string();
                if name == "Self" {
                    match self_ty {
                        Some(s) => name = s.into(),
                        None => return Ty::Unknown,
                    }
                }
                let args: Vec<Ty> = match &last.arguments {
                    PathArguments::AngleBracketed(a) => {
                        exact(a.args.iter().filter_map(|g| match g {
                            GenericArgument::Type(t) => Some(Ty::from_syn(t, self_ty)),
                            _ => None,
                        }))
                    }
                    _ => Vec::new(),
                };
                if matches!(
                    name.as_str(),
                    "Box" | "Arc" | "Rc" | "Cow" | "RefCell" | "Cell"
                ) && args.len() == 1
                {
                    return args.into_iter().next().unwrap_or_default();
                }
                Ty::Named(name, args)
            }
            _ => Ty::Unknown,
        }
    }
}

/// The longest type or trait name whose methods the index keeps: each method's key holds the
/// name, so 1,000 methods of a trait named by 1,000 characters took 1.24 GB for 5 MB of source.
/// A longer name is no real type's; calls on it fall back to the name rules.
const MAX_KEYED_TYPE_NAME: usize = 64;

/// How the index names a trait object or `impl Trait` (`dyn Source`), and the trait's methods
/// (`dyn Source::user_id`).
pub(crate) const DYN: &str = "dyn ";

/// What a type name is defined as.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum TypeDef {
    /// A struct: its named fields, or its positional fields (`.0`) for a tuple struct.
    Struct {
        fields: Vec<(CompactString, Ty)>,
        tuple: bool,
    },
    /// An enum, whether every variant is fieldless, and the fields of all its variants
    /// (positional ones named `0`, `1`, …).
    Enum {
        fieldless: bool,
        fields: Vec<(CompactString, Ty)>,
    },
    /// `type A = B;`
    Alias(Ty),
}

/// What the index keeps of a function's signature: its return type, the type of a call's
/// value. Parameter types are read from the function's own tree when its body is walked; no
/// lookup across functions asks for them, so the index does not hold them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct FnSig {
    pub(crate) ret: Ty,
}

/// What `use a::B as C` renames `C` to: `B`, and the crate `a` if it is another one.
type Rename = (CompactString, Option<CompactString>);

/// One file's contribution to the index, in the order found. Each definition is shared: the
/// file's own index, its worker's and the merged one hold the same `Arc`, not a copy each (a
/// file of many small functions would otherwise keep several copies of every signature).
#[derive(Debug, Default, Clone)]
pub(crate) struct FileIndex {
    /// The crate the file belongs to: its path up to the last `src/` (`crates/auth`), or `""`.
    krate: String,
    types: Vec<(Key, Arc<TypeDef>)>,
    fns: Vec<(Key, Arc<FnSig>)>,
    /// Keyed `Type::method`.
    methods: Vec<(Key, Arc<FnSig>)>,
    consts: Vec<(Key, Arc<Ty>)>,
    /// `use a::B as C` gives `(C, (B, Some(a)))`, with `None` for `crate`, `self`, `super`.
    renames: Vec<(Key, Arc<Rename>)>,
}

impl FileIndex {
    /// Every name the index holds: types, functions, methods (`Type::method`), consts and
    /// renames.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> Vec<&str> {
        let types = self.types.iter().map(|(k, _)| k);
        let fns = self.fns.iter().chain(&self.methods).map(|(k, _)| k);
        let rest = self.consts.iter().map(|(k, _)| k);
        let renames = self.renames.iter().map(|(k, _)| k);
        types
            .chain(fns)
            .chain(rest)
            .chain(renames)
            .map(|k| &**k)
            .collect()
    }

    /// Adds another part of the same file (a chunk of a large one).
    pub(crate) fn append(&mut self, other: FileIndex) {
        if self.krate.is_empty() {
            self.krate = other.krate;
        }
        self.types.extend(other.types);
        self.fns.extend(other.fns);
        self.methods.extend(other.methods);
        self.consts.extend(other.consts);
        self.renames.extend(other.renames);
    }
}

/// A definition, or two different ones under one name.
#[derive(Debug, Clone)]
enum Entry<T> {
    One(Arc<T>),
    Ambiguous,
}

/// Definitions by name: across the workspace, and per crate (which wins where it is
/// unambiguous, so two `User`s in two crates each resolve in their own crate).
#[derive(Debug)]
struct Table<T> {
    global: Map<Key, Entry<T>>,
    by_crate: Map<String, Map<Key, Entry<T>>>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            global: Map::default(),
            by_crate: Map::default(),
        }
    }
}

fn insert<T: PartialEq>(map: &mut Map<Key, Entry<T>>, k: Key, v: Arc<T>) {
    use std::collections::hash_map::Entry as E;
    match map.entry(k) {
        E::Vacant(e) => {
            e.insert(Entry::One(v));
        }
        E::Occupied(mut e) => {
            if matches!(e.get(), Entry::One(old) if *old != v) {
                e.insert(Entry::Ambiguous);
            }
        }
    }
}

/// Merges `e` into `map`'s entry for `k`: two different definitions, or an ambiguous one, make
/// the name ambiguous. The result does not depend on the order of the merges.
fn merge_entry<T: PartialEq>(map: &mut Map<Key, Entry<T>>, k: Key, e: Entry<T>) {
    use std::collections::hash_map::Entry as E;
    match map.entry(k) {
        E::Vacant(slot) => {
            slot.insert(e);
        }
        E::Occupied(mut slot) => {
            if !matches!((slot.get(), &e), (Entry::One(old), Entry::One(new)) if old == new) {
                slot.insert(Entry::Ambiguous);
            }
        }
    }
}

impl<T: PartialEq + Clone> Table<T> {
    /// Takes in every entry of `other`, as if its definitions had been added one by one.
    fn absorb(&mut self, other: Table<T>) {
        fn into<T: PartialEq>(map: &mut Map<Key, Entry<T>>, other: Map<Key, Entry<T>>) {
            map.reserve(other.len());
            for (k, e) in other {
                merge_entry(map, k, e);
            }
        }
        into(&mut self.global, other.global);
        for (krate, map) in other.by_crate {
            match self.by_crate.get_mut(&krate) {
                Some(own) => into(own, map),
                None => {
                    self.by_crate.insert(krate, map);
                }
            }
        }
    }

    /// Makes room for `n` more names in crate `krate` and the workspace at once: a table that
    /// grows one name at a time holds its old and new storage together at each doubling.
    fn reserve(&mut self, krate: &str, n: usize, global: bool) {
        if n == 0 {
            return;
        }
        if global {
            self.global.reserve(n);
        }
        match self.by_crate.get_mut(krate) {
            Some(m) => m.reserve(n),
            None => {
                let mut m = Map::default();
                m.reserve(n);
                self.by_crate.insert(krate.to_owned(), m);
            }
        }
    }

    fn add(&mut self, krate: &str, k: Key, v: Arc<T>) {
        let own = match self.by_crate.get_mut(krate) {
            Some(m) => m,
            None => self.by_crate.entry(krate.to_owned()).or_default(),
        };
        insert(own, k.clone(), Arc::clone(&v));
        insert(&mut self.global, k, v);
    }

    /// Adds to crate `krate`'s table only: for an index of one crate, where the workspace-wide
    /// table would hold the same entries.
    fn add_own(&mut self, krate: &str, k: Key, v: Arc<T>) {
        let own = match self.by_crate.get_mut(krate) {
            Some(m) => m,
            None => self.by_crate.entry(krate.to_owned()).or_default(),
        };
        insert(own, k, v);
    }

    fn get(&self, krate: &str, k: &str) -> Option<&T> {
        let own = self.by_crate.get(krate).and_then(|m| m.get(k));
        match own.or_else(|| self.global.get(k))? {
            Entry::One(v) => Some(v),
            Entry::Ambiguous => None,
        }
    }

    /// The definition of `k` in crate `krate` only.
    fn get_own(&self, krate: &str, k: &str) -> Option<&T> {
        match self.by_crate.get(krate)?.get(k)? {
            Entry::One(v) => Some(v),
            Entry::Ambiguous => None,
        }
    }

    /// Whether crate `krate` defines `k` (even ambiguously).
    fn has_own(&self, krate: &str, k: &str) -> bool {
        self.by_crate.get(krate).is_some_and(|m| m.contains_key(k))
    }

    /// The one definition of `k` outside crate `krate`, if exactly one crate defines it;
    /// crates whose directory matches `from` (`lldap_domain` for `crates/domain`) first.
    fn get_foreign(&self, krate: &str, from: &str, k: &str) -> Option<&T> {
        let named = |c: &str| {
            let dir = c.rsplit('/').next().unwrap_or(c).replace('-', "_");
            !dir.is_empty()
                && (from == dir
                    || from.ends_with(&format!("_{dir}"))
                    || dir.ends_with(&format!("_{from}")))
        };
        let matching: Vec<&T> = self
            .by_crate
            .iter()
            .filter(|(c, _)| c.as_str() != krate && named(c))
            .filter_map(|(_, m)| match m.get(k) {
                Some(Entry::One(v)) => Some(&**v),
                _ => None,
            })
            .collect();
        if let [one] = matching.as_slice() {
            return Some(one);
        }
        let mut found = None;
        for (c, m) in &self.by_crate {
            if c == krate {
                continue;
            }
            match m.get(k) {
                Some(Entry::One(v)) if found.is_none() => found = Some(&**v),
                Some(_) => return None,
                None => {}
            }
        }
        found
    }
}

/// The merged index of every scanned file.
#[derive(Debug, Default)]
pub(crate) struct TypeIndex {
    types: Table<TypeDef>,
    fns: Table<FnSig>,
    methods: Table<FnSig>,
    consts: Table<Ty>,
    renames: Table<Rename>,
}

/// The index as seen from one crate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Types<'a> {
    index: &'a TypeIndex,
    /// The file's own index, in a lint with the merged one: a name the file defines itself is
    /// answered by the file, as in its first lint, whatever other files define under it.
    own: Option<&'a TypeIndex>,
    krate: &'a str,
    /// Where to note the names looked up and not found, if anyone asks.
    misses: Option<&'a RefCell<Misses>>,
}

/// The names a lint looked up and did not find, in order, for the second lint to check.
///
/// A name is noted once per stretch between two [`Types::missed`] marks (a function's walk
/// starts one), not once per lookup: a body of 100,000 `let x = step(i)` misses `step` 100,000
/// times. Every stretch the walk reads back ([`Types::misses_since`] a mark) still holds each
/// name it missed, since a name left out was noted after the latest mark, which no open
/// stretch starts after.
#[derive(Debug, Default)]
pub(crate) struct Misses {
    names: Vec<String>,
    /// The names noted since the latest mark.
    recent: std::collections::HashSet<String, foldhash::fast::RandomState>,
}

impl Misses {
    /// Every name missed, in the order first noted in each stretch.
    pub(crate) fn into_names(self) -> Vec<String> {
        self.names
    }
}

/// Marks a missed name that was looked up in the other crates (through a `use` of another
/// crate's item), not in the file's own.
pub(crate) const FOREIGN: char = '@';

/// The crate of a file: its path up to the last `src/` component, or `""`.
pub(crate) fn crate_of(rel: &str) -> &str {
    match rel.rfind("/src/") {
        Some(i) => &rel[..i],
        None => "",
    }
}

impl TypeIndex {
    /// Merges per-file indexes; the result does not depend on their order.
    #[cfg(test)]
    pub(crate) fn merge(files: impl IntoIterator<Item = FileIndex>) -> TypeIndex {
        let mut out = TypeIndex::default();
        for f in files {
            out.add_file(f);
        }
        out
    }

    /// Adds one file's definitions, as [`merge`](Self::merge) does.
    pub(crate) fn add_file(&mut self, f: FileIndex) {
        let k = f.krate.as_str();
        self.types.reserve(k, f.types.len(), true);
        self.fns.reserve(k, f.fns.len(), true);
        self.methods.reserve(k, f.methods.len(), true);
        self.consts.reserve(k, f.consts.len(), true);
        self.renames.reserve(k, f.renames.len(), true);
        for (n, v) in f.types {
            self.types.add(k, n, v);
        }
        for (n, v) in f.fns {
            self.fns.add(k, n, v);
        }
        for (n, v) in f.methods {
            self.methods.add(k, n, v);
        }
        for (n, v) in f.consts {
            self.consts.add(k, n, v);
        }
        for (n, v) in f.renames {
            self.renames.add(k, n, v);
        }
    }

    /// Indexes merged from disjoint sets of files, combined: the index [`merge`](Self::merge)
    /// builds from all their files, whatever the grouping and order. Workers merge their own
    /// files while the others still lint, so only this step waits for all of them.
    pub(crate) fn combine(parts: impl IntoIterator<Item = TypeIndex>) -> TypeIndex {
        let mut parts: Vec<TypeIndex> = parts.into_iter().collect();
        // The largest absorbs the others: the fewest entries are moved.
        let Some(largest) = (0..parts.len()).max_by_key(|&i| parts[i].len()) else {
            return TypeIndex::default();
        };
        let mut out = parts.swap_remove(largest);
        for p in parts {
            out.types.absorb(p.types);
            out.fns.absorb(p.fns);
            out.methods.absorb(p.methods);
            out.consts.absorb(p.consts);
            out.renames.absorb(p.renames);
        }
        out
    }

    /// How many workspace-wide names the index holds.
    fn len(&self) -> usize {
        self.types.global.len()
            + self.fns.global.len()
            + self.methods.global.len()
            + self.consts.global.len()
            + self.renames.global.len()
    }

    /// The index of one file alone, for lookups from the file's own crate: they are answered
    /// as `merge([file.clone()])` answers them (with one crate, the crate's table and the
    /// workspace's hold the same entries), for a third of the copies.
    pub(crate) fn of_file(f: &FileIndex) -> TypeIndex {
        let mut out = TypeIndex::default();
        let k = f.krate.as_str();
        out.types.reserve(k, f.types.len(), false);
        out.fns.reserve(k, f.fns.len(), false);
        out.methods.reserve(k, f.methods.len(), false);
        out.consts.reserve(k, f.consts.len(), false);
        out.renames.reserve(k, f.renames.len(), false);
        for (n, v) in &f.types {
            out.types.add_own(k, n.clone(), v.clone());
        }
        for (n, v) in &f.fns {
            out.fns.add_own(k, n.clone(), v.clone());
        }
        for (n, v) in &f.methods {
            out.methods.add_own(k, n.clone(), v.clone());
        }
        for (n, v) in &f.consts {
            out.consts.add_own(k, n.clone(), v.clone());
        }
        for (n, v) in &f.renames {
            out.renames.add_own(k, n.clone(), v.clone());
        }
        out
    }

    /// The index as seen from the crate of the file at `rel`, whose own index `own` (if given)
    /// answers first for the names it defines; names looked up and not found are noted in
    /// `misses`, if given.
    pub(crate) fn view<'a>(
        &'a self,
        rel: &'a str,
        own: Option<&'a TypeIndex>,
        misses: Option<&'a RefCell<Misses>>,
    ) -> Types<'a> {
        Types {
            index: self,
            own,
            krate: crate_of(rel),
            misses,
        }
    }

    /// Whether the lint of a file of crate `krate` that missed `names` (with its own index)
    /// may find one of them in this index: a type, function, method or const it resolves for
    /// the crate, a `use` rename of the crate, or, for a [`FOREIGN`] miss, a definition in any
    /// other crate. A name this index still cannot resolve (defined nowhere, or ambiguously)
    /// leaves every verdict that asked for it as it was.
    pub(crate) fn resolves_any(&self, krate: &str, names: &[String]) -> bool {
        names.iter().any(|n| match n.strip_prefix(FOREIGN) {
            Some(original) => self
                .types
                .by_crate
                .iter()
                .any(|(c, m)| c != krate && m.contains_key(original)),
            None => {
                self.types.get(krate, n).is_some()
                    || self.fns.get(krate, n).is_some()
                    || self.methods.get(krate, n).is_some()
                    || self.consts.get(krate, n).is_some()
                    || self.renames.has_own(krate, n)
            }
        })
    }
}

impl Types<'_> {
    /// How many names have been missed so far: a mark for [`Types::misses_since`], which
    /// starts a stretch of [`Misses`].
    pub(crate) fn missed(&self) -> usize {
        self.misses.map_or(0, |m| {
            let mut m = m.borrow_mut();
            // Clearing costs the set's capacity, not its length: after a function that missed
            // many names, a fresh set keeps each later mark as cheap as the names it clears.
            if m.recent.capacity() > 64 {
                m.recent = std::collections::HashSet::default();
            } else {
                m.recent.clear();
            }
            m.names.len()
        })
    }

    /// The names missed since `missed()` returned `from`.
    pub(crate) fn misses_since(&self, from: usize) -> Vec<String> {
        self.misses
            .map(|m| {
                m.borrow()
                    .names
                    .get(from..)
                    .map(<[String]>::to_vec)
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }

    fn miss<T>(&self, name: &str, found: Option<T>) -> Option<T> {
        if found.is_none()
            && let Some(m) = self.misses
        {
            let mut m = m.borrow_mut();
            if !m.recent.contains(name) {
                m.recent.insert(name.to_owned());
                m.names.push(name.to_owned());
            }
        }
        found
    }

    /// The index that answers for a name: the file's own if `has` says it defines the name,
    /// else the merged one. So a verdict of the first lint (the file's own index) that found
    /// its names stands in the lint with the merged index, and only a miss can change.
    fn layer(&self, has: impl Fn(&TypeIndex) -> bool) -> &TypeIndex {
        match self.own {
            Some(own) if has(own) => own,
            _ => self.index,
        }
    }

    /// The index that answers for type name `name`: its own type or `use` rename.
    fn type_layer(&self, name: &str) -> &TypeIndex {
        self.layer(|i| i.types.has_own(self.krate, name) || i.renames.has_own(self.krate, name))
    }

    fn type_def(&self, name: &str) -> Option<&TypeDef> {
        let found = self
            .layer(|i| i.types.has_own(self.krate, name))
            .types
            .get(self.krate, name);
        self.miss(name, found)
    }

    /// The definition of a type name, through `use` renames and aliases (a few hops): the
    /// crate's own definition, else its own `use … as` rename (renames never leave their
    /// crate), else the workspace's one definition. A rename imported from another crate
    /// (`use dom::User as DomainUser`) resolves among the other crates' definitions.
    pub(crate) fn def(&self, name: &str) -> Option<&TypeDef> {
        let mut name = name;
        for _ in 0..4 {
            let at = self.type_layer(name);
            let found = if at.types.has_own(self.krate, name) {
                at.types.get_own(self.krate, name)
            } else if let Some((original, from)) = at.renames.get_own(self.krate, name)
                && original != name
            {
                if let Some(from) = from {
                    let foreign = self.index.types.get_foreign(self.krate, from, original);
                    return match self.miss(&format!("{FOREIGN}{original}"), foreign) {
                        Some(TypeDef::Alias(Ty::Named(target, _))) => self.type_def(target),
                        other => other,
                    };
                }
                name = original;
                continue;
            } else {
                self.type_def(name)
            };
            match found {
                Some(TypeDef::Alias(Ty::Named(target, _))) => name = target,
                other => return other,
            }
        }
        None
    }

    /// `ty` with aliases and renames resolved (`type UserId = Uuid;` gives `Uuid`).
    pub(crate) fn resolve(&self, ty: &Ty) -> Ty {
        let mut ty = ty.clone();
        for _ in 0..4 {
            let Ty::Named(name, _) = &ty else { return ty };
            let at = self.type_layer(name);
            let def = if at.types.has_own(self.krate, name) {
                at.types.get_own(self.krate, name)
            } else if at.renames.get_own(self.krate, name).is_some() {
                // Renamed types are resolved by `def`.
                return ty;
            } else {
                self.type_def(name)
            };
            match def {
                Some(TypeDef::Alias(target)) => ty = target.clone(),
                _ => return ty,
            }
        }
        ty
    }

    /// The type of field `field` of type `ty`.
    pub(crate) fn field(&self, ty: &Ty, field: &str) -> Ty {
        let ty = self.resolve(ty);
        if let Ty::Tuple(elems) = &ty {
            return field
                .parse::<usize>()
                .ok()
                .and_then(|i| elems.get(i).cloned())
                .unwrap_or_default();
        }
        let Some(name) = ty.name() else {
            return Ty::Unknown;
        };
        match self.def(name) {
            Some(TypeDef::Struct { fields, .. }) => fields
                .iter()
                .find(|(f, _)| f == field)
                .map(|(_, t)| t.clone())
                .unwrap_or_default(),
            _ => Ty::Unknown,
        }
    }

    /// The signature of method `method` on type `ty`.
    pub(crate) fn method(&self, ty: &str, method: &str) -> Option<&FnSig> {
        let Ty::Named(ty, _) = self.resolve(&Ty::named(ty)) else {
            return None;
        };
        let key = format!("{ty}::{method}");
        let found = self
            .layer(|i| i.methods.has_own(self.krate, &key))
            .methods
            .get(self.krate, &key);
        self.miss(&key, found)
    }

    /// The signature of a free function.
    pub(crate) fn function(&self, name: &str) -> Option<&FnSig> {
        let found = self
            .layer(|i| i.fns.has_own(self.krate, name))
            .fns
            .get(self.krate, name);
        self.miss(name, found)
    }

    /// The type of a const or static.
    pub(crate) fn constant(&self, name: &str) -> Option<&Ty> {
        let found = self
            .layer(|i| i.consts.has_own(self.krate, name))
            .consts
            .get(self.krate, name);
        self.miss(name, found)
    }
}

/// The items in a Vec of exactly their number. `filter_map` or `flat_map` then `collect` sizes
/// a Vec for at least four and doubles it, and the index holds one per generic argument list,
/// struct and enum: on 5 MB of struct definitions that spare room was 26 MB.
fn exact<T>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = items.collect();
    out.shrink_to_fit();
    out
}

/// A name in the index, shared by every table that holds it (the file's, its crate's and the
/// workspace's): a method's key holds its type's name too (`dyn Session::login_id`), and a copy
/// in each table cost 40 times the source of a trait of many one-line methods.
type Key = Arc<str>;

/// The index's key for a name.
fn key(name: impl std::fmt::Display) -> Key {
    // Formatted into an inline buffer first: one allocation, the key's own.
    Arc::from(name.to_compact_string().as_str())
}

/// One copy of each distinct definition while a file is indexed: `fn a1() {}` … `fn
/// a100000() {}` share one signature, and `type T1 = u8;` … one alias, so the index of a file of
/// many small items holds a name and a pointer for each, not a definition each.
#[derive(Default)]
struct Shared {
    defs: std::collections::HashSet<Arc<TypeDef>, foldhash::fast::RandomState>,
    sigs: std::collections::HashSet<Arc<FnSig>, foldhash::fast::RandomState>,
    tys: std::collections::HashSet<Arc<Ty>, foldhash::fast::RandomState>,
}

/// The shared copy of `v` in `set`, added if it is new.
fn share<T: std::hash::Hash + Eq>(
    set: &mut std::collections::HashSet<Arc<T>, foldhash::fast::RandomState>,
    v: T,
) -> Arc<T> {
    if let Some(a) = set.get(&v) {
        return Arc::clone(a);
    }
    let a = Arc::new(v);
    set.insert(Arc::clone(&a));
    a
}

/// Indexes the items of one parsed file (bodies are not entered: the index is about items).
pub(crate) fn index_file(rel: &str, file: &syn::File) -> FileIndex {
    let mut out = FileIndex {
        krate: crate_of(rel).to_owned(),
        ..FileIndex::default()
    };
    items(&file.items, &mut out, &mut Shared::default());
    out
}

fn items(list: &[Item], out: &mut FileIndex, shared: &mut Shared) {
    for item in list {
        // Test code is not in the build: its types (a test module's own `struct User { id:
        // u64 }`) must not make the shipped ones ambiguous.
        let attrs = match item {
            Item::Struct(x) => &x.attrs,
            Item::Enum(x) => &x.attrs,
            Item::Type(x) => &x.attrs,
            Item::Const(x) => &x.attrs,
            Item::Static(x) => &x.attrs,
            Item::Fn(x) => &x.attrs,
            Item::Impl(x) => &x.attrs,
            Item::Mod(x) => &x.attrs,
            Item::Use(x) => &x.attrs,
            Item::Trait(x) => &x.attrs,
            _ => &Vec::new(),
        };
        if crate::resolve::is_cfg_test(attrs) {
            continue;
        }
        match item {
            Item::Struct(s) => {
                let (fields, tuple) = match &s.fields {
                    syn::Fields::Named(n) => (
                        exact(n.named.iter().filter_map(|f| {
                            Some((
                                f.ident.as_ref()?.to_compact_string(),
                                Ty::from_syn(&f.ty, None),
                            ))
                        })),
                        false,
                    ),
                    syn::Fields::Unnamed(u) => (
                        u.unnamed
                            .iter()
                            .enumerate()
                            .map(|(i, f)| (i.to_compact_string(), Ty::from_syn(&f.ty, None)))
                            .collect(),
                        true,
                    ),
                    syn::Fields::Unit => (Vec::new(), true),
                };
                out.types.push((
                    key(&s.ident),
                    share(&mut shared.defs, TypeDef::Struct { fields, tuple }),
                ));
            }
            Item::Enum(e) => {
                let fieldless = e
                    .variants
                    .iter()
                    .all(|v| matches!(v.fields, syn::Fields::Unit));
                let fields = exact(
                    e.variants
                        .iter()
                        .flat_map(|v| v.fields.iter().enumerate())
                        .map(|(i, f)| {
                            let name = f.ident.as_ref().map_or_else(
                                || i.to_compact_string(),
                                ToCompactString::to_compact_string,
                            );
                            (name, Ty::from_syn(&f.ty, None))
                        }),
                );
                out.types.push((
                    key(&e.ident),
                    share(&mut shared.defs, TypeDef::Enum { fieldless, fields }),
                ));
            }
            Item::Type(t) => out.types.push((
                key(&t.ident),
                share(&mut shared.defs, TypeDef::Alias(Ty::from_syn(&t.ty, None))),
            )),
            Item::Const(c) => out
                .consts
                .push((key(&c.ident), share(&mut shared.tys, Ty::of_item(&c.ty)))),
            Item::Static(s) => out
                .consts
                .push((key(&s.ident), share(&mut shared.tys, Ty::of_item(&s.ty)))),
            // A free function is indexed whatever it returns: two of one name make a call of
            // that name ambiguous, which a closure or an import of the name may be.
            Item::Fn(f) => out.fns.push((
                key(&f.sig.ident),
                share(&mut shared.sigs, signature(&f.sig, None)),
            )),
            Item::Impl(i) => {
                let Type::Path(p) = &*i.self_ty else { continue };
                let Some(self_ty) = p.path.segments.last().map(|s| s.ident.to_string()) else {
                    continue;
                };
                if self_ty.len() > MAX_KEYED_TYPE_NAME {
                    continue;
                }
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it
                        && returns_value(&f.sig)
                    {
                        out.methods.push((
                            key(format_args!("{self_ty}::{}", f.sig.ident)),
                            share(&mut shared.sigs, signature(&f.sig, Some(&self_ty))),
                        ));
                    }
                }
            }
            // A trait's methods, for calls on `dyn Trait` and `impl Trait` values.
            Item::Trait(t) if t.ident.to_string().len() <= MAX_KEYED_TYPE_NAME => {
                for it in &t.items {
                    if let syn::TraitItem::Fn(f) = it
                        && returns_value(&f.sig)
                    {
                        out.methods.push((
                            key(format_args!("{DYN}{}::{}", t.ident, f.sig.ident)),
                            share(&mut shared.sigs, signature(&f.sig, None)),
                        ));
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    items(inner, out, shared);
                }
            }
            Item::Use(u) => renames(&u.tree, out),
            _ => {}
        }
    }
}

/// The crate a `use` path starts in: another crate's name, or `None` for `crate`, `self`,
/// `super`.
#[derive(Clone)]
struct UseRoot(Option<String>);

/// `use a::B as C;` records `C` as a rename of `B`, and whether `a` is another crate.
fn renames(tree: &syn::UseTree, out: &mut FileIndex) {
    /// `from`: `None` at the root of the tree, else the crate the path starts in.
    fn walk(tree: &syn::UseTree, from: Option<&UseRoot>, out: &mut FileIndex) {
        match tree {
            syn::UseTree::Path(p) => {
                let here = match from {
                    Some(f) => f.clone(),
                    None => {
                        let first = p.ident.to_string();
                        UseRoot(
                            (!matches!(first.as_str(), "crate" | "self" | "super"))
                                .then_some(first),
                        )
                    }
                };
                walk(&p.tree, Some(&here), out);
            }
            syn::UseTree::Rename(r) if r.ident != "self" => {
                out.renames.push((
                    key(&r.rename),
                    Arc::new((
                        r.ident.to_compact_string(),
                        from.and_then(|f| f.0.as_deref().map(CompactString::from)),
                    )),
                ));
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, from, out)),
            _ => {}
        }
    }
    walk(tree, None, out);
}

/// Whether a method returns a value: one that returns `()` is not indexed, since a call to it
/// has nothing to log, and a trait of one-line methods would keep an entry for each. A method
/// is looked up by its receiver's type, so no other definition answers for it. (A free function
/// is indexed either way: see `items`.)
fn returns_value(sig: &syn::Signature) -> bool {
    match &sig.output {
        ReturnType::Default => false,
        ReturnType::Type(_, t) => !matches!(&**t, Type::Tuple(t) if t.elems.is_empty()),
    }
}

/// What the index keeps of a signature: its return type, `Self` resolved to the impl's type.
pub(crate) fn signature(sig: &syn::Signature, self_ty: Option<&str>) -> FnSig {
    let ret = match &sig.output {
        ReturnType::Default => Ty::Tuple(Vec::new()),
        ReturnType::Type(_, t) => Ty::from_syn(t, self_ty),
    };
    FnSig { ret }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_missed_once_per_stretch_and_every_stretch_holds_its_misses() {
        let index = TypeIndex::default();
        let misses = RefCell::new(Misses::default());
        let types = index.view("src/lib.rs", None, Some(&misses));
        for _ in 0..1000 {
            assert!(types.function("step").is_none());
        }
        assert_eq!(misses.borrow().names, ["step"]);
        // A function's walk: its own stretch holds `step` again.
        let outer = types.missed();
        types.function("step");
        types.function("a");
        // A nested function: its stretch holds what it missed, even names the outer one did.
        let inner = types.missed();
        types.function("a");
        types.function("b");
        assert_eq!(types.misses_since(inner), ["a", "b"]);
        // Back in the outer function: `a` and `b` are already in every open stretch.
        types.function("a");
        types.function("b");
        types.function("c");
        assert_eq!(types.misses_since(outer), ["step", "a", "a", "b", "c"]);
        assert_eq!(
            misses.into_inner().into_names(),
            ["step", "step", "a", "a", "b", "c"]
        );
    }
}
