//! A fixture per rule family. Each line that must produce a finding carries a `//~ rule` marker
//! (`rule@-1` for a finding on the line above, `scan-tests:rule` for one expected only with
//! `scan-tests = true`). The test asserts the findings equal the markers exactly, both ways, and
//! snapshots the full diagnostics.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use phi_lint::{Config, Finding, lint_source};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// `(line, rule code) -> count` from the `//~` markers.
fn expected(text: &str, scan_tests: bool) -> BTreeMap<(u32, String), usize> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let Some((_, marks)) = line.split_once("//~") else {
            continue;
        };
        for mark in marks.split_whitespace() {
            let (only_scan_tests, mark) = match mark.strip_prefix("scan-tests:") {
                Some(m) => (true, m),
                None => (false, mark),
            };
            if only_scan_tests && !scan_tests {
                continue;
            }
            let (rule, offset) = match mark.split_once('@') {
                Some((r, o)) => (r, o.parse::<i64>().expect("offset")),
                None => (mark, 0),
            };
            let line_no =
                u32::try_from(i64::try_from(i).expect("line") + 1 + offset).expect("line");
            *out.entry((line_no, format!("phi::{rule}"))).or_insert(0) += 1;
        }
    }
    out
}

fn actual(findings: &[Finding]) -> BTreeMap<(u32, String), usize> {
    let mut out = BTreeMap::new();
    for f in findings {
        *out.entry((f.start.line, f.rule.code().to_owned()))
            .or_insert(0) += 1;
    }
    out
}

fn render(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(
            out,
            "{}:{}-{}:{} {} [{}] `{}` in {}: {}",
            f.start.line,
            f.start.column,
            f.end.line,
            f.end.column,
            f.rule.code(),
            f.field,
            f.expr,
            if f.function.is_empty() {
                "-"
            } else {
                &f.function
            },
            f.message
        );
    }
    out
}

fn check(name: &str, config: &Config) -> String {
    let text = fixture(name);
    let out = lint_source(config, &format!("src/{name}"), &text).expect("fixture parses");
    let want = expected(&text, config.scan_tests);
    assert!(
        !want.is_empty(),
        "{name}: a fixture without markers proves nothing"
    );
    assert_eq!(
        actual(&out.findings),
        want,
        "{name}:\n{}",
        render(&out.findings)
    );
    render(&out.findings)
}

fn config(toml: &str) -> Config {
    Config::parse(toml, Path::new("phi-lint.toml")).expect("valid config")
}

/// One test per fixture that is linted with the default configuration, named for what it
/// covers, each with its own snapshot.
macro_rules! default_config_fixtures {
    ($($name:ident => $file:literal,)*) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(check($file, &Config::default()));
        }
    )*};
}

default_config_fixtures! {
    tracing_fields => "tracing_fields.rs",
    format_args => "format_args.rs",
    log_key_values => "log_kv.rs",
    errors => "errors.rs",
    instrument => "instrument.rs",
    print => "print.rs",
    errors_main_returns => "main_errors.rs",
    renamed_imports => "renamed_imports.rs",
    instrument_under_cfg_attr => "cfg_attr.rs",
    macro_rules_at_call_sites => "macro_calls.rs",
    writers_to_stdout_and_stderr => "writers.rs",
    test_code_is_skipped_by_default => "test_code.rs",
    unparsable_calls_fail_closed => "unparsed.rs",
    name_and_type_decide_together => "types.rs",
    locals_are_judged_by_their_origin => "origin.rs",
    grounded_vocabulary => "vocabulary.rs",
    errors_judged_by_their_fields => "error_types.rs",
    constants_composed => "composition.rs",
    static_text_and_capitalised_captures => "static_text.rs",
}

#[test]
fn allowed_classes_and_deny_stems() {
    let c = config("safe-functions = [\"fingerprint\", \"audit::hmac\"]\n");
    insta::assert_snapshot!(check("allowed_classes.rs", &c));
}

