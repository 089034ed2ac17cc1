//! Shared helpers: an in-memory writer and a subscriber built around a wrapped JSON layer.

use phi_filter::{MemoryWriter, PhiPolicy};
use tracing_subscriber::prelude::*;

/// The synthetic PHI planted in tests: distinctive, so a substring search cannot match by chance.
pub const PHI: &str = "Jane-Q-Sentinel-7731";

/// phi-filter's in-memory writer, with a JSON-lines reader.
#[derive(Clone, Default)]
pub struct Buf(pub MemoryWriter);

impl Buf {
    pub fn text(&self) -> String {
        self.0.text()
    }

    /// Each JSON line, parsed.
    pub fn json_lines(&self) -> Vec<serde_json::Value> {
        self.text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect()
    }
}

/// Runs `f` under `policy` wrapping phi-filter's JSON layer; returns the output.
pub fn capture(policy: PhiPolicy, f: impl FnOnce()) -> Buf {
    let buf = Buf::default();
    let layer = policy.wrap(phi_filter::json_layer(buf.0.clone()));
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), f);
    buf
}

/// Asserts the planted PHI appears nowhere in `text`, showing the text if it does.
pub fn assert_no_phi(text: &str) {
    assert!(
        !text.is_empty(),
        "nothing was logged, so the absence of PHI proves nothing"
    );
    assert!(!text.contains(PHI), "PHI leaked:\n{text}");
}
