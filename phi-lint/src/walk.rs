//! What to lint: the scan root, its configuration, and the `.rs` files under the given paths.
//!
//! Two sources, both counted in the summary:
//! - **reached** files: what the crates under the scan root compile, from their `Cargo.toml`
//!   targets through `mod`, `#[path]` and `include!` (see [`crate::resolve`]), whatever
//!   `.gitignore`, `.ignore`, hidden directories or symlinks say;
//! - **unreached** files: every other `.rs` file the directory walk finds. The walk follows
//!   `.gitignore` and `.ignore` (also outside a git repository), skips hidden entries and
//!   `target/`, and treats a file under a `tests/`, `benches/` or `examples/` directory as test
//!   code, since no crate says otherwise.
//!
//! Test code (a test target's files, `#[cfg(test)]` modules, and those unreached test-directory
//! files) is linted only with `scan-tests`. A file given by path is always linted. Files matching
//! `exclude` are counted, never linted. Everything that cannot be read or resolved fails closed.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use globset::{GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;
use rayon::prelude::*;

use crate::Error;
use crate::config::{Config, Source};
use crate::finding::FileError;
use crate::resolve::outline::{ItemNames, Outline};
use crate::resolve::{self, Role};

/// Directories whose unreached files are test code.
const TEST_DIRS: &[&str] = &["tests", "benches", "examples"];

/// A resolved scan: root, configuration and files, ready for [`crate::lint`].
#[derive(Debug, Clone)]
pub struct Scan {
    /// The scan root: the single directory given, else the current directory. Reported paths,
    /// the configuration and the baseline are relative to it.
    pub root: PathBuf,
    /// The configuration in force.
    pub config: Config,
    /// Where the configuration came from.
    pub config_source: Source,
    /// The files to lint, sorted, each with its path relative to the root (`/` separators).
    pub files: Vec<(PathBuf, String)>,
    /// Entries the walk or the resolver could not read or resolve. The check fails closed on them.
    pub walk_errors: Vec<FileError>,
    /// How the files to lint were found.
    pub counts: ScanCounts,
    /// Files matched by `exclude`, root-relative, sorted: counted, not linted.
    pub excluded: Vec<String>,
    /// Build scripts and their modules (root-relative), whose `cargo:` lines are not logs.
    pub build_scripts: BTreeSet<String>,
    /// What the items of the files may define: a file whose first lint missed none of these
    /// names needs no second (see `engine::two_phase`).
    pub(crate) item_names: ItemNames,
    /// Each file's quiet function bodies, whose insides the lint's parse blanks (see
    /// `engine::bodies`): those whose macros the whole scan shows neutral.
    pub(crate) quiet_bodies: crate::resolve::QuietBodies,
}

/// How many files of each kind a scan found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanCounts {
    /// Files to lint that a crate compiles (reached from its `Cargo.toml` targets).
    pub reached: usize,
    /// Files to lint that no crate under the root reaches, found by the directory walk.
    pub unreached: usize,
    /// Files to lint given by path on the command line.
    pub given: usize,
    /// Test code not linted (without `scan-tests`).
    pub test_files: usize,
    /// Files matched by `exclude`.
    pub excluded: usize,
}

impl Scan {
    /// Resolves `paths` (the current directory if empty) and loads the configuration.
    pub fn new(paths: &[PathBuf], config: Option<&Path>) -> Result<Scan, Error> {
        let paths: Vec<PathBuf> = if paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            paths.to_vec()
        };
        for p in &paths {
            check_given(p)?;
        }
        let root = match paths.as_slice() {
            [one] if one.is_dir() => one.clone(),
            _ => PathBuf::from("."),
        };
        let (config, config_source) = Config::load(&root, config)?;
        let exclude_globs = exclude_set(&config);
        let max = config.max_file_size();

        let mut given = Vec::new();
        let mut walked = BTreeSet::new();
        let mut manifests = Vec::new();
        let mut walk_errors = Vec::new();
        for p in &paths {
            if p.is_file() {
                if p.strip_prefix(&root).unwrap_or(p).to_str().is_some() {
                    given.push(relative(&root, p));
                } else {
                    walk_errors.push(not_utf8(relative(&root, p)));
                }
                continue;
            }
            walk(&root, p, &mut walked, &mut manifests, &mut walk_errors);
        }

        let mut resolved =
            resolve::resolve(&root, &manifests, &exclude_globs, max, config.scan_tests);
        walk_errors.append(&mut resolved.errors);
        // A file over the parse's token bound is an error only where it is linted.
        let mut too_large = std::mem::take(&mut resolved.too_large);
        let mut counts = ScanCounts::default();
        let mut excluded: BTreeSet<String> = resolved.excluded;
        let mut build_scripts = BTreeSet::new();
        let mut files: Vec<(PathBuf, String)> = Vec::new();
        for (rel, role) in &resolved.files {
            match role {
                Role::Test if !config.scan_tests => counts.test_files += 1,
                _ if too_large.contains_key(rel) => {
                    walk_errors.extend(too_large.remove(rel));
                }
                _ => {
                    if *role == Role::BuildScript {
                        build_scripts.insert(rel.clone());
                    }
                    counts.reached += 1;
                    files.push((root.join(rel), rel.clone()));
                }
            }
        }

