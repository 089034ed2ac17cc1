//! Each encoding in its own fixture, the near miss, the chain, and the caps.

use std::io::Write;

use super::*;
use crate::canary::{CORE, DEMO};

fn decoder() -> Decoder {
    Decoder::new(&[Canary::demo(), Canary::core()]).expect("builds")
}

/// The chains found in `line`, with the canary's index.
fn chains(line: &[u8]) -> Vec<(usize, String)> {
    decoder()
        .find(line)
        .expect("in bounds")
        .iter()
        .map(|d| {
            let last = if d.mixed_case { "mixed-case" } else { "exact" };
            (d.canary, d.chain.render(last))
        })
        .collect()
}

/// `f` of every byte of `text`, concatenated.
fn each(text: &str, f: impl Fn(u8) -> String) -> String {
    text.bytes().map(f).fold(String::new(), |a, s| a + &s)
}

fn b64(data: &[u8], url: bool) -> String {
    let alphabet: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for group in data.chunks(3) {
        let n = group.len();
        let v = group.iter().fold(0u32, |a, &b| a << 8 | u32::from(b)) << (8 * (3 - n));
        for k in 0..=n {
            out.push(char::from(alphabet[(v >> (18 - 6 * k)) as usize & 63]));
        }
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).expect("compress");
    e.finish().expect("compress")
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).expect("compress");
    e.finish().expect("compress")
}

fn line(value: &str) -> Vec<u8> {
    format!("{{\"level\":\"INFO\",\"body\":\"{value}\"}}\n").into_bytes()
}

#[test]
fn base64_standard_and_url_safe_at_every_alignment_padded_or_not() {
    // `?>` before the canary makes `/` and `+` (standard) or `_` and `-` (URL-safe) appear.
    for prefix in ["", "a", "ab", "??>"] {
        let text = format!("{prefix}{CORE}");
        for url in [false, true] {
            let enc = b64(text.as_bytes(), url);
            for padded in [enc.clone(), format!("{enc}==")] {
                assert_eq!(
                    chains(&line(&padded)),
                    [(1, "base64>exact".to_owned())],
                    "{prefix:?} url={url}"
                );
            }
        }
    }
}

#[test]
fn hex_plain_and_with_separators() {
    let hex: Vec<String> = CORE.bytes().map(|b| format!("{b:02x}")).collect::<Vec<_>>();
    for enc in [
        hex.concat(),
        hex.join(":"),
        hex.join("-").to_uppercase(),
        format!("f{}", hex.concat()),
    ] {
        assert_eq!(chains(&line(&enc)), [(1, "hex>exact".to_owned())], "{enc}");
    }
}

#[test]
fn fully_percent_encoded() {
    let enc: String = each(DEMO, |b| format!("%{b:02X}"));
    assert_eq!(chains(&line(&enc)), [(0, "percent>exact".to_owned())]);
}

#[test]
fn json_and_rust_unicode_escapes() {
    let json: String = each(CORE, |b| format!("\\\\u{b:04x}"));
    // In the JSON line the escapes are written `\\u0050`: a JSON string of `\u0050`.
    let raw: String = each(CORE, |b| format!("\\u{b:04X}"));
    let rust: String = each(CORE, |b| format!("\\u{{{b:x}}}"));
    assert_eq!(chains(&line(&raw)), [(1, "unicode>exact".to_owned())]);
    assert_eq!(chains(&line(&rust)), [(1, "unicode>exact".to_owned())]);
    assert_eq!(
        chains(&line(&json)),
        [(1, "unicode>unicode>exact".to_owned())]
    );
}

#[test]
fn html_character_references() {
    let dec: String = each(CORE, |b| format!("&#{b};"));
    let hex: String = each(CORE, |b| format!("&#x{b:X};"));
    let named = "PHI&hyphen;CANARY&#45;3f9a";
    for enc in [dec, hex, named.to_owned()] {
        assert_eq!(chains(&line(&enc)), [(1, "html>exact".to_owned())], "{enc}");
    }
}

