//! Configuration: `phiguard.toml` at the scan root (or `[workspace.metadata.phiguard]` in its
//! `Cargo.toml`), the policy file phi-filter's runtime layer reads too. Its `[names]` and
//! `[runtime]` tables are phi-filter's schema (`phi_filter::config`), so the two layers cannot
//! read them differently; `[lint]` holds the keys below. A name pseudonymized at run time
//! (`[runtime] pseudonymize`) passes the lint: its values never reach a log.
//!
//! ```toml
//! # phiguard.toml
//! [names]
//! allow = ["listen_addr"]
//! [lint]
//! safe-functions = ["plural"]
//! [lint.wrappers]
//! admin_error = "tracing::error"
//! [runtime]
//! pseudonymize = ["mrn"]
//! ```
//!
//! The older `phi-lint.toml` (or `[workspace.metadata.phi-lint]`) keeps working, with a notice;
//! its keys are those of `[lint]` plus the name lists. Unknown keys are errors, and every error
//! points into the file.
//!
//! ```toml
//! # phi-lint.toml
//! allow-names = ["tool_name"]        # exact names that are safe, even with a deny stem
//! allow-patterns = ["*_slug"]        # `*` patterns that widen the safe classes
//! deny-stems = ["token"]             # added to the built-in stems
//! safe-functions = ["fingerprint"]   # calls whose result is safe (last segment or full path)
//! safe-types = ["TenantRef"]         # types `#[instrument]` may record
//! exclude = ["vendor/**"]            # globs, relative to the scan root; counted in the summary
//! scan-tests = false                 # lint test code (#[cfg(test)], #[test], test targets)
//! test-attributes = ["my_case"]      # more attributes that mark a test function
//! allow-no-statements = false        # a scan that checks no logging statement is not an error
//! max-file-size = 67108864           # bytes; a larger file is an error (exit 2)
//! max-file-findings = 10000          # more findings in one file is an error (exit 2)
//!
//! [wrappers]                         # a macro of yours, and the macro it forwards to
//! admin_error = "tracing::error"
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use phi_filter::config::{self as policy, FileError};
use phi_filter::names::NamePolicy;
use serde::Deserialize;
use toml::Spanned;

use crate::grammar::Sink;

/// The default of `max-file-size`: 64 MiB. Files over 256 KiB are parsed a run of whole items at
/// a time, so memory follows the largest item, not the file.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 << 20;

/// The default of `max-file-findings`. The most in one file of the two real services measured
/// is 39; a file past this is generated or hostile, and a finding costs a few hundred bytes
/// whatever the bytes of source that made it (one every 5 in a format string of captures).
pub const DEFAULT_MAX_FILE_FINDINGS: usize = 10_000;

/// The most `exclude` globs a configuration may hold (see [`Config::parse`]).
pub const MAX_EXCLUDE: usize = 1_000;

/// The configuration in force for one scan.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// Exact names that are safe, even if they contain a deny stem.
    pub allow_names: Vec<String>,
    /// `*` patterns of names that are safe unless they contain a deny stem.
    pub allow_patterns: Vec<String>,
    /// Stems added to the built-in deny stems.
    pub deny_stems: Vec<String>,
    /// Functions whose result is safe to log (`fingerprint`, `crate::audit::hmac`).
    pub safe_functions: Vec<String>,
    /// Types that `#[instrument]` may record (their last path segment).
    pub safe_types: Vec<String>,
    /// Globs of paths, relative to the scan root, not to lint.
    pub exclude: Vec<Spanned<String>>,
    /// Whether to lint test code (`#[cfg(test)]`, `#[test]`, test attributes, and the files of
    /// integration tests, benches and examples).
    pub scan_tests: bool,
    /// Attributes that mark a test function, besides any whose last path segment ends in `test`
    /// (`#[tokio::test]`, `#[rstest]`): a last segment (`case`) or a full path (`my::case`).
    pub test_attributes: Vec<String>,
    /// Whether a scan that checks no logging statement is clean (else it fails, exit 2: a gate
    /// that checked nothing is usually pointed at the wrong directory).
    pub allow_no_statements: bool,
    /// The largest file phi-lint parses, in bytes [default: 64 MiB]. A larger file is an error.
    pub max_file_size: Option<u64>,
    /// The most findings one file may have [default: 10,000]. Past it the rest are not kept,
    /// and the file is an error: the first ones are reported, but a report that stops short
    /// cannot be baselined.
    pub max_file_findings: Option<Spanned<usize>>,
    /// Wrapper macros: a macro name mapped to the sink macro it forwards to.
    pub wrappers: BTreeMap<String, Spanned<String>>,
    /// Names or `*` patterns pseudonymized at run time (`[runtime] pseudonymize` in
    /// `phiguard.toml`): they pass, whatever their stems.
    #[serde(skip)]
    pub pseudonymized: Vec<String>,
}

