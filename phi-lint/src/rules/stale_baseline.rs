//! `phi::stale-baseline`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::stale-baseline",
    summary: "a baseline entry grandfathers more findings than the code has",
    help: "run `phi-lint baseline` to prune the entry, and commit the smaller baseline with the fix",
    docs: r#"### What it does
Compares each entry of `phi-lint.baseline.json` with the findings of the same key (path, rule,
macro, field, expression, function). An entry whose count exceeds the findings is stale.

### Why is this bad?
The baseline may only shrink. A stale count is a reserve: the next identical leak in that function
would be grandfathered silently. The change that removed a leak must also prune the baseline.

### Example
```json
{"path": "src/db.rs", "rule": "phi::error-message", "macro": "error", "field": "error",
 "expr": "e", "function": "Store::insert", "count": 2}
```
with only one such finding left in `src/db.rs`.

### Use instead
```sh
phi-lint baseline   # prunes the count to 1
```
"#,
};
