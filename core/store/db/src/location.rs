//! Where a record lives: a `SQLite` file (the default) or a `PostgreSQL` database, named the way
//! an operator writes it (`--database`, `ANSWERS_DATABASE_URL`).
//!
//! - `postgres://…` or `postgresql://…`: a `PostgreSQL` connection URL (`libpq`'s form, with
//!   `?host=/run/postgresql` for a Unix socket);
//! - `sqlite:PATH`: a `SQLite` file;
//! - anything else: a `SQLite` file path (today's default is `answers.db`).
//!
//! A location is shown ([`Display`](std::fmt::Display), [`Debug`]) with any password replaced
//! by `***`, in the user part and in a `password=` parameter alike, so it can be logged.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// The default record: a `SQLite` file in the working directory.
pub const DEFAULT_DATABASE: &str = "answers.db";

/// A store's location, parsed.
///
/// ```
/// use answers_db::{Backend, Location};
///
/// let pg = Location::parse("postgres://answers:s3cret@db.internal:5432/records")?;
/// assert_eq!(pg.backend(), Backend::Postgres);
/// assert_eq!(pg.to_string(), "postgres://answers:***@db.internal:5432/records");
/// assert_eq!(format!("{pg:?}"), "Location(postgres://answers:***@db.internal:5432/records)");
///
/// let file = Location::parse("sqlite:records/answers.db")?;
/// assert_eq!(file.sqlite_path(), Some(std::path::Path::new("records/answers.db")));
/// assert_eq!(Location::parse("answers.db")?, Location::default());
/// # Ok::<(), answers_db::LocationError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Location(Kind);

#[derive(Clone, PartialEq, Eq)]
enum Kind {
    Sqlite(PathBuf),
    Postgres {
        /// The URL as given: what the driver parses. Never shown.
        url: String,
        /// The URL with its password replaced: what is shown.
        shown: String,
    },
}

/// Which database a [`Db`](crate::Db) is on.
///
/// ```
/// assert_eq!(answers_db::Backend::Sqlite.as_str(), "sqlite");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// An embedded `SQLite` file (or memory).
    Sqlite,
    /// A `PostgreSQL` server.
    Postgres,
}

impl Backend {
    /// The backend's name, as logs and figures name it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a location was refused. Never quotes the location (it may hold a password).
///
/// ```
/// use answers_db::{Location, LocationError};
///
/// assert_eq!(Location::parse(""), Err(LocationError::Empty));
/// assert_eq!(Location::parse("postgres://u:pw@host:99999/db"), Err(LocationError::Malformed));
/// assert_eq!(Location::parse("mysql://host/db"), Err(LocationError::UnknownScheme));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LocationError {
    /// Nothing was given.
    #[error("the database location is empty")]
    Empty,
    /// A `postgres://` URL the driver cannot read (a bad port, a bad escape, an unknown
    /// parameter).
    #[error("the PostgreSQL URL is malformed; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DB")]
    Malformed,
    /// An `sslmode` other than `libpq`'s `disable`, `prefer`, `require`, `verify-ca` and
    /// `verify-full` (`allow` is refused: it would try cleartext first).
    #[error("unknown sslmode; use disable, prefer, require, verify-ca or verify-full")]
    UnknownSslMode,
    /// A URL scheme other than `postgres`, `postgresql` or `sqlite`.
    #[error("unknown database URL scheme; use postgres://…, sqlite:PATH or a file path")]
    UnknownScheme,
}

impl Location {
    /// Parses `text`: a `PostgreSQL` URL, `sqlite:PATH`, or a `SQLite` file path.
    pub fn parse(text: &str) -> Result<Location, LocationError> {
        if text.trim().is_empty() {
            return Err(LocationError::Empty);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            let tls = crate::pg::tls::split(text)?;
            postgres::Config::from_str(&tls.url).map_err(|_| LocationError::Malformed)?;
            return Ok(Location(Kind::Postgres {
                url: text.to_owned(),
                shown: redact(text),
            }));
        }
        if let Some(path) = text.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(LocationError::Empty);
            }
            return Ok(Location::sqlite(path));
        }
        // A scheme-looking prefix (`mysql://`) is a mistake, not a file name.
        if let Some((scheme, _)) = text.split_once("://")
            && !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        {
            return Err(LocationError::UnknownScheme);
        }
        Ok(Location::sqlite(text))
    }

    /// A `SQLite` file at `path`.
    #[must_use]
    pub fn sqlite(path: impl Into<PathBuf>) -> Location {
        Location(Kind::Sqlite(path.into()))
    }

    /// The backend this location names.
    #[must_use]
    pub fn backend(&self) -> Backend {
        match self.0 {
            Kind::Sqlite(_) => Backend::Sqlite,
            Kind::Postgres { .. } => Backend::Postgres,
        }
    }

    /// The file of a `SQLite` location; `None` for `PostgreSQL`.
    #[must_use]
    pub fn sqlite_path(&self) -> Option<&Path> {
        match &self.0 {
            Kind::Sqlite(path) => Some(path),
            Kind::Postgres { .. } => None,
        }
    }

    /// The URL of a `PostgreSQL` location, password included: for the driver only, never to
    /// be shown or logged.
    pub(crate) fn postgres_url(&self) -> Option<&str> {
        match &self.0 {
            Kind::Sqlite(_) => None,
            Kind::Postgres { url, .. } => Some(url),
        }
    }
}

