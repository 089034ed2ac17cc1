//! The lint itself: parse each file with syn, walk every item, expression and macro (and the
//! token streams of macros syn cannot see into), and check every value that reaches a log.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash as _, Hasher as _};
use std::path::Path;

use compact_str::CompactString;
use phi_filter::names::NamePolicy;
use proc_macro2::{LineColumn, Span, TokenStream};
use syn::spanned::Spanned;

use crate::classify::{Classifier, NameCache, Why};
use crate::config::Config;
use crate::finding::{FileError, Finding, Pos, assign_fingerprints};
use crate::grammar::{Interp, Sink, Value, parse_sink, sink_for, tokens_text};
use crate::resolve::outline::{BodyRun, QuietBody, Wrap};
use crate::rules::{self, Rule};
use crate::source::{SourceFile, pos};
use crate::suppress;
use crate::types::{FileIndex, Scope, TypeIndex, index_file};
use crate::walk::{Scan, io_message};

mod bodies;
pub(crate) use bodies::{STATEMENT_TOKENS, TABLE_BYTES, shebang_len};
mod expand;
mod formats;
mod imports;
mod instrument;
mod locals;
mod spans;
mod tokens;
mod two_phase;
mod visit;

pub(crate) use visit::{is_main_body, may_reach_a_sink, neutral_macros, renames_otel_key};
mod writers;

/// Stack size of the lint's worker threads.
const STACK_SIZE: usize = 64 << 20;

/// Files larger than this are parsed in chunks of about this size (whole top-level items).
const CHUNK_BYTES: usize = 256 << 10;

/// The chunk size of a file over twice [`CHUNK_BYTES`], which is cut into chunks whatever their
/// size: the tree of one chunk is the part of a large file's cost that does not shrink with it
/// (about 25 MB for 256 KiB of `fn aN() {}`, most of what a 3 MB file of them cost). A function
/// body is still cut into runs of about `CHUNK_BYTES`: each run carries the locals and closures
/// of the runs before it (5 MB of closures that log: 90 MB in runs of 256 KiB, 104 MB in runs
/// of 64 KiB).
const LARGE_FILE_CHUNK_BYTES: usize = 64 << 10;

/// What linting a set of files found, before the baseline is applied.
#[derive(Debug, Clone, Default)]
pub struct LintResult {
    /// Files linted (including those that failed to parse).
    pub files: usize,
    /// Logging statements checked.
    pub statements: usize,
    /// Findings, sorted by file and position, fingerprinted, none baselined yet.
    pub findings: Vec<Finding>,
    /// Files that could not be read or parsed.
    pub errors: Vec<FileError>,
    /// Suppression comments that suppressed at least one finding.
    pub suppressions: usize,
    /// Findings they suppressed.
    pub suppressed: usize,
}

/// The result of linting one file's text.
#[derive(Debug, Clone, Default)]
pub struct FileLint {
    /// Findings, in source order, fingerprinted.
    pub findings: Vec<Finding>,
    /// Logging statements checked.
    pub statements: usize,
    /// Suppression comments that suppressed at least one finding.
    pub suppressions: usize,
    /// Findings they suppressed.
    pub suppressed: usize,
    /// Files (`a/tests.rs`) and directories (`a/tests/`) of modules declared
    /// `#[cfg(test)] mod tests;` in this file: test code, unless `scan-tests` is set.
    pub test_modules: Vec<String>,
    /// Function bodies the lint that gave this result walked (the others were taken over from
    /// the file's first lint).
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests of the two phases
    pub(crate) judged: usize,
    /// Macros this file calls by bare name that it does not define and that are not sinks.
    pub(crate) wanted: Vec<String>,
    /// The names of the `macro_rules!` this file defines.
    pub(crate) macro_names: Vec<String>,
    /// Whether the file had more findings than `max-file-findings`, past which they were not
    /// kept: the report lists only the first ones, and the file is an error.
    pub truncated: bool,
}

/// Lints every file of a scan, in parallel on all cores; the output order is deterministic.
#[must_use]
pub fn lint(scan: &Scan) -> LintResult {
    let names = scan.config.name_policy();
    let run = NEXT_RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let quiet = |rel: &str| scan.quiet_bodies.get(rel).map_or(&[][..], Vec::as_slice);
    // Two phases on the same worker threads: each parses a file, indexes its items and lints
    // it at once with its own index; the indexes (and the files' `macro_rules!`) merge; a file
    // whose missed names the merged index defines, or that calls a macro another file defines,
    // is linted once more with both. syn trees are not `Send`, so they stay on their thread.
    let results = two_phase::run(
        &scan.files,
        (STACK_SIZE, two_phase::KEEP_BUDGET),
        Some(&scan.item_names),
        |(path, rel)| parse_path(path, rel, quiet(rel)),
        |rel, text| parse_quiet(rel, text, quiet(rel)),
        (
            |parsed: &Parsed,
             index: &TypeIndex,
             pass: Pass<'_>,
             foreign: &HashMap<String, Vec<String>>| {
                let build_script = scan.build_scripts.contains(&parsed.rel);
                with_name_cache(run, |cache| {
                    collect(
                        &scan.config,
                        (&names, cache),
                        parsed,
                        build_script,
                        (index, pass),
                        foreign,
                    )
                })
            },
            finish,
        ),
    );
    let mut out = LintResult {
        files: scan.files.len(),
        errors: scan.walk_errors.clone(),
        ..LintResult::default()
    };
    let test_modules: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .flat_map(|f| f.test_modules.iter().cloned())
        .collect();
    let project_macros: HashSet<String> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .flat_map(|f| f.macro_names.iter().cloned())
        .collect();
    let is_test_module = |file: &str| {
        test_modules
            .iter()
            .any(|m| file == m || (m.ends_with('/') && file.starts_with(m.as_str())))
    };
    // The findings are moved, not copied: a file with a finding on every line holds most of
    // them, and a second copy of its list would double what the run costs.
    let total: usize = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|f| f.findings.len())
        .sum();
    for ((_, rel), r) in scan.files.iter().zip(results) {
        match r {
            Ok(f) if !scan.config.scan_tests && is_test_module(rel) => {
                out.statements += f.statements;
            }
            Ok(mut f) => {
                if !project_macros.is_empty() {
                    crate::rules::error_message::fix::drop_project_macros(
                        &mut f.findings,
                        &project_macros,
                    );
                }
                if f.truncated {
                    let max = scan.config.max_file_findings();
                    out.errors.push(FileError {
                        file: rel.clone(),
                        pos: None,
                        message: format!(
                            "more than {max} findings (suppressed ones included), over max-file-findings; only {max} are reported; raise max-file-findings or exclude the file"
                        ),
                    });
                }
                out.statements += f.statements;
                out.suppressions += f.suppressions;
                out.suppressed += f.suppressed;
                if out.findings.is_empty() {
                    out.findings = f.findings;
                    out.findings.reserve_exact(total - out.findings.len());
                } else {
                    out.findings.extend(f.findings);
                }
            }
            Err(e) => out.errors.push(e),
        }
    }
    out
}

/// Numbers the runs of [`lint`], each with its own name policy.
static NEXT_RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// This worker's verdicts on names, with the run of [`lint`] they belong to.
    static NAME_CACHE: (std::cell::Cell<Option<u64>>, NameCache) = Default::default();
}

