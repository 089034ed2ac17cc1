//! Genotype sets: one per subject, the calls of one imported consumer-array file, in the file's
//! own coordinates. Importing again replaces the subject's set.

use std::collections::HashSet;

use postgres::types::ToSql;

use super::{Store, StoreError, Subject};
use crate::{Backend, Flow};
use answers_db::{Arg, DbError, Row, Tx};
use answers_genetics::Build;
use answers_genetics::import::{
    ArrayFormat, GenotypeCall, GenotypeReader, ImportError, LineProblem, ParsedGenotypes,
};

/// Why a streamed import ([`Store::import_genotypes`]) failed; nothing of it was written.
///
/// ```
/// use answers_genetics::import::ImportError;
/// use answers_store::genotype::GenotypeImportError;
///
/// assert_eq!(GenotypeImportError::from(ImportError::Empty).to_string(), "the file has no genotype rows");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum GenotypeImportError {
    /// The file: a line that does not parse, a repeated id, no rows, or a failed read.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The store.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<DbError> for GenotypeImportError {
    fn from(e: DbError) -> Self {
        GenotypeImportError::Store(e.into())
    }
}

/// A subject's genotype set: where it came from and how many rows it has.
///
/// ```
/// use answers_genetics::{Build, import};
/// use answers_store::Store;
///
/// let mut store = Store::open_in_memory()?;
/// let mom = store.upsert_subject("subj-mom-1", "mom", "Asia/Shanghai")?;
/// let file = import::parse(b"# build 37\nrs4244285\t10\t96541616\tAG\nrs4986893\t10\t96540410\t--\n").unwrap();
/// let set = store.replace_genotypes(&mom.id, &file)?;
/// assert_eq!((set.build, set.call_count, set.no_call_count), (Build::Grch37, 2, 1));
/// assert_eq!(store.genotype_set(&mom.id)?, Some(set));
/// # Ok::<(), answers_store::StoreError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenotypeSet {
    /// The set's row id.
    pub id: i64,
    /// The subject it belongs to.
    pub subject_id: String,
    /// The file's layout.
    pub format: ArrayFormat,
    /// The build the file's header named, or [`Build::Raw`].
    pub build: Build,
    /// Rows imported, no-calls included.
    pub call_count: usize,
    /// Rows that are no-calls.
    pub no_call_count: usize,
}

/// Whether `subject` has a genotype set: what decides whether the two genetics tools are shown.
///
/// ```
/// use answers_store::{Store, has_genotypes};
///
/// let store = Store::open_in_memory()?;
/// let you = store.upsert_subject("subj-you-1", "you", "Europe/Berlin")?;
/// assert!(!has_genotypes(&store, &you)?);
/// # Ok::<(), answers_store::StoreError>(())
/// ```
///
/// # Errors
/// A store error, by its code name.
pub fn has_genotypes(store: &Store, subject: &Subject) -> Result<bool, StoreError> {
    Ok(store
        .genotype_set(&subject.id)?
        .is_some_and(|s| s.call_count > 0))
}

impl Store {
    /// Replaces `subject_id`'s genotype set with `file`'s rows, in one transaction.
    ///
    /// # Errors
    /// [`StoreError::UnknownSubject`] if no subject has that id; a store error otherwise.
    pub fn replace_genotypes(
        &mut self,
        subject_id: &str,
        file: &ParsedGenotypes,
    ) -> Result<GenotypeSet, StoreError> {
        let mut calls = file.calls.iter().cloned().enumerate();
        let header = (file.format, file.build);
        self.write_set(subject_id, header, &mut || {
            Ok(calls.next().map(|(i, call)| (call, i + 1)))
        })
        .map_err(|e| match e {
            GenotypeImportError::Store(e) => e,
            // The parser refused repeated ids already, so the key cannot refuse one.
            GenotypeImportError::Import(_) => StoreError::Db(DbError::Malformed {
                table: "genotype_call",
            }),
        })
    }

