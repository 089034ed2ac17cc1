//! `phi::suppression-reason`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::suppression-reason",
    summary: "a suppression comment has no reason, so it suppresses nothing",
    help: "say why the value is safe: `// phi-lint: allow(phi::interpolation, reason = \"...\")`",
    docs: r#"### What it does
Flags a `// phi-lint: allow(...)` comment without a non-empty `reason = "..."`, or one whose
rule code is unknown. Such a comment suppresses nothing.

### Why is this bad?
A suppression is a claim that a value is safe to log. Without a reason a reviewer cannot check
the claim, and a later change to the value cannot be judged against it.

### Example
```rust,ignore
// phi-lint: allow(phi::interpolation)
tracing::info!(code = %reading.code, "stored");
```

### Use instead
```rust,ignore
// phi-lint: allow(phi::interpolation, reason = "a LOINC code names the test, not the person")
tracing::info!(code = %reading.code, "stored");
```
"#,
};
