//! phi-filter's integration tests: one binary, so the suite links once.

// Test helpers are `pub` for the sibling modules of this binary.
#![allow(unreachable_pub)]

mod alloc;
mod composition;
mod constructors;
mod install;
#[cfg(feature = "otel")]
mod otel;
mod policy_file;
mod props;
mod pseudonyms;
mod sentinels;
mod support;
