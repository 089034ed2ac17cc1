//! Building the `answers` binary the pipelines run: with cargo, into the workspace's target
//! directory. The leak drill is a package of its own, so it shares the dependencies' build and
//! cannot be mistaken for `answers`.
//!
//! The static binary is the same build linked again: `cargo rustc` passes `-C
//! target-feature=+crt-static` to the binary's crate alone, so every dependency is the one the
//! ordinary build compiled, and only the final link changes. That is sound on
//! `x86_64-unknown-linux-gnu` because crt-static decides nothing before the link there: libc's
//! and std's link kinds are `#[link(cfg(target_feature = "crt-static"))]`, read by the final
//! link; `cc` reads the feature only for MSVC's runtime and for a `-static` that compiling an
//! object ignores; the code the feature selects at compile time (portable-atomic's `getauxval`
//! probe) is for other architectures. Rebuilding the dependencies for an explicit target instead
//! compiled about 260 units a second time.
//!
//! Both binaries come out of the same path, so each build holds a lock on the target directory
//! ([`BUILD_LOCK`]) from the build until its copy is made, and the static build then links the
//! ordinary binary again: the target directory is left as `cargo build` made it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use clap::Args;

use crate::default_root;
use crate::progress::Steps;

/// The only target whose static link phi-ci makes; see the module's documentation.
const STATIC_HOST: &str = "x86_64-unknown-linux-gnu";

/// The file in the target directory phi-ci locks while it builds a binary and copies it out
/// (`flock`, exclusive). Anything else that must not see the static link in
/// `TARGET/PROFILE/PACKAGE` (the workspace's tests) takes the same lock.
pub(crate) const BUILD_LOCK: &str = "phi-ci-build.lock";

/// What to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// `cargo build --release -p answers`, in the target directory.
    Release,
    /// The same linked again with the statically linked C runtime, for a `FROM scratch` image.
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
/// copy. `profile` is the cargo profile (`release`, or `dev` for the tests).
///
/// The ordinary build is `cargo build`; the static one `cargo rustc` on the same target
/// directory, then `cargo build` again (see the module's documentation). The lock
/// ([`BUILD_LOCK`]) is held from the first build to the copy. cargo's output goes to
/// `out/build.log`, and its tail into the error when a build fails.
pub(crate) fn answers(
    root: &Path,
    flavour: Flavour,
    leak_drill: bool,
    profile: &str,
    out: &Path,
) -> anyhow::Result<PathBuf> {
    if flavour == Flavour::Static && !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        bail!("the static build is made for {STATIC_HOST} only");
    }
    let dir = target_dir(root);
    let log = &out.join("build.log");
    let package = if leak_drill {
        "answers-leak-drill"
    } else {
        "answers"
    };
    let _lock = lock(&dir)?;
    let build = ["build", "--profile", profile, "-p", package];
    match flavour {
        Flavour::Release => cargo(root, &dir, &build, log)?,
        Flavour::Static => cargo(
            root,
            &dir,
            &[
                "rustc",
                "--profile",
                profile,
                "-p",
                package,
                "--bin",
                package,
                "--",
                "-C",
                "target-feature=+crt-static",
            ],
            log,
        )?,
    }
    let bin = dir.join(profile_dir(profile)).join(package);
    if !bin.is_file() {
        bail!("cargo built, but there is no {}", bin.display());
    }
    let copy = out.join("answers");
    std::fs::copy(&bin, &copy).with_context(|| format!("cannot copy {}", bin.display()))?;
    if flavour == Flavour::Static {
        // The ordinary link back in its place, for whatever runs `TARGET/PROFILE/PACKAGE` next.
        cargo(root, &dir, &build, &out.join("relink.log"))?;
    }
    Ok(copy)
}

/// Takes [`BUILD_LOCK`] in `dir` (created when missing), blocking until it is free; the lock
/// goes with the returned file.
fn lock(dir: &Path) -> anyhow::Result<File> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(BUILD_LOCK);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(file)
}

/// Runs cargo with `args` and `--target-dir dir` in `root`, its output into `log`; a failure
/// carries the log's last lines.
fn cargo(root: &Path, dir: &Path, args: &[&str], log: &Path) -> anyhow::Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let file = File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    // `cargo rustc` takes the target directory before `--`, like every other option.
    let (options, rustc) =
        args.split_at(args.iter().position(|a| *a == "--").unwrap_or(args.len()));
    let status = Command::new(cargo)
        .current_dir(root)
        .args(options)
        .arg("--target-dir")
        .arg(dir)
        .args(rustc)
        .stdout(file.try_clone()?)
        .stderr(file)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "`cargo {}` failed ({status}):\n{}",
            options.join(" "),
            tail.join("\n")
        );
    }
    Ok(())
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
