//! The gate sees what the compiler sees: files reached from a crate's targets are linted
//! whatever the ignore files, hidden directories or symlinks say; test code is recognised by
//! `cfg(test)`, test attributes and test targets; everything that cannot be resolved fails
//! closed, by name.

use std::fmt::Write as _;
use std::os::unix::fs::symlink;
use std::process;

use serde_json::Value;

use super::{ONE_LEAK, SAFE, Tree};

const MANIFEST: &str = "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2024\"\n";

/// The files the JSON report has findings in, sorted.
fn files_with_findings(json: &Value) -> Vec<String> {
    let mut files: Vec<String> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["file"].as_str().expect("file").to_owned())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The JSON report's findings, as (file, line).
fn file_lines(json: &Value) -> Vec<(String, u64)> {
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["file"].as_str().expect("file").to_owned(),
                f["line"].as_u64().expect("line"),
            )
        })
        .collect()
}

/// The messages of the JSON report's errors, as `file: message`.
fn errors(json: &Value) -> Vec<String> {
    json["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| format!("{}: {}", e["file"].as_str().unwrap_or(""), e["message"]))
        .collect()
}

#[test]
fn every_walk_around_of_the_issue_is_linted() {
    let lib = r#"pub mod tests;
pub mod examples;
pub mod benches;
#[path = ".gen/leak.rs"]
mod leak;
mod ignored;
mod forced;
mod linked;
mod outer {
    #[path = "deep.rs"]
    mod inner;
}
include!("included.rs");
"#;
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", lib),
        // A production module in a directory named tests/ (examples/, benches/).
        ("src/tests/mod.rs", ONE_LEAK),
        ("src/examples.rs", "mod inner;\n"),
        ("src/examples/inner.rs", ONE_LEAK),
        ("src/benches/mod.rs", ONE_LEAK),
        // A module under a hidden directory, through #[path].
        ("src/.gen/leak.rs", ONE_LEAK),
        // A file listed in .ignore.
        ("src/ignored.rs", ONE_LEAK),
        (".ignore", "src/ignored.rs\n"),
        // A file .gitignore matches but git tracks.
        ("src/forced.rs", ONE_LEAK),
        (".gitignore", "/src/forced.rs\n/.hidden/\n"),
        // The target of a symlinked module, in a hidden, ignored directory.
        (".hidden/linked.rs", ONE_LEAK),
        // #[path] inside an inline module, and include!.
        ("src/outer/deep.rs", ONE_LEAK),
        ("src/included.rs", ONE_LEAK),
    ]);
    symlink("../.hidden/linked.rs", tree.root().join("src/linked.rs")).expect("symlink");
    tree.git(&["init", "-q"]);
    tree.git(&["add", "-A"]);
    tree.git(&["add", "-f", "src/forced.rs"]);
    tree.git(&["commit", "-q", "-m", "walk-arounds"]);

    let json = tree.json(&[], 1);
    assert_eq!(
        files_with_findings(&json),
        [
            "src/.gen/leak.rs",
            "src/benches/mod.rs",
            "src/examples/inner.rs",
            "src/forced.rs",
            "src/ignored.rs",
            "src/included.rs",
            "src/linked.rs",
            "src/outer/deep.rs",
            "src/tests/mod.rs",
        ],
        "{json:#}"
    );
    let summary = &json["summary"];
    assert_eq!(summary["reached"], 11, "{summary}");
    assert_eq!(summary["unreached"], 0, "{summary}");
    let run = tree.run(&["check"]);
    assert!(
        run.summary()
            .ends_with("; 11 reached by a crate, 0 unreached"),
        "{run}"
    );
}

#[test]
fn a_file_given_by_path_is_linted_even_under_tests() {
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", SAFE),
        ("tests/it.rs", ONE_LEAK),
    ]);
    // The integration test is test code...
    tree.run(&["check"]).assert_out(
        0,
        &["; 1 reached by a crate, 0 unreached, 1 test file not linted"],
    );
    // ... unless it is named.
    let json = tree.json(&["tests/it.rs"], 1);
    assert_eq!(files_with_findings(&json), ["tests/it.rs"]);
    assert_eq!(json["summary"]["given"], 1);
}

#[test]
fn test_code_is_cfg_test_and_test_targets_not_directory_names() {
    let lib =
        "#[cfg(test)]\nmod tests;\n#[cfg(all(test, unix))]\nmod unix_tests;\npub mod helpers;\n";
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", lib),
        ("src/tests.rs", ONE_LEAK),
        ("src/unix_tests.rs", ONE_LEAK),
        ("src/helpers.rs", "#![cfg(test)]\nmod more;\n"),
        ("src/helpers/more.rs", ONE_LEAK),
        ("tests/it/main.rs", "mod cases;\n"),
        ("tests/it/cases.rs", ONE_LEAK),
        ("benches/b.rs", ONE_LEAK),
        ("examples/e.rs", ONE_LEAK),
        ("src/bin/tool.rs", SAFE),
        ("build.rs", "fn main() {}\n"),
    ]);
    let json = tree.json(&["--allow-no-statements"], 0);
    let summary = &json["summary"];
    // lib.rs, the binary and the build script; the rest is test code (helpers.rs by its
    // `#![cfg(test)]`).
    assert_eq!(summary["reached"], 3, "{summary}");
    assert_eq!(summary["test_files"], 8, "{summary}");

    tree.write("phiguard.toml", "[lint]\nscan-tests = true\n");
    let json = tree.json(&[], 1);
    assert_eq!(
        files_with_findings(&json),
        [
            "benches/b.rs",
            "examples/e.rs",
            "src/helpers/more.rs",
            "src/tests.rs",
            "src/unix_tests.rs",
            "tests/it/cases.rs",
        ]
    );
}

#[test]
fn workspace_members_are_crates() {
    let tree = Tree::new(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
        ("crates/a/Cargo.toml", MANIFEST),
        ("crates/a/src/main.rs", "mod hidden;\nfn main() {}\n"),
        ("crates/a/src/hidden.rs", ONE_LEAK),
        ("crates/a/.ignore", "src/hidden.rs\n"),
    ]);
    let json = tree.json(&[], 1);
    assert_eq!(files_with_findings(&json), ["crates/a/src/hidden.rs"]);
    assert_eq!(json["summary"]["reached"], 2);
}

#[test]
fn unresolvable_modules_fail_closed_by_name() {
    let lib = "mod missing;\n#[path = \"../../outside.rs\"]\nmod outside;\n#[cfg(feature = \"x\")]\nmod gated;\ninclude!(\"../nowhere.rs\");\n\
               #[cfg(feature = \"gen\")]\ninclude!{\"gen/missing.rs\"}\n";
    let tree = Tree::new(&[("Cargo.toml", MANIFEST), ("src/lib.rs", lib)]);
    let json = tree.json(&["--allow-no-statements"], 2);
    assert_eq!(
        errors(&json),
        [
            "src/lib.rs: \"`mod missing` has no file: neither `src/missing.rs` nor `src/missing/mod.rs` exists\"",
            "src/lib.rs: \"#[path = \\\"../../outside.rs\\\"] of `mod outside` points outside the scan root\"",
            "src/lib.rs: \"include!(\\\"../nowhere.rs\\\") has no file: `nowhere.rs` does not exist\"",
        ],
        "a #[cfg]-gated module or include! need not exist: {json:#}"
    );
    assert_eq!(json["errors"][0]["line"], 1);
    let run = tree.run(&["check"]);
    run.assert_out(2, &["error: src/lib.rs:1:1: `mod missing` has no file"]);
}

/// A file only test code needs that is not there (a published crate ships without its tests:
/// jiff, regex and web-time in the cargo registry) is a test file not linted, not an error;
/// with `scan-tests`, it is an error as any other.
#[test]
fn a_missing_file_only_tests_need_is_a_test_file_unless_tests_are_linted() {
    let manifest = format!("{MANIFEST}\n[[test]]\nname = \"gone\"\npath = \"tests/gone.rs\"\n");
    let lib = "#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod fixtures { include!(\"../data/cases.rs\"); }\n\
               pub fn f(user: &User) { tracing::info!(user_id = %user.id); }\n";
    let tree = Tree::new(&[
        ("Cargo.toml", &manifest),
        ("src/lib.rs", lib),
        ("tests/it.rs", "mod support;\n"),
    ]);
    let json = tree.json(&[], 0);
    assert_eq!(errors(&json).len(), 0, "{json:#}");
    // tests/it.rs, tests/support.rs, tests/gone.rs and data/cases.rs (`src/tests.rs` is under
    // a `#[cfg]`, which need not have a file in any case).
    assert_eq!(json["summary"]["test_files"], 4, "{json:#}");
    tree.write("phiguard.toml", "[lint]\nscan-tests = true\n");
    let json = tree.json(&[], 2);
    assert_eq!(errors(&json).len(), 3, "{json:#}");
}

/// `#[cfg_attr(unix, path = "unix.rs")] mod os;` (crates such as rustix, socket2, tempfile and
/// memmap2 do this): every path a configuration may choose is linted, and the module needs a file
/// under one of them. Before, each such module was a false "has no file" error, and its files
/// were left unreached.
#[test]
fn cfg_attr_paths_are_each_linted() {
    let lib = "#[cfg_attr(unix, path = \"sys/unix.rs\")]\n\
               #[cfg_attr(windows, path = \"sys/windows.rs\")]\n\
               #[cfg_attr(target_os = \"wasi\", path = \"sys/wasi.rs\")]\n\
               mod sys;\n\
               #[cfg_attr(all(test, unix), path = \"fake_store.rs\")]\n\
               mod store;\n\
               #[cfg_attr(feature = \"x\", path = \"nowhere_a.rs\")]\n\
               #[cfg_attr(not(feature = \"x\"), path = \"nowhere_b.rs\")]\n\
               mod gone;\n";
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", lib),
        ("src/sys/unix.rs", ONE_LEAK),
        ("src/sys/windows.rs", ONE_LEAK),
        ("src/store.rs", ONE_LEAK),
        ("src/fake_store.rs", ONE_LEAK),
    ]);
    let json = tree.json(&[], 2);
    assert_eq!(
        errors(&json),
        [
            "src/lib.rs: \"`mod gone` has no file: neither `src/gone.rs` nor `src/gone/mod.rs` exists, \
          nor any #[cfg_attr] path (`src/nowhere_a.rs`, `src/nowhere_b.rs`)\""
        ],
        "{json:#}"
    );
    // The test-only path is test code; the others are production code, reached by the crate.
    assert_eq!(
        files_with_findings(&json),
        ["src/store.rs", "src/sys/unix.rs", "src/sys/windows.rs"],
        "{json:#}"
    );
    assert_eq!(json["summary"]["unreached"], 0, "{json:#}");
    assert_eq!(json["summary"]["test_files"], 1, "{json:#}");
}