    /// Streams `reader`'s rows into `subject_id`'s genotype set, replacing the one it has, in
    /// one transaction: memory stays bounded whatever the file's size (a line at a time on
    /// `SQLite`, whose page cache spills to the WAL; [`BATCH`] rows a statement on
    /// `PostgreSQL`), and a line that does not parse, a
    /// repeated id (refused by the table's key, named by its line) or a failed read rolls it
    /// all back, so the store is as it was.
    ///
    /// ```
    /// use answers_genetics::import::{GenotypeReader, ImportError, LineProblem};
    /// use answers_store::{Store, genotype::GenotypeImportError};
    ///
    /// let mut store = Store::open_in_memory()?;
    /// let mom = store.upsert_subject("subj-mom-1", "mom", "Asia/Shanghai")?;
    /// let good = "# build 37\nrs4244285\t10\t96541616\tAG\n";
    /// let set = store.import_genotypes(&mom.id, &mut GenotypeReader::new(good.as_bytes()))?;
    /// assert_eq!(set.call_count, 1);
    ///
    /// let repeated = "rs1\t1\t5\tAA\nrs2\t1\t6\tCC\nrs1\t1\t7\tGG\n";
    /// let err = store.import_genotypes(&mom.id, &mut GenotypeReader::new(repeated.as_bytes())).unwrap_err();
    /// assert!(matches!(err, GenotypeImportError::Import(ImportError::Malformed { line: 3, problem: LineProblem::DuplicateRsid })));
    /// assert_eq!(store.genotype_set(&mom.id)?, Some(set));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`GenotypeImportError::Import`] for the file, [`GenotypeImportError::Store`] for the
    /// store ([`StoreError::UnknownSubject`] if no subject has that id).
    pub fn import_genotypes<R: std::io::BufRead>(
        &mut self,
        subject_id: &str,
        reader: &mut GenotypeReader<R>,
    ) -> Result<GenotypeSet, GenotypeImportError> {
        let mut first = reader.next_call()?.map(|call| (call, reader.line()));
        let header = reader.header().ok_or(ImportError::Empty)?;
        let mut next = || match first.take() {
            Some(call) => Ok(Some(call)),
            None => Ok(reader.next_call()?.map(|call| (call, reader.line()))),
        };
        self.write_set(subject_id, header, &mut next)
    }

