//! PHI at rest: the database file and its `-wal` and `-shm` companions are the owner's alone.
//!
//! - A new database file is created `0600` before `SQLite` opens it, and its mode is set after
//!   the create too, so the umask changes nothing.
//! - An existing file that group or others can access (any of `0o077`) is refused before it is
//!   opened, unless [`OpenOptions::allow_shared_permissions`] says the sharing is meant.
//! - After opening, the `-wal` and `-shm` files (which `SQLite` creates itself) are set to
//!   `0600`; with shared permissions allowed, they are left as they are.
//!
//! - With [`OpenOptions::must_exist`], a missing file is refused ([`DbError::Missing`])
//!   instead of created: every command but `seed` opens a record, and an empty new one would
//!   serve nobody.
//!
//! On a platform without Unix permissions only the file is created; nothing is checked.

use std::path::{Path, PathBuf};

use crate::DbError;

/// How [`Db::open_sqlite`](crate::Db::open_sqlite) opens a database file.
///
/// ```
/// use answers_db::OpenOptions;
///
/// assert!(!OpenOptions::default().allow_shared_permissions);
/// assert!(!OpenOptions::default().must_exist);
/// let shared = OpenOptions { allow_shared_permissions: true, ..OpenOptions::default() };
/// assert!(shared.allow_shared_permissions);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// Open a database file that group or others can access, and leave the modes of its
    /// `-wal` and `-shm` files alone (the CLI's `--allow-shared-permissions`). Off by default:
    /// such a file is refused.
    pub allow_shared_permissions: bool,
    /// Refuse a database file that does not exist ([`DbError::Missing`]) instead of
    /// creating it. Off by default: a new record is created.
    pub must_exist: bool,
}

/// The owner's read and write bits, nothing for group or others.
#[cfg(unix)]
const PRIVATE: u32 = 0o600;

/// Creates the database file `0600` if it does not exist (or refuses it, if `options` say it
/// must exist), and refuses an existing one that group or others can access unless `options`
/// allow it.
pub(crate) fn prepare(path: &Path, options: OpenOptions) -> Result<(), DbError> {
    let io = |op| move |e: std::io::Error| DbError::File { op, kind: e.kind() };
    if options.must_exist {
        return match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => check(path, options),
            Ok(_) => Err(DbError::File {
                op: "open",
                kind: std::io::ErrorKind::InvalidInput,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(DbError::Missing),
            Err(e) => Err(io("open")(e)),
        };
    }
    let mut create = std::fs::OpenOptions::new();
    create.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut create, PRIVATE);
    match create.open(path) {
        Ok(file) => {
            // The umask may have taken bits away (never added them): set the mode exactly.
            #[cfg(unix)]
            file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(PRIVATE))
                .map_err(io("create"))?;
            drop(file);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => check(path, options),
        Err(e) => Err(io("create")(e)),
    }
}

/// Refuses `path` if group or others can access it and `options` do not allow that.
#[cfg(unix)]
fn check(path: &Path, options: OpenOptions) -> Result<(), DbError> {
    use std::os::unix::fs::PermissionsExt;
    if options.allow_shared_permissions {
        return Ok(());
    }
    let meta = std::fs::metadata(path).map_err(|e| DbError::File {
        op: "open",
        kind: e.kind(),
    })?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(DbError::SharedPermissions { mode });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check(_path: &Path, _options: OpenOptions) -> Result<(), DbError> {
    Ok(())
}

/// Sets the `-wal` and `-shm` files of `path` that exist to `0600`, unless `options` allow
/// shared permissions.
pub(crate) fn private_companions(path: &Path, options: OpenOptions) -> Result<(), DbError> {
    if options.allow_shared_permissions {
        return Ok(());
    }
    for suffix in ["-wal", "-shm"] {
        let companion = with_suffix(path, suffix);
        #[cfg(unix)]
        match std::fs::set_permissions(
            &companion,
            std::os::unix::fs::PermissionsExt::from_mode(PRIVATE),
        ) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(DbError::File {
                    op: "set the mode of",
                    kind: e.kind(),
                });
            }
        }
        #[cfg(not(unix))]
        let _ = companion;
    }
    Ok(())
}

/// `path` with `suffix` appended to its file name: `answers.db-wal`.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::test_support::SCHEMA;
    use crate::{Args, Db};

    fn open(path: &Path) -> Result<Db, DbError> {
        Db::open_sqlite(path, OpenOptions::default(), &SCHEMA)
    }

    /// A row written: `SQLite` makes the `-wal` and `-shm` files.
    fn write(db: &Db) {
        db.exec(
            "write",
            "INSERT INTO note (body) VALUES ('x')",
            Args::Pos(&[]),
        )
        .unwrap();
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_database_and_its_wal_and_shm_are_private() {
        let dir = tempfile::tempdir().unwrap();
        // Permissive as a umask goes: the mode must not come from it.
        std::fs::set_permissions(dir.path(), PermissionsExt::from_mode(0o755)).unwrap();
        let path = dir.path().join("answers.db");
        let store = open(&path).unwrap();
        write(&store);
        for file in [
            path.clone(),
            with_suffix(&path, "-wal"),
            with_suffix(&path, "-shm"),
        ] {
            assert!(file.exists(), "{}", file.display());
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
    }

    #[test]
    fn a_readable_database_is_refused_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("answers.db");
        drop(open(&path).unwrap());
        std::fs::set_permissions(&path, PermissionsExt::from_mode(0o644)).unwrap();
        let err = open(&path).unwrap_err();
        assert!(
            matches!(err, DbError::SharedPermissions { mode: 0o644 }),
            "{err}"
        );
        assert!(err.to_string().contains("0644"), "{err}");
        // Refused before it is opened: the mode is untouched.
        assert_eq!(mode(&path), 0o644);

        let shared = OpenOptions {
            allow_shared_permissions: true,
            ..OpenOptions::default()
        };
        let store = Db::open_sqlite(&path, shared, &SCHEMA).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA.version);
        assert_eq!(mode(&path), 0o644);
    }

    #[test]
    fn a_missing_database_is_refused_when_it_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing.db");
        let existing = OpenOptions {
            must_exist: true,
            ..OpenOptions::default()
        };
        let err = Db::open_sqlite(&path, existing, &SCHEMA).unwrap_err();
        assert!(matches!(err, DbError::Missing), "{err}");
        assert!(!path.exists(), "nothing was created");
        drop(open(&path).unwrap());
        let store = Db::open_sqlite(&path, existing, &SCHEMA).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA.version);
        // A shared file is still refused when it must exist.
        std::fs::set_permissions(&path, PermissionsExt::from_mode(0o640)).unwrap();
        let err = Db::open_sqlite(&path, existing, &SCHEMA).unwrap_err();
        assert!(
            matches!(err, DbError::SharedPermissions { mode: 0o640 }),
            "{err}"
        );
    }

    #[test]
    fn companions_left_readable_are_made_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("answers.db");
        let store = open(&path).unwrap();
        write(&store);
        let wal = with_suffix(&path, "-wal");
        std::fs::set_permissions(&wal, PermissionsExt::from_mode(0o644)).unwrap();
        let again = open(&path).unwrap();
        assert_eq!(mode(&wal), 0o600);
        drop((store, again));
    }
}
