//! The decoders, one function per encoding. Each takes a candidate run and returns its decoded
//! bytes, never longer than the run (decompression excepted, which is capped by its caller).

use std::io::Read;

/// The value of a base64 character, standard (`+/`) or URL-safe (`-_`) alphabet.
fn b64_value(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// Decodes base64 of either alphabet, padded or not; the trailing bits of a partial group are
/// dropped. Stops at the first byte outside both alphabets.
pub(super) fn base64(run: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(run.len() / 4 * 3 + 2);
    let mut acc = 0u32;
    let mut bits = 0;
    for &b in run {
        let Some(v) = b64_value(b) else { break };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            // The low byte above the remaining bits; the mask keeps it to one byte.
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    out
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The hex digits of `run` with the separators `:` and `-` between them left out, as maximal
/// segments of digits.
pub(super) fn hex_segments(run: &[u8]) -> Vec<Vec<u8>> {
    let mut segments = Vec::new();
    let mut current = Vec::new();
    for &b in run {
        if hex_value(b).is_some() {
            current.push(b);
        } else if !matches!(b, b':' | b'-') && !current.is_empty() {
            segments.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        segments.push(current);
    }
    segments
}

/// Decodes hex digits in pairs from `skip` (0 or 1, the alignment).
pub(super) fn hex(digits: &[u8], skip: usize) -> Vec<u8> {
    digits
        .get(skip..)
        .unwrap_or_default()
        .chunks_exact(2)
        .filter_map(|p| Some((hex_value(p[0])? << 4) | hex_value(p[1])?))
        .collect()
}

/// Decodes `%XX` escapes (and `+` stays `+`: the form variant is a pattern of its own).
pub(super) fn percent(token: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(token.len());
    let mut i = 0;
    while i < token.len() {
        if token[i] == b'%'
            && let (Some(h), Some(l)) = (
                token.get(i + 1).copied().and_then(hex_value),
                token.get(i + 2).copied().and_then(hex_value),
            )
        {
            out.push((h << 4) | l);
            i += 3;
        } else {
            out.push(token[i]);
            i += 1;
        }
    }
    out
}

/// Decodes JSON (`\u0050`, surrogate pairs) and Rust (`\u{50}`) unicode escapes, and the simple
/// escapes `\"`, `\\`, `\/`, into UTF-8.
pub(super) fn unicode(token: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(token.len());
    let mut i = 0;
    while i < token.len() {
        if token[i] == b'\\' {
            if let Some((c, used)) = unicode_escape(&token[i..]) {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                i += used;
                continue;
            }
            if let Some(&next @ (b'"' | b'\\' | b'/')) = token.get(i + 1) {
                out.push(next);
                i += 2;
                continue;
            }
        }
        out.push(token[i]);
        i += 1;
    }
    out
}

/// One `\u…` escape at the start of `s`: the character and the bytes it used.
fn unicode_escape(s: &[u8]) -> Option<(char, usize)> {
    if s.get(1) != Some(&b'u') {
        return None;
    }
    if s.get(2) == Some(&b'{') {
        let close = s.iter().take(10).position(|&b| b == b'}')?;
        let code = hex_number(&s[3..close])?;
        return Some((char::from_u32(code)?, close + 1));
    }
    let unit = hex_number(s.get(2..6)?)?;
    if (0xD800..0xDC00).contains(&unit)
        && s.get(6) == Some(&b'\\')
        && s.get(7) == Some(&b'u')
        && let Some(low) = s.get(8..12).and_then(hex_number)
        && (0xDC00..0xE000).contains(&low)
    {
        let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        return Some((char::from_u32(code)?, 12));
    }
    Some((char::from_u32(unit).unwrap_or('\u{FFFD}'), 6))
}

fn hex_number(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 6 {
        return None;
    }
    digits
        .iter()
        .try_fold(0u32, |acc, &b| Some(acc * 16 + u32::from(hex_value(b)?)))
}

/// Named references that can stand for a printable ASCII byte of a canary.
const NAMED: &[(&[u8], u8)] = &[
    (b"quot", b'"'),
    (b"amp", b'&'),
    (b"lt", b'<'),
    (b"gt", b'>'),
    (b"apos", b'\''),
    (b"sol", b'/'),
    (b"colon", b':'),
    (b"comma", b','),
    (b"period", b'.'),
    (b"hyphen", b'-'),
    (b"dash", b'-'),
    (b"lowbar", b'_'),
    (b"num", b'#'),
    (b"percnt", b'%'),
    (b"equals", b'='),
    (b"plus", b'+'),
    (b"excl", b'!'),
    (b"quest", b'?'),
    (b"semi", b';'),
    (b"commat", b'@'),
    (b"nbsp", b' '),
];

/// Decodes HTML character references: `&#80;`, `&#x50;` (the `;` optional) and the named ones
/// that stand for printable ASCII (`&quot;`, `&amp;`, `&hyphen;`, …). `&nbsp;` becomes a space.
pub(super) fn html(token: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(token.len());
    let mut i = 0;
    while i < token.len() {
        if token[i] == b'&'
            && let Some((bytes, used)) = html_reference(&token[i..])
        {
            out.extend_from_slice(&bytes);
            i += used;
        } else {
            out.push(token[i]);
            i += 1;
        }
    }
    out
}

fn html_reference(s: &[u8]) -> Option<(Vec<u8>, usize)> {
    if s.get(1) == Some(&b'#') {
        let (radix, from) = if matches!(s.get(2), Some(b'x' | b'X')) {
            (16, 3)
        } else {
            (10, 2)
        };
        let len = s[from..]
            .iter()
            .take(8)
            .take_while(|b| {
                if radix == 16 {
                    b.is_ascii_hexdigit()
                } else {
                    b.is_ascii_digit()
                }
            })
            .count();
        if len == 0 {
            return None;
        }
        let digits = std::str::from_utf8(&s[from..from + len]).ok()?;
        let c = char::from_u32(u32::from_str_radix(digits, radix).ok()?)?;
        let used = from + len + usize::from(s.get(from + len) == Some(&b';'));
        let mut buf = [0u8; 4];
        return Some((c.encode_utf8(&mut buf).as_bytes().to_vec(), used));
    }
    let semi = s.iter().take(10).position(|&b| b == b';')?;
    let name = &s[1..semi];
    let &(_, byte) = NAMED.iter().find(|(n, _)| *n == name)?;
    Some((vec![byte], semi + 1))
}

/// Text with its NUL bytes left out: UTF-16LE or BE of ASCII text becomes the text.
pub(super) fn utf16(region: &[u8]) -> Vec<u8> {
    region.iter().copied().filter(|&b| b != 0).collect()
}

/// How a decompression ended.
pub(super) enum Inflated {
    /// The output, complete or up to a corrupt or truncated point.
    Bytes(Vec<u8>),
    /// The output went past the cap.
    OverCap,
}

/// Decompresses a gzip (`gzip`) or zlib stream at the start of `data`, keeping at most `cap`
/// bytes of output. A corrupt or truncated stream gives what came out before the damage.
pub(super) fn inflate(data: &[u8], gzip: bool, cap: usize) -> Inflated {
    let reader: Box<dyn Read + '_> = if gzip {
        Box::new(flate2::read::MultiGzDecoder::new(data))
    } else {
        Box::new(flate2::read::ZlibDecoder::new(data))
    };
    let mut out = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX) + 1;
    let mut limited = reader.take(limit);
    let mut buf = [0u8; 16 * 1024];
    loop {
        match limited.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
        if out.len() > cap {
            return Inflated::OverCap;
        }
    }
    Inflated::Bytes(out)
}

/// Whether a zlib stream can start at `data`: deflate, a 32 KiB window at most, no preset
/// dictionary, and the header check.
pub(super) fn zlib_header(data: &[u8]) -> bool {
    match data {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8
                && cmf >> 4 <= 7
                && flg & 0x20 == 0
                && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_decoder_inverts_its_encoding() {
        assert_eq!(base64(b"UEhJ"), b"PHI");
        assert_eq!(base64(b"UEhJLQ"), b"PHI-");
        assert_eq!(base64(b"-_8"), [0xfb, 0xff]);
        assert_eq!(
            hex_segments(b"50:48:49zz4a"),
            [b"504849".to_vec(), b"4a".to_vec()]
        );
        assert_eq!(hex(b"0504849", 1), b"PHI");
        assert_eq!(percent(b"%50%48I%2"), b"PHI%2");
        assert_eq!(
            unicode(br"\u0050\u{48}\u0049\/\ud83d\ude00"),
            "PHI/😀".as_bytes()
        );
        assert_eq!(
            html(b"&#80;&#x48;&#73&hyphen;&quot;&bogus;"),
            b"PHI-\"&bogus;"
        );
        assert_eq!(utf16(b"P\0H\0I\0"), b"PHI");
        assert!(zlib_header(&[0x78, 0x9c]) && !zlib_header(&[0x78, 0x00]));
    }
}