/// Symlinked directories give one file many paths (`src/x/y/x/lib.rs` where `x` and `y` link
/// to `.`): each file is resolved once, whatever the path it is reached by. Two such links made
/// 2^40 paths, and the resolver ran until it ran out of memory.
#[test]
fn a_file_reached_through_symlinked_directories_is_resolved_once() {
    let tree = Tree::new(&[
        (
            "Cargo.toml",
            &format!("[workspace]\nmembers = [\"a\", \"b\"]\n\n{MANIFEST}"),
        ),
        (
            "src/lib.rs",
            "#[path = \"x/lib.rs\"] mod a;\n#[path = \"y/lib.rs\"] mod b;\n\
             pub fn f(p: &P) { tracing::info!(\"{}\", p.name); }\n",
        ),
    ]);
    for link in ["src/x", "src/y", "a", "b"] {
        symlink(".", tree.root().join(link)).expect("symlink");
    }
    let json = tree.json(&[], 1);
    assert_eq!(
        file_lines(&json),
        [("src/lib.rs".to_owned(), 3)],
        "{json:#}"
    );
    assert_eq!(json["summary"]["files"], 1, "{json:#}");
}

#[test]
fn fifos_dangling_symlinks_and_directories_fail_closed() {
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", "mod pipe;\nmod gone;\nmod dir;\n"),
        ("src/dir.rs/keep", ""),
        ("loose.rs", SAFE),
    ]);
    let status = process::Command::new("mkfifo")
        .arg(tree.root().join("src/pipe.rs"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    symlink("nowhere.rs", tree.root().join("src/gone.rs")).expect("symlink");
    symlink("nowhere.rs", tree.root().join("dangling.rs")).expect("symlink");
    let json = tree.json(&[], 2);
    assert_eq!(
        errors(&json),
        [
            "src/pipe.rs: \"not a regular file\"",
            "src/gone.rs: \"dangling symlink\"",
            "src/dir.rs: \"not a regular file\"",
            "dangling.rs: \"dangling symlink\"",
        ],
        "{json:#}"
    );
    // Given by path: the FIFO is never opened, so the check does not hang.
    tree.run(&["check", "src/pipe.rs"]).assert_err(
        2,
        &["cannot scan `src/pipe.rs`: not a regular file or directory"],
    );
    tree.run(&["check", "dangling.rs"])
        .assert_err(2, &["cannot scan `dangling.rs`: dangling symlink"]);
}

/// A file whose name is not UTF-8 is an error that says so; it was reported as "no such file",
/// because the report's lossy name was the name it tried to read.
#[test]
fn a_file_name_that_is_not_utf8_is_named_as_such() {
    use std::os::unix::ffi::OsStrExt;
    let tree = Tree::new(&[("Cargo.toml", MANIFEST), ("src/lib.rs", SAFE)]);
    let name = std::ffi::OsStr::from_bytes(b"src/x\xff.rs");
    std::fs::write(
        tree.root().join(name),
        "pub fn f(p: &P) { tracing::info!(\"{}\", p.name); }\n",
    )
    .expect("write");
    let json = tree.json(&[], 2);
    let got = errors(&json);
    assert_eq!(got.len(), 1, "{json:#}");
    assert!(
        got[0].starts_with("src/x\u{fffd}.rs: \"the path is not valid UTF-8"),
        "{got:?}"
    );
}

#[test]
fn no_rust_file_is_an_error_not_clean() {
    let tree = Tree::new(&[("README.md", "no code here\n")]);
    let run = tree.run(&["check"]);
    run.assert_err(2, &["phi-lint: error: no Rust file found under ."]);
}

#[test]
fn a_check_of_no_statement_fails_unless_expected() {
    let tree = Tree::new(&[("Cargo.toml", MANIFEST), ("src/lib.rs", "pub fn f() {}\n")]);
    let run = tree.run(&["check"]);
    run.assert_out(
        2,
        &[
            "error: no logging statement was checked in 1 file",
            "allow-no-statements = true",
        ],
    );
    assert!(
        run.summary().contains(", 1 error; 1 file, 0 statements"),
        "{run}"
    );
    let gh = tree.run(&["check", "--format", "github"]);
    gh.assert_out(2, &["::error title=phi-lint%3A no statement checked::"]);
    // Expected: by flag, or by configuration.
    tree.run(&["check", "--allow-no-statements"])
        .assert_out(0, &["phi-lint: clean; 1 file, 0 statements"]);
    tree.write("phiguard.toml", "[lint]\nallow-no-statements = true\n");
    tree.run(&["check"]).assert_out(0, &["phi-lint: clean;"]);
}

#[test]
fn a_nesting_bomb_is_exit_2_naming_the_file() {
    let bomb = format!(
        "fn f() {{ let x = {}1{}; }}\n",
        "(".repeat(40_000),
        ")".repeat(40_000)
    );
    let chain = format!("fn g() {{ let y = x{}; }}\n", ".a".repeat(20_000));
    let tree = Tree::new(&[
        ("src/lib.rs", SAFE),
        ("src/bomb.rs", &bomb),
        ("src/chain.rs", &chain),
    ]);
    let run = tree.run(&["check"]);
    run.assert_out(
        2,
        &[
            "error: src/bomb.rs: brackets nest deeper than 256 levels (line 1)",
            "error: src/chain.rs: an expression chains more than 4096 operators or calls (line 1)",
        ],
    );
    // Just inside the bound, the file parses and is linted.
    let deep = format!(
        "fn f(user: &User) {{ tracing::info!(email = %{}user.email{}); }}\n",
        "(".repeat(250),
        ")".repeat(250)
    );
    let tree = Tree::new(&[("src/lib.rs", &deep)]);
    tree.run(&["check"]).assert_out(1, &["1 new finding"]);
}

#[test]
fn a_file_over_max_file_size_is_an_error() {
    let tree = Tree::new(&[
        ("src/lib.rs", ONE_LEAK),
        ("phiguard.toml", "[lint]\nmax-file-size = 10\n"),
    ]);
    tree.run(&["check"]).assert_out(
        2,
        &["error: src/lib.rs: 63 bytes, over max-file-size (10); raise max-file-size or exclude the file"],
    );
}

/// A file of more findings than `max-file-findings` (default 10,000) is an error (exit 2): its
/// first findings are reported, and the rest are not kept. Each file counts by itself, and a
/// file linted again with another file's types keeps the bound.
#[test]
fn a_file_over_max_file_findings_is_an_error_reporting_the_first() {
    let leaks = |n: usize| {
        let mut text = String::from("use crate::types::Patient;\npub fn f(p: &Patient) {\n");
        for i in 0..n {
            let _ = writeln!(text, "    tracing::info!(step = {i}, name = %p.name);");
        }
        text + "}\n"
    };
    let five = leaks(5);
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", "mod types;\nmod a;\nmod b;\n"),
        ("src/types.rs", "pub struct Patient { pub name: String }\n"),
        ("src/a.rs", &five),
        ("src/b.rs", &five),
        ("phiguard.toml", "[lint]\nmax-file-findings = 3\n"),
    ]);
    let json = tree.json(&[], 2);
    assert_eq!(
        errors(&json),
        [
            "src/a.rs: \"more than 3 findings (suppressed ones included), over max-file-findings; only 3 are reported; raise max-file-findings or exclude the file\"",
            "src/b.rs: \"more than 3 findings (suppressed ones included), over max-file-findings; only 3 are reported; raise max-file-findings or exclude the file\"",
        ]
    );
    let lines = file_lines(&json);
    let first = |file: &str| (3..6).map(|l| (file.to_owned(), l)).collect::<Vec<_>>();
    assert_eq!(lines, [first("src/a.rs"), first("src/b.rs")].concat());
    // The baseline is not written from a report that stops short.
    let run = tree.run(&["baseline", "--init"]);
    run.assert_code(2);
    assert!(run.stderr.contains("more than 3 findings"), "{run}");

    // A file linted again with another file's types takes over the first verdicts of its
    // functions that need none; a first lint that stopped short is not taken over.
    tree.write(
        "src/a.rs",
        &format!(
            "use crate::types::Patient;\npub fn typed(p: &Patient) {{ tracing::info!(n = %p.name); }}\n\
             pub fn own(name: &str) {{\n{}}}\n",
            "    tracing::info!(a = %name);\n    tracing::info!(b = %name);\n    \
             tracing::info!(c = %name);\n    tracing::info!(d = %name);\n"
        ),
    );
    let json = tree.json(&[], 2);
    assert_eq!(errors(&json).len(), 2, "{json}");
    tree.write("src/a.rs", &five);

    // At the bound, nothing is cut.
    tree.write("phiguard.toml", "[lint]\nmax-file-findings = 5\n");
    let json = tree.json(&[], 1);
    assert_eq!(json["summary"]["findings"], 10);
    assert_eq!(errors(&json), Vec::<String>::new());

    // The default bound.
    tree.write("phiguard.toml", "");
    tree.write("src/a.rs", &leaks(10_001));
    let json = tree.json(&[], 2);
    assert_eq!(json["summary"]["findings"], 10_000 + 5);
    assert_eq!(errors(&json).len(), 1);

    // Zero is a configuration error.
    tree.write("phiguard.toml", "[lint]\nmax-file-findings = 0\n");
    let run = tree.run(&["check"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("max-file-findings: must be at least 1"),
        "{run}"
    );
}

