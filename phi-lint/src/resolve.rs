//! The files rustc compiles: from each crate's targets (see [`manifest`]), every `mod NAME;`,
//! `#[path]` and `include!` is followed, whatever `.gitignore`, `.ignore`, hidden directories or
//! symlinks say. A file inherits its role from the target that reaches it: the library, binaries
//! and build scripts are production code; examples, integration tests and benches are test code;
//! a module declared under `#[cfg(test)]`, or a file whose first attribute is `#![cfg(test)]`, is
//! test code. A file reached both ways is production code.
//!
//! Fails closed, by name: a `mod NAME;` with no file (unless it sits under a `#[cfg]`, where
//! rustc need not load it), a `#[path]` or `include!` outside the scan root, a file found at both
//! `NAME.rs` and `NAME/mod.rs`, a dangling symlink, a non-regular file, an unreadable file, one
//! over `max-file-size`, or one beyond the nesting bounds of [`outline`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use globset::GlobSet;
use rayon::prelude::*;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

use crate::finding::{FileError, Pos};
use outline::{Inline, ItemNames, Outline};

mod manifest;
pub(crate) mod outline;

/// What a file is to the crate that compiles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Role {
    /// Library, binary and their modules.
    Production,
    /// A build script (`build.rs`) and its modules: production code whose `cargo:` lines on
    /// stdout are instructions to cargo, not logs.
    BuildScript,
    /// Integration tests, benches, examples, and `#[cfg(test)]` modules.
    Test,
}

impl Role {
    /// Of two ways to reach a file, the one that makes it linted.
    fn stronger(self, other: Role) -> Role {
        self.min(other)
    }
}

/// The files the crates under a scan root compile.
#[derive(Debug, Default)]
pub(crate) struct Resolved {
    /// Reached files (root-relative, `/` separators) and their roles, errors excluded.
    pub(crate) files: BTreeMap<String, Role>,
    /// Reached files matched by `exclude` (not read, not followed).
    pub(crate) excluded: BTreeSet<String>,
    /// Everything that failed closed.
    pub(crate) errors: Vec<FileError>,
    /// Every file the resolver tried, errors included, so the walk does not report them again.
    pub(crate) seen: BTreeSet<String>,
    /// What the items of the files read may define.
    pub(crate) names: ItemNames,
    /// Each file's quiet function bodies ([`Outline::quiet_bodies`]), for files that have any.
    pub(crate) quiet_bodies: QuietBodies,
    /// The files over the parse's token bound ([`Outline::too_large`]): errors if linted.
    pub(crate) too_large: std::collections::HashMap<String, FileError>,
}

/// Root-relative file -> its quiet function bodies, as the outline found them.
pub(crate) type QuietBodies = std::collections::HashMap<String, Vec<outline::QuietBody>>;

/// A file to load, and where its child modules live.
#[derive(Debug, Clone)]
struct Node {
    rel: String,
    role: Role,
    /// The directory of `mod NAME;` files declared at the top level of this file.
    mod_dir: String,
    /// The directory of the file itself (for a top-level `#[path]`).
    file_dir: String,
}

impl Node {
    /// A crate root, a `mod.rs`, or a file loaded through `#[path]`: its modules live beside it.
    fn mod_rs(rel: String, role: Role) -> Node {
        let dir = parent(&rel);
        Node {
            rel,
            role,
            mod_dir: dir.clone(),
            file_dir: dir,
        }
    }

    /// `a/foo.rs`: its modules live in `a/foo/`.
    fn non_mod_rs(rel: String, role: Role) -> Node {
        let dir = parent(&rel);
        let stem = rel
            .rsplit('/')
            .next()
            .unwrap_or(&rel)
            .trim_end_matches(".rs");
        let mod_dir = join_rel(&dir, stem).unwrap_or_default();
        Node {
            rel,
            role,
            mod_dir,
            file_dir: dir,
        }
    }
}

