//! `StreamScanner`: the matcher over one byte stream fed in pieces of any size, in constant
//! memory, with no line-length limit.
//!
//! Each stream keeps a carry-over of (longest pattern − 1) bytes, plus the lookbehind of
//! recovered patterns (see `matcher/search.rs`; 13 bytes for the demo canary), so a canary split
//! across reads, frames or docker's 16 KiB json-file pieces is still found, and counts newlines as
//! it goes so every event has a line number and a byte offset into the whole stream.
//!
//! With decoding on, the same search reports the decoder's mixed-case windows
//! (`StreamScanner::take_windows`): after each piece, every window that lies in
//! the bytes fed so far, once, in stream order. A window cut by the end of a piece is found in
//! the carry-over with the next one.
//!
//! **Invariant:** the events are the same for every way of splitting the stream into pieces: the
//! leftmost-longest matches of the whole stream. A match is reported only once every pattern that
//! could start at or before it is fully visible; one that might still grow waits in the carry.

use crate::matcher::{Found, Matcher, WindowCursor};

/// A canary or marker found in a stream. It holds positions only: never a byte of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// What matched.
    pub found: Found,
    /// The 1-based line the match starts on.
    pub line: u64,
    /// The byte offset of the match's first byte in the stream.
    pub offset: u64,
}

/// Scans one stream. Feed it the stream's bytes in order, then call [`finish`](Self::finish).
///
/// ```
/// use phi_canary::{Canary, Matcher, StreamScanner, VariantSet};
///
/// let m = Matcher::new(vec![Canary::core()], VariantSet::Exact, None)?;
/// let mut s = StreamScanner::new(&m);
/// let mut events = Vec::new();
/// for piece in [&b"line one\nsaw PHI-CAN"[..], b"ARY", b"-3f9a here\n"] {
///     s.feed(piece, &mut |e| events.push(e));
/// }
/// s.finish(&mut |e| events.push(e));
/// assert_eq!((events[0].line, events[0].offset), (2, 13));
/// assert_eq!((s.bytes(), s.lines()), (34, 2));
/// # Ok::<(), phi_canary::MatcherError>(())
/// ```
pub struct StreamScanner<'m> {
    matcher: &'m Matcher,
    /// The longest pattern.
    longest: usize,
    /// The carry-over: `longest − 1`, plus how far a recovered match starts before the pattern
    /// the engine finds for it.
    keep: usize,
    /// The last bytes fed (at most `keep`), which a later match may start in.
    tail: Vec<u8>,
    /// Index into `tail` before which every match has been reported or ruled out.
    from: usize,
    /// Bytes fed so far: the stream offset just past `tail`.
    consumed: u64,
    /// Newlines in every byte fed so far.
    newlines: u64,
    /// The last byte fed was a newline (or nothing was fed).
    ended_line: bool,
    scratch: Vec<u8>,
    /// The windows found, when asked for and not given up on.
    windows: Option<Windows>,
}

/// The windows reported so far and not taken yet.
struct Windows {
    /// Every window starting before this stream offset has been found.
    from: u64,
    /// (stream offset, window index), in stream order.
    found: Vec<(u64, usize)>,
}