/// Where a configuration came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// No configuration file: the defaults.
    Defaults,
    /// `phiguard.toml` (or a file of that name given with `--config`).
    Policy(PathBuf),
    /// `[workspace.metadata.phiguard]` or `[package.metadata.phiguard]` in a `Cargo.toml`.
    PolicyMetadata(PathBuf),
    /// `phi-lint.toml` (or another file given with `--config`).
    File(PathBuf),
    /// `[workspace.metadata.phi-lint]` or `[package.metadata.phi-lint]` in a `Cargo.toml`.
    CargoMetadata(PathBuf),
}

impl Source {
    /// A one-line notice for a configuration in the older phi-lint-only format.
    ///
    /// ```
    /// use phi_lint::config::Source;
    /// assert!(Source::File("phi-lint.toml".into()).notice().is_some());
    /// assert!(Source::Policy("phiguard.toml".into()).notice().is_none());
    /// ```
    #[must_use]
    pub fn notice(&self) -> Option<String> {
        match self {
            Source::File(p) => Some(format!(
                "{} is phi-lint's own format; move it to phiguard.toml ([names] and [lint]), which phi-filter reads too",
                p.display()
            )),
            Source::CargoMetadata(p) => Some(format!(
                "{} uses [workspace.metadata.phi-lint]; move it to [workspace.metadata.phiguard] ([names] and [lint]), which phi-filter reads too",
                p.display()
            )),
            Source::Defaults | Source::Policy(_) | Source::PolicyMetadata(_) => None,
        }
    }
}

/// A `phiguard.toml`, as phi-lint reads it: phi-filter's `[names]` and `[runtime]`, and `[lint]`
/// as a [`Config`].
type PolicyFile = policy::PolicyFile<Config>;

/// The lint's configuration: `[lint]` with the shared names and the pseudonymized ones.
fn into_config(file: PolicyFile) -> Config {
    let mut c = file.lint.unwrap_or_default();
    c.allow_names.extend(file.names.allow);
    c.allow_patterns.extend(file.names.patterns);
    c.deny_stems.extend(file.names.deny_stems);
    c.pseudonymized = file.runtime.pseudonymize;
    c
}

