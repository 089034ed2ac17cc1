//! The Python that runs the independent clients and oracles (`core/tests/requirements.txt`):
//! `PHI_PYTHON` when set (`.ci/run` builds the environment and sets it), else a virtual
//! environment this test binary builds once under the target directory. A missing Python or
//! a failed install fails the test that needs it; nothing is skipped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const REQUIREMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/requirements.txt");

/// The interpreter with the pinned packages installed.
pub(crate) fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        if let Some(p) = std::env::var_os("PHI_PYTHON") {
            return PathBuf::from(p);
        }
        let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("py-answers");
        let python = venv.join("bin").join("python");
        let stamp = venv.join("requirements.installed");
        let wanted = std::fs::read_to_string(REQUIREMENTS).expect("read the requirements");
        if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
            return python;
        }
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 must be installed to run the MCP client tests (or set PHI_PYTHON)");
        assert!(made.success(), "python3 -m venv failed");
        let installed = Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
            ])
            .arg(REQUIREMENTS)
            .status()
            .expect("run pip");
        assert!(
            installed.success(),
            "pip could not install {REQUIREMENTS}; set PHI_PYTHON to an interpreter that has them"
        );
        std::fs::write(&stamp, wanted).expect("stamp the environment");
        python
    })
}
