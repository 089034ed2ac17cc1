//! A record to import into, and every table of it read back from a second connection.

use std::path::{Path, PathBuf};

use answers_fhir::{Format, ImportError, Limits, Summary, import_file};
use answers_store::{Store, Subject};

/// A file-backed store with one subject, in its own directory.
pub(crate) struct Record {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) store: Store,
    pub(crate) you: Subject,
}

impl Record {
    pub(crate) fn new() -> Record {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("record.db")).unwrap();
        let you = store
            .upsert_subject("subj-you-1", "you", "Europe/Berlin")
            .unwrap();
        Record { dir, store, you }
    }

    pub(crate) fn db(&self) -> PathBuf {
        self.dir.path().join("record.db")
    }

    pub(crate) fn import(&mut self, path: &Path) -> Result<Summary, ImportError> {
        self.import_with(path, Limits::default())
    }

    pub(crate) fn import_with(
        &mut self,
        path: &Path,
        limits: Limits,
    ) -> Result<Summary, ImportError> {
        import_file(
            &mut self.store,
            &self.you,
            path,
            Format::of_path(path),
            limits,
        )
    }

    /// Every row of every table, each table by name and in a fixed order.
    pub(crate) fn dump(&self) -> Vec<(String, Vec<String>)> {
        dump(&self.db())
    }
}

/// Every row of every table of the database at `path`, as text, sorted.
pub(crate) fn dump(path: &Path) -> Vec<(String, Vec<String>)> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    names.retain(|n| !n.starts_with("sqlite_"));
    names
        .into_iter()
        .map(|name| {
            let mut stmt = conn.prepare(&format!("SELECT * FROM \"{name}\"")).unwrap();
            let width = stmt.column_count();
            let mut rows: Vec<String> = stmt
                .query_map([], |r| {
                    let cells: Vec<String> = (0..width)
                        .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap()))
                        .collect();
                    Ok(cells.join("|"))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            rows.sort();
            (name, rows)
        })
        .collect()
}

/// How many rows `table` has.
pub(crate) fn rows(dump: &[(String, Vec<String>)], table: &str) -> usize {
    dump.iter()
        .find(|(n, _)| n == table)
        .map_or(0, |(_, r)| r.len())
}
