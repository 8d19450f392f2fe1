//! The edit toolset: files by path (seeds 003/004). Append to a note, patch it under a heading, at
//! a block or in a frontmatter key, list a folder; and seed 004's file tools: read a note
//! (Markdown or NoteJson, with a content hash), update it (whole file or a patch; by path, name,
//! the active note or a periodic note; `ifMatch`, dry run), delete it to `.trash/` (listing the
//! links that break), and move it (rewriting every link to it). Every note argument of the file
//! tools is a path, a name or a [[link]] (`names.rs`). The tools' arguments are in `params.rs`,
//! the update planner in `update.rs`, what a move or delete does to links in `library::moves`.

mod params;
mod update;

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use serde_json::{Value, json};

use self::params::{
    AppendToNote, DeleteFile, Format, ListFiles, MoveFile, PatchNote, ReadFile, TargetType, UpdateFile,
};
use super::shared::{append_lines, existing_text, line_suffix, not_found_hint, refuse};
use crate::library::moves;
use crate::mcp::approval::{Ask, Round, large_removal};
use crate::mcp::reply::schema;
use crate::mcp::reply::{Answer, MAX_ANSWER_BYTES, Window, attempt, fit, ok, ok_content, page};
use crate::mcp::server::Scholia;
use crate::note::diff::content_hash;
use crate::note::{Frontmatter, Note, PatchOptions, Target};
use crate::vault::{Change, Vault, VaultPath};

type Response = Result<CallToolResponse, rmcp::ErrorData>;

/// Room left for lists and diffs in an answer.
const BUDGET: usize = MAX_ANSWER_BYTES - 2048;

#[tool_router(router = edit, vis = "pub(super)")]
impl Scholia {
    /// `patch_note`; `Err` is an answer sent before anything is written. A replace that
    /// removes much is destructive: approved as such, the previous version kept in `.trash/`.
    async fn patch_in_note(
        &self,
        args: &PatchNote,
        ctx: &RequestContext<RoleServer>,
        round: Round,
    ) -> Result<CallToolResponse, CallToolResponse> {
        let path = self.resolve_note(&args.path).map_err(refuse)?;
        path.ensure_writable().map_err(refuse)?;
        let text = self.vault.read(&path).map_err(not_found_hint).map_err(refuse)?;
        let target = match args.target_type {
            TargetType::Heading => Target::Heading(args.target.clone()),
            TargetType::Block => Target::Block(args.target.clone()),
            TargetType::Frontmatter => Target::Frontmatter(args.target.clone()),
        };
        let options = PatchOptions {
            delimiter: args.delimiter.clone().unwrap_or_else(|| "::".into()),
            trim_target: true,
            create_if_missing: args.create_if_missing,
        };
        let patched = crate::note::patch(&text, &target, args.operation.into(), &args.content, &options)
            .map_err(refuse)?;
        let removes = large_removal(&text, &patched.text);
        let mut value = json!({
            "path": path.as_str(), "created_target": patched.created, "replaced": patched.replaced,
            "removes": removes,
        });
        if args.write.dry_run {
            return Ok(Self::dry_run_answer(&path, &text, &patched.text, value).into());
        }
        let what = match &removes {
            Some(removes) => format!("replace {} in {path}, which {removes}", args.target),
            None => format!("edit {path}"),
        };
        let version = content_hash(&text);
        let ask = Ask::new(&what, removes.is_some(), args.write).planned_from(Some(&version));
        self.ask(ctx, ask, Some(round)).await?;
        let previous = self.write_over(&path, &text, &patched.text, removes.is_some()).map_err(refuse)?;
        value["previous_version"] = json!(previous.as_ref().map(VaultPath::as_str));
        let value = self.link_checked(value, &path, args.content.as_str().unwrap_or_default());
        Ok(ok(value).into())
    }

