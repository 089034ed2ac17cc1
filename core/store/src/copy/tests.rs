//! The copy on both backends: every table and column of the schema carried, a record of many
//! batches there and back, a refused copy rolled back, and the checksum's framing.

use super::row::Value;
use super::*;
use crate::read::Flow;
use crate::test_support;

#[test]
fn every_table_of_the_schema_is_copied_or_derived() {
    let store = Store::open_in_memory().unwrap();
    let mut names = Vec::new();
    store
        .db
        .each(
            OP,
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
            NONE,
            |row| {
                names.push(row.text(0, OP, "sqlite_master")?.to_owned());
                Ok::<_, StoreError>(Flow::Continue)
            },
        )
        .unwrap();
    let mut known: Vec<String> = TABLES.iter().map(|t| t.name.to_owned()).collect();
    known.push(DERIVED.to_owned());
    known.sort();
    assert_eq!(names, known);
}

#[test]
fn every_column_of_each_table_is_copied() {
    let store = Store::open_in_memory().unwrap();
    for table in TABLES {
        let mut columns = Vec::new();
        store
            .db
            .each(
                OP,
                &format!("SELECT name FROM pragma_table_info('{}')", table.name),
                NONE,
                |row| {
                    columns.push(row.text(0, OP, "pragma")?.to_owned());
                    Ok::<_, StoreError>(Flow::Continue)
                },
            )
            .unwrap();
        let copied: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
        assert_eq!(columns, copied, "{}", table.name);
    }
}

/// A record of more than two batches of readings and of genotype calls: one subject,
/// `n` heart-rate minutes (each its own local day every 1,440) and `n` calls.
fn large(n: usize) -> Store {
    let store = Store::open_in_memory().unwrap();
    store.upsert_subject("subj-big", "big", "UTC").unwrap();
    let sql = format!(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {n})
         INSERT INTO series (subject_id, kind, name, system, code, value_num, unit,
                             start_utc, local_day, source)
         SELECT 'subj-big', 'measured', 'heartRate', 'loinc', '8867-4', 60.0 + (i % 17) / 4.0,
                '/min', strftime('%Y-%m-%dT%H:%M:%SZ', 1600000000 + 60 * i, 'unixepoch'),
                date(1600000000 + 60 * i, 'unixepoch'), 'watch'
           FROM n;
         INSERT INTO genotype_set (id, subject_id, format, build, call_count, no_call_count)
         VALUES (7, 'subj-big', '23andme', 'GRCh37', {n}, 0);
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {n})
         INSERT INTO genotype_call (set_id, rsid, chromosome, position, genotype)
         SELECT 7, 'rs' || i, '1', 1000 + i, CASE i % 3 WHEN 0 THEN NULL ELSE 'AG' END
           FROM n;"
    );
    store.conn().execute_batch(&sql).unwrap();
    store
}

/// Every table's rows and checksum of `store`, read by copying it into memory.
fn fingerprint(store: &Store) -> Vec<TableCopy> {
    let memory = Store::open_in_memory().unwrap();
    copy(store, &memory, CopyOptions::default(), |_| {}).unwrap()
}

#[test]
fn a_record_of_many_batches_is_copied_there_and_back_on_each_backend() {
    let n = 2 * BATCH + 517;
    let source = large(n);
    let expected = fingerprint(&source);
    let rows =
        |tables: &[TableCopy], name: &str| tables.iter().find(|t| t.table == name).map(|t| t.rows);
    assert_eq!(rows(&expected, "series"), Some(n as u64));
    assert_eq!(rows(&expected, "genotype_call"), Some(n as u64));
    test_support::each_backend(|target| {
        let mut seen = Vec::new();
        let copied = copy(&source, &target, CopyOptions::default(), |p| seen.push(p)).unwrap();
        assert_eq!(copied, expected);
        // Progress is told a batch at a time.
        let series: Vec<u64> = seen
            .iter()
            .filter(|p| p.table == "series" && !p.done)
            .map(|p| p.rows)
            .collect();
        assert_eq!(series, [BATCH as u64, 2 * BATCH as u64, n as u64]);
        // Read back from the target (on PostgreSQL, through its cursor), batch by batch.
        assert_eq!(fingerprint(&target), expected);
    });
}

#[test]
fn a_copy_refused_after_batches_were_written_leaves_the_target_as_it_was() {
    let source = large(2 * BATCH + 1);
    // The last row of series (past two written batches) is one the schema refuses.
    source
        .conn()
        .execute_batch(
            "PRAGMA ignore_check_constraints = ON;
         INSERT INTO series (subject_id, kind, name, system, code, start_utc, source)
         VALUES ('subj-big', 'bogus', 'x', 'loinc', '8867-4', '2030-01-01T00:00:00Z', 'x');
         PRAGMA ignore_check_constraints = OFF;",
        )
        .unwrap();
    test_support::each_backend(|target| {
        // The target holds another record.
        target.upsert_subject("subj-other", "other", "UTC").unwrap();
        let before = fingerprint(&target);
        let refused = copy(&source, &target, CopyOptions::default(), |_| {});
        assert!(
            matches!(refused, Err(CopyError::TargetNotEmpty { table: "subject" })),
            "{refused:?}"
        );
        let mut written = 0;
        let failed = copy(&source, &target, CopyOptions { replace: true }, |p| {
            if p.table == "series" {
                written = p.rows;
            }
        });
        assert!(matches!(failed, Err(CopyError::Store(_))), "{failed:?}");
        assert_eq!(written, 2 * BATCH as u64, "two batches were written first");
        assert_eq!(fingerprint(&target), before, "the target is as it was");
    });
}

#[test]
fn the_checksum_tells_types_nulls_and_boundaries_apart() {
    let hex = |rows: &[&[Value]]| {
        let mut sum = Checksum::new();
        for row in rows {
            sum.add(row);
        }
        sum.hex()
    };
    let text = |s: &str| Value::Text(s.to_owned());
    let base = hex(&[&[text("ab"), Value::Int(1)]]);
    assert_eq!(base, hex(&[&[text("ab"), Value::Int(1)]]));
    for other in [
        hex(&[&[text("a"), text("b"), Value::Int(1)]]),
        hex(&[&[text("ab"), Value::Real(1.0)]]),
        hex(&[&[text("ab"), Value::Null]]),
        hex(&[&[text("ab")], &[Value::Int(1)]]),
    ] {
        assert_ne!(base, other);
    }
}
