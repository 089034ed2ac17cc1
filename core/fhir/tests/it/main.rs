//! The importer's integration tests: one binary (fixtures generated, never committed).

mod backends;
mod canary;
mod doses;
mod fixtures;
mod import;
mod limits;
mod malformed;
mod support;
mod valid;
