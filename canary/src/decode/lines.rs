//! `LineDecoder`: the decoder over one stream fed in pieces, whole lines at a time.
//!
//! Complete lines of a piece are decoded in place; the last, partial line is carried over to the
//! next piece, so a run split across reads is decoded whole. The carry-over is bounded: a line
//! past [`TOKEN_CAP`] bytes is decoded in parts cut after a quote, comma, tab, `<` or `>` (where
//! no run or token continues), and a line with no such byte in the last [`TOKEN_CAP`] bytes is an
//! error with its position — never a silent skip.

use std::collections::VecDeque;

use super::{Decoded, Decoder, Limit, TOKEN_CAP};
use crate::matcher::WINDOW_CAP;

/// A hit found by decoding, in stream terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamHit {
    /// What was found and how.
    pub decoded: Decoded,
    /// The stream offset of the run's first byte.
    pub offset: u64,
    /// The stream offset just past the run.
    pub end: u64,
    /// The 1-based line.
    pub line: u64,
}

/// Why decoding a stream stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A decompression went past its cap.
    #[error(
        "a compressed run at line {line}, byte {offset} decompresses past the cap of {cap} bytes (a decompression bomb?)"
    )]
    Bomb {
        /// The 1-based line.
        line: u64,
        /// The stream offset of the run.
        offset: u64,
        /// The cap in bytes.
        cap: usize,
    },
    /// A run or token too long to decode within bounds.
    #[error(
        "a run at line {line}, byte {offset} is longer than {cap} bytes and cannot be decoded within bounds"
    )]
    TooLong {
        /// The 1-based line.
        line: u64,
        /// The stream offset of the run.
        offset: u64,
        /// The cap in bytes.
        cap: usize,
    },
}

/// Decodes one stream. Feed it every piece with its position, then call
/// [`finish`](Self::finish).
///
/// ```
/// use phi_canary::Canary;
/// use phi_canary::decode::{Decoder, LineDecoder};
///
/// let d = Decoder::new(&[Canary::core()])?;
/// let mut s = LineDecoder::new(&d);
/// let mut hits = Vec::new();
/// // UTF-16LE, split across two pieces.
/// let text: Vec<u8> = "x PHI-CANARY-3f9a\n".bytes().flat_map(|b| [b, 0]).collect();
/// let (a, b) = text.split_at(11);
/// s.feed(a, 0, 0, 0, &mut |h| hits.push(h)).expect("in bounds");
/// s.feed(b, 11, 0, 1, &mut |h| hits.push(h)).expect("in bounds");
/// s.finish(&mut |h| hits.push(h)).expect("in bounds");
/// assert_eq!(hits.len(), 1);
/// assert_eq!(hits[0].decoded.chain.render("exact"), "utf16>exact");
/// # Ok::<(), aho_corasick::BuildError>(())
/// ```
pub struct LineDecoder<'d> {
    decoder: &'d Decoder,
    /// The partial last line, or the part of a long line not decoded yet.
    pending: Vec<u8>,
    /// The stream offset of `pending`'s first byte.
    pending_offset: u64,
    /// The 1-based line `pending` is on.
    pending_line: u64,
    /// Where the fast path found the mixed-case windows, not decoded yet: (stream offset,
    /// window index). `None`: the decoder searches for them itself.
    windows: Option<VecDeque<(u64, usize)>>,
}

