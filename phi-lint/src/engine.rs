//! The lint itself: parse each file with syn, walk every item, expression and macro (and the
//! token streams of macros syn cannot see into), and check every value that reaches a log.

use std::path::Path;

use phi_filter::names::NamePolicy;
use proc_macro2::{LineColumn, Span, TokenStream};
use syn::spanned::Spanned;

use crate::classify::{Classifier, Why};
use crate::config::Config;
use crate::finding::{FileError, Finding, assign_fingerprints};
use crate::grammar::{Interp, Sink, Value, parse_sink, sink_for, tokens_text};
use crate::rules::Rule;
use crate::source::{SourceFile, pos};
use crate::suppress;
use crate::types::{Scope, TypeIndex, index_file};
use crate::walk::{Scan, io_message};

mod instrument;
mod locals;
mod tokens;
mod two_phase;
mod visit;

/// Stack size of the lint's worker threads.
const STACK_SIZE: usize = 64 << 20;

/// What linting a set of files found, before the baseline is applied.
#[derive(Debug, Clone, Default)]
pub struct LintResult {
    /// Files linted (including those that failed to parse).
    pub files: usize,
    /// Logging statements checked.
    pub statements: usize,
    /// Findings, sorted by file and position, fingerprinted, none baselined yet.
    pub findings: Vec<Finding>,
    /// Files that could not be read or parsed.
    pub errors: Vec<FileError>,
    /// Suppression comments that suppressed at least one finding.
    pub suppressions: usize,
    /// Findings they suppressed.
    pub suppressed: usize,
}

/// The result of linting one file's text.
#[derive(Debug, Clone, Default)]
pub struct FileLint {
    /// Findings, in source order, fingerprinted.
    pub findings: Vec<Finding>,
    /// Logging statements checked.
    pub statements: usize,
    /// Suppression comments that suppressed at least one finding.
    pub suppressions: usize,
    /// Findings they suppressed.
    pub suppressed: usize,
    /// Files (`a/tests.rs`) and directories (`a/tests/`) of modules declared
    /// `#[cfg(test)] mod tests;` in this file: test code, unless `scan-tests` is set.
    pub test_modules: Vec<String>,
}

/// Lints every file of a scan, in parallel on all cores; the output order is deterministic.
#[must_use]
pub fn lint(scan: &Scan) -> LintResult {
    let names = scan.config.name_policy();
    // Two phases on the same worker threads: each parses its share of the files and indexes
    // their items; the indexes merge; each then lints the files it parsed, with the merged type
    // index at hand. syn trees are not `Send`, so they stay on the thread that parsed them.
    let results = two_phase::run(
        &scan.files,
        STACK_SIZE,
        |(path, rel)| parse_path(path, rel),
        parse_text,
        |parsed, index, misses| lint_parsed(&scan.config, &names, parsed, index, misses),
    );
    let mut out = LintResult {
        files: scan.files.len(),
        errors: scan.walk_errors.clone(),
        ..LintResult::default()
    };
    let test_modules: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .flat_map(|f| f.test_modules.iter().cloned())
        .collect();
    let is_test_module = |file: &str| {
        test_modules
            .iter()
            .any(|m| file == m || (m.ends_with('/') && file.starts_with(m.as_str())))
    };
    for ((_, rel), r) in scan.files.iter().zip(results) {
        match r {
            Ok(f) if !scan.config.scan_tests && is_test_module(rel) => {
                out.statements += f.statements;
            }
            Ok(f) => {
                out.statements += f.statements;
                out.suppressions += f.suppressions;
                out.suppressed += f.suppressed;
                out.findings.extend(f.findings);
            }
            Err(e) => out.errors.push(e),
        }
    }
    out
}

/// A file parsed in the first phase: its text, its tree and where it is.
pub(crate) struct Parsed {
    rel: String,
    text: String,
    file: syn::File,
}