#[test]
fn a_configured_deny_stem_denies_a_type_whose_name_proves_a_class() {
    // `GlucoseCount(u32)` proves a count by its own name on the built-in stems; an operator who
    // denies `glucose` denies it under any value name, as under a field named `glucose_count`.
    let text = "pub struct GlucoseCount(u32);\n\
        fn f(g: GlucoseCount) { tracing::info!(x = ?g); }\n";
    let plain = lint_source(&Config::default(), "src/a.rs", text).expect("parses");
    assert!(plain.findings.is_empty(), "{:?}", plain.findings);
    let denied =
        lint_source(&config("deny-stems = [\"glucose\"]\n"), "src/a.rs", text).expect("parses");
    assert_eq!(denied.findings.len(), 1, "{:?}", denied.findings);
}

/// More closures bound to locals in one function than phi-lint keeps the trees of (1,024): a
/// call of one kept is followed into its body as usual; a call of one past the bound, passed a
/// leak, is a finding at the argument; passed a safe value, nothing.
#[test]
fn a_closure_past_the_kept_bound_passed_a_leak_is_a_finding_at_the_call() {
    let mut text = String::from(
        "pub struct Patient { pub name: String, pub id: u64 }\nfn many(p: &Patient) {\n",
    );
    for i in 0..5_000 {
        let _ = writeln!(
            text,
            "    let c{i} = |row_id| tracing::info!(row_id = %row_id);"
        );
    }
    text.push_str("    c1(&p.name);\n    c4999(&p.name);\n    c4998(p.id);\n}\n");
    let out = lint_source(&Config::default(), "src/a.rs", &text).expect("parses");
    let found: Vec<(u32, &str)> = out
        .findings
        .iter()
        .map(|f| (f.start.line, f.message.as_str()))
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    // `c1` is followed: its body's `row_id` is the finding.
    assert_eq!(found[0].0, 4, "{found:#?}");
    assert!(found[0].1.contains("`row_id` is bound to"), "{found:#?}");
    // `c4999` is not: its argument is.
    assert_eq!(found[1].0, 5004, "{found:#?}");
    assert!(
        found[1]
            .1
            .contains("passed to `c4999`, a closure phi-lint does not follow into"),
        "{found:#?}"
    );
}

/// Each finding's rule and message.
fn rules_and_messages(findings: &[Finding]) -> Vec<(phi_lint::Rule, &str)> {
    findings
        .iter()
        .map(|f| (f.rule, f.message.as_str()))
        .collect()
}

/// A format string is one token, so the token bound does not see inside it: its placeholders
/// are bounded by themselves (65,536). One more is a finding at the literal, and nothing in it
/// is judged; a `format!` that long inside a field is not judged either, so it leaks.
#[test]
fn a_format_string_of_too_many_placeholders_is_a_finding_at_the_literal() {
    const BOUND: usize = 65_536;
    let captures = |n: usize| {
        (0..n).fold(String::new(), |mut s, i| {
            let _ = write!(s, "{{a{i}}} ");
            s
        })
    };
    // Every capture is a finding, so the file's bound on findings is raised past them.
    let c = config("max-file-findings = 100000\n");
    let at_bound = format!("fn f() {{ tracing::info!(\"{}\"); }}\n", captures(BOUND));
    let out = lint_source(&c, "src/a.rs", &at_bound).expect("parses");
    assert_eq!(out.findings.len(), BOUND);
    assert!(!out.truncated);
    assert!(
        out.findings
            .iter()
            .all(|f| f.rule == phi_lint::Rule::Interpolation)
    );

    let over = format!(
        "fn f() {{ tracing::info!(\"{}\"); }}\n",
        captures(BOUND + 1)
    );
    let out = lint_source(&c, "src/a.rs", &over).expect("parses");
    assert_eq!(
        rules_and_messages(&out.findings),
        [(
            phi_lint::Rule::UnparsedMacro,
            "cannot check the arguments of `tracing::info!`: a format string of more than 65536 \
             placeholders is too large to check: split it"
        )]
    );

    let nested = format!(
        "fn f() {{ tracing::info!(user_id = %format!(\"{}\")); }}\n",
        captures(BOUND + 1)
    );
    let out = lint_source(&c, "src/a.rs", &nested).expect("parses");
    assert_eq!(out.findings.len(), 1, "{:?}", out.findings);
    assert_eq!(out.findings[0].rule, phi_lint::Rule::Interpolation);

    // A macro of the same name that takes other input is not a format call.
    let own = "macro_rules! format { ($a:literal => $b:ident) => { concat!($a, stringify!($b)) }; }\n\
        fn f() { log::info!(target: &format!(\"db\" => users), \"x\"); }\n";
    let out = lint_source(&c, "src/a.rs", own).expect("parses");
    assert!(out.findings.is_empty(), "{:?}", out.findings);

    // A `format!` as `log!`'s level or target is judged as the message is: over the bound, a
    // finding at its literal.
    for (call, rest) in [
        ("log::log!(", "\"x\""),
        ("log::log!(target: ", "log::Level::Info, \"x\""),
    ] {
        let text = format!(
            "fn f(name: &str) {{ {call}&format!(\"{{name}}{}\"), {rest}); }}\n",
            captures(BOUND)
        );
        let out = lint_source(&c, "src/a.rs", &text).expect("parses");
        assert_eq!(
            rules_and_messages(&out.findings),
            [(
                phi_lint::Rule::UnparsedMacro,
                "cannot check the arguments of `format!`: a format string of more than 65536 \
                 placeholders is too large to check: split it"
            )],
            "{call}"
        );
    }
}

