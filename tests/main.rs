//! Integration tests: one binary, one module per area, shared helpers in `check`.

mod annotations;
mod check;
mod cli;
mod example_vault;
mod graph;
#[cfg(feature = "mcp")]
mod mcp;
mod note;
mod rewrite;
mod synthesis;
mod vault;