/// Resolves every crate whose manifest is in `manifests` (root-relative paths of `Cargo.toml`s).
/// A file only test code needs (a module of `#[cfg(test)]` code, a test target) that does not
/// exist is counted as a test file, not an error, unless `scan_tests`: test code is not linted,
/// and a published crate ships without its test files.
pub(crate) fn resolve(
    root: &Path,
    manifests: &[String],
    excludes: &GlobSet,
    max_file_size: u64,
    scan_tests: bool,
) -> Resolved {
    let mut out = Resolved::default();
    let mut queue: Vec<Node> = Vec::new();
    let mut manifests: Vec<String> = manifests.to_vec();
    let mut done_manifests = BTreeSet::new();
    while let Some(m) = manifests.pop() {
        if !done_manifests.insert(identity(root, &m)) || excludes.is_match(&m) {
            continue;
        }
        let dir = parent(&m);
        let text = match read_checked(root, &m, max_file_size) {
            Ok(t) => t,
            Err(e) => {
                out.errors.push(e);
                continue;
            }
        };
        match manifest::read(root, &dir, &text) {
            Ok(declared) => {
                for problem in declared.problems {
                    match problem.missing {
                        // A declared target the user excluded (a bench left out of an export, a
                        // generated file not yet built) is counted as excluded, not an error.
                        Some(rel) if excludes.is_match(&rel) => {
                            out.excluded.insert(rel);
                        }
                        Some(rel) if problem.role == Some(Role::Test) && !scan_tests => {
                            out.files.insert(rel, Role::Test);
                        }
                        _ => out.errors.push(error(&m, None, problem.message)),
                    }
                }
                for member in declared.members {
                    manifests.push(join_rel(&member, "Cargo.toml").unwrap_or_default());
                }
                for t in declared.targets {
                    queue.push(Node::mod_rs(t.rel, t.role));
                }
            }
            Err(message) => out.errors.push(error(&m, None, message)),
        }
    }

    // By each file's identity, not its path: through symlinked directories one file has many
    // paths (`src/x/x/../lib.rs` where `x -> .`), and two such links would make them 2^depth.
    let mut best: BTreeMap<PathBuf, Role> = BTreeMap::new();
    while !queue.is_empty() {
        // Keep only nodes that are new, or reach a file in a stronger role than before.
        let level: Vec<Node> = std::mem::take(&mut queue)
            .into_iter()
            .filter(|n| {
                if excludes.is_match(&n.rel) {
                    out.excluded.insert(n.rel.clone());
                    return false;
                }
                let id = identity(root, &n.rel);
                match best.get(&id) {
                    Some(r) if r.stronger(n.role) == *r => false,
                    _ => {
                        best.insert(id, n.role);
                        true
                    }
                }
            })
            .collect();
        let loaded: Vec<Result<Outline, FileError>> = level
            .par_iter()
            .map(|n| load(root, &n.rel, max_file_size))
            .collect();
        for (node, result) in level.into_iter().zip(loaded) {
            out.seen.insert(node.rel.clone());
            let mut outline = match result {
                Ok(o) => o,
                Err(e) => {
                    out.errors.push(e);
                    out.files.remove(&node.rel);
                    continue;
                }
            };
            let mut node = node;
            if is_cfg_test(&parse_attrs(&outline.inner_attrs)) {
                node.role = Role::Test;
            }
            let entry = out.files.entry(node.rel.clone()).or_insert(node.role);
            *entry = entry.stronger(node.role);
            children(
                root,
                &node,
                &outline,
                &mut queue,
                (excludes, scan_tests),
                &mut out,
            );
            if !outline.quiet_bodies.is_empty() {
                let quiet = std::mem::take(&mut outline.quiet_bodies);
                out.quiet_bodies.insert(node.rel.clone(), quiet);
            }
            if let Some(e) = too_large(&node.rel, &mut outline) {
                out.too_large.insert(node.rel.clone(), e);
            }
            out.names.add(outline);
        }
    }
    // A file that failed once is an error, however else it was reached.
    let failed: BTreeSet<&str> = out.errors.iter().map(|e| e.file.as_str()).collect();
    out.files.retain(|rel, _| !failed.contains(rel.as_str()));
    out
}

/// What a root-relative path names, for telling files apart: its canonical path (symlinks
/// followed), or the path itself under the root when it cannot be resolved (a missing or
/// dangling file, which its load reports).
fn identity(root: &Path, rel: &str) -> PathBuf {
    let path = root.join(rel);
    std::fs::canonicalize(&path).unwrap_or(path)
}

