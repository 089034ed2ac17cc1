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

/// What the message of errors held in a container says (see [`within`]): `phi-lint fix` leaves
/// those alone, as the container's type name would drop what the value said (was there an error,
/// how many).
pub(crate) const WITHIN: &str = "holds errors in ";

/// The message of errors logged inside a container (`Option<StoreError>`, `Vec<StoreError>`).
pub(crate) fn within(culprit: &str, container: &str) -> String {
    format!(
        "`{culprit}` {WITHIN}{}: their messages can quote the data they failed on",
        article(container)
    )
}

/// `an `Option``, `a `Vec``.
pub(crate) fn article(container: &str) -> String {
    let a = if container.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    };
    format!("{a} `{container}`")
}

/// The message of `#[instrument(err)]` on a function whose error type is not safe.
pub(crate) fn instrument_err(error_type: &str) -> String {
    format!(
        "`#[instrument(err)]` records the message of the `{error_type}` error this function returns"
    )
}
