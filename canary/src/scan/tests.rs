//! A large file scanned in parallel parts gives the report of one sequential scan, and hits
//! beyond the cap are counted.

use super::{MAX_HITS_PER_STREAM, Settings, scan};
use crate::canary::{self, Canary};
use crate::marker::Nonce;
use crate::matcher::Matcher;
use crate::source::{FileSource, Source};
use crate::variant::{Variant, VariantSet};

fn matcher() -> Matcher {
    Matcher::new(
        vec![Canary::demo(), Canary::core()],
        VariantSet::All,
        Some(Nonce::new("par-0001").expect("nonce")),
    )
    .expect("builds")
}

#[test]
fn parallel_parts_give_the_report_of_one_scan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("big.log");
    let line = b"{\"level\":\"INFO\",\"fields\":{\"message\":\"served\",\"status\":200}}\n";
    let mut log = b"phiguard-marker start par-0001\n".to_vec();
    let size = 10 << 20; // parts of at least 2 MiB in unit tests
    let upper = Variant::Upper.encode(canary::DEMO.as_bytes());
    while log.len() < size {
        log.extend_from_slice(line);
        // Canaries every ~64 KiB, and densely around a half and the thirds, where cuts fall.
        let near_cut = [size / 2, size / 3, 2 * size / 3]
            .iter()
            .any(|&c| log.len().abs_diff(c) < 4096);
        if near_cut || log.len() % (1 << 16) < line.len() {
            log.extend_from_slice(&upper);
            log.extend_from_slice(b" x\n");
        }
    }
    log.extend_from_slice(b"phiguard-marker end par-0001\n");
    std::fs::write(&path, &log).expect("write");
    let m = matcher();
    let run = |threads| {
        let file: Box<dyn Source> = Box::new(FileSource::new(&path.to_string_lossy()));
        scan(
            &m,
            vec![file],
            &Settings {
                threads,
                progress: &|_| {},
            },
        )
    };
    let one = run(1);
    assert!(one.hits_total > 100, "{}", one.hits_total);
    assert_eq!(one.exit_code(), 1);
    assert!(one.sources[0].streams[0].markers.bracketed());
    assert_eq!(one.sources[0].streams[0].bytes, log.len() as u64);
    for threads in [2, 3, 5] {
        assert!(run(threads) == one, "{threads} threads");
    }
}

#[test]
fn hits_beyond_the_cap_are_counted_not_listed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("many.log");
    let line = format!("{}\n", canary::CORE);
    std::fs::write(&path, line.repeat(MAX_HITS_PER_STREAM + 5)).expect("write");
    let file: Box<dyn Source> = Box::new(FileSource::new(&path.to_string_lossy()));
    let report = scan(&matcher(), vec![file], &Settings::default());
    assert_eq!(report.hits.len(), MAX_HITS_PER_STREAM);
    assert_eq!(report.hits_total, MAX_HITS_PER_STREAM as u64 + 5);
    assert_eq!(report.hits[999].line, 1000);
}

