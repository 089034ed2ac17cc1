//! `phi::instrument-ret`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::instrument-ret",
    summary: "#[instrument(ret)] records a return value that is not safe",
    help: "drop `ret`, or record a safe summary of the result as a field inside the function",
    docs: r#"### What it does
Flags `#[instrument(ret)]` unless the function's return type (the `Ok` type of a `Result`) is
itself safe: `()`, a fixed-message error, or a type whose name is in a safe class (`UserId`,
`Duration`, `StatusCode`, `ErrorKind`) and whose definition, if the scan holds it, agrees (a
`UserId(String)` is free text, a login name as likely as an opaque id), or unless the function's
own name is in a safe class and the type does not refute it (`fn row_count() -> usize`, not
`fn resolve_user_id() -> String`). A bool or a number is safe only under such a name: an
`is_pregnant()` returns a bool. Without `err`, `ret` records the whole `Result`, so its error
type must be safe too.

### Why is this bad?
`ret` logs the whole returned value with `Debug`. A function that returns readings, a record or
a row returns the data this project exists to protect.

### Example
```rust,ignore
#[instrument(skip_all, ret)]
fn latest_reading(&self, code: &str) -> Option<Reading> { /* ... */ }
```

### Use instead
```rust,ignore
#[instrument(skip_all)]
fn latest_reading(&self, code: &str) -> Option<Reading> {
    let r = /* ... */;
    tracing::debug!(found = r.is_some(), "latest reading");
    r
}
```
"#,
};

/// The message of a return value recorded by `ret`.
pub(crate) fn message(ty: &str) -> String {
    format!("`#[instrument(ret)]` records the returned `{ty}` with Debug")
}
