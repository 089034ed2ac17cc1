//! The consumer-array importer: a 23andMe-style file (`#` comment header, then
//! `rsid<TAB>chromosome<TAB>position<TAB>genotype`) or an `AncestryDNA` file (`#` comments, a
//! column line, then `rsid<TAB>chromosome<TAB>position<TAB>allele1<TAB>allele2`).
//!
//! It tolerates CRLF line ends, blank lines and comments anywhere, and no-calls (`--` in the
//! 23andMe format, `0` alleles in `AncestryDNA`'s), which are kept as calls without a genotype.
//! The build is the one the comment header names (`build 37`, `GRCh38`, `hg19`…); a header
//! that names none, or names two, leaves it [`Build::Raw`]. A malformed line is refused with
//! its 1-based number and what is wrong, never its text: the text is a genotype.

use std::collections::HashSet;

use phi_macros::ClosedEnum;

use super::Build;
use super::sites::normalize_chromosome;

/// The two layouts the importer reads: `twenty_three_and_me` and `ancestry_dna` on the wire.
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrayFormat {
    /// Four columns, the genotype in one (`AG`, `A`, `--`).
    #[closed(rename = "twenty_three_and_me")]
    TwentyThreeAndMe,
    /// Five columns, one allele in each of the last two (`0` for a no-call).
    AncestryDna,
}

/// What is wrong with a line.
///
/// ```
/// use answers_genetics::import::LineProblem;
///
/// assert_eq!(LineProblem::BadPosition.text(), "the position is not a whole number of at least 1");
/// ```
#[derive(ClosedEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineProblem {
    /// Not 4 tab-separated fields (23andMe) or 5 (`AncestryDNA`), or not the number of the
    /// file's first row.
    FieldCount,
    /// The id is neither `rs` nor `i` followed by digits.
    BadRsid,
    /// Not a chromosome a consumer array reports.
    BadChromosome,
    /// Not a whole number of at least 1.
    BadPosition,
    /// Not one or two of `A C G T D I`, nor a no-call.
    BadGenotype,
    /// The same id on an earlier line.
    DuplicateRsid,
    /// Not UTF-8 text.
    NotUtf8,
    /// Longer than [`MAX_LINE_BYTES`].
    TooLong,
}

impl LineProblem {
    /// The problem as a person reads it.
    #[must_use]
    pub fn text(self) -> &'static str {
        match self {
            LineProblem::FieldCount => "the line does not have the columns of the file's format",
            LineProblem::BadRsid => "the id is not rs or i followed by digits",
            LineProblem::BadChromosome => "the chromosome is not one a genotyping array reports",
            LineProblem::BadPosition => "the position is not a whole number of at least 1",
            LineProblem::BadGenotype => {
                "the genotype is not one or two of A, C, G, T, D, I, nor a no-call"
            }
            LineProblem::DuplicateRsid => "the id is repeated from an earlier line",
            LineProblem::NotUtf8 => "the line is not UTF-8 text",
            LineProblem::TooLong => "the line is longer than any genotype row",
        }
    }
}

/// Why a file was not imported. Names a line by number, never by its text.
///
/// ```
/// use answers_genetics::import::{ImportError, LineProblem, parse};
///
/// let err = parse(b"rs1\t1\tsecret\tAG\n").unwrap_err();
/// assert_eq!(err, ImportError::Malformed { line: 1, problem: LineProblem::BadPosition });
/// assert_eq!(err.to_string(), "line 1: the position is not a whole number of at least 1");
/// assert!(!err.to_string().contains("secret"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// A line that is not a comment, blank, or the column line, and does not parse.
    #[error("line {line}: {}", problem.text())]
    Malformed {
        /// The 1-based line number.
        line: usize,
        /// What is wrong.
        problem: LineProblem,
    },
    /// No genotype rows at all.
    #[error("the file has no genotype rows")]
    Empty,
    /// The input could not be read: told by the I/O error's kind, never its message.
    #[error("the file could not be read ({kind})")]
    Read {
        /// The I/O error's kind.
        kind: std::io::ErrorKind,
    },
}

/// One row of the file, in the file's own coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenotypeCall {
    /// `rs…` (lower-case prefix) or a vendor id `i…`.
    pub rsid: String,
    /// The chromosome as the file wrote it, upper-cased, without a `chr` prefix (`AncestryDNA`
    /// numbers such as `25` are kept).
    pub chromosome: String,
    /// The 1-based position as the file wrote it.
    pub position: u64,
    /// The alleles, upper-case (`AG`, `A`, `DI`); `None` for a no-call.
    pub genotype: Option<String>,
}