#[test]
fn excluded_files_are_counted() {
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        (
            "src/lib.rs",
            "mod gen;\npub fn f(user: &User) { tracing::info!(user_id = %user.id); }\n",
        ),
        ("src/gen.rs", ONE_LEAK),
        ("vendor/x.rs", ONE_LEAK),
        (
            "phiguard.toml",
            "[lint]\nexclude = [\"src/gen.rs\", \"vendor/**\"]\n",
        ),
    ]);
    let json = tree.json(&[], 0);
    assert_eq!(json["summary"]["excluded"], 2);
    assert_eq!(
        json["excluded"],
        serde_json::json!(["src/gen.rs", "vendor/x.rs"])
    );
    tree.run(&["check"])
        .assert_out(0, &["; 1 reached by a crate, 0 unreached, 2 excluded"]);
}

/// A file the build names but that is not there (a binary left out of an export, a module a
/// build step generates) is an error, unless `exclude` names it: then it is counted as excluded.
#[test]
fn a_missing_file_that_exclude_names_is_excluded_not_an_error() {
    let manifest = format!(
        "{MANIFEST}\n[[bin]]\nname = \"speed\"\n\n\
         [workspace]\nmembers = [\"tools/gone\"]\n"
    );
    let lib = "mod generated;\n#[path = \"out/schema.rs\"]\nmod schema;\ninclude!(\"parts/table.rs\");\n\
               pub fn f(user: &User) { tracing::info!(user_id = %user.id); }\n";
    let tree = Tree::new(&[("Cargo.toml", &manifest), ("src/lib.rs", lib)]);
    let json = tree.json(&[], 2);
    assert_eq!(
        errors(&json),
        [
            "Cargo.toml: \"workspace member `tools/gone` has no Cargo.toml\"",
            "Cargo.toml: \"bin target `src/bin/speed.rs` does not exist\"",
            "src/lib.rs: \"`mod generated` has no file: neither `src/generated.rs` nor `src/generated/mod.rs` exists\"",
            "src/lib.rs: \"`mod schema` has no file: #[path] names `src/out/schema.rs`\"",
            "src/lib.rs: \"include!(\\\"parts/table.rs\\\") has no file: `src/parts/table.rs` does not exist\"",
        ],
        "{json:#}"
    );
    tree.write(
        "phiguard.toml",
        "[lint]\nexclude = [\"src/bin/*\", \"tools/**\", \"src/generated/**\", \"src/out/*\", \"src/parts/*\"]\n",
    );
    let json = tree.json(&[], 0);
    assert_eq!(
        json["excluded"],
        serde_json::json!([
            "src/bin/speed.rs",
            "src/generated/mod.rs",
            "src/out/schema.rs",
            "src/parts/table.rs",
            "tools/gone/Cargo.toml",
        ]),
        "{json:#}"
    );
    tree.run(&["check"])
        .assert_out(0, &["; 1 reached by a crate, 0 unreached, 5 excluded"]);
}

#[test]
fn custom_test_attributes_are_test_code() {
    let source = r"#[tokio::test]
async fn a(user: User) { tracing::info!(email = %user.email); }
#[rstest]
fn b(user: User) { tracing::info!(email = %user.email); }
#[sqlx::test]
fn c(user: User) { tracing::info!(email = %user.email); }
#[idm_test]
fn d(user: User) { tracing::info!(email = %user.email); }
#[my_case]
fn e(user: User) { tracing::info!(email = %user.email); }
pub fn f(user: User) { tracing::info!(user_id = %user.id); }
";
    let tree = Tree::new(&[("src/lib.rs", source)]);
    let json = tree.json(&[], 1);
    let lines: Vec<&Value> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| &f["line"])
        .collect();
    assert_eq!(
        lines,
        [&Value::from(10)],
        "only #[my_case] is not known: {json:#}"
    );
    tree.write("phiguard.toml", "[lint]\ntest-attributes = [\"my_case\"]\n");
    tree.run(&["check"])
        .assert_out(0, &["phi-lint: clean; 1 file, 1 statement"]);
}

#[test]
fn cargo_instructions_of_a_build_script_are_not_logs() {
    let build = r#"fn main() {
    let path = std::path::Path::new("schema.sql");
    println!("cargo:rerun-if-changed={}", path.display());
    println!("cargo::rustc-cfg=has_schema");
    let user = User::load();
    println!("{}", user.email);
}
"#;
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", SAFE),
        ("build.rs", build),
    ]);
    let json = tree.json(&[], 1);
    assert_eq!(
        json["findings"].as_array().map(Vec::len),
        Some(1),
        "{json:#}"
    );
    assert_eq!(json["findings"][0]["file"], "build.rs");
    assert_eq!(json["findings"][0]["line"], 6);
    // The same cargo: lines outside a build script are prints like any other.
    let tree = Tree::new(&[("Cargo.toml", MANIFEST), ("src/lib.rs", build)]);
    let json = tree.json(&[], 1);
    assert_eq!(
        json["findings"].as_array().map(Vec::len),
        Some(2),
        "{json:#}"
    );
}

#[test]
fn crafted_file_names_cannot_forge_lines() {
    let name = "src/a\n::error file=x.rs,line=1::forged\u{1b}[2J.rs";
    let tree = Tree::new(&[(name, ONE_LEAK)]);
    let human = tree.run(&["check"]);
    human.assert_out(
        1,
        &["--> src/a\\n::error file=x.rs,line=1::forged\\u{1b}[2J.rs:1:49"],
    );
    assert!(!human.stdout.contains('\u{1b}'), "{human}");
    assert!(
        !human.stdout.lines().any(|l| l.starts_with("::")),
        "{human}"
    );
    let github = tree.run(&["check", "--format", "github"]);
    github.assert_code(1);
    let forged: Vec<&str> = github
        .stdout
        .lines()
        .filter(|l| l.starts_with("::") && !l.starts_with("::error file=src/a%0A%3A%3Aerror"))
        .filter(|l| !l.starts_with("::group::") && !l.starts_with("::endgroup::"))
        .collect();
    assert!(forged.is_empty(), "{github}");
    assert!(
        github.stdout.contains(
            "::error file=src/a%0A%3A%3Aerror file=x.rs%2Cline=1%3A%3Aforged\\u{1b}[2J.rs,line=1,"
        ),
        "{github}"
    );
    assert!(
        github
            .stdout
            .contains("\nsrc/a%0A%3A%3Aerror file=x.rs,line=1%3A%3Aforged\\u{1b}[2J.rs:1:49: "),
        "{github}"
    );
    // JSON keeps the name exactly, escaped by serde.
    let json = tree.json(&[], 1);
    assert_eq!(json["findings"][0]["file"], name);
    let sarif = tree.run(&["check", "--format", "sarif"]);
    let sarif: Value = serde_json::from_str(&sarif.stdout).expect("SARIF parses");
    assert!(
        sarif.to_string().contains("forged"),
        "the file is in the SARIF log"
    );
    // Error messages on stderr too.
    let run = tree.run(&["check", "gone\n::error::forged"]);
    run.assert_err(2, &["cannot scan `gone\\n::error::forged`"]);
    assert_eq!(run.stderr.lines().count(), 1, "{run}");
}

#[test]
fn a_source_line_shown_under_a_finding_holds_no_bidi_override_or_line_separator() {
    // "Trojan Source": an override in the line shown would reorder what the reader sees.
    let leak =
        "pub fn f(p: &P) { tracing::info!(\"\u{202e} \u{2066}x\u{2069} \u{2028}{}\", p.name); }\n";
    let tree = Tree::new(&[("src/a.rs", leak)]);
    let run = tree.run(&["check"]);
    run.assert_code(1);
    for c in ['\u{202e}', '\u{2066}', '\u{2069}', '\u{2028}'] {
        assert!(!run.stdout.contains(c), "{c:?} in {run}");
    }
    assert!(
        run.stdout
            .contains("(\"\u{fffd} \u{fffd}x\u{fffd} \u{fffd}{}\""),
        "{run}"
    );
}

#[test]
fn a_large_file_is_linted_in_chunks_with_exact_positions() {
    // About 420 kB: parsed in chunks of whole items, positions and suppressions as in one piece.
    let mut source = String::from("//! Generated.\n");
    let mut leaks = Vec::new();
    // The line the next item starts on.
    let mut line = 2;
    for i in 0..6_000 {
        let item = match i % 1500 {
            17 => {
                leaks.push(line + 1);
                format!(
                    "pub fn f{i}(user: &User) {{\n    tracing::info!(email = %user.email);\n}}\n"
                )
            }
            18 => format!(
                "pub fn f{i}(user: &User) {{\n    // phi-lint: allow(phi::interpolation, reason = \"synthetic\")\n    tracing::info!(email = %user.email);\n}}\n"
            ),
            _ => format!(
                "/// Item {i}.\npub fn f{i}(user: &User) {{ tracing::info!(user_id = %user.id); }}\n"
            ),
        };
        line += item.matches('\n').count();
        source.push_str(&item);
    }
    assert!(source.len() > 400_000, "{}", source.len());
    let tree = Tree::new(&[("src/lib.rs", &source)]);
    let json = tree.json(&[], 1);
    let lines: Vec<u64> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["line"].as_u64().expect("line"))
        .collect();
    let want: Vec<u64> = leaks.iter().map(|&l| l as u64).collect();
    assert_eq!(lines, want, "{:#}", json["summary"]);
    assert_eq!(json["findings"][0]["column"], 29);
    assert_eq!(json["summary"]["statements"], 6_000);
    assert_eq!(json["summary"]["suppressions"], 4);
}