impl<'d> LineDecoder<'d> {
    /// A decoder at the start of a stream.
    #[must_use]
    pub fn new(decoder: &'d Decoder) -> LineDecoder<'d> {
        LineDecoder {
            decoder,
            pending: Vec::new(),
            pending_offset: 0,
            pending_line: 1,
            windows: None,
        }
    }

    /// A decoder told where the mixed-case windows are by [`add_windows`](Self::add_windows)
    /// before each piece, rather than searching for them.
    pub(crate) fn with_windows(decoder: &'d Decoder) -> LineDecoder<'d> {
        LineDecoder {
            windows: Some(VecDeque::new()),
            ..LineDecoder::new(decoder)
        }
    }

    /// The windows of the next piece (every one in the bytes fed so far and not given yet, in
    /// order), or `None` when they are not known: the decoder then searches every line it has
    /// not decoded yet itself, from now on. So it does too when more than [`WINDOW_CAP`] would
    /// wait at once (a line of up to `TOKEN_CAP` bytes holds its windows until it ends), which
    /// bounds the list's memory whatever the input.
    pub(crate) fn add_windows(&mut self, found: Option<Vec<(u64, usize)>>) {
        match (self.windows.as_mut(), found) {
            (Some(queue), Some(found)) if queue.len() + found.len() <= WINDOW_CAP => {
                queue.extend(found);
            }
            (Some(_), _) => self.windows = None,
            (None, _) => {}
        }
    }

    /// Decodes the next `piece`, which starts at stream offset `offset`, after `newlines_before`
    /// newlines, and holds `newlines_after − newlines_before` of its own.
    pub fn feed(
        &mut self,
        piece: &[u8],
        offset: u64,
        newlines_before: u64,
        newlines_after: u64,
        on: &mut dyn FnMut(StreamHit),
    ) -> Result<(), DecodeError> {
        let Some(last_nl) = memchr::memrchr(b'\n', piece) else {
            return self.append(piece, offset, newlines_before, on);
        };
        let mut rest = &piece[..=last_nl];
        let mut rest_offset = offset;
        if !self.pending.is_empty() {
            let first_nl = memchr::memchr(b'\n', rest).expect("a newline");
            self.append(&rest[..=first_nl], offset, newlines_before, on)?;
            self.flush(on)?;
            rest = &rest[first_nl + 1..];
            rest_offset += first_nl as u64 + 1;
        }
        let rest_line = newlines_before + 1 + u64::from(rest_offset != offset);
        self.block(rest, rest_offset, rest_line, on)?;
        self.pending_line = newlines_after + 1;
        self.append(
            &piece[last_nl + 1..],
            offset + last_nl as u64 + 1,
            newlines_after,
            on,
        )
    }

    /// Decodes what is left: the stream has ended.
    pub fn finish(&mut self, on: &mut dyn FnMut(StreamHit)) -> Result<(), DecodeError> {
        self.flush(on)
    }

    /// Adds bytes without a newline (or ending with one) to the pending line, decoding parts of
    /// it once it reaches the cap.
    fn append(
        &mut self,
        mut bytes: &[u8],
        offset: u64,
        newlines: u64,
        on: &mut dyn FnMut(StreamHit),
    ) -> Result<(), DecodeError> {
        if bytes.is_empty() {
            return Ok(());
        }
        if self.pending.is_empty() {
            self.pending_offset = offset;
            self.pending_line = newlines + 1;
        }
        while self.pending.len() + bytes.len() > TOKEN_CAP {
            let room = TOKEN_CAP - self.pending.len();
            self.pending.extend_from_slice(&bytes[..room]);
            bytes = &bytes[room..];
            let Some(cut) = self.pending.iter().rposition(|&b| is_cut(b)) else {
                return Err(DecodeError::TooLong {
                    line: self.pending_line,
                    offset: self.pending_offset,
                    cap: TOKEN_CAP,
                });
            };
            let part: Vec<u8> = self.pending.drain(..=cut).collect();
            self.block(&part, self.pending_offset, self.pending_line, on)?;
            self.pending_offset += part.len() as u64;
        }
        self.pending.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self, on: &mut dyn FnMut(StreamHit)) -> Result<(), DecodeError> {
        let pending = std::mem::take(&mut self.pending);
        let result = self.block(&pending, self.pending_offset, self.pending_line, on);
        self.pending = pending;
        self.pending.clear();
        result
    }

    /// Decodes `block` (whole lines, or a cut part of one) at stream offset `offset`, line
    /// `line`.
    fn block(
        &mut self,
        block: &[u8],
        offset: u64,
        line: u64,
        on: &mut dyn FnMut(StreamHit),
    ) -> Result<(), DecodeError> {
        if block.is_empty() {
            return Ok(());
        }
        // The windows in this block; earlier ones (in bytes never decoded) are dropped.
        let windows = self.windows.as_mut().map(|queue| {
            let end = offset + block.len() as u64;
            let mut inside = Vec::new();
            while let Some(&(at, window)) = queue.front() {
                if at >= end {
                    break;
                }
                queue.pop_front();
                if let Some(pos) = at.checked_sub(offset) {
                    inside.push((usize::try_from(pos).expect("inside the block"), window));
                }
            }
            inside
        });
        let line_at = |pos: usize| line + bytecount::count(&block[..pos], b'\n') as u64;
        match self.decoder.find_with(block, windows.as_deref()) {
            Ok(hits) => {
                for decoded in hits {
                    on(StreamHit {
                        decoded,
                        offset: offset + decoded.start as u64,
                        end: offset + decoded.end as u64,
                        line: line_at(decoded.start),
                    });
                }
                Ok(())
            }
            Err(Limit::Bomb(at)) => Err(DecodeError::Bomb {
                line: line_at(at),
                offset: offset + at as u64,
                cap: super::INFLATE_CAP,
            }),
            Err(Limit::TooLong(at)) => Err(DecodeError::TooLong {
                line: line_at(at),
                offset: offset + at as u64,
                cap: TOKEN_CAP,
            }),
        }
    }
}

/// Where a long line may be cut: no run or token the decoder looks at continues past it.
fn is_cut(b: u8) -> bool {
    matches!(b, b'"' | b',' | b'\t' | b'<' | b'>' | b'\'')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canary::Canary;

    #[test]
    fn too_many_waiting_windows_fall_back_to_the_decoders_own_search() {
        let decoder = Decoder::new(&[Canary::demo(), Canary::core()]).expect("builds");
        let mut lines = LineDecoder::with_windows(&decoder);
        lines.add_windows(Some((0..WINDOW_CAP as u64).map(|at| (at, 0)).collect()));
        assert_eq!(lines.windows.as_ref().map(VecDeque::len), Some(WINDOW_CAP));
        lines.add_windows(Some(vec![(WINDOW_CAP as u64, 0)]));
        assert!(lines.windows.is_none(), "the list is bounded");
        // And it stays unknown: windows given later are not trusted to be complete.
        lines.add_windows(Some(vec![(0, 0)]));
        assert!(lines.windows.is_none());
    }
}