fn parse_path(path: &Path, rel: &str) -> Result<Parsed, FileError> {
    let bytes = std::fs::read(path).map_err(|e| FileError {
        file: rel.to_owned(),
        pos: None,
        message: format!("cannot read: {}", io_message(&e)),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| FileError {
        file: rel.to_owned(),
        pos: None,
        message: "not valid UTF-8".into(),
    })?;
    parse_text(rel, text)
}

fn parse_text(rel: &str, text: String) -> Result<Parsed, FileError> {
    let file = syn::parse_file(&text).map_err(|e| {
        let start = e.span().start();
        FileError {
            file: rel.to_owned(),
            pos: (start.line > 0).then(|| pos(start)),
            message: format!("cannot parse: {e}"),
        }
    })?;
    Ok(Parsed {
        rel: rel.to_owned(),
        text,
        file,
    })
}

/// Lints one file's text as if it were at `rel` under the scan root.
///
/// ```
/// let config = phi_lint::Config::default();
/// let out = phi_lint::lint_source(&config, "src/a.rs", "fn f(e: E) { log::error!(\"failed: {e}\"); }")?;
/// assert_eq!(out.findings[0].rule, phi_lint::Rule::ErrorMessage);
/// # Ok::<(), phi_lint::FileError>(())
/// ```
pub fn lint_source(config: &Config, rel: &str, text: &str) -> Result<FileLint, FileError> {
    let parsed = parse_text(rel, text.to_owned())?;
    let index = TypeIndex::merge([index_file(rel, &parsed.file)]);
    Ok(lint_parsed(
        config,
        &config.name_policy(),
        &parsed,
        &index,
        None,
    ))
}

/// Lints one parsed file; names the index was asked for and did not have go to `misses`.
fn lint_parsed(
    config: &Config,
    names: &NamePolicy,
    parsed: &Parsed,
    types: &TypeIndex,
    misses: Option<&std::cell::RefCell<Vec<String>>>,
) -> FileLint {
    let Parsed { rel, text, file } = parsed;
    let (rel, text) = (rel.as_str(), text.as_str());
    let source = SourceFile::new(text);
    let test_file = !config.scan_tests
        && rel
            .split('/')
            .rev()
            .skip(1)
            .any(|c| matches!(c, "tests" | "benches" | "examples"));
    let mut linter = Linter {
        config,
        classifier: Classifier {
            names,
            safe_functions: &config.safe_functions,
            types: types.view(rel, misses),
            safe_types: &config.safe_types,
            cache: std::cell::RefCell::default(),
        },
        source: &source,
        rel,
        context: Vec::new(),
        macro_rules: None,
        raw: Vec::new(),
        statements: 0,
        skipped: Vec::new(),
        modules: Vec::new(),
        test_modules: Vec::new(),
        scope: Scope::default(),
        self_ty: None,
        closures: Vec::new(),
        local_closures: Vec::new(),
        replaying: 0,
    };
    if !test_file {
        syn::visit::Visit::visit_file(&mut linter, file);
    }
    let Linter {
        mut raw,
        statements,
        skipped,
        test_modules,
        ..
    } = linter;
    // A closure judged again at its calls can report a finding twice at one place.
    raw.sort_by(|a, b| (a.start, a.rule, &a.field).cmp(&(b.start, b.rule, &b.field)));
    raw.dedup_by(|a, b| {
        (a.start, a.end, a.rule, &a.field, &a.message)
            == (b.start, b.end, b.rule, &b.field, &b.message)
    });
    let (mut findings, suppressions, suppressed) = apply_suppressions(text, rel, raw, &skipped);
    findings.sort_by(|a, b| (a.start, a.rule, &a.field).cmp(&(b.start, b.rule, &b.field)));
    assign_fingerprints(&mut findings);
    FileLint {
        findings,
        statements,
        suppressions,
        suppressed,
        test_modules,
    }
}

/// Walks one file's syntax tree and collects findings.
pub(crate) struct Linter<'a> {
    config: &'a Config,
    classifier: Classifier<'a>,
    source: &'a SourceFile<'a>,
    rel: &'a str,
    /// Enclosing items, outermost first: impl/trait names and function names.
    context: Vec<String>,
    /// The `macro_rules!` whose body is being scanned.
    macro_rules: Option<String>,
    raw: Vec<Finding>,
    statements: usize,
    /// Line ranges of test code that was not linted.
    skipped: Vec<(u32, u32)>,
    /// Inline modules enclosing the current item (`mod a { mod b { .. } }`).
    modules: Vec<String>,
    /// Out-of-line test modules this file declares (see [`FileLint::test_modules`]).
    test_modules: Vec<String>,
    /// The locals in scope, for the classifier.
    scope: Scope,
    /// The `Self` type of the enclosing `impl`.
    self_ty: Option<String>,
    /// Closures whose parameters are bound to a method receiver's elements.
    closures: Vec<locals::ClosureSource>,
    /// Closures bound to locals, judged again at their calls.
    local_closures: Vec<locals::LocalClosure>,
    /// How deep in such a replay the walk is.
    replaying: u8,
}

