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
