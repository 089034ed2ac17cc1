//! The lint's parallel pass, in two phases on the same threads.
//!
//! 1. Each worker takes files one at a time from a shared counter, parses one, indexes its items
//!    and lints it at once with that file's own index, while its tree is hot in the cache; it
//!    notes the names the lint asked the index for and did not find, and drops the tree.
//! 2. The per-file indexes merge, and so do the files' `macro_rules!`. A file whose missed names
//!    the merged index resolves for its crate (a type from another file or crate), or that calls
//!    a macro only another file defines, is linted once more, with the merged index and those
//!    macros; the others keep their first result, which neither can change. A name defined
//!    nowhere, or twice where the file looks (two crates' `type Result`), resolves no better
//!    than before. Only the type-dependent verdicts are deferred: in the second lint of a file
//!    of one chunk that calls no other file's macro, a function none of whose own misses the
//!    merged index resolves is not walked again; its first findings and counts are taken over.
//!
//! A file whose misses no item of the scan may define (by the names the resolver's lexer saw,
//! [`ItemNames`]) needs no second lint and is finished at once: a miss is often another
//! crate's type (`HashMap`, `PgPool`), and keeping such a tree only costs memory.
//!
//! A file that may need the second lint keeps its tree for it, as long as the worker's kept
//! trees stay within [`KEEP_BUDGET`] bytes of source (a tree is about 100 times its source):
//! parsing it again cost as much as the first parse, a third of the whole scan on real code.
//! Beyond the budget, and for a file parsed in chunks, the tree is dropped and the file parsed
//! again from its text, so memory stays bounded. syn trees are not `Send`: a tree stays on the
//! worker that parsed it, which is also the one that lints it again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use super::spans::{self, Hold};
use super::{Collected, FileLint, Parsed, Pass, foreign_macros};

/// Bytes of source whose trees one worker keeps for the second lint (see the module docs).
pub(super) const KEEP_BUDGET: usize = 2 << 20;

/// A file kept for the second lint: its tree, whose spans must stay readable until then, or
/// only its text beyond the budget.
enum Kept {
    Tree(Parsed, Hold),
    Text(String),
}
use crate::finding::FileError;
use crate::resolve::outline::ItemNames;
use crate::types::{Misses, TypeIndex, crate_of};