/// Calls `f` with this thread's name cache for `run`, emptied first if it holds another run's
/// verdicts (a thread that outlives a run, under another policy).
fn with_name_cache<T>(run: u64, f: impl FnOnce(&NameCache) -> T) -> T {
    NAME_CACHE.with(|(owner, cache)| {
        if owner.get() != Some(run) {
            owner.set(Some(run));
            cache.borrow_mut().clear();
        }
        f(cache)
    })
}

/// For a file that calls, by bare name, macros it does not define: the definitions other files
/// of the scan give them (name → the text of the rules of each), from `defs` (name → the files
/// defining it and the text).
pub(crate) fn foreign_macros(
    own: usize,
    wanted: &[String],
    defs: &HashMap<String, Vec<(usize, String)>>,
) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    for name in wanted {
        let Some(found) = defs.get(name.as_str()) else {
            continue;
        };
        if found.iter().any(|(file, _)| *file == own) {
            continue;
        }
        let texts = found.iter().map(|(_, text)| text.clone()).collect();
        out.insert(name.clone(), texts);
    }
    out
}

/// A file parsed in the first phase: its text, and the tree of each chunk of it.
///
/// A file of one chunk keeps its tree. A larger file keeps none: the trees of all its chunks
/// together are about 100 times its source, so each chunk is parsed, indexed and dropped, and
/// parsed again, one at a time, when the file is walked ([`Parsed::each_tree`]). Its index is
/// kept instead, built as the chunks were first parsed.
pub(crate) struct Parsed {
    rel: String,
    text: String,
    chunks: Vec<Chunk>,
    /// For a file of more than one chunk: what parsing a chunk again needs.
    streamed: Option<Box<Streamed>>,
    /// Whether the file renames an OpenTelemetry `KeyValue`, so that no body of any of its
    /// chunks is emptied (searched once per file: once per chunk was quadratic).
    walk_all: bool,
}

/// A run of whole top-level items of a file (or of an inline module's items, see
/// [`ChunkSpec`](crate::resolve::outline::ChunkSpec)), parsed on its own.
struct Chunk {
    range: std::ops::Range<usize>,
    /// Lines of the file before the chunk (before its module's header, if wrapped).
    lines_before: u32,
    /// The module the chunk is cut from, if it is.
    wrap: Option<Wrap>,
    /// Characters of its first line before the chunk, parsed as spaces.
    pad: usize,
    /// The tree, in a file of one chunk.
    file: Option<syn::File>,
}

impl Chunk {
    /// The text parsed for this chunk: its slice of `text`, under its module's header if it is
    /// wrapped, where every line and column is the file's, `lines_before` lines down.
    fn source<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        crate::resolve::outline::chunk_source(text, &self.range, self.wrap.as_ref(), self.pad)
    }

    /// Where the file's byte `at` (inside the chunk) is in [`source`](Self::source).
    fn offset(&self, at: usize) -> usize {
        let before = self.wrap.as_ref().map_or(self.pad, Wrap::before);
        at - self.range.start + before
    }

    /// The run of a function body this chunk is, if it is one.
    fn body_run(&self) -> Option<BodyRun> {
        self.wrap.as_ref().and_then(|w| w.body)
    }
}

/// A file of many chunks: the text with its quiet bodies blanked, their ranges, the index of
/// the whole file (until the first phase takes it), and what each chunk must see of the others.
struct Streamed {
    blanked: Option<String>,
    quiet: Vec<(usize, usize)>,
    index: Option<FileIndex>,
    /// The `use` renames of every chunk's top-level items: `(alias, full path)`.
    renames: Vec<(String, String)>,
    /// The `macro_rules!` of every chunk: the chunk's number, the name, the text of its rules.
    macros: Vec<(usize, String, String)>,
    /// The `use` renames of each function body cut into runs, by its `{` (see [`BodyRun`]).
    body_renames: Vec<(usize, Vec<(String, String)>)>,
}

impl Streamed {
    /// The macros other files define (`foreign`), with those the other chunks of this file
    /// define added for the chunk numbered `at`, if its text (`chunk`) names them. A chunk is
    /// a run of top-level items, so a macro defined in one and called in another is called
    /// from the same file, as a renamed import declared in one is in scope in the others.
    fn foreign_for(
        &self,
        (at, earlier_runs): (usize, &[usize]),
        chunk: &str,
        foreign: &HashMap<String, Vec<String>>,
    ) -> Option<HashMap<String, Vec<String>>> {
        fn words(text: &str) -> impl Iterator<Item = &str> {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
        }
        if self.macros.iter().all(|(c, _, _)| *c == at) {
            return None;
        }
        // The macros this chunk names, and those they name in turn (`outer!` calling
        // `inner!`), and those the file's own macros name (a closure carried from an earlier
        // run of a body may call one).
        let others: Vec<&(usize, String, String)> =
            self.macros.iter().filter(|(c, _, _)| *c != at).collect();
        // A `macro_rules!` defined in an earlier run of the same body is in scope here, named
        // or not: a closure carried from that run may call it.
        let mut named: HashSet<&str> = words(chunk)
            .chain(
                others
                    .iter()
                    .filter(|(c, _, _)| earlier_runs.contains(c))
                    .map(|(_, name, _)| name.as_str()),
            )
            .collect();
        let mut taken = vec![false; others.len()];
        let mut out = foreign.clone();
        loop {
            let mut grew = false;
            for (i, (_, name, text)) in others.iter().map(|m| (m.0, &m.1, &m.2)).enumerate() {
                if !taken[i] && named.contains(name.as_str()) {
                    taken[i] = true;
                    grew = true;
                    named.extend(words(text));
                    out.entry(name.clone()).or_default().push(text.clone());
                }
            }
            if !grew {
                break;
            }
        }
        Some(out)
    }
}

/// A chunk's tree: kept, or parsed again for this walk and dropped after it.
enum Tree<'a> {
    Kept(&'a syn::File),
    Fresh(syn::File),
}

impl std::ops::Deref for Tree<'_> {
    type Target = syn::File;

    fn deref(&self) -> &syn::File {
        match self {
            Tree::Kept(f) => f,
            Tree::Fresh(f) => f,
        }
    }
}

impl Parsed {
    /// The file's contribution to the type index, every chunk included. For a file of many
    /// chunks the index built at its parse is handed over (and built again if asked twice).
    pub(crate) fn take_index(&mut self) -> FileIndex {
        match self.streamed.as_mut().and_then(|s| s.index.take()) {
            Some(index) => index,
            None => self.index().into_owned(),
        }
    }

    /// The file's contribution to the type index, every chunk included.
    pub(crate) fn index(&self) -> std::borrow::Cow<'_, FileIndex> {
        if let Some(index) = self.streamed.as_ref().and_then(|s| s.index.as_ref()) {
            return std::borrow::Cow::Borrowed(index);
        }
        let mut out = FileIndex::default();
        self.each_tree(|chunk, file| {
            if chunk.body_run().is_none_or(|r| r.first) {
                out.append(index_file(&self.rel, file));
            }
        });
        std::borrow::Cow::Owned(out)
    }

    /// Calls `f` with each chunk and its tree, in order; a tree that is not kept is parsed
    /// again and dropped before the next one is parsed.
    fn each_tree(&self, mut f: impl FnMut(&Chunk, &syn::File)) {
        for chunk in &self.chunks {
            let tree = match (&chunk.file, &self.streamed) {
                (Some(file), _) => Tree::Kept(file),
                (None, streamed) => {
                    let (blanked, quiet) = streamed
                        .as_ref()
                        .map_or((None, &[][..]), |s| (s.blanked.as_deref(), &s.quiet[..]));
                    Tree::Fresh(
                        parse_chunk(&self.text, blanked, quiet, chunk, self.walk_all)
                            .expect("this chunk of this text parsed when the file was read"),
                    )
                }
            };
            f(chunk, &tree);
            if let Tree::Fresh(tree) = tree {
                drop(tree);
                spans::forget();
            }
        }
    }
}

