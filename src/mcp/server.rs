//! The MCP handler: one struct, its tools (in `tools/`, one file per toolset), prompts, resources
//! and completions.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use rmcp::handler::server::router::{prompt::PromptRouter, tool::ToolRouter};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{NotificationContext, Peer, RequestContext, SubscriptionContext};
use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler, prompt, prompt_handler, prompt_router, tool_handler,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::status::Transport;
use super::subscriptions::{self, Subscriptions};
use super::tools::{self, Toolset};
use crate::annotations::ParseOptions;
use crate::index::service::{IndexOptions, IndexService};
use crate::library;
use crate::library::setup::Setup;
use crate::vault::config::Config;
use crate::vault::{FsVault, Vault, VaultError, VaultPath};

/// Which calls need the user's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ConfirmPolicy {
    /// Overwrites and deletes (the default).
    #[default]
    Destructive,
    /// Every call that writes.
    Writes,
    /// Nothing (the user trusts the agent).
    None,
}

impl ConfirmPolicy {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Destructive => "destructive",
            Self::Writes => "writes",
            Self::None => "none",
        }
    }
}

/// What the server was started with.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Vault and folders.
    pub config: Config,
    /// Refuse and hide the writing tools.
    pub read_only: bool,
    /// Which calls need approval.
    pub confirm: ConfirmPolicy,
    /// The toolsets exposed (empty: every set); `read_only` applies after them.
    pub toolsets: Vec<Toolset>,
    /// How clients reach the server (reported by `obsidian_check_status`).
    pub transport: Transport,
    /// Let the read tools return files in `.obsidian/` (never `.git/`).
    pub read_config: bool,
}

impl Settings {
    /// Every tool, writes allowed, approval for destructive calls, over stdio.
    pub fn new(config: Config) -> Self {
        Self {
            config,
            read_only: false,
            confirm: ConfirmPolicy::Destructive,
            toolsets: Vec::new(),
            transport: Transport::Stdio,
            read_config: false,
        }
    }
}

/// The server: the vault and the tools over it.
#[derive(Clone)]
pub struct Scholia {
    pub(super) vault: Arc<FsVault>,
    pub(super) settings: Arc<Settings>,
    /// The vault's Zotero Integration setup, found on first use (see [`Scholia::zotero`]).
    zotero: Arc<OnceLock<ZoteroSetup>>,
    /// The user chose "allow for this session" in a confirmation.
    pub(super) approved: Arc<AtomicBool>,
    /// The vault index (full text, links, tags), shared by every session.
    pub(super) index: Arc<IndexService>,
    /// This session's resource subscriptions (a new session starts with [`Scholia::new_session`]).
    pub(super) subscriptions: Arc<Subscriptions>,
    pub(super) tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

/// What the annotation tools read notes with: the setup found in the vault and the parse options
/// made from it (its templates, the config's colours).
#[derive(Debug)]
pub(super) struct ZoteroSetup {
    /// The templates, note paths and the report on them.
    pub setup: Setup,
    /// The templates and colours the parser uses.
    pub options: ParseOptions,
}

impl Scholia {
    /// A server over the vault in `settings` (which must be a folder); its index is built in the
    /// background and watched.
    pub fn new(settings: Settings) -> Result<Self, VaultError> {
        Self::with_index(settings, IndexOptions::default())
    }

    /// A server whose index runs with `options` (no watcher, a held build, …).
    pub fn with_index(settings: Settings, options: IndexOptions) -> Result<Self, VaultError> {
        let vault = Arc::new(FsVault::open(&settings.config.vault)?);
        let tool_router = tools::router(&settings.toolsets, settings.read_only);
        let index = Arc::new(IndexService::start(Arc::clone(&vault), options));
        let subscriptions = Arc::new(Subscriptions::new(subscriptions::relay(&index)));
        Ok(Self {
            index,
            subscriptions,
            vault,
            settings: Arc::new(settings),
            zotero: Arc::new(OnceLock::new()),
            approved: Arc::new(AtomicBool::new(false)),
            tool_router,
            prompt_router: Self::prompt_router(),
        })
    }

