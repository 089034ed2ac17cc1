//! Decode and rescan through the CLI: every encoding from its own fixture file, the chain in
//! each format, the near miss, a decompression bomb, long lines, and the preconditions that
//! cannot be faked (no canary, `start, end, start`).

use std::io::Write;

use phi_canary::canary::{CORE, DEMO};

use super::{Cmd, Dir, NONCE, cli};

/// `f` of every byte of `text`, concatenated.
fn each(text: &str, f: impl Fn(u8) -> String) -> String {
    text.bytes().map(f).fold(String::new(), |a, s| a + &s)
}

fn b64(data: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in data.chunks(3) {
        let n = group.len();
        let v = group.iter().fold(0u32, |a, &b| a << 8 | u32::from(b)) << (8 * (3 - n));
        for k in 0..=n {
            out.push(char::from(ALPHABET[(v >> (18 - 6 * k)) as usize & 63]));
        }
        out.push_str(&"=".repeat(3 - n));
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).expect("compress");
    e.finish().expect("compress")
}

/// A JSON log of a few lines with `value` in the third.
fn log(value: &str) -> String {
    format!(
        "{{\"level\":\"INFO\",\"message\":\"started\"}}\n{{\"level\":\"INFO\",\"message\":\"request handled\"}}\n{{\"level\":\"DEBUG\",\"body\":\"{value}\"}}\n"
    )
}

/// Each held-out encoding of the issue, in its own fixture: (name, value, chain).
fn fixtures() -> Vec<(&'static str, String, &'static str)> {
    let body = format!("{{\"comment\":\"{DEMO}\",\"pad\":\"{}\"}}", "x".repeat(40));
    vec![
        (
            "percent",
            each(CORE, |b| format!("%{b:02X}")),
            "percent>exact",
        ),
        (
            "json-unicode",
            each(CORE, |b| format!("\\u{b:04x}")),
            "unicode>exact",
        ),
        (
            "rust-unicode",
            each(CORE, |b| format!("\\u{{{b:x}}}")),
            "unicode>exact",
        ),
        ("html", each(CORE, |b| format!("&#{b};")), "html>exact"),
        (
            "hex-colons",
            CORE.bytes()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(":"),
            "hex>exact",
        ),
        (
            "base64-gzip",
            b64(&gzip(body.as_bytes())),
            "base64>gzip>exact",
        ),
        (
            "gzip-gzip",
            b64(&gzip(&gzip(body.as_bytes()))),
            "base64>gzip>gzip>exact",
        ),
        (
            "base64-base64",
            b64(b64(CORE.as_bytes()).as_bytes()),
            "base64>base64>exact",
        ),
        ("mixed-case", "Phi-Canary-3F9a".to_owned(), "mixed-case"),
    ]
}

#[test]
fn every_encoding_is_found_with_its_chain() {
    let dir = Dir::new();
    for (name, value, chain) in fixtures() {
        let path = dir.write(&format!("{name}.log"), log(&value));
        let run = cli(&["scan", "--format", "json", &path]).run();
        assert_eq!(run.code, 1, "{name}: {run}");
        let json = run.json();
        let hit = &json["hits"][0];
        assert_eq!(json["hits_total"], 1, "{name}: {json}");
        assert_eq!(hit["line"], 3, "{name}");
        let got = hit["chain"]
            .as_str()
            .unwrap_or_else(|| hit["variant"].as_str().expect("variant"));
        assert_eq!(got, chain, "{name}: {hit}");
    }
    // UTF-16LE: the whole file.
    let utf16: Vec<u8> = log(CORE).bytes().flat_map(|b| [b, 0]).collect();
    let path = dir.write("utf16.log", utf16);
    let json = cli(&["scan", "--format", "json", &path]).run().json();
    assert_eq!(json["hits"][0]["chain"], "utf16>exact", "{json}");
}

#[test]
fn decoding_is_off_with_no_decode_and_with_exact() {
    let dir = Dir::new();
    let value: String = each(CORE, |b| format!("%{b:02X}"));
    let path = dir.write("percent.log", log(&value));
    for flag in ["--no-decode", "--variants=exact"] {
        cli(&["scan", flag, &path]).run().assert_out(0, &[]);
    }
}