/// Parses one chunk of `text` (`blanked`: the text with the `quiet` body insides blanked).
fn parse_chunk(
    text: &str,
    blanked: Option<&str>,
    quiet: &[(usize, usize)],
    chunk: &Chunk,
    walk_all: bool,
) -> syn::Result<syn::File> {
    let range = &chunk.range;
    // A run of a body cut into runs keeps its statements even where it cannot log.
    let keep = chunk
        .body_run()
        .and_then(|r| chunk.wrap.as_ref()?.in_last_header(r.open));
    // Whether the whole file renames an OpenTelemetry `KeyValue`: the chunk holding a call
    // under the new name may not hold the rename.
    let _walk_all = bodies::WalkAll::force(walk_all);
    match blanked {
        Some(b) => {
            let inside: Vec<(usize, usize)> = quiet
                .iter()
                .filter(|(s, e)| range.start < *s && *e < range.end)
                .map(|&(s, e)| (chunk.offset(s), chunk.offset(e)))
                .collect();
            bodies::parse_blanking(&chunk.source(text), &chunk.source(b), &inside, keep)
        }
        None => bodies::parse_file(&chunk.source(text), keep),
    }
}

/// What a wrapped chunk's tree holds inside its `headers` headers (see
/// [`Wrap`](crate::resolve::outline::Wrap)): the items of each inline module it is cut from,
/// pushed to `modules`, and the body of the function whose run it is, if it is one.
fn inside_headers<'f>(
    file: &'f syn::File,
    headers: usize,
    modules: &mut Vec<&'f [syn::Item]>,
) -> Option<&'f syn::Block> {
    let mut items: &[syn::Item] = &file.items;
    for level in 0..headers {
        let last = level + 1 == headers;
        match items {
            [syn::Item::Mod(m)] => {
                let (_, inner) = m.content.as_ref()?;
                modules.push(inner);
                items = inner;
            }
            [syn::Item::Fn(f)] if last => return Some(&f.block),
            [syn::Item::Impl(i)] if level + 2 == headers => {
                return match &i.items[..] {
                    [syn::ImplItem::Fn(f)] => Some(&f.block),
                    _ => None,
                };
            }
            [syn::Item::Trait(t)] if level + 2 == headers => {
                return match &t.items[..] {
                    [syn::TraitItem::Fn(f)] => f.default.as_ref(),
                    _ => None,
                };
            }
            _ => return None,
        }
    }
    None
}

fn parse_path(path: &Path, rel: &str, quiet: &[QuietBody]) -> Result<Parsed, FileError> {
    let bytes = std::fs::read(path).map_err(|e| FileError {
        file: rel.to_owned(),
        pos: None,
        message: format!("cannot read: {}", io_message(&e)),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| FileError {
        file: rel.to_owned(),
        pos: None,
        message: "not valid UTF-8".into(),
    })?;
    parse_quiet(rel, text, quiet)
}

/// Parses a file's text. A large file is parsed one run of whole top-level items at a time, so
/// syn's tree (about 100 times the size of the source) stays bounded by the chunk, not the file.
fn parse_text(rel: &str, text: String) -> Result<Parsed, FileError> {
    parse_quiet(rel, text, &[])
}

/// [`parse_text`], blanking first the quiet function bodies the resolver's outline found
/// (`quiet`: byte ranges of their insides, see `bodies::parse_blanking`).
fn parse_quiet(rel: &str, text: String, quiet: &[QuietBody]) -> Result<Parsed, FileError> {
    let walk_all = text.contains("opentelemetry") && visit::renames_otel_key(&text);
    let blanked = if quiet.is_empty() {
        None
    } else {
        bodies::blank(&text, quiet)
    };
    let mut quiet: Vec<(usize, usize)> = quiet.iter().map(|q| q.inside).collect();
    quiet.sort_unstable();
    // A body that is blanked is not cut into runs: it will be empty.
    let blanked_bodies = if blanked.is_some() { &quiet[..] } else { &[] };
    let target = if text.len() > 2 * CHUNK_BYTES {
        LARGE_FILE_CHUNK_BYTES
    } else {
        CHUNK_BYTES
    };
    let specs =
        crate::resolve::outline::chunk_specs_with(&text, (target, CHUNK_BYTES), blanked_bodies);
    let many = specs.len() > 1;
    let (mut index, mut renames, mut macros) = (FileIndex::default(), Vec::new(), Vec::new());
    let mut body_renames: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    let mut chunks = Vec::with_capacity(specs.len());
    for (at, spec) in specs.into_iter().enumerate() {
        let mut chunk = Chunk {
            range: spec.range,
            lines_before: spec.lines_before,
            wrap: spec.wrap,
            pad: spec.pad,
            file: None,
        };
        let lines_before = chunk.lines_before;
        let file = parse_chunk(&text, blanked.as_deref(), &quiet, &chunk, walk_all);
        // A file that is not a file of items may be one `include!` reads in expression
        // position (`let n: u32 = include!("n.in");`): its statements are judged as a body.
        // It is one chunk (at most `CHUNK_BYTES`), so syn's whole tree of it is bounded too; a
        // file refused by a bound stays refused.
        let file = match file {
            Err(e) if !many && !bodies::is_bound_error(&e) => {
                bodies::parse_statements(&text).map_err(|_| e)
            }
            other => other,
        };
        let file = file.map_err(|e| {
            let start = e.span().start();
            FileError {
                file: rel.into(),
                pos: (start.line > 0).then(|| {
                    let mut p = pos(start);
                    p.line += lines_before;
                    p
                }),
                message: format!("cannot parse: {e}"),
            }
        })?;
        if many {
            // A function cut into runs is indexed (its signature) with its first run.
            let run = chunk.body_run();
            if run.is_none_or(|r| r.first) {
                index.append(index_file(rel, &file));
            }
            renames.extend(imports::renames(file.items.iter()));
            if let Some(w) = &chunk.wrap {
                // A module's renames are in scope in all of its chunks; a body's `use` items in
                // all of its runs.
                let mut modules = Vec::new();
                let body = inside_headers(&file, w.headers.len(), &mut modules);
                for items in modules {
                    renames.extend(imports::renames(items.iter()));
                }
                if let (Some(run), Some(body)) = (run, body) {
                    let items = body.stmts.iter().filter_map(|s| match s {
                        syn::Stmt::Item(i) => Some(i),
                        _ => None,
                    });
                    let found = imports::renames(items);
                    match body_renames.iter_mut().find(|(open, _)| *open == run.open) {
                        Some((_, list)) => list.extend(found),
                        None => body_renames.push((run.open, found)),
                    }
                }
            }
            if text[chunk.range.clone()].contains("macro_rules") {
                let defs = expand::definitions(&file);
                macros.extend(defs.into_iter().map(|(name, rules)| (at, name, rules)));
            }
            drop(file);
            spans::forget();
        } else {
            chunk.file = Some(file);
        }
        chunks.push(chunk);
    }
    Ok(Parsed {
        rel: rel.to_owned(),
        text,
        chunks,
        walk_all,
        streamed: if many {
            Some(Box::new(Streamed {
                blanked,
                quiet,
                index: Some(index),
                renames,
                macros,
                body_renames,
            }))
        } else {
            None
        },
    })
}

/// Lints one file's text as if it were at `rel` under the scan root.
///
/// ```
/// let config = phi_lint::Config::default();
/// let out = phi_lint::lint_source(&config, "src/a.rs", "fn f(e: E) { log::error!(\"failed: {e}\"); }")?;
/// assert_eq!(out.findings[0].rule, phi_lint::Rule::ErrorMessage);
/// # Ok::<(), phi_lint::FileError>(())
/// ```
///
/// The lint runs on a thread of its own with the workers' stack (64 MiB), whatever the
/// caller's: syn's parse and the walk recurse as deep as the bounds allow, which the 8 MiB of a
/// main thread does not hold (`phi-lint fix` re-lints every file it rewrites this way).
pub fn lint_source(config: &Config, rel: &str, text: &str) -> Result<FileLint, FileError> {
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("phi-lint".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, || lint_source_here(config, rel, text))
        {
            Ok(worker) => worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(e) => Err(FileError {
                file: rel.to_owned(),
                pos: None,
                message: format!("cannot start a thread to lint it: {e}"),
            }),
        }
    })
}