impl Linter<'_> {
    /// The enclosing function, as `Type::method` or `fn_name`.
    fn function(&self) -> String {
        if let Some(m) = &self.macro_rules {
            return format!("macro_rules! {m}");
        }
        self.context.join("::")
    }

    /// Checks one value a sink records.
    fn check_interp(&mut self, sink_path: &str, sink: Sink, interp: &Interp, stmt: (u32, u32)) {
        let (whole_start, whole_end, whole_tokens, verdict) = match &interp.value {
            Value::Expr(e) => {
                let verdict = if interp.err_capture {
                    Err((e.span(), Some(e), Why::Error))
                } else {
                    self.classifier
                        .check_value(e, &interp.field, &self.scope)
                        .map_err(|u| (u.span, u.at, u.why))
                };
                (e.span().start(), e.span().end(), tokens_text(e), verdict)
            }
            Value::Capture { name, start, end } => {
                let key = match self.classifier.classify_name(&interp.field) {
                    phi_filter::names::NameVerdict::Allowed(c) => Some(c),
                    _ => None,
                };
                let verdict = self
                    .classifier
                    .check_capture(name, key, &self.scope)
                    .map_err(|why| (Span::call_site(), None, why));
                (*start, *end, name.clone(), verdict)
            }
        };
        let Err((bad_span, bad_at, why)) = verdict else {
            return;
        };
        let (start, end) = match &interp.value {
            Value::Capture { .. } => (whole_start, whole_end),
            Value::Expr(_) => (bad_span.start(), bad_span.end()),
        };
        let culprit = match self.text(start, end) {
            Some(t) => t.to_owned(),
            None => bad_at.map_or_else(|| whole_tokens.clone(), tokens_text),
        };
        let rule = if why.is_error() {
            Rule::ErrorMessage
        } else if sink.is_print() {
            Rule::Print
        } else {
            Rule::Interpolation
        };
        let message = why.message(&culprit);
        let expr = self
            .text(whole_start, whole_end)
            .unwrap_or(&whole_tokens)
            .to_owned();
        self.push(
            rule,
            (start, end),
            sink_path,
            &interp.field,
            expr,
            whole_tokens,
            message,
            stmt,
        );
    }

    #[allow(clippy::too_many_arguments)] // one finding's fields, assembled in one place
    fn push(
        &mut self,
        rule: Rule,
        (start, end): (LineColumn, LineColumn),
        macro_path: &str,
        field: &str,
        expr: String,
        expr_tokens: String,
        message: String,
        statement_lines: (u32, u32),
    ) {
        let end = if end.line < start.line || (end.line == start.line && end.column <= start.column)
        {
            LineColumn {
                line: start.line,
                column: start.column + 1,
            }
        } else {
            end
        };
        self.raw.push(Finding {
            rule,
            file: self.rel.to_owned(),
            start: pos(start),
            end: pos(end),
            macro_path: macro_path.to_owned(),
            field: field.to_owned(),
            expr,
            expr_tokens,
            message,
            function: self.function(),
            statement_lines,
            fingerprint: String::new(),
            baselined: false,
        });
    }

    fn text(&self, start: LineColumn, end: LineColumn) -> Option<&str> {
        self.source.slice(start, end)
    }

    /// A sink call: parse its arguments and check each recorded value, then look for logging
    /// calls nested inside the arguments (closures, blocks).
    fn sink_call(
        &mut self,
        path: &str,
        sink: Sink,
        tokens: TokenStream,
        span: (LineColumn, LineColumn),
    ) {
        self.statements += 1;
        let stmt = (span.0.line as u32, span.1.line as u32);
        match parse_sink(sink, tokens) {
            Ok(parsed) => {
                for interp in &parsed.interps {
                    self.check_interp(path, sink, interp, stmt);
                }
                for interp in &parsed.interps {
                    if let Value::Expr(e) = &interp.value {
                        syn::visit::Visit::visit_expr(self, e);
                    }
                }
                for e in &parsed.others {
                    syn::visit::Visit::visit_expr(self, e);
                }
            }
            Err(e) => {
                let at = e.span();
                let (start, end) = if at.start().line == 0 {
                    span
                } else {
                    (at.start(), at.end())
                };
                let message = format!("cannot check the arguments of `{path}!`: {e}");
                let expr = self.text(span.0, span.1).unwrap_or(path).to_owned();
                self.push(
                    Rule::UnparsedMacro,
                    (start, end),
                    path,
                    "",
                    expr,
                    path.to_owned(),
                    message,
                    stmt,
                );
            }
        }
    }

    /// The sink grammar of a macro call, wrappers included. `write!`/`writeln!` are sinks when
    /// their destination is stdout or stderr (`io::stderr()`, `stdout.lock()`).
    fn sink_of(&self, path: &str, tokens: &TokenStream) -> Option<Sink> {
        let config = self.config;
        if let Some(sink) = sink_for(path, Some(&|name: &str| config.wrapper(name))) {
            return Some(sink);
        }
        let last = path.rsplit("::").next().unwrap_or(path);
        (matches!(last, "write" | "writeln") && writes_to_std_stream(tokens)).then_some(
            Sink::Format {
                skip: 1,
                printed: 0,
            },
        )
    }
}

