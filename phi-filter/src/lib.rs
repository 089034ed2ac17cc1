//! Runtime layer of phiguard: a redacting tracing layer (a later issue), and the field-name
//! classifier it shares with phi-lint, so the static and runtime layers agree on what may be logged.

pub mod names;