fn lint_source_here(config: &Config, rel: &str, text: &str) -> Result<FileLint, FileError> {
    let parsed = parse_text(rel, text.to_owned())?;
    let index = TypeIndex::of_file(&parsed.index());
    let collected = collect(
        config,
        (&config.name_policy(), &NameCache::default()),
        &parsed,
        false,
        (&index, Pass::Final(None)),
        &HashMap::new(),
    );
    Ok(finish(&parsed, collected))
}

/// Which lint of a file this is (see `two_phase`).
#[derive(Clone, Copy)]
pub(crate) enum Pass<'a> {
    /// The first, with the file's own index: names it asks for and does not find go to the
    /// list, and each function's share of them is recorded.
    First(&'a std::cell::RefCell<crate::types::Misses>),
    /// With the merged index. Given the first lint's result, a function whose first verdicts
    /// asked the index for no name that the merged index defines is not judged again: its
    /// first findings and counts are taken over.
    Final(Option<&'a Collected>),
}

/// What walking one file found, before suppressions and fingerprints.
#[derive(Default)]
pub(crate) struct Collected {
    raw: Vec<Finding>,
    skipped: Vec<(u32, u32)>,
    statements: usize,
    /// Where every statement is, in a file that has suppressions.
    statement_spans: Vec<(Pos, Pos)>,
    test_modules: Vec<String>,
    macro_defs: Vec<(String, String)>,
    /// The names of every `macro_rules!` of the file.
    macro_names: Vec<String>,
    pub(crate) wanted: Vec<String>,
    /// Function bodies walked.
    judged: usize,
    /// The functions walked (first lint of a one-chunk file only), see [`FnRecord`].
    pub(crate) functions: Vec<FnRecord>,
    /// Functions whose first verdicts depend on another file's types; set before the final
    /// lint (keyed by [`FnRecord::body`]).
    pub(crate) dependent: HashSet<(usize, usize)>,
    /// Findings past `max-file-findings` were not kept.
    truncated: bool,
    /// `max-file-findings`, which also bounds what the suppressions add.
    max_findings: usize,
}

impl Collected {
    /// The `macro_rules!` this file defines: name and the text of its rules.
    pub(crate) fn macro_defs(&self) -> &[(String, String)] {
        &self.macro_defs
    }
}

/// One function's share of a first lint: what its body produced, and the names its verdicts
/// asked the index for and did not find.
pub(crate) struct FnRecord {
    /// Line and column where the body starts: the function's key in the same tree.
    pub(crate) body: (usize, usize),
    /// Missed names, sorted and deduplicated.
    pub(crate) misses: Vec<String>,
    raw: std::ops::Range<usize>,
    skipped: std::ops::Range<usize>,
    statements: usize,
    expanded: usize,
}

/// Walks one parsed file and collects its raw findings (see [`Pass`]).
fn collect(
    config: &Config,
    (names, cache): (&NamePolicy, &NameCache),
    parsed: &Parsed,
    build_script: bool,
    (types, pass): (&TypeIndex, Pass<'_>),
    foreign: &HashMap<String, Vec<String>>,
) -> Collected {
    // Each chunk sees its own `use` renames and `macro_rules!`, and in a file of many chunks
    // those the other chunks declare at their top level ([`Streamed`]).
    let (rel, text) = (parsed.rel.as_str(), parsed.text.as_str());
    let misses = match pass {
        Pass::First(m) => Some(m),
        Pass::Final(_) => None,
    };
    // Functions are recorded and taken over only in a file of one chunk, whose positions are
    // the tree's own.
    let one_chunk = parsed.chunks.len() == 1;
    let record = matches!(pass, Pass::First(_)) && one_chunk;
    // A file of suppressions records where each statement is, to give each suppression its
    // one statement; a function taken over would not say.
    let suppressed = text.contains("phi-lint:");
    // Searched once per file, not once per chunk of a file cut into chunks.
    let otel = text.contains("opentelemetry");
    let otel_renamed = otel && visit::renames_otel_key(text);
    // A first lint that stopped keeping findings recorded its functions' findings cut short.
    let reuse = match pass {
        Pass::Final(Some(first))
            if one_chunk && foreign.is_empty() && !first.truncated && !suppressed =>
        {
            Some(first)
        }
        _ => None,
    };
    // With the merged index, the file's own definitions answer first, as they did in its first
    // lint: the verdicts must not depend on whether a function is taken over or judged again.
    let own = matches!(pass, Pass::Final(_)).then(|| TypeIndex::of_file(&parsed.index()));
    let mut out = Collected {
        max_findings: config.max_file_findings(),
        ..Collected::default()
    };
    let (mut raw, mut skipped, mut wanted) = (Vec::new(), Vec::new(), HashSet::new());
    let streamed = parsed.streamed.as_deref();
    let mut at = 0;
    // What a run of a function body cut into runs hands the next (see `BodyRun`).
    let mut carry: Option<locals::Carry> = None;
    // A run's closures may come from an earlier run, whose text is not in this one's.
    let whole = SourceFile::new(text);
    parsed.each_tree(|chunk, file| {
        let chunk_source = chunk.source(text);
        let chunk_text: &str = &chunk_source;
        let earlier_runs: Vec<usize> = chunk.body_run().map_or_else(Vec::new, |run| {
            (0..at)
                .filter(|&c| {
                    parsed.chunks[c]
                        .body_run()
                        .is_some_and(|r| r.open == run.open)
                })
                .collect()
        });
        let with_siblings =
            streamed.and_then(|s| s.foreign_for((at, &earlier_runs), chunk_text, foreign));
        let foreign = with_siblings.as_ref().unwrap_or(foreign);
        at += 1;
        let lines_before = chunk.lines_before;
        let source = SourceFile::new(chunk_text);
        let split = split_body(chunk, chunk_text, streamed);
        let mut linter = Linter {
            config,
            classifier: Classifier {
                names,
                safe_functions: &config.safe_functions,
                types: types.view(rel, own.as_ref(), misses),
                safe_types: &config.safe_types,
                cache,
                by_name_only: std::cell::Cell::default(),
            },
            source: &source,
            rel,
            context: Vec::new(),
            macro_rules: None,
            raw: Vec::new(),
            budget: config.max_file_findings().saturating_sub(raw.len()),
            truncated: false,
            seen: HashMap::new(),
            statements: 0,
            statement_spans: suppressed.then(Vec::new),
            otel,
            otel_renamed,
            main_result: false,
            skipped: Vec::new(),
            modules: Vec::new(),
            test_modules: Vec::new(),
            build_script,
            imports: imports::Imports::default(),
            macros: Vec::new(),
            expansion: None,
            expanded: 0,
            std_streams: Vec::new(),
            handed: Vec::new(),
            macro_defs: Vec::new(),
            macro_names: Vec::new(),
            wanted: HashSet::new(),
            scope: Scope::default(),
            self_ty: None,
            impl_bounds: Vec::new(),
            closures: Vec::new(),
            local_closures: Vec::new(),
            replayed: 0,
            replaying: 0,
            functions: record.then(Vec::new),
            reuse,
            judged: 0,
            carry: split
                .as_ref()
                .filter(|s| !s.first)
                .and_then(|_| carry.take()),
            whole: split.is_some().then_some((&whole, lines_before as usize)),
            split,
        };
        if let Some(s) = streamed {
            linter.imports.push_renames(s.renames.clone());
        }
        linter.imports.push(file.items.iter());
        if ["stdout", "stderr", "Stdout", "Stderr"]
            .iter()
            .any(|w| chunk_text.contains(w))
        {
            linter.handed = writers::streamed_params(file);
        }
        if chunk_text.contains("macro_rules") || !foreign.is_empty() {
            linter.collect_macros(file, foreign);
        }
        // A logging macro re-exported under another name (`pub use tracing::info as
        // log_info;`) is called from other files as `crate::log_info!` or through a glob
        // import: they get it as a macro that forwards to the one it names.
        if chunk_text.contains(" as ") {
            expand::reexported_sinks(&file.items, 0, &mut linter.macro_defs);
        }
        syn::visit::Visit::visit_file(&mut linter, file);
        carry = linter.carry.take();
        out.truncated |= linter.truncated;
        for mut f in linter.raw {
            f.start.line += lines_before;
            f.end.line += lines_before;
            f.statement.0.line += lines_before;
            f.statement.1.line += lines_before;
            raw.push(f);
        }
        skipped.extend(
            linter
                .skipped
                .iter()
                .map(|&(a, b)| (a + lines_before, b + lines_before)),
        );
        out.statements += linter.statements;
        out.statement_spans
            .extend(linter.statement_spans.unwrap_or_default().into_iter().map(
                |(mut a, mut b)| {
                    a.line += lines_before;
                    b.line += lines_before;
                    (a, b)
                },
            ));
        out.test_modules.extend(linter.test_modules);
        out.macro_defs.extend(linter.macro_defs);
        out.macro_names.extend(linter.macro_names);
        out.functions.extend(linter.functions.unwrap_or_default());
        out.judged += linter.judged;
        wanted.extend(linter.wanted);
    });
    let mut wanted: Vec<String> = wanted.into_iter().collect();
    wanted.sort_unstable();
    out.wanted = wanted;
    out.raw = raw;
    out.skipped = skipped;
    out
}

/// Applies suppressions to what [`collect`] found, fingerprints the findings and attaches the
/// fixes (for a file of one chunk).
fn finish(parsed: &Parsed, collected: Collected) -> FileLint {
    let (rel, text) = (parsed.rel.as_str(), parsed.text.as_str());
    let Collected {
        mut raw,
        skipped,
        statements,
        statement_spans,
        test_modules,
        wanted,
        judged,
        mut truncated,
        max_findings,
        macro_names,
        ..
    } = collected;
    let mut out = FileLint {
        statements,
        test_modules,
        judged,
        wanted,
        macro_names,
        ..FileLint::default()
    };
    // One finding per place, rule, field and reason: a closure judged again at each of its
    // calls reports the same value again, and a macro reached through many chains of calls (a
    // recursive `macro_rules!` reaches one argument through every depth up to the expansion
    // bound) reports it once per chain. The shortest chain is kept.
    sort_in_source_order(&mut raw);
    raw.dedup_by(|a, b| merged(a) == merged(b));
    let (mut findings, suppressions, suppressed) = apply_suppressions(
        text,
        rel,
        raw,
        statement_spans,
        (&skipped, &mut truncated, max_findings),
    );
    sort_in_source_order(&mut findings);
    out.truncated = truncated;
    assign_fingerprints(&mut findings);
    if let [
        Chunk {
            file: Some(file), ..
        },
    ] = parsed.chunks.as_slice()
        && findings.iter().any(|f| f.rule == Rule::ErrorMessage)
    {
        crate::rules::error_message::fix::attach(file, &SourceFile::new(text), &mut findings);
    }
    out.findings = findings;
    out.suppressions = suppressions;
    out.suppressed = suppressed;
    out
}

/// Walks one file's syntax tree and collects findings.
pub(crate) struct Linter<'a> {
    config: &'a Config,
    classifier: Classifier<'a>,
    source: &'a SourceFile<'a>,
    rel: &'a str,
    /// Enclosing items, outermost first: impl/trait names and function names.
    context: Vec<String>,
    /// The `macro_rules!` whose body is being scanned.
    macro_rules: Option<String>,
    raw: Vec<Finding>,
    /// How many findings `raw` may hold: what `max-file-findings` leaves after the file's
    /// earlier chunks. A file of a finding every few bytes must not cost a finding's few
    /// hundred bytes for each.
    budget: usize,
    /// Whether a finding was dropped for want of budget.
    truncated: bool,
    /// Where in `raw` each finding is, by a hash of what `finish` merges duplicates by.
    seen: HashMap<u64, usize>,
    statements: usize,
    /// Where every statement is, when the file has suppressions (see [`Linter::statement`]).
    statement_spans: Option<Vec<(Pos, Pos)>>,
    /// Whether the file names OpenTelemetry: its `KeyValue`s and `set_attribute` calls are
    /// attributes of an exported span, not a DOM element's or a project's own.
    otel: bool,
    /// Whether the file also renames OpenTelemetry's `Key` or `KeyValue`: every body is
    /// walked, since one that builds an attribute under the new name holds no sink's word.
    otel_renamed: bool,
    /// Whether the walk is in a program's `main` that returns a `Result`: the error it
    /// returns is printed to stderr on exit, so `bail!(..)`, `anyhow!(..)`, `eyre!(..)`,
    /// `ensure!(.., ..)` and `.context(..)` messages are print sinks there.
    main_result: bool,
    /// Line ranges of test code that was not linted.
    skipped: Vec<(u32, u32)>,
    /// Inline modules enclosing the current item (`mod a { mod b { .. } }`).
    modules: Vec<String>,
    /// Out-of-line test modules this file declares (see [`FileLint::test_modules`]).
    test_modules: Vec<String>,
    /// Whether the file is a build script (or its module), whose `cargo:` lines are not logs.
    build_script: bool,
    /// `use` renames in scope.
    imports: imports::Imports,
    /// The file's `macro_rules!`, expanded at their call sites.
    macros: Vec<expand::LocalMacro>,
    /// The macro expansion being linted, if any.
    expansion: Option<expand::Expansion>,
    /// Token trees expanded so far in this file.
    expanded: usize,
    /// Locals and parameters of the current function bound to stdout or stderr.
    std_streams: Vec<String>,
    /// The functions of this file (or chunk) handed a standard stream, by name and argument
    /// index (see [`writers::streamed_params`]): that parameter is a stream in their bodies.
    handed: Vec<(String, usize)>,
    /// The `macro_rules!` this file defines, for the files that call them.
    /// The names of every `macro_rules!` of the file, logging or not.
    macro_names: Vec<String>,
    macro_defs: Vec<(String, String)>,
    /// See [`FileLint::wanted`].
    wanted: HashSet<String>,
    /// The locals in scope, for the classifier.
    scope: Scope,
    /// The `Self` type of the enclosing `impl`.
    self_ty: Option<String>,
    /// The type parameters of the enclosing `impl` bounded by a trait (see
    /// `locals::trait_bounded`).
    impl_bounds: Vec<(String, crate::types::Ty)>,
    /// Closures whose parameters are bound to a method receiver's elements.
    closures: Vec<locals::ClosureSource>,
    /// Closures bound to locals, judged again at their calls.
    local_closures: Vec<locals::LocalClosure>,
    /// Bytes of closure bodies replayed at calls in this chunk (see `locals::REPLAY_BYTES`).
    replayed: usize,
    /// How deep in such a replay the walk is.
    replaying: u8,
    /// In a first lint: each function walked, with its share of the misses.
    functions: Option<Vec<FnRecord>>,
    /// In a final lint: the first lint, whose functions that depend on no other file's types
    /// are taken over instead of walked.
    reuse: Option<&'a Collected>,
    /// Function bodies walked.
    judged: usize,
    /// If the chunk is a run of a function body cut into runs: which body it is.
    split: Option<locals::SplitBody<'a>>,
    /// What the body's previous run handed this one, until its walk starts; then what this
    /// run hands the next.
    carry: Option<locals::Carry>,
    /// For a run of a body cut into runs: the file's whole text and the lines before the run's
    /// text, where expressions are read (a closure carried from an earlier run is not in this
    /// run's text).
    whole: Option<(&'a SourceFile<'a>, usize)>,
}

/// The body a chunk is a run of, if it is one: where its `{` is in the chunk's text.
fn split_body<'a>(
    chunk: &Chunk,
    chunk_text: &str,
    streamed: Option<&'a Streamed>,
) -> Option<locals::SplitBody<'a>> {
    let run = chunk.body_run()?;
    let at = chunk.wrap.as_ref()?.in_last_header(run.open)?;
    // syn's columns on the first line do not count a byte-order mark.
    let before = chunk_text.get(..at)?;
    let before = before.strip_prefix('\u{feff}').unwrap_or(before);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let open = LineColumn {
        line: 1 + memchr::memchr_iter(b'\n', before.as_bytes()).count(),
        column: before[line_start..].chars().count(),
    };
    let renames = streamed
        .and_then(|s| s.body_renames.iter().find(|(o, _)| *o == run.open))
        .map_or(&[][..], |(_, r)| &r[..]);
    Some(locals::SplitBody {
        open,
        first: run.first,
        last: run.last,
        renames,
    })
}

