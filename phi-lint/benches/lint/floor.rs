//! The floor phi-lint is measured against: read every `.rs` file, `syn::parse_file` it and visit
//! the whole tree with a trivial visitor, on all cores. Shared by the benchmark (`benches/lint.rs`)
//! and the `parse_floor` example, which runs it as a process of its own so that callgrind can count
//! its instructions beside phi-lint's.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use syn::visit::Visit;

/// The floor: read, parse and fully visit every file, in parallel. Returns the macro count so
/// that the work cannot be optimised away.
pub(crate) fn parse_only(files: &[PathBuf]) -> Result<usize, String> {
    files
        .par_iter()
        .map(|path| {
            let source =
                fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let file = syn::parse_file(&source).map_err(|e| {
                let at = e.span().start();
                format!("{}:{}:{}: {e}", path.display(), at.line, at.column + 1)
            })?;
            let mut counter = MacroCounter::default();
            counter.visit_file(black_box(&file));
            Ok(counter.macros)
        })
        .sum()
}

/// Counts `Macro` nodes (macro calls in expressions, statements, items, types and patterns) while
/// visiting every node of the tree.
#[derive(Default)]
struct MacroCounter {
    macros: usize,
}

impl<'ast> Visit<'ast> for MacroCounter {
    fn visit_macro(&mut self, node: &'ast syn::Macro) {
        self.macros += 1;
        syn::visit::visit_macro(self, node);
    }
}

/// Every `.rs` file under `root`, sorted, skipping `target/` and hidden directories.
pub(crate) fn rust_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            let name = entry.file_name();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                if name != "target" && !name.to_string_lossy().starts_with('.') {
                    dirs.push(path);
                }
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}