    /// Read a note (by vault path, note name, alias or [[link]]): its Markdown, or with format json a NoteJson (content, frontmatter, tags, stat with ctime, mtime, size). Both give a content `hash` to pass as ifMatch to obsidian_update_file. Long notes come in parts: pass the returned next offset.
    #[tool(output_schema = schema::<answers::ObsidianReadFileAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_read_file(&self, Parameters(args): Parameters<ReadFile>) -> Response {
        let path = attempt!(self.resolve_note(&args.file_path));
        let text = attempt!(self.vault.read(&path));
        let budget = args.length.unwrap_or(BUDGET).min(BUDGET);
        let (start, part, truncated) = crate::mcp::reply::part_of(&text, args.offset, budget);
        let mut value = json!({"path": path.as_str(), "content": part, "size": text.len(), "offset": start,
            "hash": content_hash(&text)});
        // What describes the note comes once, with its first part.
        if args.format == Format::Json && start == 0 {
            let stat = attempt!(self.vault.stat(&path));
            value["frontmatter"] = Value::Object(Frontmatter::parse(&text).data);
            value["tags"] = json!(Note::parse(&text).tag_names());
            value["stat"] = json!({"ctime": stat.ctime_ms, "mtime": stat.mtime_ms, "size": stat.size});
        }
        if truncated {
            value["truncated"] = json!(true);
            value["next"] =
                json!({"filePath": path.as_str(), "format": args.format, "offset": start + part.len()});
        }
        Ok(ok_content(value).into())
    }

    /// Change a note, given by path, name or [[link]] (targetType filePath), as the note open in Obsidian (activeFile; needs ifMatch), or as the current periodic note (periodicNote, e.g. daily). wholeFile appends, prepends (after the frontmatter) or overwrites (overwriteIfExists; the old version goes to .trash/), creating the note when needed; patch appends, prepends or replaces under a heading (A::B paths), at a block (^id) or in a frontmatter key, touching nothing else; a patch replace that removes a section, a block or more than 1 KB is approved and kept in .trash/ as an overwrite is. ifMatch refuses the change when the note changed since it was read; dryRun returns a unified diff instead of writing.
    #[tool(output_schema = schema::<answers::ObsidianUpdateFileAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn obsidian_update_file(
        &self,
        Parameters(args): Parameters<UpdateFile>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Response {
        let plan = attempt!(self.plan_update(&args));
        if args.write.dry_run {
            return Ok(plan.preview(BUDGET).into());
        }
        if !plan.changes() {
            return Ok(plan.answer(false, None).into());
        }
        let what = plan.what();
        let version = plan.old.as_deref().map(content_hash);
        let ask = Ask::new(&what, plan.destructive, args.write).planned_from(version.as_deref());
        if let Err(answer) = self.ask(&ctx, ask, Some(Round { state, responses })).await {
            return Ok(answer);
        }
        let previous = attempt!(self.apply_update(&plan));
        let value = plan.answer_fields(true, previous.as_ref());
        let value = self.link_checked(value, &plan.path, args.content.as_str().unwrap_or_default());
        Ok(ok(value).into())
    }

    /// Delete a note or file (by path, name or [[link]]): it goes to the vault's .trash/ (restorable). The answer says where it went and lists the links in other notes that now break (or now open another file of the same name). dryRun lists them without deleting.
    #[tool(output_schema = schema::<answers::ObsidianDeleteFileAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn obsidian_delete_file(
        &self,
        Parameters(args): Parameters<DeleteFile>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Response {
        let path = attempt!(self.resolve_note(&args.file_path));
        attempt!(path.ensure_writable());
        let links = {
            let view = attempt!(self.synced_index_view());
            moves::links_into(view.graph(), &path)
        };
        if args.write.dry_run {
            return Ok(deleted(&path, links, None).into());
        }
        let broken = links.iter().filter(|l| l.now_opens.is_none()).count();
        let what = format!("delete {path} (to .trash/), breaking {broken} links");
        let before = self.vault.read(&path).ok();
        let ask = Ask::destructive(&what, args.write);
        if let Err(answer) = self.ask(&ctx, ask, Some(Round { state, responses })).await {
            return Ok(answer);
        }
        let trashed = attempt!(self.trash_approved(&path, before.as_deref(), &what));
        Ok(deleted(&path, links, Some(trashed)).into())
    }

    /// Move or rename a note or file (by path, name or [[link]]) and rewrite every link to it across the vault, as Obsidian does: wikilinks, Markdown links, embeds, frontmatter links, aliases, #heading and #^block kept; new links follow the vault's "New link format". newPath may be a path, a folder ending with /, or a bare new name. Refused when the target exists. The answer lists every changed note with its link changes (line, before, after); dryRun lists them without writing.
    #[tool(output_schema = schema::<answers::ObsidianMoveFileAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn obsidian_move_file(
        &self,
        Parameters(args): Parameters<MoveFile>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Response {
        let (old, new) = attempt!(self.move_paths(&args.file_path, &args.new_path));
        let plan = {
            let view = attempt!(self.synced_index_view());
            attempt!(moves::plan_move(self.vault.as_ref(), view.graph(), &old, &new, self.link_style()))
        };
        if !args.write.dry_run {
            let (notes, links) = plan.counts();
            let what = format!("move {old} to {new} and rewrite {links} links in {notes} notes");
            let ask = Ask::destructive(&what, args.write);
            if let Err(answer) = self.ask(&ctx, ask, Some(Round { state, responses })).await {
                return Ok(answer);
            }
            attempt!(self.apply_move(&old, &new, &plan));
        }
        Ok(moved(&old, &new, &plan, args.write.dry_run).into())
    }

    /// Append Markdown to the end of a note, creating the note when it does not exist.
    #[tool(output_schema = schema::<answers::AppendToNoteAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn append_to_note(
        &self,
        Parameters(args): Parameters<AppendToNote>,
        ctx: RequestContext<RoleServer>,
    ) -> Answer {
        let path = attempt!(self.note_or_new(&args.path));
        attempt!(path.ensure_writable());
        if args.write.dry_run {
            let before = attempt!(existing_text(self.vault.as_ref(), &path));
            let after = format!("{before}{}", line_suffix(&before, &args.content));
            let fields = json!({"would_create": !self.vault.exists(&path)});
            return Ok(Self::dry_run_answer(&path, &before, &after, fields));
        }
        attempt!(self.ask_now(&ctx, Ask::edit(&format!("append to {path}"), args.write)).await);
        let created = attempt!(append_lines(self.vault.as_ref(), &path, "", &args.content));
        let value = json!({"path": path.as_str(), "created": created});
        Ok(ok(self.link_checked(value, &path, &args.content)))
    }

    /// Insert or replace content inside a note: under a heading (a section ends at the next heading of the same or higher level; paths like A::B), at a block (^id), or in a frontmatter key. Nothing outside the target changes; a replace returns the replaced text. A replace that removes a section, a block or more than 1 KB needs the user's approval and keeps the previous version in .trash/.
    #[tool(output_schema = schema::<answers::PatchNoteAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn patch_note(
        &self,
        Parameters(args): Parameters<PatchNote>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        match self.patch_in_note(&args, &ctx, Round { state, responses }).await {
            Ok(answer) | Err(answer) => Ok(answer),
        }
    }

    /// List the files and folders directly inside a vault folder (seed 004); folder names end with `/`. Paged: the answer gives the total and, while entries remain, the next arguments.
    #[tool(output_schema = schema::<answers::ObsidianListFilesAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_list_files(&self, Parameters(args): Parameters<ListFiles>) -> Answer {
        let folder = attempt!(self.folder(Some(&args.dir_path), false));
        let entries = attempt!(self.vault.list_dir(&folder));
        let total = entries.len();
        let window = Window::new(args.offset, args.limit, 1000, 5000);
        let names = entries
            .iter()
            .skip(window.offset)
            .map(|e| format!("{}{}", e.path.file_name(), if e.is_dir { "/" } else { "" }));
        let fields = json!({"path": folder.as_str(), "count": total});
        let value = page(fields, "files", names, total, window, json!({"dirPath": folder.as_str()}));
        Ok(ok(value))
    }
}

