//! The notes toolset: notes by path (`get_note_content`, `get_note_metadata`, `create_note`, seed
//! 001's `obsidian_write_note`), and seed 002's tools with "vault" for "kiln": notes by name,
//! alias, wikilink or path, resolved as Obsidian resolves links. `read_note`, `update_note`,
//! `delete_note` (warns of the notes that link to it), `list_notes` (titles and previews, paged).
//! Each tool's arguments follow the router.

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::shared::{not_found_hint, refuse, wikilink};
use crate::index::graph::Backlink;
use crate::library;
use crate::mcp::approval::{Ask, Round, Write};
use crate::mcp::reply::schema;
use crate::mcp::reply::{
    Answer, MAX_ANSWER_BYTES, Window, attempt, cut_text, fail, fit, merge, ok, ok_content, page, room,
};
use crate::mcp::server::Scholia;
use crate::note::diff::{self, content_hash};
use crate::note::frontmatter::{body_start, scalar_string};
use crate::note::{Frontmatter, Note, Resolution, fm_edit, meta_edit};
use crate::vault::{FileMeta, Vault, VaultError, VaultPath};

type Response = Result<CallToolResponse, rmcp::ErrorData>;

/// Characters of a note's preview in `list_notes`.
const PREVIEW: usize = 160;

/// The title people see: frontmatter `title`, else the first top-level heading, else the name.
fn title_of(note: &Note, path: &VaultPath) -> String {
    note.frontmatter
        .get_str("title")
        .filter(|t| !t.trim().is_empty())
        .or_else(|| note.headings.iter().find(|h| h.level == 1).map(|h| h.text.clone()))
        .unwrap_or_else(|| path.stem().to_string())
}

/// When the note was created: a frontmatter date (`created`, `date created`, `date`), else the
/// file's creation time; and where that came from.
fn created_of(fm: &Frontmatter, ctime_ms: Option<i64>) -> (Option<String>, &'static str) {
    for key in ["created", "date created", "creation date", "date"] {
        if let Some(value) = fm.get_ci(key).and_then(scalar_string) {
            return (Some(value), "frontmatter");
        }
    }
    let stamp = ctime_ms.and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok()).map(|t| t.to_string());
    (stamp, "file")
}

/// The first words of the body: headings' text, no frontmatter, not the title again.
fn preview(text: &str, title: &str) -> String {
    let mut out = String::new();
    for line in text[body_start(text)..].lines() {
        let line = line.trim().trim_start_matches('#').trim();
        if line.is_empty() || line == title || line.starts_with("```") {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line);
        if out.chars().count() > PREVIEW {
            break;
        }
    }
    match out.char_indices().nth(PREVIEW) {
        Some((at, _)) => format!("{}…", out[..at].trim_end()),
        None => out,
    }
}

fn backlink_json(links: &[Backlink]) -> Vec<Value> {
    links.iter().map(|b| json!({"source": b.source.as_str(), "line": b.line, "embed": b.embed})).collect()
}

/// `text` with line ends like `like`'s (CRLF notes get CRLF).
fn line_ends_like(text: &str, like: &str) -> String {
    if like.contains("\r\n") { text.replace("\r\n", "\n").replace('\n', "\r\n") } else { text.to_string() }
}

/// The note after `update_note`'s body change (frontmatter untouched).
fn new_body(text: &str, content: &str, mode: UpdateMode) -> String {
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let content = line_ends_like(content, text);
    let end = if content.is_empty() || content.ends_with('\n') { "" } else { nl };
    let body = body_start(text);
    match mode {
        UpdateMode::Replace => format!("{}{content}", &text[..body]),
        UpdateMode::Append => {
            let sep = if text[body..].is_empty() || text.ends_with('\n') { "" } else { nl };
            format!("{text}{sep}{content}{end}")
        }
        UpdateMode::Prepend => format!("{}{content}{end}{}", &text[..body], &text[body..]),
    }
}

