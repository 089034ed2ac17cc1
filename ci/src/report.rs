//! The one report a pipeline prints: a line per layer with its figures and PASS or FAIL.

use std::fmt;

/// phi-ci's exit codes (see `--help`).
pub(crate) mod exit {
    /// Every layer passed.
    pub(crate) const PASS: u8 = 0;
    /// A layer failed.
    pub(crate) const FAIL: u8 = 1;
    /// The pipeline could not run.
    pub(crate) const ERROR: u8 = 2;
}

/// One layer's outcome.
#[derive(Debug, Clone)]
pub(crate) struct Layer {
    /// `static`, `runtime`, `end-to-end`.
    pub(crate) name: &'static str,
    /// The figures, `name value` pairs, in order.
    pub(crate) figures: Vec<(&'static str, String)>,
    /// Why it failed; empty when it passed.
    pub(crate) failures: Vec<String>,
}

impl Layer {
    pub(crate) fn new(name: &'static str) -> Layer {
        Layer {
            name,
            figures: Vec::new(),
            failures: Vec::new(),
        }
    }

    pub(crate) fn figure(&mut self, name: &'static str, value: impl fmt::Display) {
        self.figures.push((name, value.to_string()));
    }

    pub(crate) fn fail(&mut self, why: impl Into<String>) {
        self.failures.push(why.into());
    }

    pub(crate) fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// A pipeline's report.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub(crate) title: String,
    pub(crate) layers: Vec<Layer>,
}

impl Report {
    /// An empty report for `pipeline` (`local`, `release`), its title saying whether this run
    /// is the leak drill.
    pub(crate) fn pipeline(pipeline: &str, leak_drill: bool) -> Report {
        let drill = if leak_drill { " (leak drill)" } else { "" };
        Report {
            title: format!("phi-ci {pipeline}{drill}"),
            layers: Vec::new(),
        }
    }

    pub(crate) fn exit_code(&self) -> u8 {
        if !self.layers.is_empty() && self.layers.iter().all(Layer::passed) {
            exit::PASS
        } else {
            exit::FAIL
        }
    }

    /// Prints the report, and the run's directory when it is kept (`--keep`; otherwise it is
    /// removed); returns the exit code.
    pub(crate) fn finish(&self, dir: tempfile::TempDir, keep: bool) -> u8 {
        // phi-lint: allow(phi::print, reason = "the report holds counts, labels, statuses and canary ids; never a log line or a value")
        println!("{self}");
        if keep {
            let kept = dir.keep();
            // phi-lint: allow(phi::print, reason = "a temporary directory this run created")
            println!("  run directory: {}", kept.display());
        }
        self.exit_code()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.title)?;
        let width = self.layers.iter().map(|l| l.name.len()).max().unwrap_or(0);
        for (i, layer) in self.layers.iter().enumerate() {
            let verdict = if layer.passed() { "PASS" } else { "FAIL" };
            let figures = layer
                .figures
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ");
            writeln!(
                f,
                "  {}. {:<width$}  {verdict}  {figures}",
                i + 1,
                layer.name
            )?;
            for why in &layer.failures {
                writeln!(f, "       - {why}")?;
            }
        }
        let overall = if self.exit_code() == exit::PASS {
            "PASS"
        } else {
            "FAIL"
        };
        write!(f, "  result: {overall}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_layer_fails_the_report_and_says_why() {
        let mut ok = Layer::new("static");
        ok.figure("files", 3);
        let mut bad = Layer::new("end-to-end");
        bad.figure("hits", 1);
        bad.fail("a canary was found in the logs");
        let mut r = Report {
            title: "phi-ci local".into(),
            layers: vec![ok.clone()],
        };
        assert_eq!(r.exit_code(), exit::PASS);
        r.layers.push(bad);
        assert_eq!(r.exit_code(), exit::FAIL);
        let text = r.to_string();
        assert!(text.contains("1. static      PASS  files 3"), "{text}");
        assert!(text.contains("2. end-to-end  FAIL  hits 1"), "{text}");
        assert!(text.contains("- a canary was found"), "{text}");
        assert!(text.ends_with("result: FAIL"));
        assert_eq!(Report::default().exit_code(), exit::FAIL);
    }
}
