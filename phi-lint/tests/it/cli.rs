//! The `phi-lint` binary, end to end: exit codes with stdout and stderr, every output format,
//! the baseline lifecycle in a git repository, the walk's ignore rules, `explain` and `--help`.
//!
//! Each test writes its own tree into a temporary directory and runs the binary there, with
//! `HOME` and git's configuration pointed into that directory so the machine's settings cannot
//! change the outcome.

mod baseline;
mod exit_codes;
mod explain;
mod fix;
mod formats;
mod resolve;
mod walk;

use std::path::{Path, PathBuf};
use std::process;

use phi_testkit::Run;
use serde_json::Value;
use tempfile::TempDir;

/// Safe logging only: an id.
const SAFE: &str = r#"pub struct User {
    pub id: u64,
}

pub fn greet(user: &User) {
    tracing::info!(user_id = %user.id, "ok");
}
"#;

/// A one-line leak, for files whose content does not matter.
const ONE_LEAK: &str = "pub fn f(user: &User) { tracing::info!(email = %user.email); }\n";

/// Variables that would point git at another repository.
const UNSET: [&str; 3] = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"];

/// A temporary source tree, the root of every scan in a test.
struct Tree {
    dir: TempDir,
}

impl Tree {
    /// A tree holding `files` (`(relative path, text)`).
    fn new(files: &[(&str, &str)]) -> Tree {
        let tree = Tree {
            dir: tempfile::tempdir().expect("create a temporary directory"),
        };
        for (rel, text) in files {
            tree.write(rel, text);
        }
        tree
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a directory in the tree");
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {rel}: {e}"));
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Runs `phi-lint ARGS` with the tree as the current directory.
    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = assert_cmd::Command::cargo_bin("phi-lint").expect("the phi-lint binary");
        cmd.args(args).current_dir(self.root()).envs(self.env());
        for name in UNSET {
            cmd.env_remove(name);
        }
        Run::from(cmd.output().expect("run phi-lint"))
    }

    /// Runs `phi-lint check ARGS`, then parses its stdout as the JSON report.
    fn json(&self, args: &[&str], code: i32) -> Value {
        let run = self.run(&[&["check", "--format", "json"], args].concat());
        run.assert_code(code);
        assert_eq!(run.stderr, "", "{run}");
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("JSON report: {e}\n{run}"))
    }

    /// Runs `git ARGS` in the tree and asserts it succeeded.
    fn git(&self, args: &[&str]) {
        let mut cmd = process::Command::new("git");
        cmd.args(["-c", "user.email=t@t", "-c", "user.name=t"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(self.root())
            .envs(self.env());
        for name in UNSET {
            cmd.env_remove(name);
        }
        let out = cmd.output().expect("run git");
        assert!(out.status.success(), "git {args:?}: {}", Run::from(out));
    }

    /// A git repository holding the tree as it is now, in one commit.
    fn git_init(&self) {
        self.git(&["init", "-q"]);
        self.commit("initial");
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    /// The environment of every command: `HOME` and git's configuration point into the tree, so
    /// no user or system setting (a global gitignore, signing, a default branch) reaches
    /// phi-lint or git. See also [`UNSET`].
    fn env(&self) -> [(&'static str, PathBuf); 4] {
        [
            ("HOME", self.root().to_owned()),
            ("XDG_CONFIG_HOME", self.root().to_owned()),
            ("GIT_CONFIG_GLOBAL", self.root().join(".gitconfig")),
            ("GIT_CONFIG_NOSYSTEM", PathBuf::from("1")),
        ]
    }

    /// `text` with the tree's path (as given and canonical) replaced by `[ROOT]`.
    fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        let canonical = std::fs::canonicalize(self.root()).expect("canonical root");
        for root in [canonical.as_path(), self.root()] {
            out = out.replace(&*root.to_string_lossy(), "[ROOT]");
        }
        out
    }

    fn root_arg(&self) -> String {
        self.root().to_string_lossy().into_owned()
    }
}

/// A JSON finding's `line`, `column`, `end_line` and `end_column`.
fn span(finding: &Value) -> [u64; 4] {
    ["line", "column", "end_line", "end_column"].map(|k| {
        finding[k]
            .as_u64()
            .unwrap_or_else(|| panic!("finding.{k} in {finding}"))
    })
}
