//! The forced store fault: with the service running, the `series` table of its database is
//! renamed away from outside (a second `SQLite` connection, as an operator's mistake or a broken
//! migration would leave it), one call is made, and the table is renamed back.
//!
//! The fault is real: the service's next statement fails in `SQLite` itself ("no such table"),
//! and the tool must answer with an error envelope naming the fault kind (`store_fault`) and
//! the error's type, never its message; and after the repair the same call must answer again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use rusqlite::Connection;

/// The name the table is hidden under while the fault lasts.
const HIDDEN: &str = "series_hidden_by_phi_ci";

/// A store that can be broken and repaired while the service runs.
pub(crate) trait StoreFault {
    /// Breaks the store.
    fn inject(&mut self) -> anyhow::Result<()>;
    /// Undoes [`StoreFault::inject`].
    fn repair(&mut self) -> anyhow::Result<()>;
}

/// The fault on a database file the pipeline can reach (a local file, or a container's bind
/// mount).
pub(crate) struct RenameTable {
    db: PathBuf,
    broken: bool,
}

impl RenameTable {
    pub(crate) fn new(db: &Path) -> RenameTable {
        RenameTable {
            db: db.to_path_buf(),
            broken: false,
        }
    }

    fn rename(&self, from: &str, to: &str) -> anyhow::Result<()> {
        let conn = Connection::open(&self.db)
            .with_context(|| format!("cannot open {}", self.db.display()))?;
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.execute_batch(&format!("ALTER TABLE {from} RENAME TO {to}"))
            .with_context(|| format!("cannot rename the table {from}"))
    }
}

impl StoreFault for RenameTable {
    fn inject(&mut self) -> anyhow::Result<()> {
        self.rename("series", HIDDEN)?;
        self.broken = true;
        Ok(())
    }

    fn repair(&mut self) -> anyhow::Result<()> {
        self.rename(HIDDEN, "series")?;
        self.broken = false;
        Ok(())
    }
}

impl Drop for RenameTable {
    fn drop(&mut self) {
        if self.broken {
            let _ = self.rename(HIDDEN, "series");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_away_and_back() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.db");
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch("CREATE TABLE series (id INTEGER); INSERT INTO series VALUES (1);")
            .unwrap();
        let mut fault = RenameTable::new(&db);
        fault.inject().unwrap();
        assert!(
            conn.query_row("SELECT count(*) FROM series", [], |r| r.get::<_, i64>(0))
                .is_err()
        );
        fault.repair().unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM series", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        // A second repair has nothing to rename: an error, not a silent pass.
        assert!(fault.repair().is_err());
    }
}