/// Lines added and removed in a unified diff.
fn diff_counts(diff: &str) -> (usize, usize) {
    let lines = || diff.lines().filter(|l| !l.starts_with("+++ ") && !l.starts_with("--- "));
    (lines().filter(|l| l.starts_with('+')).count(), lines().filter(|l| l.starts_with('-')).count())
}

fn with_frontmatter(
    content: &str,
    frontmatter: Option<&serde_json::Map<String, Value>>,
) -> Result<String, String> {
    let mut text = content.to_string();
    for (key, value) in frontmatter.into_iter().flatten() {
        text = fm_edit::set(&text, key, value).map_err(|e| e.to_string())?;
    }
    Ok(text)
}

#[tool_router(router = notes, vis = "pub(super)")]
impl Scholia {
    /// Read a note by name, alias, [[wikilink]] or path, resolved as Obsidian resolves links (case-insensitive, aliases included); an ambiguous name is an error listing the candidates. Returns the content plus title, tags, aliases, frontmatter, creation date and backlinks (the notes linking to it). Long notes come in parts: pass the returned next offset.
    #[tool(output_schema = schema::<answers::ReadNoteAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn read_note(&self, Parameters(args): Parameters<ReadNote>) -> Answer {
        let (path, backlinks, aliases) = {
            let path = match self.resolve_note(&args.note) {
                Ok(p) => p,
                Err(e) => return Ok(fail(e)),
            };
            let view = match self.index_view(&VaultPath::root()) {
                Ok(v) => v,
                Err(e) => return Ok(fail(e)),
            };
            let aliases = view.graph().note(&path).map(|n| n.aliases.clone()).unwrap_or_default();
            (path.clone(), view.graph().backlinks(&path), aliases)
        };
        let text = match self.vault.read(&path) {
            Ok(t) => t,
            Err(e) => return Ok(fail(e.to_string())),
        };
        let stat = self.vault.stat(&path).ok();
        let note = Note::parse(&text);
        let (created, created_from) = created_of(&note.frontmatter, stat.as_ref().map(|s| s.ctime_ms));
        let (from, part, truncated) = crate::mcp::reply::part_of(&text, args.offset, MAX_ANSWER_BYTES - 8192);
        let mut value = json!({"path": path.as_str(), "content": part, "size": text.len(), "offset": from});
        // What describes the note comes once, with its first part.
        if from == 0 {
            let (links, links_cut) = fit(backlink_json(&backlinks), 4096);
            let modified = stat.as_ref().and_then(|s| jiff::Timestamp::from_millisecond(s.mtime_ms).ok());
            let fields = json!({
                "name": path.stem(),
                "title": title_of(&note, &path),
                "resolved_from": args.note,
                "frontmatter": note.frontmatter.data,
                "tags": note.tag_names(),
                "aliases": aliases,
                "created": created,
                "created_from": created_from,
                "modified": modified.map(|t| t.to_string()),
                "backlinks": links,
                "backlink_count": backlinks.len(),
            });
            merge(&mut value, fields);
            if links_cut {
                value["backlinks_truncated"] = json!(true);
            }
        }
        if truncated {
            value["truncated"] = json!(true);
            value["next"] = json!({"note": path.as_str(), "offset": from + part.len()});
        }
        Ok(ok_content(value))
    }

    /// List the notes of the vault or of a folder (recursive unless recursive: false), sorted by path, each with its name, title, a short preview of its text, and last modification. Paged: pass the returned next arguments.
    #[tool(output_schema = schema::<answers::ListNotesAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn list_notes(&self, Parameters(args): Parameters<ListNotes>) -> Answer {
        let folder = attempt!(self.folder(args.folder.as_deref(), false));
        let mut notes = attempt!(library::notes(self.vault.as_ref(), &folder));
        if !args.recursive {
            notes.retain(|n| n.path.parent().unwrap_or_default() == folder);
        }
        let total = notes.len();
        let window = Window::new(args.offset, args.limit, 50, 200);
        let fields = json!({"folder": folder.as_str()});
        let next = json!({"folder": folder.as_str(), "recursive": args.recursive});
        // The notes asked for come before their previews: each note's share of the room bounds
        // its preview, so a large page holds more notes with shorter previews.
        let asked = window.limit.min(total.saturating_sub(window.offset)).max(1);
        let share = room(&fields, &next) / asked;
        let items = notes.iter().skip(window.offset).map(|meta| self.listed_note(meta, share));
        let value = page(fields, "notes", items, total, window, next);
        Ok(ok(value))
    }

    /// A note's full Markdown content, with its frontmatter and tags. Long notes come in parts: pass the returned next offset.
    #[tool(output_schema = schema::<answers::GetNoteContentAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn get_note_content(&self, Parameters(args): Parameters<NoteContent>) -> Answer {
        let path = attempt!(self.resolve_note(&args.path));
        let text = attempt!(self.vault.read(&path).map_err(not_found_hint));
        let budget = args.length.unwrap_or(MAX_ANSWER_BYTES - 2048).min(MAX_ANSWER_BYTES - 2048);
        let (start, part, truncated) = crate::mcp::reply::part_of(&text, args.offset, budget);
        let mut value = json!({"path": path.as_str(), "content": part, "size": text.len(), "offset": start});
        // What describes the note comes once, with its first part.
        if start == 0 {
            value["frontmatter"] = Value::Object(Frontmatter::parse(&text).data);
            value["tags"] = json!(Note::parse(&text).tag_names());
        }
        if truncated {
            value["truncated"] = json!(true);
            value["next"] = json!({"path": path.as_str(), "offset": start + part.len()});
        }
        Ok(ok_content(value))
    }

    /// A note's metadata without its content: frontmatter, tags, headings, links, file stats (mtime, ctime, size), and from the index its backlinks (notes linking here) and outgoing links with where each resolves.
    #[tool(output_schema = schema::<answers::GetNoteMetadataAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn get_note_metadata(&self, Parameters(args): Parameters<NotePath>) -> Answer {
        let path = attempt!(self.resolve_note(&args.path));
        let text = attempt!(self.vault.read(&path).map_err(not_found_hint));
        let stat = attempt!(self.vault.stat(&path));
        let note = Note::parse(&text);
        let links: Vec<&str> = note
            .links
            .iter()
            .filter(|l| !l.external && !l.target.is_empty())
            .map(|l| l.target.as_str())
            .collect();
        let mut value = json!({
                "path": path.as_str(),
                "frontmatter": note.frontmatter.data,
                "tags": note.tag_names(),
                "headings": note.headings.iter().map(|h| json!({"level": h.level, "text": h.text})).collect::<Vec<_>>(),
                "links": links,
                "mtime": stat.mtime_ms,
                "ctime": stat.ctime_ms,
                "size": stat.size,
        });
        for (key, links) in self.note_links(&path) {
            value[key] = links;
        }
        Ok(ok(value))
    }

    /// Create a new note (parent folders too) with optional frontmatter. An existing note is an error: use append_to_note or patch_note to change it.
    #[tool(output_schema = schema::<answers::CreateNoteAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn create_note(
        &self,
        Parameters(args): Parameters<CreateNote>,
        ctx: RequestContext<RoleServer>,
    ) -> Answer {
        let path = attempt!(self.note_path(&args.path));
        attempt!(path.ensure_writable());
        if self.vault.exists(&path) {
            return Ok(fail(format!("{path} already exists; use append_to_note or patch_note to change it")));
        }
        let text = attempt!(with_frontmatter(&args.content, args.frontmatter.as_ref()));
        if args.write.dry_run {
            return Ok(Self::dry_run_answer(&path, "", &text, json!({"would_create": true})));
        }
        attempt!(self.ask_now(&ctx, Ask::edit(&format!("create {path}"), args.write)).await);
        attempt!(self.vault.create_new(&path, &text));
        let value = json!({"path": path.as_str(), "file_path": self.vault.absolute(&path), "wikilink": wikilink(&path)});
        Ok(ok(self.link_checked(value, &path, &text)))
    }

    /// Create or replace a Markdown note (seed 001). An existing note is replaced only with overwrite: true; its previous version goes to the vault's .trash/ and the answer names it.
    #[tool(output_schema = schema::<answers::ObsidianWriteNoteAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn obsidian_write_note(
        &self,
        Parameters(args): Parameters<WriteNote>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        match self.write_note(args, &ctx, Round { state, responses }).await {
            Ok(answer) | Err(answer) => Ok(answer),
        }
    }

    /// Change a note named by name, alias, [[wikilink]] or path: replace its body (the frontmatter stays; the previous version goes to .trash/; needs the user's approval), append or prepend to it, and/or set frontmatter properties (lists merged). dryRun returns the diff and writes nothing.
    #[tool(output_schema = schema::<answers::UpdateNoteAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn update_note(
        &self,
        Parameters(args): Parameters<UpdateNote>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Response {
        let path = attempt!(self.resolve_note(&args.note));
        attempt!(path.ensure_writable());
        let text = attempt!(self.vault.read(&path));
        if args.content.is_none() && args.frontmatter.as_ref().is_none_or(|f| f.is_empty()) {
            return Ok(fail(
                "nothing to change: give content (with mode replace, append or prepend) or frontmatter",
            )
            .into());
        }
        let mut new = match &args.content {
            Some(content) => new_body(&text, content, args.mode),
            None => text.clone(),
        };
        let mut properties = Vec::new();
        if let Some(map) = args.frontmatter.as_ref().filter(|m| !m.is_empty()) {
            (new, properties) = attempt!(meta_edit::update_properties(&new, map, false));
        }
        let shown = diff::for_path(path.as_str(), &text, &new);
        let (added, removed) = diff_counts(&shown);
        let mut value = json!({"path": path.as_str(), "mode": args.mode_name(), "properties": properties, "lines_added": added, "lines_removed": removed});
        if new == text {
            value["changed"] = json!(false);
            return Ok(ok(value).into());
        }
        if args.write.dry_run {
            let (cut, truncated) = cut_text(&shown, MAX_ANSWER_BYTES - 4096);
            value["dry_run"] = json!(true);
            value["diff"] = json!(cut);
            if truncated {
                value["truncated"] = json!(true);
            }
            return Ok(ok(value).into());
        }
        let destructive = args.content.is_some() && args.mode == UpdateMode::Replace;
        let what = if destructive { format!("replace the body of {path}") } else { format!("edit {path}") };
        let version = content_hash(&text);
        let ask = Ask::new(&what, destructive, args.write).planned_from(Some(&version));
        if let Err(answer) = self.ask(&ctx, ask, Some(Round { state, responses })).await {
            return Ok(answer);
        }
        if let Some(trashed) = attempt!(self.write_over(&path, &text, &new, destructive)) {
            value["previous_version"] = json!(trashed.as_str());
        }
        value["changed"] = json!(true);
        let value = self.link_checked(value, &path, args.content.as_deref().unwrap_or_default());
        Ok(ok(value).into())
    }

    /// Delete a note named by name, alias, [[wikilink]] or path: it goes to the vault's .trash/ (a backup Obsidian can restore). The answer, and the approval question, warn of every note that links to it (those links break). Needs the user's approval; dryRun only reports.
    #[tool(output_schema = schema::<answers::DeleteNoteAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn delete_note(
        &self,
        Parameters(args): Parameters<DeleteNote>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Response {
        let (path, incoming) = {
            let path = attempt!(self.resolve_note(&args.note));
            let view = attempt!(self.synced_index_view());
            let incoming = view.graph().backlinks(&path);
            (path, incoming)
        };
        attempt!(path.ensure_writable());
        let mut sources: Vec<&str> = incoming.iter().map(|b| b.source.as_str()).collect();
        sources.dedup();
        let warning = match sources.len() {
            0 => None,
            n => Some(format!(
                "{n} note{} link to {path}; those links will be broken: {}",
                if n == 1 { "" } else { "s" },
                sources.iter().take(10).copied().collect::<Vec<_>>().join(", ")
            )),
        };
        let (links, _) = fit(backlink_json(&incoming), MAX_ANSWER_BYTES - 4096);
        let mut value = json!({"path": path.as_str(), "incoming_links": links, "linking_notes": sources.len(), "warning": warning});
        if args.write.dry_run {
            value["dry_run"] = json!(true);
            return Ok(ok(value).into());
        }
        let what = match &warning {
            Some(w) => format!("delete {path} (it goes to .trash/; {w})"),
            None => format!("delete {path} (it goes to .trash/; no note links to it)"),
        };
        let before = self.vault.read(&path).ok();
        let ask = Ask::destructive(&what, args.write);
        if let Err(answer) = self.ask(&ctx, ask, Some(Round { state, responses })).await {
            return Ok(answer);
        }
        let trashed = attempt!(self.trash_approved(&path, before.as_deref(), &what));
        value["trashed_to"] = json!(trashed.as_str());
        Ok(ok(value).into())
    }
}

