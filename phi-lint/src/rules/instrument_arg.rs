//! `phi::instrument-arg`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::instrument-arg",
    summary: "#[instrument] records an argument that is not an opaque id, count, duration, status or type name",
    help: "add `skip_all` and record only safe fields: `#[instrument(skip_all, fields(user_id = %user.id))]`",
    docs: r"### What it does
By default `#[instrument]` records every argument of the function, `self` included, with its
`Debug` form. This rule flags each recorded argument that is not skipped and whose name (or type,
such as `UserId` or `Duration`) is not in a safe class. A destructured argument records each
name it binds, with `Debug` (`Json(body): Json<Appointment>` records `body`): `skip(body)` skips
it, and each is judged by its name and type as an argument is. `fields(...)` entries are checked
like event fields.

### Why is this bad?
`#[instrument]` turns a function's whole input into log data: a `Patient`, a `Reading` or a
request body ends up in every span and every exported trace.

### Example
```rust,ignore
#[tracing::instrument]
async fn store_reading(&self, user_id: Uuid, reading: Reading) { /* ... */ }
```

### Use instead
```rust,ignore
#[tracing::instrument(skip_all, fields(user_id = %user_id))]
async fn store_reading(&self, user_id: Uuid, reading: Reading) { /* ... */ }
```
",
};

/// `self` is recorded.
pub(crate) const SELF: &str = "`self` is recorded with Debug";

/// The message of a name a destructured argument binds, in no safe class.
pub(crate) fn destructured(name: &str) -> String {
    format!("`{name}`, bound by a destructured argument, is recorded with Debug")
}

/// The message of an argument whose name holds a deny stem.
pub(crate) fn denied(name: &str, stem: &str) -> String {
    format!("argument `{name}` contains the deny stem `{stem}`")
}

/// The message of an argument in no safe class.
pub(crate) fn recorded(name: &str, ty: &str) -> String {
    format!(
        "argument `{name}: {ty}` is recorded, and is not an opaque id, count, duration, status or type name"
    )
}