impl Linter<'_> {
    /// The enclosing function, as `Type::method` or `fn_name`.
    fn function(&self) -> String {
        if let Some(m) = &self.macro_rules {
            return format!("macro_rules! {m}");
        }
        self.context.join("::")
    }

    /// Checks one value a sink records.
    fn check_interp(&mut self, sink_path: &str, sink: Sink, interp: &Interp, stmt: (Pos, Pos)) {
        // A field of an event or span whose name the runtime pseudonymizes records a keyed
        // token, whatever the value. Only as a field: printed, or in a message, nothing
        // pseudonymizes it.
        if matches!(
            sink,
            Sink::Event { .. } | Sink::Span { .. } | Sink::RecordAll
        ) && !interp.field.starts_with('{')
            && self.classifier.names.pseudonymizes(&interp.field)
        {
            return;
        }
        // Most values pass: their span and tokens are taken only for a finding.
        let verdict = match &interp.value {
            Value::Expr(e) => {
                if interp.err_capture {
                    Err((e.span(), Some(&**e), Why::Error))
                } else {
                    self.classifier
                        .check_value(e, &interp.field, &self.scope)
                        .map_err(|u| (u.span(), u.at, u.why))
                }
            }
            Value::Capture { name, .. } => {
                let key = match self.classifier.classify_name(&interp.field) {
                    phi_filter::names::NameVerdict::Allowed(c) => Some(c),
                    _ => None,
                };
                self.classifier
                    .check_capture(name, key, &self.scope)
                    .map_err(|why| (Span::call_site(), None, why))
            }
        };
        let Err((bad_span, bad_at, why)) = verdict else {
            return;
        };
        let (whole_start, whole_end, whole_tokens) = match &interp.value {
            Value::Expr(e) => {
                let span = e.span();
                (span.start(), span.end(), tokens_text(e))
            }
            Value::Capture { name, start, end } => (*start, *end, name.to_string()),
        };
        let (mut start, mut end) = match &interp.value {
            Value::Capture { .. } => (whole_start, whole_end),
            Value::Expr(_) => (bad_span.start(), bad_span.end()),
        };
        let bad_tokens = || bad_at.map_or_else(|| whole_tokens.clone(), tokens_text);
        let mut culprit = match self.text(start, end) {
            Some(t) => t.to_owned(),
            None => bad_tokens(),
        };
        if let Value::Capture { name, .. } = &interp.value
            && culprit.contains('\\')
        {
            // `{\x65}`: the name the macro captures, not its escaped spelling.
            culprit = name.to_string();
        }
        let mut through = String::new();
        if let Some(exp) = &self.expansion {
            // In a macro's expansion only what the caller passed is judged here; the macro's
            // own tokens are judged at its definition.
            let Some(at) = expand::caller_token(exp, &interp.value, bad_span) else {
                return;
            };
            if !exp.holds(bad_span) {
                culprit = bad_tokens();
            }
            (start, end) = at;
            through = exp.through();
        }
        let rule = if why.is_error() {
            Rule::ErrorMessage
        } else if sink.is_print() {
            Rule::Print
        } else {
            Rule::Interpolation
        };
        let message = format!("{}{through}", why.message(&culprit));
        let expr = self
            .text(whole_start, whole_end)
            .unwrap_or(&whole_tokens)
            .to_owned();
        self.push(
            rule,
            (start, end),
            sink_path,
            &interp.field,
            expr,
            whole_tokens,
            message,
            stmt,
        );
    }

    #[allow(clippy::too_many_arguments)] // one finding's fields, assembled in one place
    fn push(
        &mut self,
        rule: Rule,
        (start, end): (LineColumn, LineColumn),
        macro_path: &str,
        field: &str,
        expr: String,
        expr_tokens: String,
        message: String,
        statement: (Pos, Pos),
    ) {
        // A token a macro's transcriber wrote has no place in this file: the call stands for it.
        let (start, end) = match &self.expansion {
            Some(exp) if !(start >= exp.call.0 && end <= exp.call.1) => exp.call,
            _ => (start, end),
        };
        let end = if end.line < start.line || (end.line == start.line && end.column <= start.column)
        {
            LineColumn {
                line: start.line,
                column: start.column + 1,
            }
        } else {
            end
        };
        let finding = Finding {
            rule,
            file: self.rel.into(),
            start: pos(start),
            end: pos(end),
            macro_path: macro_path.into(),
            field: field.into(),
            expr: expr.into(),
            expr_tokens: expr_tokens.into(),
            message,
            function: self.function().into(),
            statement,
            fingerprint: CompactString::default(),
            baselined: false,
            fix: None,
        };
        // A closure judged again at each call, or a macro reached through many chains, makes
        // the same finding again: `finish` keeps one of them, the shortest message first, so
        // only the first counts against the budget, and a shorter one takes its place.
        let key = {
            let mut h = std::hash::DefaultHasher::new();
            merged(&finding).hash(&mut h);
            h.finish()
        };
        if let Some(&at) = self.seen.get(&key)
            && let Some(same) = self.raw.get_mut(at)
            && merged(same) == merged(&finding)
        {
            if finding.message.len() < same.message.len() {
                *same = finding;
            }
            return;
        }
        if self.raw.len() >= self.budget {
            self.truncated = true;
            return;
        }
        self.seen.insert(key, self.raw.len());
        self.raw.push(finding);
    }

    fn text(&self, start: LineColumn, end: LineColumn) -> Option<&str> {
        if let Some(e) = &self.expansion
            && !(start >= e.call.0 && end <= e.call.1)
        {
            return None; // a transcriber's token, at `Span::call_site()`
        }
        if let Some((whole, lines_before)) = self.whole {
            let shift = |lc: LineColumn| LineColumn {
                line: lc.line + lines_before,
                ..lc
            };
            return whole.slice(shift(start), shift(end));
        }
        self.source.slice(start, end)
    }

    /// Where the statement at `span` is, or the macro call whose expansion holds it; recorded
    /// when the file has suppressions, which each cover one statement.
    fn statement(&mut self, span: (LineColumn, LineColumn)) -> (Pos, Pos) {
        let span = self.expansion.as_ref().map_or(span, |e| e.call);
        let at = (pos(span.0), pos(span.1));
        if let Some(all) = &mut self.statement_spans {
            all.push(at);
        }
        at
    }

    /// A sink call: parse its arguments and check each recorded value, then look for logging
    /// calls nested inside the arguments (closures, blocks).
    fn sink_call(
        &mut self,
        path: &str,
        sink: Sink,
        tokens: TokenStream,
        span: (LineColumn, LineColumn),
    ) {
        if self.build_script && is_cargo_instruction(path, &tokens) {
            return;
        }
        self.statements += 1;
        let stmt = self.statement(span);
        match parse_sink(sink, tokens) {
            Ok(parsed) => {
                for interp in &parsed.interps {
                    self.check_interp(path, sink, interp, stmt);
                }
                for interp in &parsed.interps {
                    if let Value::Expr(e) = &interp.value {
                        syn::visit::Visit::visit_expr(self, e);
                    }
                }
                if matches!(sink, Sink::Event { .. } | Sink::Span { .. }) {
                    for e in &parsed.others {
                        self.formats_in(path, sink, e, stmt);
                    }
                }
                for e in &parsed.others {
                    syn::visit::Visit::visit_expr(self, e);
                }
            }
            Err(e) => {
                let at = e.span();
                let (start, end) = if at.start().line == 0 {
                    span
                } else {
                    (at.start(), at.end())
                };
                let message = rules::unparsed_macro::message(path, &e);
                let expr = self.text(span.0, span.1).unwrap_or(path).to_owned();
                self.push(
                    Rule::UnparsedMacro,
                    (start, end),
                    path,
                    "",
                    expr,
                    path.to_owned(),
                    message,
                    stmt,
                );
            }
        }
    }

    /// The sink grammar of a macro call, wrappers included. `write!`/`writeln!` are sinks when
    /// their destination is stdout or stderr (`io::stderr()`, `stdout.lock()`).
    fn sink_of(&self, path: &str, tokens: &TokenStream) -> Option<Sink> {
        let config = self.config;
        if let Some(sink) = sink_for(path, Some(&|name: &str| config.wrapper(name))) {
            return Some(sink);
        }
        let last = path.rsplit("::").next().unwrap_or(path);
        // In a `main` that returns a `Result`, an error built by `bail!`/`anyhow!`/`eyre!` is
        // printed to stderr when it is returned.
        if self.main_result {
            match last {
                "bail" | "anyhow" | "eyre" | "format_err" => {
                    return Some(Sink::Format {
                        skip: 0,
                        printed: 0,
                    });
                }
                "ensure" => {
                    return Some(Sink::Format {
                        skip: 1,
                        printed: 0,
                    });
                }
                _ => {}
            }
        }
        (matches!(last, "write" | "writeln") && self.writes_to_std_stream(tokens)).then_some(
            Sink::Format {
                skip: 1,
                printed: 0,
            },
        )
    }
}