/// A large file's chunks are parsed again one at a time when it is walked (their trees are not
/// kept); the type index still spans the whole file, and a syntax error in a late chunk still
/// fails the file.
#[test]
fn a_large_files_type_index_spans_its_chunks() {
    let mut source = String::from(
        "pub fn first(s: &AccountStatus, v: &Visit) {\n    \
         tracing::info!(status = ?s);\n    tracing::info!(state = ?v.state);\n}\n",
    );
    for i in 0..6_000 {
        let _ = writeln!(
            source,
            "/// Item {i}.\npub fn f{i}(n: u32) -> u32 {{ n.wrapping_add({i}) }}"
        );
    }
    source.push_str("pub struct AccountStatus {\n    pub name: String,\n}\n");
    source.push_str("pub struct Visit {\n    pub state: VisitState,\n}\n");
    source.push_str("pub enum VisitState {\n    Open,\n    Closed,\n}\n");
    assert!(source.len() > 400_000, "{}", source.len());
    let tree = Tree::new(&[("src/lib.rs", &source)]);
    let json = tree.json(&[], 1);
    let found: Vec<(u64, &str)> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().expect("line"),
                f["field"].as_str().expect("field"),
            )
        })
        .collect();
    // `AccountStatus`, defined some 400 kB later, refutes the status name; `VisitState`, a
    // fieldless enum under a state name, proves it.
    assert_eq!(found, [(2, "status")], "{:#}", json["summary"]);

    let broken = format!("{source}pub fn broken( {{\n");
    let tree = Tree::new(&[("src/lib.rs", &broken)]);
    tree.run(&["check", "."])
        .assert_out(2, &["error: src/lib.rs:12015:16: cannot parse"]);
}

/// A renamed import or a `macro_rules!` declared in one chunk of a large file is in scope in
/// the others: a file over 256 KiB must not hide a logging macro behind a rename far above it.
#[test]
fn a_large_files_renames_and_macros_reach_every_chunk() {
    let mut source = String::from(
        "use tracing::info as note;\n\
         macro_rules! shout {\n    ($v:expr) => {\n        tracing::info!(\"{}\", $v)\n    };\n}\n",
    );
    for i in 0..6_000 {
        let _ = writeln!(
            source,
            "/// Item {i}.\npub fn f{i}(n: u32) -> u32 {{ n.wrapping_add({i}) }}"
        );
    }
    source.push_str(
        "pub fn late(patient: &Patient) {\n    note!(\"{}\", patient.name);\n    \
         shout!(patient.name);\n}\n",
    );
    source.push_str(
        "macro_rules! whisper {\n    ($v:expr) => {\n        eprintln!(\"{}\", $v)\n    };\n}\n",
    );
    let mut early =
        String::from("pub fn early(patient: &Patient) {\n    whisper!(patient.name);\n}\n");
    early.push_str(&source);
    assert!(early.len() > 400_000, "{}", early.len());
    let tree = Tree::new(&[("src/lib.rs", &early)]);
    let json = tree.json(&[], 1);
    let found: Vec<(u64, u64)> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().expect("line"),
                f["column"].as_u64().expect("column"),
            )
        })
        .collect();
    // `whisper!` is defined in the last chunk, after the first one that calls it; `note` and
    // `shout!` in the first chunk, 400 kB above their calls. Each definition's body is also
    // judged on its own (`$v`, lines 7 and 12016).
    assert_eq!(
        found,
        [(2, 14), (7, 31), (12011, 17), (12012, 12), (12016, 26)],
        "{:#}",
        json["findings"]
    );
}

/// A module larger than a chunk (generated code often wraps everything in one) is parsed a run
/// of its items at a time, each under the module's header: its renames reach every run, a test
/// module stays test code, and positions are exact.
#[test]
fn a_large_module_is_linted_in_chunks_of_its_items() {
    // Five thousand items, a leak through the renamed macro in every thousandth: its line and
    // column are noted in `leaks`, if given.
    fn items(source: &mut String, line: &mut usize, mut leaks: Option<&mut Vec<(usize, u64)>>) {
        for i in 0..5_000 {
            let item = if i % 1_000 == 7 {
                if let Some(l) = leaks.as_deref_mut() {
                    l.push((*line + 1, 21));
                }
                format!(
                    "    pub fn f{i}(p: &Patient) {{\n        note!(\"{{}}\", p.name);\n    }}\n"
                )
            } else {
                format!(
                    "    /// Item {i}.\n    pub fn f{i}(n: u32) -> u32 {{ n.wrapping_add({i}) }}\n"
                )
            };
            *line += item.matches('\n').count();
            source.push_str(&item);
        }
    }
    let mut source = String::from(
        "#[doc = \"generated\"]\npub mod generated {\n    #![allow(dead_code)]\n    \
         use tracing::info as note;\n",
    );
    let mut leaks = Vec::new();
    // The line the next item starts on.
    let mut line = 5;
    items(&mut source, &mut line, Some(&mut leaks));
    source.push_str("}\n#[cfg(test)]\nmod tests {\n");
    line += 3;
    items(&mut source, &mut line, None);
    source.push_str("}\npub fn after(p: &Patient) { tracing::warn!(email = %p.email); }\n");
    leaks.push((line + 1, 53));
    assert!(source.len() > 600_000, "{}", source.len());
    let tree = Tree::new(&[("src/lib.rs", &source)]);
    let json = tree.json(&[], 1);
    let found: Vec<(usize, u64)> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let line = usize::try_from(f["line"].as_u64().expect("line")).expect("small");
            (line, f["column"].as_u64().expect("column"))
        })
        .collect();
    assert_eq!(found, leaks, "{:#}", json["summary"]);
    // The module's five `note!` calls and `after`'s; the test module's are not counted.
    assert_eq!(json["summary"]["statements"], 6);
}

/// Function bodies that cannot reach a sink are not parsed. One whose only macros might be
/// neutral is left unparsed only if nothing in the scan makes one of them a sink: a
/// `macro_rules!` another file defines, a `use … as` rename, a configured wrapper.
#[test]
fn bodies_calling_macros_the_scan_makes_sinks_are_linted() {
    let lib = r#"#[macro_use]
mod shadow;
mod renamed;

pub fn neutral(p: &Patient) -> String {
    format!("{}", vec![p.id].len())
}

pub fn shadowed(p: &Patient) {
    shout!(p.name);
}

pub fn wrapped(p: &Patient) {
    audit!("{}", p.name);
}
"#;
    let shadow =
        "macro_rules! shout {\n    ($e:expr) => {\n        tracing::info!(\"{}\", $e)\n    };\n}\n";
    let renamed = "pub fn via_rename(p: &Patient) {\n    use tracing::info as note;\n    note!(name = %p.name);\n}\n";
    let config = "[lint.wrappers]\naudit = \"tracing::info\"\n";
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("phiguard.toml", config),
        ("src/lib.rs", lib),
        ("src/shadow.rs", shadow),
        ("src/renamed.rs", renamed),
    ]);
    let json = tree.json(&[], 1);
    let mut found: Vec<(String, String)> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let text = |k: &str| f[k].as_str().expect(k).to_owned();
            (text("file"), text("function"))
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("src/lib.rs".to_owned(), "shadowed".to_owned()),
            ("src/lib.rs".to_owned(), "wrapped".to_owned()),
            ("src/renamed.rs".to_owned(), "via_rename".to_owned()),
            ("src/shadow.rs".to_owned(), "macro_rules! shout".to_owned()),
        ],
        "{json:#}"
    );
}

/// Ways a body that logs could pass for one that cannot (found in review, each once a miss):
/// a `Record` built from `format_args!`, a byte-order mark before a `use … as` rename, string
/// suffixes that make the resolver's lexer and rustc's disagree on where a string ends, and a
/// form feed between a macro and its arguments. Every file must keep its finding.
#[test]
fn a_body_that_logs_cannot_pass_for_a_quiet_one() {
    let record = "use log::Record;\npub fn f(p: &Patient) -> u32 {\n    let r = \
                  Record::builder().args(format_args!(\"{}\", p.name)).build();\n    \
                  r.line().unwrap_or(0)\n}\n";
    // Each rename has its own name: the scan's names are shared by every file.
    let bom = "\u{feff}use tracing::info as note_a;\npub fn f(p: &Patient) {\n    note_a!(name = %p.name);\n}\n";
    let hidden_use = "const _: &str = stringify!(\"\"r\"\\\")\"); use tracing::info as note_b; // \"\n\
                      pub fn f(p: &Patient) {\n    note_b!(name = %p.name);\n}\n";
    let swallowed = "pub fn quiet() { let _ = stringify!(\"\"r\"\\\" {\"); // \"\n}\n\
                     use tracing::info as note_c;\n\
                     pub fn tail() { let _ = stringify!(\"\"r\"\\\" ) } }\"); // \"\n}\n\
                     pub fn loud(p: &Patient) {\n    note_c!(name = %p.name);\n}\n";
    let form_feed = "pub fn f(p: &Patient) {\n    tracing::info!\x0c(name = %p.name);\n}\n";
    let lib = "mod record;\nmod bom;\nmod hidden_use;\nmod swallowed;\nmod form_feed;\n";
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", lib),
        ("src/record.rs", record),
        ("src/bom.rs", bom),
        ("src/hidden_use.rs", hidden_use),
        ("src/swallowed.rs", swallowed),
        ("src/form_feed.rs", form_feed),
    ]);
    let json = tree.json(&[], 1);
    assert_eq!(
        files_with_findings(&json),
        [
            "src/bom.rs",
            "src/form_feed.rs",
            "src/hidden_use.rs",
            "src/record.rs",
            "src/swallowed.rs",
        ],
        "{json:#}"
    );
}