/// Past `max-file-findings` a file's findings are not kept: the first ones are, and the file is
/// marked, for the scan to report as an error. A suppression of a finding that was not kept is
/// not reported unused.
#[test]
fn findings_past_max_file_findings_are_not_kept() {
    let text = "pub struct Patient { pub name: String }\n\
        fn f(p: &Patient) {\n\
            tracing::info!(a = %p.name);\n\
            tracing::info!(b = %p.name);\n\
            tracing::info!(c = %p.name);\n\
            tracing::info!(d = %p.name);\n\
            // phi-lint: allow(reason = \"synthetic\")\n\
            tracing::info!(e = %p.name);\n\
        }\n";
    let all = lint_source(&Config::default(), "src/a.rs", text).expect("parses");
    assert_eq!(all.findings.len(), 4, "{:?}", all.findings);
    assert_eq!(all.suppressed, 1);
    assert!(!all.truncated);

    let out = lint_source(&config("max-file-findings = 3\n"), "src/a.rs", text).expect("parses");
    let fields: Vec<&str> = out.findings.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(fields, ["a", "b", "c"]);
    assert!(out.truncated);

    let exact = lint_source(&config("max-file-findings = 5\n"), "src/a.rs", text).expect("parses");
    assert_eq!(exact.findings.len(), 4);
    assert!(!exact.truncated);

    // A closure judged again at each call makes the same finding each time: it counts once.
    let calls = "pub struct Patient { pub name: String }\n\
        fn f(p: &Patient) {\n\
            let log = |x: &str| tracing::info!(v = %x);\n\
            log(&p.name);\n\
            log(&p.name);\n\
            log(&p.name);\n\
            log(&p.name);\n\
            log(&p.name);\n\
        }\n";
    let all = lint_source(&Config::default(), "src/a.rs", calls).expect("parses");
    let out = lint_source(&config("max-file-findings = 2\n"), "src/a.rs", calls).expect("parses");
    assert!(!out.truncated, "{:?}", out.findings);
    assert_eq!(out.findings, all.findings);

    // Suppressions that suppress nothing are findings too, and count.
    let unused = "fn f() {\n\
            // phi-lint: allow(reason = \"a\")\n\
            // phi-lint: allow(reason = \"b\")\n\
            // phi-lint: allow(reason = \"c\")\n\
            tracing::info!(step = 1);\n\
        }\n";
    let out = lint_source(&config("max-file-findings = 2\n"), "src/a.rs", unused).expect("parses");
    let found: Vec<(phi_lint::Rule, u32)> = out
        .findings
        .iter()
        .map(|f| (f.rule, f.start.line))
        .collect();
    assert_eq!(
        found,
        [
            (phi_lint::Rule::UnusedSuppression, 2),
            (phi_lint::Rule::UnusedSuppression, 3)
        ]
    );
    assert!(out.truncated);
}