impl Scholia {
    /// The file to move and where: it exists, the target does not, neither is protected.
    fn move_paths(&self, file: &str, raw_new: &str) -> Result<(VaultPath, VaultPath), String> {
        let old = self.resolve_note(file)?;
        old.ensure_movable().map_err(|e| e.to_string())?;
        let new = destination(&old, raw_new)?;
        new.ensure_writable().map_err(|e| e.to_string())?;
        if new == old {
            return Err(format!("{old} is already there; give a different newPath"));
        }
        if self.vault.exists(&new) {
            return Err(format!(
                "{new} already exists; choose another newPath (nothing was moved), or delete that file first"
            ));
        }
        Ok((old, new))
    }

    /// Moves the file, then writes each changed note (each atomically, and only over the text its
    /// change was planned from).
    fn apply_move(&self, old: &VaultPath, new: &VaultPath, plan: &moves::MovePlan) -> Result<(), String> {
        self.vault.rename(old, new).map_err(|e| e.to_string())?;
        let failed: Vec<String> = plan
            .edits()
            .filter_map(|edit| {
                let change = Change::Write(edit.text.clone());
                self.save(&edit.path, Some(&edit.before), change).err().map(|e| format!("{}: {e}", edit.path))
            })
            .collect();
        if failed.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "moved {old} to {new}, but could not update the links in: {}; fix those by hand",
                failed.join("; ")
            ))
        }
    }
}

