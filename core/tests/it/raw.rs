//! The database from outside the store, as an operator, a broken migration or a second process
//! would reach it. The store hands out no connection, so what the fault tests break on purpose
//! and what the record checks read back (an oracle independent of the store's own queries)
//! go through a second connection to the same file.

use std::path::{Path, PathBuf};

use answers_store::Store;

/// A second connection to the database file at `path`.
pub(crate) fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).expect("open the database from outside the store")
}

/// A store on a file of its own, so a test can reach its database from outside.
pub(crate) struct FileStore {
    pub(crate) store: Store,
    pub(crate) path: PathBuf,
    _dir: tempfile::TempDir,
}

impl FileStore {
    /// A new, empty store in a temporary directory.
    pub(crate) fn new() -> FileStore {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("record.db");
        let store = Store::open(&path).expect("open the store");
        FileStore {
            store,
            path,
            _dir: dir,
        }
    }

    /// A second connection to the store's file.
    pub(crate) fn raw(&self) -> rusqlite::Connection {
        raw(&self.path)
    }
}

impl std::ops::Deref for FileStore {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

impl std::ops::DerefMut for FileStore {
    fn deref_mut(&mut self) -> &mut Store {
        &mut self.store
    }
}