/// A parsed file.
///
/// ```
/// use answers_genetics::Build;
/// use answers_genetics::import::{ArrayFormat, parse};
///
/// let text = "# reference human assembly build 37\r\n# rsid\tchromosome\tposition\tgenotype\r\n\
///             rs4244285\t10\t96541616\tAG\r\nrs4986893\t10\t96540410\t--\r\n";
/// let file = parse(text.as_bytes())?;
/// assert_eq!((file.format, file.build), (ArrayFormat::TwentyThreeAndMe, Build::Grch37));
/// assert_eq!(file.calls.len(), 2);
/// assert_eq!(file.calls[1].genotype, None);
/// # Ok::<(), answers_genetics::import::ImportError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedGenotypes {
    /// The layout.
    pub format: ArrayFormat,
    /// The build the header names, or [`Build::Raw`].
    pub build: Build,
    /// The rows, in file order.
    pub calls: Vec<GenotypeCall>,
}

impl ParsedGenotypes {
    /// How many rows are no-calls.
    #[must_use]
    pub fn no_calls(&self) -> usize {
        self.calls.iter().filter(|c| c.genotype.is_none()).count()
    }
}

/// The longest line the importer reads, in bytes: a real file's lines are under 100, and a
/// longer one is refused by its number rather than read into memory whole.
///
/// ```
/// assert_eq!(answers_genetics::import::MAX_LINE_BYTES, 4096);
/// ```
pub const MAX_LINE_BYTES: usize = 4096;

/// Parses a consumer-array raw-data file held in memory; [`GenotypeReader`] streams one.
///
/// # Errors
/// [`ImportError::Malformed`] for the first line that does not parse (a repeated id included),
/// [`ImportError::Empty`] when no line is a genotype row.
pub fn parse(bytes: &[u8]) -> Result<ParsedGenotypes, ImportError> {
    let mut reader = GenotypeReader::new(bytes);
    let mut calls = Vec::new();
    let mut seen = HashSet::new();
    while let Some(call) = reader.next_call()? {
        if !seen.insert(call.rsid.clone()) {
            return Err(reader.malformed(LineProblem::DuplicateRsid));
        }
        calls.push(call);
    }
    let (format, build) = reader.header().ok_or(ImportError::Empty)?;
    Ok(ParsedGenotypes {
        format,
        build,
        calls,
    })
}

/// A consumer-array file read a line at a time, in memory bounded by [`MAX_LINE_BYTES`]
/// whatever the file's size: what `answers import-genotypes` streams into the store.
///
/// It does not look for a repeated id, which needs every id seen; the store's key on the set
/// and the id refuses one, and [`GenotypeReader::malformed`] names its line.
///
/// ```
/// use answers_genetics::Build;
/// use answers_genetics::import::{ArrayFormat, GenotypeReader, ImportError, LineProblem};
///
/// let text = "# build 37\nrs4244285\t10\t96541616\tAG\nrs2\t10\t5\tQ\n";
/// let mut reader = GenotypeReader::new(text.as_bytes());
/// let first = reader.next_call()?.unwrap();
/// assert_eq!(first.genotype.as_deref(), Some("AG"));
/// assert_eq!(reader.header(), Some((ArrayFormat::TwentyThreeAndMe, Build::Grch37)));
/// assert_eq!(
///     reader.next_call().unwrap_err(),
///     ImportError::Malformed { line: 3, problem: LineProblem::BadGenotype }
/// );
/// # Ok::<(), ImportError>(())
/// ```
#[derive(Debug)]
pub struct GenotypeReader<R> {
    input: R,
    buf: Vec<u8>,
    /// The 1-based number of the line read last.
    line: usize,
    builds: Vec<Build>,
    format: Option<ArrayFormat>,
    /// A genotype row has been read (the column line is allowed only before one).
    rows: bool,
}

impl<R: std::io::BufRead> GenotypeReader<R> {
    /// A reader of `input` (a `BufReader` over a file, or a byte slice).
    pub fn new(input: R) -> Self {
        Self {
            input,
            buf: Vec::with_capacity(128),
            line: 0,
            builds: Vec::new(),
            format: None,
            rows: false,
        }
    }

