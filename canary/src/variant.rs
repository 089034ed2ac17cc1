//! The bounded set of explicit encodings a canary is matched in.
//!
//! Every variant is a plain, case-sensitive byte string, so the matcher stays on aho-corasick's
//! prefilter fast path. Case-insensitive mode is never used: it turns the prefilters off and was
//! measured about 6× slower.

use serde::Serialize;

use crate::canary::HEX_LOWER;

/// One encoding of a canary. A hit reports which one matched.
///
/// ```
/// use phi_canary::Variant;
///
/// let text = b"self-tracked PHI-CANARY-3f9a";
/// assert_eq!(Variant::Plus.encode(text), b"self-tracked+PHI-CANARY-3f9a");
/// assert_eq!(Variant::UnicodeEscape.encode(text), br"self-tracked\u0020PHI-CANARY-3f9a");
/// assert_eq!(Variant::HexLower.encode(b"PHI"), b"504849");
/// assert_eq!(Variant::Base64At0.encode(b"PHI-CA"), b"UEhJLUNB");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// As written.
    Exact,
    /// ASCII lower case.
    Lower,
    /// ASCII upper case.
    Upper,
    /// Percent-encoded: every byte but `A-Za-z0-9-._~` as `%XX` (a URL path or query).
    Percent,
    /// Form-encoded: spaces as `+`, other reserved bytes as `%XX`.
    Plus,
    /// Spaces as the JSON escape `\u0020`.
    UnicodeEscape,
    /// Base64 with the canary at offset 0 of a 3-byte group: the characters that depend on the
    /// canary's bits alone, whatever surrounds it.
    #[serde(rename = "base64-0")]
    Base64At0,
    /// Base64 with the canary at offset 1 of a 3-byte group (stable interior).
    #[serde(rename = "base64-1")]
    Base64At1,
    /// Base64 with the canary at offset 2 of a 3-byte group (stable interior).
    #[serde(rename = "base64-2")]
    Base64At2,
    /// Hex, lower-case digits.
    HexLower,
    /// Hex, upper-case digits.
    HexUpper,
    /// The canary in mixed ASCII case (`Phi-Canary-3F9a`). Not a pattern of the fast path: the
    /// decoder finds it (see [`decode`](crate::decode)), so it is in no [`VariantSet`].
    MixedCase,
}

/// Which variants to match.
///
/// ```
/// use phi_canary::{Variant, VariantSet};
///
/// assert_eq!(VariantSet::Exact.variants(), &[Variant::Exact]);
/// assert_eq!(VariantSet::All.variants().len(), 11);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum VariantSet {
    /// The canary as written, nothing else.
    Exact,
    /// Every encoding: the cases, URL and JSON escapes, base64 and hex.
    #[default]
    All,
}

impl VariantSet {
    /// The variants in this set, in [`Variant::ALL`] order.
    #[must_use]
    pub fn variants(self) -> &'static [Variant] {
        match self {
            VariantSet::Exact => &Variant::ALL[..1],
            VariantSet::All => &Variant::ALL,
        }
    }

    /// The name on the command line and in reports.
    ///
    /// ```
    /// assert_eq!(phi_canary::VariantSet::All.name(), "all");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            VariantSet::Exact => "exact",
            VariantSet::All => "all",
        }
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

impl Variant {
    /// Every variant, in the order reports and the matcher prefer them.
    pub const ALL: [Variant; 11] = [
        Variant::Exact,
        Variant::Lower,
        Variant::Upper,
        Variant::Percent,
        Variant::Plus,
        Variant::UnicodeEscape,
        Variant::Base64At0,
        Variant::Base64At1,
        Variant::Base64At2,
        Variant::HexLower,
        Variant::HexUpper,
    ];

    /// The name reports use (`exact`, `base64-1`, `hex-upper`, …).
    ///
    /// ```
    /// assert_eq!(phi_canary::Variant::Base64At1.name(), "base64-1");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Variant::Exact => "exact",
            Variant::Lower => "lower",
            Variant::Upper => "upper",
            Variant::Percent => "percent",
            Variant::Plus => "plus",
            Variant::UnicodeEscape => "unicode-escape",
            Variant::Base64At0 => "base64-0",
            Variant::Base64At1 => "base64-1",
            Variant::Base64At2 => "base64-2",
            Variant::HexLower => "hex-lower",
            Variant::HexUpper => "hex-upper",
            Variant::MixedCase => "mixed-case",
        }
    }

    /// The bytes to search for when the canary is `text`.
    ///
    /// ```
    /// use phi_canary::Variant;
    ///
    /// assert_eq!(Variant::Percent.encode(b"a b/c"), b"a%20b%2Fc");
    /// // At offset 1 the first two characters depend on the byte before the canary.
    /// assert_eq!(Variant::Base64At1.encode(b"PHI-CA"), b"BISS1DQ");
    /// ```
    #[must_use]
    pub fn encode(self, text: &[u8]) -> Vec<u8> {
        match self {
            Variant::Exact | Variant::MixedCase => text.to_vec(),
            Variant::Lower => text.to_ascii_lowercase(),
            Variant::Upper => text.to_ascii_uppercase(),
            Variant::Percent => percent(text, false),
            Variant::Plus => percent(text, true),
            Variant::UnicodeEscape => {
                let mut out = Vec::with_capacity(text.len() + 16);
                for &b in text {
                    if b == b' ' {
                        out.extend_from_slice(br"\u0020");
                    } else {
                        out.push(b);
                    }
                }
                out
            }
            Variant::Base64At0 => base64_interior(text, 0),
            Variant::Base64At1 => base64_interior(text, 1),
            Variant::Base64At2 => base64_interior(text, 2),
            Variant::HexLower => hex(text, HEX_LOWER),
            Variant::HexUpper => hex(text, HEX_UPPER),
        }
    }
}