/// Each call of a closure passed a leak walks its body again. Past 4 MiB of bodies replayed in a
/// chunk, a call is not followed: a leak it is passed is a finding at the call (the gate fails
/// closed), and a large closure called on every line costs no more than that.
#[test]
fn calls_past_the_replay_bound_are_findings_at_the_argument() {
    // A closure of about 160 KB, called 60 times with a leak and once with a safe value.
    let mut text = String::from(
        "pub struct Patient { pub name: String, pub id: u64 }\nfn many(p: &Patient) {\n    let log = |x: &str| {\n",
    );
    for i in 0..4_000 {
        let _ = writeln!(text, "        let step_{i} = x.len() + {i};");
    }
    text.push_str("        tracing::info!(v = %x);\n    };\n");
    for _ in 0..60 {
        text.push_str("    log(&p.name);\n");
    }
    text.push_str("    log(\"fixed\");\n}\n");
    let out = lint_source(&Config::default(), "src/a.rs", &text).expect("parses");
    let found: Vec<(u32, &str)> = out
        .findings
        .iter()
        .map(|f| (f.start.line, f.message.as_str()))
        .collect();
    // The body's findings: as it is written, and from the calls that were followed.
    assert!(
        found[0].1.contains("`x` is bound to `name`"),
        "{:?}",
        found[0]
    );
    let unfollowed: Vec<u32> = found
        .iter()
        .filter(|(_, m)| m.contains("a closure phi-lint does not follow into (replaying its"))
        .map(|&(line, _)| line)
        .collect();
    // About 4 MiB / 160 KB calls are followed; each later one is a finding at its line.
    assert!(
        (20..=40).contains(&unfollowed.len()),
        "{}",
        unfollowed.len()
    );
    assert_eq!(found.len(), unfollowed.len() + 2, "{found:?}");
    assert_eq!(unfollowed.last(), Some(&(4_005 + 60)));
}

#[test]
fn without_safe_functions_they_are_findings() {
    let text = fixture("allowed_classes.rs");
    let out = lint_source(&Config::default(), "src/a.rs", &text).expect("parses");
    let with = lint_source(
        &config("safe-functions = [\"fingerprint\", \"audit::hmac\"]\n"),
        "src/a.rs",
        &text,
    )
    .expect("parses");
    assert_eq!(out.findings.len(), with.findings.len() + 2);
}

#[test]
fn nested_and_wrappers() {
    let c = config("[wrappers]\nadmin_error = \"tracing::error\"\n");
    insta::assert_snapshot!(check("nested.rs", &c));
}

#[test]
fn macro_rules_from_another_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules/cross_file");
    std::fs::create_dir(dir.path().join("src")).expect("mkdir");
    let mut want = BTreeMap::new();
    for name in ["lib.rs", "macros.rs", "user.rs", "other.rs", "ids.rs"] {
        let text = fixture(&format!("cross_file/{name}"));
        std::fs::write(dir.path().join("src").join(name), &text).expect("write");
        for ((line, rule), n) in expected(&text, false) {
            want.insert((format!("src/{name}"), line, rule), n);
        }
    }
    assert!(fixtures.is_dir() && !want.is_empty());
    let scan = phi_lint::Scan::new(&[dir.path().to_path_buf()], None).expect("scan");
    let out = phi_lint::lint(&scan);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let mut got = BTreeMap::new();
    for f in &out.findings {
        *got.entry((f.file.to_string(), f.start.line, f.rule.code().to_owned()))
            .or_insert(0) += 1;
    }
    assert_eq!(got, want, "{}", render(&out.findings));
    insta::assert_snapshot!(render(&out.findings));
}

#[test]
fn suppressions() {
    let text = fixture("suppressions.rs");
    let out = lint_source(&Config::default(), "src/s.rs", &text).expect("parses");
    assert_eq!((out.suppressions, out.suppressed), (8, 11));
    insta::assert_snapshot!(check("suppressions.rs", &Config::default()));
}

#[test]
fn test_code_is_scanned_on_request() {
    insta::assert_snapshot!(check("test_code.rs", &config("scan-tests = true\n")));
}

#[test]
fn a_file_that_does_not_parse_is_an_error() {
    let err = lint_source(&Config::default(), "src/bad.rs", "fn f( {").unwrap_err();
    assert_eq!(err.file, "src/bad.rs");
    assert!(err.message.starts_with("cannot parse"), "{}", err.message);
    assert!(err.pos.is_some());
}

#[test]
fn name_classifier_is_phi_filters() {
    // One source of truth: the lint's verdict on a bare name is phi-filter's.
    let policy = phi_filter::names::NamePolicy::default();
    for name in [
        "user_id",
        "member_id",
        "elapsed_ms",
        "glucose",
        "status",
        "blood_type",
        "error_kind",
        "note",
    ] {
        let src = format!("fn f() {{ tracing::info!(x = {name}); }}");
        let out = lint_source(&Config::default(), "src/a.rs", &src).expect("parses");
        assert_eq!(
            out.findings.is_empty(),
            policy.classify(name).is_allowed(),
            "{name}"
        );
    }
}

