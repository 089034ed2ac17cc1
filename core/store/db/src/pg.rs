//! The `PostgreSQL` backend's connection: connecting with [`PgOptions`], the statement cache
//! (the shared `?N`/`:name` SQL rewritten to `$N` once per statement), the migrations
//! (versioned in `schema_version`), and driver errors reduced to their SQLSTATE's name.
//!
//! The client is the synchronous `postgres` crate: the store's API is synchronous, and the
//! server calls it inside `spawn_blocking`.

#[cfg(test)]
mod live;
pub(crate) mod tls;
#[cfg(test)]
mod tls_live;

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{LazyLock, Mutex};

use postgres::{Client, Statement};

use crate::{DbError, PgOptions, Schema};

/// One connection and the statements prepared on it.
pub(crate) struct PgConn {
    pub(crate) client: Client,
    statements: HashMap<String, Statement>,
    /// The server ended the session (or the link broke): the connection is done, even
    /// before the client notices it closed.
    ended: bool,
}

impl std::fmt::Debug for PgConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgConn")
            .field("closed", &self.client.is_closed())
            .field("ended", &self.ended)
            .field("statements", &self.statements.len())
            .finish()
    }
}

/// How long sent data may go unacknowledged before the connection counts as lost.
const TCP_USER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A lock key of the migrations (any constant): two processes migrating one database at once
/// take turns.
const MIGRATION_LOCK: i64 = 0x7068_6700_0001;

impl PgConn {
    /// Connects to `url` and migrates the database to `schema`.
    pub(crate) fn open(url: &str, options: &PgOptions, schema: &Schema) -> Result<PgConn, DbError> {
        let tls = tls::split(url).map_err(|_| DbError::Postgres {
            op: "open",
            kind: "invalid_configuration".to_owned(),
        })?;
        let mut config = postgres::Config::from_str(&tls.url).map_err(|e| pg_err("open", &e))?;
        let connector = tls::configure(&tls, &mut config)?;
        config.connect_timeout(options.connect_timeout);
        config.application_name("answers");
        let millis = options.statement_timeout.as_millis();
        // Every statement is planned for its values: a plan cached while the tables were
        // small (a new record) would keep scanning them once they are not.
        let ours = format!("-c statement_timeout={millis} -c plan_cache_mode=force_custom_plan");
        // The URL's own `options=` (a `search_path`, say) are kept, after ours, so that an
        // operator's setting wins.
        let all = match config.get_options() {
            Some(theirs) if !theirs.trim().is_empty() => format!("{ours} {theirs}"),
            _ => ours,
        };
        config.options(&all);
        // A link that dies without a word (a partition) fails a request within this bound
        // instead of the kernel's retransmission timeout, unless the URL sets its own.
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(TCP_USER_TIMEOUT);
        }
        let client = config.connect(connector).map_err(|e| pg_err("open", &e))?;
        let mut conn = PgConn {
            client,
            statements: HashMap::new(),
            ended: false,
        };
        conn.migrate(schema)?;
        Ok(conn)
    }

    /// Whether the connection can no longer be used.
    pub(crate) fn is_broken(&self) -> bool {
        self.ended || self.client.is_closed()
    }

    /// Whether the server still answers on this connection within `timeout` (one empty
    /// round trip); a connection that does not is marked ended.
    pub(crate) fn is_valid(&mut self, timeout: std::time::Duration) -> bool {
        if self.is_broken() {
            return false;
        }
        if self.client.is_valid(timeout).is_err() {
            self.ended = true;
        }
        !self.ended
    }

    /// `e` as a store error, remembering when it ended the session.
    pub(crate) fn failed(&mut self, op: &'static str, e: &postgres::Error) -> DbError {
        let err = pg_err(op, e);
        if let DbError::Postgres { kind, .. } = &err
            && matches!(
                kind.as_str(),
                "connection_closed"
                    | "connection_exception"
                    | "io_error"
                    | "admin_shutdown"
                    | "crash_shutdown"
            )
        {
            self.ended = true;
        }
        err
    }

    /// The statement for `sql` (`SQLite`'s placeholders, named ones bound in `names`' order),
    /// prepared once per connection.
    pub(crate) fn statement(
        &mut self,
        op: &'static str,
        sql: &str,
        names: &[&str],
    ) -> Result<Statement, DbError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let rewritten = placeholders(sql, names);
        let stmt = match self.client.prepare(&rewritten) {
            Ok(stmt) => stmt,
            Err(e) => return Err(self.failed(op, &e)),
        };
        self.statements.insert(sql.to_owned(), stmt.clone());
        Ok(stmt)
    }

    /// The schema version of the database (0 before the first migration).
    pub(crate) fn schema_version(&mut self) -> Result<i64, DbError> {
        let op = "read schema version";
        let row = self
            .client
            .query_one(
                "SELECT CASE WHEN to_regclass('schema_version') IS NULL THEN NULL ELSE 1 END",
                &[],
            )
            .map_err(|e| pg_err(op, &e))?;
        if row.get::<_, Option<i32>>(0).is_none() {
            return Ok(0);
        }
        let row = self
            .client
            .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
            .map_err(|e| pg_err(op, &e))?;
        row.try_get(0).map_err(|e| pg_err(op, &e))
    }

    /// Applies every migration of `schema` the database lacks, each in its own transaction
    /// under a lock that other processes migrating the same database wait for. Idempotent.
    fn migrate(&mut self, schema: &Schema) -> Result<(), DbError> {
        let op = "migrate";
        let err = |e: postgres::Error| pg_err(op, &e);
        loop {
            let mut tx = self.client.transaction().map_err(err)?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
                .map_err(err)?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS schema_version (
                     version BIGINT PRIMARY KEY,
                     applied_utc TEXT COLLATE \"C\" NOT NULL
                 )",
            )
            .map_err(err)?;
            let found: i64 = tx
                .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
                .and_then(|r| r.try_get(0))
                .map_err(err)?;
            if found > schema.version {
                return Err(DbError::TooNew {
                    found,
                    supported: schema.version,
                });
            }
            let Some(sql) = usize::try_from(found)
                .ok()
                .and_then(|i| schema.postgres.get(i))
            else {
                tx.commit().map_err(err)?;
                return Ok(());
            };
            tx.batch_execute(sql).map_err(err)?;
            let now = jiff::Timestamp::now()
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string();
            tx.execute(
                "INSERT INTO schema_version (version, applied_utc) VALUES ($1, $2)",
                &[&(found + 1), &now],
            )
            .map_err(err)?;
            tx.commit().map_err(err)?;
        }
    }
}

