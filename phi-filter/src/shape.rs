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

/// Byte classes for the one-pass scan of an id: every flag the checks need is in the union of
/// the bytes' classes, so the pass that decides most ids is a table load and an `or` per byte.
const DIGIT: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 4;
/// A letter past `f`: not hex.
const NOT_HEX: u8 = 8;
const SEP: u8 = 16;
/// Crockford base32 leaves out `I`, `L`, `O` and `U` (either case).
const NOT_BASE32: u8 = 32;
/// A byte no id may contain.
const FOREIGN: u8 = 128;

/// The classes of every byte.
static CLASS: [u8; 256] = {
    let mut t = [FOREIGN; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_digit() {
            t[c] = DIGIT;
        }
        if b.is_ascii_alphabetic() {
            let mut k = if b.is_ascii_lowercase() { LOWER } else { UPPER };
            if !matches!(b.to_ascii_lowercase(), b'a'..=b'f') {
                k |= NOT_HEX;
            }
            if matches!(b.to_ascii_uppercase(), b'I' | b'L' | b'O' | b'U') {
                k |= NOT_BASE32;
            }
            t[c] = k;
        }
        if b == b'-' || b == b'_' {
            t[c] = SEP;
        }
        c += 1;
    }
    t
};

/// The union of the classes of `b`'s bytes: eight table loads joined by `or` per step, with no
/// branch inside a step.
fn classes(b: &[u8]) -> u8 {
    let class = |c: u8| CLASS[usize::from(c)];
    let mut words = b.chunks_exact(8);
    let mut any = 0;
    for w in &mut words {
        any |= class(w[0])
            | class(w[1])
            | class(w[2])
            | class(w[3])
            | class(w[4])
            | class(w[5])
            | class(w[6])
            | class(w[7]);
    }
    words.remainder().iter().fold(any, |any, &c| any | class(c))
}

/// Whether `b`, whose bytes' classes are `any` ([`classes`]), is a random part: digits, a UUID,
/// a ULID, hex, or base32 or base64url text that mixes letters and digits.
fn random_part(b: &[u8], any: u8) -> bool {
    let has = |class: u8| any & class != 0;
    let one_case = !(has(LOWER) && has(UPPER));
    if b.is_empty() || has(FOREIGN) {
        return false;
    }
    if b.len() <= 20 && any == DIGIT {
        return true;
    }
    if b.len() == 36 && one_case && uuid(b) {
        return true;
    }
    if b.len() < MIN_RANDOM {
        return false;
    }
    // Hex: digits and `a`-`f`, in one case.
    if !has(SEP | NOT_HEX) && one_case {
        return true;
    }
    // A ULID: 26 characters of Crockford base32 in one case, starting `0`-`7`.
    if b.len() == 26 && !has(SEP | NOT_BASE32) && one_case && b[0] <= b'7' {
        return true;
    }
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    if digits < 2 || b.iter().filter(|c| c.is_ascii_alphabetic()).count() < 2 {
        return false;
    }
    // Base32, or base64url without `-` and `_`; with them, words joined by separators
    // (`john-smith-1985-04`, `Jane-Q-Sentinel-07`, `john-NGUYEN-07`, `John-McDonald-1985`)
    // have no segment that mixes case past its first letter and holds a digit; random text
    // almost always has one.
    !has(SEP) || b.split(|&c| CLASS[usize::from(c)] == SEP).any(mixed_case)
}

/// A lower-case letter, an upper-case letter past the first byte, and a digit: random text, not
/// a name with an inner capital (`McDonald`, `LeBlanc`).
fn mixed_case(segment: &[u8]) -> bool {
    segment.iter().any(u8::is_ascii_lowercase)
        && segment.iter().skip(1).any(u8::is_ascii_uppercase)
        && segment.iter().any(u8::is_ascii_digit)
}