#[test]
fn the_near_miss_is_clean_in_every_encoding() {
    let dir = Dir::new();
    let near = "PHI-CANARY-3f9b";
    let lines: String = [
        near.to_owned(),
        "Phi-Canary-3F9b".to_owned(),
        each(near, |b| format!("%{b:02X}")),
        b64(&gzip(near.as_bytes())),
        b64(b64(near.as_bytes()).as_bytes()),
    ]
    .iter()
    .map(|v| log(v))
    .collect();
    let path = dir.write("near.log", lines);
    cli(&["scan", &path]).run().assert_out(0, &[]);
}

#[test]
fn the_chain_in_every_format() {
    let dir = Dir::new();
    let body = format!("{{\"comment\":\"{DEMO}\",\"pad\":\"{}\"}}", "x".repeat(40));
    let path = dir.write("app.log", log(&b64(&gzip(body.as_bytes()))));
    let human = cli(&["scan", &path]).run();
    assert_eq!(human.code, 1);
    insta::assert_snapshot!(human.stdout.replace(&path, "app.log"));
    let sarif = cli(&["scan", "--format", "sarif", &path]).run();
    let sarif: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("sarif");
    let props = &sarif["runs"][0]["results"][0]["properties"];
    assert_eq!(props["chain"], "base64>gzip>exact", "{props}");
}

#[test]
fn a_decompression_bomb_is_exit_2_with_its_position() {
    let dir = Dir::new();
    // 64 MiB of zeros: about 64 KiB compressed, past the 4 MiB cap.
    let bomb = b64(&gzip(&vec![0u8; 64 << 20]));
    let path = dir.write("bomb.log", log(&bomb));
    let at = log(&bomb).find("H4sI").expect("gzip in base64");
    let run = cli(&["scan", &path]).run();
    assert_eq!(run.code, 2, "{run}");
    assert!(
        run.stdout
            .contains(&format!("line 3, byte {at} decompresses past the cap")),
        "{run}"
    );
}

#[test]
fn lines_over_8_mib_are_decoded_or_fail_closed() {
    let dir = Dir::new();
    let filler = "\"ok\",".repeat(2 << 20);
    let value: String = each(CORE, |b| format!("%{b:02X}"));
    let path = dir.write("long.log", format!("{filler}\"{value}\"\n"));
    let json = cli(&["scan", "--format", "json", &path]).run().json();
    assert_eq!(
        json["hits"][0]["chain"], "percent>exact",
        "{}",
        json["hits"]
    );
    assert_eq!(json["hits"][0]["offset"], filler.len() + 1);
    // One run of 9 MiB: not decodable within bounds, so not clean.
    let path = dir.write("run.log", format!("x {}\n", "QUFB".repeat(9 << 18)));
    let run = cli(&["scan", &path]).run();
    assert_eq!(run.code, 2, "{run}");
    assert!(
        run.stdout.contains("line 1, byte 0 is longer than"),
        "{run}"
    );
}

#[test]
fn no_canary_is_a_usage_error_not_the_demo() {
    let dir = Dir::new();
    let path = dir.write("app.log", log("fine"));
    for (name, text) in [("empty", ""), ("blank", "  \n\t\n\n")] {
        let file = dir.write(name, text);
        cli(&["scan", "--canary-file", &file, &path])
            .run()
            .assert_err(2, &["holds no canary"]);
    }
    // No canary flag at all (not through `cli`, which adds `--demo` to a bare scan).
    Cmd::new(env!("CARGO_BIN_EXE_phi-canary"), &["scan", &path])
        .run()
        .assert_err(2, &["no canary to scan for"]);
    // With --demo and a per-run canary in the file, both are scanned for.
    let file = dir.write("run.txt", "PHI-CANARY-0123456789abcdef0123456789abcdef\n");
    let leak = dir.write("leak.log", log(DEMO));
    cli(&["scan", "--canary-file", &file, "--demo", &leak])
        .run()
        .assert_out(1, &[]);
}

#[test]
fn a_restart_without_its_end_is_inconclusive_with_the_counts() {
    let dir = Dir::new();
    let start = format!("phiguard-marker start {NONCE}\n");
    let end = format!("phiguard-marker end {NONCE}\n");
    let path = dir.write("restart.log", format!("{start}a\n{end}{start}b\n"));
    let run = cli(&["scan", "--expect-marker", NONCE, &path]).run();
    assert_eq!(run.code, 3, "{run}");
    assert!(
        run.stdout
            .contains("2 start and 1 end markers; every start must be followed by its end"),
        "{run}"
    );
    let path = dir.write("twice.log", format!("{start}a\n{end}{start}b\n{end}"));
    cli(&["scan", "--expect-marker", NONCE, &path])
        .run()
        .assert_out(0, &[]);
}
