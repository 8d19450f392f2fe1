//! The server's tools from the command line: `scholia tools` lists them, `scholia call TOOL
//! '{json}'` runs one on the vault and prints its answer. The call goes through the same MCP
//! handler an agent talks to (an in-process client over a pipe), so the CLI and the server
//! cannot drift apart: same tools, same checks, same answers.

use std::io::Read as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result, anyhow, bail};
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Map, Value};

use super::server::{ConfirmPolicy, Scholia, Settings};
use crate::index::service::IndexOptions;
use crate::vault::config::{self, Env};

/// `scholia tools` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct ToolsArgs {
    /// The vault (default: OBSIDIAN_VAULT_PATH, .zotero-mcp.toml, or the folder holding .obsidian/).
    #[arg(long)]
    pub vault: Option<PathBuf>,
    /// Print every tool's full description and input schema as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `scholia call` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct CallArgs {
    /// The tool (`scholia tools` lists them).
    pub tool: String,
    /// Its arguments: a JSON object (default `{}`), or `-` to read it from standard input.
    pub arguments: Option<String>,
    /// The vault (default: OBSIDIAN_VAULT_PATH, .zotero-mcp.toml, or the folder holding .obsidian/).
    #[arg(long)]
    pub vault: Option<PathBuf>,
    /// Approve a call that needs approval (a delete, an overwrite, a move): adds `confirm: true`.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Refuse every tool that writes.
    #[arg(long)]
    pub read_only: bool,
    /// Print the answer's text rendering instead of its JSON.
    #[arg(long)]
    pub text: bool,
    /// Print the whole answer as the server sends it (compact JSON of the MCP result: content,
    /// structuredContent, isError): what a call costs a client, byte for byte.
    #[arg(long, conflicts_with = "text")]
    pub wire: bool,
}

/// Lists the tools.
pub fn tools(args: ToolsArgs) -> Result<()> {
    with_server(args.vault, false, |client| async move {
        let tools = client.list_all_tools().await?;
        if args.json {
            return print(&serde_json::to_string_pretty(&tools)?);
        }
        let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
        let mut out = String::new();
        for tool in &tools {
            let description = tool.description.as_deref().unwrap_or_default();
            let first = description.split_inclusive(". ").next().unwrap_or(description).trim();
            out += &format!("{:width$}  {first}\n", tool.name);
        }
        out += &format!(
            "\n{} tools; `scholia call TOOL '{{json}}'` runs one, `--json` shows their schemas",
            tools.len()
        );
        print(&out)
    })
}

/// Runs one tool and prints its answer; a failed call is an error (exit status 1) with the
/// tool's message.
pub fn call(args: CallArgs) -> Result<()> {
    let mut arguments = parse_arguments(args.arguments.as_deref())?;
    if args.yes {
        arguments.insert("confirm".into(), Value::Bool(true));
    }
    let tool = args.tool.clone();
    let result: CallToolResult = with_server(args.vault, args.read_only, |client| async move {
        let known = client.list_all_tools().await?;
        if !known.iter().any(|t| t.name == tool) {
            let mut names: Vec<&str> = known.iter().map(|t| t.name.as_ref()).collect();
            names.sort_unstable();
            bail!("no tool named {tool:?}; the tools are: {}", names.join(", "));
        }
        let request = CallToolRequestParams::new(tool.clone()).with_arguments(arguments);
        Ok(client.call_tool(request).await?)
    })?;
    if args.wire {
        return print(&serde_json::to_string(&result)?);
    }
    let structured = result.structured_content.clone().unwrap_or(Value::Null);
    if result.is_error == Some(true) {
        let message = structured["error"].as_str().map(str::to_string).unwrap_or_else(|| text_of(&result));
        let hint = if message.contains("confirm: true") { " (here: add --yes)" } else { "" };
        bail!("{}: {message}{hint}", args.tool);
    }
    if args.text || structured.is_null() {
        print(&text_of(&result))
    } else {
        print(&serde_json::to_string_pretty(&structured)?)
    }
}

/// Prints `text`, and a newline unless it ends with one; a closed pipe (`| head`) ends the
/// output quietly. Every output of the command line goes through here (`println!` would panic).
pub fn print(text: &str) -> Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    match write!(stdout, "{text}{newline}").and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn parse_arguments(raw: Option<&str>) -> Result<Map<String, Value>> {
    let text = match raw {
        None => return Ok(Map::new()),
        Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the arguments from standard input")?;
            text
        }
        Some(text) => text.to_string(),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => bail!("the arguments must be a JSON object, like '{{\"path\": \"Notes/Idea.md\"}}'"),
        Err(e) => {
            bail!("the arguments are not valid JSON ({e}); write them like '{{\"query\": \"retrieval\"}}'")
        }
    }
}

fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

/// Serves the vault in process and runs `f` with a client connected to it. The index is built
/// first (in parallel: the fastest way to complete answers for a one-off call); no watcher.
fn with_server<F, Fut, T>(vault: Option<PathBuf>, read_only: bool, f: F) -> Result<T>
where
    F: FnOnce(rmcp::service::RunningService<rmcp::RoleClient, ()>) -> Fut,
    Fut: std::future::Future<Output = Result<T>>,
{
    let config = config::resolve(vault.as_deref(), &Env::from_process())?;
    // The person at the terminal is the one approving: `--yes` says so for calls that need it.
    let settings = Settings { read_only, confirm: ConfirmPolicy::Destructive, ..Settings::new(config) };
    let options = IndexOptions { watch: false, poll: false, ..IndexOptions::default() };
    let server = Scholia::with_index(settings, options).context("cannot open the vault")?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let index = std::sync::Arc::clone(&server.index);
        tokio::task::spawn_blocking(move || index.wait_ready(Duration::from_secs(600))).await?;
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_io).await.map_err(|e| anyhow!("cannot reach the tools: {e}"))?;
        f(client).await
    })
}
