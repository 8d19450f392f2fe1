//! The metadata toolset (seed 004): a note's frontmatter properties (all of them, several at once,
//! one key), tags (seed 004's manage_tags, also seed 002's add_tag / remove_tag; the vault's tags),
//! and the server's status. Every edit is surgical (see `note::meta_edit`), and every writing tool
//! has a dry run that returns the diff. Each tool's arguments follow the router.

use std::time::{Duration, SystemTime};

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::shared::not_found_hint;
use crate::library;
use crate::mcp::Toolset;
use crate::mcp::approval::{Ask, Round, Write};
use crate::mcp::reply::schema;
use crate::mcp::reply::{Answer, Window, attempt, fail, ok, page};
use crate::mcp::server::Scholia;
use crate::mcp::status::{self, Transport};
use crate::note::diff::content_hash;
use crate::note::{Frontmatter, Note, fm_edit, meta_edit};
use crate::vault::{Vault, VaultError, VaultPath};

type Response = Result<CallToolResponse, rmcp::ErrorData>;

/// Notes listed with each tag by `obsidian_get_tags` (its count says how many carry it).
const FILES_PER_TAG: usize = 10;

fn not_found(err: VaultError) -> String {
    match err {
        VaultError::NotFound { path } => {
            format!("{path} does not exist in the vault; find notes with list_notes or search_vault")
        }
        other => other.to_string(),
    }
}

/// The answer of a tool whose inner function may stop at an approval round (`Err`).
fn answer(result: Result<CallToolResult, CallToolResponse>) -> Response {
    Ok(result.map_or_else(|round| round, CallToolResponse::from))
}