    /// Replaces the subject's set with the rows `next` gives (each with its line), in one
    /// transaction that commits only when `next` ends cleanly. A row whose id the set has
    /// already is refused by the table's key as [`LineProblem::DuplicateRsid`] on its line.
    /// `SQLite` inserts a row at a time by a prepared statement; `PostgreSQL` [`BATCH`] rows
    /// at a time, by one `INSERT … SELECT FROM unnest`.
    fn write_set(
        &mut self,
        subject_id: &str,
        (format, build): (ArrayFormat, Build),
        next: &mut dyn FnMut() -> Result<Option<(GenotypeCall, usize)>, GenotypeImportError>,
    ) -> Result<GenotypeSet, GenotypeImportError> {
        if self.subject_by_id(subject_id)?.is_none() {
            return Err(StoreError::UnknownSubject.into());
        }
        let mut tx = self.db.transaction(OP)?;
        tx.exec(
            OP,
            "DELETE FROM genotype_call WHERE set_id IN
               (SELECT id FROM genotype_set WHERE subject_id = ?1)",
            &[Arg::from(subject_id)],
        )?;
        tx.exec(
            OP,
            "DELETE FROM genotype_set WHERE subject_id = ?1",
            &[Arg::from(subject_id)],
        )?;
        let set_id = tx
            .one(
                OP,
                "INSERT INTO genotype_set (subject_id, format, build, call_count, no_call_count)
                 VALUES (?1, ?2, ?3, 0, 0) RETURNING id",
                &[
                    Arg::from(subject_id),
                    Arg::from(format.as_str()),
                    Arg::from(build.as_str()),
                ],
                |r| r.int(0, OP),
            )?
            .ok_or(StoreError::Db(DbError::Malformed {
                table: "genotype_set",
            }))?;
        let (mut calls, mut no_calls) = (0usize, 0usize);
        let mut batch: Vec<(GenotypeCall, usize)> = Vec::new();
        while let Some((c, line)) = next()? {
            calls += 1;
            no_calls += usize::from(c.genotype.is_none());
            if tx.backend() == Backend::Postgres {
                batch.push((c, line));
                if batch.len() == BATCH {
                    insert_batch(&mut tx, set_id, &batch)?;
                    batch.clear();
                }
                continue;
            }
            let inserted = tx.exec_unique(
                OP,
                "INSERT INTO genotype_call (set_id, rsid, chromosome, position, genotype)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                &[
                    Arg::Int(set_id),
                    Arg::from(&c.rsid),
                    Arg::from(&c.chromosome),
                    Arg::Int(i64::try_from(c.position).unwrap_or(i64::MAX)),
                    Arg::from(&c.genotype),
                ],
            )?;
            // The (set_id, rsid) key: a repeated id. Other constraints are store faults.
            if inserted.is_none() {
                return Err(repeated(line));
            }
        }
        if !batch.is_empty() {
            insert_batch(&mut tx, set_id, &batch)?;
        }
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        tx.exec(
            OP,
            "UPDATE genotype_set SET call_count = ?2, no_call_count = ?3 WHERE id = ?1",
            &[
                Arg::Int(set_id),
                Arg::Int(count(calls)),
                Arg::Int(count(no_calls)),
            ],
        )?;
        tx.commit(OP)?;
        Ok(GenotypeSet {
            id: set_id,
            subject_id: subject_id.to_owned(),
            format,
            build,
            call_count: calls,
            no_call_count: no_calls,
        })
    }

    /// `subject_id`'s genotype set, if any.
    ///
    /// # Errors
    /// A store error, or [`DbError::Malformed`] for a row the schema does not allow.
    pub fn genotype_set(&self, subject_id: &str) -> Result<Option<GenotypeSet>, StoreError> {
        let op = "read genotype set";
        let table = "genotype_set";
        let malformed = || DbError::Malformed { table };
        let count = |n: i64| usize::try_from(n).map_err(|_| malformed());
        self.db
            .one(
                op,
                "SELECT id, format, build, call_count, no_call_count
             FROM genotype_set WHERE subject_id = ?1",
                &[Arg::from(subject_id)],
                |r| {
                    Ok(GenotypeSet {
                        id: r.int(0, op)?,
                        subject_id: subject_id.to_owned(),
                        format: r.text(1, op, table)?.parse().map_err(|_| malformed())?,
                        build: r.text(2, op, table)?.parse().map_err(|_| malformed())?,
                        call_count: count(r.int(3, op)?)?,
                        no_call_count: count(r.int(4, op)?)?,
                    })
                },
            )
            .map_err(StoreError::from)
    }

    /// The calls of `set` for `rsids` (those the set has), in no particular order.
    ///
    /// ```
    /// use answers_genetics::import;
    /// use answers_store::Store;
    ///
    /// let mut store = Store::open_in_memory()?;
    /// let mom = store.upsert_subject("subj-mom-1", "mom", "Asia/Shanghai")?;
    /// let file = import::parse(b"# build 37\nrs4244285\t10\t96541616\tAG\n").unwrap();
    /// let set = store.replace_genotypes(&mom.id, &file)?;
    /// let calls = store.genotype_calls(&set, &["rs4244285", "rs1"])?;
    /// assert_eq!(calls.len(), 1);
    /// assert_eq!(calls[0].genotype.as_deref(), Some("AG"));
    /// # Ok::<(), answers_store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// A store error, or [`DbError::Malformed`] for a row the schema does not allow.
    pub fn genotype_calls(
        &self,
        set: &GenotypeSet,
        rsids: &[&str],
    ) -> Result<Vec<GenotypeCall>, StoreError> {
        let mut out = Vec::new();
        for rsid in rsids {
            let found = self.db.one(
                CALLS,
                "SELECT rsid, chromosome, position, genotype FROM genotype_call
                 WHERE set_id = ?1 AND rsid = ?2",
                &[Arg::Int(set.id), Arg::from(*rsid)],
                call,
            )?;
            out.extend(found);
        }
        Ok(out)
    }

    /// The calls of `set` whose file coordinates are on one of `chromosomes` and in
    /// `start..=end`, in position order; at most `limit` per chromosome (a caller that shows
    /// `cap` rows asks for `cap + 1`, to know it cut), so a whole-genome region reads a
    /// bounded number of rows.
    ///
    /// # Errors
    /// A store error, or [`DbError::Malformed`] for a row the schema does not allow.
    pub fn genotype_calls_in_raw_region(
        &self,
        set: &GenotypeSet,
        chromosomes: &[String],
        (start, end): (u64, u64),
        limit: usize,
    ) -> Result<Vec<GenotypeCall>, StoreError> {
        let clamp = |p: u64| i64::try_from(p).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut out = Vec::new();
        for chromosome in chromosomes {
            self.db.each(
                CALLS,
                "SELECT rsid, chromosome, position, genotype FROM genotype_call
                 WHERE set_id = ?1 AND chromosome = ?2 AND position BETWEEN ?3 AND ?4
                 ORDER BY position, rsid LIMIT ?5",
                &[
                    Arg::Int(set.id),
                    Arg::from(chromosome),
                    Arg::Int(clamp(start)),
                    Arg::Int(clamp(end)),
                    Arg::Int(limit),
                ],
                |r| {
                    out.push(call(r)?);
                    Ok::<_, StoreError>(Flow::Continue)
                },
            )?;
        }
        out.sort_by_key(|c| c.position);
        Ok(out)
    }
}