#[test]
fn utf16_little_and_big_endian() {
    let le: Vec<u8> = format!("body {DEMO} end")
        .bytes()
        .flat_map(|b| [b, 0])
        .collect();
    let be: Vec<u8> = format!("body {CORE} end")
        .bytes()
        .flat_map(|b| [0, b])
        .collect();
    assert_eq!(chains(&le), [(0, "utf16>exact".to_owned())]);
    assert_eq!(chains(&be), [(1, "utf16>exact".to_owned())]);
}

#[test]
fn gzip_and_zlib_inside_base64_and_nested() {
    let body = format!("{{\"comment\":\"{DEMO}\"}}");
    let gz = b64(&gzip(body.as_bytes()), false);
    let zl = b64(&zlib(body.as_bytes()), true);
    let gzgz = b64(&gzip(&gzip(body.as_bytes())), false);
    assert_eq!(chains(&line(&gz)), [(0, "base64>gzip>exact".to_owned())]);
    assert_eq!(chains(&line(&zl)), [(0, "base64>zlib>exact".to_owned())]);
    assert_eq!(
        chains(&line(&gzgz)),
        [(0, "base64>gzip>gzip>exact".to_owned())]
    );
}

#[test]
fn base64_of_base64_and_mixed_case() {
    let twice = b64(b64(CORE.as_bytes(), false).as_bytes(), false);
    assert_eq!(
        chains(&line(&twice)),
        [(1, "base64>base64>exact".to_owned())]
    );
    assert_eq!(
        chains(&line("saw Phi-Canary-3F9a")),
        [(1, "mixed-case".to_owned())]
    );
    assert_eq!(
        chains(&line("Self-Tracked Phi-Canary-3F9A")),
        [(0, "mixed-case".to_owned())]
    );
    let mixed = b64(b"pHi-cAnArY-3F9A", false);
    assert_eq!(chains(&line(&mixed)), [(1, "base64>mixed-case".to_owned())]);
}

#[test]
fn the_near_miss_and_plain_forms_give_nothing_here() {
    let near = "PHI-CANARY-3f9b";
    let hex: String = each(near, |b| format!("{b:02x}"));
    let pct: String = each(near, |b| format!("%{b:02X}"));
    for enc in [
        near.to_owned(),
        near.to_lowercase(),
        "Phi-Canary-3F9b".to_owned(),
        b64(near.as_bytes(), false),
        b64(&gzip(near.as_bytes()), false),
        hex,
        pct,
    ] {
        assert_eq!(chains(&line(&enc)), [], "{enc}");
    }
    // Exact, lower and upper case are the fast path's.
    for plain in [DEMO.to_owned(), DEMO.to_lowercase(), DEMO.to_uppercase()] {
        assert_eq!(chains(&line(&plain)), [], "{plain}");
    }
}

#[test]
fn a_decompression_bomb_stops_with_its_position() {
    let zeros = vec![0u8; INFLATE_CAP + 1];
    let bomb = b64(&gzip(&zeros), false);
    let hay = format!("first line\n{{\"body\":\"{bomb}\"}}\n");
    let at = hay.find("H4sI").expect("gzip in base64");
    assert_eq!(decoder().find(hay.as_bytes()), Err(Limit::Bomb(at)));
}

#[test]
fn a_run_over_the_cap_is_an_error() {
    let long = "A".repeat(TOKEN_CAP + 1);
    assert_eq!(decoder().find(long.as_bytes()), Err(Limit::TooLong(0)));
}

#[test]
fn runs_split_anywhere_across_pieces_are_found() {
    let body = b64(&gzip(format!("x {CORE} y").as_bytes()), false);
    let text = format!("one\ntwo {body} three\nfour\n");
    let d = decoder();
    for cut in 0..text.len() {
        let mut s = LineDecoder::new(&d);
        let mut hits = Vec::new();
        let (a, b) = text.as_bytes().split_at(cut);
        let nl = |t: &[u8]| bytecount::count(t, b'\n') as u64;
        s.feed(a, 0, 0, nl(a), &mut |h| hits.push(h))
            .expect("in bounds");
        s.feed(b, cut as u64, nl(a), nl(a) + nl(b), &mut |h| hits.push(h))
            .expect("in bounds");
        s.finish(&mut |h| hits.push(h)).expect("in bounds");
        assert_eq!(hits.len(), 1, "cut {cut}");
        assert_eq!((hits[0].line, hits[0].offset), (2, 8), "cut {cut}");
    }
}