#[test]
fn safe_types_are_safe_under_any_name() {
    let src = "pub struct Handle(String);\n\
               fn f(h: Handle, id: Handle) { tracing::info!(x = ?h, id = ?id); }";
    let out = lint_source(&Config::default(), "src/a.rs", src).expect("parses");
    assert_eq!(out.findings.len(), 2, "{}", render(&out.findings));
    let out = lint_source(&config("safe-types = [\"Handle\"]\n"), "src/a.rs", src).expect("parses");
    assert!(out.findings.is_empty(), "{}", render(&out.findings));
}

#[test]
fn a_renamed_key_value_is_followed_in_every_chunk_of_a_large_file() {
    // The rename is in the first chunk; the call, in a body no word of a sink is in, is in the
    // last one of a file cut into chunks.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::from(
        "use opentelemetry::KeyValue as Kv;\npub struct Patient { pub email: String }\n",
    );
    for i in 0..5000 {
        let _ = writeln!(
            text,
            "pub fn filler{i}(a: u32) -> u32 {{ a.wrapping_mul({i}) ^ 0x55 }}"
        );
    }
    text.push_str(
        "pub fn leak(p: &Patient) -> Kv { Kv::new(\"enduser.email\", p.email.clone()) }\n",
    );
    assert!(text.len() > 300_000);
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), &text).expect("write");
    let scan = phi_lint::Scan::new(&[dir.path().to_path_buf()], None).expect("scan");
    let result = phi_lint::lint(&scan);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let found: Vec<&str> = result.findings.iter().map(|f| &*f.expr).collect();
    assert_eq!(found, ["p.email.clone()"], "{}", render(&result.findings));
}

#[test]
fn types_resolve_across_files_and_crates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "crates/dom/src/lib.rs",
        "pub struct UserId(String);\npub struct User { pub user_id: UserId, pub uuid: Uuid }\n",
    );
    // A second `User` elsewhere: the renamed import still resolves to the crate it names.
    write(
        "tools/migrate/src/main.rs",
        "pub struct User { pub user_id: u64 }\nfn main() {}\n",
    );
    write(
        "crates/api/src/view.rs",
        "use dom::User as DomainUser;\npub struct View { user: DomainUser }\n",
    );
    write(
        "crates/api/src/lib.rs",
        "mod view;\nimpl View {\n    fn f(&self) {\n        \
         tracing::info!(user_id = ?self.user.user_id, uuid = ?self.user.uuid);\n    }\n}\n",
    );
    // Two crates define `Thing` differently: ambiguous, so unknown, so the name decides.
    write(
        "crates/a/src/lib.rs",
        "pub struct Thing { pub id: String }\n",
    );
    write("crates/b/src/lib.rs", "pub struct Thing { pub id: Uuid }\n");
    write(
        "crates/c/src/lib.rs",
        "fn g(t: &Thing) { tracing::info!(id = %t.id); }\n",
    );
    // A trait in another file of the crate judges calls on a `dyn` of it.
    write(
        "crates/api/src/session.rs",
        "pub trait Session { fn login_id(&self) -> String; fn request_id(&self) -> Uuid; }\n",
    );
    write(
        "crates/api/src/handler.rs",
        "fn h(s: &dyn Session) {\n    tracing::info!(request_id = %s.request_id());\n    \
         tracing::info!(login_id = %s.login_id());\n}\n",
    );
    let scan = phi_lint::Scan::new(&[dir.path().to_path_buf()], None).expect("scan");
    let result = phi_lint::lint(&scan);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let found: Vec<(String, u32, String)> = result
        .findings
        .iter()
        .map(|f| (f.file.to_string(), f.start.line, f.expr.to_string()))
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "crates/api/src/handler.rs".to_owned(),
                3,
                "s.login_id()".to_owned()
            ),
            (
                "crates/api/src/lib.rs".to_owned(),
                4,
                "self.user.user_id".to_owned()
            )
        ],
        "{}",
        render(&result.findings)
    );
}
