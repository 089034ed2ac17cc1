//! `use` renames, so a logging macro imported under another name is still a sink:
//! `use tracing::info as note;`, `use tracing::{info as i, warn}`, `use log as l;`,
//! `extern crate tracing as t;`. Renames are scoped like the items that declare them: a file's or
//! an inline module's, and a block's (a function body's) for the calls inside it.

use syn::{Item, UseTree};

/// How many renames a path is followed through (`use tracing as t; use t::info as n;`).
const MAX_HOPS: usize = 8;
/// Deepest `use` tree nesting read (`use a::{b::{c as d}}`).
const MAX_TREE_DEPTH: usize = 32;

/// The renames in scope, innermost scope last.
#[derive(Default)]
pub(super) struct Imports {
    scopes: Vec<Vec<(String, String)>>,
}

impl Imports {
    /// Opens a scope holding the renames these items declare.
    pub(super) fn push<'a>(&mut self, items: impl Iterator<Item = &'a Item>) {
        self.scopes.push(renames(items));
    }

    /// Opens a scope holding these renames (`(alias, full path)`, as [`renames`] gives them).
    pub(super) fn push_renames(&mut self, renames: Vec<(String, String)>) {
        self.scopes.push(renames);
    }

    pub(super) fn pop(&mut self) {
        self.scopes.pop();
    }

    /// A macro or attribute path with its first segment resolved through the renames in scope
    /// (`note` → `tracing::info`, `l::info` → `log::info`), or `None` if no rename applies.
    pub(super) fn resolve(&self, path: &str) -> Option<String> {
        if path.starts_with("::") || self.scopes.iter().all(Vec::is_empty) {
            return None;
        }
        let mut cur = path.to_owned();
        let mut changed = false;
        for _ in 0..MAX_HOPS {
            let (first, rest) = match cur.split_once("::") {
                Some((f, r)) => (f, Some(r)),
                None => (cur.as_str(), None),
            };
            let Some(target) = self
                .scopes
                .iter()
                .rev()
                .flat_map(|s| s.iter().rev())
                .find(|(alias, _)| alias == first)
                .map(|(_, target)| target)
            else {
                break;
            };
            // `use tracing::info as info;` (or `use x::{self}`) is not a rename.
            if target == first {
                break;
            }
            let next = match rest {
                Some(r) => format!("{target}::{r}"),
                None => target.clone(),
            };
            cur = next;
            changed = true;
        }
        changed.then_some(cur)
    }
}

/// The renames these items declare: `(alias, full path)`.
pub(super) fn renames<'a>(items: impl Iterator<Item = &'a Item>) -> Vec<(String, String)> {
    let mut renames = Vec::new();
    for item in items {
        match item {
            Item::Use(u) => collect(&u.tree, &mut Vec::new(), &mut renames, 0),
            Item::ExternCrate(e) => {
                if let Some((_, alias)) = &e.rename {
                    renames.push((alias.to_string(), e.ident.to_string()));
                }
            }
            _ => {}
        }
    }
    renames
}

/// The renames in one `use` tree: `(alias, full path)`.
fn collect(
    tree: &UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(String, String)>,
    depth: usize,
) {
    if depth > MAX_TREE_DEPTH {
        return;
    }
    let full = |prefix: &[String], last: &str| {
        let mut p: Vec<&str> = prefix.iter().map(String::as_str).collect();
        if last != "self" {
            p.push(last);
        }
        p.join("::")
    };
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            collect(&p.tree, prefix, out, depth + 1);
            prefix.pop();
        }
        UseTree::Rename(r) => {
            let alias = r.rename.to_string();
            if alias != "_" {
                out.push((alias, full(prefix, &r.ident.to_string())));
            }
        }
        UseTree::Group(g) => {
            for t in &g.items {
                collect(t, prefix, out, depth + 1);
            }
        }
        UseTree::Name(_) | UseTree::Glob(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imports(src: &str) -> Imports {
        let file = syn::parse_file(src).unwrap();
        let mut i = Imports::default();
        i.push(file.items.iter());
        i
    }

    #[test]
    fn follows_renames() {
        let i = imports(
            "use tracing::info as note; use ::log::{self as l, warn as w}; \
             use tracing as t; use t::error as oops; extern crate tracing as tr; use x::y as _;",
        );
        assert_eq!(i.resolve("note").as_deref(), Some("tracing::info"));
        assert_eq!(i.resolve("l::info").as_deref(), Some("log::info"));
        assert_eq!(i.resolve("w").as_deref(), Some("log::warn"));
        assert_eq!(i.resolve("oops").as_deref(), Some("tracing::error"));
        assert_eq!(i.resolve("tr::event").as_deref(), Some("tracing::event"));
        assert_eq!(i.resolve("info"), None);
        assert_eq!(i.resolve("::note"), None);
    }

    #[test]
    fn a_rename_cycle_ends() {
        let i = imports("use a as b; use b as a;");
        assert!(i.resolve("a::m").is_some());
    }
}
