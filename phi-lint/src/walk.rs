//! What to lint: the scan root, its configuration, and the `.rs` files under the given paths.
//!
//! The walk follows `.gitignore` (also outside a git repository), skips `target/`, the
//! configured `exclude` globs and, unless `scan-tests` is set, `tests/`, `benches/` and
//! `examples/`. A file given explicitly is always linted.

use std::path::{Component, Path, PathBuf};

use globset::{GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;

use crate::Error;
use crate::config::{Config, Source};
use crate::finding::FileError;

/// Directories that hold test code, skipped unless `scan-tests` is set.
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
    /// Entries the walk could not read. The check fails closed on them.
    pub walk_errors: Vec<FileError>,
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
            if !p.exists() {
                return Err(Error::Path {
                    path: p.display().to_string(),
                    message: "no such file or directory".into(),
                });
            }
        }
        let root = match paths.as_slice() {
            [one] if one.is_dir() => one.clone(),
            _ => PathBuf::from("."),
        };
        let (config, config_source) = Config::load(&root, config)?;
        let excludes = exclude_set(&config);
        let mut files = Vec::new();
        let mut walk_errors = Vec::new();
        for p in &paths {
            if p.is_file() {
                files.push((p.clone(), relative(&root, p)));
                continue;
            }
            let walk_root = root.clone();
            let walk_excludes = excludes.clone();
            let scan_tests = config.scan_tests;
            let walker = WalkBuilder::new(p)
                .require_git(false)
                .filter_entry(move |entry| {
                    let rel = relative(&walk_root, entry.path());
                    keep(
                        &rel,
                        entry.file_type().is_some_and(|t| t.is_dir()),
                        scan_tests,
                        &walk_excludes,
                    )
                })
                .build();
            for entry in walker {
                match entry {
                    Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                        if e.path().extension().is_some_and(|x| x == "rs") {
                            files.push((e.path().to_owned(), relative(&root, e.path())));
                        }
                    }
                    Ok(_) => {}
                    Err(err) => walk_errors.push(FileError {
                        file: p.display().to_string(),
                        pos: None,
                        message: format!("cannot walk: {}", lower_first(&err.to_string())),
                    }),
                }
            }
        }
        files.sort_by(|a, b| a.1.cmp(&b.1));
        files.dedup_by(|a, b| a.1 == b.1);
        Ok(Scan {
            root,
            config,
            config_source,
            files,
            walk_errors,
        })
    }
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

/// Whether the walk keeps an entry with root-relative path `rel`.
fn keep(rel: &str, is_dir: bool, scan_tests: bool, excludes: &GlobSet) -> bool {
    if rel.is_empty() || rel == "." {
        return true;
    }
    if excludes.is_match(rel) {
        return false;
    }
    if is_dir {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if name == "target" || (!scan_tests && TEST_DIRS.contains(&name)) {
            return false;
        }
    }
    true
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
    fn keeps_and_skips() {
        let none = GlobSet::empty();
        assert!(keep("src/lib.rs", false, false, &none));
        assert!(!keep("target", true, false, &none));
        assert!(!keep("crates/a/tests", true, false, &none));
        assert!(keep("crates/a/tests", true, true, &none));
        assert!(keep("src/tests.rs", false, false, &none));
        let mut b = GlobSetBuilder::new();
        b.add(globset::Glob::new("vendor/**").unwrap());
        let ex = b.build().unwrap();
        assert!(!keep("vendor/x/y.rs", false, false, &ex));
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
