//! `answers`, the command line of the answers layer: [`cli::main`] is the whole command, and
//! `src/main.rs` only calls it. The layer itself is in its own packages (see ARCHITECTURE.md):
//! `answers-server` serves it, `answers-demo` seeds the demo record.

pub mod cli;