#[tool_router(router = metadata, vis = "pub(super)")]
impl Scholia {
    /// Every frontmatter property of a note (seed 004), custom fields included.
    #[tool(output_schema = schema::<answers::ObsidianGetPropertiesAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_get_properties(&self, Parameters(args): Parameters<GetProperties>) -> Answer {
        let path = attempt!(self.resolve_note(&args.filepath));
        let text = attempt!(self.vault.read(&path).map_err(not_found_hint));
        let fm = Frontmatter::parse(&text);
        if let Some(problem) = fm.diagnostics.first() {
            return Ok(fail(format!("{path}: {}", problem.message)));
        }
        Ok(ok(json!({"path": path.as_str(), "properties": fm.data})))
    }

    /// Update several frontmatter properties of a note at once (seed 004). List properties such as tags are merged (only new items are added, in the list's own style) unless replace: true; null removes a property. Surgical: other keys, their order, comments and quoting stay byte-identical; a note without frontmatter gets a block. dryRun returns the diff and writes nothing.
    #[tool(output_schema = schema::<answers::ObsidianUpdatePropertiesAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_update_properties(
        &self,
        Parameters(args): Parameters<UpdateProperties>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Response {
        answer(self.update_properties_in(args, &ctx, Round { state, responses }).await)
    }

    /// Get, set or delete one frontmatter key of a note without touching the rest of the note: other keys, their order, comments and quoting stay byte-identical; a note without frontmatter gets a block.
    #[tool(output_schema = schema::<answers::ObsidianManageFrontmatterAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_manage_frontmatter(
        &self,
        Parameters(args): Parameters<ManageFrontmatter>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        let answer = self.manage_frontmatter(args, &ctx, Round { state, responses }).await;
        Ok(answer.map_or_else(|round| round, CallToolResponse::from))
    }

    /// List, add or remove a note's tags (seed 004's manage_tags; also seed 002's add_tag / remove_tag). add puts tags in the frontmatter tags in the note's own style (block list, [flow, list] or a string), unless the note has them already (frontmatter or inline). remove takes them out of the frontmatter and removes every inline #tag in the text, never inside code, links or URLs (removing a keeps a/b). list says where each tag is written. dryRun returns the diff and writes nothing.
    #[tool(output_schema = schema::<answers::ObsidianManageTagsAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_manage_tags(
        &self,
        Parameters(args): Parameters<ManageTags>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Response {
        answer(self.manage_tags_in(args, &ctx, Round { state, responses }).await)
    }

    /// Tags of the vault (or a folder) with how many notes use each and the first of them (tag_search lists them all): frontmatter and inline tags; a nested tag also counts for its parents (`a/b` counts for `a`). Paged: the answer gives the total and, while tags remain, the next arguments.
    #[tool(output_schema = schema::<answers::ObsidianGetTagsAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_get_tags(&self, Parameters(args): Parameters<GetTags>) -> Answer {
        let folder = attempt!(self.folder(args.path.as_deref(), false));
        let mut tags: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
        for meta in attempt!(library::notes(self.vault.as_ref(), &folder)) {
            let Ok(text) = self.vault.read(&meta.path) else { continue };
            for tag in Note::parse(&text).tag_names() {
                let tag = tag.to_lowercase();
                let mut prefix = String::new();
                for part in tag.split('/') {
                    if !prefix.is_empty() {
                        prefix.push('/');
                    }
                    prefix.push_str(part);
                    let files = tags.entry(prefix.clone()).or_default();
                    if files.last().map(String::as_str) != Some(meta.path.as_str()) {
                        files.push(meta.path.as_str().to_string());
                    }
                }
            }
        }
        let total = tags.len();
        let mut fields = json!({"count": total});
        if tags.values().any(|files| files.len() > FILES_PER_TAG) {
            fields["files_hint"] = json!(format!(
                "a tag lists its first {FILES_PER_TAG} notes (files_truncated); tag_search with the tag pages through all of them"
            ));
        }
        let window = Window::new(args.offset, args.limit, 200, 1000);
        let list = tags.into_iter().skip(window.offset).map(|(tag, files)| {
            let mut item =
                json!({"tag": tag, "count": files.len(), "files": &files[..files.len().min(FILES_PER_TAG)]});
            if files.len() > FILES_PER_TAG {
                item["files_truncated"] = json!(true);
            }
            item
        });
        Ok(ok(page(fields, "tags", list, total, window, json!({"path": args.path}))))
    }

    /// The server's status: service name and version, the vault (path, note count), the search and link indexes (or that they are not built yet), read-only mode, the confirmation policy, the toolsets and tools exposed, how clients connect (stdio, or HTTP with or without a bearer token), whether Obsidian appears to be running, with what that guess rests on, and the Zotero Integration setup the annotation tools read notes with (settings file found, note paths, each template with whether it compiled, its loops and problems; never the settings' or templates' text). Scholia works on the files whether Obsidian runs or not.
    #[tool(output_schema = schema::<answers::ObsidianCheckStatusAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_check_status(&self) -> Answer {
        // The ready index counts the files; only while it builds is the vault listed (a few
        // hundred ms at 100,000 notes, taken from the build).
        let status = self.index.status();
        let (notes, other_files) = if status.state == crate::index::service::State::Ready && status.complete {
            (status.notes, status.attachments)
        } else {
            let files = attempt!(self.vault.list(&VaultPath::root()));
            let notes = files.iter().filter(|f| f.path.is_markdown()).count();
            (notes, files.len() - notes)
        };
        let workspace =
            VaultPath::new(".obsidian/workspace.json").ok().and_then(|p| self.vault.stat(&p).ok());
        let age = workspace.map(|w| {
            let modified = SystemTime::UNIX_EPOCH + Duration::from_millis(w.mtime_ms.max(0) as u64);
            SystemTime::now().duration_since(modified).unwrap_or_default()
        });
        let obsidian = status::guess(age, &status::probe_processes());
        let settings = &self.settings;
        let toolsets: Vec<&str> = if settings.toolsets.is_empty() {
            Toolset::ALL.iter().map(|t| t.name()).collect()
        } else {
            settings.toolsets.iter().map(|t| t.name()).collect()
        };
        let (transport, auth) = match settings.transport {
            Transport::Stdio => (json!("stdio"), "none needed: the client started the server over stdio"),
            Transport::Http { address, auth } => (
                json!({"http": format!("http://{address}/mcp")}),
                if auth {
                    "bearer token required on every request"
                } else {
                    "none: --insecure-no-auth (loopback only)"
                },
            ),
        };
        let value = json!({
            "service": "scholia",
            "version": env!("CARGO_PKG_VERSION"),
            "vault": {
                "path": settings.config.vault.display().to_string(),
                "found_by": settings.config.vault_source,
                "notes": notes,
                "other_files": other_files,
                "unreadable_folders": self.vault.unreadable(),
            },
            "index": Self::index_state(status),
            "read_only": settings.read_only,
            "confirm": settings.confirm.name(),
            "approved_for_session": self.approved.load(std::sync::atomic::Ordering::Relaxed),
            "toolsets": toolsets,
            "tools": self.tool_router.list_all().len(),
            "transport": transport,
            "auth": auth,
            "obsidian": obsidian,
            "zotero_integration": self.zotero().setup.report,
        });
        Ok(ok(value))
    }
}

