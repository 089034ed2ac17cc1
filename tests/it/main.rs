//! Workspace-level end-to-end tests: one binary, so the suite links once.

mod dogfood;
mod names;