/// Runs `parse` on every file and then `lint` on every parsed file, on all cores, keeping up to
/// `keep_budget` bytes of trees per worker (see [`KEEP_BUDGET`]); the results are in the order
/// of `files`, and do not depend on the budget or on which worker took which file.
pub(super) fn run<P, R, L>(
    files: &[(PathBuf, String)],
    (stack_size, keep_budget): (usize, usize),
    defined: Option<&ItemNames>,
    parse: P,
    reparse: R,
    (lint, finish): (L, fn(&Parsed, Collected) -> FileLint),
) -> Vec<Result<FileLint, FileError>>
where
    P: Fn((&PathBuf, &String)) -> Result<Parsed, FileError> + Sync,
    R: Fn(&str, String) -> Result<Parsed, FileError> + Sync,
    L: Fn(&Parsed, &TypeIndex, Pass<'_>, &Macros) -> Collected + Sync,
{
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    let gate = Gate {
        state: Mutex::new(GateState {
            arrived: 0,
            expected: threads,
            indexes: Vec::new(),
            macros: HashMap::new(),
        }),
        opened: Condvar::new(),
        merged: OnceLock::new(),
    };
    let worker = || -> Vec<(usize, Result<FileLint, FileError>)> {
        let mut done: Vec<(usize, Result<FileLint, FileError>)> = Vec::new();
        // Files to lint again if the merged index knows what they missed or another file
        // defines a macro they call: (index in `done`, tree or text, missed names, the first
        // lint's result, not yet finished).
        let mut again: Vec<(usize, Kept, Vec<String>, Collected)> = Vec::new();
        let mut kept_bytes = 0;
        // This worker's files' indexes, merged as they come.
        let mut local = TypeIndex::default();
        let mut local_macros: Vec<(usize, Vec<(String, String)>)> = Vec::new();
        // While the worker keeps a tree (`Kept::Tree`'s `Hold`), the spans of its parses must
        // stay readable; otherwise the texts parsed so far are forgotten before each file.
        spans::own();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some((path, rel)) = files.get(i) else {
                break;
            };
            spans::forget();
            let first = catch_unwind(AssertUnwindSafe(|| {
                let mut parsed = parse((path, rel))?;
                let own = parsed.take_index();
                let index = TypeIndex::of_file(&own);
                let misses = RefCell::new(Misses::default());
                let out = lint(&parsed, &index, Pass::First(&misses), &HashMap::new());
                let mut misses = misses.into_inner().into_names();
                misses.sort_unstable();
                misses.dedup();
                Ok((out, own, misses, parsed))
            }))
            .unwrap_or_else(|_| Err(panicked(rel)));
            match first {
                Ok((out, own, misses, parsed)) => {
                    local.add_file(own);
                    if !out.macro_defs().is_empty() {
                        local_macros.push((i, out.macro_defs().to_vec()));
                    }
                    if !may_change(&misses, &out.wanted, defined) {
                        done.push((i, Ok(finish(&parsed, out))));
                        continue;
                    }
                    let kept = if parsed.chunks.len() == 1
                        && kept_bytes + parsed.text.len() <= keep_budget
                    {
                        kept_bytes += parsed.text.len();
                        Kept::Tree(parsed, Hold::new())
                    } else {
                        // The first result is finished now, while the tree is at hand.
                        let text = parsed.text.clone();
                        done.push((i, Ok(finish(&parsed, out))));
                        again.push((
                            done.len() - 1,
                            Kept::Text(text),
                            misses,
                            Collected::default(),
                        ));
                        continue;
                    };
                    // Placeholder, replaced below.
                    done.push((i, Ok(FileLint::default())));
                    again.push((done.len() - 1, kept, misses, out));
                }
                Err(e) => done.push((i, Err(e))),
            }
        }
        let merged = gate.arrive(local, local_macros);
        // The kept trees first: once they are done, the files parsed again from their text
        // can forget each chunk's spans as they go.
        again.sort_by_key(|(_, kept, ..)| matches!(kept, Kept::Text(_)));
        for (at, kept, misses, mut first) in again {
            spans::forget();
            let i = done[at].0;
            let rel = &files[i].1;
            let wanted = match &kept {
                Kept::Tree(..) => first.wanted.clone(),
                Kept::Text(_) => done[at]
                    .1
                    .as_ref()
                    .map(|f| f.wanted.clone())
                    .unwrap_or_default(),
            };
            let foreign = foreign_macros(i, &wanted, &merged.macros);
            let types_matter = merged.types.resolves_any(crate_of(rel), &misses);
            if foreign.is_empty() && !types_matter && matches!(kept, Kept::Text(_)) {
                continue;
            }
            let result = catch_unwind(AssertUnwindSafe(|| match kept {
                Kept::Tree(p, _hold) if foreign.is_empty() && !types_matter => {
                    Ok(finish(&p, first))
                }
                Kept::Tree(p, _hold) => {
                    mark_dependent(&mut first, &merged.types, crate_of(rel));
                    let reuse = foreign.is_empty().then_some(&first);
                    let second = lint(&p, &merged.types, Pass::Final(reuse), &foreign);
                    Ok(finish(&p, second))
                }
                Kept::Text(text) => reparse(rel, text).map(|p| {
                    let second = lint(&p, &merged.types, Pass::Final(None), &foreign);
                    finish(&p, second)
                }),
            }))
            .unwrap_or_else(|_| Err(panicked(rel)));
            done[at].1 = result;
        }
        done
    };
    let mut results: Vec<Option<Result<FileLint, FileError>>> =
        (0..files.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(stack_size)
                    .spawn_scoped(s, worker)
            })
            .collect();
        for h in &handles {
            if h.is_err() {
                gate.leave();
            }
        }
        for h in handles {
            // A worker that cannot start or panics leaves its files unlinted, which the
            // caller reports as errors below; the scan never passes silently.
            if let Ok(h) = h
                && let Ok(done) = h.join()
            {
                for (i, r) in done {
                    results[i] = Some(r);
                }
            }
        }
    });
    files
        .iter()
        .zip(results)
        .map(|((_, rel), r)| {
            r.unwrap_or_else(|| {
                Err(FileError {
                    file: rel.clone(),
                    pos: None,
                    message: "cannot lint: a worker thread failed".into(),
                })
            })
        })
        .collect()
}

