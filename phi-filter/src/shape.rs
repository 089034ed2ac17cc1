//! Shape checks: a name is not enough. A string under an allowed name passes only if it looks
//! like that name's class, so `error_type = %e` cannot smuggle the error's message.

use crate::names::NameClass;

/// The shapes a passing string may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// An opaque id: see [`opaque`]. Tidy words (`jsmith`), emails and names do not pass.
    Opaque,
    /// `[A-Za-z0-9._:-]{1,64}`: configured names.
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
            NameClass::OpaqueId => Shape::Opaque,
            NameClass::Count => Shape::Count,
            NameClass::Duration => Shape::Duration,
            NameClass::Status => Shape::Status,
            NameClass::TypeName => Shape::TypeName,
        }
    }

    /// The longest string that can pass: formatting may stop once a value is longer.
    pub(crate) const fn max_len(self) -> usize {
        match self {
            Shape::Opaque => 96,
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
            Shape::Opaque => opaque(s),
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

/// The shortest hex, base32 or base64url text that counts as random.
const MIN_RANDOM: usize = 16;

/// An opaque id: a UUID, a ULID, digits, hex, base32 or base64url of at least 16 characters, or
/// a lower-case prefix of up to 6 characters and `_`/`-` before one of those (`usr_01h…`, `req-9f3…`).
///
/// Hex passes as it is. Base32 and base64url text must also mix letters and digits (at least two
/// of each), so a long login name or a word cannot pass for a token; a random token of that
/// length lacks them rarely, and is then redacted (fail closed). A long run of letters and digits
/// with two of each (`jsmith1985jsmith`) still passes: the shape bounds what an id field can
/// carry, and phi-lint's type check covers the code that writes it.
pub(crate) fn opaque(s: &str) -> bool {
    if random_part(s) {
        return true;
    }
    // `prefix_` or `prefix-`: the prefix is 1 to 6 lower-case letters or digits, starting with a
    // letter; the split is at the first separator, so `a-b-c` is prefix `a` and part `b-c`.
    let Some(sep) = s.find(['_', '-']) else {
        return false;
    };
    let (prefix, part) = (&s[..sep], &s[sep + 1..]);
    (1..=6).contains(&prefix.len())
        && prefix.as_bytes()[0].is_ascii_lowercase()
        && prefix
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && random_part(part)
}

/// The part of an id that carries it: a UUID, a ULID, digits, or random-looking text.
fn random_part(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    if b.len() <= 20 && b.iter().all(u8::is_ascii_digit) {
        return true;
    }
    uuid(b) || ulid(b) || hex(b) || mixed_base(b)
}

/// `8-4-4-4-12` hex digits, in one case.
fn uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
        && one_case(b)
}

/// 26 characters of Crockford base32 (no `I`, `L`, `O`, `U`), in one case, starting `0`-`7`.
fn ulid(b: &[u8]) -> bool {
    b.len() == 26
        && matches!(b[0], b'0'..=b'7')
        && b.iter().all(|c| {
            c.is_ascii_alphanumeric()
                && !matches!(c.to_ascii_uppercase(), b'I' | b'L' | b'O' | b'U')
        })
        && one_case(b)
}

/// At least 16 hex digits, in one case.
fn hex(b: &[u8]) -> bool {
    b.len() >= MIN_RANDOM && b.iter().all(u8::is_ascii_hexdigit) && one_case(b)
}

/// At least 16 letters and digits (base32, or base64url without `-` and `_`), with at least two
/// of each. The separators are left out so that words joined by them (`john-smith-1985-04`)
/// cannot pass; a base64url token that contains one is redacted (fail closed).
fn mixed_base(b: &[u8]) -> bool {
    if b.len() < MIN_RANDOM || !b.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    digits >= 2 && letters >= 2
}

/// No mix of upper- and lower-case letters.
fn one_case(b: &[u8]) -> bool {
    !(b.iter().any(u8::is_ascii_uppercase) && b.iter().any(u8::is_ascii_lowercase))
}

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
    fn opaque_ids() {
        for ok in [
            "7",
            "20240101123456",
            "550e8400-e29b-41d4-a716-446655440000",
            "01ARZ3NDEKTSV4RRFFQ69G5FAV",
            "9f3a7c21d4e5b6a8",
            "usr_01h8xg7k2m3n4p5q6r7s8t9v0w",
            "req-9f3a7c21d4e5b6a8",
            "req-42",
            "tok_Zm9vYmFyYmF6cXV4MTIzNDU2",
            "MFRGGZDFMZTWQ2LKNNWG23TP",
        ] {
            assert!(Shape::Opaque.accepts(ok), "{ok}");
        }
        for bad in [
            "jsmith",
            "alice@example.org",
            "Ann Smith",
            "john.smith",
            "jsmith42",
            "administratorjsmith",
            "Jane-Q-Sentinel",
            "9f3a7c21",
            "usr_jsmith",
            "john-smith-1985-04",
            "patient_9f3a7c21d4e5b6a8",
            "",
        ] {
            assert!(!Shape::Opaque.accepts(bad), "{bad}");
        }
    }

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