/// A function larger than a chunk (a generated table, a long test fixture) is parsed a run of
/// its statements at a time, each under the function's header (and its `impl`'s and module's):
/// the locals, closures, stream writers, `use` renames and `macro_rules!` of one run are in
/// scope in the others, its `#[instrument]` is judged once, and every finding is where it is
/// when the same function is small. The small one is the same text with the filler statements
/// replaced by empty lines, so lines match.
#[test]
fn a_large_function_is_linted_in_runs_of_its_statements() {
    fn source(filler: bool) -> String {
        let fill = |indent: &str, n: usize| -> String {
            (0..n)
                .map(|k| {
                    if filler {
                        format!("{indent}tracing::info!(user_id = %u.id, step = {k}, \"visit\");\n")
                    } else {
                        "\n".to_owned()
                    }
                })
                .collect()
        };
        let top = fill("    ", 4_000);
        let nested = fill("            ", 4_000);
        format!(
            "pub struct Patient {{ pub name: String, pub id: u64 }}\n\
             \n\
             #[tracing::instrument(fields(name = %patient.name))]\n\
             pub fn handler(patient: &Patient, u: &Patient) {{\n\
             \x20   let user_id = &patient.name;\n\
             \x20   let log = |id: &str| tracing::info!(id = %id);\n\
             \x20   let mut w = std::io::stderr();\n\
             \x20   let safe_id = u.id;\n\
             \x20   note!(\"{{}}\", patient.name);\n\
             \x20   macro_rules! shout {{ ($e:expr) => {{ eprintln!(\"{{}}\", $e) }}; }}\n\
             {top}\
             \x20   tracing::info!(user_id = %user_id);\n\
             \x20   log(&patient.name);\n\
             \x20   writeln!(w, \"{{}}\", u.name).ok();\n\
             \x20   shout!(patient.name);\n\
             \x20   if true {{ tracing::info!(safe_id); }}\n\
             \x20   #[cfg(test)]\n\
             \x20   tracing::info!(\"{{}}\", patient.name);\n\
             {top}\
             \x20   use tracing::info as note;\n\
             \x20   let user_id = u.id;\n\
             \x20   tracing::info!(user_id, safe_id);\n\
             }}\n\
             \n\
             pub mod generated {{\n\
             \x20   pub struct Store;\n\
             \x20   impl Store {{\n\
             \x20       pub fn load(&self, u: &super::Patient) {{\n\
             \x20           let email = u.name.clone();\n\
             {nested}\
             \x20           tracing::warn!(contact = %email);\n\
             {nested}\
             \x20           tracing::warn!(id = %u.id);\n\
             \x20       }}\n\
             \x20   }}\n\
             }}\n\
             \n\
             #[cfg(test)]\n\
             fn fixture(u: &Patient) {{\n\
             {top}\
             \x20   tracing::info!(\"{{}}\", u.name);\n\
             }}\n"
        )
    }
    let findings = |json: &serde_json::Value| -> Vec<serde_json::Value> {
        json["findings"].as_array().expect("findings").clone()
    };
    let large = source(true);
    assert!(large.len() > 3 * 256 * 1024, "{}", large.len());
    let small = source(false);
    assert_eq!(large.lines().count(), small.lines().count());
    let json = |text: &str| Tree::new(&[("src/lib.rs", text)]).json(&[], 1);
    let (large, small) = (json(&large), json(&small));
    let (found, want) = (findings(&large), findings(&small));
    let lines = |f: &[serde_json::Value]| -> Vec<(u64, String)> {
        f.iter()
            .map(|f| {
                let line = f["line"].as_u64().expect("line");
                (line, f["message"].as_str().expect("message").to_owned())
            })
            .collect()
    };
    // The small function's findings, checked by hand: the attribute's field and the two
    // arguments, the closure (as written and as judged at its call), `note!` (renamed below its
    // call), `$e` in the macro's definition, the local bound to a name, the writer bound to
    // stderr, the macro's call, and the email; not the locals bound to ids, the second
    // `user_id` shadowing the first.
    let at: Vec<u64> = lines(&want).into_iter().map(|(line, _)| line).collect();
    assert_eq!(
        at,
        [3, 4, 4, 6, 6, 9, 10, 4011, 4013, 4014, 12028],
        "{:#?}",
        lines(&want)
    );
    assert_eq!(found, want, "{:#?}\n{:#?}", lines(&found), lines(&want));
    // Each filler statement of `handler` and `load` counts once; the test function's do not.
    let statements = |json: &serde_json::Value| json["summary"]["statements"].as_u64().expect("n");
    assert_eq!(statements(&large), statements(&small) + 4 * 4_000);
}

/// An item after a large module's closing brace, on the same line, is linted: cutting the
/// module into runs of its items once left it out of every run (before 2026-12-06, such a
/// file passed with the leak unread).
#[test]
fn an_item_on_the_line_of_a_large_modules_closing_brace_is_linted() {
    let items = (0..12_000)
        .map(|i| format!("    pub fn f{i}(n: u32) -> u32 {{ n.wrapping_add({i}) }}\n"))
        .collect::<Vec<_>>()
        .concat();
    let source = format!(
        "pub struct P {{ pub name: String, pub id: u64 }}\n\
         pub fn ok(p: &P) {{ tracing::info!(id = p.id); }}\n\
         pub mod m {{\n{items}}} pub fn leak(p: &P) {{ tracing::info!(\"{{}}\", p.name); }}\n"
    );
    assert!(source.len() > 600_000, "{}", source.len());
    let json = Tree::new(&[("src/lib.rs", &source)]).json(&[], 1);
    let found: Vec<(&str, u64)> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["function"].as_str().expect("function"),
                f["line"].as_u64().expect("line"),
            )
        })
        .collect();
    assert_eq!(found, [("leak", 12_004)], "{:#}", json["summary"]);
    assert_eq!(json["summary"]["statements"], 2);
}

/// A `const` or `static` item's initializer that cannot log (a generated table) is not
/// parsed, as a quiet function body is not; one that can is linted, also when the macro it
/// calls is a sink only because another file of the scan defines it so.
#[test]
fn initializers_that_cannot_log_are_skipped_and_the_others_linted() {
    let table = (0..50_000)
        .map(|i| format!("{i}, "))
        .collect::<Vec<_>>()
        .concat();
    let lib = format!(
        "#[macro_use]\nmod shout;\n\
         pub struct P {{ pub name: String }}\n\
         pub static TABLE: [u32; 50000] = [{table}];\n\
         pub static HOOK: std::sync::LazyLock<()> = std::sync::LazyLock::new(|| {{\n    \
         let p = P {{ name: String::new() }};\n    tracing::info!(\"{{}}\", p.name);\n}});\n\
         pub const LOUD: fn(&P) = |p| {{ shout!(p.name) }};\n\
         pub static BINDS: Option<()> = Some(&PATIENT.name).map(|user_id| tracing::info!(\"{{user_id}}\"));\n"
    );
    let shout =
        "macro_rules! shout {\n    ($e:expr) => {\n        eprintln!(\"{}\", $e)\n    };\n}\n";
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", &lib),
        ("src/shout.rs", shout),
    ]);
    let json = tree.json(&[], 1);
    let found = file_lines(&json);
    assert_eq!(
        found,
        [
            ("src/lib.rs".to_owned(), 7),
            ("src/lib.rs".to_owned(), 9),
            ("src/lib.rs".to_owned(), 10),
            ("src/shout.rs".to_owned(), 3)
        ],
        "{json:#}"
    );
}

/// Large tables in a function that logs are not parsed into expressions, and the findings are
/// those of the same function with small tables (every table on one line, so lines agree): a
/// table's element names nothing, a group with a path in it is not a table, and another macro's
/// input is left as it is.
#[test]
fn large_tables_in_a_logging_function_are_judged_as_small_ones() {
    fn source(n: usize) -> String {
        let list =
            |piece: &dyn Fn(usize) -> String| (0..n).map(piece).collect::<Vec<_>>().join(", ");
        let numbers = list(&|i| format!("{i}"));
        let pairs = list(&|i| format!("(\"code-{i}\", -{i}.5)"));
        let named = list(&|i| {
            if i == n / 2 {
                "p.name.clone()".to_owned()
            } else {
                format!("\"x{i}\".to_owned()")
            }
        });
        format!(
            "pub struct P {{ pub name: String, pub id: u64 }}\n\
             macro_rules! hide {{\n\
             \x20   ([], $e:expr) => {{}};\n\
             \x20   ([$($n:literal),*], $e:expr) => {{ eprintln!(\"{{}}\", $e) }};\n\
             }}\n\
             pub fn handler(p: &P) {{\n\
             \x20   let codes = [{numbers}];\n\
             \x20   let pairs = vec![{pairs}];\n\
             \x20   let lens = [{named}];\n\
             \x20   let echoed = shout![{numbers}];\n\
             \x20   tracing::info!(count = codes.len(), \"codes\");\n\
             \x20   tracing::info!(\"{{:?}} {{:?}}\", codes, pairs);\n\
             \x20   tracing::info!(\"{{:?}}\", lens);\n\
             \x20   tracing::info!(\"{{}}\", p.name);\n\
             \x20   tracing::info!(\"{{:?}}\", echoed);\n\
             \x20   hide!([{numbers}], p.name);\n\
             }}\n"
        )
    }
    let findings = |text: &str| -> Vec<(u64, String, String)> {
        let tree = Tree::new(&[("Cargo.toml", MANIFEST), ("src/lib.rs", text)]);
        let json = tree.json(&[], 1);
        json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                let s = |k: &str| f[k].as_str().expect(k).to_owned();
                (f["line"].as_u64().expect("line"), s("rule"), s("message"))
            })
            .collect()
    };
    let large = source(20_000);
    assert!(large.len() > 4 * 64 * 1024);
    let (big, small) = (findings(&large), findings(&source(8)));
    assert_eq!(big, small);
    // Flagged both ways: `$e` where `hide!` is defined, `pairs` (a `vec!`, whose value the lint
    // does not read), `lens` (a person's name among its elements), the name itself, `echoed`
    // (another macro's output), and the name `hide!` prints: its table is that macro's input,
    // kept whole, so the arm that logs still matches. Never `codes`, a table of literals.
    let lines: Vec<u64> = big.iter().map(|f| f.0).collect();
    assert_eq!(lines, [4, 12, 13, 14, 15, 16], "{big:#?}");
    assert!(big.iter().all(|f| !f.2.contains("`codes`")), "{big:#?}");
}

