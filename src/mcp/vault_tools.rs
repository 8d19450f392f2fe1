//! Metadata tools (seed 004): several properties at once, tags (seed 004's manage_tags and seed
//! 002's add_tag / remove_tag), and the server's status. Every edit is surgical (see
//! `note::meta_edit`), and every writing tool has a dry run that returns the diff.

use std::time::{Duration, SystemTime};

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use serde_json::{Value, json};

use super::approval::{Ask, Round, Write};
use super::diff::{self, content_hash};
use super::reply::{Answer, MAX_ANSWER_BYTES, attempt, cut_text, fail, ok};
use super::server::Scholia;
use super::status::{self, Transport};
use super::toolsets::Toolset;
use super::vault_params::{ManageTags, TagOperation, UpdateProperties};
use crate::note::{Frontmatter, Note, meta_edit};
use crate::vault::{Vault, VaultError, VaultPath};

type Response = Result<CallToolResponse, rmcp::ErrorData>;

fn not_found(err: VaultError) -> String {
    match err {
        VaultError::NotFound { path } => {
            format!("{path} does not exist in the vault; find notes with list_notes or search_vault")
        }
        other => other.to_string(),
    }
}

impl Scholia {
    /// The answer of a dry run: the diff from `before` to `after`, cut to fit, plus `fields`.
    pub(super) fn dry_run_answer(
        path: &VaultPath,
        before: &str,
        after: &str,
        mut fields: Value,
    ) -> CallToolResult {
        let shown = diff::for_path(path.as_str(), before, after);
        let (cut, truncated) = cut_text(&shown, MAX_ANSWER_BYTES - 4096);
        fields["path"] = json!(path.as_str());
        fields["dry_run"] = json!(true);
        fields["changed"] = json!(before != after);
        fields["diff"] = json!(cut);
        if truncated {
            fields["truncated"] = json!(true);
        }
        ok(fields)
    }

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
}

/// The answer of a tool whose inner function may stop at an approval round (`Err`).
fn answer(result: Result<CallToolResult, CallToolResponse>) -> Response {
    Ok(result.map_or_else(|round| round, CallToolResponse::from))
}

#[tool_router(router = vault_tools, vis = "pub(super)")]
impl Scholia {
    /// Update several frontmatter properties of a note at once (seed 004). List properties such as tags are merged (only new items are added, in the list's own style) unless replace: true; null removes a property. Surgical: other keys, their order, comments and quoting stay byte-identical; a note without frontmatter gets a block. dryRun returns the diff and writes nothing.
    #[tool(annotations(
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

    /// List, add or remove a note's tags (seed 004's manage_tags; also seed 002's add_tag / remove_tag). add puts tags in the frontmatter tags in the note's own style (block list, [flow, list] or a string), unless the note has them already (frontmatter or inline). remove takes them out of the frontmatter and removes every inline #tag in the text, never inside code, links or URLs (removing a keeps a/b). list says where each tag is written. dryRun returns the diff and writes nothing.
    #[tool(annotations(
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

    /// The server's status: service name and version, the vault (path, note count), the search and link indexes (or that they are not built yet), read-only mode, the confirmation policy, the toolsets and tools exposed, how clients connect (stdio, or HTTP with or without a bearer token), whether Obsidian appears to be running, with what that guess rests on, and the Zotero Integration setup the annotation tools read notes with (settings file found, note paths, each template with whether it compiled, its loops and problems; never the settings' or templates' text). Scholia works on the files whether Obsidian runs or not.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_check_status(&self) -> Answer {
        let files = attempt!(self.vault.list(&VaultPath::root()));
        let notes = files.iter().filter(|f| f.path.is_markdown()).count();
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
                "other_files": files.len() - notes,
                "unreadable_folders": self.vault.unreadable(),
            },
            "index": self.index_state(),
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
    fn index_state(&self) -> Value {
        let status = self.index.status();
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

impl super::server::ConfirmPolicy {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Destructive => "destructive",
            Self::Writes => "writes",
            Self::None => "none",
        }
    }
}
