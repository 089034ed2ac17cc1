//! The bench record on `PostgreSQL`: loaded once from the `SQLite` record into a database of the
//! test cluster named for the bench, and the hand-written statements in `PostgreSQL`'s dialect.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Instant;

use answers_db::{Location, OpenOptions, PgOptions};
use answers_protocol::View;
use answers_store::Store;
use answers_tools::readings::{BUCKET_CAP, ROW_CAP};
use postgres::types::{FromSql, Type};
use postgres::{Client, NoTls, Statement};
use rusqlite::Connection;

use super::sql::Bounds;

/// The tables the bench record has rows in; `series_day` is kept by the target's triggers.
const TABLES: [&str; 4] = ["subject", "series", "day_aggregate", "day_elected"];

/// The record's database on the cluster at `url` (`PHI_POSTGRES_URL`), loaded from `sqlite`
/// unless it already holds the same rows: a store on it and a second connection for the
/// hand-written statements.
pub(crate) fn open(url: &str, version: i64, sqlite: &Connection) -> (Store, Client) {
    let name = format!("phi_readings_bench_v{version}");
    let db_url = with_database(url, &name);
    let mut admin = Client::connect(url, NoTls).expect("connect to the cluster");
    let exists = admin
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .expect("look up the bench database")
        .is_some();
    if exists && fingerprint_matches(&db_url, sqlite) {
        eprintln!("PostgreSQL: reusing database {name}");
    } else {
        // Two statements: neither runs inside the implicit transaction of a batch.
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .expect("drop the stale bench database");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create the bench database");
        let started = Instant::now();
        let store = open_store(&db_url);
        drop(store);
        let mut client = Client::connect(&db_url, NoTls).expect("connect to the bench database");
        let rows = load(&mut client, sqlite);
        eprintln!(
            "PostgreSQL: loaded {rows} rows into {name} in {:.1?}",
            started.elapsed()
        );
    }
    let store = open_store(&db_url);
    let client = Client::connect(&db_url, NoTls).expect("connect to the bench database");
    (store, client)
}

fn open_store(url: &str) -> Store {
    let location = Location::parse(url).expect("a PostgreSQL URL");
    Store::open_location(&location, OpenOptions::default(), &PgOptions::default())
        .expect("open the bench database")
}

/// Whether each table holds as many rows as the `SQLite` record's, with the same newest
/// reading.
fn fingerprint_matches(db_url: &str, sqlite: &Connection) -> bool {
    let Ok(mut client) = Client::connect(db_url, NoTls) else {
        return false;
    };
    let newest = "SELECT count(*), coalesce(max(start_utc), '') FROM series";
    for table in TABLES {
        let sql = format!("SELECT count(*) FROM {table}");
        let want: i64 = sqlite.query_row(&sql, [], |r| r.get(0)).expect("count");
        let Ok(row) = client.query_one(&sql, &[]) else {
            return false;
        };
        if row.get::<_, i64>(0) != want {
            return false;
        }
    }
    let want: (i64, String) = sqlite
        .query_row(newest, [], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("newest");
    client
        .query_one(newest, &[])
        .is_ok_and(|r| (r.get::<_, i64>(0), r.get::<_, String>(1)) == want)
}

/// Copies the record's tables with `COPY … FROM STDIN` in one transaction; the rows copied.
fn load(client: &mut Client, sqlite: &Connection) -> u64 {
    let mut tx = client.transaction().expect("transaction");
    let mut total = 0;
    for table in TABLES {
        let columns: Vec<String> = tx
            .query(
                "SELECT column_name::text FROM information_schema.columns
                  WHERE table_name = $1 ORDER BY ordinal_position",
                &[&table],
            )
            .expect("columns")
            .iter()
            .map(|r| r.get(0))
            .collect();
        let list = columns.join(", ");
        let mut writer = tx
            .copy_in(&format!("COPY {table} ({list}) FROM STDIN"))
            .expect("copy in");
        let mut stmt = sqlite
            .prepare(&format!("SELECT {list} FROM {table}"))
            .expect("select");
        let mut rows = stmt.query([]).expect("rows");
        let mut line = String::new();
        while let Some(row) = rows.next().expect("row") {
            line.clear();
            for i in 0..columns.len() {
                if i > 0 {
                    line.push('\t');
                }
                match row.get_ref(i).expect("cell") {
                    rusqlite::types::ValueRef::Null => line.push_str("\\N"),
                    rusqlite::types::ValueRef::Integer(n) => {
                        let _ = write!(line, "{n}");
                    }
                    rusqlite::types::ValueRef::Real(x) => {
                        let _ = write!(line, "{x:?}");
                    }
                    rusqlite::types::ValueRef::Text(t) => {
                        for c in std::str::from_utf8(t).expect("utf-8").chars() {
                            match c {
                                '\\' => line.push_str("\\\\"),
                                '\t' => line.push_str("\\t"),
                                '\n' => line.push_str("\\n"),
                                '\r' => line.push_str("\\r"),
                                c => line.push(c),
                            }
                        }
                    }
                    rusqlite::types::ValueRef::Blob(_) => panic!("{table}: no blobs in the record"),
                }
            }
            line.push('\n');
            std::io::Write::write_all(&mut writer, line.as_bytes()).expect("copy row");
            total += 1;
        }
        writer.finish().expect("finish copy");
    }
    tx.batch_execute(
        "SELECT setval(pg_get_serial_sequence('series', 'id'),
                       coalesce((SELECT max(id) FROM series), 0) + 1, false);
         ANALYZE",
    )
    .expect("sequence and statistics");
    tx.commit().expect("commit");
    total
}

