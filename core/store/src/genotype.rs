//! Genotype sets: one per subject, the calls of one imported consumer-array file, in the file's
//! own coordinates. Importing again replaces the subject's set.

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError, Subject};
use answers_genetics::Build;
use answers_genetics::import::{ArrayFormat, GenotypeCall, ParsedGenotypes};

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
        let op = |e: rusqlite::Error| StoreError::sqlite("write genotypes", &e);
        if self.subject_by_id(subject_id)?.is_none() {
            return Err(StoreError::UnknownSubject);
        }
        let tx = self.conn.transaction().map_err(op)?;
        tx.execute(
            "DELETE FROM genotype_call WHERE set_id IN
               (SELECT id FROM genotype_set WHERE subject_id = ?1)",
            [subject_id],
        )
        .map_err(op)?;
        tx.execute(
            "DELETE FROM genotype_set WHERE subject_id = ?1",
            [subject_id],
        )
        .map_err(op)?;
        let no_calls = file.no_calls();
        tx.execute(
            "INSERT INTO genotype_set (subject_id, format, build, call_count, no_call_count)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                subject_id,
                file.format.as_str(),
                file.build.as_str(),
                i64::try_from(file.calls.len()).unwrap_or(i64::MAX),
                i64::try_from(no_calls).unwrap_or(i64::MAX),
            ],
        )
        .map_err(op)?;
        let set_id = tx.last_insert_rowid();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO genotype_call (set_id, rsid, chromosome, position, genotype)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(op)?;
            for c in &file.calls {
                let position = i64::try_from(c.position).unwrap_or(i64::MAX);
                insert
                    .execute(params![set_id, c.rsid, c.chromosome, position, c.genotype])
                    .map_err(op)?;
            }
        }
        tx.commit().map_err(op)?;
        Ok(GenotypeSet {
            id: set_id,
            subject_id: subject_id.to_owned(),
            format: file.format,
            build: file.build,
            call_count: file.calls.len(),
            no_call_count: no_calls,
        })
    }

    /// `subject_id`'s genotype set, if any.
    ///
    /// # Errors
    /// A store error, or [`StoreError::Malformed`] for a row the schema does not allow.
    pub fn genotype_set(&self, subject_id: &str) -> Result<Option<GenotypeSet>, StoreError> {
        let op = |e: rusqlite::Error| StoreError::sqlite("read genotype set", &e);
        let malformed = || StoreError::Malformed {
            table: "genotype_set",
        };
        let row = self
            .conn
            .query_row(
                "SELECT id, format, build, call_count, no_call_count
                 FROM genotype_set WHERE subject_id = ?1",
                [subject_id],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                    ))
                },
            )
            .optional()
            .map_err(op)?;
        let Some((id, format, build, calls, no_calls)) = row else {
            return Ok(None);
        };
        let count = |n: i64| usize::try_from(n).map_err(|_| malformed());
        Ok(Some(GenotypeSet {
            id,
            subject_id: subject_id.to_owned(),
            format: format.parse().map_err(|_| malformed())?,
            build: build.parse().map_err(|_| malformed())?,
            call_count: count(calls)?,
            no_call_count: count(no_calls)?,
        }))
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
    /// A store error, or [`StoreError::Malformed`] for a row the schema does not allow.
    pub fn genotype_calls(
        &self,
        set: &GenotypeSet,
        rsids: &[&str],
    ) -> Result<Vec<GenotypeCall>, StoreError> {
        let op = |e: rusqlite::Error| StoreError::sqlite("read genotype calls", &e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT rsid, chromosome, position, genotype FROM genotype_call
                 WHERE set_id = ?1 AND rsid = ?2",
            )
            .map_err(op)?;
        let mut out = Vec::new();
        for rsid in rsids {
            let mut rows = stmt.query(params![set.id, rsid]).map_err(op)?;
            if let Some(r) = rows.next().map_err(op)? {
                out.push(call(r)?);
            }
        }
        Ok(out)
    }

    /// The calls of `set` whose file coordinates are on one of `chromosomes` and in
    /// `start..=end`, in position order; at most `limit` per chromosome (a caller that shows
    /// `cap` rows asks for `cap + 1`, to know it cut), so a whole-genome region reads a
    /// bounded number of rows.
    ///
    /// # Errors
    /// A store error, or [`StoreError::Malformed`] for a row the schema does not allow.
    pub fn genotype_calls_in_raw_region(
        &self,
        set: &GenotypeSet,
        chromosomes: &[String],
        (start, end): (u64, u64),
        limit: usize,
    ) -> Result<Vec<GenotypeCall>, StoreError> {
        let op = |e: rusqlite::Error| StoreError::sqlite("read genotype calls", &e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT rsid, chromosome, position, genotype FROM genotype_call
                 WHERE set_id = ?1 AND chromosome = ?2 AND position BETWEEN ?3 AND ?4
                 ORDER BY position, rsid LIMIT ?5",
            )
            .map_err(op)?;
        let clamp = |p: u64| i64::try_from(p).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut out = Vec::new();
        for chromosome in chromosomes {
            let mut rows = stmt
                .query(params![set.id, chromosome, clamp(start), clamp(end), limit])
                .map_err(op)?;
            while let Some(r) = rows.next().map_err(op)? {
                out.push(call(r)?);
            }
        }
        out.sort_by_key(|c| c.position);
        Ok(out)
    }
}

/// A row of `genotype_call`: rsid, chromosome, position, genotype.
fn call(r: &rusqlite::Row<'_>) -> Result<GenotypeCall, StoreError> {
    let op = |e: rusqlite::Error| StoreError::sqlite("read genotype calls", &e);
    let position: i64 = r.get(2).map_err(op)?;
    Ok(GenotypeCall {
        rsid: r.get(0).map_err(op)?,
        chromosome: r.get(1).map_err(op)?,
        position: u64::try_from(position).map_err(|_| StoreError::Malformed {
            table: "genotype_call",
        })?,
        genotype: r.get(3).map_err(op)?,
    })
}