/// The answer of a delete (`trashed`: where the file went; `None` for a dry run).
fn deleted(path: &VaultPath, links: Vec<moves::DeletedLink>, trashed: Option<VaultPath>) -> CallToolResult {
    let (broken, redirected): (Vec<_>, Vec<_>) = links.into_iter().partition(|l| l.now_opens.is_none());
    let count = broken.len();
    let (broken, cut) = fit(broken, BUDGET / 2);
    let (redirected, cut_more) = fit(redirected, BUDGET / 2);
    let mut value = json!({"path": path.as_str(), "broken_links": broken, "broken_count": count});
    match &trashed {
        Some(to) => value["trashed_to"] = json!(to.as_str()),
        None => value["dry_run"] = json!(true),
    }
    if !redirected.is_empty() {
        value["redirected_links"] = json!(redirected);
    }
    if cut || cut_more {
        value["truncated"] = json!(true);
        value["hint"] = json!("not every link is listed; obsidian_search for the note's name finds the rest");
    }
    ok(value)
}

/// The answer of a move: every changed note with its link changes.
fn moved(old: &VaultPath, new: &VaultPath, plan: &moves::MovePlan, dry_run: bool) -> CallToolResult {
    let (notes, links) = plan.counts();
    let (edits, truncated) = fit(plan.edits().collect(), BUDGET);
    let mut value = json!({
        "path": new.as_str(), "previous_path": old.as_str(), "notes": edits,
        "notes_changed": notes, "links_changed": links,
    });
    if dry_run {
        value["dry_run"] = json!(true);
    }
    if truncated {
        value["truncated"] = json!(true);
        value["hint"] = json!("not every changed note is listed; the counts cover them all");
    }
    ok(value)
}

/// Where `raw` sends `old`: a path; a folder ending with `/` (the name kept); or a bare name (the
/// folder kept). The extension of `old` is added when the new name has none (`.md` for a note).
fn destination(old: &VaultPath, raw: &str) -> Result<VaultPath, String> {
    let raw = raw.trim();
    let raw = raw.strip_prefix("[[").and_then(|r| r.strip_suffix("]]")).unwrap_or(raw);
    if raw.is_empty() {
        return Err("newPath is empty; give the new path, a folder ending with /, or a new name".into());
    }
    let folder = old.parent().unwrap_or_default();
    let path = if raw.ends_with('/') {
        VaultPath::new(raw).and_then(|f| f.join(old.file_name()))
    } else if raw.contains('/') {
        VaultPath::new(raw)
    } else {
        folder.join(raw)
    }
    .map_err(|e| e.to_string())?;
    if path.is_root() {
        return Err("newPath names the vault root; give a path for the file".into());
    }
    let ext = old.extension();
    let keeps_ext =
        if old.is_markdown() { path.is_markdown() } else { path.extension().eq_ignore_ascii_case(ext) };
    if keeps_ext || ext.is_empty() {
        return Ok(path);
    }
    let name = format!("{}.{ext}", path.file_name());
    path.parent().unwrap_or_default().join(&name).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dest(old: &str, raw: &str) -> Result<String, String> {
        destination(&VaultPath::new(old).unwrap(), raw).map(|p| p.as_str().to_string())
    }

    #[test]
    fn the_destination_of_a_move() {
        assert_eq!(dest("A/Old.md", "New").unwrap(), "A/New.md");
        assert_eq!(dest("A/Old.md", "B/New").unwrap(), "B/New.md");
        assert_eq!(dest("A/Old.md", "B/").unwrap(), "B/Old.md");
        assert_eq!(dest("A/Old.md", "Paper v1.2").unwrap(), "A/Paper v1.2.md");
        assert_eq!(dest("img/x.png", "y").unwrap(), "img/y.png");
        assert_eq!(dest("img/x.png", "media/y.PNG").unwrap(), "media/y.PNG");
        assert_eq!(dest("Old.md", "[[New]]").unwrap(), "New.md");
        assert!(dest("Old.md", "../x").is_err());
        assert!(dest("Old.md", " ").is_err());
    }
}

