//! The query plans of the readings statements: each runs on the index that bounds it by code
//! and by time or day, never on a scan of the subject's whole record (except the catalogue of
//! every code, which reads it by design).

use super::catalogue::{CODES, code_sql, newest_in_unit_sql, series_sql};
use super::days::{ELECTED, gap_sql, legacy_sql};
use super::select::label_sql;
use super::views::buckets::scan_sql;
use super::views::latest::newest_sql;
use super::views::raw::raw_sql;
use crate::store::Store;

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
    let cases = [
        (
            "raw",
            raw_sql(),
            format!("{by_time} AND start_utc>? AND start_utc<?)"),
        ),
        (
            "buckets",
            scan_sql(),
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
        (
            "catalogue summary of a code",
            code_sql(),
            format!("{by_time} AND start_utc>? AND start_utc<?)"),
        ),
        (
            "catalogue of a code",
            series_sql(),
            format!("{by_time} AND start_utc>? AND start_utc<?)"),
        ),
        ("label", label_sql(), format!("{by_time})")),
        ("gap", gap_sql(), format!("{by_day}>? AND local_day<?)")),
        ("legacy", legacy_sql(), format!("{by_day}=?)")),
        ("elected", ELECTED, format!("{elected}>? AND local_day<?)")),
    ];
    for (name, sql, want) in cases {
        let got = plan(&store, sql);
        assert!(got.contains(&want), "{name}: {got}");
        assert!(!got.contains("TEMP B-TREE FOR ORDER BY"), "{name}: {got}");
    }
    let codes = plan(&store, CODES);
    assert!(
        codes.contains(
            "SEARCH series USING COVERING INDEX series_by_code_day (subject_id=? AND code>?)"
        ),
        "{codes}"
    );
    assert!(!codes.contains("SCAN series"), "{codes}");
}