/// What two findings are the same finding by, when `finish` keeps one of them: place, rule,
/// field and reason.
fn merged(f: &Finding) -> (crate::Pos, crate::Pos, Rule, &str, &str) {
    (f.start, f.end, f.rule, &f.field, reason(&f.message))
}

/// A finding's message without the chain of macros it came through (` (through `a!` → …)`).
fn reason(message: &str) -> &str {
    message
        .split_once(" (through ")
        .map_or(message, |(reason, _)| reason)
}

/// Sorts findings by position, rule and field, then by where they end, their reason and the
/// length of their message (the shortest chain of macros first); equal ones are kept in the
/// order they were made.
///
/// A stable sort of the findings themselves would borrow half their size again; this sorts
/// their indices and then moves each finding once, along the cycles of the permutation.
fn sort_in_source_order(findings: &mut [Finding]) {
    /// What the findings are sorted by.
    fn key(f: &Finding) -> (crate::Pos, Rule, &str, crate::Pos, &str, usize) {
        (
            f.start,
            f.rule,
            &f.field,
            f.end,
            reason(&f.message),
            f.message.len(),
        )
    }
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&a, &b| key(&findings[a]).cmp(&key(&findings[b])));
    permute(findings, &mut order);
}

/// Rearranges `items` so that position `k` holds the item that was at `order[k]`. `order` is a
/// permutation, used up (marked) as it goes.
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    for start in 0..items.len() {
        let mut k = start;
        // Each swap puts the right item at `k`; the item from `start` rides along the cycle to
        // the one place that wants it, where the cycle closes.
        while order[k] != usize::MAX {
            let from = std::mem::replace(&mut order[k], usize::MAX);
            if from == start {
                break;
            }
            items.swap(k, from);
            k = from;
        }
    }
}