        // What the walk found that no crate reaches.
        let mut unreached = Vec::new();
        for rel in walked {
            if resolved.files.contains_key(&rel) || resolved.seen.contains(&rel) {
                continue;
            }
            if exclude_globs.is_match(&rel) {
                excluded.insert(rel);
            } else if !config.scan_tests && in_test_dir(&rel) {
                counts.test_files += 1;
            } else {
                unreached.push(rel);
            }
        }
        let mut item_names = resolved.names;
        let mut quiet_bodies = resolved.quiet_bodies;
        let checked: Vec<Result<Outline, FileError>> = unreached
            .par_iter()
            .chain(given.par_iter())
            .map(|rel| resolve::load(&root, rel, max))
            .collect();
        let n_unreached = unreached.len();
        for (i, (rel, ok)) in unreached.into_iter().chain(given).zip(checked).enumerate() {
            let ok = ok.and_then(|mut o| match resolve::too_large(&rel, &mut o) {
                Some(e) => Err(e),
                None => Ok(o),
            });
            match ok {
                Err(e) => walk_errors.push(e),
                Ok(mut names) if i < n_unreached => {
                    take_quiet(&mut quiet_bodies, &rel, &mut names);
                    item_names.add(names);
                    counts.unreached += 1;
                    files.push((root.join(&rel), rel));
                }
                Ok(mut names) => {
                    take_quiet(&mut quiet_bodies, &rel, &mut names);
                    item_names.add(names);
                    counts.given += 1;
                    files.push((root.join(&rel), rel));
                }
            }
        }
        files.sort_by(|a, b| a.1.cmp(&b.1));
        files.dedup_by(|a, b| a.1 == b.1);
        counts.excluded = excluded.len();
        if files.is_empty()
            && counts.test_files == 0
            && excluded.is_empty()
            && walk_errors.is_empty()
        {
            return Err(Error::NoRustFiles {
                path: paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let quiet_bodies = neutral_only(quiet_bodies, &config, &item_names);
        Ok(Scan {
            root,
            config,
            config_source,
            files,
            walk_errors,
            counts,
            excluded: excluded.into_iter().collect(),
            build_scripts,
            quiet_bodies,
            item_names,
        })
    }
}

/// The quiet bodies whose macros are all neutral: no item of the scan may define one (a
/// `macro_rules!`, a `use … as` rename) and none is a configured wrapper.
fn neutral_only(
    all: crate::resolve::QuietBodies,
    config: &Config,
    names: &ItemNames,
) -> crate::resolve::QuietBodies {
    all.into_iter()
        .filter_map(|(rel, bodies)| {
            let kept: Vec<_> = bodies
                .into_iter()
                .filter(|b| {
                    b.macros
                        .iter()
                        .all(|m| config.wrapper(m).is_none() && !names.could_define(m))
                })
                .collect();
            (!kept.is_empty()).then_some((rel, kept))
        })
        .collect()
}

/// Keeps a file's quiet function bodies, found by its outline.
fn take_quiet(
    all: &mut crate::resolve::QuietBodies,
    rel: &str,
    outline: &mut crate::resolve::outline::Outline,
) {
    if !outline.quiet_bodies.is_empty() {
        all.insert(rel.to_owned(), std::mem::take(&mut outline.quiet_bodies));
    }
}

/// A path given on the command line: it must exist, and a file must be a regular file.
fn check_given(p: &Path) -> Result<(), Error> {
    let fail = |message: &str| Error::Path {
        path: p.display().to_string(),
        message: message.to_owned(),
    };
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() || m.is_dir() => Ok(()),
        Ok(_) => Err(fail("not a regular file or directory")),
        Err(_) if std::fs::symlink_metadata(p).is_ok() => Err(fail("dangling symlink")),
        Err(_) => Err(fail("no such file or directory")),
    }
}

/// Walks the directory `dir`: `.rs` files and `Cargo.toml`s, root-relative.
fn walk(
    root: &Path,
    dir: &Path,
    rust: &mut BTreeSet<String>,
    manifests: &mut Vec<String>,
    errors: &mut Vec<FileError>,
) {
    let walker = WalkBuilder::new(dir)
        .require_git(false)
        .filter_entry(|entry| {
            !(entry.depth() > 0
                && entry.file_name() == "target"
                && entry.file_type().is_some_and(|t| t.is_dir()))
        })
        .build();
    for entry in walker {
        match entry {
            Ok(e) => {
                let Some(t) = e.file_type() else { continue };
                if t.is_dir() {
                    continue;
                }
                let rel = relative(root, e.path());
                let named = e.path().strip_prefix(root).unwrap_or(e.path());
                if named.to_str().is_none()
                    && (e.path().extension().is_some_and(|x| x == "rs")
                        || e.file_name() == "Cargo.toml")
                {
                    // Files are read and reported by a UTF-8 path; a lossy one names no file.
                    errors.push(not_utf8(rel));
                } else if e.path().extension().is_some_and(|x| x == "rs") {
                    // Symlinks too: loading follows them, and fails on a dangling one.
                    rust.insert(rel);
                } else if t.is_file() && e.file_name() == "Cargo.toml" {
                    manifests.push(rel);
                }
            }
            Err(err) => errors.push(FileError {
                file: dir.display().to_string(),
                pos: None,
                message: format!("cannot walk: {}", lower_first(&err.to_string())),
            }),
        }
    }
}

/// Whether an unreached file sits under a `tests/`, `benches/` or `examples/` directory.
fn in_test_dir(rel: &str) -> bool {
    rel.split('/').rev().skip(1).any(|c| TEST_DIRS.contains(&c))
}

fn exclude_set(config: &Config) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in &config.exclude {
        // Validated when the configuration was loaded.
        if let Ok(glob) = globset::Glob::new(g.get_ref()) {
            b.add(glob);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// The error for a file whose path is not UTF-8: phi-lint names files in reports and baselines by
/// a UTF-8 path, and a lossy one would name a file that does not exist.
fn not_utf8(rel: String) -> FileError {
    FileError {
        file: rel,
        pos: None,
        message: "the path is not valid UTF-8; phi-lint cannot name it in a report, so it is \
                  not linted (rename the file)"
            .into(),
    }
}

/// `path` relative to `root`, with `/` separators and no leading `./`.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let Ok(rel) = path.strip_prefix(root) else {
        // Outside the root (an absolute path, or `../x.rs`): reported as given.
        return path.to_string_lossy().into_owned();
    };
    let parts: Vec<String> = rel
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// An I/O error's message, lower-case first, without the OS error number.
pub(crate) fn io_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    let s = match s.find(" (os error") {
        Some(at) => s[..at].to_owned(),
        None => s,
    };
    lower_first(&s)
}

pub(crate) fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_directories() {
        assert!(in_test_dir("crates/a/tests/t.rs"));
        assert!(in_test_dir("examples/e/main.rs"));
        assert!(!in_test_dir("src/tests.rs"));
        assert!(!in_test_dir("tests.rs"));
    }