impl Scholia {
    /// Writes `after` over the note at `path`, which held `before`, after approval (a
    /// non-destructive edit; refused when the note changed meanwhile). `Err` is the answer.
    async fn write_edit(
        &self,
        ctx: &RequestContext<RoleServer>,
        path: &VaultPath,
        (before, after): (&str, &str),
        what: &str,
        write: Write,
        round: Round,
    ) -> Result<(), CallToolResponse> {
        let refuse = |e: String| CallToolResponse::from(fail(e));
        path.ensure_writable().map_err(|e| refuse(e.to_string()))?;
        let version = content_hash(before);
        let ask = Ask::edit(what, write).planned_from(Some(&version));
        self.ask(ctx, ask, Some(round)).await?;
        self.write_over(path, before, after, false).map(drop).map_err(refuse)
    }

    /// `obsidian_update_properties`; `Err` is the answer of an approval round.
    async fn update_properties_in(
        &self,
        args: UpdateProperties,
        ctx: &RequestContext<RoleServer>,
        round: Round,
    ) -> Result<CallToolResult, CallToolResponse> {
        if args.properties.is_empty() {
            return Ok(fail(
                "properties is empty; give the key-value pairs to set, e.g. {\"status\": \"done\"}",
            ));
        }
        let path = attempt!(self.resolve_note(&args.filepath));
        let text = attempt!(self.vault.read(&path).map_err(not_found));
        let (new, changes) = attempt!(meta_edit::update_properties(&text, &args.properties, args.replace));
        let fields = json!({"changes": changes});
        if args.write.dry_run {
            return Ok(Self::dry_run_answer(&path, &text, &new, fields));
        }
        if new != text {
            let what = format!("update the properties of {path}");
            self.write_edit(ctx, &path, (&text, &new), &what, args.write, round).await?;
        }
        Ok(ok(json!({
            "path": path.as_str(),
            "changes": changes,
            "properties": Frontmatter::parse(&new).data,
        })))
    }

    /// `obsidian_manage_frontmatter`; `Err` is the answer of an approval round.
    async fn manage_frontmatter(
        &self,
        args: ManageFrontmatter,
        ctx: &RequestContext<RoleServer>,
        round: Round,
    ) -> Result<CallToolResult, CallToolResponse> {
        let path = attempt!(self.resolve_note(&args.file_path));
        let text = attempt!(self.vault.read(&path).map_err(not_found_hint));
        let fm = Frontmatter::parse(&text);
        if let Some(problem) = fm.diagnostics.first() {
            return Ok(fail(format!(
                "{path}: {}; fix it by hand first so no other key is damaged",
                problem.message
            )));
        }
        let key = args.key.trim();
        let new = match args.operation {
            FrontmatterOperation::Get => {
                let value = fm.data.get(key).cloned().unwrap_or(Value::Null);
                return Ok(ok(json!({"path": path.as_str(), "key": key, "value": value})));
            }
            FrontmatterOperation::Set => {
                let Some(value) = args.value.as_ref() else {
                    return Ok(fail("set needs a value"));
                };
                attempt!(fm_edit::set(&text, key, value))
            }
            FrontmatterOperation::Delete => {
                let (new, existed) = fm_edit::delete(&text, key);
                if !existed {
                    return Ok(fail(format!("{path} has no frontmatter key {key:?}")));
                }
                new
            }
        };
        attempt!(path.ensure_writable());
        if args.write.dry_run {
            return Ok(Self::dry_run_answer(&path, &text, &new, json!({"key": key})));
        }
        let (what, version) = (format!("edit the frontmatter of {path}"), content_hash(&text));
        self.ask(ctx, Ask::edit(&what, args.write).planned_from(Some(&version)), Some(round)).await?;
        attempt!(self.write_over(&path, &text, &new, false));
        let frontmatter = Frontmatter::parse(&new).data;
        Ok(ok(json!({"path": path.as_str(), "key": key, "frontmatter": frontmatter})))
    }