/// Whether the merged index or another file's macros may change a first lint that missed
/// `misses` and called the macros `wanted`: not if it missed nothing, nor if no item of the scan
/// may define what it missed (`defined`, when known).
fn may_change(misses: &[String], wanted: &[String], defined: Option<&ItemNames>) -> bool {
    let all = || misses.iter().chain(wanted);
    all().next().is_some() && defined.is_none_or(|d| all().any(|m| d.could_define(m)))
}

/// Marks the functions of a first lint (of a file of crate `krate`) whose verdicts the merged
/// index can change: those that missed a name it resolves, and any whose key is not unique.
fn mark_dependent(first: &mut Collected, types: &TypeIndex, krate: &str) {
    let mut seen = std::collections::HashSet::new();
    for r in &first.functions {
        if !seen.insert(r.body) || types.resolves_any(krate, &r.misses) {
            first.dependent.insert(r.body);
        }
    }
}

fn panicked(rel: &str) -> FileError {
    FileError {
        file: rel.to_owned(),
        pos: None,
        message: "cannot lint: the linter panicked on this file".into(),
    }
}

/// Macros by name: the text of the rules of each definition.
pub(super) type Macros = HashMap<String, Vec<String>>;

/// Where the workers wait for each other between the phases; the last to arrive merges.
struct Gate {
    state: Mutex<GateState>,
    opened: Condvar,
    merged: OnceLock<Merged>,
}

struct GateState {
    arrived: usize,
    expected: usize,
    /// Each worker's files' indexes, merged.
    indexes: Vec<TypeIndex>,
    /// `macro_rules!` by name: the files defining one and the text of its rules.
    macros: HashMap<String, Vec<(usize, String)>>,
}

/// What every file of the scan contributes, merged.
#[derive(Default)]
struct Merged {
    types: TypeIndex,
    macros: HashMap<String, Vec<(usize, String)>>,
}