/// An opaque id: a UUID, a ULID, digits, hex, base32 or base64url of at least 16 characters, or
/// a lower-case prefix of up to 6 characters and `_`/`-` before one of those (`usr_01h…`,
/// `req-9f3…`).
///
/// Hex passes as it is. Base32 and base64url text must also mix letters and digits (at least two
/// of each), so a long login name or a word cannot pass for a token; a random token of that
/// length lacks them rarely, and is then redacted (fail closed). Base64url with `-` or `_` must
/// also have a segment that mixes case past its first letter and holds a digit, so that words,
/// capitalised names, names with an inner capital and acronyms joined by separators do not
/// pass. A long run of letters and digits with two of each (`jsmith1985jsmith`,
/// `JohnSmith1985-04`) still passes: the shape bounds what an id field
/// can carry, and phi-lint's type check covers the code that writes it.
///
/// Digits pass whatever they spell. A date (`19850412`) or a phone number can be a run of digits,
/// but no rule on digits alone tells them from ids without refusing real ones: of the ids of a
/// table whose sequence runs through 19,000,101-20,991,231, 3.7% are valid `YYYYMMDD` dates
/// (73,049 of 1,991,131), and every date-stamped batch or partition id is one; E.164 numbers
/// have 8 to 15 digits, the lengths of sequence ids past ten million and of Unix times in
/// seconds and milliseconds, and 71% of 10-digit numbers have the North American plan's shape.
/// The same value as an integer is not shape-checked at all. Names with `dob`, `birth` or `phone`
/// never pass, and phi-lint's type check covers the code.
pub(crate) fn opaque(s: &str) -> bool {
    let b = s.as_bytes();
    // `prefix_` or `prefix-`: the prefix is 1 to 6 lower-case letters or digits, starting with a
    // letter; the split is at the first separator, so `a-b-c` is prefix `a` and part `b-c`.
    // One pass over the bytes: the prefix's classes and the part's, joined, are the whole id's.
    let sep = b.iter().take(7).position(|&c| c == b'-' || c == b'_');
    if let Some(sep) = sep.filter(|&i| i > 0) {
        let (prefix, part) = (&b[..sep], &b[sep + 1..]);
        let head = classes(prefix);
        let prefix_ok =
            head & (UPPER | SEP | FOREIGN) == 0 && CLASS[usize::from(b[0])] & LOWER != 0;
        if prefix_ok && lower_hex(part) {
            return true;
        }
        let tail = classes(part);
        return (prefix_ok && random_part(part, tail)) || random_part(b, head | SEP | tail);
    }
    lower_hex(b) || random_part(b, classes(b))
}

/// Whether `b` is lower-case hex of at least [`MIN_RANDOM`] characters: the most common random
/// part (trace ids, hex tokens), and one that [`random_part`] accepts. Eight bytes per step,
/// with no branch inside a step: a byte is a digit or `a`-`f` when it is at least `0` and below
/// `:`, or at least `a` and below `g`, tested on all eight at once in the bytes' high bits.
fn lower_hex(b: &[u8]) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `at_least(c)` is set where the byte is `c` or above (bytes
    // below 0x80; the rest are refused by the first test).
    fn word_ok(x: u64) -> bool {
        let set = x | HIGH;
        let at_least = |c: u8| set.wrapping_sub(LOW * u64::from(c)) & HIGH;
        let digit = at_least(b'0') & !at_least(b':');
        let hex_letter = at_least(b'a') & !at_least(b'g');
        x & HIGH == 0 && digit | hex_letter == HIGH
    }
    let word = |i: usize| {
        b.get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_le_bytes)
    };
    if b.len() < MIN_RANDOM {
        return false;
    }
    // Whole words, then the last eight bytes (overlapping the previous word when the length is
    // not a multiple of eight).
    (0..b.len() / 8).all(|k| word(k * 8).is_some_and(word_ok))
        && word(b.len() - 8).is_some_and(word_ok)
}