/// A configuration that cannot be used. Its message names the key, with line and column.
#[derive(Debug, thiserror::Error)]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line and column, when known.
    pub at: Option<(usize, usize)>,
    /// What is wrong, lower-case.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid config {}", self.path.display())?;
        if let Some((line, col)) = self.at {
            write!(f, ":{line}:{col}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl ConfigError {
    fn in_file(path: &Path, error: FileError) -> ConfigError {
        ConfigError {
            path: path.to_owned(),
            at: error.at,
            message: error.message,
        }
    }
}

/// phi-lint's keys in a `Cargo.toml`'s metadata: the policy file, and the older format.
#[derive(Deserialize)]
struct CargoMetadata {
    #[serde(rename = "phi-lint")]
    phi_lint: Option<Config>,
    phiguard: Option<PolicyFile>,
}

impl Config {
    /// Loads the configuration for a scan rooted at `root`: `explicit` if given (a file named
    /// `phiguard.toml` in that format, any other in phi-lint's own), else `root/phiguard.toml`,
    /// else `root/Cargo.toml`'s `phiguard` metadata, else the older `root/phi-lint.toml` or
    /// `phi-lint` metadata, else the defaults. Two of them at once are an error.
    pub fn load(root: &Path, explicit: Option<&Path>) -> Result<(Config, Source), ConfigError> {
        if let Some(path) = explicit {
            let text = read(path)?;
            if path
                .file_name()
                .is_some_and(|n| n == phi_filter::config::FILE_NAME)
            {
                return Ok((
                    Config::parse_policy(&text, path)?,
                    Source::Policy(path.to_owned()),
                ));
            }
            return Ok((Config::parse(&text, path)?, Source::File(path.to_owned())));
        }
        let policy = root.join(phi_filter::config::FILE_NAME);
        let file = root.join("phi-lint.toml");
        let manifest = root.join("Cargo.toml");
        let (in_cargo, old_in_cargo) = if manifest.is_file() {
            let text = read(&manifest)?;
            let parsed = policy::cargo_metadata::<CargoMetadata>(&text)
                .map_err(|e| ConfigError::in_file(&manifest, e))?;
            let (w, p) = (parsed.workspace, parsed.package);
            let (w_new, w_old) = w.map_or((None, None), |m| (m.phiguard, m.phi_lint));
            let (p_new, p_old) = p.map_or((None, None), |m| (m.phiguard, m.phi_lint));
            (w_new.or(p_new), w_old.or(p_old))
        } else {
            (None, None)
        };
        let found = [
            policy.is_file().then_some("phiguard.toml"),
            in_cargo
                .is_some()
                .then_some("[workspace.metadata.phiguard] in Cargo.toml"),
            file.is_file().then_some("phi-lint.toml"),
            old_in_cargo
                .is_some()
                .then_some("[workspace.metadata.phi-lint] in Cargo.toml"),
        ];
        let found: Vec<&str> = found.into_iter().flatten().collect();
        if let [first, second, ..] = found.as_slice() {
            let (path, message) = if file.is_file() && !policy.is_file() && in_cargo.is_none() {
                // The message existing users know, for the older pair.
                (
                    file.clone(),
                    "configuration found both here and in Cargo.toml metadata; keep one".to_owned(),
                )
            } else {
                (
                    root.to_owned(),
                    format!(
                        "configuration found in {first} and in {second}; keep one (phiguard.toml)"
                    ),
                )
            };
            return Err(ConfigError {
                path,
                at: None,
                message,
            });
        }
        if policy.is_file() {
            let text = read(&policy)?;
            return Ok((
                Config::parse_policy(&text, &policy)?,
                Source::Policy(policy),
            ));
        }
        if let Some(parsed) = in_cargo {
            let config = into_config(parsed);
            config.validate(&manifest, &read(&manifest)?)?;
            return Ok((config, Source::PolicyMetadata(manifest)));
        }
        if file.is_file() {
            let text = read(&file)?;
            return Ok((Config::parse(&text, &file)?, Source::File(file)));
        }
        match old_in_cargo {
            Some(config) => {
                config.validate(&manifest, &read(&manifest)?)?;
                Ok((config, Source::CargoMetadata(manifest)))
            }
            None => Ok((Config::default(), Source::Defaults)),
        }
    }

    /// Parses and validates a `phiguard.toml` document; `path` is only used in errors.
    ///
    /// ```
    /// let text = "[names]\nallow = [\"listen_addr\"]\n[lint]\nscan-tests = true\n[runtime]\npseudonymize = [\"mrn\"]\n";
    /// let c = phi_lint::Config::parse_policy(text, "phiguard.toml".as_ref())?;
    /// assert!(c.scan_tests);
    /// assert!(c.name_policy().pseudonymizes("mrn"));
    /// assert!(c.name_policy().classify("listen_addr").is_allowed());
    /// # Ok::<(), phi_lint::ConfigError>(())
    /// ```
    pub fn parse_policy(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let parsed: PolicyFile =
            policy::from_str(text).map_err(|e| ConfigError::in_file(path, e))?;
        let config = into_config(parsed);
        config.validate(path, text)?;
        Ok(config)
    }

    /// Parses and validates a `phi-lint.toml` document; `path` is only used in errors.
    ///
    /// `exclude` holds at most [`MAX_EXCLUDE`] globs: 100,000 took 1.5 GB and 13 s to compile
    /// into one matcher, 1,000 take 23 MB and 0.2 s.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let config: Config = policy::from_str(text).map_err(|e| ConfigError::in_file(path, e))?;
        config.validate(path, text)?;
        Ok(config)
    }

    fn validate(&self, path: &Path, text: &str) -> Result<(), ConfigError> {
        for (name, target) in &self.wrappers {
            if crate::grammar::sink_for(target.get_ref(), None).is_none() {
                return Err(ConfigError {
                    path: path.to_owned(),
                    at: Some(policy::line_col(text, target.span().start)),
                    message: format!(
                        "wrappers.{name}: `{}` is not a logging or print macro phi-lint knows (e.g. `tracing::error`, `log::info`, `println`)",
                        target.get_ref()
                    ),
                });
            }
        }
        if let Some(over) = self.exclude.get(MAX_EXCLUDE) {
            return Err(ConfigError {
                path: path.to_owned(),
                at: Some(policy::line_col(text, over.span().start)),
                message: format!(
                    "exclude: {} globs, more than {MAX_EXCLUDE}: the set of globs is compiled \
                     into one matcher, whose cost grows with each; use broader globs (`gen/**`)",
                    self.exclude.len()
                ),
            });
        }
        for glob in &self.exclude {
            if let Err(e) = globset::Glob::new(glob.get_ref()) {
                return Err(ConfigError {
                    path: path.to_owned(),
                    at: Some(policy::line_col(text, glob.span().start)),
                    message: format!("exclude: invalid glob `{}`: {}", glob.get_ref(), e.kind()),
                });
            }
        }
        if let Some(max) = &self.max_file_findings
            && *max.get_ref() == 0
        {
            return Err(ConfigError {
                path: path.to_owned(),
                at: Some(policy::line_col(text, max.span().start)),
                message: "max-file-findings: must be at least 1".to_owned(),
            });
        }
        Ok(())
    }

    /// The name policy: built-in classes and stems plus this configuration's extras.
    #[must_use]
    pub fn name_policy(&self) -> NamePolicy {
        let mut p = NamePolicy::default();
        for n in &self.allow_names {
            p = p.allow_name(n.as_str());
        }
        for n in &self.allow_patterns {
            p = p.allow_pattern(n.as_str());
        }
        for s in &self.deny_stems {
            p = p.deny_stem(s.as_str());
        }
        for n in &self.pseudonymized {
            p = p.pseudonymized(n.as_str());
        }
        p
    }

    /// The largest file phi-lint parses, in bytes.
    #[must_use]
    pub fn max_file_size(&self) -> u64 {
        self.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE)
    }

    /// The most findings one file may have.
    #[must_use]
    pub fn max_file_findings(&self) -> usize {
        self.max_file_findings
            .as_ref()
            .map_or(DEFAULT_MAX_FILE_FINDINGS, |m| *m.get_ref())
    }

    /// Whether an attribute path (`tokio::test`, `rstest`, `my::case`) marks a test function:
    /// its last segment is `test` or ends in `_test` (`idm_test`, `traced_test`), is one of the
    /// test frameworks' own (`rstest`, `proptest`, `quickcheck`, `test_case`), or is listed in
    /// `test-attributes`. Not any word that ends in "test" (a project's `#[attest]`), nor any
    /// that starts with `test_`: `#[test_fuzz::test_fuzz]` goes on the shipped function itself.
    #[must_use]
    pub fn is_test_attribute(&self, path: &str) -> bool {
        let last = path.rsplit("::").next().unwrap_or(path);
        let last = last.strip_prefix("r#").unwrap_or(last);
        last == "test"
            || last.ends_with("_test")
            || matches!(last, "rstest" | "proptest" | "quickcheck" | "test_case")
            || self.test_attributes.iter().any(|t| t == path || t == last)
    }

    /// The sink grammar a configured wrapper macro forwards to.
    pub(crate) fn wrapper(&self, name: &str) -> Option<Sink> {
        let target = self.wrappers.get(name)?;
        crate::grammar::sink_for(target.get_ref(), None)
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: path.to_owned(),
        at: None,
        message: format!("cannot read: {}", crate::walk::io_message(&e)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_key_line_and_column() {
        let text = "allow-names = [\"a\"]\n\nalow-patterns = [\"b\"]\n";
        let err = Config::parse(text, Path::new("phi-lint.toml")).unwrap_err();
        assert_eq!(err.at, Some((3, 1)));
        assert!(err.message.contains("alow-patterns"), "{}", err.message);
        assert!(
            err.to_string()
                .starts_with("invalid config phi-lint.toml:3:1: unknown field `alow-patterns`"),
            "{err}"
        );
    }

    #[test]
    fn exclude_holds_a_bounded_number_of_globs() {
        let globs = |n: usize| {
            let list: Vec<String> = (0..n).map(|i| format!("\"gen/f{i}/**\"")).collect();
            format!("exclude = [{}]\n", list.join(", "))
        };
        assert!(Config::parse(&globs(MAX_EXCLUDE), Path::new("phi-lint.toml")).is_ok());
        let err = Config::parse(&globs(MAX_EXCLUDE + 1), Path::new("phi-lint.toml")).unwrap_err();
        assert!(
            err.message
                .starts_with("exclude: 1001 globs, more than 1000"),
            "{}",
            err.message
        );
    }

    #[test]
    fn wrapper_target_must_be_a_sink() {
        let text = "[wrappers]\nadmin_error = \"tracing::error\"\nbad = \"vec\"\n";
        let err = Config::parse(text, Path::new("phi-lint.toml")).unwrap_err();
        assert_eq!(err.at, Some((3, 7)));
        assert!(err.message.starts_with("wrappers.bad:"), "{}", err.message);
    }

    #[test]
    fn policy_file_unknown_keys_name_line_and_column() {
        let p = Path::new("phiguard.toml");
        let err = Config::parse_policy("[names]\nallow = []\nalow = []\n", p).unwrap_err();
        assert_eq!(err.at, Some((3, 1)));
        let err = Config::parse_policy("[lint]\nsafe-functons = []\n", p).unwrap_err();
        assert_eq!(err.at, Some((2, 1)));
        let err = Config::parse_policy("[runtime]\npseudonymise = []\n", p).unwrap_err();
        assert_eq!(err.at, Some((2, 1)));
        let err = Config::parse_policy("[lint.wrappers]\nbad = \"vec\"\n", p).unwrap_err();
        assert_eq!(err.at, Some((2, 7)));
    }

    #[test]
    fn a_pseudonymized_field_name_passes_whatever_its_stems() {
        let text = "[runtime]\npseudonymize = [\"patient_*\", \"mrn\"]\n";
        let c = Config::parse_policy(text, Path::new("phiguard.toml")).unwrap();
        let names = c.name_policy();
        assert!(names.pseudonymizes("patient_name"));
        assert!(names.pseudonymizes("mrn"));
        assert!(!names.pseudonymizes("email"));
        assert!(!Config::default().name_policy().pseudonymizes("mrn"));
        // Only as a field: a value so named is still judged by its name when it is printed.
        assert!(!names.classify("patient_name").is_allowed());
    }

    #[test]
    fn wrong_type() {
        let err = Config::parse("scan-tests = \"yes\"\n", Path::new("x.toml")).unwrap_err();
        assert_eq!(err.at, Some((1, 14)));
    }
}
