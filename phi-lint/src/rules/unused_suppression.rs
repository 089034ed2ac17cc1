//! `phi::unused-suppression`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::unused-suppression",
    summary: "a suppression comment suppresses no finding",
    help: "remove the comment, or move it to the line above the statement it is meant for",
    docs: r#"### What it does
Flags a `// phi-lint: allow(...)` comment that is not on, or directly above, a statement with a
finding it suppresses.

### Why is this bad?
A stale suppression is a reserve: the next leak written on that line is silently allowed.

### Example
```rust,ignore
// phi-lint: allow(reason = "was a name once")
tracing::info!(user_id = %user.id, "ok");
```

### Use instead
```rust,ignore
tracing::info!(user_id = %user.id, "ok");
```
"#,
};

/// The message of a suppression that suppresses nothing.
pub(crate) const MESSAGE: &str = "this suppression does not cover any finding";