/// Queues the modules and includes `node` declares.
fn children(
    root: &Path,
    node: &Node,
    outline: &Outline,
    queue: &mut Vec<Node>,
    (excludes, scan_tests): (&GlobSet, bool),
    out: &mut Resolved,
) {
    let at = |line: u32| Some(Pos { line, column: 1 });
    let errors = &mut out.errors;
    let skipped = &mut out.excluded;
    let files = &mut out.files;
    // A file that does not exist but matches `exclude` is counted as excluded, not an error;
    // one only test code needs is a test file (see [`resolve`]).
    let mut skip_excluded = |rels: &[&str], role: Role| {
        let hit = rels.iter().find(|r| excludes.is_match(r));
        if let Some(r) = hit {
            skipped.insert((*r).to_owned());
            return true;
        }
        if role == Role::Test && !scan_tests {
            files.entry(rels[0].to_owned()).or_insert(Role::Test);
            return true;
        }
        false
    };
    for decl in &outline.mods {
        let attrs = parse_attrs(&decl.attrs);
        let inline_attrs: Vec<Vec<Attribute>> =
            decl.inline.iter().map(|i| parse_attrs(&i.attrs)).collect();
        let test = node.role == Role::Test
            || is_cfg_test(&attrs)
            || inline_attrs.iter().any(|a| is_cfg_test(a));
        let role = if test { Role::Test } else { node.role };
        let gated = has_cfg(&attrs) || inline_attrs.iter().any(|a| has_cfg(a));
        let Some(base) = inline_dir(&node.mod_dir, &decl.inline, &inline_attrs) else {
            errors.push(error(
                &node.rel,
                at(decl.line),
                format!(
                    "the inline modules around `mod {}` point outside the scan root",
                    decl.name
                ),
            ));
            continue;
        };
        let from = if decl.inline.is_empty() {
            &node.file_dir
        } else {
            &base
        };
        // `#[cfg_attr(unix, path = "unix.rs")]`: each path a configuration may choose is linted,
        // as any configuration may be the one that ships. One whose file is missing is a
        // configuration that does not build; the module needs a file under one of them, or at
        // its plain path.
        let conditional = match cfg_attr_paths(&attrs) {
            Ok(c) => c,
            Err(message) => {
                errors.push(error(
                    &node.rel,
                    at(decl.line),
                    format!("`mod {}`: {message}", decl.name),
                ));
                continue;
            }
        };
        let mut chosen = Vec::new();
        for (path, test_only) in &conditional {
            match join_rel(from, path) {
                Some(rel) if present(root, &rel) => {
                    let role = if *test_only { Role::Test } else { role };
                    queue.push(Node::mod_rs(rel.clone(), role));
                    chosen.push(rel);
                }
                Some(rel) => chosen.push(rel),
                None => errors.push(error(
                    &node.rel,
                    at(decl.line),
                    format!(
                        "#[cfg_attr(.., path = \"{path}\")] of `mod {}` points outside the scan root",
                        decl.name
                    ),
                )),
            }
        }
        let covered = conditional.len() > chosen.len()
            || chosen.iter().any(|rel| present(root, rel))
            || gated
            || decl.in_macro;
        let also = if chosen.is_empty() {
            String::new()
        } else {
            format!(", nor any #[cfg_attr] path (`{}`)", chosen.join("`, `"))
        };
        if let Some(path) = path_attr(&attrs) {
            match join_rel(from, &path) {
                Some(rel) if present(root, &rel) => queue.push(Node::mod_rs(rel, role)),
                Some(_) if covered => {}
                Some(rel) if skip_excluded(&[&rel], role) => {}
                Some(rel) => errors.push(error(
                    &node.rel,
                    at(decl.line),
                    format!(
                        "`mod {}` has no file: #[path] names `{rel}`{also}",
                        decl.name
                    ),
                )),
                None => errors.push(error(
                    &node.rel,
                    at(decl.line),
                    format!(
                        "#[path = \"{path}\"] of `mod {}` points outside the scan root",
                        decl.name
                    ),
                )),
            }
            continue;
        }
        let flat = join_rel(&base, &format!("{}.rs", decl.name)).unwrap_or_default();
        let nested = join_rel(&base, &format!("{}/mod.rs", decl.name)).unwrap_or_default();
        match (present(root, &flat), present(root, &nested)) {
            (true, false) => queue.push(Node::non_mod_rs(flat, role)),
            (false, true) => queue.push(Node::mod_rs(nested, role)),
            (true, true) => errors.push(error(
                &node.rel,
                at(decl.line),
                format!(
                    "`mod {}` has a file at both `{flat}` and `{nested}`",
                    decl.name
                ),
            )),
            (false, false) if covered => {}
            (false, false) if skip_excluded(&[&flat, &nested], role) => {}
            (false, false) => errors.push(error(
                &node.rel,
                at(decl.line),
                format!(
                    "`mod {}` has no file: neither `{flat}` nor `{nested}` exists{also}",
                    decl.name
                ),
            )),
        }
    }
    for inc in &outline.includes {
        // `include!` reads relative to the including file; the text lands in the module where
        // the call is, so its own `mod`s resolve from there.
        let inline_attrs: Vec<Vec<Attribute>> =
            inc.inline.iter().map(|i| parse_attrs(&i.attrs)).collect();
        let own = parse_attrs(&inc.attrs);
        // A call under `#[cfg(..)]` (its own or an enclosing inline module's) is compiled only
        // in some configurations: its file need not exist, as a gated module's need not.
        // `#[cfg(test)]` is not such a gate: a file only tests need is a test file (below).
        let gated_by = |a: &[Attribute]| has_cfg(a) && !is_cfg_test(a);
        let gated = gated_by(&own) || inline_attrs.iter().any(|a| gated_by(a));
        // Inside `#[cfg(test)] mod fixtures { include!(..) }` the text is test code.
        let role = if is_cfg_test(&own) || inline_attrs.iter().any(|a| is_cfg_test(a)) {
            Role::Test
        } else {
            node.role
        };
        match join_rel(&node.file_dir, &inc.path) {
            Some(rel) if present(root, &rel) => {
                let mod_dir = inline_dir(&node.mod_dir, &inc.inline, &inline_attrs)
                    .unwrap_or_else(|| node.mod_dir.clone());
                queue.push(Node {
                    file_dir: parent(&rel),
                    rel,
                    role,
                    mod_dir,
                });
            }
            Some(rel) if skip_excluded(&[&rel], role) || gated => {}
            Some(rel) => errors.push(error(
                &node.rel,
                at(inc.line),
                format!(
                    "include!(\"{}\") has no file: `{rel}` does not exist",
                    inc.path
                ),
            )),
            None => errors.push(error(
                &node.rel,
                at(inc.line),
                format!("include!(\"{}\") points outside the scan root", inc.path),
            )),
        }
    }
}