/// What the tools answer, as their output schemas declare it: the tools build their answers as
/// JSON, and the tests check every answer against these.
#[allow(dead_code)]
mod answers {
    use schemars::JsonSchema;
    use serde_json::{Map, Value};

    use crate::mcp::linkcheck::LinkCheck;
    use crate::mcp::reply::Paged;

    /// An item of `stat` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianReadFileStat {
        pub ctime: i64,
        pub mtime: i64,
        pub size: usize,
    }

    /// What `obsidian_read_file` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianReadFileAnswer {
        pub path: String,
        pub size: usize,
        pub offset: usize,
        pub hash: String,
        pub content: String,
        pub frontmatter: Option<Map<String, Value>>,
        pub tags: Option<Vec<String>>,
        pub stat: Option<ObsidianReadFileStat>,
        pub truncated: Option<bool>,
        pub next: Option<Map<String, Value>>,
    }

    /// What `obsidian_update_file` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianUpdateFileAnswer {
        #[serde(flatten)]
        pub links: LinkCheck,
        pub path: String,
        pub dry_run: Option<bool>,
        pub changed: bool,
        pub created: bool,
        pub diff: Option<String>,
        pub replaced: Option<String>,
        pub created_target: bool,
        pub removes: Option<String>,
        pub bytes: Option<usize>,
        pub hash: Option<String>,
        pub previous_version: Option<String>,
    }

    /// An item of `broken_links` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianDeleteFileBrokenLinks {
        pub path: String,
        pub line: usize,
        pub link: String,
        pub embed: bool,
    }

    /// An item of `redirected_links` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianDeleteFileRedirectedLinks {
        pub path: String,
        pub line: usize,
        pub link: String,
        pub embed: bool,
        pub now_opens: String,
    }

    /// What `obsidian_delete_file` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianDeleteFileAnswer {
        pub path: String,
        pub broken_links: Vec<ObsidianDeleteFileBrokenLinks>,
        pub broken_count: usize,
        pub trashed_to: Option<String>,
        pub dry_run: Option<bool>,
        pub redirected_links: Option<Vec<ObsidianDeleteFileRedirectedLinks>>,
    }

    /// An item of `changes` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianMoveFileNotesChanges {
        pub line: usize,
        pub before: String,
        pub after: String,
    }

    /// An item of `notes` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianMoveFileNotes {
        pub path: String,
        pub changes: Vec<ObsidianMoveFileNotesChanges>,
    }

    /// What `obsidian_move_file` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianMoveFileAnswer {
        pub path: String,
        pub previous_path: String,
        pub notes: Vec<ObsidianMoveFileNotes>,
        pub notes_changed: usize,
        pub links_changed: usize,
        pub dry_run: Option<bool>,
    }

    /// What `append_to_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct AppendToNoteAnswer {
        #[serde(flatten)]
        pub links: LinkCheck,
        pub path: String,
        pub created: Option<bool>,
        pub would_create: Option<bool>,
        pub dry_run: Option<bool>,
        pub changed: Option<bool>,
        pub diff: Option<String>,
    }

    /// What `patch_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct PatchNoteAnswer {
        #[serde(flatten)]
        pub links: LinkCheck,
        pub path: String,
        pub created_target: bool,
        pub replaced: Option<String>,
        pub removes: Option<String>,
        pub previous_version: Option<String>,
        pub dry_run: Option<bool>,
        pub changed: Option<bool>,
        pub diff: Option<String>,
    }

    /// What `obsidian_list_files` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianListFilesAnswer {
        #[serde(flatten)]
        pub page: Paged,
        pub path: String,
        pub count: usize,
        pub files: Vec<String>,
    }
}
