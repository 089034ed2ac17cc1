//! `phi::interpolation`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::interpolation",
    summary: "a log statement interpolates a value that is not an opaque id, count, duration, status or type name",
    help: "log an opaque identifier, a count, a duration, a status or a type name instead (e.g. `user_id = %user.id`), or add a safe function to `safe-functions`",
    docs: r#"### What it does
Checks every value that a `tracing` or `log` macro records (fields, key-values and format
arguments, including inline captures like `{x}`) and flags each one that is not, after peeling
`&`, `*`, casts and class-preserving conversions such as `.to_string()`:

- a constant (a literal, a `SCREAMING_CASE` path, an enum or unit path);
- an opaque identifier (`id`, `*_id`, `*_ids`, `*_uuid`);
- a count (`.len()`, `.is_empty()`, `count`, `n_*`, `*_bytes`, `limit`, ...);
- a duration (`.elapsed()`, `.as_millis()`, `*_ms`, `latency`, `timeout`, ...);
- a status code (`.status()`, `.code()`, `status`, `exit_code`, ...);
- a type name (`type_name::<T>()`, `phi_filter::error_type(&e)`, `*_kind`, `level`);
- a composition of those (arithmetic, comparisons, `if`/`match` arms, tuples, nested `format!`);
- a call to a function listed in `safe-functions`.

A name containing a deny stem (`mrn`, `email`, `name`, `member`, `patient`, `comment`, ...) is
never allowed, whatever its class.

### Why is this bad?
A service that answers questions about a health record logs about that record all day. A value
that is not provably one of the safe shapes may be a reading, a comment, a name or a medical record
number: protected health information that must not reach a log, a log pipeline or a vendor.

### Example
```rust,ignore
tracing::info!(patient = ?patient, "loaded record for {}", user.email);
```

### Use instead
```rust,ignore
tracing::info!(patient_id = %patient.id, readings = patient.readings.len(), "loaded record");
```
"#,
};

/// The message of a value whose name holds a deny stem (also used by `phi::print`).
pub(crate) fn denied(name: &str, stem: &str) -> String {
    format!("`{name}` contains the deny stem `{stem}`")
}

/// The message of a value in no safe class (also used by `phi::print`).
pub(crate) fn unknown(culprit: &str) -> String {
    format!("`{culprit}` is not an opaque id, count, duration, status or type name")
}

/// The message of a value whose type refutes the class its name claims (also used by
/// `phi::print`): `class` with its article (`an opaque id`), `what` the kind of type.
pub(crate) fn refuted(name: &str, class: &str, ty: &str, what: &str) -> String {
    format!(
        "`{name}` is named as {class}, but its type `{ty}` is {what}, which can hold personal data"
    )
}

/// The message of a local bound to a value that is not allowed (also used by `phi::print` and
/// `phi::error-message`): `because` names the hops and the value the chain started from.
pub(crate) fn bound(local: &str, because: &str) -> String {
    format!("`{local}` is bound to {because}")
}
