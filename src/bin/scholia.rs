//! The `scholia` binary: parse arguments, open the vault, run a command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, anyhow};
use clap::{Parser, Subcommand};
use scholia::annotations::{self, ParseOptions};
use scholia::library;
use scholia::mcp::print;
use scholia::synthesis::{self, RenderOptions};
use scholia::vault::config::{self, Config, Env};
use scholia::vault::{FsVault, Vault, VaultPath, naming};

/// Zotero annotations in Obsidian as data, summaries and syntheses.
#[derive(Debug, Parser)]
#[command(name = "scholia", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the vault to AI agents over MCP (stdio, or streamable HTTP with --http).
    Mcp(scholia::mcp::McpArgs),
    /// List the MCP server's tools (the same tools `scholia call` runs).
    Tools(scholia::mcp::ToolsArgs),
    /// Run one of the server's tools on the vault and print its answer as JSON, e.g.
    /// `scholia call search_vault '{"query": "retrieval"}'`.
    Call(scholia::mcp::CallArgs),
    /// Print a note's annotations as JSON.
    Parse {
        /// The annotation note.
        file: PathBuf,
        /// Keep only these colours (meanings such as positive, question, or hexes such as #5fb236).
        #[arg(long, value_delimiter = ',')]
        colors: Vec<String>,
        /// The vault whose Zotero Integration template wrote the note (default: the nearest folder
        /// above the note that holds .obsidian/).
        #[arg(long)]
        vault: Option<PathBuf>,
        /// Read the note with the built-in rules only, ignoring the vault's templates.
        #[arg(long)]
        no_template: bool,
    },
    /// Say what Scholia finds in the vault: Zotero Integration's settings and templates, every
    /// annotation note with its citekey, and notes whose annotations could not be read.
    Doctor {
        /// The vault (default: OBSIDIAN_VAULT_PATH, .zotero-mcp.toml, or the folder holding .obsidian/).
        #[arg(long)]
        vault: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print (or write) the summary of one annotation note.
    Summarize {
        /// The annotation note.
        file: PathBuf,
        #[command(flatten)]
        common: RenderArgs,
    },
    /// Print (or write) the synthesis of several annotation notes.
    Synthesize {
        /// The annotation notes.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The synthesis theme (default: the strongest theme the notes share).
        #[arg(long)]
        theme: Option<String>,
        #[command(flatten)]
        common: RenderArgs,
    },
}

#[derive(Debug, clap::Args)]
struct RenderArgs {
    /// The vault (default: OBSIDIAN_VAULT_PATH, .zotero-mcp.toml, or the folder holding .obsidian/).
    #[arg(long)]
    vault: Option<PathBuf>,
    /// The `created` date, YYYY-MM-DD (default: today).
    #[arg(long)]
    date: Option<String>,
    /// Write the note into the synthesis folder and print its path, instead of printing it.
    #[arg(long)]
    write: bool,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let chain: Vec<String> = err.chain().map(ToString::to_string).collect();
            eprintln!("scholia: {}", chain.join(": "));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Mcp(args) => scholia::mcp::run(args)?,
        Command::Tools(args) => scholia::mcp::tools(args)?,
        Command::Call(args) => scholia::mcp::call(args)?,
        Command::Parse { file, colors, vault, no_template } => {
            let mut options = parse_options_for(&file, vault.as_deref());
            if no_template {
                options.templates.clear();
                options.colour_labels.clear();
            }
            let keep = library::color_filter(&colors, &options).map_err(|e| anyhow!(e))?;
            let text = read_note(&file)?;
            let absolute = std::path::absolute(&file).unwrap_or(file);
            let mut doc = annotations::parse(&text, &absolute.display().to_string(), &options);
            if !keep.is_empty() {
                doc.annotations.retain(|a| {
                    keep.iter()
                        .any(|k| *k == a.color.to_lowercase() || a.color_hex.as_deref() == Some(k.as_str()))
                });
            }
            print(&serde_json::to_string_pretty(&doc)?)?;
        }
        Command::Doctor { vault, json } => doctor(vault.as_deref(), json)?,
        Command::Summarize { file, common } => {
            let ctx = Context::open(&common, std::slice::from_ref(&file))?;
            let source = ctx.source(&file)?;
            let rendered = synthesis::summarize_with_report(&source, &ctx.render);
            warn(&rendered.report);
            let text = rendered.markdown;
            let title = source.doc.title.clone();
            let vars =
                [("title", title.as_str()), ("citekey", &source.doc.citekey), ("date", &ctx.render.date)];
            ctx.emit(&text, naming::SUMMARY_PATTERN, &vars, common.write)?;
        }
        Command::Synthesize { files, theme, common } => {
            let mut ctx = Context::open(&common, &files)?;
            ctx.render.theme = theme;
            let sources = files.iter().map(|f| ctx.source(f)).collect::<Result<Vec<_>>>()?;
            let rendered = synthesis::synthesize_with_report(&sources, &ctx.render)?;
            warn(&rendered.report);
            let text = rendered.markdown;
            let title = synthesis::synthesis_title(&sources, &ctx.render);
            let vars = [("theme", title.as_str()), ("date", &ctx.render.date)];
            ctx.emit(&text, naming::SYNTHESIS_PATTERN, &vars, common.write)?;
        }
    }
    Ok(())
}

