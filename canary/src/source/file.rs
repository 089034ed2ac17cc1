//! Files and standard input.
//!
//! A file is one stream, named `file`. A gzip file (recognised by its magic bytes, so rotated
//! `*.log.1.gz` files need no flag) is decompressed on the fly; offsets and lines then count the
//! decompressed bytes. A large regular file is mapped into memory 16 MiB at a time, so memory
//! stays bounded however big the file is, and from 64 MiB on it can be cut at newlines into parts
//! scanned in parallel; the scan covers the bytes present when it was opened.
//! Anything else (a pipe, a FIFO, a small file) is read in [`CHUNK`]-byte pieces. Standard input
//! is read as it comes: pipe compressed input through `zcat`.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::PathBuf;

use flate2::read::MultiGzDecoder;
use memmap2::{Mmap, MmapOptions};

use super::{CHUNK, Chunks, Opened, ReadChunks, Source, SourceError, Stream};

/// Files from this size on are mapped rather than read.
#[cfg(not(test))]
const MAP_FROM: u64 = 4 * 1024 * 1024;

/// How much of a file is mapped at once (per thread).
#[cfg(not(test))]
const WINDOW: u64 = 16 * 1024 * 1024;

/// The smallest part a file is split into for a parallel scan.
#[cfg(not(test))]
const PART_MIN: u64 = 32 * 1024 * 1024;

// Small enough that unit tests cross windows and split files of a few MiB.
#[cfg(test)]
const MAP_FROM: u64 = 1024 * 1024;
#[cfg(test)]
const WINDOW: u64 = 1024 * 1024 + 7;
#[cfg(test)]
const PART_MIN: u64 = 2 * 1024 * 1024;

/// How far past a split point a newline is looked for; a line longer than this is not cut.
const CUT_SEARCH: u64 = 1024 * 1024;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A log file, plain or gzip.
///
/// ```
/// use phi_canary::source::{FileSource, Source};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("app.log");
/// std::fs::write(&path, "ok\n")?;
/// let mut file = FileSource::new(&path.to_string_lossy());
/// let opened = file.open()?;
/// assert_eq!(opened.streams[0].name, "file");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FileSource {
    path: PathBuf,
    name: String,
}

impl FileSource {
    /// The file at `path`; reports name it as written.
    #[must_use]
    pub fn new(path: &str) -> FileSource {
        FileSource {
            path: PathBuf::from(path),
            name: path.to_owned(),
        }
    }

    fn open_error(&self, error: io::Error) -> SourceError {
        SourceError::Open {
            path: self.name.clone(),
            error,
        }
    }
}

impl Source for FileSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "file"
    }

    fn open(&mut self) -> Result<Opened, SourceError> {
        let mut file = File::open(&self.path).map_err(|e| self.open_error(e))?;
        let meta = file.metadata().map_err(|e| self.open_error(e))?;
        if meta.is_dir() {
            return Err(SourceError::Directory {
                path: self.name.clone(),
            });
        }
        let chunks: Box<dyn Chunks> = if meta.is_file() {
            let mut magic = [0u8; 2];
            let n = read_up_to(&mut file, &mut magic).map_err(|e| self.open_error(e))?;
            file.rewind().map_err(|e| self.open_error(e))?;
            if n == 2 && magic == GZIP_MAGIC {
                let reader = MultiGzDecoder::new(BufReader::with_capacity(CHUNK, file));
                Box::new(ReadChunks::new(reader))
            } else if meta.len() >= MAP_FROM {
                Box::new(MappedChunks {
                    file,
                    start: 0,
                    end: meta.len(),
                })
            } else {
                Box::new(ReadChunks::new(file))
            }
        } else {
            // A FIFO or a device: read as it comes, no sniffing (it cannot be rewound).
            Box::new(ReadChunks::new(file))
        };
        Ok(Opened {
            streams: vec![Stream {
                name: "file",
                expects_markers: true,
                chunks,
            }],
            warnings: Vec::new(),
        })
    }
}

/// Standard input, one stream named `stdin`.
///
/// ```
/// use phi_canary::source::{Source, StdinSource};
///
/// assert_eq!(StdinSource::new().name(), "stdin");
/// ```
#[derive(Default)]
pub struct StdinSource;

impl StdinSource {
    /// Standard input.
    #[must_use]
    pub fn new() -> StdinSource {
        StdinSource
    }
}

impl Source for StdinSource {
    fn name(&self) -> &'static str {
        "stdin"
    }

    fn kind(&self) -> &'static str {
        "stdin"
    }

    fn open(&mut self) -> Result<Opened, SourceError> {
        Ok(Opened {
            streams: vec![Stream {
                name: "stdin",
                expects_markers: true,
                chunks: Box::new(ReadChunks::new(io::stdin())),
            }],
            warnings: Vec::new(),
        })
    }
}

