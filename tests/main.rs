//! Integration tests: one binary, one module per area, shared helpers in `check`.

mod annotations;
mod check;
mod cli;
mod example_vault;
mod graph;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "mcp")]
mod mcp_index;
mod note;
mod rewrite;
mod synthesis;
mod vault;