/// `8-4-4-4-12` hex digits.
fn uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
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
            "Zm9v-YmFy_YmF6cXV4MTIz",
            "tok_aB3-xY9_kL2mN4pQ7r",
            "k7Hq_2xW-p9Lm3Rt",
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
            "John_Smith_1985_04_12",
            "JANE-DOE-1985-04-12",
            "jane-doe-1985-04-12-x",
            "Jane-Q-Sentinel-1985-04",
            "usr_Jane-Doe-1985-04",
            "9f3a7c21d4e5b6a8-",
            "",
        ] {
            assert!(!Shape::Opaque.accepts(bad), "{bad}");
        }
    }

    /// The rule of [`super::opaque`] written plainly, byte by byte, without the class table: the
    /// one-pass check must agree with it on every string.
    fn opaque_by_the_rule(s: &str) -> bool {
        fn random(b: &[u8]) -> bool {
            let lower = b.iter().any(u8::is_ascii_lowercase);
            let upper = b.iter().any(u8::is_ascii_uppercase);
            let sep = b.iter().any(|&c| c == b'-' || c == b'_');
            let one_case = !(lower && upper);
            if b.is_empty()
                || !b
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
            {
                return false;
            }
            if b.len() <= 20 && b.iter().all(u8::is_ascii_digit) {
                return true;
            }
            if b.len() == 36 && one_case && super::uuid(b) {
                return true;
            }
            if b.len() < 16 {
                return false;
            }
            if !sep && one_case && b.iter().all(u8::is_ascii_hexdigit) {
                return true;
            }
            let crockford = |c: &u8| !matches!(c.to_ascii_uppercase(), b'I' | b'L' | b'O' | b'U');
            if b.len() == 26 && !sep && one_case && b.iter().all(crockford) && b[0] <= b'7' {
                return true;
            }
            let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
            let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
            if digits < 2 || letters < 2 {
                return false;
            }
            !sep || b.split(|&c| c == b'-' || c == b'_').any(super::mixed_case)
        }
        let b = s.as_bytes();
        let prefixed = match b.iter().take(7).position(|&c| c == b'-' || c == b'_') {
            Some(i) if i > 0 => {
                b[0].is_ascii_lowercase()
                    && b[..i]
                        .iter()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                    && random(&b[i + 1..])
            }
            _ => false,
        };
        !b.is_empty() && b.len() <= 96 && (prefixed || random(b))
    }

    #[test]
    fn lower_hex_words() {
        for ok in [
            "9f3a7c21d4e5b6a8",
            "0123456789abcdef0",
            "ffffffffffffffffffffffffff",
        ] {
            assert!(super::lower_hex(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "9f3a7c21d4e5b6a",
            "9f3a7c21d4e5b6aG",
            "9F3a7c21d4e5b6a8",
            "9f3a7c21d4e5b6a8/",
            "9f3a7c21d4e5b6a8:",
            "`f3a7c21d4e5b6a8",
            "9f3a7c21d4e5b6a\u{e9}",
        ] {
            assert!(!super::lower_hex(bad.as_bytes()), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn one_pass_check_agrees_with_the_rule(
            s in proptest::prop_oneof![
                // A prefix (or something like one) before parts of every kind.
                "[a-zA-Z0-9.@]{0,7}[-_]([0-9a-f]{14,20}|[0-9A-F]{15,17}|[0-9]{1,22}|[0-9a-zA-Z]{14,24}|[0-9a-zA-Z_-]{14,30}|[0-7][0-9A-HJKMNP-TV-Z]{25})",
                "[0-9a-fA-FgGiIlLoOuUzZ_.@ -]{0,40}",
                "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-fA-F]{4}-[0-9a-f]{12}",
                "[0-7][0-9A-HJKMNP-TV-Z]{25}",
                "[0-9]{1,24}",
                "[0-9a-zA-Z_-]{10,40}",
                ".{0,100}",
            ]
        ) {
            proptest::prop_assert_eq!(Shape::Opaque.accepts(&s), opaque_by_the_rule(&s), "{}", s);
        }
    }

    #[test]
    fn digits_pass_whatever_they_spell() {
        // A date-stamped batch id, a sequence id that is also a valid date, a 10-digit sequence
        // id, a Unix time in milliseconds and a Snowflake id: refusing dates or phone-number
        // lengths would refuse these (see `opaque`).
        for ok in [
            "20261201",
            "19850412",
            "2147483647",
            "1764547200000",
            "1234567890123456789",
        ] {
            assert!(Shape::Opaque.accepts(ok), "{ok}");
        }
        // Spelled with separators, a date is not an id.
        for bad in ["1985-04-12", "1985_04_12", "+14155550123", "(415) 555-0123"] {
            assert!(!Shape::Opaque.accepts(bad), "{bad}");
        }
    }

    /// A deterministic xorshift stream, so the rates below are the same on every run.
    fn tokens(len: usize, count: usize) -> Vec<String> {
        const B64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..count)
            .map(|_| {
                (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        char::from(B64URL[usize::try_from(x % 64).unwrap_or(0)])
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn random_base64url_tokens_mostly_pass_separators_or_not() {
        // 128 bits (22 characters) and 192 bits (32): the rest lack two digits, or case inside
        // a segment, and are redacted (fail closed). Tokens with `-` or `_` pass at about the
        // same rate as those without.
        for (len, floor) in [(22, 0.80), (32, 0.93)] {
            let all = tokens(len, 4000);
            let with_sep: Vec<&String> = all.iter().filter(|t| t.contains(['-', '_'])).collect();
            let rate = |ts: &[&String]| {
                #[allow(clippy::cast_precision_loss)] // counts of a few thousand
                let r =
                    ts.iter().filter(|t| Shape::Opaque.accepts(t)).count() as f64 / ts.len() as f64;
                r
            };
            let every: Vec<&String> = all.iter().collect();
            assert!(rate(&every) >= floor, "{len}: {}", rate(&every));
            assert!(
                rate(&with_sep) >= floor - 0.03,
                "{len} with separators: {}",
                rate(&with_sep)
            );
        }
    }

    #[test]
    fn names_joined_by_separators_never_pass() {
        let first = ["john", "Jane", "ANN", "maria", "Li", "OMAR", "JohnSmith"];
        let last = [
            "smith", "Doe", "NGUYEN", "garcia", "Okafor", "McDonald", "LeBlanc",
        ];
        for f in first {
            for l in last {
                for sep in ["-", "_"] {
                    for tail in ["1985-04-12", "07", "x1", "1985_04"] {
                        let s = format!("{f}{sep}{l}{sep}{tail}");
                        assert!(!Shape::Opaque.accepts(&s), "{s}");
                    }
                }
            }
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
