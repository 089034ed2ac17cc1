//! `phi::unchecked-wrapper`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::unchecked-wrapper",
    summary: "a macro_rules! forwards its arguments to a logging macro, but its calls are not checked",
    help: "list the macro under `[wrappers]` in phi-lint.toml with the macro it forwards to, e.g. `admin_error = \"tracing::error\"`",
    docs: r#"### What it does
Flags a `macro_rules!` whose body passes repeated token-tree arguments (`$($arg)*`) to a
logging or print macro, when the macro is not listed under `[wrappers]` in the configuration.

### Why is this bad?
Calls to a wrapper macro look like any user macro to a linter. Unless phi-lint knows the
grammar it forwards to, every value passed through the wrapper reaches the log unchecked.

### Example
```rust,ignore
macro_rules! admin_error {
    ($($arg:tt)*) => { tracing::error!(target: "admin", $($arg)*) };
}
```

### Use instead
```toml
# phi-lint.toml
[wrappers]
admin_error = "tracing::error"
```
"#,
};
