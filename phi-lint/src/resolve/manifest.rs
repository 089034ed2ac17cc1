//! A `Cargo.toml`'s targets, as cargo finds them: the declared `[lib]`, `[[bin]]`,
//! `[[example]]`, `[[test]]` and `[[bench]]` paths, the ones cargo discovers (`src/lib.rs`,
//! `src/main.rs`, `src/bin/*`, `examples/*`, `tests/*`, `benches/*`), the build script, and the
//! workspace's members.

use std::path::Path;

use serde::Deserialize;

use super::{Role, join_rel};

#[derive(Deserialize, Default)]
struct Manifest {
    package: Option<Package>,
    workspace: Option<Workspace>,
    lib: Option<TargetDef>,
    #[serde(default)]
    bin: Vec<TargetDef>,
    #[serde(default)]
    example: Vec<TargetDef>,
    #[serde(default)]
    test: Vec<TargetDef>,
    #[serde(default)]
    bench: Vec<TargetDef>,
}

#[derive(Deserialize, Default)]
struct Package {
    name: Option<String>,
    build: Option<toml::Value>,
    autolib: Option<bool>,
    autobins: Option<bool>,
    autoexamples: Option<bool>,
    autotests: Option<bool>,
    autobenches: Option<bool>,
}

#[derive(Deserialize, Default)]
struct Workspace {
    #[serde(default)]
    members: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
}

#[derive(Deserialize, Default)]
struct TargetDef {
    name: Option<String>,
    path: Option<String>,
}

/// A kind of target: its name, its declarations, its `auto…` switch, the directory cargo
/// discovers it in, and the role of its files.
type Kind<'a> = (&'a str, &'a [TargetDef], Option<bool>, &'a str, Role);

/// One target's root file, relative to the scan root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) rel: String,
    pub(crate) role: Role,
}

/// What one manifest declares.
#[derive(Debug, Default)]
pub(crate) struct Declared {
    pub(crate) targets: Vec<Target>,
    /// Directories of workspace members, relative to the scan root.
    pub(crate) members: Vec<String>,
    /// Problems: a declared target or member that does not exist.
    pub(crate) problems: Vec<Problem>,
}

/// Something a manifest declares that is not there.
#[derive(Debug)]
pub(crate) struct Problem {
    /// The missing file, root-relative, when it is inside the scan root.
    pub(crate) missing: Option<String>,
    /// The role of the missing target, if it is one.
    pub(crate) role: Option<Role>,
    /// What is wrong, lower-case.
    pub(crate) message: String,
}

