//! CLI tests: being written.