/// The `PostgreSQL` text of a read written in `SQLite`'s, translated by `dialect` once.
pub(crate) fn translated(sqlite: &'static str, dialect: fn(&str) -> String) -> &'static str {
    type Key = (usize, usize, usize);
    static CACHE: LazyLock<Mutex<HashMap<Key, &'static str>>> = LazyLock::new(Mutex::default);
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Keyed by the text's address and length and by the dialect: the statements are statics,
    // a bounded set, and a substring at the same address or another dialect is its own entry.
    cache
        .entry((sqlite.as_ptr() as usize, sqlite.len(), dialect as usize))
        .or_insert_with(|| Box::leak(dialect(sqlite).into_boxed_str()))
}

/// `sql` with `SQLite`'s placeholders as `PostgreSQL`'s: `?N` as `$N`, and `:name` as `$k`
/// where `name` is the `k`-th of `names`. Text in quotes and `::` casts are left alone.
pub(crate) fn placeholders(sql: &str, names: &[&str]) -> String {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = quote {
            if b == q {
                quote = None;
            }
            // A multi-byte character is copied whole.
            let len = sql[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&sql[i..i + len]);
            i += len;
            continue;
        }
        match b {
            b'\'' | b'"' => {
                quote = Some(b);
                out.push(char::from(b));
                i += 1;
            }
            b'?' => {
                out.push('$');
                i += 1;
            }
            b':' if bytes.get(i + 1) == Some(&b':') => {
                out.push_str("::");
                i += 2;
            }
            b':' if bytes
                .get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') =>
            {
                let start = i + 1;
                let mut end = start;
                while bytes
                    .get(end)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    end += 1;
                }
                let name = &sql[i..end];
                match names.iter().position(|n| *n == name) {
                    Some(k) => {
                        out.push('$');
                        out.push_str(&(k + 1).to_string());
                    }
                    None => out.push_str(name),
                }
                i = end;
            }
            _ => {
                // A multi-byte character is copied whole.
                let len = sql[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&sql[i..i + len]);
                i += len;
            }
        }
    }
    out
}

/// Wraps a driver error by its SQLSTATE's name (or the kind of a failure without one),
/// dropping its message, which may quote parameters.
pub(crate) fn pg_err(op: &'static str, e: &postgres::Error) -> DbError {
    let kind = match e.code() {
        Some(code) => sqlstate_name(code.code()),
        None if e.is_closed() => "connection_closed".to_owned(),
        None => client_kind(e).to_owned(),
    };
    DbError::Postgres { op, kind }
}