    /// `obsidian_manage_tags`; `Err` is the answer of an approval round.
    async fn manage_tags_in(
        &self,
        args: ManageTags,
        ctx: &RequestContext<RoleServer>,
        round: Round,
    ) -> Result<CallToolResult, CallToolResponse> {
        let path = attempt!(self.resolve_note(&args.file_path));
        let text = attempt!(self.vault.read(&path).map_err(not_found));
        if args.operation == TagOperation::List {
            let note = Note::parse(&text);
            let uses = meta_edit::tag_uses(&note);
            return Ok(ok(json!({"path": path.as_str(), "tags": uses, "currentTags": note.tag_names()})));
        }
        if args.tags.is_empty() {
            return Ok(fail("tags is empty; give the tags to add or remove, e.g. [\"project/alpha\"]"));
        }
        let (edit, verb) = match args.operation {
            TagOperation::Add => (attempt!(meta_edit::add_tags(&text, &args.tags)), "added"),
            _ => (attempt!(meta_edit::remove_tags(&text, &args.tags)), "removed"),
        };
        let fields = json!({
            "operation": verb,
            "changed": edit.changed,
            "unchanged": edit.unchanged,
            "inline_removed": edit.inline_removed,
            "currentTags": Note::parse(&edit.text).tag_names(),
        });
        if args.write.dry_run {
            return Ok(Self::dry_run_answer(&path, &text, &edit.text, fields));
        }
        if edit.text != text {
            let what = format!("change the tags of {path}");
            self.write_edit(ctx, &path, (&text, &edit.text), &what, args.write, round).await?;
        }
        let message = format!("{verb} {} of {} tags in {path}", edit.changed.len(), args.tags.len());
        let mut value = fields;
        value["path"] = json!(path.as_str());
        value["message"] = json!(message);
        Ok(ok(value))
    }

    fn index_state(status: crate::index::service::Status) -> Value {
        let mut value = json!({
            "state": status.state,
            "complete": status.complete,
            "notes": status.notes,
            "watching": status.watching,
        });
        if status.state == crate::index::service::State::Building {
            value["progress"] = json!({"done": status.done, "total": status.total});
        }
        if let Some(build) = status.build {
            value["build_ms"] = json!((build.total_ms * 10.0).round() / 10.0);
        }
        if let Some(error) = status.error.or(status.watcher_error) {
            value["error"] = json!(error);
        }
        value
    }
}

/// `obsidian_get_properties`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetProperties {
    /// Vault-relative path of the note.
    #[serde(rename = "filepath", alias = "filePath", alias = "path")]
    pub filepath: String,
}

/// `obsidian_update_properties`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UpdateProperties {
    /// Vault-relative path of the note (`.md` is added when missing).
    #[serde(rename = "filepath", alias = "filePath", alias = "path")]
    pub filepath: String,
    /// Properties to set, e.g. {"status": "done", "tags": ["review"]}; a list is merged into the existing list unless `replace`; `null` removes the property.
    pub properties: Map<String, Value>,
    /// Replace list properties instead of merging them. Default false.
    #[serde(default)]
    pub replace: bool,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// `obsidian_manage_frontmatter`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ManageFrontmatter {
    /// Vault-relative path of the note.
    #[serde(rename = "filePath", alias = "filepath", alias = "path")]
    pub file_path: String,
    /// get, set or delete.
    pub operation: FrontmatterOperation,
    /// The frontmatter key, e.g. `status`.
    pub key: String,
    /// The value to set (any JSON value; required for set).
    pub value: Option<Value>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// What `obsidian_manage_frontmatter` does.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FrontmatterOperation {
    /// Read the key.
    Get,
    /// Set the key (other keys, their order, comments and quoting stay as they are).
    Set,
    /// Remove the key.
    Delete,
}

/// `obsidian_manage_tags`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ManageTags {
    /// Vault-relative path of the note (`.md` is added when missing).
    #[serde(rename = "filePath", alias = "filepath", alias = "path")]
    pub file_path: String,
    /// add, remove, or list.
    pub operation: TagOperation,
    /// Tags to add or remove, without `#` (a leading `#` is dropped), e.g. ["project/alpha"].
    #[serde(default)]
    pub tags: Vec<String>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// What `obsidian_manage_tags` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TagOperation {
    /// Add to the frontmatter `tags` (in the note's own list style), unless the note has the tag already.
    Add,
    /// Remove from the frontmatter and every inline `#tag` in the text (never in code or links).
    Remove,
    /// List the note's tags and where each is written.
    List,
}

/// `obsidian_get_tags`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetTags {
    /// Only notes in this folder (vault-relative); default the whole vault.
    pub path: Option<String>,
    /// Skip this many tags (paging; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most tags to return (default 200, at most 1000); fewer when they would not fit one answer.
    pub limit: Option<usize>,
}

/// What the tools answer, as their output schemas declare it: the tools build their answers as
/// JSON, and the tests check every answer against these.
#[allow(dead_code)]
mod answers {
    use schemars::JsonSchema;
    use serde_json::{Map, Value};

    use crate::mcp::reply::Paged;