/// The directory of modules declared inside inline `mod a { mod b { .. } }` blocks.
fn inline_dir(mod_dir: &str, inline: &[Inline], attrs: &[Vec<Attribute>]) -> Option<String> {
    let mut dir = mod_dir.to_owned();
    for (m, a) in inline.iter().zip(attrs) {
        let part = path_attr(a).unwrap_or_else(|| m.name.clone());
        dir = join_rel(&dir, &part)?;
    }
    Some(dir)
}

/// Whether a path exists as a directory entry (a dangling symlink counts: loading it fails).
fn present(root: &Path, rel: &str) -> bool {
    std::fs::symlink_metadata(root.join(rel)).is_ok()
}

/// Reads and outlines one file, failing closed on anything that keeps it from being linted.
pub(crate) fn load(root: &Path, rel: &str, max_file_size: u64) -> Result<Outline, FileError> {
    let text = read_checked(root, rel, max_file_size)?;
    outline::outline(&text).map_err(|b| error(rel, b.pos(), b.message()))
}

/// The error of a file over the parse's token bound, if it is (taken from its outline).
pub(crate) fn too_large(rel: &str, outline: &mut Outline) -> Option<FileError> {
    let bound = outline.too_large.take()?;
    Some(error(rel, bound.pos(), bound.message()))
}