/// Whether the first argument of a `write!` (its destination) names `stdout` or `stderr`.
fn writes_to_std_stream(tokens: &TokenStream) -> bool {
    fn mentions(ts: TokenStream) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(id) => id == "stdout" || id == "stderr",
            proc_macro2::TokenTree::Group(g) => mentions(g.stream()),
            proc_macro2::TokenTree::Punct(_) | proc_macro2::TokenTree::Literal(_) => false,
        })
    }
    let dest: TokenStream = tokens
        .clone()
        .into_iter()
        .take_while(|tt| !matches!(tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == ','))
        .collect();
    mentions(dest)
}

/// Applies inline suppressions; reports malformed and unused ones. Returns the findings left,
/// the number of suppressions used and the number of findings they suppressed.
fn apply_suppressions(
    text: &str,
    rel: &str,
    raw: Vec<Finding>,
    skipped: &[(u32, u32)],
) -> (Vec<Finding>, usize, usize) {
    if !text.contains("phi-lint:") {
        return (raw, 0, 0);
    }
    let sups = suppress::scan(text);
    let mut used = vec![false; sups.len()];
    let mut kept = Vec::with_capacity(raw.len());
    let mut suppressed = 0;
    for f in raw {
        match sups
            .iter()
            .position(|s| s.covers(f.rule, f.statement_lines))
        {
            Some(i) => {
                used[i] = true;
                suppressed += 1;
            }
            None => kept.push(f),
        }
    }
    for (s, used) in sups.iter().zip(&used) {
        if skipped.iter().any(|&(a, b)| (a..=b).contains(&s.line)) {
            continue;
        }
        let (rule, message) = match &s.problem {
            Some(p) => (Rule::SuppressionReason, p.clone()),
            None if !used => (
                Rule::UnusedSuppression,
                "this suppression does not cover any finding".to_owned(),
            ),
            None => continue,
        };
        let line_text = text.lines().nth(s.line as usize - 1).unwrap_or("");
        let comment: String = line_text.chars().skip(s.columns.0 as usize - 1).collect();
        kept.push(Finding {
            rule,
            file: rel.to_owned(),
            start: crate::Pos {
                line: s.line,
                column: s.columns.0,
            },
            end: crate::Pos {
                line: s.line,
                column: s.columns.1,
            },
            macro_path: "// phi-lint".into(),
            field: String::new(),
            expr: comment.trim().to_owned(),
            expr_tokens: comment.split_whitespace().collect::<Vec<_>>().join(" "),
            message,
            function: String::new(),
            statement_lines: (s.line, s.line),
            fingerprint: String::new(),
            baselined: false,
        });
    }
    (kept, used.iter().filter(|u| **u).count(), suppressed)
}