/// Reads until `buf` is full or the file ends; returns how many bytes were read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A regular file, or a byte range of one, mapped [`WINDOW`] bytes at a time and handed out
/// [`CHUNK`] bytes at a time, so each piece is searched and line-counted while it is in cache.
struct MappedChunks {
    file: File,
    start: u64,
    end: u64,
}

impl Chunks for MappedChunks {
    fn each(&mut self, each: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        let mut offset = self.start;
        while offset < self.end {
            let len = WINDOW.min(self.end - offset) as usize;
            let map = map_window(&self.file, offset, len)?;
            for piece in map.chunks(CHUNK) {
                each(piece);
            }
            offset += len as u64;
        }
        Ok(())
    }

    /// Cuts just after the first newline at or past each `i/n` of the range, if one comes
    /// within [`CUT_SEARCH`] bytes; parts are at least [`PART_MIN`] bytes.
    fn split(&mut self, n: usize) -> io::Result<Option<Vec<Box<dyn Chunks>>>> {
        let len = self.end - self.start;
        let n = (n as u64).min(len / PART_MIN);
        if n < 2 {
            return Ok(None);
        }
        let mut cuts = vec![self.start];
        for i in 1..n {
            let target = self.start + len * i / n;
            let limit = self.end.min(target + CUT_SEARCH);
            let window = map_window(&self.file, target, (limit - target) as usize)?;
            if let Some(at) = window.iter().position(|&b| b == b'\n') {
                let cut = target + at as u64 + 1;
                if cut > *cuts.last().unwrap_or(&0) && cut < self.end {
                    cuts.push(cut);
                }
            }
        }
        if cuts.len() < 2 {
            return Ok(None);
        }
        cuts.push(self.end);
        let mut parts: Vec<Box<dyn Chunks>> = Vec::new();
        for pair in cuts.windows(2) {
            parts.push(Box::new(MappedChunks {
                file: self.file.try_clone()?,
                start: pair[0],
                end: pair[1],
            }));
        }
        Ok(Some(parts))
    }
}

// Mapping is the one unsafe operation in this crate: `memmap2` cannot promise that no other
// process truncates the file while it is mapped.
#[allow(unsafe_code)]
fn map_window(file: &File, offset: u64, len: usize) -> io::Result<Mmap> {
    // SAFETY: the map is only read, and only while `file` is open. If another process truncates
    // the file during the scan, reading past its new end raises SIGBUS: the process dies with a
    // signal, a non-zero exit that fails closed, never a silent clean result. Logs are scanned
    // after the service has stopped, so nothing should be writing them.
    // No MADV_SEQUENTIAL: it lets the kernel drop the pages behind the scan, which evicted the
    // log from the page cache and made the next scan read it from disk again.
    unsafe { MmapOptions::new().offset(offset).len(len).map(file) }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn bytes_of(source: &mut FileSource) -> Vec<u8> {
        let mut opened = source.open().expect("opens");
        let mut out = Vec::new();
        opened.streams[0]
            .chunks
            .each(&mut |p| out.extend_from_slice(p))
            .expect("reads");
        out
    }

    #[test]
    fn plain_gzip_and_mapped_files_give_the_same_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let line = b"{\"log\":\"self-tracked PHI-CANARY-3f9a\\n\",\"stream\":\"stdout\"}\n";
        let big: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(5 * 1024 * 1024 + 7)
            .collect();
        let plain = dir.path().join("app.log");
        std::fs::write(&plain, &big).expect("write");
        let gz = dir.path().join("app.log.1.gz");
        let mut enc = flate2::write::GzEncoder::new(
            File::create(&gz).expect("create"),
            flate2::Compression::fast(),
        );
        enc.write_all(&big).expect("compress");
        enc.finish().expect("finish");
        for path in [plain, gz] {
            let mut source = FileSource::new(&path.to_string_lossy());
            assert!(bytes_of(&mut source) == big, "{}", path.display());
        }
    }

    #[test]
    fn a_missing_file_and_a_directory_are_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("nope.log");
        let err = FileSource::new(&missing.to_string_lossy())
            .open()
            .err()
            .expect("missing");
        assert!(err.to_string().starts_with("cannot open "), "{err}");
        let err = FileSource::new(&dir.path().to_string_lossy())
            .open()
            .err()
            .expect("directory");
        assert!(err.to_string().ends_with(" is a directory"), "{err}");
    }
}
