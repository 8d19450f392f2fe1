//! The `scholia` binary: CLI and MCP server (feature `mcp`).

fn main() {}