    /// The file's layout and build, once the first genotype row has been read: the build is
    /// the one the comments before it name, or [`Build::Raw`] when they name none or two.
    pub fn header(&self) -> Option<(ArrayFormat, Build)> {
        let build = match self.builds[..] {
            [only] => only,
            _ => Build::Raw,
        };
        self.format.map(|f| (f, build))
    }

    /// The 1-based number of the line read last.
    pub fn line(&self) -> usize {
        self.line
    }

    /// `problem` on the line read last.
    pub fn malformed(&self, problem: LineProblem) -> ImportError {
        ImportError::Malformed {
            line: self.line,
            problem,
        }
    }

    /// The next genotype row, or `None` at the end of the file.
    ///
    /// # Errors
    /// [`ImportError::Malformed`] for a line that does not parse, [`ImportError::Read`] when
    /// the input fails, [`ImportError::Empty`] at the end of a file with no genotype row.
    pub fn next_call(&mut self) -> Result<Option<GenotypeCall>, ImportError> {
        loop {
            if !self.read_line()? {
                return if self.rows {
                    Ok(None)
                } else {
                    Err(ImportError::Empty)
                };
            }
            let text =
                std::str::from_utf8(&self.buf).map_err(|_| self.malformed(LineProblem::NotUtf8))?;
            let text = text.strip_suffix('\n').unwrap_or(text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if text.trim().is_empty() {
                continue;
            }
            if let Some(comment) = text.strip_prefix('#') {
                if self.format.is_none() {
                    for b in build_named(comment) {
                        if !self.builds.contains(&b) {
                            self.builds.push(b);
                        }
                    }
                }
                continue;
            }
            let fields: Vec<&str> = text.split('\t').map(str::trim).collect();
            if is_column_line(&fields) && !self.rows {
                continue;
            }
            let this = match fields.len() {
                4 => ArrayFormat::TwentyThreeAndMe,
                5 => ArrayFormat::AncestryDna,
                _ => return Err(self.malformed(LineProblem::FieldCount)),
            };
            if *self.format.get_or_insert(this) != this {
                return Err(self.malformed(LineProblem::FieldCount));
            }
            let call = row(this, &fields).map_err(|p| self.malformed(p))?;
            self.rows = true;
            return Ok(Some(call));
        }
    }

    /// Reads the next line into `buf`; `false` at the end of the input.
    fn read_line(&mut self) -> Result<bool, ImportError> {
        use std::io::BufRead as _;
        self.buf.clear();
        let limit = u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX) + 1;
        let n = std::io::Read::take(&mut self.input, limit)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| ImportError::Read { kind: e.kind() })?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.buf.len() > MAX_LINE_BYTES {
            return Err(self.malformed(LineProblem::TooLong));
        }
        Ok(true)
    }
}

impl<R: std::io::BufRead> Iterator for GenotypeReader<R> {
    type Item = Result<GenotypeCall, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_call().transpose()
    }
}

/// The column line `AncestryDNA` writes (and 23andMe-style files without the leading `#`).
fn is_column_line(fields: &[&str]) -> bool {
    fields
        .first()
        .is_some_and(|f| f.eq_ignore_ascii_case("rsid"))
        && fields
            .get(1)
            .is_some_and(|f| f.eq_ignore_ascii_case("chromosome"))
}

/// The builds a comment names.
fn build_named(comment: &str) -> Vec<Build> {
    let c = comment.to_ascii_lowercase();
    let mut found = Vec::new();
    if ["build 37", "grch37", "hg19"].iter().any(|k| c.contains(k)) {
        found.push(Build::Grch37);
    }
    if ["build 38", "grch38", "hg38"].iter().any(|k| c.contains(k)) {
        found.push(Build::Grch38);
    }
    found
}

/// One genotype row of `format`.
fn row(format: ArrayFormat, fields: &[&str]) -> Result<GenotypeCall, LineProblem> {
    let rsid = vendor_id(fields[0]).ok_or(LineProblem::BadRsid)?;
    let chromosome = raw_chromosome(fields[1]).ok_or(LineProblem::BadChromosome)?;
    let position = fields[2]
        .parse::<u64>()
        .ok()
        // A position the store's integer cannot hold is no chromosome position: refused, not
        // stored as another number.
        .filter(|p| *p > 0 && i64::try_from(*p).is_ok())
        .ok_or(LineProblem::BadPosition)?;
    let genotype = match format {
        ArrayFormat::TwentyThreeAndMe => genotype_23andme(fields[3])?,
        ArrayFormat::AncestryDna => genotype_ancestry(fields[3], fields[4])?,
    };
    Ok(GenotypeCall {
        rsid,
        chromosome,
        position,
        genotype,
    })
}

