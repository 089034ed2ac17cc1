//! Where logs come from: the `Source` trait, the streams a source opens, and the spellings of a
//! SOURCE on the command line.
//!
//! A source is opened once. Opening checks its preconditions (a container's logging driver) and
//! yields one or more streams, each scanned by its own [`StreamScanner`](crate::StreamScanner)
//! with its own carry-over, concurrently when there are several. After every stream has been read
//! to its end, [`Source::finish`] says whether the source delivered all of it (the exit status of
//! `docker logs`).
//!
//! Sources today: files ([`FileSource`], gzip included), standard input ([`StdinSource`]) and a
//! Docker container ([`DockerSource`]). Follow-ups that fit the same trait: `kubectl logs` (one
//! combined stream per container, plus `--previous`) and `podman logs` (stdout and stderr, like
//! Docker).

mod docker;
mod file;

use std::io::{self, Read};

pub use docker::{DockerSource, Engine, PODMAN_READABLE_DRIVERS, READABLE_DRIVERS};
pub use file::{FileSource, StdinSource};

/// The size of each read from a pipe or a decompressor, and of each piece of a mapped file.
pub const CHUNK: usize = 256 * 1024;

/// A place logs are read from.
///
/// ```
/// use phi_canary::source::{Source, StdinSource};
///
/// let stdin = StdinSource::new();
/// assert_eq!((stdin.name(), stdin.kind()), ("stdin", "stdin"));
/// ```
pub trait Source: Send {
    /// How reports name the source: a path, `stdin`, `docker:NAME`, `podman:NAME`.
    fn name(&self) -> &str;

    /// The kind of source: `file`, `stdin`, `docker`, `podman`.
    fn kind(&self) -> &'static str;

    /// Checks the source's preconditions and starts reading it.
    fn open(&mut self) -> Result<Opened, SourceError>;

    /// Called once every stream has been read to its end: `Err` if the source did not deliver
    /// all of its logs.
    fn finish(&mut self) -> Result<(), SourceError> {
        Ok(())
    }
}

/// An opened source: its streams, and warnings about how far its logs can be trusted.
pub struct Opened {
    /// The streams to scan.
    pub streams: Vec<Stream>,
    /// Conditions that do not stop the scan but weaken it (a non-blocking logging mode).
    pub warnings: Vec<String>,
}

/// One byte stream of a source.
pub struct Stream {
    /// `stdout`, `stderr`, `tty` (a TTY container's merged output), `file` or `stdin`.
    pub name: &'static str,
    /// Whether the positive control's marker lines must appear in this stream.
    pub expects_markers: bool,
    /// The stream's bytes.
    pub chunks: Box<dyn Chunks>,
}

/// A stream's bytes, handed out in order in pieces of any size.
///
/// ```
/// use phi_canary::source::{Chunks, ReadChunks};
///
/// let mut chunks = ReadChunks::new(&b"two\nlines\n"[..]);
/// let mut total = 0;
/// chunks.each(&mut |piece| total += piece.len())?;
/// assert_eq!(total, 10);
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait Chunks: Send {
    /// Calls `each` with every piece until the end of the stream.
    fn each(&mut self, each: &mut dyn FnMut(&[u8])) -> io::Result<()>;

    /// Splits the stream into at most `n` consecutive parts to scan in parallel, every part but
    /// the first starting right after a newline; `None` (the default) if it cannot be split.
    /// A match never crosses such a cut (see [`Matcher`](crate::Matcher)), so scanning the parts
    /// gives the events of one scan.
    fn split(&mut self, n: usize) -> io::Result<Option<Vec<Box<dyn Chunks>>>> {
        let _ = n;
        Ok(None)
    }
}

/// [`Chunks`] from any reader, [`CHUNK`] bytes at a time, retrying interrupted reads.
pub struct ReadChunks<R> {
    reader: R,
}

impl<R: Read + Send> ReadChunks<R> {
    /// Reads from `reader`.
    pub fn new(reader: R) -> ReadChunks<R> {
        ReadChunks { reader }
    }
}

impl<R: Read + Send> Chunks for ReadChunks<R> {
    fn each(&mut self, each: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        let mut buf = vec![0u8; CHUNK];
        loop {
            match self.reader.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => each(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Why a source could not be read, or could not be trusted to hold the whole log.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file could not be opened.
    #[error("cannot open {path}: {error}")]
    Open {
        /// The path as given.
        path: String,
        /// What the OS said.
        error: io::Error,
    },
    /// The path is a directory.
    #[error("{path} is a directory")]
    Directory {
        /// The path as given.
        path: String,
    },
    /// A stream failed part way.
    #[error("cannot read {what}: {error}")]
    Read {
        /// The source and stream.
        what: String,
        /// What the OS or the decompressor said.
        error: io::Error,
    },
    /// A helper program could not be started.
    #[error("cannot run `{program}`: {error}")]
    Spawn {
        /// The program.
        program: String,
        /// What the OS said.
        error: io::Error,
    },
    /// A helper program failed.
    #[error("`{command}` failed ({status}){detail}")]
    Failed {
        /// The command, without secrets or log data.
        command: String,
        /// Its exit status.
        status: String,
        /// `: ` and what it said, when that cannot hold log data; else empty.
        detail: String,
    },
    /// The container's logging driver cannot give its logs back completely.
    #[error("logging driver `{driver}` cannot be read back: {why}")]
    Driver {
        /// The driver.
        driver: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// `docker inspect` answered something this version does not understand.
    #[error("unexpected `docker inspect` output: {0}")]
    Inspect(String),
    /// Not a container name Docker accepts.
    #[error("`{0}` is not a container name or id")]
    Container(String),
}

/// A SOURCE as written on the command line: `-` is standard input, `docker:NAME` or
/// `podman:NAME` a container, anything else a path (write `./docker:x` for a file of that name).
///
/// ```
/// use phi_canary::source::parse;
///
/// assert_eq!(parse("-")?.kind(), "stdin");
/// assert_eq!(parse("docker:web")?.name(), "docker:web");
/// assert_eq!(parse("podman:web")?.kind(), "podman");
/// assert_eq!(parse("logs/app.log.gz")?.kind(), "file");
/// assert!(parse("docker:-rm").is_err());
/// # Ok::<(), phi_canary::source::SourceError>(())
/// ```
pub fn parse(spec: &str) -> Result<Box<dyn Source>, SourceError> {
    if spec == "-" {
        Ok(Box::new(StdinSource::new()))
    } else if let Some(container) = spec.strip_prefix("docker:") {
        Ok(Box::new(DockerSource::new(container)?))
    } else if let Some(container) = spec.strip_prefix("podman:") {
        Ok(Box::new(DockerSource::podman(container)?))
    } else {
        Ok(Box::new(FileSource::new(spec)))
    }
}