/// Prints what a rendering left out, and any link that would not resolve, on stderr.
fn warn(report: &synthesis::RenderReport) {
    for warning in report.warnings() {
        eprintln!("warning: {warning}");
    }
}

/// A vault opened for rendering, with the vault's file list for link text.
struct Context {
    config: Config,
    vault: FsVault,
    resolver: scholia::note::LinkResolver,
    /// The vault's templates and colours.
    options: ParseOptions,
    render: RenderOptions,
}

impl Context {
    fn open(args: &RenderArgs, notes: &[PathBuf]) -> Result<Self> {
        let env = Env::from_process();
        let config = match config::resolve(args.vault.as_deref(), &env) {
            Err(config::ConfigError::NoVault) => vault_above(notes).map_or_else(
                || Err(anyhow!(config::ConfigError::NoVault)),
                |vault| Ok(config::resolve(Some(&vault), &env)?),
            )?,
            other => other?,
        };
        let vault = FsVault::open(&config.vault)?;
        let resolver = library::resolver(&vault.list(&VaultPath::root())?);
        let date = match &args.date {
            Some(date) => date
                .parse::<jiff::civil::Date>()
                .map_err(|_| anyhow!("--date {date:?} is not a date; write it as YYYY-MM-DD"))?
                .to_string(),
            None => jiff::Zoned::now().date().to_string(),
        };
        let setup = library::setup::discover(&vault, config.template_path.as_deref());
        let options = setup.parse_options(&config.colors);
        let palette = (!config.colors.is_empty()).then(|| "[colors] in the configuration".to_string());
        Ok(Self {
            config,
            vault,
            resolver,
            options,
            render: RenderOptions { date, palette, ..RenderOptions::default() },
        })
    }

    fn source(&self, file: &Path) -> Result<synthesis::SourceNote> {
        read_note(file)?;
        let path = self.vault.vault_path_of(file).ok_or_else(|| {
            anyhow!(
                "{} is not inside the vault {}; pass --vault with the vault that holds it",
                file.display(),
                self.config.vault.display()
            )
        })?;
        Ok(library::load_source(&self.vault, &self.resolver, &path, &self.options)?)
    }

    fn emit(&self, text: &str, pattern: &str, vars: &[(&str, &str)], write: bool) -> Result<()> {
        if !write {
            print(text)?;
            return Ok(());
        }
        let path = library::write_result(&self.vault, &self.config.synthesis_folder, pattern, vars, text)
            .with_context(|| format!("writing into {}", self.config.synthesis_folder))?;
        print(&self.vault.absolute(&path))?;
        Ok(())
    }
}

/// The parse options of the vault that holds `file` (`--vault`, else the nearest folder above it
/// with `.obsidian/`): its Zotero Integration templates compiled. A note outside any vault is
/// read with the built-in rules.
fn parse_options_for(file: &Path, vault: Option<&Path>) -> ParseOptions {
    let env = Env::from_process();
    let root = match vault {
        Some(v) => Some(v.to_path_buf()),
        None => vault_above(std::slice::from_ref(&file.to_path_buf())),
    };
    let Some(root) = root else { return ParseOptions::default() };
    let config = config::resolve(Some(&root), &env).ok();
    let Ok(vault) = FsVault::open(&root) else { return ParseOptions::default() };
    let setup = library::setup::discover(&vault, config.as_ref().and_then(|c| c.template_path.as_deref()));
    setup.parse_options(config.as_ref().map_or(&[], |c| &c.colors))
}

/// `scholia doctor`: the report on the vault, as text or JSON.
fn doctor(vault: Option<&Path>, json: bool) -> Result<()> {
    let config = config::resolve(vault, &Env::from_process())?;
    let fs = FsVault::open(&config.vault)?;
    let setup = library::setup::discover(&fs, config.template_path.as_deref());
    let options = setup.parse_options(&config.colors);
    let report = library::doctor::examine(&fs, &setup, &options)?;
    if json {
        let mut value = serde_json::to_value(&report)?;
        value["vault"] = serde_json::json!(config.vault.display().to_string());
        print(&serde_json::to_string_pretty(&value)?)?;
    } else {
        print(&format!("Vault: {}\n{report}", config.vault.display()))?;
    }
    Ok(())
}

/// The nearest folder above the first note that holds `.obsidian/`.
fn vault_above(notes: &[PathBuf]) -> Option<PathBuf> {
    let first = std::path::absolute(notes.first()?).ok()?;
    first.ancestors().skip(1).find(|dir| dir.join(".obsidian").is_dir()).map(Path::to_path_buf)
}

fn read_note(file: &Path) -> Result<String> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    String::from_utf8(bytes).map_err(|_| anyhow!("{} is not UTF-8 text", file.display()))
}