/// How many calls `PostgreSQL` is sent in one statement (the store's one bulk bound).
pub use crate::BATCH;

/// The operation every write of a set fails as.
const OP: &str = "write genotypes";

/// A repeated id on `line`.
fn repeated(line: usize) -> GenotypeImportError {
    ImportError::Malformed {
        line,
        problem: LineProblem::DuplicateRsid,
    }
    .into()
}

/// `PostgreSQL`'s insert of a batch of calls, in order: the rows go in as arrays, and those
/// the `(set_id, rsid)` key refuses (an id the set has, from an earlier batch or earlier in
/// this one) are skipped; the ids written come back.
const INSERT_BATCH: &str = "
INSERT INTO genotype_call (set_id, rsid, chromosome, position, genotype)
SELECT $1, rsid, chromosome, position, genotype
  FROM unnest($2::text[], $3::text[], $4::int8[], $5::text[])
       WITH ORDINALITY AS i(rsid, chromosome, position, genotype, ord)
 ORDER BY ord
ON CONFLICT (set_id, rsid) DO NOTHING
RETURNING rsid";

/// Writes `batch` into set `set_id` on `PostgreSQL` in one statement; a row the key refused
/// is [`LineProblem::DuplicateRsid`] on the first such row's line.
fn insert_batch(
    tx: &mut Tx<'_>,
    set_id: i64,
    batch: &[(GenotypeCall, usize)],
) -> Result<(), GenotypeImportError> {
    let rsid: Vec<&str> = batch.iter().map(|(c, _)| c.rsid.as_str()).collect();
    let chromosome: Vec<&str> = batch.iter().map(|(c, _)| c.chromosome.as_str()).collect();
    let position: Vec<i64> = batch
        .iter()
        .map(|(c, _)| i64::try_from(c.position).unwrap_or(i64::MAX))
        .collect();
    let genotype: Vec<Option<&str>> = batch.iter().map(|(c, _)| c.genotype.as_deref()).collect();
    let values: [&(dyn ToSql + Sync); 5] = [&set_id, &rsid, &chromosome, &position, &genotype];
    let Some(written) = tx.pg_query(OP, INSERT_BATCH, &values) else {
        return Err(DbError::Postgres {
            op: OP,
            kind: "not_postgres".to_owned(),
        }
        .into());
    };
    let written = written?;
    if written.len() == batch.len() {
        return Ok(());
    }
    let mut fresh = HashSet::with_capacity(written.len());
    for row in &written {
        fresh.insert(Row::Postgres(row).text(0, OP, "genotype_call")?.to_owned());
    }
    // The first row refused: its id was not written now, or was by an earlier row.
    let mut seen = HashSet::with_capacity(batch.len());
    for (c, line) in batch {
        if !fresh.contains(&c.rsid) || !seen.insert(c.rsid.as_str()) {
            return Err(repeated(*line));
        }
    }
    Err(StoreError::Db(DbError::Malformed {
        table: "genotype_call",
    })
    .into())
}

