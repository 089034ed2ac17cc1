//! phi-lint's integration tests: one binary, so the suite links once.

mod cli;
mod rules;
