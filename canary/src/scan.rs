//! Runs a matcher over sources: every stream of a source concurrently, each with its own
//! scanner, then the source's own verdict on whether it delivered everything.
//!
//! **Invariant:** a stream's bytes go to the scanner and nowhere else; what leaves this module is
//! counts, offsets, line numbers, variant names and canary ids.

use std::thread;

use crate::decode::{Chain, LineDecoder, StreamHit};
use crate::marker::MarkerTally;
use crate::matcher::{Found, Matcher};
use crate::report::{Hit, Report, SourceReport, StreamReport};
use crate::source::{Chunks, Source, SourceError, Stream};
use crate::stream::{Event, StreamScanner};
use crate::variant::Variant;

/// Hits kept per stream; more are counted, not listed, so memory stays bounded.
pub const MAX_HITS_PER_STREAM: usize = 1000;

/// How a scan runs.
pub struct Settings<'p> {
    /// Threads for the parts of one large file (cut at newlines); streams of one source always
    /// run concurrently.
    pub threads: usize,
    /// Called with the size of every piece scanned, from several threads at once.
    pub progress: &'p (dyn Fn(u64) + Sync),
}

impl Default for Settings<'_> {
    /// One thread per file, no progress.
    fn default() -> Self {
        Settings {
            threads: 1,
            progress: &|_| {},
        }
    }
}

/// Scans every source in order and reports.
///
/// ```
/// use phi_canary::{Canary, Matcher, VariantSet, scan};
/// use phi_canary::source::FileSource;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("app.log");
/// std::fs::write(&path, "{\"comment\":\"self-tracked PHI-CANARY-3f9a\"}\n")?;
/// let m = Matcher::new(vec![Canary::demo(), Canary::core()], VariantSet::All, None)?;
/// let file = FileSource::new(&path.to_string_lossy());
/// let report = scan::scan(&m, vec![Box::new(file)], &scan::Settings::default());
/// assert_eq!(report.exit_code(), 1);
/// assert_eq!((report.hits[0].canary.as_str(), report.hits[0].offset), ("demo", 12));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn scan(matcher: &Matcher, sources: Vec<Box<dyn Source>>, settings: &Settings<'_>) -> Report {
    let mut report = Report::scanning(matcher);
    for mut source in sources {
        let (source_report, hits) = scan_source(matcher, source.as_mut(), settings);
        report.hits_total += source_report.streams.iter().map(|s| s.hits).sum::<u64>();
        report.hits.extend(hits);
        report.sources.push(source_report);
    }
    report
}

/// What scanning one stream gave.
struct Outcome {
    report: StreamReport,
    hits: Vec<Hit>,
    error: Option<SourceError>,
}

