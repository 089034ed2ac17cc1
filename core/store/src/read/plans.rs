//! The query plans of the readings statements: each runs on the index that bounds it by code
//! and by time or day, never on a scan of the subject's whole record; the catalogue runs on
//! the summary's key.

use super::catalogue::{CATALOGUE, SERIES_OF, newest_in_unit_sql};
use super::series::{ELECTED, days_sql, legacy_sql, name_sql, newest_first_sql, newest_sql};
use crate::Store;

/// The `detail` lines of `EXPLAIN QUERY PLAN sql`.
fn plan(store: &Store, sql: &str) -> String {
    let mut stmt = store
        .conn()
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap();
    let mut rows = stmt.raw_query();
    let mut lines = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        lines.push(row.get::<_, String>(3).unwrap());
    }
    lines.join("; ")
}

#[test]
fn every_statement_runs_on_the_index_meant_for_it() {
    let store = Store::open_in_memory().unwrap();
    let by_time = "USING INDEX series_by_code_time (subject_id=? AND code=?";
    let by_day = "USING INDEX series_by_code_day (subject_id=? AND code=? AND local_day";
    let elected = "USING PRIMARY KEY (subject_id=? AND system=? AND code=? AND local_day";
    let summary = "SEARCH d USING PRIMARY KEY (subject_id=?";
    let cases = [
        (
            "newest first (raw, buckets)",
            newest_first_sql(),
            format!("{by_time} AND start_utc>? AND start_utc<?)"),
        ),
        (
            "latest: the newest reading",
            newest_sql(),
            format!("{by_time} AND start_utc>? AND start_utc<?)"),
        ),
        (
            "latest: the newest elected day",
            newest_sql(),
            format!("{elected}>? AND local_day<?)"),
        ),
        (
            "catalogue latest",
            newest_in_unit_sql(),
            format!("{by_time} AND start_utc>? AND start_utc<?)"),
        ),
        ("catalogue", CATALOGUE.as_str(), format!("{summary})")),
        (
            "catalogue of a code",
            SERIES_OF.as_str(),
            format!("{summary} AND code=? AND system=?)"),
        ),
        ("name", name_sql(), format!("{by_time})")),
        ("days", days_sql(), format!("{by_day}>? AND local_day<?)")),
        ("legacy", legacy_sql(), format!("{by_day}=?)")),
        ("elected", ELECTED, format!("{elected}>? AND local_day<?)")),
    ];
    for (name, sql, want) in cases {
        let got = plan(&store, sql);
        assert!(got.contains(&want), "{name}: {got}");
        assert!(!got.contains("TEMP B-TREE"), "{name}: {got}");
        assert!(
            !got.contains("SCAN s") && !got.contains("SCAN d"),
            "{name}: {got}"
        );
    }
}

#[test]
fn no_read_statement_selects_the_comment() {
    for sql in [
        newest_first_sql(),
        newest_sql(),
        days_sql(),
        legacy_sql(),
        name_sql(),
        newest_in_unit_sql(),
        ELECTED,
        CATALOGUE.as_str(),
        SERIES_OF.as_str(),
    ] {
        assert!(!sql.contains("comment"), "{sql}");
    }
}