impl UpdateNote {
    fn mode_name(&self) -> &'static str {
        match (self.content.is_some(), self.mode) {
            (false, _) => "frontmatter",
            (true, UpdateMode::Replace) => "replace",
            (true, UpdateMode::Append) => "append",
            (true, UpdateMode::Prepend) => "prepend",
        }
    }
}

impl Scholia {
    /// `obsidian_write_note`; `Err` is an answer sent before anything is written.
    async fn write_note(
        &self,
        args: WriteNote,
        ctx: &RequestContext<RoleServer>,
        round: Round,
    ) -> Result<CallToolResponse, CallToolResponse> {
        let path = self.note_path(&args.path).map_err(refuse)?;
        path.ensure_writable().map_err(refuse)?;
        let text = with_frontmatter(&args.content, args.frontmatter.as_ref()).map_err(refuse)?;
        let old = match self.vault.read(&path) {
            Ok(old) => Some(old),
            Err(VaultError::NotFound { .. }) => None,
            Err(e) => return Err(refuse(e)),
        };
        if old.is_some() && !args.overwrite {
            return Err(refuse(format!(
                "{path} already exists; pass overwrite: true to replace it (the old version goes to .trash/), or use append_to_note / patch_note"
            )));
        }
        if args.write.dry_run {
            let fields = json!({"would_create": old.is_none()});
            return Ok(Self::dry_run_answer(&path, old.as_deref().unwrap_or(""), &text, fields).into());
        }
        let what = if old.is_some() { format!("replace {path}") } else { format!("create {path}") };
        let version = old.as_deref().map(content_hash);
        let ask = Ask::new(&what, old.is_some(), args.write).planned_from(version.as_deref());
        self.ask(ctx, ask, Some(round)).await?;
        let previous = match &old {
            Some(old) => self.write_over(&path, old, &text, true).map_err(refuse)?,
            None => self.vault.create_new(&path, &text).map(|()| None).map_err(refuse)?,
        };
        let value = json!({
            "path": path.as_str(),
            "file_path": self.vault.absolute(&path),
            "wikilink": wikilink(&path),
            "previous_version": previous.as_ref().map(VaultPath::as_str),
        });
        Ok(ok(self.link_checked(value, &path, &text)).into())
    }