    /// The vault's Zotero Integration setup: found on the first call that needs it (without
    /// Zotero Integration's settings that reads the vault's notes to find a template) and kept
    /// for the server's life; a changed template is read after a restart.
    pub(super) fn zotero(&self) -> &ZoteroSetup {
        self.zotero.get_or_init(|| {
            let config = &self.settings.config;
            let setup = library::setup::discover(self.vault.as_ref(), config.template_path.as_deref());
            let options = setup.parse_options(&config.colors);
            ZoteroSetup { setup, options }
        })
    }

    /// A vault path for a note: validated, `.md` added when the name has no extension.
    pub(super) fn note_path(&self, raw: &str) -> Result<VaultPath, String> {
        let path = VaultPath::new(raw.trim()).map_err(|e| e.to_string())?;
        if path.is_root() {
            return Err("the path is empty; give the note's path relative to the vault root".into());
        }
        if path.extension().is_empty() {
            path.parent()
                .unwrap_or_default()
                .join(&format!("{}.md", path.file_name()))
                .map_err(|e| e.to_string())
        } else {
            Ok(path)
        }
    }

    /// A folder: the given one, else the annotations folder (when `annotations`), else the root.
    pub(super) fn folder(&self, raw: Option<&str>, annotations: bool) -> Result<VaultPath, String> {
        let fallback = if annotations { self.settings.config.annotations_folder.as_deref() } else { None };
        let folder = VaultPath::new(raw.or(fallback).unwrap_or("")).map_err(|e| e.to_string())?;
        if !folder.is_root() && !self.vault.exists(&folder) {
            return Err(format!(
                "folder {folder} does not exist in the vault; list the vault root with a listing tool to see its folders"
            ));
        }
        Ok(folder)
    }

    /// The resource URI of a note: `scholia://note/` and the percent-encoded vault path.
    fn uri(path: &VaultPath) -> String {
        let mut uri = String::from(NOTE_URI);
        for byte in path.as_str().bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~/@".contains(&byte) {
                uri.push(byte as char);
            } else {
                uri.push_str(&format!("%{byte:02X}"));
            }
        }
        uri
    }
}

/// How every note resource URI starts.
const NOTE_URI: &str = "scholia://note/";

/// Resource subscriptions (the feed and the forwarding are `subscriptions.rs`'s).
impl Scholia {
    /// This server for a new session: the same vault, index and settings, no subscriptions.
    pub(super) fn new_session(&self) -> Self {
        let mut session = self.clone();
        session.subscriptions = Arc::new(self.subscriptions.for_new_session());
        // "Allow for this session" is one client's answer: it must not approve another's calls.
        session.approved = Arc::new(AtomicBool::new(false));
        session
    }

    /// The note a resource URI names (existing or not): a `scholia://note/` URI whose
    /// percent-decoded path is a Markdown note inside the vault, outside hidden folders.
    fn uri_note(&self, uri: &str) -> Result<VaultPath, McpError> {
        let bad = |why: String| McpError::invalid_params(why, Some(json!({"uri": uri})));
        let raw = uri.strip_prefix(NOTE_URI).ok_or_else(|| {
            bad(format!(
                "{uri} is not a note resource: note URIs are {NOTE_URI} and the note's vault path, as resources/list gives them"
            ))
        })?;
        let path = self
            .note_path(&crate::note::percent_decode(raw))
            .map_err(|e| bad(format!("{uri} does not name a note inside the vault: {e}")))?;
        if !path.is_markdown() || path.is_hidden() {
            return Err(bad(format!(
                "{uri} is not a note: only Markdown notes outside hidden folders are resources; see resources/list"
            )));
        }
        Ok(path)
    }

    /// `resources/subscribe`: follows the note `uri` names, which must exist.
    fn subscribe_note(&self, uri: String, peer: Peer<RoleServer>) -> Result<(), McpError> {
        let path = self.uri_note(&uri)?;
        if !self.vault.exists(&path) {
            return Err(McpError::resource_not_found(
                format!("no note at {path}; subscribe to a note URI that resources/list gives"),
                Some(json!({"uri": uri})),
            ));
        }
        self.subscriptions.follow(path, uri, peer)
    }