/// A crate whose `lib.rs` declares each of `modules` (`(name, text)`, written to
/// `src/NAME.rs`) and the struct `P { name, id }` they log.
fn crate_of_modules(modules: &[(&str, &str)]) -> Tree {
    let mut lib = String::new();
    for (name, _) in modules {
        let _ = writeln!(lib, "mod {name};");
    }
    lib.push_str("pub struct P { pub name: String, pub id: u64 }\n");
    let paths: Vec<String> = modules
        .iter()
        .map(|(name, _)| format!("src/{name}.rs"))
        .collect();
    let mut files = vec![("Cargo.toml", MANIFEST), ("src/lib.rs", lib.as_str())];
    files.extend(
        paths
            .iter()
            .map(String::as_str)
            .zip(modules.iter().map(|(_, text)| *text)),
    );
    Tree::new(&files)
}

/// A generated file of one long line is cut into chunks inside the line (each parsed after
/// spaces that keep its columns), and its findings are where they are: every leak, at its
/// column, with a `macro_rules!` of the line's start called at its end and a `use` rename.
#[test]
fn a_file_of_one_long_line_is_linted_in_chunks_at_the_right_columns() {
    let mut line = String::from(
        "use tracing::info as note; macro_rules! say { ($v:expr) => { note!(\"{}\", $v) }; } ",
    );
    for i in 0..7_000 {
        let value = if i % 10 == 0 { "p.name" } else { "p.id" };
        let _ = write!(
            line,
            "pub fn f{i}(p: &crate::P) {{ note!(\"{{}}\", {value}); }} "
        );
    }
    line.push_str("pub fn last(p: &crate::P) { say!(p.name); }");
    // Over the chunk size (256 KiB), with no line break to cut at.
    assert!(line.len() > 300 << 10, "{}", line.len());
    let mut want: Vec<u64> = line
        .match_indices("p.name")
        .map(|(at, _)| line[..at].chars().count() as u64 + 1)
        .collect();
    // The macro's leak is reported at the call's argument, and its body's `$v` at the `v`.
    want.push(line.find("$v)").expect("the transcriber") as u64 + 2);
    want.sort_unstable();
    let tree = crate_of_modules(&[("generated", &line)]);
    let json = tree.json(&[], 1);
    let mut got: Vec<u64> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            assert_eq!(
                (f["file"].as_str(), f["line"].as_u64()),
                (Some("src/generated.rs"), Some(1))
            );
            f["column"].as_u64().expect("column")
        })
        .collect();
    got.sort_unstable();
    assert_eq!(got.len(), 702, "{json:#}");
    assert_eq!(got, want);
}

/// One expression of too many tokens to parse (syn's tree of it would be hundreds of bytes per
/// token, and it cannot be cut into runs as a long body is) fails closed, naming the file and
/// where the expression starts: a `match`, a macro's input, a statement with no large group
/// (the body is named), and a file that starts with an inner attribute. A literal table that
/// large is emptied instead and the body linted, a long string literal is one token, and an
/// expression just under the bound is linted as usual.
#[test]
fn an_expression_too_large_to_parse_fails_closed_naming_it() {
    fn each(n: usize, piece: impl Fn(&mut String, usize)) -> String {
        let mut out = String::new();
        for i in 0..n {
            piece(&mut out, i);
        }
        out
    }
    use std::fmt::Write as _;
    let arms = |n: usize| {
        each(n, |out, i| {
            let _ = writeln!(out, "        {i} => step({i}),");
        })
    };
    let matching = |n: usize| {
        format!(
            "pub fn pick(p: &P, k: u32) -> u32 {{\n\
             \x20   tracing::info!(\"{{}}\", p.name);\n\
             \x20   match k {{\n{}        _ => 0,\n    }}\n}}\n",
            arms(n)
        )
    };
    let fields = each(70_000, |out, i| {
        let _ = write!(out, "a{i} = %p.id, ");
    });
    let logging = format!("pub fn many(p: &P) {{\n    tracing::info!({fields});\n}}\n");
    let numbers = each(150_000, |out, i| {
        let _ = write!(out, "{i}, ");
    });
    let table = format!(
        "pub fn table(p: &P) -> usize {{\n    let t = vec![{numbers}];\n    \
         tracing::info!(\"{{}}\", p.name);\n    t.len()\n}}\n"
    );
    let huge = matching(60_000);
    let attr = format!("#![allow(dead_code)]\n{huge}");
    // The closure's parameters are in no group of their own.
    let params = each(80_000, |out, i| {
        let _ = write!(out, "a{i}: u8, ");
    });
    let flat = format!(
        "pub fn flat(p: &P) -> u64 {{\n    tracing::info!(\"{{}}\", p.name);\n    \
         let f = |{params}| 0;\n    1\n}}\n"
    );
    let text = format!(
        "pub fn text(p: &P) -> usize {{\n    tracing::info!(\"{{}}\", p.name);\n    \
         parse(r#\"{}\"#)\n}}\n",
        "x".repeat(1_200_000)
    );
    // A shebang line sent the file to syn whole, with no bound, until the outline counted it.
    let shebang = format!("#!/usr/bin/env run-cargo-script\n{huge}");
    // A table in the input of a macro but `vec!` is not emptied: it counts, as the parse counts
    // it (`table` above, in a `vec!`, is linted).
    let printed = format!("pub fn printed() {{\n    println!(\"{{:?}}\", [{numbers}]);\n}}\n");
    let tree = crate_of_modules(&[
        ("attr", &attr),
        ("flat", &flat),
        ("huge", &huge),
        ("printed", &printed),
        ("shebang", &shebang),
        ("logging", &logging),
        ("table", &table),
        ("text", &text),
    ]);
    let run = tree.run(&["check"]);
    run.assert_out(
        2,
        &[
            // Counted before proc-macro2 lexes the file (`resolve/outline.rs`).
            "error: src/attr.rs:4:13: cannot parse: an expression of at least 420005 tokens",
            "error: src/huge.rs:3:13: cannot parse: an expression of at least 420005 tokens",
            "error: src/logging.rs:2:19: cannot parse: an expression of at least 490000 tokens",
            "error: src/printed.rs:2:22: cannot parse: an expression of at least 300000 tokens",
            "error: src/shebang.rs:4:13: cannot parse: an expression of at least 420005 tokens",
            // A statement with no group that large: counted by the parse.
            "error: src/flat.rs:1:27: cannot parse: an expression of 320019 tokens",
            "tokens is too large to check",
            "src/table.rs:3:",
            "src/text.rs:2:",
        ],
    );
    // Just under the bound: parsed and linted.
    let near = matching(30_000);
    let tree = crate_of_modules(&[("near", &near)]);
    tree.run(&["check"]).assert_out(1, &["1 new finding"]);
}

/// The input of a macro called at an item level (`cfg_if! { .. }`) is parsed as one piece, and
/// so are an attribute and a `static` initializer that may log (its expression in the first
/// group after `=` or a later one): any of 300,000 tokens or more fails closed, naming the file
/// and where it starts, as one expression in a body does. A `cfg_if!` of the
/// same functions under the bound is linted (its leak found), and a `macro_rules!` definition,
/// whose body is scanned as tokens and never parsed whole, is not bounded.
#[test]
fn a_macro_input_or_initializer_too_large_to_parse_fails_closed_naming_it() {
    fn functions(n: usize) -> String {
        let mut out =
            String::from("        pub fn leak(p: &P) { tracing::info!(\"{}\", p.name); }\n");
        for i in 0..n {
            let _ = writeln!(
                out,
                "        pub fn f{i}(p: &P) {{ tracing::info!(user_id = %p.id, step = {i}); }}"
            );
        }
        out
    }
    let cfg_if = |n: usize| {
        format!(
            "cfg_if::cfg_if! {{\n    if #[cfg(unix)] {{\n{}    }}\n}}\n",
            functions(n)
        )
    };
    let mut steps = String::new();
    for i in 0..100_000 {
        let _ = write!(steps, "step({i}), ");
    }
    let init = format!(
        "pub static HOOK: std::sync::LazyLock<Vec<u64>> = std::sync::LazyLock::new(|| {{\n    \
         tracing::info!(\"init\");\n    vec![{steps}]\n}});\n"
    );
    // The expression's group need not be the first after `=`.
    let later = format!(
        "pub static LATER: std::sync::LazyLock<Vec<u64>> = (std::sync::LazyLock::new)(|| {{\n    \
         tracing::info!(\"init\");\n    vec![{steps}]\n}});\n"
    );
    let mut names = String::new();
    for i in 0..160_000 {
        let _ = write!(names, "a{i}, ");
    }
    let attr = format!(
        "#[cfg(any({names}))]\npub fn gated(p: &P) {{ tracing::info!(\"{{}}\", p.id); }}\n"
    );
    let mut arms = String::new();
    for i in 0..20_000 {
        let _ = writeln!(
            arms,
            "    (k{i} $e:expr) => {{ step($e, {i}, {i}, {i}, {i}, {i}) }};"
        );
    }
    let rules = format!("macro_rules! many {{\n{arms}}}\n");
    // An initializer of many small groups is one expression, if it may log; a quiet one is
    // not parsed.
    let chain = |log: &str| {
        let args = (0..40).map(|k| k.to_string() + ", ").collect::<String>();
        let mut out = String::from("pub static CHAIN: Builder = Builder::new()");
        for i in 0..4_000 {
            let _ = write!(out, "\n    .step({{ {log}step({args}{i}) }})");
        }
        out.push_str(";\n");
        out
    };
    let tree = crate_of_modules(&[
        ("attr", &attr),
        ("big", &cfg_if(20_000)),
        ("chain", &chain("tracing::info!(step = 1); ")),
        ("init", &init),
        ("later", &later),
        ("near", &cfg_if(2_000)),
        ("quiet_chain", &chain("")),
        ("rules", &rules),
    ]);
    let run = tree.run(&["check"]);
    run.assert_out(
        2,
        &[
            // The innermost group over the bound, counted before proc-macro2 lexes the file.
            "error: src/attr.rs:1:10: cannot parse: an attribute of at least 320000 tokens",
            "error: src/big.rs:2:21: cannot parse: a macro's input of at least ",
            "error: src/init.rs:3:9: cannot parse: an expression of at least 400000 tokens",
            "error: src/later.rs:3:9: cannot parse: an expression of at least 400000 tokens",
            // Many groups, each under the bound, counted together.
            "error: src/chain.rs:1:29: cannot parse: a `const` or `static` initializer of at \
             least 388005 tokens",
            "tokens is too large to check",
            "src/near.rs:3:",
        ],
    );
    assert!(!run.stdout.contains("src/rules.rs"), "{}", run.stdout);
    assert!(!run.stdout.contains("src/quiet_chain.rs"), "{}", run.stdout);
    assert!(!run.stdout.contains("src/big.rs:3:"), "{}", run.stdout);
}

