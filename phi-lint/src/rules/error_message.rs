//! `phi::error-message`.

use super::RuleInfo;

pub(crate) mod fix;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::error-message",
    summary: "an error's message reaches a log",
    help: "log the error's type, never its message: `error_type = %phi_filter::error_type(&e)`",
    docs: r#"### What it does
Flags an error value recorded with its message: `%e`, `?err`, `"{e}"`, `e.to_string()`,
`err.root_cause()`, `err.source()`, a log key-value with the `:err` capture, and
`#[instrument(err)]` on a function whose error type is not itself a safe type.

### Why is this bad?
A database driver's error message quotes the statement with its bound parameters, and a parse
error quotes its input. Those are the values this project exists to protect. An error's *type*
says what went wrong without carrying any of them.

### Example
```rust,ignore
if let Err(e) = store.insert(&reading) {
    tracing::error!(error = %e, "insert failed");
}
```

### Use instead
```rust,ignore
if let Err(e) = store.insert(&reading) {
    tracing::error!(error_type = %phi_filter::error_type(&e), "insert failed");
}
```
"#,
};

/// The message of an error logged by value.
pub(crate) fn message(culprit: &str) -> String {
    format!("`{culprit}` is an error: its message can quote the data it failed on")
}

/// The message of `#[instrument(err)]` on a function whose error type is not safe.
pub(crate) fn instrument_err(error_type: &str) -> String {
    format!(
        "`#[instrument(err)]` records the message of the `{error_type}` error this function returns"
    )
}