fn with_database(url: &str, name: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    match tail.split_once('?') {
        Some((_, q)) => format!("{scheme}://{authority}/{name}?{q}"),
        None => format!("{scheme}://{authority}/{name}"),
    }
}

/// Any column, read as its bytes (so every cell is fetched and decoded no further).
struct Cell;

impl<'a> FromSql<'a> for Cell {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        std::hint::black_box(raw);
        Ok(Cell)
    }
    fn from_sql_null(_: &Type) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Cell)
    }
    fn accepts(_: &Type) -> bool {
        true
    }
}

/// Runs a hand-written statement (prepared once per connection, as the store's are) and
/// counts the rows it returns (every column read).
pub(crate) fn run(
    client: &mut Client,
    prepared: &mut HashMap<String, Statement>,
    sql: &str,
    subject: &str,
    code: &str,
    b: &Bounds,
) -> usize {
    let stmt = match prepared.get(sql) {
        Some(stmt) => stmt.clone(),
        None => {
            let stmt = client
                .prepare_typed(sql, &[Type::TEXT; 6])
                .expect("prepare");
            prepared.insert(sql.to_owned(), stmt.clone());
            stmt
        }
    };
    let rows = client
        .query(
            &stmt,
            &[&subject, &code, &b.day_lo, &b.day_hi, &b.utc_lo, &b.utc_hi],
        )
        .expect("query");
    for row in &rows {
        for i in 0..row.len() {
            let _: Cell = row.get(i);
        }
    }
    rows.len()
}

/// The rows of the window, on the `(subject_id, code, start_utc)` index.
const IN_WINDOW: &str = "s.subject_id = $1 AND s.code = $2 AND s.system = 'loinc'
   AND s.start_utc >= $5 AND s.start_utc < $6
   AND (s.local_day BETWEEN $3 AND $4 OR s.local_day IS NULL)";