    /// A note as `list_notes` lists it, its preview cut so that the whole entry takes about
    /// `share` bytes (no preview when even the rest takes more).
    fn listed_note(&self, meta: &FileMeta, share: usize) -> Value {
        let text = self.vault.read(&meta.path).unwrap_or_default();
        let note = Note::parse(&text);
        let title = title_of(&note, &meta.path);
        let mut item = json!({
            "path": meta.path.as_str(),
            "name": meta.path.stem(),
            "preview": "",
            "title": title,
            "modified": jiff::Timestamp::from_millisecond(meta.mtime_ms).ok().map(|t| t.to_string()),
        });
        let room = share.saturating_sub(crate::mcp::reply::size_of(&item));
        let full = preview(&text, &title);
        item["preview"] = json!(match cut_text(&full, room) {
            (all, false) => all.to_string(),
            (_, true) if room < 8 => String::new(),
            (_, true) => format!("{}…", cut_text(&full, room - 3).0.trim_end()),
        });
        item
    }

    /// The backlinks and outgoing links of the note at `path` from the index (a scan while it
    /// is being built), for `get_note_metadata`; each list capped to fit the answer.
    fn note_links(&self, path: &VaultPath) -> Map<String, Value> {
        let Ok(view) = self.index_view(&VaultPath::root()) else { return Map::new() };
        let graph = view.graph();
        let backlinks: Vec<Value> = graph
            .backlinks(path)
            .iter()
            .map(|b| json!({"path": b.source.as_str(), "line": b.line, "embed": b.embed, "subpath": b.subpath}))
            .collect();
        let outgoing: Vec<Value> = graph
            .outgoing(path)
            .iter()
            .map(|l| {
                json!({"target": l.target, "subpath": l.subpath, "path": l.path(), "resolved": l.path().is_some(),
                    "ambiguous": matches!(l.resolution, Resolution::Ambiguous(_)), "embed": l.embed,
                    "line": l.line, "anchor_found": l.anchor_found})
            })
            .collect();
        let live = view.is_live();
        drop(view);
        let (backlink_count, outgoing_count) = (backlinks.len(), outgoing.len());
        let (backlinks, cut_in) = fit(backlinks, 5 * 1024);
        let (outgoing, cut_out) = fit(outgoing, 7 * 1024);
        let mut value = json!({"backlinks": backlinks, "backlink_count": backlink_count, "outgoing": outgoing,
            "outgoing_count": outgoing_count});
        if cut_in || cut_out {
            value["links_truncated"] = json!(true);
            value["links_hint"] = json!("the note has more links than shown; find_related_notes ranks them");
        }
        match self.mark_index(value, live) {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }
}

/// `read_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadNote {
    /// The note: a name (`Meeting`), an alias, a wikilink (`[[Meeting|the meeting]]`) or a vault path.
    #[serde(alias = "name", alias = "path")]
    pub note: String,
    /// Byte offset to start reading at, for long notes (the answer gives the next one).
    #[serde(default)]
    pub offset: usize,
}

