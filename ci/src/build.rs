//! Building the `answers` binary the pipelines run: with cargo, into the workspace's target
//! directory, the static build in a directory of its own (its own target triple). The leak drill
//! is a package of its own, so it shares the dependencies' build and cannot be mistaken for
//! `answers`; each binary is copied out at once.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use clap::Args;

use crate::default_root;
use crate::progress::Steps;

/// The static build's target triple, given explicitly so `crt-static` does not reach build
/// scripts and proc macros.
pub(crate) const STATIC_TARGET: &str = "x86_64-unknown-linux-gnu";

/// What to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// `cargo build --release -p answers`, in the target directory.
    Release,
    /// The same with the statically linked C runtime, for a `FROM scratch` image.
    Static,
}

/// What `phi-ci local` and `phi-ci release` check: the workspace, and the `answers` binary
/// (built, or given) with whether it is the leak drill.
#[derive(Args)]
pub(crate) struct Subject {
    /// The workspace [default: the workspace phi-ci was built in].
    #[arg(long, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
    /// Run this `answers` binary instead of building one (`release`: it must be statically
    /// linked).
    #[arg(long, value_name = "PATH")]
    pub(crate) answers_bin: Option<PathBuf>,
    /// The leak drill: build `answers-leak-drill` instead of `answers` (`release` also tags the
    /// image `phiguard-answers:leak-drill`). The check must then fail at layers 3 and 4 (exit 1).
    /// phi-ci knows the drill by what it built, so a given binary is never taken for it.
    #[arg(long, conflicts_with = "answers_bin")]
    pub(crate) leak_drill: bool,
    /// The cargo profile of the build. Releases use `release`; the workspace's tests use `dev`,
    /// which checks the same pipeline in a fraction of the compile time.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "release",
        conflicts_with = "answers_bin"
    )]
    pub(crate) cargo_profile: String,
}

impl Subject {
    /// The workspace to lint and build.
    pub(crate) fn root(&self) -> PathBuf {
        self.root.clone().unwrap_or_else(default_root)
    }

    /// The binary to run: the one given, or a `flavour` build of the workspace into `out`.
    pub(crate) fn binary(
        &self,
        flavour: Flavour,
        out: &Path,
        steps: &Steps,
    ) -> anyhow::Result<PathBuf> {
        match &self.answers_bin {
            Some(bin) => Ok(bin.clone()),
            None => {
                let profile = &self.cargo_profile;
                steps.step(&match flavour {
                    Flavour::Release => format!("build: answers ({profile})"),
                    Flavour::Static => format!("build: static answers ({profile})"),
                });
                answers(&self.root(), flavour, self.leak_drill, profile, out)
            }
        }
    }
}

/// The workspace's target directory: `CARGO_TARGET_DIR`, else `ROOT/target`.
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(
            || root.join("target"),
            |p| if p.is_absolute() { p } else { root.join(p) },
        )
}

/// Builds `answers`, or the leak drill (package `answers-leak-drill`, `ci/leak-drill`: the same
/// command line with one leaking layer) when asked, and copies the binary into `out` as
/// `answers` (so the next build in the same target directory cannot change it); returns the
/// copy.
/// cargo's output goes to `out/build.log`, and its tail into the error when the build fails.
///
/// Target directories: `TARGET` for both release builds and `TARGET/static` for both static
/// builds (they are different binaries, and the copy is made at once). `profile` is the cargo
/// profile (`release`, or `dev` for the tests).
pub(crate) fn answers(
    root: &Path,
    flavour: Flavour,
    leak_drill: bool,
    profile: &str,
    out: &Path,
) -> anyhow::Result<PathBuf> {
    let base = target_dir(root);
    let log = &out.join("build.log");
    let dir = match flavour {
        Flavour::Release => base.clone(),
        Flavour::Static => base.join("static"),
    };
    let package = if leak_drill {
        "answers-leak-drill"
    } else {
        "answers"
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(["build", "--profile", profile, "-p", package, "--target-dir"])
        .arg(&dir);
    if flavour == Flavour::Static {
        cmd.args(["--target", STATIC_TARGET])
            .env("RUSTFLAGS", "-C target-feature=+crt-static");
    }
    let file =
        std::fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    let status = cmd
        .stdout(file.try_clone()?)
        .stderr(file)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "cargo build of {package} failed ({status}):\n{}",
            tail.join("\n")
        );
    }
    let bin = match flavour {
        Flavour::Release => dir.join(profile_dir(profile)).join(package),
        Flavour::Static => dir
            .join(STATIC_TARGET)
            .join(profile_dir(profile))
            .join(package),
    };
    if !bin.is_file() {
        bail!("cargo built, but there is no {}", bin.display());
    }
    let copy = out.join("answers");
    std::fs::copy(&bin, &copy).with_context(|| format!("cannot copy {}", bin.display()))?;
    Ok(copy)
}

/// The directory cargo writes a profile's artifacts to: `debug` for `dev` and `test`, `release`
/// for `release` and `bench`, else the profile's name.
pub(crate) fn profile_dir(profile: &str) -> &str {
    match profile {
        "dev" | "test" => "debug",
        "release" | "bench" => "release",
        custom => custom,
    }
}

/// Checks with `file` and `ldd` that `bin` is statically linked; returns `file`'s verdict.
pub(crate) fn verify_static(bin: &Path) -> anyhow::Result<String> {
    let file = Command::new("file")
        .arg("-b")
        .arg(bin)
        .output()
        .context("cannot run `file`")?;
    let what = String::from_utf8_lossy(&file.stdout).trim().to_owned();
    if !file.status.success()
        || !(what.contains("statically linked") || what.contains("static-pie linked"))
    {
        bail!("{} is not statically linked: {what}", bin.display());
    }
    let ldd = Command::new("ldd")
        .arg(bin)
        .output()
        .context("cannot run `ldd`")?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&ldd.stdout),
        String::from_utf8_lossy(&ldd.stderr)
    );
    if !(text.contains("not a dynamic executable") || text.contains("statically linked")) {
        bail!(
            "ldd lists shared libraries for {}: {}",
            bin.display(),
            text.trim()
        );
    }
    Ok(what)
}

#[cfg(test)]
mod tests {
    use super::profile_dir;

    #[test]
    fn a_profile_builds_into_the_directory_cargo_names_for_it() {
        assert_eq!(profile_dir("dev"), "debug");
        assert_eq!(profile_dir("test"), "debug");
        assert_eq!(profile_dir("release"), "release");
        assert_eq!(profile_dir("bench"), "release");
        assert_eq!(profile_dir("ci-static"), "ci-static");
    }
}
