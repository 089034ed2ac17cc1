//! One spinner line per step on a terminal (stderr); nothing when stderr is piped.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub(crate) struct Steps {
    bar: ProgressBar,
}

impl Steps {
    pub(crate) fn new() -> Steps {
        let bar = if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{spinner} phi-ci: {msg} ({elapsed})") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        } else {
            ProgressBar::hidden()
        };
        Steps { bar }
    }

    /// Names the step now running.
    pub(crate) fn step(&self, what: &str) {
        self.bar.set_message(what.to_owned());
    }

    /// A line that stays above the spinner (terminal only).
    pub(crate) fn done(&self, what: &str) {
        self.bar.println(format!("  done: {what}"));
    }
}

impl Drop for Steps {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
