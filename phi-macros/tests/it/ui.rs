//! Compile-fail cases, one per refusal, with their diagnostics snapshotted in
//! `tests/ui/fail/*.stderr` (regenerate with `TRYBUILD=overwrite`), and compile-pass cases.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