impl<'m> StreamScanner<'m> {
    /// A scanner at the start of a stream.
    #[must_use]
    pub fn new(matcher: &'m Matcher) -> StreamScanner<'m> {
        let longest = matcher.longest();
        let keep = longest - 1 + matcher.lookbehind();
        StreamScanner {
            matcher,
            longest,
            keep,
            tail: Vec::with_capacity(2 * keep),
            from: 0,
            consumed: 0,
            newlines: 0,
            ended_line: true,
            scratch: Vec::with_capacity(keep + longest),
            windows: None,
        }
    }

    /// A scanner that also reports the decoder's mixed-case windows, if the fast path can find
    /// them (see [`take_windows`](Self::take_windows)).
    pub(crate) fn with_windows(matcher: &'m Matcher) -> StreamScanner<'m> {
        let mut scanner = StreamScanner::new(matcher);
        if matcher.finds_windows() {
            scanner.windows = Some(Windows {
                from: 0,
                found: Vec::new(),
            });
        }
        scanner
    }

    /// The windows found since the last call, as (stream offset, window index) in stream order:
    /// every one in the bytes fed so far. `None` if this scanner does not report them, or gave up
    /// (more than [`WINDOW_CAP`](crate::matcher::WINDOW_CAP) between two calls); the decoder
    /// then searches for them itself.
    pub(crate) fn take_windows(&mut self) -> Option<Vec<(u64, usize)>> {
        self.windows.as_mut().map(|w| std::mem::take(&mut w.found))
    }

    /// A cursor for a search of bytes that start at stream offset `base`.
    fn cursor(&mut self, base: u64) -> Option<WindowCursor> {
        let windows = self.windows.as_mut()?;
        Some(WindowCursor {
            base,
            scanned: usize::try_from(windows.from.saturating_sub(base)).unwrap_or(usize::MAX),
            found: std::mem::take(&mut windows.found),
            full: false,
        })
    }

    /// Keeps what a search's cursor found.
    fn keep_windows(&mut self, cursor: Option<WindowCursor>) {
        let Some(cursor) = cursor else {
            return;
        };
        if cursor.full {
            self.windows = None;
        } else if let Some(windows) = self.windows.as_mut() {
            windows.from = windows.from.max(cursor.base + cursor.scanned as u64);
            windows.found = cursor.found;
        }
    }

    /// Scans the next `data` of the stream, calling `on` for each event now certain, in stream
    /// order.
    pub fn feed(&mut self, data: &[u8], on: &mut dyn FnMut(Event)) {
        let Some(&last) = data.last() else {
            return;
        };
        self.ended_line = last == b'\n';
        if data.len() < self.keep {
            self.feed_small(data, on);
        } else {
            self.seam(data, on);
        }
    }

    /// Reports what is left in the carry-over: the stream has ended.
    pub fn finish(&mut self, on: &mut dyn FnMut(Event)) {
        let tail = std::mem::take(&mut self.tail);
        let from = self.from;
        let mut windows = self.cursor(self.consumed - tail.len() as u64);
        for m in self
            .matcher
            .matches_from(&[], &tail, from, from.cast_signed(), windows.as_mut())
        {
            on(self.event_in_tail(&tail, m.start, m.found));
        }
        if let Some(cursor) = windows.as_mut() {
            self.matcher.windows_to_end(&tail, cursor);
        }
        self.keep_windows(windows);
        self.from = 0;
    }

    /// Bytes fed so far.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.consumed
    }

    /// Newlines fed so far.
    #[must_use]
    pub fn newlines(&self) -> u64 {
        self.newlines
    }

    /// Lines fed so far: newlines, plus one for a last line without its newline.
    #[must_use]
    pub fn lines(&self) -> u64 {
        self.newlines + u64::from(!self.ended_line)
    }

    /// Appends `data`, shorter than the carry-over, to the tail and scans the tail.
    fn feed_small(&mut self, data: &[u8], on: &mut dyn FnMut(Event)) {
        self.newlines += count_newlines(data);
        self.consumed += data.len() as u64;
        self.tail.extend_from_slice(data);
        let tail = std::mem::take(&mut self.tail);
        let mut from = self.from;
        let mut windows = self.cursor(self.consumed - tail.len() as u64);
        for m in self
            .matcher
            .matches_from(&[], &tail, from, from.cast_signed(), windows.as_mut())
        {
            if m.found_at + self.longest > tail.len() {
                // A longer pattern may still start here, or before it where a pattern was cut
                // off by the end of the bytes so far: search again from `from` with more bytes.
                break;
            }
            on(self.event_in_tail(&tail, m.start, m.found));
            from = m.end;
        }
        if let Some(cursor) = windows.as_mut() {
            self.matcher.windows_to_end(&tail, cursor);
        }
        self.keep_windows(windows);
        self.tail = tail;
        let drop = self.tail.len().saturating_sub(self.keep);
        self.tail.drain(..drop);
        self.from = from.saturating_sub(drop);
    }

    /// Scans `data`, at least `keep` bytes: first what the engine finds in the tail (searched
    /// in the tail and the head of `data`), then `data` itself, in place, looking back into the
    /// tail for a match that starts there.
    fn seam(&mut self, data: &[u8], on: &mut dyn FnMut(Event)) {
        let longest = self.longest;
        let tail_len = self.tail.len();
        // Where, in `data` coordinates, everything before is reported or ruled out.
        let mut lower = self.from.cast_signed() - tail_len.cast_signed();
        // A window cut by the end of the last piece is found here too.
        let mut windows = self.cursor(self.consumed - tail_len as u64);
        if self.from < tail_len || windows.is_some() {
            // A pattern found in the tail ends within `longest − 1` bytes of it: all of it is
            // here, and so is anything it was recovered from (see `Matcher::lookbehind`).
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            scratch.extend_from_slice(&self.tail);
            scratch.extend_from_slice(&data[..longest - 1]);
            for m in self.matcher.matches_from(
                &[],
                &scratch,
                self.from,
                self.from.cast_signed(),
                windows.as_mut(),
            ) {
                if m.found_at >= tail_len {
                    break;
                }
                on(self.event_in_tail(&self.tail, m.start, m.found));
                lower = m.end.cast_signed() - tail_len.cast_signed();
            }
            self.scratch = scratch;
        }
        self.keep_windows(windows);

        let data_from = lower.max(0).cast_unsigned();
        let mut newlines = self.newlines;
        let mut counted = 0;
        let mut last_end = data_from;
        let mut windows = self.cursor(self.consumed);
        for m in self
            .matcher
            .matches_from(&self.tail, data, data_from, lower, windows.as_mut())
        {
            if m.found_at + longest > data.len() {
                // Not certain yet (see `feed_small`): left to the next piece.
                break;
            }
            let event = if m.start < 0 {
                // Recovered from a find near the start of `data`; it starts in the tail.
                self.event_in_tail(&self.tail, tail_len.cast_signed() + m.start, m.found)
            } else {
                let start = m.start.cast_unsigned();
                newlines += count_newlines(&data[counted..start]);
                counted = start;
                Event {
                    found: m.found,
                    line: newlines + 1,
                    offset: self.consumed + start as u64,
                }
            };
            on(event);
            last_end = m.end;
        }
        if let Some(cursor) = windows.as_mut() {
            self.matcher.windows_to_end(data, cursor);
        }
        self.keep_windows(windows);
        newlines += count_newlines(&data[counted..]);
        self.newlines = newlines;
        self.consumed += data.len() as u64;
        let tail_start = data.len() - self.keep;
        self.tail.clear();
        self.tail.extend_from_slice(&data[tail_start..]);
        // Everything before `last_end` is reported, and nothing can start between it and the
        // tail: a match there would be fully visible, and the search found none.
        self.from = last_end.saturating_sub(tail_start);
    }

    /// The event for a match at `start` in `tail`, whose bytes are all counted already.
    fn event_in_tail(&self, tail: &[u8], start: isize, found: Found) -> Event {
        let start = usize::try_from(start).expect("a match in the tail starts inside it");
        let after = (tail.len() - start) as u64;
        Event {
            found,
            line: self.newlines - count_newlines(&tail[start..]) + 1,
            offset: self.consumed - after,
        }
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    bytecount::count(bytes, b'\n') as u64
}

#[cfg(test)]
mod tests;