    /// The scan hands the lint the bodies to blank: quiet ones, and those whose macros no item
    /// of the scan defines and no wrapper names, in reached and unreached files alike.
    #[test]
    fn the_scan_keeps_the_quiet_bodies_whose_macros_are_neutral() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let files = [
            (
                "Cargo.toml",
                "[package]\nname = \"a\"\nversion = \"0.1.0\"\n",
            ),
            (
                "phiguard.toml",
                "[lint.wrappers]\naudit = \"tracing::info\"\n",
            ),
            (
                "src/lib.rs",
                "#[macro_use]\nmod shadow;\n\
                 fn plain() -> u8 { let a_body_long_enough_to_be_worth_blanking_as_a_quiet_one_when_scanned = 0; 1 }\n\
                 fn neutral() -> String { let a_body_long_enough_to_be_worth_blanking_when_scanned = 0; format!(\"{}\", 1) }\n\
                 fn shadowed(p: &P) { shout!(p.name) }\n\
                 fn wrapped(p: &P) { audit!(\"{}\", p.name) }\n\
                 fn loud(p: &P) { tracing::info!(a = %p.name) }\n",
            ),
            (
                "src/shadow.rs",
                "macro_rules! shout { ($e:expr) => { $e } }\n",
            ),
            (
                "other/loose.rs",
                "fn alone() -> u8 { let a_body_long_enough_to_be_worth_blanking_as_a_quiet_one_when_scanned = 0; 2 }\n",
            ),
        ];
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
            std::fs::write(path, text).expect("a file");
        }
        let scan = Scan::new(&[dir.path().to_path_buf()], None).expect("a scan");
        let bodies = |rel: &str| -> Vec<String> {
            let text = files.iter().find(|(r, _)| *r == rel).expect("a file").1;
            scan.quiet_bodies.get(rel).map_or_else(Vec::new, |b| {
                b.iter()
                    .map(|q| text[q.inside.0..q.inside.1].trim().to_owned())
                    .collect()
            })
        };
        assert_eq!(
            bodies("src/lib.rs"),
            [
                "let a_body_long_enough_to_be_worth_blanking_as_a_quiet_one_when_scanned = 0; 1",
                "let a_body_long_enough_to_be_worth_blanking_when_scanned = 0; format!(\"{}\", 1)"
            ]
        );
        assert_eq!(
            bodies("other/loose.rs"),
            ["let a_body_long_enough_to_be_worth_blanking_as_a_quiet_one_when_scanned = 0; 2"]
        );
        assert!(bodies("src/shadow.rs").is_empty());
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("."), Path::new("./src/a.rs")),
            "src/a.rs"
        );
        assert_eq!(
            relative(Path::new("/r"), Path::new("/r/src/a.rs")),
            "src/a.rs"
        );
    }
}
