//! `phi::print`.

use super::RuleInfo;

pub(super) const INFO: RuleInfo = RuleInfo {
    code: "phi::print",
    summary: "stdout, stderr or a panic message receives a value that is not safe",
    help: "print only ids, counts, durations, statuses or type names, or log through tracing",
    docs: r#"### What it does
Checks `print!`, `println!`, `eprint!`, `eprintln!`, `dbg!`, and the messages of `panic!`,
`unreachable!`, `todo!`, `unimplemented!` and the `assert!` family (whose `assert_eq!` and
`assert_ne!` print both operands on failure), and `write!`/`writeln!` whose destination names
`stdout` or `stderr`, with the same classes as `phi::interpolation`.

### Why is this bad?
A container's logs are its stdout and stderr. A `println!` bypasses every redacting layer and
lands in `docker logs`, the node's log files and the log shipper.

### Example
```rust,ignore
println!("imported {}", reading.comment);
```

### Use instead
```rust,ignore
println!("imported reading {}", reading.id);
```
"#,
};
