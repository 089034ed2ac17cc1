//! The guarantee the tool exists for: no output shows any part of a leaking line but the canary.

use base64::Engine as _;

use super::{Dir, cli};

/// Distinctive stand-ins for PHI around the canary, each found nowhere in phi-canary's output
/// vocabulary.
const BEFORE: &str = r#"{"patient":"Zebediah Quintwell-Fauxman","mrn":"MRN-88412-QX","dob":"1961-07-04","reading":{"bpval":"142/91 mmHg","comment":""#;
const AFTER: &str = r#" post Xylocaine dose, Marrowgate Clinic"}}"#;

/// Every 6-byte window of `text`, and every word of 4 or more letters and digits.
fn fragments(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out: Vec<String> = bytes
        .windows(6)
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    out.extend(
        text.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() >= 4)
            .map(str::to_owned),
    );
    out
}

#[test]
fn no_byte_of_a_leaking_line_but_the_canary_reaches_any_format() {
    let canary = phi_canary::canary::DEMO;
    let base64_line = {
        // The same PHI, base64-encoded in a payload: found as a variant, and still not shown.
        let plain = format!("Zebediah Quintwell-Fauxman {canary} Marrowgate");
        format!("payload={}\n", base64(plain.as_bytes()))
    };
    let leaking = format!("{BEFORE}{canary}{AFTER}\n");
    let log = format!("clean line\n{leaking}another clean line\n{base64_line}");
    let dir = Dir::new();
    let path = dir.write("service.log", &log);
    let report = dir.path().join("report").to_string_lossy().into_owned();

    let forbidden: Vec<String> = [BEFORE, AFTER, base64_line.trim_end()]
        .iter()
        .flat_map(|t| fragments(t))
        .collect();
    for format in ["human", "json", "sarif"] {
        let runs = [
            cli(&["scan", "--format", format, &path]).run(),
            cli(&["scan", "--format", format, "-"])
                .stdin(log.clone())
                .run(),
            cli(&["scan", "--format", format, "--output", &report, &path]).run(),
        ];
        for run in runs {
            assert_eq!(run.code, 1, "{run}");
            let written = std::fs::read_to_string(&report).unwrap_or_default();
            let shown = format!("{}{}{written}", run.stdout, run.stderr);
            // Not vacuous: both hits are reported, by position.
            assert!(shown.contains("demo"), "{format}: {run}");
            assert!(shown.contains("base64-"), "{format}: {run}");
            for fragment in &forbidden {
                assert!(
                    !shown.contains(fragment.as_str()),
                    "{format} shows {fragment:?} of the leaking line:\n{shown}"
                );
            }
            // Nor the canary itself: hits name it by id.
            assert!(!shown.contains(canary), "{format}: {shown}");
        }
    }
}

/// Standard base64 with padding, as a logger would write it.
fn base64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}
