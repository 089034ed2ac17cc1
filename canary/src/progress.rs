//! Progress for long scans: a line on stderr that appears only on a terminal, and only once a
//! scan has run for a second, so short scans and piped runs stay quiet.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a scan runs before progress appears.
pub const DELAY: Duration = Duration::from_secs(1);

/// Bytes scanned so far, drawn on stderr when it is a terminal and the scan is long.
///
/// ```
/// use phi_canary::progress::Progress;
///
/// let progress = Progress::new(false); // never drawn
/// progress.advance(4096);
/// assert_eq!(progress.bytes(), 4096);
/// progress.finish();
/// ```
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    enabled: bool,
    shown: AtomicBool,
}

impl Progress {
    /// A counter, drawn only if `enabled` (pass whether stderr is a terminal).
    #[must_use]
    pub fn new(enabled: bool) -> Progress {
        let bar = ProgressBar::hidden();
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} phi-canary: scanned {bytes} in {elapsed} ({binary_bytes_per_sec})",
        ) {
            bar.set_style(style);
        }
        Progress {
            bar,
            start: Instant::now(),
            enabled,
            shown: AtomicBool::new(false),
        }
    }

    /// Counts `n` more bytes scanned; called from every stream's thread.
    pub fn advance(&self, n: u64) {
        self.bar.inc(n);
        if self.enabled
            && !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed() >= DELAY
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    /// Bytes counted so far.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.bar.position()
    }

    /// Clears the line, if it was drawn.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
