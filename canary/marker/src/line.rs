//! The two marker lines, and reading one back.

use std::fmt;

use crate::nonce::{Nonce, NonceError};

/// The first word of every marker line.
pub const PREFIX: &str = "phiguard-marker";

/// Which of the two marker lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MarkerKind {
    /// Written once the service listens, before it handles a request.
    Start,
    /// Written at a clean shutdown, after every other line.
    End,
}

impl MarkerKind {
    /// The word in the marker line.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            MarkerKind::Start => "start",
            MarkerKind::End => "end",
        }
    }
}

impl fmt::Display for MarkerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A marker line read back: which one, and its nonce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    /// Start or end.
    pub kind: MarkerKind,
    /// The nonce it carries, checked.
    pub nonce: Nonce,
}

/// Why a line is not a marker line. The message never quotes the line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    /// No `phiguard-marker ` on the line.
    #[error("the line holds no `{PREFIX}` marker")]
    NoMarker,
    /// The word after the prefix is neither `start` nor `end`.
    #[error("a marker line's second word is `start` or `end`")]
    Kind,
    /// The nonce is missing or not a nonce (text after the nonce lands here too).
    #[error(transparent)]
    Nonce(#[from] NonceError),
}

impl Marker {
    /// Reads a marker line, its line ending removed. Text before the marker (a timestamp, a
    /// level) is allowed; after the nonce there may be nothing.
    pub fn parse(line: &str) -> Result<Marker, ParseError> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let at = line
            .rfind(&format!("{PREFIX} "))
            .ok_or(ParseError::NoMarker)?;
        let rest = &line[at + PREFIX.len() + 1..];
        let (word, nonce) = rest.split_once(' ').ok_or(ParseError::Kind)?;
        let kind = match word {
            "start" => MarkerKind::Start,
            "end" => MarkerKind::End,
            _ => return Err(ParseError::Kind),
        };
        Ok(Marker {
            kind,
            nonce: Nonce::new(nonce)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_the_writer_writes() {
        let nonce = Nonce::new("abcd-1234").unwrap();
        for kind in [MarkerKind::Start, MarkerKind::End] {
            let mut out = Vec::new();
            nonce.write_line(kind, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert_eq!(
                Marker::parse(&text),
                Ok(Marker {
                    kind,
                    nonce: nonce.clone()
                })
            );
        }
        assert_eq!(MarkerKind::End.to_string(), "end");
    }

    #[test]
    fn refuses_what_a_reader_must_not_count() {
        assert_eq!(Marker::parse("answers serving"), Err(ParseError::NoMarker));
        assert_eq!(
            Marker::parse("phiguard-marker begin abcd-1234"),
            Err(ParseError::Kind)
        );
        assert_eq!(
            Marker::parse("phiguard-marker start"),
            Err(ParseError::Kind)
        );
        // Text after the nonce: a JSON log line around the marker.
        assert_eq!(
            Marker::parse(r#"{"msg":"phiguard-marker start abcd-1234"}"#),
            Err(ParseError::Nonce(NonceError::Alphabet))
        );
        assert_eq!(
            Marker::parse("phiguard-marker end abcd_1234\r\n"),
            Err(ParseError::Nonce(NonceError::Alphabet))
        );
        let m = Marker::parse("INFO 10:00 phiguard-marker end abcd-1234\r\n").unwrap();
        assert_eq!(m.kind, MarkerKind::End);
    }
}