    /// `resources/unsubscribe`: stops following the note `uri` names (under any URI); a note
    /// not followed, or gone since, is no error.
    fn unsubscribe_note(&self, uri: &str) -> Result<(), McpError> {
        let path = self.uri_note(uri)?;
        self.subscriptions.unfollow(&path);
        Ok(())
    }
}

/// Prompt arguments of `summarize`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SummarizePrompt {
    /// Citekey of the paper to summarize.
    pub citekey: String,
}

/// Prompt arguments of `synthesize`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SynthesizePrompt {
    /// Citekeys of the papers, separated by commas.
    pub citekeys: String,
    /// The theme to synthesize around (optional).
    pub theme: Option<String>,
}

/// One page of resources.
const RESOURCE_PAGE: usize = 200;

#[prompt_router]
impl Scholia {
    /// Summarize one paper from its Zotero annotations (seed 001's /summarize).
    #[prompt(name = "summarize")]
    async fn summarize_prompt(&self, Parameters(args): Parameters<SummarizePrompt>) -> Vec<PromptMessage> {
        let key = args.citekey.trim();
        vec![PromptMessage::new_text(
            Role::User,
            format!(
                "Summarize the paper {key} from my Zotero annotations in Obsidian.\n\
                 1. Call obsidian_read_annotations with citekey \"{key}\" to see every annotation (colour = meaning: \
                 section1-3 are headings; positive = findings, negative = criticisms, question = open questions, \
                 detail = methods and context, code = data).\n\
                 2. Call obsidian_summarize with citekey \"{key}\": it writes the structured summary note and returns its path.\n\
                 3. Read the note back with get_note_content, then use patch_note (operation append, targetType heading) \
                 to add a short 'Takeaways' section in your own words, grounded only in the annotations. \
                 Do not modify the annotation note itself."
            ),
        )]
    }

    /// Synthesize several papers around shared themes (seed 001's /synthesize).
    #[prompt(name = "synthesize")]
    async fn synthesize_prompt(&self, Parameters(args): Parameters<SynthesizePrompt>) -> Vec<PromptMessage> {
        let keys: Vec<&str> =
            args.citekeys.split([',', ' ']).map(str::trim).filter(|k| !k.is_empty()).collect();
        let theme = args.theme.as_deref().map(|t| format!(" around the theme \"{t}\"")).unwrap_or_default();
        vec![PromptMessage::new_text(
            Role::User,
            format!(
                "Synthesize the papers {}{theme} from my Zotero annotations in Obsidian.\n\
                 1. Call obsidian_read_annotations for each citekey.\n\
                 2. Call obsidian_synthesize with citekeys {:?}{}: it writes the synthesis note (common themes, key \
                 findings, critical points, open questions, candidate contradictions) and returns its path.\n\
                 Report its warnings (what was left out, links that would not resolve) to me.\n\
                 3. Write the Overview yourself: the note's Overview holds a generated digest (keep it) and a callout \
                 that says *To be written…*; replace that line with a paragraph in your own words grounded only in the \
                 annotations, citing papers as [[links]].\n\
                 4. Check each candidate under 'Contradictions & Gaps': keep real tensions, explain them in one line \
                 each, and remove false alarms. Never invent findings.",
                keys.join(", "),
                keys,
                args.theme.as_deref().map(|t| format!(" and theme \"{t}\"")).unwrap_or_default(),
            ),
        )]
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Scholia {
    // Logging is deprecated by SEP-2577 but still negotiated by 2025 clients; it is advertised so
    // `logging/setLevel` is accepted (the server's own logs go to stderr).
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_logging()
                .enable_completions()
                .enable_prompts()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_resources_list_changed()
                .enable_tools()
                .build(),
        )
        .with_server_info(Implementation::new("scholia", env!("CARGO_PKG_VERSION")))
        .with_instructions(format!(
            "Scholia gives access to the Obsidian vault at {}: Zotero annotation notes (obsidian_read_annotations, \
             obsidian_list_annotation_files, obsidian_summarize, obsidian_synthesize), search (search_vault ranked, \
             obsidian_search literal), and note tools. Paths are vault-relative.{}",
            self.settings.config.vault.display(),
            if self.settings.read_only { " The server is read-only." } else { "" }
        ))
    }