/// `list_notes`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListNotes {
    /// Folder to list (vault-relative); default the whole vault.
    pub folder: Option<String>,
    /// Include notes in subfolders. Default true.
    #[serde(default = "yes")]
    pub recursive: bool,
    /// Skip this many notes (for paging; the answer says what to pass next).
    #[serde(default)]
    pub offset: usize,
    /// Most notes to return (default 50, at most 200). Previews shorten so that the notes asked for fit one answer; a page that still would not fit holds fewer, and `next` continues.
    pub limit: Option<usize>,
}

fn yes() -> bool {
    true
}

/// `update_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UpdateNote {
    /// The note: a name, an alias, a wikilink or a vault path.
    #[serde(alias = "name", alias = "path")]
    pub note: String,
    /// New Markdown for the body (without frontmatter); how it is used depends on `mode`.
    pub content: Option<String>,
    /// replace (default), append or prepend.
    #[serde(default)]
    pub mode: UpdateMode,
    /// Properties to set in the frontmatter (lists are merged; `null` removes a property).
    pub frontmatter: Option<Map<String, Value>>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// How `update_note` changes the body.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UpdateMode {
    /// Replace the body (the frontmatter stays; the previous version goes to `.trash/`).
    #[default]
    Replace,
    /// Add to the end of the note.
    Append,
    /// Add right after the frontmatter.
    Prepend,
}