/// Reads a regular file of at most `max_file_size` bytes as UTF-8.
pub(crate) fn read_checked(
    root: &Path,
    rel: &str,
    max_file_size: u64,
) -> Result<String, FileError> {
    let path = root.join(rel);
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) => {
            let dangling = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink());
            let message = if dangling {
                "dangling symlink".to_owned()
            } else {
                format!("cannot read: {}", crate::walk::io_message(&e))
            };
            return Err(error(rel, None, message));
        }
    };
    if !meta.is_file() {
        return Err(error(rel, None, "not a regular file".to_owned()));
    }
    if meta.len() > max_file_size {
        return Err(error(
            rel,
            None,
            format!(
                "{} bytes, over max-file-size ({max_file_size}); raise max-file-size or exclude the file",
                meta.len()
            ),
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| {
        error(
            rel,
            None,
            format!("cannot read: {}", crate::walk::io_message(&e)),
        )
    })?;
    String::from_utf8(bytes).map_err(|_| error(rel, None, "not valid UTF-8".to_owned()))
}

fn error(file: &str, pos: Option<Pos>, message: String) -> FileError {
    FileError {
        file: file.to_owned(),
        pos,
        message,
    }
}

/// Attributes from their source text; text syn cannot read is dropped.
fn parse_attrs(texts: &[String]) -> Vec<Attribute> {
    use syn::parse::Parser;
    texts
        .iter()
        .filter_map(|t| {
            if t.starts_with("#!") {
                Attribute::parse_inner.parse_str(t).ok()
            } else {
                Attribute::parse_outer.parse_str(t).ok()
            }
        })
        .flatten()
        .collect()
}

/// `#[path = "…"]`.
pub(crate) fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The paths of `#[cfg_attr(pred, path = "…")]` (also nested: `cfg_attr(a, cfg_attr(b, path =
/// "…"))`), each with whether its predicate holds only under `cfg(test)`.
fn cfg_attr_paths(attrs: &[Attribute]) -> Result<Vec<(String, bool)>, String> {
    /// Deeper `cfg_attr(a, cfg_attr(b, ..))` nesting fails closed rather than be dropped.
    const MAX_DEPTH: u8 = 16;
    fn walk(
        tokens: proc_macro2::TokenStream,
        test: bool,
        depth: u8,
        out: &mut Vec<(String, bool)>,
    ) -> Result<(), String> {
        use proc_macro2::TokenTree;
        // The predicate and each attribute, split at top-level commas: a predicate need not be
        // a `Meta` (`cfg_attr(true, ..)`).
        let mut parts: Vec<proc_macro2::TokenStream> = vec![proc_macro2::TokenStream::new()];
        for tt in tokens {
            match &tt {
                TokenTree::Punct(p) if p.as_char() == ',' => {
                    parts.push(proc_macro2::TokenStream::new());
                }
                _ => {
                    if let Some(last) = parts.last_mut() {
                        last.extend([tt]);
                    }
                }
            }
        }
        let mut parts = parts.into_iter().filter(|p| !p.is_empty());
        let Some(pred) = parts.next() else {
            return Ok(());
        };
        let test = test || syn::parse2::<Meta>(pred).is_ok_and(|m| cfg_is_test(&m));
        for part in parts {
            match syn::parse2::<Meta>(part) {
                // A `path` that is not a string literal does not compile where its predicate
                // holds: no configuration that builds chooses it.
                Ok(Meta::NameValue(nv)) if nv.path.is_ident("path") => {
                    if let Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) = &nv.value
                    {
                        out.push((s.value(), test));
                    }
                }
                Ok(Meta::List(l)) if l.path.is_ident("cfg_attr") => {
                    if depth >= MAX_DEPTH {
                        return Err(format!(
                            "#[cfg_attr] nested more than {MAX_DEPTH} deep around a module"
                        ));
                    }
                    walk(l.tokens, test, depth + 1, out)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for a in attrs {
        if let Meta::List(l) = &a.meta
            && l.path.is_ident("cfg_attr")
        {
            walk(l.tokens.clone(), false, 0, &mut out)?;
        }
    }
    Ok(out)
}

/// Any `#[cfg(..)]`: rustc does not load a module whose cfg is false.
fn has_cfg(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg"))
}

/// `#[cfg(test)]`, also inside `all(..)`.
pub(crate) fn is_cfg_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && match &a.meta {
                Meta::List(list) => list.parse_args::<Meta>().is_ok_and(|m| cfg_is_test(&m)),
                _ => false,
            }
    })
}

/// Whether a cfg predicate holds only under `cfg(test)`: `test`, `all(.., test, ..)`, or
/// `any(..)` of such predicates. The engine judges inline test code with the same rule.
pub(crate) fn cfg_is_test(m: &Meta) -> bool {
    match m {
        Meta::Path(p) => p.is_ident("test"),
        Meta::List(l) => {
            let Ok(items) = l.parse_args_with(
                syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
            ) else {
                return false;
            };
            if l.path.is_ident("all") {
                items.iter().any(cfg_is_test)
            } else if l.path.is_ident("any") {
                !items.is_empty() && items.iter().all(cfg_is_test)
            } else {
                false
            }
        }
        Meta::NameValue(_) => false,
    }
}

/// The directory part of a root-relative path (`""` at the root).
fn parent(rel: &str) -> String {
    rel.rsplit_once('/')
        .map(|(d, _)| d.to_owned())
        .unwrap_or_default()
}

/// `tail` joined to the root-relative directory `base`, lexically normalised; `None` if it is
/// absolute or climbs out of the scan root.
pub(crate) fn join_rel(base: &str, tail: &str) -> Option<String> {
    if tail.starts_with('/') || tail.starts_with('\\') || Path::new(tail).is_absolute() {
        return None;
    }
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in tail.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_refuses_to_climb_out() {
        assert_eq!(join_rel("a/b", "c.rs").as_deref(), Some("a/b/c.rs"));
        assert_eq!(join_rel("a/b", "../c.rs").as_deref(), Some("a/c.rs"));
        assert_eq!(join_rel("", "./x/./y.rs").as_deref(), Some("x/y.rs"));
        assert_eq!(join_rel("a", "../../x.rs"), None);
        assert_eq!(join_rel("a", "/etc/x.rs"), None);
    }

    #[test]
    fn module_directories() {
        let n = Node::non_mod_rs("src/a/foo.rs".into(), Role::Production);
        assert_eq!(
            (n.mod_dir.as_str(), n.file_dir.as_str()),
            ("src/a/foo", "src/a")
        );
        let n = Node::mod_rs("src/lib.rs".into(), Role::Production);
        assert_eq!(n.mod_dir, "src");
    }

    #[test]
    fn cfg_test_attributes() {
        let attrs = parse_attrs(&[
            "#[cfg(all(test, feature = \"x\"))]".to_owned(),
            "#[path = \"p.rs\"]".to_owned(),
        ]);
        assert!(is_cfg_test(&attrs));
        assert_eq!(path_attr(&attrs).as_deref(), Some("p.rs"));
        assert!(!is_cfg_test(&parse_attrs(&["#[cfg(unix)]".to_owned()])));
        assert!(is_cfg_test(&parse_attrs(&["#![cfg(test)]".to_owned()])));
    }

    #[test]
    fn cfg_attr_paths_are_every_path_a_configuration_may_choose() {
        let attrs = parse_attrs(&[
            "#[cfg_attr(unix, path = \"unix.rs\")]".to_owned(),
            "#[cfg_attr(all(test, unix), path = \"fake.rs\", allow(dead_code))]".to_owned(),
            "#[cfg_attr(a, cfg_attr(not(b), path = \"nested.rs\"))]".to_owned(),
            "#[cfg_attr(windows, doc = \"x\")]".to_owned(),
            "#[path = \"plain.rs\"]".to_owned(),
        ]);
        assert_eq!(
            cfg_attr_paths(&attrs).expect("paths"),
            [
                ("unix.rs".to_owned(), false),
                ("fake.rs".to_owned(), true),
                ("nested.rs".to_owned(), false),
            ]
        );
        assert_eq!(path_attr(&attrs).as_deref(), Some("plain.rs"));
        // A predicate that is no `Meta` (`true`) still gives its path.
        let attrs = parse_attrs(&["#[cfg_attr(true, path = \".gen/t.rs\")]".to_owned()]);
        assert_eq!(
            cfg_attr_paths(&attrs).expect("paths"),
            [(".gen/t.rs".to_owned(), false)]
        );
        // Nesting past the bound fails closed; a path that is not a string is no path.
        let deep = format!(
            "#[{}path = \"t.rs\"{}]",
            "cfg_attr(unix, ".repeat(18),
            ")".repeat(18)
        );
        assert!(cfg_attr_paths(&parse_attrs(&[deep])).is_err());
        let bad = "#[cfg_attr(any(), path = concat!(\"t\", \".rs\"))]".to_owned();
        assert_eq!(cfg_attr_paths(&parse_attrs(&[bad])), Ok(Vec::new()));
    }
}