/// A row of `genotype_call`: rsid, chromosome, position, genotype.
fn call(r: &Row<'_>) -> Result<GenotypeCall, DbError> {
    let table = "genotype_call";
    Ok(GenotypeCall {
        rsid: r.text(0, CALLS, table)?.to_owned(),
        chromosome: r.text(1, CALLS, table)?.to_owned(),
        position: u64::try_from(r.int(2, CALLS)?).map_err(|_| DbError::Malformed { table })?,
        genotype: r.opt_text(3, CALLS, table)?.map(str::to_owned),
    })
}

/// The operation every read of calls fails as.
const CALLS: &str = "read genotype calls";

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use answers_genetics::import::{GenotypeReader, ImportError, LineProblem};

    use super::{BATCH, GenotypeImportError};
    use crate::test_support;

    /// `rows` calls `rs1`… (a no-call every seventh), and after row `at` the line `extra`.
    fn file(rows: usize, at: usize, extra: &str) -> String {
        let mut text = String::from("# build 37\n");
        for i in 1..=rows {
            let genotype = if i % 7 == 0 { "--" } else { "AG" };
            let _ = writeln!(text, "rs{i}\t1\t{}\t{genotype}", 1000 + i);
            if i == at {
                text.push_str(extra);
            }
        }
        text
    }

    #[test]
    fn a_file_of_many_batches_imports_whole_and_a_repeat_is_named_by_its_line() {
        let rows = 2 * BATCH + 123;
        test_support::each_backend(|mut store| {
            let who = store.upsert_subject("s1", "mom", "UTC").unwrap();
            let text = file(rows, 0, "");
            let set = store
                .import_genotypes(&who.id, &mut GenotypeReader::new(text.as_bytes()))
                .unwrap();
            assert_eq!((set.call_count, set.no_call_count), (rows, rows / 7));
            let calls = store
                .genotype_calls(&set, &["rs1", "rs10001", &format!("rs{rows}")])
                .unwrap();
            assert_eq!(calls.len(), 3);
            // A repeat of an id of the first batch in the third; of one in its own batch; the
            // first of two repeats in one batch. Line 1 is the header.
            for (at, extra, line) in [
                (2 * BATCH + 50, "rs9\t1\t5\tCC\n", 2 * BATCH + 52),
                (BATCH + 20, "rs10005\t1\t5\tCC\n", BATCH + 22),
                (BATCH + 3, "rs10002\t1\t5\tCC\nrs2\t1\t5\tCC\n", BATCH + 5),
                (BATCH + 3, "rs2\t1\t5\tCC\nrs10002\t1\t5\tCC\n", BATCH + 5),
            ] {
                let text = file(rows, at, extra);
                let err = store
                    .import_genotypes(&who.id, &mut GenotypeReader::new(text.as_bytes()))
                    .unwrap_err();
                let GenotypeImportError::Import(e) = err else {
                    panic!("{err:?}")
                };
                let problem = LineProblem::DuplicateRsid;
                assert_eq!(e, ImportError::Malformed { line, problem }, "{at}");
                assert_eq!(store.genotype_set(&who.id).unwrap(), Some(set.clone()));
            }
        });
    }
}