/// `delete_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteNote {
    /// The note: a name, an alias, a wikilink or a vault path.
    #[serde(alias = "name", alias = "path")]
    pub note: String,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// A note by path.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotePath {
    /// Vault-relative path of the note, e.g. `Projects/Alpha.md` (`.md` is added when missing).
    pub path: String,
}

/// `get_note_content`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoteContent {
    /// Vault-relative path of the note (`.md` is added when missing).
    pub path: String,
    /// Byte offset to start reading at (for long notes; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most bytes of content to return (default and maximum about 18 KB).
    pub length: Option<usize>,
}

/// `create_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateNote {
    /// Vault-relative path of the new note (parent folders are created; `.md` is added when missing).
    pub path: String,
    /// Markdown content.
    #[serde(default)]
    pub content: String,
    /// Frontmatter as key-value pairs.
    pub frontmatter: Option<Map<String, Value>>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// `obsidian_write_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteNote {
    /// Path relative to the vault root, e.g. `Synthesis/methodology-review.md` (`.md` is added when missing).
    pub path: String,
    /// Markdown content of the note.
    pub content: String,
    /// Frontmatter as key-value pairs, written as a YAML block at the top.
    pub frontmatter: Option<Map<String, Value>>,
    /// Replace an existing note (its previous version is kept in the vault's `.trash/`). Default false.
    #[serde(default)]
    pub overwrite: bool,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_change_around_the_frontmatter() {
        let note = "\u{feff}---\r\na: 1\r\n---\r\nOld\r\n";
        assert_eq!(new_body(note, "New\n", UpdateMode::Replace), "\u{feff}---\r\na: 1\r\n---\r\nNew\r\n");
        assert_eq!(
            new_body(note, "More", UpdateMode::Append),
            "\u{feff}---\r\na: 1\r\n---\r\nOld\r\nMore\r\n"
        );
        assert_eq!(
            new_body(note, "Top", UpdateMode::Prepend),
            "\u{feff}---\r\na: 1\r\n---\r\nTop\r\nOld\r\n"
        );
        assert_eq!(new_body("x", "y", UpdateMode::Append), "x\ny\n");
    }

    #[test]
    fn previews_skip_frontmatter_and_title() {
        let text = "---\ntitle: T\n---\n# T\n\nFirst line.\n## Part\nSecond.\n";
        assert_eq!(preview(text, "T"), "First line. Part Second.");
        let long = format!("# X\n{}", "word ".repeat(100));
        assert!(preview(&long, "X").ends_with('…') && preview(&long, "X").chars().count() <= PREVIEW + 1);
    }
}