/// The kind of a client-side failure (no SQLSTATE), from a fixed list: its message is never
/// kept.
fn client_kind(e: &postgres::Error) -> &'static str {
    use std::error::Error as _;
    let text = e.to_string();
    if text.starts_with("error performing TLS handshake") {
        return tls::handshake_kind(e);
    }
    if e.source()
        .is_some_and(<dyn std::error::Error>::is::<std::io::Error>)
    {
        return "io_error";
    }
    if text.contains("timeout") || text.contains("timed out") {
        "timeout"
    } else if text.starts_with("error connecting") {
        "connect_failed"
    } else if text.contains("serializing") || text.contains("deserializing") {
        "wrong_type"
    } else if text.starts_with("invalid configuration") || text.contains("connection string") {
        "invalid_configuration"
    } else if text.contains("authentication") || text.contains("password") {
        "authentication_failed"
    } else {
        "client_error"
    }
}

/// The condition names of the SQLSTATEs the store meets, or `sqlstate_XXXXX`.
fn sqlstate_name(code: &str) -> String {
    let name = match code {
        "23505" => "unique_violation",
        "23503" => "foreign_key_violation",
        "23502" => "not_null_violation",
        "23514" => "check_violation",
        "40001" => "serialization_failure",
        "40P01" => "deadlock_detected",
        "55P03" => "lock_not_available",
        "55000" => "object_not_in_prerequisite_state",
        "57014" => "query_canceled",
        "57P01" => "admin_shutdown",
        "57P02" => "crash_shutdown",
        "57P03" => "cannot_connect_now",
        "53300" => "too_many_connections",
        "53100" => "disk_full",
        "53200" => "out_of_memory",
        "28P01" => "invalid_password",
        "28000" => "invalid_authorization_specification",
        "3D000" => "invalid_catalog_name",
        "42P01" => "undefined_table",
        "42703" => "undefined_column",
        "42601" => "syntax_error",
        "42883" => "undefined_function",
        "42804" => "datatype_mismatch",
        "22P02" => "invalid_text_representation",
        "25P02" => "in_failed_sql_transaction",
        _ if code.starts_with("08") => "connection_exception",
        _ => return format!("sqlstate_{code}"),
    };
    name.to_owned()
}

/// Whether a `PostgreSQL` failure of this kind, in `op`, may pass: the server is away,
/// shutting down, full of connections, or the statement was cancelled or lost a race; or, when
/// connecting, the database is closed to connections for now (`ALTER DATABASE …
/// ALLOW_CONNECTIONS false`, as for maintenance), as `SQLite`'s `CannotOpen` is transient.
pub(crate) fn transient(op: &str, kind: &str) -> bool {
    (op == "open" && kind == "object_not_in_prerequisite_state")
        || matches!(
            kind,
            "connection_closed"
                | "connection_exception"
                | "io_error"
                | "timeout"
                | "connect_failed"
                | "admin_shutdown"
                | "crash_shutdown"
                | "cannot_connect_now"
                | "too_many_connections"
                | "query_canceled"
                | "serialization_failure"
                | "deadlock_detected"
                | "lock_not_available"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_translation_is_kept_per_text_and_dialect() {
        static TEXT: &str = "SELECT ?1";
        fn upper(s: &str) -> String {
            s.to_uppercase()
        }
        fn lower(s: &str) -> String {
            s.to_lowercase()
        }
        assert_eq!(super::translated(TEXT, upper), "SELECT ?1");
        assert_eq!(super::translated(TEXT, lower), "select ?1");
        assert_eq!(super::translated(&TEXT[..6], upper), "SELECT");
        assert_eq!(super::translated(TEXT, upper), "SELECT ?1");
    }

    #[test]
    fn placeholders_become_dollars() {
        assert_eq!(
            placeholders("SELECT ?1, ?2 FROM t WHERE a = ?1 AND b = '?3'", &[]),
            "SELECT $1, $2 FROM t WHERE a = $1 AND b = '?3'"
        );
        assert_eq!(
            placeholders(
                "SELECT x::text FROM t WHERE s = :subject AND c = :code AND s2 = :subject",
                &[":code", ":subject"]
            ),
            "SELECT x::text FROM t WHERE s = $2 AND c = $1 AND s2 = $2"
        );
        assert_eq!(
            placeholders("SELECT 'é:x' || ?1", &[]),
            "SELECT 'é:x' || $1"
        );
    }

    #[test]
    fn sqlstates_are_named_and_classified() {
        assert_eq!(sqlstate_name("23505"), "unique_violation");
        assert_eq!(sqlstate_name("08006"), "connection_exception");
        assert_eq!(sqlstate_name("XX000"), "sqlstate_XX000");
        assert!(transient("read readings", "admin_shutdown"));
        assert!(transient("read readings", &sqlstate_name("08006")));
        assert!(transient("open", &sqlstate_name("55000")));
        assert!(!transient("read readings", &sqlstate_name("55000")));
        assert!(!transient("open", &sqlstate_name("28P01")));
        assert!(!transient("write readings", "unique_violation"));
    }
}