/// `println!("cargo:…")` (and `print!`): an instruction from a build script to cargo.
fn is_cargo_instruction(path: &str, tokens: &TokenStream) -> bool {
    let last = path.rsplit("::").next().unwrap_or(path);
    matches!(last, "println" | "print")
        && tokens.clone().into_iter().next().is_some_and(|tt| {
            syn::parse2::<syn::LitStr>(tt.into()).is_ok_and(|lit| lit.value().starts_with("cargo:"))
        })
}

/// Where a statement starts and ends.
type StatementSpan = (Pos, Pos);

/// The statement each suppression is about, by position (see [`suppress`]): one on a line of
/// its own is about the first statement that starts on the next line; one at the end of a
/// line, about the statement it sits inside (`info!( // phi-lint: …` on a statement's first
/// line), else the last that ends on its line before it. The comment runs to the end of its
/// line, so a line has one suppression at most, and each is found by a search.
fn attached(
    sups: &[suppress::Suppression],
    spans: &mut Vec<StatementSpan>,
) -> Vec<Option<StatementSpan>> {
    spans.sort_unstable();
    spans.dedup();
    let mut by_end = spans.clone();
    by_end.sort_unstable_by_key(|&(start, end)| (end, std::cmp::Reverse(start)));
    sups.iter()
        .map(|s| {
            if s.own_line {
                let from = spans.partition_point(|(start, _)| start.line <= s.line);
                return spans
                    .get(from)
                    .filter(|(start, _)| start.line == s.line + 1)
                    .copied();
            }
            let at = Pos {
                line: s.line,
                column: s.columns.0,
            };
            // Statements that start on the comment's line, before it, and go on past it; the
            // innermost is the one that starts last.
            let from = spans.partition_point(|(start, _)| start.line < s.line);
            let to = spans.partition_point(|(start, _)| *start < at);
            if let Some(open) = spans[from..to]
                .iter()
                .rev()
                .find(|(_, end)| end.line > s.line)
            {
                return Some(*open);
            }
            // The one that ends last on the line before the comment; of those that end there,
            // the outermost.
            let upto = by_end.partition_point(|(_, end)| *end <= at);
            let last = by_end[..upto]
                .last()
                .filter(|(_, end)| end.line == s.line)?;
            let first = by_end[..upto].partition_point(|(_, end)| end < &last.1);
            by_end.get(first).copied()
        })
        .collect()
}

