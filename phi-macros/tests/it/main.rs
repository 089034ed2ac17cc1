//! phi-macros' tests: one binary, so the suite links once.

mod runtime;
mod ui;