fn percent(text: &[u8], plus_for_space: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 3);
    for &b in text {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b);
        } else if plus_for_space && b == b' ' {
            out.push(b'+');
        } else {
            out.extend_from_slice(&[
                b'%',
                HEX_UPPER[usize::from(b >> 4)],
                HEX_UPPER[usize::from(b & 0xf)],
            ]);
        }
    }
    out
}

fn hex(text: &[u8], digits: &[u8; 16]) -> Vec<u8> {
    text.iter()
        .flat_map(|&b| [digits[usize::from(b >> 4)], digits[usize::from(b & 0xf)]])
        .collect()
}

/// The base64 characters that depend only on `text`'s bits when `text` starts `offset` bytes
/// into a 3-byte group. Text occupies bits `8·offset .. 8·(offset+n)` of the encoded input;
/// character `k` covers bits `6k .. 6k+6`, so the stable ones are `⌈8·offset/6⌉ ..
/// ⌊8·(offset+n)/6⌋`.
fn base64_interior(text: &[u8], offset: usize) -> Vec<u8> {
    let mut input = vec![0u8; offset];
    input.extend_from_slice(text);
    while !input.len().is_multiple_of(3) {
        input.push(0);
    }
    let mut encoded = Vec::with_capacity(input.len() / 3 * 4);
    for group in input.chunks_exact(3) {
        let n = u32::from(group[0]) << 16 | u32::from(group[1]) << 8 | u32::from(group[2]);
        for shift in [18, 12, 6, 0] {
            encoded.push(BASE64[(n >> shift & 0x3f) as usize]);
        }
    }
    let first = (8 * offset).div_ceil(6);
    let end = 8 * (offset + text.len()) / 6;
    encoded[first..end].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reference encoder with padding, independent of [`base64_interior`].
    fn standard_base64(data: &[u8]) -> String {
        let mut out = String::new();
        for chunk in data.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
            for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
                if i <= chunk.len() {
                    out.push(char::from(BASE64[(n >> shift & 0x3f) as usize]));
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn base64_interiors_survive_any_neighbours() {
        let text = crate::canary::DEMO.as_bytes();
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for trial in 0..3000 {
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed.to_le_bytes()[0]
            };
            let prefix: Vec<u8> = (0..trial % 7).map(|_| next()).collect();
            let suffix: Vec<u8> = (0..trial % 5).map(|_| next()).collect();
            let data = [prefix.as_slice(), text, suffix.as_slice()].concat();
            let encoded = standard_base64(&data);
            let variant =
                [Variant::Base64At0, Variant::Base64At1, Variant::Base64At2][prefix.len() % 3];
            let core = String::from_utf8(variant.encode(text)).expect("ascii");
            assert!(
                encoded.contains(&core),
                "trial {trial}: {core} not in {encoded}"
            );
        }
    }

    #[test]
    fn interiors_are_as_long_as_they_can_be() {
        // 28 bytes are 224 bits; the interior is ⌈8·offset/6⌉ .. ⌊(8·offset + 224)/6⌋.
        let text = crate::canary::DEMO.as_bytes();
        assert_eq!(Variant::Base64At0.encode(text).len(), 37);
        assert_eq!(Variant::Base64At1.encode(text).len(), (8 + 224) / 6 - 2);
        assert_eq!(Variant::Base64At2.encode(text).len(), (16 + 224) / 6 - 3);
    }

    #[test]
    fn every_variant_of_the_demo_canary() {
        let text = crate::canary::DEMO.as_bytes();
        let shown: Vec<String> = Variant::ALL
            .iter()
            .map(|v| {
                format!(
                    "{:<15} {}",
                    v.name(),
                    String::from_utf8(v.encode(text)).expect("ascii")
                )
            })
            .collect();
        insta::assert_snapshot!(shown.join("\n"));
    }
}
