//! A source file's text with its line index: maps proc-macro2's (line, char column) positions to
//! byte offsets, and string-literal offsets to positions.

use proc_macro2::LineColumn;

use crate::finding::Pos;

/// One file's text and line starts, computed when first needed: most files have no finding and
/// are never sliced.
pub(crate) struct SourceFile<'a> {
    text: &'a str,
    line_starts: std::cell::OnceCell<Vec<usize>>,
    /// Every [`CHECKPOINT`] bytes or so, on a char boundary: the byte offset and how many chars
    /// come before it. Built when a position far into a line is first converted.
    checkpoints: std::cell::OnceCell<Vec<(usize, usize)>>,
}

/// How far into a line a position is converted by counting its chars from the line's start;
/// farther ones count from the nearest checkpoint instead, so that the cost of one conversion
/// stays bounded whatever the line's length (one `tracing::info!` of 200,000 fields on one
/// 3.6 MB line took 34 s, counting from its start for each field).
const NEAR: usize = 256;

/// Bytes between two checkpoints.
const CHECKPOINT: usize = 256;

impl<'a> SourceFile<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        SourceFile {
            text,
            line_starts: std::cell::OnceCell::new(),
            checkpoints: std::cell::OnceCell::new(),
        }
    }

    fn checkpoints(&self) -> &[(usize, usize)] {
        self.checkpoints.get_or_init(|| {
            let mut out = vec![(0, 0)];
            let mut last = 0;
            for (chars, (at, _)) in self.text.char_indices().enumerate() {
                if at - last >= CHECKPOINT {
                    out.push((at, chars));
                    last = at;
                }
            }
            out
        })
    }

    /// How many chars come before byte `at` (a char boundary).
    fn chars_before(&self, at: usize) -> usize {
        let cps = self.checkpoints();
        let (from, chars) = cps[cps.partition_point(|&(b, _)| b <= at).max(1) - 1];
        chars + self.text[from..at].chars().count()
    }

    /// The byte offset of the char numbered `n` in the text, or the text's length past its end.
    fn char_at(&self, n: usize) -> usize {
        let cps = self.checkpoints();
        let (from, chars) = cps[cps.partition_point(|&(_, c)| c <= n).max(1) - 1];
        self.text[from..]
            .char_indices()
            .nth(n - chars)
            .map_or(self.text.len(), |(i, _)| from + i)
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            // A byte-order mark is before the first line: proc-macro2 never sees it (the
            // parse strips it), so its columns do not count it.
            let first = if self.text.starts_with('\u{feff}') {
                3
            } else {
                0
            };
            let mut starts = vec![first];
            starts.extend(memchr::memchr_iter(b'\n', self.text.as_bytes()).map(|i| i + 1));
            starts
        })
    }

    /// Byte offset of a proc-macro2 position (1-based line, 0-based char column).
    pub(crate) fn offset(&self, lc: LineColumn) -> usize {
        let Some(&start) = self.line_starts().get(lc.line.wrapping_sub(1)) else {
            return self.text.len();
        };
        if lc.column > NEAR {
            return self.char_at(self.chars_before(start) + lc.column);
        }
        let rest = &self.text[start..];
        // An ASCII prefix has one byte per char (most lines of most code).
        if rest
            .as_bytes()
            .get(..lc.column)
            .is_some_and(<[u8]>::is_ascii)
        {
            return start + lc.column;
        }
        rest.char_indices()
            .nth(lc.column)
            .map_or(self.text.len(), |(i, _)| start + i)
    }

    /// The whole text.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// The 1-based position of a byte offset (which must be on a character boundary).
    pub(crate) fn pos_at(&self, byte: usize) -> Pos {
        let starts = self.line_starts();
        let line = starts.partition_point(|&s| s <= byte);
        let start = starts[line.max(1) - 1];
        // Inside a byte-order mark (before the first line's start): its first column.
        let byte = byte.min(self.text.len()).max(start);
        let column = if byte - start > NEAR {
            self.chars_before(byte) - self.chars_before(start)
        } else {
            self.text[start..byte].chars().count()
        };
        Pos {
            line: line.max(1) as u32,
            column: column as u32 + 1,
        }
    }

    /// The source text between two proc-macro2 positions, or `None` if they do not form a range.
    pub(crate) fn slice(&self, start: LineColumn, end: LineColumn) -> Option<&'a str> {
        let (s, e) = (self.offset(start), self.offset(end));
        (s < e).then(|| &self.text[s..e])
    }
}

