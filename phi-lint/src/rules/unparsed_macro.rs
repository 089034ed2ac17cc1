//! `phi::unparsed-macro`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::unparsed-macro",
    summary: "a logging macro's arguments could not be parsed, so its values could not be checked",
    help: "write the call in the macro's documented grammar so its values can be checked",
    docs: r#"### What it does
Flags a call to a logging, print or configured wrapper macro whose arguments do not follow the
macro's grammar (for example inside another macro's token stream, where the compiler never
checks them), or whose format string is malformed.

### Why is this bad?
A lint that skips what it cannot read silently passes it. phi-lint fails closed: a call it could
not check is a finding until it is written so that it can be.

### Example
```rust,ignore
my_macro! { tracing::info!(user = , "oops") }
```

### Use instead
```rust,ignore
my_macro! { tracing::info!(user_id = %user.id, "ok") }
```
"#,
};

/// The message of a sink call whose arguments do not parse.
pub(crate) fn message(path: &str, error: &dyn std::fmt::Display) -> String {
    format!("cannot check the arguments of `{path}!`: {error}")
}

/// The message of an `#[instrument]` whose arguments do not parse.
pub(crate) fn instrument(error: &dyn std::fmt::Display) -> String {
    format!("cannot check `#[instrument]` arguments: {error}")
}