    /// The one place tool calls are dispatched: each runs guarded, so a panic in a tool
    /// becomes a tool error; none runs on a vault folder that is gone (no stale or empty answer
    /// that looks complete).
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let Err(gone) = self.vault.check_present() {
            return Ok(super::reply::fail(gone.to_string()).into());
        }
        let name = request.name.clone();
        let this = self.clone();
        let call = async move {
            let call = rmcp::handler::server::tool::ToolCallContext::new(&this, request, context);
            this.tool_router.call(call).await
        };
        super::guard::guarded(&name, call).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let start: usize = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(c) => c
                .parse()
                .map_err(|_| McpError::invalid_params("the cursor is not one this server gave", None))?,
        };
        let notes = library::notes(self.vault.as_ref(), &VaultPath::root())
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let page: Vec<Resource> = notes
            .iter()
            .skip(start)
            .take(RESOURCE_PAGE)
            .map(|f| Resource::new(Self::uri(&f.path), f.path.stem()).with_mime_type("text/markdown"))
            .collect();
        let mut result = ListResourcesResult::with_all_items(page);
        if start + RESOURCE_PAGE < notes.len() {
            result.next_cursor = Some((start + RESOURCE_PAGE).to_string());
        }
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("scholia://note/{path}", "note").with_mime_type("text/markdown"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let missing =
            || McpError::invalid_params("Resource not found", Some(serde_json::json!({"uri": request.uri})));
        let raw = request.uri.strip_prefix("scholia://note/").ok_or_else(missing)?;
        let path = self.note_path(&crate::note::percent_decode(raw)).map_err(|_| missing())?;
        self.ensure_readable(&path).map_err(|_| missing())?;
        let text = self.vault.read(&path).map_err(|_| missing())?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri.clone()).with_mime_type("text/markdown"),
        ])
        .into())
    }

    // Subscriptions (see subscriptions.rs): resources/subscribe on the 2025 revisions, which rmcp
    // marks deprecated in favour of the 2026 revision's subscriptions/listen (served below too).
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscribe_note(request.uri, ctx.peer)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.unsubscribe_note(&request.uri)
    }

    /// A 2025 session starts hearing about list changes as soon as it is initialized.
    async fn on_initialized(&self, ctx: NotificationContext<RoleServer>) {
        self.subscriptions.start_forwarding(ctx.peer);
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(Subscriptions::accepted_filter(requested, |uri| {
            self.uri_note(uri).is_ok_and(|path| self.vault.exists(&path))
        }))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        self.subscriptions.listen(context, |uri| self.uri_note(uri).ok()).await
    }

    /// Accepts a log level; the server sends no log messages (its logs go to stderr).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        _request: SetLevelRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let values = match &request.r#ref {
            Reference::Prompt(p) if matches!(p.name.as_str(), "summarize" | "synthesize") => {
                let typed = request.argument.value.rsplit(',').next().unwrap_or("").trim().to_lowercase();
                let folder = self.folder(None, true).unwrap_or_default();
                let zotero = self.zotero();
                library::list_with(self.vault.as_ref(), &folder, &[], &zotero.options, &zotero.setup.patterns)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|f| f.citekey)
                    .filter(|k| k.to_lowercase().starts_with(&typed))
                    .take(CompletionInfo::MAX_VALUES)
                    .collect()
            }
            Reference::Resource(r) if r.uri == "scholia://note/{path}" && request.argument.name == "path" => {
                // Note paths that start with what was typed, or hold it right after a `/`.
                let typed = request.argument.value.to_lowercase();
                library::notes(self.vault.as_ref(), &VaultPath::root())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|f| f.path.as_str().to_string())
                    .filter(|p| {
                        let lower = p.to_lowercase();
                        lower.starts_with(&typed) || lower.contains(&format!("/{typed}"))
                    })
                    .take(CompletionInfo::MAX_VALUES)
                    .collect()
            }
            _ => Vec::new(),
        };
        Ok(CompleteResult::new(
            CompletionInfo::with_all_values(values).map_err(|e| McpError::internal_error(e, None))?,
        ))
    }
}