impl Gate {
    /// Hands in a worker's indexes and macros and waits until every worker has; returns them
    /// merged.
    fn arrive(&self, local: TypeIndex, macros: Vec<(usize, Vec<(String, String)>)>) -> &Merged {
        let mut st = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        st.indexes.push(local);
        for (i, defs) in macros {
            for (name, text) in defs {
                st.macros.entry(name).or_default().push((i, text));
            }
        }
        st.arrived += 1;
        self.open_if_complete(&mut st);
        while self.merged.get().is_none() {
            st = self
                .opened
                .wait(st)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        drop(st);
        self.merged.get_or_init(Merged::default)
    }

    /// A worker that never started: the others must not wait for it.
    fn leave(&self) {
        let mut st = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        st.expected -= 1;
        self.open_if_complete(&mut st);
    }

    fn open_if_complete(&self, st: &mut GateState) {
        if st.arrived >= st.expected && self.merged.get().is_none() {
            let mut macros = std::mem::take(&mut st.macros);
            // The definitions' order must not depend on which worker arrived first.
            for defs in macros.values_mut() {
                defs.sort_unstable();
            }
            let _ = self.merged.set(Merged {
                types: TypeIndex::combine(std::mem::take(&mut st.indexes)),
                macros,
            });
            self.opened.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use super::super::{collect, finish, parse_text};
    use crate::classify::NameCache;
    use crate::config::Config;
    use crate::rules::Rule;

    /// Lints in-memory files through both phases.
    fn lint(files: &[(&str, &str)]) -> Vec<super::FileLint> {
        lint_keeping(files, super::KEEP_BUDGET)
    }

    /// Lints in-memory files through both phases, keeping up to `budget` bytes of trees.
    fn lint_keeping(files: &[(&str, &str)], budget: usize) -> Vec<super::FileLint> {
        let config = Config::default();
        let names = config.name_policy();
        let texts: HashMap<String, String> = files
            .iter()
            .map(|(rel, text)| ((*rel).to_owned(), (*text).to_owned()))
            .collect();
        let list: Vec<(PathBuf, String)> = files
            .iter()
            .map(|(rel, _)| (PathBuf::from(rel), (*rel).to_owned()))
            .collect();
        let mut defined = super::ItemNames::default();
        for (_, text) in files {
            defined.add(crate::resolve::outline::outline(text).expect("in bounds"));
        }
        super::run(
            &list,
            (8 << 20, budget),
            Some(&defined),
            |(_, rel)| parse_text(rel, texts[rel].clone()),
            parse_text,
            (
                |parsed: &super::Parsed,
                 index: &super::TypeIndex,
                 pass,
                 foreign: &super::Macros| {
                    collect(
                        &config,
                        (&names, &NameCache::default()),
                        parsed,
                        false,
                        (index, pass),
                        foreign,
                    )
                },
                finish,
            ),
        )
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{}", e.message)))
        .collect()
    }

    #[test]
    fn a_first_lint_changes_only_if_some_item_may_define_what_it_missed() {
        let defined = {
            let mut d = super::ItemNames::default();
            let text = "pub struct User; impl Display for User { fn fmt() {} }\n\
                        macro_rules! audit { () => {} }";
            d.add(crate::resolve::outline::outline(text).expect("in bounds"));
            d
        };
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
        let may =
            |misses: &[&str], wanted: &[&str], d| super::may_change(&s(misses), &s(wanted), d);
        assert!(!may(&[], &[], Some(&defined)));
        assert!(!may(&[], &[], None));
        assert!(may(&["User"], &[], Some(&defined)));
        assert!(may(&["User::fmt"], &[], Some(&defined)));
        assert!(may(&["Page", "r#User"], &[], Some(&defined)));
        assert!(may(&[], &["audit"], Some(&defined)));
        // Without the names, any miss may change it.
        assert!(may(&["Page"], &[], None));
        // Names no item defines: another crate's type and method, a method of a type no
        // `impl` names, a method no `fn` defines, a macro nobody defines.
        assert!(!may(
            &["HashMap", "HashMap::new", "Page::fmt", "User::new"],
            &["info"],
            Some(&defined)
        ));
    }

    /// A name the merged index still cannot resolve for the file's crate (defined twice, or
    /// nowhere) leaves the first verdicts as they were; one it resolves may change them.
    #[test]
    fn only_names_the_merged_index_resolves_may_change_a_verdict() {
        let index = |rel, text| crate::types::index_file(rel, &syn::parse_file(text).unwrap());
        let merged = super::TypeIndex::merge([
            index(
                "a/src/x.rs",
                "type Result<T> = std::result::Result<T, E1>; pub struct User { id: u64 }",
            ),
            index("a/src/y.rs", "type Result<T> = std::result::Result<T, E2>;"),
            index(
                "b/src/z.rs",
                "pub struct Page; fn helper() -> u8 { 0 } impl Page { fn n() -> u8 { 0 } }",
            ),
            index(
                "c/src/w.rs",
                "use std::fmt::Write as _; use b::Page as Sheet;",
            ),
        ]);
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
        let resolves = |krate, names: &[&str]| merged.resolves_any(krate, &s(names));
        assert!(!resolves("a", &["Result"]), "ambiguous in its crate");
        assert!(resolves("a", &["User"]));
        assert!(resolves("a", &["Page"]), "one definition in the workspace");
        assert!(resolves("a", &["Page::n"]));
        assert!(resolves("a", &["helper"]));
        assert!(resolves("c", &["Sheet"]), "the crate's own rename");
        assert!(!resolves("a", &["Sheet"]), "renames stay in their crate");
        assert!(!resolves(
            "a",
            &["HashMap", "HashMap::new", "Page::m", "nothing"]
        ));
        assert!(resolves("c", &["@Page"]), "another crate defines it");
        assert!(!resolves("b", &["@Page"]), "only the file's own crate does");
    }

    /// Workers merge their own files' indexes and the gate combines those: whatever the grouping
    /// and order, every lookup is answered as by the merge of all the files.
    #[test]
    fn combined_partial_indexes_answer_as_the_merge_of_all() {
        let index = |rel, text| crate::types::index_file(rel, &syn::parse_file(text).unwrap());
        let files = || {
            vec![
                index(
                    "a/src/x.rs",
                    "type Result<T> = std::result::Result<T, E1>; pub struct User { id: u64 }\n\
                     impl User { fn name(&self) -> String { todo!() } } const MAX: u8 = 1;",
                ),
                index(
                    "a/src/y.rs",
                    "type Result<T> = std::result::Result<T, E2>; struct Id(u64);",
                ),
                index(
                    "b/src/z.rs",
                    "pub struct User { id: u64 } pub struct Page; fn helper() -> Page { todo!() }\n\
                     impl Page { fn n(&self) -> usize { 0 } } const MAX: u16 = 2;",
                ),
                index(
                    "b/src/w.rs",
                    "pub struct Page; use b::Page as Sheet; struct Id(u64);",
                ),
                index(
                    "c/src/v.rs",
                    "impl User { fn name(&self) -> u32 { 0 } } use x::Y as Z;",
                ),
            ]
        };
        let all = super::TypeIndex::merge(files());
        let names = [
            "Result", "User", "Id", "Page", "Sheet", "Z", "MAX", "Nothing",
        ];
        let groupings: [&[&[usize]]; 4] = [
            &[&[0, 1, 2, 3, 4]],
            &[&[0, 1], &[2, 3, 4]],
            &[&[4, 2], &[0], &[3, 1]],
            &[&[3], &[1, 4], &[], &[2, 0]],
        ];
        for grouping in groupings {
            let mut each: Vec<Option<crate::types::FileIndex>> =
                files().into_iter().map(Some).collect();
            let parts = grouping.iter().map(|group| {
                let mut part = super::TypeIndex::default();
                for &i in *group {
                    part.add_file(each[i].take().expect("each file once"));
                }
                part
            });
            let combined = super::TypeIndex::combine(parts.collect::<Vec<_>>());
            for file in ["a/src/q.rs", "b/src/q.rs", "c/src/q.rs", "d/src/q.rs"] {
                let (x, y) = (all.view(file, None, None), combined.view(file, None, None));
                for n in names {
                    assert_eq!(x.def(n), y.def(n), "{grouping:?} {file} {n}");
                    assert_eq!(x.function(n), y.function(n), "{grouping:?} {file} {n}");
                    for m in ["name", "n"] {
                        assert_eq!(x.method(n, m), y.method(n, m), "{grouping:?} {file} {n}");
                    }
                    let krate = crate::types::crate_of(file);
                    let one = [n.to_owned()];
                    assert_eq!(
                        all.resolves_any(krate, &one),
                        combined.resolves_any(krate, &one),
                        "{grouping:?} {file} {n}"
                    );
                }
                assert_eq!(x.function("helper"), y.function("helper"));
            }
        }
    }

    /// The first lint's index of one file answers every lookup from the file's crate as the merge
    /// of that file alone.
    #[test]
    fn a_files_own_index_answers_as_its_merge() {
        let text = "use other::Page as Sheet; type Id = u64; pub struct User { id: Id }\n\
                    enum Kind { A } const MAX: usize = 3; fn make() -> User { todo!() }\n\
                    impl User { fn name(&self) -> String { todo!() } }\n\
                    mod a { pub struct Twice(u8); } mod b { pub struct Twice(u16); }";
        let file = crate::types::index_file("app/src/lib.rs", &syn::parse_file(text).unwrap());
        let single = super::TypeIndex::of_file(&file);
        let merged = super::TypeIndex::merge([file]);
        let names = ["Sheet", "Page", "Id", "User", "Kind", "Twice", "Nothing"];
        for krate_file in ["app/src/lib.rs", "app/src/x.rs"] {
            let (a, b) = (
                single.view(krate_file, None, None),
                merged.view(krate_file, None, None),
            );
            for n in names {
                assert_eq!(a.def(n), b.def(n), "{krate_file} {n}");
                assert_eq!(a.method(n, "name"), b.method(n, "name"), "{krate_file} {n}");
            }
            assert_eq!(a.function("make"), b.function("make"));
            assert_eq!(a.constant("MAX"), b.constant("MAX"));
        }
        assert!(
            single
                .view("app/src/x.rs", None, None)
                .def("User")
                .is_some()
        );
        assert!(
            single
                .view("app/src/x.rs", None, None)
                .def("Twice")
                .is_none()
        );
    }

    #[test]
    fn only_functions_that_need_another_files_types_are_judged_again() {
        let a = "fn uses_user(u: User) { tracing::info!(id = %u.id); }\n\
                 fn own_types(p: Page) { tracing::info!(\"{}\", p.email); }\n\
                 fn nothing_missed(rows: &[u8]) { tracing::info!(count = rows.len()); }\n\
                 fn untouched() { let x = 1; }\n";
        let b = "pub struct User { pub id: String }\n";
        let out = lint(&[("src/a.rs", a), ("src/b.rs", b)]);
        let a = &out[0];
        // `u.id` is a `String` under an id name only once `User` (another file) is known.
        let rules: Vec<(u32, Rule)> = a.findings.iter().map(|f| (f.start.line, f.rule)).collect();
        assert_eq!(
            rules,
            [(1, Rule::Interpolation), (2, Rule::Interpolation)],
            "{:#?}",
            a.findings
        );
        assert!(
            a.findings[0].message.contains("free text"),
            "{}",
            a.findings[0].message
        );
        // Taken over from the first lint: `own_types` (its misses, `Page`, are defined
        // nowhere), `nothing_missed` and `untouched`; judged again: `uses_user`.
        assert_eq!(a.judged, 1);
        assert_eq!(a.statements, 3);
    }

    /// A type defined differently in two files of one crate is ambiguous in the merged index.
    /// A file that defines it itself must get the same verdicts whether its tree was kept
    /// (functions that missed nothing are taken over) or it is parsed and linted again whole
    /// (beyond the budget): the file's own definition answers in both.
    #[test]
    fn verdicts_do_not_depend_on_the_kept_tree_budget() {
        // `run` needs the merged index (`User` is another file's), so the file is linted twice.
        let importer = |extra: &str| {
            format!(
                "use std::time::Duration;\n\
                 pub struct Config {{ pub poll_interval: Duration }}\n\
                 pub struct Importer {{ {extra}: u32, config: Config }}\n\
                 impl Importer {{\n\
                     fn run(&self) {{ tracing::info!(interval = ?self.config.poll_interval); }}\n\
                     fn other(&self, u: User) {{ tracing::info!(id = %u.id); }}\n\
                 }}\n"
            )
        };
        let (a, b) = (importer("retries"), importer("shards"));
        let user = "pub struct User { pub id: String }\n";
        let files = [
            ("src/a.rs", a.as_str()),
            ("src/b.rs", b.as_str()),
            ("src/u.rs", user),
        ];
        let report = |budget| -> Vec<Vec<(u32, String, String)>> {
            lint_keeping(&files, budget)
                .iter()
                .map(|f| {
                    f.findings
                        .iter()
                        .map(|x| (x.start.line, x.rule.code().to_owned(), x.message.clone()))
                        .collect()
                })
                .collect()
        };
        let kept = report(super::KEEP_BUDGET);
        let reparsed = report(0);
        assert_eq!(kept, reparsed);
        // `self.config.poll_interval` is a `Duration` by the file's own `Importer`: no finding
        // on line 5; `u.id` (line 6) is judged with `User` from the merged index.
        for file in &kept[..2] {
            let lines: Vec<u32> = file.iter().map(|f| f.0).collect();
            assert_eq!(lines, [6], "{file:#?}");
        }
    }
}
