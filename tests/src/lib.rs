//! Workspace-level end-to-end tests for phiguard; the tests live in `tests/it/`.