/// The outline counts tokens before they are lexed, and refuses only what the parse would: a
/// second review's files that the parse lints, each holding a group of 320,000 tokens where the
/// parse does not bound it (a macro in a type, a quiet initializer judged by its comments or
/// by an earlier item's `=`, a test module that is not linted) or tokens the outline's lexer
/// once split more finely than proc-macro2's (`1e-_5`, a suffix, a raw lifetime, Unicode
/// whitespace). Each was exit 2 (`cannot parse: .. of at least`) before it was fixed.
#[test]
fn the_outline_refuses_no_file_the_parse_lints() {
    let many = |piece: &str, n: usize| vec![piece; n].join(", ");
    let a = many("a", 160_000);
    let cases = [
        format!("static X: m!{{\n{a}\n}} = 0;\n"),
        format!("trait T {{\n    fn f() -> m!{{\n{a}\n    }};\n}}\n"),
        format!("impl X for m!{{\n{}\n}} {{}}\n", "a;".repeat(160_000)),
        format!("fn f() -> m!{{\n{a}\n}} {{ 1 }}\n"),
        format!("const X: &[u8] = &[\n{a}\n] /* log */;\n"),
        format!("const X: &[u8] = // log\n&[\n{a}\n];\n"),
        format!("struct S<T = u8> {{ log: T }}\nconst X: &[u8] = &[\n{a}\n];\n"),
        format!(
            "pub static H: &dyn Handler<Output = Record> = &Table([\n{}\n]);\n",
            many("&A", 110_000)
        ),
        format!("m! {{\n{}\n}}\n", many("1e-_5", 140_000)),
        format!("m! {{\n{}\n}}\n", "a\u{0b},".repeat(110_000)),
        format!("m! {{\n{}\n}}\n", ";\u{a0}".repeat(160_000)),
        format!("m! {{\n{}\n}}\n", ";\u{200e}".repeat(160_000)),
        format!("m! {{\n{}\n}}\n", "\"a\"é ".repeat(160_000)),
        format!("m! {{\n{}\n}}\n", many("'r#a", 80_000)),
    ];
    let names: Vec<String> = (0..cases.len()).map(|i| format!("case{i}")).collect();
    let modules: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(cases.iter().map(String::as_str))
        .collect();
    let tree = crate_of_modules(&modules);
    let json = tree.json(&["--allow-no-statements"], 0);
    assert_eq!(errors(&json), Vec::<String>::new(), "{json:#}");
    // A test module is outlined, not linted: it is not refused either.
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        (
            "src/lib.rs",
            "#[cfg(test)]\nmod tests;\npub fn f() { println!(\"x\"); }\n",
        ),
        ("src/tests.rs", &format!("m! {{\n{a}\n}}\n")),
    ]);
    let json = tree.json(&[], 0);
    assert_eq!(json["summary"]["test_files"], 1, "{json:#}");
}

/// An item is parsed whole, so each of its groups (an enum's variants, a struct's fields) and
/// its header outside them (`fn f<'a0, 'a1, ..>`) holds fewer than 300,000 tokens, as one
/// expression does; past that the file is an error naming where. Many small items, however
/// many tokens they hold together, are linted.
#[test]
fn an_item_too_large_to_parse_fails_closed_naming_it() {
    const LEAK: &str = "pub fn leak(p: &P) { tracing::info!(\"{}\", p.name); }\n";
    let listed = |n: usize, piece: &dyn Fn(usize) -> String| (0..n).map(piece).collect::<String>();
    let enum_of = |n: usize| {
        format!(
            "{LEAK}pub enum Big {{\n{}}}\n",
            listed(n, &|i| format!("    V{i},\n"))
        )
    };
    let fields = format!(
        "{LEAK}pub struct Wide {{\n{}}}\n",
        listed(80_000, &|i| format!("    pub f{i}: u32,\n"))
    );
    let header = format!(
        "{LEAK}pub fn g<{}>() {{}}\n",
        listed(110_000, &|i| format!("'a{i}, "))
    );
    let small = format!(
        "{LEAK}{}",
        listed(80_000, &|i| format!("pub struct S{i};\n"))
    );
    // A header's groups count with it: `where` bounds of many small tuples.
    let tuple = format!("({})", "u8, ".repeat(100));
    let bounds = format!(
        "{LEAK}pub fn h() where {} {{}}\n",
        listed(1_600, &|_| format!("{tuple}: Sized, "))
    );
    // A generic default that ends in `!` is no `macro_rules! name`.
    let bang = format!(
        "{LEAK}pub enum E<T = fn() -> !> {{ A(T), {} }}\n",
        listed(160_000, &|i| format!("V{i}, "))
    );
    // A block of foreign items is a list of items, each bounded by itself.
    let foreign = format!(
        "{LEAK}unsafe extern \"C\" {{\n{}}}\n",
        listed(20_000, &|i| format!(
            "    pub fn ffi_{i}(a: *mut u8, b: u32) -> i32;\n"
        ))
    );
    // A literal table in a later group of an initializer is emptied, not counted.
    let lazy = format!(
        "{LEAK}pub static TABLE: std::sync::LazyLock<Vec<u8>> = (std::sync::LazyLock::new)(|| vec![{}]);\n",
        "0, ".repeat(160_000)
    );
    let tree = crate_of_modules(&[
        ("lazy", &lazy),
        ("bang", &bang),
        ("bounds", &bounds),
        ("fields", &fields),
        ("foreign", &foreign),
        ("header", &header),
        ("near", &enum_of(140_000)),
        ("over", &enum_of(160_000)),
        ("small", &small),
    ]);
    let run = tree.run(&["check"]);
    run.assert_out(
        2,
        &[
            "error: src/bang.rs:2:27: cannot parse: an item's group of at least 320004 tokens",
            "error: src/bounds.rs:2:1: cannot parse: an item's header of ",
            // Counted before proc-macro2 lexes the file, as the parse counts them.
            "error: src/fields.rs:2:17: cannot parse: an item's group of at least 400000 tokens",
            "error: src/header.rs:2:1: cannot parse: an item's header of 330007 tokens is too large to check",
            "error: src/over.rs:2:14: cannot parse: an item's group of at least 320000 tokens",
            "src/foreign.rs:1:",
            "src/lazy.rs:1:",
            "src/near.rs:1:",
            "src/small.rs:1:",
        ],
    );
}