/// Reads the manifest at `root/dir/Cargo.toml` (`dir` relative to the scan root, `""` for the
/// root itself).
pub(crate) fn read(root: &Path, dir: &str, text: &str) -> Result<Declared, String> {
    let m: Manifest = toml::from_str(text).map_err(|e| {
        let msg = e.message().trim().to_owned();
        format!("cannot parse: {}", msg.lines().next().unwrap_or_default())
    })?;
    let mut out = Declared::default();
    let exists = |rel: &str| root.join(rel).is_file();
    let sub = |tail: &str| join_rel(dir, tail);
    if let Some(ws) = &m.workspace {
        let excluded: Vec<String> = ws.exclude.iter().filter_map(|e| sub(e)).collect();
        for pattern in &ws.members {
            let found = match expand(root, dir, pattern) {
                Ok(found) => found,
                Err(message) => {
                    out.problems.push(Problem {
                        missing: None,
                        role: None,
                        message,
                    });
                    continue;
                }
            };
            if found.is_empty() && !pattern.contains(['*', '?', '[']) {
                out.problems.push(Problem {
                    missing: sub(pattern).and_then(|d| join_rel(&d, "Cargo.toml")),
                    role: None,
                    message: format!("workspace member `{pattern}` has no Cargo.toml"),
                });
            }
            out.members
                .extend(found.into_iter().filter(|d| !excluded.contains(d)));
        }
    }
    let Some(package) = &m.package else {
        return Ok(out);
    };
    let pkg_name = package.name.clone().unwrap_or_default();
    let mut add = |rel: Option<String>, role: Role, declared: bool, what: &str| match rel {
        Some(rel) if exists(&rel) => out.targets.push(Target { rel, role }),
        Some(rel) if declared => out.problems.push(Problem {
            message: format!("{what} target `{rel}` does not exist"),
            missing: Some(rel),
            role: Some(role),
        }),
        None if declared => out.problems.push(Problem {
            missing: None,
            role: Some(role),
            message: format!("{what} target path is outside the scan root"),
        }),
        Some(_) | None => {}
    };
    // The library.
    match m.lib.as_ref().and_then(|l| l.path.as_deref()) {
        Some(p) => add(sub(p), Role::Production, true, "lib"),
        None if package.autolib != Some(false) => {
            add(sub("src/lib.rs"), Role::Production, false, "lib");
        }
        None => {}
    }
    // The build script.
    match &package.build {
        Some(toml::Value::String(p)) => add(sub(p), Role::BuildScript, true, "build script"),
        Some(toml::Value::Boolean(false)) => {}
        _ => add(sub("build.rs"), Role::BuildScript, false, "build script"),
    }
    // Binaries, examples, tests and benches: declared, then discovered.
    let kinds: [Kind<'_>; 4] = [
        ("bin", &m.bin, package.autobins, "src/bin", Role::Production),
        (
            "example",
            &m.example,
            package.autoexamples,
            "examples",
            Role::Test,
        ),
        ("test", &m.test, package.autotests, "tests", Role::Test),
        (
            "bench",
            &m.bench,
            package.autobenches,
            "benches",
            Role::Test,
        ),
    ];
    for (what, defs, auto, auto_dir, role) in kinds {
        for def in defs {
            match (&def.path, &def.name) {
                (Some(p), _) => add(sub(p), role, true, what),
                (None, Some(name)) => {
                    let mut candidates = vec![
                        format!("{auto_dir}/{name}.rs"),
                        format!("{auto_dir}/{name}/main.rs"),
                    ];
                    if what == "bin" && *name == pkg_name {
                        candidates.insert(0, "src/main.rs".to_owned());
                    }
                    let found = candidates.iter().filter_map(|c| sub(c)).find(|c| exists(c));
                    match found {
                        Some(rel) => add(Some(rel), role, true, what),
                        None => add(sub(&format!("{auto_dir}/{name}.rs")), role, true, what),
                    }
                }
                (None, None) => {}
            }
        }
        if auto == Some(false) {
            continue;
        }
        if what == "bin" {
            add(sub("src/main.rs"), role, false, what);
        }
        if let Some(d) = sub(auto_dir) {
            for rel in discover(root, &d) {
                add(Some(rel), role, false, what);
            }
        }
    }
    out.targets.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.targets.dedup_by(|a, b| a.rel == b.rel);
    Ok(out)
}

/// `dir/*.rs` and `dir/*/main.rs`, as cargo discovers targets.
fn discover(root: &Path, dir: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_file() && path.extension().is_some_and(|x| x == "rs") {
            found.push(format!("{dir}/{name}"));
        } else if path.join("main.rs").is_file() {
            found.push(format!("{dir}/{name}/main.rs"));
        }
    }
    found.sort();
    found
}

/// A workspace member pattern (`crates/*`), expanded to the directories holding a Cargo.toml;
/// an error for a pattern cargo would reject (an invalid glob) or one that leaves the scan root
/// (`../shared`), whose members the scan cannot lint: either way a member would go unlinted
/// without a word.
fn expand(root: &Path, dir: &str, pattern: &str) -> Result<Vec<String>, String> {
    if Path::new(pattern).is_absolute() {
        return Err(format!(
            "workspace member `{pattern}` is an absolute path: phi-lint scans below its root"
        ));
    }
    let mut dirs = vec![dir.to_owned()];
    for part in pattern.split('/').filter(|p| !p.is_empty() && *p != ".") {
        let mut next = Vec::new();
        for d in &dirs {
            if !part.contains(['*', '?', '[']) {
                match join_rel(d, part) {
                    Some(j) => next.push(j),
                    None => {
                        return Err(format!(
                            "workspace member `{pattern}` is outside the scan root: scan the \
                             directory that holds the whole workspace"
                        ));
                    }
                }
                continue;
            }
            let glob = globset::Glob::new(part)
                .map_err(|e| format!("workspace member `{pattern}` is not a valid pattern: {e}"))?;
            let matcher = glob.compile_matcher();
            let Ok(entries) = std::fs::read_dir(root.join(d)) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if entry.path().is_dir() && matcher.is_match(&name) {
                    next.extend(join_rel(d, &name));
                }
            }
        }
        dirs = next;
    }
    dirs.retain(|d| root.join(d).join("Cargo.toml").is_file());
    dirs.sort();
    Ok(dirs)
}