#[test]
fn a_long_line_is_decoded_in_parts_cut_at_a_quote() {
    let d = decoder();
    let filler = "\"x\",".repeat(TOKEN_CAP / 4 + 10);
    let pct: String = each(CORE, |b| format!("%{b:02X}"));
    let text = format!("{filler}\"{pct}\"\n");
    let mut s = LineDecoder::new(&d);
    let mut hits = Vec::new();
    for (i, piece) in text.as_bytes().chunks(1 << 16).enumerate() {
        let nl = u64::from(piece.last() == Some(&b'\n'));
        s.feed(piece, (i << 16) as u64, 0, nl, &mut |h| hits.push(h))
            .expect("in bounds");
    }
    s.finish(&mut |h| hits.push(h)).expect("in bounds");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].offset, filler.len() as u64 + 1);
    // No place to cut: an error with the position, not a skip.
    let mut s = LineDecoder::new(&d);
    let err = s
        .feed("A".repeat(TOKEN_CAP + 5).as_bytes(), 0, 0, 0, &mut |_| {})
        .expect_err("too long");
    assert_eq!(
        err,
        DecodeError::TooLong {
            line: 1,
            offset: 0,
            cap: TOKEN_CAP
        }
    );
}

proptest::proptest! {
    /// The block-wise run search finds exactly the maximal runs a byte-by-byte search finds,
    /// for runs shorter and longer than a block and at every position in a block, cut by bytes
    /// the coarse mask sees (a blank, a quote) and bytes only the exact one sees (`;`, `[`, `@`).
    #[test]
    fn the_run_search_finds_every_run_a_naive_search_finds(
        pieces in proptest::collection::vec((0usize..150, proptest::sample::select(vec![b' ', b'"', b'.', b'\n', 0xC3, b';', b'[', b'@', b'%', b'\\', b'&', 0, b'$', b'\'', b'|'])), 0..40),
        min_len in proptest::sample::select(vec![8usize, 15, 28, 60]),
    ) {
        let mut hay = Vec::new();
        for (n, sep) in pieces {
            hay.extend((0..n).map(|i| b"aZ09+/-_=:"[i % 10]));
            hay.push(sep);
        }
        let canary = Canary::from_text(&"x".repeat(min_len), 0).expect("a canary");
        let d = Decoder::new(&[canary]).expect("a decoder");
        let expected_specials: Vec<usize> = (0..hay.len())
            .filter(|&i| matches!(hay[i], b'%' | b'\\' | b'&' | 0))
            .collect();
        for path in [runs::Path::Portable, runs::Path::detect()] {
            let finder = runs::RunFinder::with_path(d.min_run, path);
            let mut found = Vec::new();
            let mut specials = Vec::new();
            finder.find(&hay, &mut |s, e| found.push((s, e)), &mut specials);
            proptest::prop_assert_eq!(&found, &runs::naive_runs(&hay, d.min_run), "{:?}", path);
            proptest::prop_assert_eq!(&specials, &expected_specials, "{:?}", path);
        }
        let mut found = Vec::new();
        let specials = d.runs(&hay, &mut found);
        let found: Vec<(usize, usize)> = found
            .into_iter()
            .filter(|c| c.2 == Step::Base64)
            .map(|(s, e, _)| (s, e))
            .collect();
        proptest::prop_assert_eq!(found, runs::naive_runs(&hay, d.min_run));
        proptest::prop_assert_eq!(specials, expected_specials);
    }
}

#[test]
fn a_mixed_case_window_inside_another_windows_match_is_seen() {
    // `xxAb` (a window of the longer canary) matches at 0; the shorter canary's window `AbCd`
    // starts inside it, at 2.
    let texts = [
        Canary::from_text("abcdefgh", 0).expect("valid"),
        Canary::from_text("xxabcdefghyy", 1).expect("valid"),
    ];
    let decoder = Decoder::new(&texts).expect("builds");
    let found = decoder.find(&line("xxAbCdefgh")).expect("in bounds");
    assert!(
        found.iter().any(|d| d.canary == 0 && d.mixed_case),
        "{found:?}"
    );
}
