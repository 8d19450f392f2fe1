//! The MCP server (feature `mcp`): `scholia mcp` over stdio, or streamable HTTP with a bearer
//! token. One handler ([`Scholia`]) with the tools, prompts, resources and completions; the only
//! module that knows JSON-RPC.

mod approval;
mod cli;
mod guard;
mod http;
mod indexed;
mod linkcheck;
mod names;
mod reply;
mod save;
mod server;
mod status;
mod stdio;
#[cfg(test)]
mod subscription_tests;
mod subscriptions;
mod tools;

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context as _, Result, bail};
use rmcp::ServiceExt as _;

pub use cli::{CallArgs, ToolsArgs, call, print, tools};
pub use server::{ConfirmPolicy, Scholia, Settings};
pub use status::Transport;
pub use tools::{ToolFacts, Toolset, tool_facts};

use crate::vault::config::{self, Env};

/// `scholia mcp` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    /// The vault (default: OBSIDIAN_VAULT_PATH, .zotero-mcp.toml, or the folder holding .obsidian/).
    #[arg(long)]
    pub vault: Option<PathBuf>,
    /// Serve streamable HTTP at ADDR (e.g. 127.0.0.1:8765) on /mcp instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Allow --http on an address other than loopback (the token is then the only protection).
    #[arg(long)]
    pub allow_remote: bool,
    /// Serve HTTP without a bearer token, for local test clients; refused on non-loopback addresses.
    #[arg(long, hide = true)]
    pub insecure_no_auth: bool,
    /// Hide and refuse every tool that writes.
    #[arg(long)]
    pub read_only: bool,
    /// Which calls need the user's approval (asked through the client, else `confirm: true`).
    #[arg(long, value_enum, default_value_t = ConfirmPolicy::Destructive)]
    pub confirm: ConfirmPolicy,
    /// Let the read tools return Obsidian's settings files (.obsidian/), which may hold plugins'
    /// API keys; .git/ is never readable.
    #[arg(long)]
    pub read_config: bool,
    /// Expose only these toolsets, comma-separated (default: all). --read-only applies after them.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "SETS")]
    pub toolsets: Vec<Toolset>,
}

/// Runs the server until the client disconnects (stdio) or the process is interrupted (HTTP).
pub fn run(args: McpArgs) -> Result<()> {
    let config = config::resolve(args.vault.as_deref(), &Env::from_process())?;
    let transport = match args.http {
        None => Transport::Stdio,
        Some(address) => Transport::Http { address, auth: !args.insecure_no_auth },
    };
    let settings = Settings {
        read_only: args.read_only,
        confirm: args.confirm,
        toolsets: args.toolsets.clone(),
        transport,
        read_config: args.read_config,
        ..Settings::new(config)
    };
    // Fail before serving when the vault cannot be opened (without starting an index for it).
    crate::vault::FsVault::open(&settings.config.vault).context("cannot open the vault")?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        match args.http {
            None => serve_stdio(settings).await,
            Some(addr) => {
                if !addr.ip().is_loopback() && (!args.allow_remote || args.insecure_no_auth) {
                    bail!(
                        "refusing to serve on {addr}: it is not a loopback address; pass --allow-remote (with a token) if you mean it"
                    );
                }
                http::serve(settings, addr, !args.insecure_no_auth).await
            }
        }
    })
}

async fn serve_stdio(settings: Settings) -> Result<()> {
    eprintln!("scholia: serving MCP on stdio for the vault {}", settings.config.vault.display());
    let (stdin, stdout) = rmcp::transport::stdio();
    let service = Scholia::new(settings)?.serve(stdio::Stdio::new(stdin, stdout)).await?;
    service.waiting().await?;
    Ok(())
}
