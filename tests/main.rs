//! Integration tests: one binary, one module per area, shared helpers in `check`.

mod annotations;
#[cfg(feature = "mcp")]
mod attack;
mod check;
mod cli;
#[cfg(feature = "mcp")]
mod crash;
mod example_vault;
mod graph;
mod hostile;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "mcp")]
mod mcp_approval;
#[cfg(feature = "mcp")]
mod mcp_client;
#[cfg(feature = "mcp")]
mod mcp_files;
#[cfg(feature = "mcp")]
mod mcp_index;
#[cfg(feature = "mcp")]
mod mcp_paging;
#[cfg(feature = "mcp")]
mod mcp_subscriptions;
#[cfg(feature = "mcp")]
mod mcp_vault_tools;
mod note;
mod rewrite;
#[cfg(feature = "mcp")]
mod robust;
mod synthesis;
mod synthesis_families;
mod vault;
mod vault_safety;
/// The benchmarks' vault generator, for tests that need a big vault.
#[cfg(feature = "mcp")]
#[path = "../benches/support/vaultgen.rs"]
mod vaultgen;
mod zotero_paths;
