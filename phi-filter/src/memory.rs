//! `MemoryWriter`: a `MakeWriter` into a shared buffer, for tests that assert what a service's
//! logs contain (and, above all, what they do not).

use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use tracing_subscriber::fmt::MakeWriter;

/// Collects everything written to it; clones share the buffer.
///
/// ```
/// use tracing_subscriber::prelude::*;
/// let logs = phi_filter::MemoryWriter::default();
/// let layer = phi_filter::PhiPolicy::default().wrap(phi_filter::json_layer(logs.clone()));
/// tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
///     tracing::info!(user_id = 7, note = "felt dizzy", "stored");
/// });
/// assert!(logs.text().contains(r#""note":"[redacted]""#));
/// assert!(!logs.text().contains("dizzy"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemoryWriter(Arc<Mutex<Vec<u8>>>);

impl MemoryWriter {
    /// Everything written so far, as text (invalid UTF-8 replaced).
    ///
    /// ```
    /// assert_eq!(phi_filter::MemoryWriter::default().text(), "");
    /// ```
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

/// The writer [`MemoryWriter`] hands out for each event.
#[derive(Debug)]
pub struct MemoryGuard(Arc<Mutex<Vec<u8>>>);

impl io::Write for MemoryGuard {
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

impl<'a> MakeWriter<'a> for MemoryWriter {
    type Writer = MemoryGuard;

    fn make_writer(&'a self) -> MemoryGuard {
        MemoryGuard(Arc::clone(&self.0))
    }
}