/// `rs` or `i` followed by 1–12 digits, prefix lower-cased.
fn vendor_id(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let digits = lower
        .strip_prefix("rs")
        .or_else(|| lower.strip_prefix('i'))?;
    let ok = !digits.is_empty() && digits.len() <= 12 && digits.bytes().all(|b| b.is_ascii_digit());
    ok.then_some(lower)
}

/// The chromosome as written, checked: what [`normalize_chromosome`] accepts, or the
/// pseudo-autosomal spellings `XY` and `AncestryDNA`'s `25`.
fn raw_chromosome(s: &str) -> Option<String> {
    let upper = s.to_ascii_uppercase();
    let bare = upper.strip_prefix("CHR").unwrap_or(&upper).to_owned();
    let par = bare == "XY" || bare == "25";
    (par || normalize_chromosome(&bare).is_some()).then_some(bare)
}

fn allele_ok(s: &str) -> bool {
    s.len() == 1 && matches!(s, "A" | "C" | "G" | "T" | "D" | "I")
}

fn genotype_23andme(g: &str) -> Result<Option<String>, LineProblem> {
    let g = g.to_ascii_uppercase();
    if g == "--" || g == "-" {
        return Ok(None);
    }
    let ok = (1..=2).contains(&g.len()) && g.chars().all(|c| allele_ok(&c.to_string()));
    if ok {
        Ok(Some(g))
    } else {
        Err(LineProblem::BadGenotype)
    }
}

fn genotype_ancestry(a: &str, b: &str) -> Result<Option<String>, LineProblem> {
    let (a, b) = (a.to_ascii_uppercase(), b.to_ascii_uppercase());
    if a == "0" || b == "0" {
        return Ok(None);
    }
    if allele_ok(&a) && allele_ok(&b) {
        Ok(Some(format!("{a}{b}")))
    } else {
        Err(LineProblem::BadGenotype)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_named_on_the_wire() {
        assert_eq!(
            ArrayFormat::VARIANTS,
            ["twenty_three_and_me", "ancestry_dna"]
        );
    }

    #[test]
    fn ancestry_rows_join_their_alleles_and_zero_is_a_no_call() {
        let text = "#AncestryDNA raw data download\n#human reference build 37.1\n\
                    rsid\tchromosome\tposition\tallele1\tallele2\n\
                    rs4244285\t10\t96541616\tA\tG\nrs9923231\t16\t31107689\t0\t0\n\
                    rs311\t25\t2700157\tC\tT\n";
        let f = parse(text.as_bytes()).unwrap();
        assert_eq!(
            (f.format, f.build),
            (ArrayFormat::AncestryDna, Build::Grch37)
        );
        assert_eq!(f.calls[0].genotype.as_deref(), Some("AG"));
        assert_eq!(f.calls[1].genotype, None);
        assert_eq!(f.calls[2].chromosome, "25");
    }

    #[test]
    fn a_header_naming_two_builds_or_none_is_raw() {
        let two = "# build 37\n# GRCh38 liftover\nrs1\t1\t5\tAA\n";
        assert_eq!(parse(two.as_bytes()).unwrap().build, Build::Raw);
        assert_eq!(parse(b"rs1\t1\t5\tAA\n").unwrap().build, Build::Raw);
    }

    #[test]
    fn a_position_past_the_stores_integer_is_refused_not_clamped() {
        let last = format!("rs1\t1\t{}\tAA\n", i64::MAX);
        assert_eq!(
            parse(last.as_bytes()).unwrap().calls[0].position,
            i64::MAX as u64
        );
        let past = format!("rs1\t1\t{}\tAA\n", i64::MAX as u64 + 1);
        assert_eq!(
            parse(past.as_bytes()).unwrap_err(),
            ImportError::Malformed {
                line: 1,
                problem: LineProblem::BadPosition
            }
        );
    }

    #[test]
    fn mixed_layouts_are_refused_at_the_second() {
        let err = parse(b"rs1\t1\t5\tAA\nrs2\t1\t6\tA\tA\n").unwrap_err();
        assert_eq!(
            err,
            ImportError::Malformed {
                line: 2,
                problem: LineProblem::FieldCount
            }
        );
    }

    #[test]
    fn nothing_but_comments_is_empty() {
        assert_eq!(parse(b"# only\n\n").unwrap_err(), ImportError::Empty);
    }
}