/// A base64'd gzip body whose run straddles a read (`CHUNK`) boundary, cut at several places
/// in it, is found by decoding, at the run's offset, in a file read in pieces (under 4 MiB) and
/// in a mapped one: the partial line is carried over, never skipped.
#[test]
fn a_decodable_run_across_a_read_boundary_is_found() {
    use base64::Engine as _;
    use std::io::Write as _;

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Compressible, so that gzip does not store the text as it is (the fast path would then
    // find the canary's base64 in the body, and rightly report it instead).
    let text = format!(
        "{{\"pad\":\"{}\",\"c\":\"{}\"}}",
        "abc".repeat(30),
        canary::DEMO
    );
    gz.write_all(text.as_bytes()).expect("compress");
    let body = base64::engine::general_purpose::STANDARD.encode(gz.finish().expect("compress"));
    let chunk = crate::source::CHUNK;
    for size in [chunk + (64 << 10), 5 << 20] {
        for before in [10, 33, body.len() / 2, body.len() - 1] {
            let mut log = Vec::new();
            let filler = b"{\"level\":\"INFO\",\"message\":\"served\"}\n";
            // The run starts `before` bytes ahead of the boundary.
            let start = chunk - before;
            while log.len() + filler.len() < start - 9 {
                log.extend_from_slice(filler);
            }
            log.resize(start - 9, b' ');
            log.extend_from_slice(b"{\"body\":\"");
            let offset = log.len() as u64;
            log.extend_from_slice(body.as_bytes());
            log.extend_from_slice(b"\"}\n");
            while log.len() < size {
                log.extend_from_slice(filler);
            }
            let dir = tempfile::tempdir().expect("tempdir");
            let path = dir.path().join("app.log");
            std::fs::write(&path, &log).expect("write");
            let m = Matcher::new(vec![Canary::demo(), Canary::core()], VariantSet::All, None)
                .expect("builds");
            let file = FileSource::new(&path.to_string_lossy());
            let report = scan(
                &m,
                vec![Box::new(file) as Box<dyn Source>],
                &Settings::default(),
            );
            let hits: Vec<(Option<&str>, u64)> = report
                .hits
                .iter()
                .map(|h| (h.chain.as_deref(), h.offset))
                .collect();
            assert_eq!(
                hits,
                [(Some("base64>gzip>exact"), offset)],
                "size {size}, {before} bytes before the boundary"
            );
        }
    }
}

/// A stream handed over in the given pieces.
struct Pieces(Vec<Vec<u8>>);

impl crate::source::Chunks for Pieces {
    fn each(&mut self, each: &mut dyn FnMut(&[u8])) -> std::io::Result<()> {
        for piece in &self.0 {
            each(piece);
        }
        Ok(())
    }
}

/// The mixed-case windows come from the fast path's search: cut anywhere in two pieces, or
/// fed a byte at a time, a stream gives the hits of one piece.
#[test]
fn mixed_case_hits_do_not_depend_on_the_pieces() {
    let log: &[u8] = b"{\"a\":\"Phi-Canary-3F9a\"}\n\
        {\"b\":\"self-tracked PHI-canary-3f9a\",\"c\":\"-3F9\"}\nplain\n\
        {\"d\":\"PHI-CANARY-3f9a Phi-CANARY-3f9a\"}\n";
    let m =
        Matcher::new(vec![Canary::demo(), Canary::core()], VariantSet::All, None).expect("builds");
    assert!(m.finds_windows());
    let hits = |pieces: Vec<Vec<u8>>| -> Vec<(u64, u64, Variant)> {
        let part = super::scan_part(&m, &mut Pieces(pieces), &Settings::default());
        assert!(part.error.is_none());
        part.hits
            .iter()
            .map(|(e, _)| match e.found {
                crate::matcher::Found::Canary { canary, variant } => {
                    (e.offset, canary as u64, variant)
                }
                crate::matcher::Found::Marker(_) => unreachable!("no marker asked for"),
            })
            .collect()
    };
    let whole = hits(vec![log.to_vec()]);
    let at = |needle: &str| {
        log.windows(needle.len())
            .position(|w| w == needle.as_bytes())
            .expect("in the log") as u64
    };
    assert_eq!(
        whole,
        [
            (at("Phi-Canary-3F9a"), 1, Variant::MixedCase),
            (at("self-tracked PHI-canary"), 0, Variant::MixedCase),
            (at("PHI-CANARY-3f9a "), 1, Variant::Exact),
            (at("Phi-CANARY"), 1, Variant::MixedCase),
        ]
    );
    for cut in 0..=log.len() {
        let (a, b) = log.split_at(cut);
        assert_eq!(hits(vec![a.to_vec(), b.to_vec()]), whole, "cut at {cut}");
    }
    let bytes: Vec<Vec<u8>> = log.iter().map(|&b| vec![b]).collect();
    assert_eq!(hits(bytes), whole, "a byte at a time");
}