/// What the tools answer, as their output schemas declare it: the tools build their answers as
/// JSON, and the tests check every answer against these.
#[allow(dead_code)]
mod answers {
    use schemars::JsonSchema;
    use serde_json::{Map, Value};

    use crate::mcp::indexed::IndexMarks;
    use crate::mcp::linkcheck::LinkCheck;
    use crate::mcp::reply::Paged;

    /// An item of `backlinks` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ReadNoteBacklinks {
        pub source: String,
        pub line: usize,
        pub embed: bool,
    }

    /// What `read_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ReadNoteAnswer {
        pub path: String,
        pub size: usize,
        pub offset: usize,
        pub name: Option<String>,
        pub title: Option<String>,
        pub resolved_from: Option<String>,
        pub frontmatter: Option<Map<String, Value>>,
        pub tags: Option<Vec<String>>,
        pub aliases: Option<Vec<String>>,
        pub created: Option<String>,
        pub created_from: Option<String>,
        pub modified: Option<String>,
        pub backlinks: Option<Vec<ReadNoteBacklinks>>,
        pub backlink_count: Option<usize>,
        pub truncated: Option<bool>,
        pub next: Option<Map<String, Value>>,
        pub content: String,
    }

    /// An item of `notes` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ListNotesNotes {
        pub path: String,
        pub name: String,
        pub preview: String,
        pub title: String,
        pub modified: String,
    }

    /// What `list_notes` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ListNotesAnswer {
        #[serde(flatten)]
        pub page: Paged,
        pub folder: String,
        pub notes: Vec<ListNotesNotes>,
    }

    /// What `get_note_content` answers.
    #[derive(Debug, JsonSchema)]
    pub struct GetNoteContentAnswer {
        pub path: String,
        pub size: usize,
        pub offset: usize,
        pub frontmatter: Option<Map<String, Value>>,
        pub tags: Option<Vec<String>>,
        pub content: String,
        pub truncated: Option<bool>,
        pub next: Option<Map<String, Value>>,
    }

    /// An item of `headings` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct GetNoteMetadataHeadings {
        pub level: usize,
        pub text: String,
    }

    /// An item of `backlinks` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct GetNoteMetadataBacklinks {
        pub path: String,
        pub line: usize,
        pub embed: bool,
        pub subpath: Option<String>,
    }

    /// An item of `outgoing` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct GetNoteMetadataOutgoing {
        pub target: String,
        pub subpath: Option<String>,
        pub path: Option<String>,
        pub resolved: bool,
        pub ambiguous: bool,
        pub embed: bool,
        pub line: usize,
        pub anchor_found: Option<bool>,
    }

    /// What `get_note_metadata` answers.
    #[derive(Debug, JsonSchema)]
    pub struct GetNoteMetadataAnswer {
        #[serde(flatten)]
        pub index: IndexMarks,
        pub path: String,
        pub frontmatter: Map<String, Value>,
        pub tags: Vec<String>,
        pub headings: Vec<GetNoteMetadataHeadings>,
        pub links: Vec<String>,
        pub mtime: i64,
        pub ctime: i64,
        pub size: usize,
        pub backlinks: Vec<GetNoteMetadataBacklinks>,
        pub backlink_count: usize,
        pub outgoing: Vec<GetNoteMetadataOutgoing>,
        pub outgoing_count: usize,
    }

    /// What `create_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct CreateNoteAnswer {
        #[serde(flatten)]
        pub links: LinkCheck,
        pub path: String,
        pub file_path: Option<String>,
        pub wikilink: Option<String>,
        pub would_create: Option<bool>,
        pub dry_run: Option<bool>,
        pub changed: Option<bool>,
        pub diff: Option<String>,
    }

    /// What `obsidian_write_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianWriteNoteAnswer {
        #[serde(flatten)]
        pub links: LinkCheck,
        pub path: String,
        pub file_path: Option<String>,
        pub wikilink: Option<String>,
        pub previous_version: Option<String>,
        pub would_create: Option<bool>,
        pub dry_run: Option<bool>,
        pub changed: Option<bool>,
        pub diff: Option<String>,
    }

    /// What `update_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct UpdateNoteAnswer {
        #[serde(flatten)]
        pub links: LinkCheck,
        pub path: String,
        pub mode: String,
        pub properties: Vec<Map<String, Value>>,
        pub lines_added: usize,
        pub lines_removed: usize,
        pub dry_run: Option<bool>,
        pub diff: Option<String>,
        pub changed: Option<bool>,
        pub previous_version: Option<String>,
    }

    /// What `delete_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct DeleteNoteAnswer {
        pub path: String,
        pub incoming_links: Vec<ReadNoteBacklinks>,
        pub linking_notes: usize,
        pub warning: Option<String>,
        pub trashed_to: Option<String>,
        pub dry_run: Option<bool>,
    }
}