fn scan_source(
    matcher: &Matcher,
    source: &mut dyn Source,
    settings: &Settings<'_>,
) -> (SourceReport, Vec<Hit>) {
    let mut report = SourceReport {
        name: source.name().to_owned(),
        kind: source.kind(),
        streams: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    let opened = match source.open() {
        Ok(opened) => opened,
        Err(e) => {
            report.error = Some(e.to_string());
            return (report, Vec::new());
        }
    };
    report.warnings = opened.warnings;
    let name = report.name.as_str();
    let outcomes: Vec<Outcome> = if opened.streams.len() == 1 {
        opened
            .streams
            .into_iter()
            .map(|s| scan_stream(matcher, name, s, settings))
            .collect()
    } else {
        // Concurrently: a writer blocked on a full stderr pipe must not stall stdout.
        thread::scope(|scope| {
            let handles: Vec<_> = opened
                .streams
                .into_iter()
                .map(|s| scope.spawn(move || scan_stream(matcher, name, s, settings)))
                .collect();
            handles.into_iter().map(join).collect()
        })
    };
    let mut hits = Vec::new();
    let mut errors = Vec::new();
    for outcome in outcomes {
        report.streams.push(outcome.report);
        hits.extend(outcome.hits);
        errors.extend(outcome.error);
    }
    // Always reap the source (wait for `docker logs`), even after a read error.
    errors.extend(source.finish().err());
    if !errors.is_empty() {
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        report.error = Some(messages.join("; "));
    }
    (report, hits)
}

/// Scans a stream, in parallel parts when it can be cut and `settings.threads` allows, and
/// puts the parts' offsets, lines and markers back into stream terms.
fn scan_stream(
    matcher: &Matcher,
    source: &str,
    mut stream: Stream,
    settings: &Settings<'_>,
) -> Outcome {
    let split = if settings.threads > 1 {
        stream.chunks.split(settings.threads)
    } else {
        Ok(None)
    };
    let parts: Vec<Part> = match split {
        Ok(Some(parts)) => thread::scope(|scope| {
            let handles: Vec<_> = parts
                .into_iter()
                .map(|mut chunks| {
                    scope.spawn(move || scan_part(matcher, chunks.as_mut(), settings))
                })
                .collect();
            handles.into_iter().map(join).collect()
        }),
        Ok(None) => vec![scan_part(matcher, stream.chunks.as_mut(), settings)],
        Err(e) => vec![Part::failed(e)],
    };
    let mut report = StreamReport {
        name: stream.name,
        bytes: 0,
        lines: 0,
        expects_markers: stream.expects_markers,
        markers: MarkerTally::default(),
        hits: 0,
        items: None,
        spans_named: None,
    };
    let mut hits = Vec::new();
    let mut newlines = 0;
    let mut error = None;
    for part in parts {
        for (e, chain) in part.hits {
            if hits.len() == MAX_HITS_PER_STREAM {
                break;
            }
            if let Found::Canary { canary, variant } = e.found {
                hits.push(Hit {
                    source: source.to_owned(),
                    stream: stream.name,
                    line: e.line + newlines,
                    offset: e.offset + report.bytes,
                    variant,
                    canary: matcher.canaries()[canary].id().to_owned(),
                    chain: chain.map(|c| c.render(variant.name())),
                    field: None,
                });
            }
        }
        report.markers.merge(&part.markers, report.bytes);
        report.hits += part.hits_total;
        report.lines = newlines + part.lines;
        report.bytes += part.bytes;
        newlines += part.newlines;
        if error.is_none() {
            error = part.error.map(|error| SourceError::Read {
                what: format!("{source} {}", stream.name),
                error,
            });
        }
    }
    Outcome {
        report,
        hits,
        error,
    }
}

/// One part of a stream, with offsets and lines relative to its start.
struct Part {
    /// Hits in offset order; a hit found by decoding has its chain.
    hits: Vec<(Event, Option<Chain>)>,
    hits_total: u64,
    markers: MarkerTally,
    bytes: u64,
    newlines: u64,
    lines: u64,
    error: Option<std::io::Error>,
}

impl Part {
    fn failed(error: std::io::Error) -> Part {
        Part {
            hits: Vec::new(),
            hits_total: 0,
            markers: MarkerTally::default(),
            bytes: 0,
            newlines: 0,
            lines: 0,
            error: Some(error),
        }
    }
}

fn scan_part(matcher: &Matcher, chunks: &mut dyn Chunks, settings: &Settings<'_>) -> Part {
    let mut scanner = StreamScanner::with_windows(matcher);
    let mut markers = MarkerTally::default();
    let mut hits = Vec::new();
    let mut total = 0u64;
    let mut on = |e: Event| match e.found {
        Found::Canary { .. } => {
            total += 1;
            if hits.len() < MAX_HITS_PER_STREAM {
                hits.push(e);
            }
        }
        Found::Marker(kind) => markers.record(kind, e.offset),
    };
    // The fast path finds the mixed-case windows in its own pass when it can.
    let mut lines = matcher.decoder().map(|d| match scanner.take_windows() {
        Some(_) => LineDecoder::with_windows(d),
        None => LineDecoder::new(d),
    });
    let mut decoded: Vec<StreamHit> = Vec::new();
    let mut decoded_total = 0u64;
    let mut on_decoded = |h: StreamHit| {
        decoded_total += 1;
        if decoded.len() < MAX_HITS_PER_STREAM {
            decoded.push(h);
        }
    };
    let mut decode_error = None;
    let read = chunks.each(&mut |piece| {
        let (offset, before) = (scanner.bytes(), scanner.newlines());
        scanner.feed(piece, &mut on);
        if let Some(lines) = lines.as_mut()
            && decode_error.is_none()
        {
            lines.add_windows(scanner.take_windows());
            if let Err(e) = lines.feed(piece, offset, before, scanner.newlines(), &mut on_decoded) {
                decode_error = Some(e);
            }
        }
        (settings.progress)(piece.len() as u64);
    });
    // What was read before a failure is still scanned to its end.
    scanner.finish(&mut on);
    if let Some(lines) = lines.as_mut()
        && decode_error.is_none()
    {
        lines.add_windows(scanner.take_windows());
        if let Err(e) = lines.finish(&mut on_decoded) {
            decode_error = Some(e);
        }
    }
    let (hits, dropped) = merge(hits, decoded);
    let error = read
        .err()
        .or_else(|| decode_error.map(std::io::Error::other));
    Part {
        hits,
        hits_total: total + decoded_total - dropped,
        markers,
        bytes: scanner.bytes(),
        newlines: scanner.newlines(),
        lines: scanner.lines(),
        error,
    }
}

/// The fast path's hits and the decoder's, in offset order. A decoded run that holds a hit of
/// the fast path (the base64 variant inside a base64 run) is that hit, not another: it is
/// dropped, and counted in the second value.
fn merge(fast: Vec<Event>, decoded: Vec<StreamHit>) -> (Vec<(Event, Option<Chain>)>, u64) {
    let mut dropped = 0;
    let mut out: Vec<(Event, Option<Chain>)> = Vec::with_capacity(fast.len() + decoded.len());
    let mut extra = Vec::new();
    for h in decoded {
        let first = fast.partition_point(|e| e.offset < h.offset);
        if fast.get(first).is_some_and(|e| e.offset < h.end) {
            dropped += 1;
            continue;
        }
        let d = h.decoded;
        let variant = if d.mixed_case {
            Variant::MixedCase
        } else {
            Variant::Exact
        };
        let event = Event {
            found: Found::Canary {
                canary: d.canary,
                variant,
            },
            line: h.line,
            offset: h.offset,
        };
        extra.push((event, (!d.chain.is_empty()).then_some(d.chain)));
    }
    out.extend(fast.into_iter().map(|e| (e, None)));
    out.extend(extra);
    out.sort_by_key(|(e, _)| e.offset);
    out.truncate(MAX_HITS_PER_STREAM);
    (out, dropped)
}

fn join<T>(handle: thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

#[cfg(test)]
mod tests;