/// Converts a proc-macro2 position to a 1-based [`Pos`].
pub(crate) fn pos(lc: LineColumn) -> Pos {
    Pos {
        line: lc.line as u32,
        column: lc.column as u32 + 1,
    }
}

/// The position `offset` bytes into a string literal's source text `lit_src`, given the
/// literal's own start.
pub(crate) fn advance(start: LineColumn, lit_src: &str, offset: usize) -> LineColumn {
    let before = &lit_src[..offset.min(lit_src.len())];
    match before.rfind('\n') {
        Some(nl) => LineColumn {
            line: start.line + before.matches('\n').count(),
            column: before[nl + 1..].chars().count(),
        },
        None => LineColumn {
            line: start.line,
            column: start.column + before.chars().count(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_offsets() {
        let f = SourceFile::new("ab\r\né x\nlast");
        let lc = |line, column| LineColumn { line, column };
        assert_eq!(f.slice(lc(2, 0), lc(2, 1)), Some("é"));
        assert_eq!(f.slice(lc(2, 2), lc(2, 3)), Some("x"));
        assert_eq!(f.pos_at(0), Pos { line: 1, column: 1 });
        assert_eq!(f.pos_at(f.offset(lc(2, 2))), Pos { line: 2, column: 3 });
        assert_eq!(f.pos_at(f.text().len()), Pos { line: 3, column: 5 });
        assert_eq!(advance(lc(3, 4), "\"a\nbc", 4), lc(4, 1));
        assert_eq!(advance(lc(3, 4), "\"abc", 2), lc(3, 6));
    }

    /// A byte-order mark is no column of the first line: `p.name` on line 1 of a marked file
    /// was sliced as ` p.nam`.
    #[test]
    fn a_byte_order_mark_is_no_column() {
        for text in ["\u{feff}let x = p.name;\ny", "let x = p.name;\ny"] {
            let file = SourceFile::new(text);
            let at = |column| LineColumn { line: 1, column };
            assert_eq!(file.slice(at(8), at(14)), Some("p.name"), "{text:?}");
            assert_eq!(
                file.slice(
                    LineColumn { line: 2, column: 0 },
                    LineColumn { line: 2, column: 1 }
                ),
                Some("y")
            );
        }
        assert_eq!(
            SourceFile::new("\u{feff}x").pos_at(0),
            Pos { line: 1, column: 1 }
        );
        assert_eq!(
            SourceFile::new("\u{feff}x").pos_at(3),
            Pos { line: 1, column: 1 }
        );
        let far = format!("\u{feff}{}p.name", " ".repeat(1000));
        let file = SourceFile::new(&far);
        let at = |column| LineColumn { line: 1, column };
        assert_eq!(file.slice(at(1000), at(1006)), Some("p.name"));
    }

    /// Far into long lines, ASCII or not, positions convert as a count from the line's start
    /// does.
    #[test]
    fn long_lines_convert_as_a_count_from_their_start() {
        let mut text = String::new();
        for i in 0..40 {
            let piece = match i % 4 {
                0 => "a = %p.name, ",
                1 => "é → ü, ",
                2 => "\n",
                _ => "𝔵",
            };
            text.push_str(&piece.repeat(97));
        }
        let f = SourceFile::new(&text);
        let mut line_start = 0;
        for (line, body) in text.split('\n').enumerate() {
            let chars: Vec<(usize, char)> = body.char_indices().collect();
            for column in (0..=chars.len() + 3).step_by(7) {
                let naive = text[line_start..]
                    .char_indices()
                    .nth(column)
                    .map_or(text.len(), |(i, _)| line_start + i);
                let at = LineColumn {
                    line: line + 1,
                    column,
                };
                assert_eq!(f.offset(at), naive, "line {} column {column}", line + 1);
                if let Some(&(b, _)) = chars.get(column) {
                    let pos = f.pos_at(line_start + b);
                    assert_eq!((pos.line, pos.column), (line as u32 + 1, column as u32 + 1));
                }
            }
            line_start += body.len() + 1;
        }
    }
}