/// Applies inline suppressions; reports malformed and unused ones. Returns the findings left,
/// the number of suppressions used and the number of findings they suppressed.
fn apply_suppressions(
    text: &str,
    rel: &str,
    raw: Vec<Finding>,
    mut spans: Vec<(Pos, Pos)>,
    (skipped, truncated, max): (&[(u32, u32)], &mut bool, usize),
) -> (Vec<Finding>, usize, usize) {
    if !text.contains("phi-lint:") {
        return (raw, 0, 0);
    }
    let sups = suppress::scan(text);
    // A finding's statement, with the suppressions about it in source order.
    let mut about: HashMap<(Pos, Pos), Vec<usize>> = HashMap::new();
    for (i, at) in attached(&sups, &mut spans).into_iter().enumerate() {
        if let Some(at) = at {
            about.entry(at).or_default().push(i);
        }
    }
    let mut used = vec![false; sups.len()];
    let mut kept = Vec::with_capacity(raw.len());
    let mut suppressed = 0;
    for f in raw {
        let covering = about
            .get(&f.statement)
            .and_then(|i| i.iter().copied().find(|&i| sups[i].covers(f.rule)));
        match covering {
            Some(i) => {
                used[i] = true;
                suppressed += 1;
            }
            None => kept.push(f),
        }
    }
    // Whether a line is in skipped test code: the ranges by start, with the furthest end of
    // each prefix, so that each suppression is one search.
    let mut ranges = skipped.to_vec();
    ranges.sort_unstable();
    let furthest: Vec<u32> = ranges
        .iter()
        .scan(0, |end, &(_, b)| {
            *end = b.max(*end);
            Some(*end)
        })
        .collect();
    let in_skipped = |line: u32| {
        let k = ranges.partition_point(|&(a, _)| a <= line);
        k > 0 && furthest[k - 1] >= line
    };
    for (s, used) in sups.iter().zip(&used) {
        if in_skipped(s.line) {
            continue;
        }
        let (rule, message) = match &s.problem {
            Some(p) => (Rule::SuppressionReason, p.clone()),
            // Past `max-file-findings` the findings it suppressed may not have been kept.
            None if !used && !*truncated => (
                Rule::UnusedSuppression,
                rules::unused_suppression::MESSAGE.to_owned(),
            ),
            None => continue,
        };
        // A malformed or unused suppression is a finding too, one per comment: `max-file-findings`
        // bounds them as it bounds the lint's.
        if kept.len() >= max {
            *truncated = true;
            break;
        }
        let comment = &text[s.bytes.clone()];
        kept.push(Finding {
            rule,
            file: rel.into(),
            start: crate::Pos {
                line: s.line,
                column: s.columns.0,
            },
            end: crate::Pos {
                line: s.line,
                column: s.columns.1,
            },
            macro_path: "// phi-lint".into(),
            field: CompactString::default(),
            expr: comment.trim().into(),
            expr_tokens: comment
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .into(),
            message,
            function: CompactString::default(),
            statement: (
                crate::Pos {
                    line: s.line,
                    column: s.columns.0,
                },
                crate::Pos {
                    line: s.line,
                    column: s.columns.1,
                },
            ),
            fingerprint: CompactString::default(),
            baselined: false,
            fix: None,
        });
    }
    (kept, used.iter().filter(|u| **u).count(), suppressed)
}

#[cfg(test)]
mod tests {
    use super::{StatementSpan, permute};
    use crate::finding::Pos;
    use crate::suppress;

    #[test]
    fn each_suppression_is_about_one_statement() {
        let at = |line, column| Pos { line, column };
        let span = |a: (u32, u32), b: (u32, u32)| (at(a.0, a.1), at(b.0, b.1));
        // The text, its statements, and the statement each suppression is about.
        let check = |text: &str, mut spans: Vec<StatementSpan>, want: &[Option<StatementSpan>]| {
            let sups = suppress::scan(text);
            assert_eq!(super::attached(&sups, &mut spans), want, "{text}");
        };
        // Two statements on the next line: the first.
        check(
            "// phi-lint: allow(reason = \"r\")\n    a!(x); b!(y);\n",
            vec![span((2, 5), (2, 11)), span((2, 13), (2, 19))],
            &[Some(span((2, 5), (2, 11)))],
        );
        // Two on its own line: the last before it.
        check(
            "a!(x); b!(y); // phi-lint: allow(reason = \"r\")\n",
            vec![span((1, 1), (1, 6)), span((1, 8), (1, 13))],
            &[Some(span((1, 8), (1, 13)))],
        );
        // It sits inside a call that goes on: that one, not the one before it.
        check(
            "a!(x); b!( // phi-lint: allow(reason = \"r\")\n  y,\n);\n",
            vec![span((1, 1), (1, 6)), span((1, 8), (3, 2))],
            &[Some(span((1, 8), (3, 2)))],
        );
        // A call nested in another ends first: the outer one.
        check(
            "a!(f(|| b!(y))); // phi-lint: allow(reason = \"r\")\n",
            vec![span((1, 1), (1, 15)), span((1, 9), (1, 13))],
            &[Some(span((1, 1), (1, 15)))],
        );
        // The last line of a statement of three.
        check(
            "a!(\n  x,\n); // phi-lint: allow(reason = \"r\")\n",
            vec![span((1, 1), (3, 2))],
            &[Some(span((1, 1), (3, 2)))],
        );
        // Nothing on the next line, nothing before it on its own.
        check(
            "// phi-lint: allow(reason = \"r\")\n\nx(); // phi-lint: allow(reason = \"r\")\n  a!(y);\n",
            vec![span((4, 3), (4, 8))],
            &[None, None],
        );
    }

    #[test]
    fn permute_moves_every_item_to_its_place() {
        // Every permutation of five items, and a long one of several cycles.
        let mut orders: Vec<Vec<usize>> = Vec::new();
        for code in 0..5usize.pow(5) {
            let order: Vec<usize> = (0..5).map(|i| code / 5usize.pow(i) % 5).collect();
            let mut seen = order.clone();
            seen.sort_unstable();
            if seen == [0, 1, 2, 3, 4] {
                orders.push(order);
            }
        }
        assert_eq!(orders.len(), 120);
        orders.push((0..1000).map(|i| (i * 7 + 3) % 1000).collect());
        for order in orders {
            let items: Vec<String> = (0..order.len()).map(|i| format!("item {i}")).collect();
            let want: Vec<String> = order.iter().map(|&i| items[i].clone()).collect();
            let mut got = items;
            permute(&mut got, &mut order.clone());
            assert_eq!(got, want, "{order:?}");
        }
    }
}