impl Default for Location {
    /// `answers.db` in the working directory.
    fn default() -> Location {
        Location::sqlite(DEFAULT_DATABASE)
    }
}

impl FromStr for Location {
    type Err = LocationError;

    fn from_str(text: &str) -> Result<Location, LocationError> {
        Location::parse(text)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Kind::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            Kind::Postgres { shown, .. } => f.write_str(shown),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Location({self})")
    }
}

/// The query parameters whose values are shown: none of them can hold a secret. Every other
/// parameter's value (`password`, and any key spelt another way) is shown as `***`.
const SHOWN_PARAMETERS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "sslmode",
    "sslrootcert",
    "sslnegotiation",
    "application_name",
    "connect_timeout",
    "keepalives",
    "keepalives_idle",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
];

/// `url` with its password replaced by `***`, read the way the driver reads it: the credentials
/// run to the first `@` of the URL (so a password may hold `/`, `?` or `:`), and the password
/// is what follows the first `:` in them. A query parameter's value is shown only for the keys
/// of [`SHOWN_PARAMETERS`].
fn redact(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (credentials, rest) = match rest.split_once('@') {
        Some((credentials, after)) => {
            let user = credentials
                .split_once(':')
                .map_or(credentials, |(name, _)| name);
            let hidden = if credentials.contains(':') {
                ":***"
            } else {
                ""
            };
            (format!("{user}{hidden}@"), after)
        }
        None => (String::new(), rest),
    };
    let rest = match rest.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((key, _)) if !SHOWN_PARAMETERS.contains(&key) => format!("{key}=***"),
                    _ => p.to_owned(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => rest.to_owned(),
    };
    format!("{scheme}://{credentials}{rest}")
}

/// How a `PostgreSQL` connection is made and bounded.
///
/// ```
/// use std::time::Duration;
///
/// let options = answers_db::PgOptions::default();
/// assert_eq!(options.connect_timeout, Duration::from_secs(5));
/// assert_eq!(options.statement_timeout, Duration::from_secs(30));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PgOptions {
    /// How long connecting may take before the open fails (transient).
    pub connect_timeout: Duration,
    /// How long one statement may run before the server cancels it (transient); zero is no
    /// limit.
    pub statement_timeout: Duration,
}

impl Default for PgOptions {
    fn default() -> PgOptions {
        PgOptions {
            connect_timeout: Duration::from_secs(5),
            statement_timeout: Duration::from_secs(30),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_never_shown() {
        for (url, shown) in [
            ("postgres://u:pw@h/db", "postgres://u:***@h/db"),
            (
                "postgresql://u:p%40w@h:5433/db",
                "postgresql://u:***@h:5433/db",
            ),
            ("postgres://u@h/db", "postgres://u@h/db"),
            (
                "postgres://h/db?password=pw&sslmode=disable",
                "postgres://h/db?password=***&sslmode=disable",
            ),
            (
                "postgres:///db?host=/run/pg&user=u",
                "postgres:///db?host=/run/pg&user=u",
            ),
            ("postgres://u:pw@h", "postgres://u:***@h"),
            // The driver ends the credentials at the first `@`, wherever it is.
            ("postgres://u:pw/x?y@h/db", "postgres://u:***@h/db"),
            ("postgres://u:p:w@h/db", "postgres://u:***@h/db"),
            (
                "postgres://h/db?pass%77ord=pw",
                "postgres://h/db?pass%77ord=***",
            ),
        ] {
            let location = Location::parse(url).unwrap();
            assert_eq!(location.to_string(), shown, "{url}");
            assert!(!format!("{location:?}").contains("pw"), "{url}");
        }
    }

    #[test]
    fn paths_and_sqlite_urls_are_files() {
        for (text, path) in [
            ("answers.db", "answers.db"),
            ("sqlite:answers.db", "answers.db"),
            ("sqlite:///tmp/a.db", "/tmp/a.db"),
            ("/var/lib/answers/record.db", "/var/lib/answers/record.db"),
            ("dir:with:colons.db", "dir:with:colons.db"),
        ] {
            let location = Location::parse(text).unwrap();
            assert_eq!(location.backend(), Backend::Sqlite);
            assert_eq!(location.sqlite_path(), Some(Path::new(path)), "{text}");
        }
        assert_eq!(Location::parse("sqlite:"), Err(LocationError::Empty));
        assert_eq!(Location::parse("  "), Err(LocationError::Empty));
    }

    #[test]
    fn a_malformed_url_is_refused_without_quoting_it() {
        for url in [
            "postgres://u:pw@h:notaport/db",
            "postgres://h/db?nosuchoption=pw",
        ] {
            let err = Location::parse(url).unwrap_err();
            assert_eq!(err, LocationError::Malformed, "{url}");
            assert!(!err.to_string().contains("pw"));
        }
    }
}
