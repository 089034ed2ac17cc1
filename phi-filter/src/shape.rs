//! Shape checks: a name is not enough. A string under an allowed name passes only if it looks
//! like that name's class, so `error_type = %e` cannot smuggle the error's message.

use crate::names::NameClass;

/// The shapes a passing string may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `[A-Za-z0-9._:-]{1,64}`: opaque identifiers and configured names.
    Ident,
    /// `[0-9]{1,20}`: a count written as text.
    Count,
    /// A `Duration` in `Debug` form (`1.5s`, `250ms`, `3µs`) or a plain number.
    Duration,
    /// `[A-Za-z0-9_.:-]{1,32}`: a short status, no spaces.
    Status,
    /// A type path: `[A-Za-z0-9_:<>,&'()\[\]]{1,128}`, optionally after `dyn `.
    TypeName,
}

impl Shape {
    /// The shape of a name class.
    pub(crate) fn of(class: NameClass) -> Shape {
        match class {
            NameClass::OpaqueId => Shape::Ident,
            NameClass::Count => Shape::Count,
            NameClass::Duration => Shape::Duration,
            NameClass::Status => Shape::Status,
            NameClass::TypeName => Shape::TypeName,
        }
    }

    /// The longest string that can pass: formatting may stop once a value is longer.
    pub(crate) const fn max_len(self) -> usize {
        match self {
            Shape::Ident => 64,
            Shape::Count => 20,
            Shape::Duration | Shape::Status => 32,
            Shape::TypeName => 132,
        }
    }

    /// Whether `s` has this shape.
    pub(crate) fn accepts(self, s: &str) -> bool {
        if s.is_empty() || s.len() > self.max_len() {
            return false;
        }
        let b = s.as_bytes();
        match self {
            Shape::Ident => b.iter().all(|&c| IDENT[usize::from(c)]),
            Shape::Count => b.iter().all(u8::is_ascii_digit),
            Shape::Status => b.iter().all(|&c| IDENT[usize::from(c)]),
            Shape::Duration => duration(s),
            Shape::TypeName => {
                let path = s.strip_prefix("dyn ").unwrap_or(s);
                !path.is_empty()
                    && path.bytes().all(|c| {
                        c.is_ascii_alphanumeric()
                            || matches!(
                                c,
                                b'_' | b':'
                                    | b'<'
                                    | b'>'
                                    | b','
                                    | b'&'
                                    | b'\''
                                    | b'('
                                    | b')'
                                    | b'['
                                    | b']'
                            )
                    })
            }
        }
    }
}

/// The bytes of an identifier or status: `[A-Za-z0-9._:-]`, as a table for the hot path.
static IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-');
        c += 1;
    }
    t
};

/// `123`, `1.5`, `250ms`, `1.000000001s`, `3µs`, `12ns`, `2m`, `1h`.
fn duration(s: &str) -> bool {
    let unit_at = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(unit_at);
    let mut parts = num.split('.');
    let int_ok = parts
        .next()
        .is_some_and(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()));
    let frac_ok = parts.next().is_none_or(|p| !p.is_empty());
    int_ok
        && frac_ok
        && parts.next().is_none()
        && matches!(unit, "" | "ns" | "µs" | "us" | "ms" | "s" | "m" | "h")
}

#[cfg(test)]
mod tests {
    use super::Shape;

    #[test]
    fn shapes() {
        assert!(Shape::Ident.accepts("req-7f3a_01:x.y"));
        assert!(!Shape::Ident.accepts("Jane Doe"));
        assert!(!Shape::Ident.accepts(&"a".repeat(65)));
        assert!(Shape::Count.accepts("42"));
        assert!(!Shape::Count.accepts("4 2"));
        for ok in ["1", "1.5", "250ms", "1.000000001s", "3µs", "12ns", "2m"] {
            assert!(Shape::Duration.accepts(ok), "{ok}");
        }
        for bad in ["", ".5", "1.", "1.2.3", "5 days", "1ms; DROP"] {
            assert!(!Shape::Duration.accepts(bad), "{bad}");
        }
        assert!(Shape::Status.accepts("ok"));
        assert!(Shape::Status.accepts("503"));
        assert!(!Shape::Status.accepts("200 OK"));
        assert!(Shape::TypeName.accepts("rusqlite::error::Error"));
        assert!(Shape::TypeName.accepts("dyn core::error::Error"));
        assert!(Shape::TypeName.accepts("Some(NotFound)"));
        assert!(Shape::TypeName.accepts("alloc::vec::Vec<u8>"));
        assert!(!Shape::TypeName.accepts("no such table: readings"));
        assert!(!Shape::TypeName.accepts("UNIQUE constraint failed"));
    }
}