/// The catalogue as a scan of the window's rows (see `sql::CATALOGUE_SCAN`).
pub(crate) const CATALOGUE_SCAN: &str = "SELECT s.code, s.system, s.kind, s.unit, count(*),
       min(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
       max(coalesce(s.local_day, substr(s.start_utc, 1, 10))),
       bool_or(s.local_day IS NULL)
  FROM series s
 WHERE s.subject_id = $1
   AND s.start_utc >= $5 AND s.start_utc < $6
   AND (s.local_day BETWEEN $3 AND $4 OR s.local_day IS NULL)
 GROUP BY s.code, s.system, s.kind, s.unit";

/// `raw` without local time (see `sql::RAW_UTC`).
pub(crate) const RAW_UTC: &str = "SELECT s.kind, s.unit, s.local_day, s.start_utc, s.value_num,
       s.value_text, s.source
  FROM series s
 WHERE s.subject_id = $1 AND s.code = $2 AND s.system = 'loinc'
   AND s.start_utc >= $5 AND s.start_utc < $6
   AND (s.local_day BETWEEN $3 AND $4 OR s.local_day IS NULL)
 ORDER BY s.start_utc DESC LIMIT 51";

const ELECTED: &str = "SELECT local_day FROM day_elected
   WHERE subject_id = $1 AND system = 'loinc' AND code = $2
     AND local_day BETWEEN $3 AND $4";

/// What the calendar views and `stats` count (see `sql::points`).
fn points() -> String {
    format!(
        "SELECT e.local_day AS day, e.local_day AS t, e.value AS v
           FROM day_elected e
          WHERE e.subject_id = $1 AND e.system = 'loinc' AND e.code = $2
            AND e.local_day BETWEEN $3 AND $4
         UNION ALL
         SELECT s.local_day, s.start_utc, s.value_num
           FROM series s
          WHERE s.subject_id = $1 AND s.code = $2 AND s.system = 'loinc'
            AND s.local_day BETWEEN $3 AND $4 AND s.local_day NOT IN ({ELECTED})
         UNION ALL
         SELECT substr(s.start_utc, 1, 10), s.start_utc, s.value_num
           FROM series s
          WHERE s.subject_id = $1 AND s.code = $2 AND s.system = 'loinc'
            AND s.local_day IS NULL AND s.start_utc >= $5 AND s.start_utc < $6"
    )
}

/// The statement for `view` in `PostgreSQL`'s dialect; local time in the zone `tz`.
pub(crate) fn statement(view: View, tz: &str) -> String {
    let keep = BUCKET_CAP + 1;
    let local =
        |format: &str| format!("to_char(s.start_utc::timestamptz AT TIME ZONE '{tz}', '{format}')");
    let buckets = |format: &str| {
        format!(
            "SELECT {} AS b, avg(s.value_num), count(*) FROM series s WHERE {IN_WINDOW}
              GROUP BY b ORDER BY b DESC LIMIT {keep}",
            local(format)
        )
    };
    let calendar = |bucket: &str| {
        format!(
            "WITH p AS ({}),
                  d AS (SELECT day, v, n FROM (
                          SELECT day, v, count(*) OVER (PARTITION BY day) AS n,
                                 row_number() OVER (PARTITION BY day ORDER BY t = day DESC, t DESC)
                                   AS rn
                            FROM p) q
                         WHERE rn = 1)
             SELECT {bucket} AS b, avg(v), sum(n), count(*) FROM d
              GROUP BY b ORDER BY b DESC LIMIT {keep}",
            points()
        )
    };
    match view {
        View::Raw => format!(
            "SELECT s.kind, s.unit, coalesce(s.local_day, {}), {}, s.value_num, s.value_text,
                    s.source
               FROM series s WHERE {IN_WINDOW} ORDER BY s.start_utc DESC LIMIT {}",
            local("YYYY-MM-DD"),
            local("HH24:MI"),
            ROW_CAP + 1
        ),
        View::Minute => buckets("YYYY-MM-DD HH24:MI"),
        View::Hour => buckets("YYYY-MM-DD HH24:\"00\""),
        View::Day => calendar("day"),
        View::Week => calendar("to_char(date_trunc('week', day::date), 'YYYY-MM-DD')"),
        View::Month => calendar("substr(day, 1, 7)"),
        View::Stats => format!(
            "WITH p AS MATERIALIZED ({})
             SELECT count(*), min(v), max(v), avg(v),
                    (SELECT v FROM p ORDER BY day, t LIMIT 1), min(day),
                    (SELECT v FROM p ORDER BY day DESC, t DESC LIMIT 1), max(day)
               FROM p",
            points()
        ),
        View::Latest => format!(
            "SELECT * FROM (
               (SELECT e.local_day AS day, e.value AS v, e.unit, e.source, 1 AS elected
                  FROM day_elected e
                 WHERE e.subject_id = $1 AND e.system = 'loinc'
                   AND e.code = $2 AND e.local_day BETWEEN $3 AND $4
                 ORDER BY e.local_day DESC LIMIT 1)
               UNION ALL
               (SELECT coalesce(s.local_day, substr(s.start_utc, 1, 10)),
                       s.value_num, s.unit, s.source, 0
                  FROM series s WHERE {IN_WINDOW}
                 ORDER BY s.start_utc DESC LIMIT 1)) l
             ORDER BY day DESC, elected DESC LIMIT 1"
        ),
    }
}
