//! Shared helpers: an in-memory writer and a subscriber built around a wrapped JSON layer.

use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use phi_filter::PhiPolicy;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::prelude::*;

/// The synthetic PHI planted in tests: distinctive, so a substring search cannot match by chance.
pub const PHI: &str = "Jane-Q-Sentinel-7731";

/// A `MakeWriter` that appends to a shared buffer.
#[derive(Clone, Default)]
pub struct Buf(Arc<Mutex<Vec<u8>>>);

impl Buf {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }

    /// Each JSON line, parsed.
    pub fn json_lines(&self) -> Vec<serde_json::Value> {
        self.text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect()
    }
}

pub struct BufWriter(Arc<Mutex<Vec<u8>>>);

impl io::Write for BufWriter {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Buf {
    type Writer = BufWriter;
    fn make_writer(&'a self) -> BufWriter {
        BufWriter(Arc::clone(&self.0))
    }
}

/// Runs `f` under `policy` wrapping phi-filter's JSON layer; returns the output.
pub fn capture(policy: PhiPolicy, f: impl FnOnce()) -> Buf {
    let buf = Buf::default();
    let layer = policy.wrap(phi_filter::json_layer(buf.clone()));
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