/// Random bodies, each cut into runs, against their small twins (the filler statements left
/// as empty lines): lets, clones, closures called in later runs, stderr writers, `use … as`
/// renames above and below their calls, nested blocks that shadow, strings and comments holding
/// `;`, multi-line calls; as a free function and as a method of an `impl` in a module. The
/// filler logs (so every run is walked), or cannot log (so many runs are runs that cannot log,
/// whose lets, renames and closures the later runs still need).
#[test]
fn random_large_functions_match_their_small_twins() {
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33;
            usize::try_from(x).expect("32 bits") % n
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
    }
    const NAMES: [&str; 9] = [
        "user_id",
        "count",
        "status",
        "kind",
        "note_text",
        "label",
        "uid",
        "email",
        "state",
    ];
    /// A filler statement that logs an id, and one that cannot log.
    fn loud(k: usize) -> String {
        format!("    tracing::info!(user_id = %u.id, step = {k}, \"visit\");\n")
    }
    fn quiet(k: usize) -> String {
        format!("    let _quiet_step = step({k}).saturating_add(1);\n")
    }
    /// `long`: now and then a stretch of filler longer than a run, so that whole runs hold
    /// nothing but filler and the statement before it.
    fn source(seed: u64, filler: Option<fn(usize) -> String>, long: bool) -> String {
        let mut rng = Rng(seed);
        let (mut defined, mut closures, mut streams, mut aliases) =
            (Vec::<String>::new(), Vec::new(), Vec::new(), Vec::new());
        let mut body = String::new();
        let mut fill_count = 0;
        for i in 0..60 {
            let pool: Vec<&str> = defined.iter().map(String::as_str).collect();
            let value = |rng: &mut Rng| {
                if !pool.is_empty() && rng.below(10) < 6 {
                    rng.pick(&pool).to_owned()
                } else {
                    rng.pick(&["p.name", "u.id", "p.id", "u.name"]).to_owned()
                }
            };
            let v = rng.pick(&NAMES);
            let alias = ["al0", "al1", "al2"][rng.below(3)];
            let stmt = match rng.below(14) {
                0 => {
                    defined.push(v.to_owned());
                    format!("let {v} = &{};", rng.pick(&["p.name", "u.id", "p.id"]))
                }
                1 => {
                    let from = value(&mut rng);
                    defined.push(v.to_owned());
                    format!("let {v} = {from}.clone();")
                }
                2 => format!("tracing::info!({v} = %{});", value(&mut rng)),
                3 => format!("tracing::warn!(\"{{}} done\", {});", value(&mut rng)),
                4 => format!("eprintln!(\"{{}}\", {});", value(&mut rng)),
                5 => {
                    closures.push(format!("c{i}"));
                    format!("let c{i} = |x: &str| tracing::info!(x = %x);")
                }
                6 if !closures.is_empty() => {
                    let c = closures[rng.below(closures.len())].clone();
                    format!("{c}(&{});", value(&mut rng))
                }
                7 => {
                    streams.push(format!("w{i}"));
                    format!("let mut w{i} = std::io::stderr();")
                }
                8 if !streams.is_empty() => {
                    let w = streams[rng.below(streams.len())].clone();
                    format!("writeln!({w}, \"{{}}\", {}).ok();", value(&mut rng))
                }
                9 if !aliases.contains(&alias) => {
                    aliases.push(alias);
                    format!("use tracing::info as {alias};")
                }
                9 | 10 => format!("{alias}!(\"{{}}\", {});", value(&mut rng)),
                11 => format!(
                    "if true {{\n        let {v} = &p.name;\n        tracing::info!(inner = %{v});\n    }}"
                ),
                12 => format!("let s{i} = \"a; b;\n c;\"; // x;\n    /* ; */"),
                13 => format!(
                    "tracing::info!(\n        {v} = %{},\n        \"multi\"\n    );",
                    value(&mut rng)
                ),
                _ => continue,
            };
            body.push_str("    ");
            body.push_str(&stmt);
            body.push('\n');
            let stretch = if long && rng.below(8) == 0 { 5_500 } else { 0 };
            for k in 0..rng.below(2) * rng.below(1_200) + stretch {
                fill_count += 1;
                match filler {
                    Some(fill) => body.push_str(&fill(k)),
                    None => body.push('\n'),
                }
            }
        }
        assert!(
            filler.is_none() || fill_count > 8_000,
            "seed {seed}: {fill_count} filler statements"
        );
        if rng.below(2) == 0 {
            format!(
                "pub struct P {{ pub name: String, pub id: u64 }}\n\n\
                 #[tracing::instrument(skip(p))]\npub fn handler(p: &P, u: &P) {{\n{body}}}\n"
            )
        } else {
            format!(
                "pub struct P {{ pub name: String, pub id: u64 }}\npub mod m {{\n    use super::P;\n    \
                 pub struct S;\n    impl S {{\n        #[tracing::instrument(skip(p))]\n        \
                 pub fn handler(&self, p: &P, u: &P) {{\n{body}        }}\n    }}\n}}\n"
            )
        }
    }
    let tree = Tree::new(&[]);
    let report = |text: &str| -> serde_json::Value {
        tree.write("src/lib.rs", text);
        let run = tree.run(&["check", "--format", "json"]);
        assert!(matches!(run.code, 0 | 1), "{run}");
        serde_json::from_str(&run.stdout).expect("a JSON report")
    };
    for (seed, fill) in (1..=6_u64).flat_map(|s| [(s, loud as fn(usize) -> String), (s, quiet)]) {
        let seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // Stretches longer than a run of logging filler would only make the test slow.
        let long = fill(0) == quiet(0);
        let (large, small) = (source(seed, Some(fill), long), source(seed, None, long));
        assert_eq!(large.lines().count(), small.lines().count());
        assert!(large.len() > 2 * 256 * 1024, "seed {seed}: {}", large.len());
        let fillers = u64::try_from(large.matches("\"visit\");").count()).expect("small");
        let (large, small) = (report(&large), report(&small));
        assert_eq!(
            large["findings"],
            small["findings"],
            "seed {seed}, {}",
            fill(0)
        );
        assert!(
            small["findings"].as_array().is_some_and(|f| f.len() > 5),
            "seed {seed}"
        );
        assert_eq!(
            large["summary"]["statements"].as_u64(),
            small["summary"]["statements"].as_u64().map(|n| n + fillers),
            "seed {seed}"
        );
    }
}

/// A call by a name many files define is expanded with each distinct definition that reaches a
/// sink (a copy counts once), up to 64; past that the call is one finding naming the bound,
/// with nothing expanded. A definition left unexpanded because another's expansion spent the
/// call's bound is a finding too, not dropped.
#[test]
fn a_call_past_the_bound_on_definitions_fails_closed_naming_it() {
    // `lib.rs` calls `m!` with a leak; `d{i}.rs` defines `m!`, every other one logging.
    let crate_of = |defs: &[String]| {
        let mut lib = String::from("pub struct P {\n    pub name: String,\n}\n");
        for i in 0..defs.len() {
            let _ = writeln!(lib, "#[macro_use]\nmod d{i};");
        }
        lib.push_str("pub fn handler(p: &P) {\n    m!(p.name);\n}\n");
        let mut files = vec![("Cargo.toml".to_owned(), MANIFEST.to_owned())];
        files.push(("src/lib.rs".to_owned(), lib));
        for (i, text) in defs.iter().enumerate() {
            files.push((format!("src/d{i}.rs"), text.clone()));
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (&**a, &**b)).collect();
        Tree::new(&files).json(&[], 1)
    };
    let def = |i: usize, body: &str| {
        format!(
            "macro_rules! m {{\n    (step {i}) => {{}};\n    ($user_id:expr) => {{ {body} }};\n}}\n"
        )
    };
    let logs = |i: usize| def(i, &format!("tracing::info!(\"{i}: {{}}\", $user_id)"));
    let quiet = |i: usize| def(i, "let _ = $user_id;");
    // The findings, as (rule, message), each asserted to be at the call, on line 5 + 2n.
    let call = |json: &Value, defs: usize| -> Vec<(String, String)> {
        let line = 5 + 2 * u64::try_from(defs).expect("small");
        json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                let text = |k: &str| f[k].as_str().expect(k).to_owned();
                assert_eq!(
                    (text("file"), f["line"].as_u64()),
                    ("src/lib.rs".into(), Some(line))
                );
                (text("rule"), text("message"))
            })
            .collect()
    };
    // 64 distinct definitions that log, their copies and those that do not: each is expanded.
    let mut defs: Vec<String> = (0..64).map(logs).collect();
    defs.extend((0..20).map(|_| logs(0)));
    defs.extend((64..100).map(quiet));
    let json = crate_of(&defs);
    assert_eq!(
        call(&json, defs.len()),
        [(
            "phi::interpolation".to_owned(),
            "`name` contains the deny stem `name` (through `m!`)".to_owned()
        )],
        "{json:#}"
    );
    // One more that logs: the call is past the bound, a finding that names it.
    defs.push(logs(64));
    let json = crate_of(&defs);
    assert_eq!(
        call(&json, defs.len()),
        [(
            "phi::unchecked-wrapper".to_owned(),
            "`m!` reaches a log, but it has 65 definitions that do, over phi-lint's bound of 64 \
             definitions expanded for one call, so the values it passes are not checked"
                .to_owned()
        )],
        "{json:#}"
    );
    // Two definitions: one leaks, but its expansion (a table of 100,001 elements) is over the
    // call's bound of 200,000 token trees; the other, expanded, logs a count. The first is not
    // dropped for the second.
    let table = "0, ".repeat(100_001);
    let defs = [
        def(
            0,
            &format!("tracing::info!(\"{{}}\", $user_id); let _ = [{table}];"),
        ),
        def(1, "tracing::info!(count = $user_id.len())"),
    ];
    let json = crate_of(&defs);
    assert_eq!(
        call(&json, defs.len()),
        [(
            "phi::unchecked-wrapper".to_owned(),
            "`m!` reaches a log, but its expansion exceeds phi-lint's bounds, so the values it \
             passes are not checked"
                .to_owned()
        )],
        "{json:#}"
    );
}

#[test]
fn a_file_include_reads_as_an_expression_is_linted_as_a_body() {
    // rustc reads these where an expression goes; they are not files of items.
    let lib = "pub fn f(patient: &Patient) -> u32 {\n    let table: Vec<&str> = include!(\"table.in\");\n    \
               let n: u32 = include!(\"n.in\");\n    include!(\"logs.in\")\n}\n\
               pub struct Patient { pub name: String }\n";
    let tree = Tree::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", lib),
        ("src/table.in", "vec![\"a\", \"b\"]\n"),
        ("src/n.in", "42\n"),
        (
            "src/logs.in",
            "{\n    tracing::info!(\"{}\", patient.name);\n    n\n}\n",
        ),
    ]);
    let json = tree.json(&[], 1);
    assert_eq!(errors(&json), Vec::<String>::new(), "{json:#}");
    assert_eq!(files_with_findings(&json), ["src/logs.in"], "{json:#}");
    let finding = &json["findings"][0];
    assert_eq!(
        (finding["line"].as_u64(), finding["column"].as_u64()),
        (Some(2), Some(26))
    );
    // A file of neither items nor statements is still refused, by name.
    tree.write("src/n.in", "42 +\n");
    let json = tree.json(&[], 2);
    assert_eq!(errors(&json).len(), 1, "{json:#}");
    assert!(
        errors(&json)[0].starts_with("src/n.in: \"cannot parse"),
        "{json:#}"
    );
}

/// A workspace member the scan cannot lint is an error, never a member dropped without a word:
/// a pattern cargo rejects, one that leaves the scan root, an absolute path.
#[test]
fn a_workspace_member_outside_the_root_or_of_a_bad_pattern_is_an_error() {
    let manifest = format!(
        "{MANIFEST}\n[workspace]\nmembers = [\"crates/*\", \"[\", \"../*\", \"../sibling\", \"/abs/x\"]\n"
    );
    let tree = Tree::new(&[
        ("Cargo.toml", &manifest),
        ("src/lib.rs", SAFE),
        ("crates/a/Cargo.toml", &MANIFEST.replace("\"a\"", "\"b\"")),
        ("crates/a/src/lib.rs", ONE_LEAK),
    ]);
    let json = tree.json(&[], 2);
    let errors = errors(&json);
    let want = [
        "workspace member `[` is not a valid pattern",
        "workspace member `../*` is outside the scan root",
        "workspace member `../sibling` is outside the scan root",
        "workspace member `/abs/x` is an absolute path",
    ];
    assert_eq!(errors.len(), want.len(), "{json:#}");
    for (got, want) in errors.iter().zip(want) {
        assert!(got.contains(want), "{want}: {json:#}");
    }
    // The members it can reach are still linted.
    assert_eq!(
        files_with_findings(&json),
        ["crates/a/src/lib.rs"],
        "{json:#}"
    );
}