    /// What `obsidian_get_properties` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianGetPropertiesAnswer {
        pub path: String,
        pub properties: Map<String, Value>,
    }

    /// An item of `changes` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianUpdatePropertiesChanges {
        pub key: String,
        pub action: String,
        pub value: Option<Value>,
    }

    /// What `obsidian_update_properties` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianUpdatePropertiesAnswer {
        pub path: String,
        pub changes: Vec<ObsidianUpdatePropertiesChanges>,
        pub properties: Option<Map<String, Value>>,
        pub dry_run: Option<bool>,
        pub changed: Option<bool>,
        pub diff: Option<String>,
    }

    /// What `obsidian_manage_frontmatter` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianManageFrontmatterAnswer {
        pub path: String,
        pub key: String,
        pub value: Option<Value>,
        pub frontmatter: Option<Map<String, Value>>,
        pub dry_run: Option<bool>,
        pub changed: Option<bool>,
        pub diff: Option<String>,
    }

    /// An item of `tags` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianManageTagsTags {
        pub name: String,
        pub frontmatter: bool,
        pub lines: Vec<usize>,
    }

    /// What `obsidian_manage_tags` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianManageTagsAnswer {
        pub operation: Option<String>,
        pub changed: Option<Value>,
        pub unchanged: Option<Vec<String>>,
        pub inline_removed: Option<usize>,
        #[serde(rename = "currentTags")]
        pub current_tags: Vec<String>,
        pub path: String,
        pub message: Option<String>,
        pub dry_run: Option<bool>,
        pub diff: Option<String>,
        pub tags: Option<Vec<ObsidianManageTagsTags>>,
    }

    /// An item of `tags` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianGetTagsTags {
        pub tag: String,
        pub count: usize,
        pub files: Vec<String>,
        pub files_truncated: Option<bool>,
    }

    /// What `obsidian_get_tags` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianGetTagsAnswer {
        #[serde(flatten)]
        pub page: Paged,
        pub count: usize,
        pub tags: Vec<ObsidianGetTagsTags>,
        pub files_hint: Option<String>,
    }

    /// An item of `vault` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianCheckStatusVault {
        pub path: String,
        pub found_by: String,
        pub notes: usize,
        pub other_files: usize,
        pub unreadable_folders: Vec<String>,
    }

    /// An item of `progress` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianCheckStatusIndexProgress {
        pub done: usize,
        pub total: usize,
    }

    /// An item of `index` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianCheckStatusIndex {
        pub state: String,
        pub complete: bool,
        pub notes: usize,
        pub watching: bool,
        pub progress: Option<ObsidianCheckStatusIndexProgress>,
        pub build_ms: Option<f64>,
    }

    /// An item of `obsidian` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianCheckStatusObsidian {
        pub running: String,
        pub evidence: Vec<String>,
    }

    /// An item of `templates` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianCheckStatusZoteroIntegrationTemplates {
        pub path: String,
        pub found_in: String,
        pub compiled: bool,
        pub loops: usize,
        pub problems: Vec<Value>,
    }

    /// An item of `colour_labels` in the answer: a label a template gives a Zotero colour.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianCheckStatusColourLabel {
        pub hex: String,
        pub name: String,
    }

    /// An item of `zotero_integration` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianCheckStatusZoteroIntegration {
        pub plugin_settings: Option<String>,
        pub output_paths: Vec<String>,
        pub templates: Vec<ObsidianCheckStatusZoteroIntegrationTemplates>,
        pub problems: Vec<Value>,
        pub zotlit_settings: Option<String>,
        pub colour_labels: Vec<ObsidianCheckStatusColourLabel>,
    }

    /// How the server is reached: `"stdio"`, or `{"http": URL}`.
    #[derive(Debug, JsonSchema)]
    #[serde(untagged)]
    pub enum CheckStatusTransport {
        /// `"stdio"`.
        Stdio(String),
        /// Streamable HTTP at this URL.
        Http {
            /// The endpoint's URL.
            http: String,
        },
    }

    /// What `obsidian_check_status` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianCheckStatusAnswer {
        pub service: String,
        pub version: String,
        pub vault: ObsidianCheckStatusVault,
        pub index: ObsidianCheckStatusIndex,
        pub read_only: bool,
        pub confirm: String,
        pub approved_for_session: bool,
        pub toolsets: Vec<String>,
        pub tools: usize,
        pub transport: CheckStatusTransport,
        pub auth: String,
        pub obsidian: ObsidianCheckStatusObsidian,
        pub zotero_integration: ObsidianCheckStatusZoteroIntegration,
    }
}
