//! The tools. Each validates its arguments, calls the core, and answers through `reply`.

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use serde_json::{Value, json};

use super::approval::{Ask, Round, large_removal};
use super::diff::content_hash;
use super::params::*;
use super::reply::{
    Answer, MAX_ANSWER_BYTES, Window, attempt, cut_text, fail, notes_match, ok, ok_content, page,
};
use super::search;
use super::server::Scholia;
use crate::library;
use crate::note::{Frontmatter, Note, PatchOptions, Target, fm_edit};
use crate::periodic::{self, Period, PeriodicSettings};
use crate::synthesis::{self, RenderOptions, RenderReport};
use crate::vault::{Change, Vault, VaultError, VaultExt as _, VaultPath, naming};

/// Notes listed with each tag by `obsidian_get_tags` (its count says how many carry it).
const FILES_PER_TAG: usize = 10;

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

/// Appends `content` as whole lines: on a new line after the existing text (or `seed`, when the
/// note is created), ending with a line end; one locked step. Returns whether the note was created.
fn append_lines(vault: &dyn Vault, path: &VaultPath, seed: &str, content: &str) -> Result<bool, VaultError> {
    let updated = vault.update(path, |old| {
        let base = old.unwrap_or(seed);
        Ok::<_, VaultError>(Change::Write(format!("{base}{}", line_suffix(base, content))))
    })?;
    Ok(updated.created)
}

/// What [`append_lines`] adds after `existing`.
fn line_suffix(existing: &str, content: &str) -> String {
    let sep = if existing.is_empty() || existing.ends_with('\n') { "" } else { "\n" };
    let end = if content.ends_with('\n') { "" } else { "\n" };
    format!("{sep}{content}{end}")
}

/// The text of the file at `path`, empty when there is none.
fn existing_text(vault: &dyn Vault, path: &VaultPath) -> Result<String, VaultError> {
    match vault.read(path) {
        Ok(text) => Ok(text),
        Err(VaultError::NotFound { .. }) => Ok(String::new()),
        Err(err) => Err(err),
    }
}

/// A refusal sent before anything is written.
fn refuse(err: impl ToString) -> CallToolResponse {
    fail(err.to_string()).into()
}

fn wikilink(path: &VaultPath) -> String {
    format!("[[{}]]", path.stem())
}

fn date_or_today(date: Option<&str>) -> Result<String, String> {
    match date {
        Some(d) => d
            .parse::<jiff::civil::Date>()
            .map(|d| d.to_string())
            .map_err(|_| format!("date {d:?} is not YYYY-MM-DD")),
        None => Ok(jiff::Zoned::now().date().to_string()),
    }
}

fn not_found_hint(err: VaultError) -> String {
    match err {
        VaultError::NotFound { path } => {
            format!(
                "{path} does not exist in the vault; find notes with search_vault or obsidian_list_annotation_files"
            )
        }
        other => other.to_string(),
    }
}

#[tool_router(router = annotation_tools, vis = "pub(super)")]
impl Scholia {
    /// Read and parse the annotations of a paper's Zotero annotation note: every highlight with its colour meaning, comment, comment prefix, page and Zotero link. Paged: a long note's annotations come with the next arguments.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_read_annotations(&self, Parameters(args): Parameters<ReadAnnotations>) -> Answer {
        let zotero = self.zotero();
        let keep = attempt!(library::color_filter(&args.colors, &zotero.options));
        let folder = attempt!(self.folder(args.folder.as_deref(), true));
        // The index knows frontmatter citekeys; the notes known by another field, their note path
        // or their citations are looked up as the listing lists them.
        let index = self.live_index();
        let live = index.is_some();
        let found = match index.and_then(|i| i.find_citekey(&folder, &args.citekey)) {
            Some(path) => Some(path),
            None => attempt!(self.find_citekey(&folder, &args.citekey)),
        };
        let Some(path) = found else {
            return Ok(fail(format!(
                "no annotation note with citekey {:?} in {folder}; list them with obsidian_list_annotation_files",
                args.citekey
            )));
        };
        let text = attempt!(self.vault.read(&path));
        let mut doc = crate::annotations::parse(&text, &self.vault.absolute(&path), &zotero.options);
        library::keep_colors(&mut doc, &keep);
        let annotations = std::mem::take(&mut doc.annotations);
        let mut value = attempt!(serde_json::to_value(&doc));
        value["path"] = json!(path.as_str());
        let total = annotations.len();
        let window = Window::new(args.offset, args.limit, 200, 1000);
        let next = json!({"citekey": args.citekey, "colors": args.colors, "folder": args.folder});
        let value =
            page(value, "annotations", annotations.into_iter().skip(window.offset), total, window, next);
        Ok(ok(self.mark_index(value, live)))
    }

    /// List the Zotero annotation notes of the vault (frontmatter `category: Annotations`, or recognised annotations), with citekey, title, path and tags. Paged: the answer gives the total and, while notes remain, the next arguments.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_list_annotation_files(
        &self,
        Parameters(args): Parameters<ListAnnotationFiles>,
    ) -> Answer {
        let folder = attempt!(self.folder(args.folder.as_deref(), true));
        let zotero = self.zotero();
        let files = attempt!(library::list_with(
            self.vault.as_ref(),
            &folder,
            &args.tags,
            &zotero.options,
            &zotero.setup.patterns
        ));
        let total = files.len();
        let window = Window::new(args.offset, args.limit, 200, 1000);
        let next = json!({"folder": args.folder, "tags": args.tags});
        let files = files.into_iter().skip(window.offset);
        Ok(ok(page(json!({"count": total}), "files", files, total, window, next)))
    }

    /// Write a summary note of one paper's annotations into the synthesis folder (never over an existing note) and return its path and a digest.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn obsidian_summarize(
        &self,
        Parameters(args): Parameters<Summarize>,
        ctx: RequestContext<RoleServer>,
    ) -> Answer {
        let date = attempt!(date_or_today(args.date.as_deref()));
        let path = attempt!(self.annotation_note(args.citekey.as_deref(), args.path.as_deref()));
        if !args.write.dry_run {
            attempt!(self.ask_now(&ctx, Ask::edit(&format!("write a summary of {path}"), args.write)).await);
        }
        let resolver = library::resolver(&attempt!(self.vault.list(&VaultPath::root())));
        let source =
            attempt!(library::load_source(self.vault.as_ref(), &resolver, &path, &self.zotero().options));
        let render =
            RenderOptions { date: date.clone(), palette: self.palette(), ..RenderOptions::default() };
        let rendered = synthesis::summarize_with_report(&source, &render);
        let (text, report) = (rendered.markdown, rendered.report);
        let vars =
            [("title", source.doc.title.as_str()), ("citekey", source.doc.citekey.as_str()), ("date", &date)];
        let folder = self.settings.config.synthesis_folder.clone();
        if args.write.dry_run {
            return Ok(self.dry_run_result(
                &folder,
                naming::SUMMARY_PATTERN,
                &vars,
                &text,
                &source.doc.citekey,
                &report,
            ));
        }
        let written = attempt!(library::write_result(
            self.vault.as_ref(),
            &folder,
            naming::SUMMARY_PATTERN,
            &vars,
            &text
        ));
        Ok(ok(digest(&written, self.vault.absolute(&written), &text, &source.doc.citekey, &report)))
    }

    /// Write a synthesis note across several papers (common themes, key findings, critical points, open questions, contradictions) into the synthesis folder and return its path and a digest.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn obsidian_synthesize(
        &self,
        Parameters(args): Parameters<Synthesize>,
        ctx: RequestContext<RoleServer>,
    ) -> Answer {
        let date = attempt!(date_or_today(args.date.as_deref()));
        let mut paths = Vec::new();
        for key in &args.citekeys {
            paths.push(attempt!(self.annotation_note(Some(key), None)));
        }
        for raw in &args.paths {
            paths.push(attempt!(self.annotation_note(None, Some(raw))));
        }
        if paths.is_empty() {
            return Ok(fail("give the papers to synthesize as citekeys or paths"));
        }
        if !args.write.dry_run {
            attempt!(
                self.ask_now(
                    &ctx,
                    Ask::edit(&format!("write a synthesis of {} notes", paths.len()), args.write)
                )
                .await
            );
        }
        let resolver = library::resolver(&attempt!(self.vault.list(&VaultPath::root())));
        let mut sources = Vec::new();
        for path in &paths {
            sources.push(attempt!(library::load_source(
                self.vault.as_ref(),
                &resolver,
                path,
                &self.zotero().options
            )));
        }
        let render = RenderOptions {
            date: date.clone(),
            theme: args.theme.clone(),
            palette: self.palette(),
            ..RenderOptions::default()
        };
        let rendered = attempt!(synthesis::synthesize_with_report(&sources, &render));
        let (text, report) = (rendered.markdown, rendered.report);
        let theme = synthesis::synthesis_title(&sources, &render);
        let vars = [("theme", theme.as_str()), ("date", date.as_str())];
        let folder = self.settings.config.synthesis_folder.clone();
        let keys: Vec<&str> = sources.iter().map(|s| s.doc.citekey.as_str()).collect();
        if args.write.dry_run {
            return Ok(self.dry_run_result(
                &folder,
                naming::SYNTHESIS_PATTERN,
                &vars,
                &text,
                &keys.join(", "),
                &report,
            ));
        }
        let written = attempt!(library::write_result(
            self.vault.as_ref(),
            &folder,
            naming::SYNTHESIS_PATTERN,
            &vars,
            &text
        ));
        Ok(ok(digest(&written, self.vault.absolute(&written), &text, &keys.join(", "), &report)))
    }
}

/// What an agent needs to know about a written result without reading it all: where it is, its
/// sections, how many annotations went in, the palette, and as warnings what was left out and any
/// link that would not resolve.
fn digest(path: &VaultPath, file_path: String, text: &str, sources: &str, report: &RenderReport) -> Value {
    let note = Note::parse(text);
    let sections: Vec<String> =
        note.headings.iter().filter(|h| h.level == 2).map(|h| h.text.clone()).collect();
    let items = text.lines().filter(|l| l.trim_start().starts_with("- ")).count();
    json!({
        "path": path.as_str(),
        "file_path": file_path,
        "wikilink": wikilink(path),
        "sources": sources,
        "sections": sections,
        "items": items,
        "bytes": text.len(),
        "annotations": report.annotations,
        "palette": report.palette,
        "warnings": report.warnings(),
    })
}

impl Scholia {
    /// The name of the colour palette the configuration sets (`[colors]`), if it sets one.
    fn palette(&self) -> Option<String> {
        (!self.settings.config.colors.is_empty()).then(|| "[colors] in the configuration".to_string())
    }

    /// The answer of a summary or synthesis dry run: where it would go, its digest and its text.
    fn dry_run_result(
        &self,
        folder: &str,
        pattern: &str,
        vars: &[(&str, &str)],
        text: &str,
        sources: &str,
        report: &RenderReport,
    ) -> CallToolResult {
        let path = match naming::result_path(folder, pattern, vars, |p| self.vault.exists(p)) {
            Ok(path) => path,
            Err(e) => return fail(e.to_string()),
        };
        let mut value = digest(&path, self.vault.absolute(&path), text, sources, report);
        let (shown, truncated) = cut_text(text, MAX_ANSWER_BYTES - 4096);
        value["dry_run"] = json!(true);
        value["content"] = json!(shown);
        if truncated {
            value["truncated"] = json!(true);
        }
        ok_content(value)
    }

    /// The annotation note of `citekey` under `folder`, as the listing lists it.
    fn find_citekey(&self, folder: &VaultPath, citekey: &str) -> Result<Option<VaultPath>, VaultError> {
        let zotero = self.zotero();
        library::find_annotation_note(
            self.vault.as_ref(),
            folder,
            citekey,
            &zotero.options,
            &zotero.setup.patterns,
        )
    }

    /// The annotation note named by a citekey or a path.
    fn annotation_note(&self, citekey: Option<&str>, path: Option<&str>) -> Result<VaultPath, String> {
        match (citekey, path) {
            (_, Some(raw)) => self.resolve_note(raw),
            (Some(key), None) => {
                let folder = self.folder(None, true)?;
                self.find_citekey(&folder, key).map_err(|e| e.to_string())?.ok_or_else(|| {
                    format!("no annotation note with citekey {key:?}; list them with obsidian_list_annotation_files")
                })
            }
            (None, None) => Err("give a citekey or a path".into()),
        }
    }
}

#[tool_router(router = note_tools, vis = "pub(super)")]
impl Scholia {
    /// Search note contents for a literal text (case-insensitive). Returns every matching file with each match's line number and line. Not ranked: use search_vault for relevance.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_search(&self, Parameters(args): Parameters<Search>) -> Answer {
        if args.query.trim().is_empty() {
            return Ok(fail("the query is empty; give the text to search for"));
        }
        let folder = attempt!(self.folder(args.folder.as_deref(), false));
        let next = json!({"query": args.query, "folder": args.folder});
        let fields = json!({"query": args.query});
        let (found, live) = {
            let index = self.live_index();
            let (vault, budget) = (self.vault.as_ref(), super::reply::room(&fields, &next));
            (
                attempt!(search::literal(vault, index.as_deref(), &folder, &args.query, args.offset, budget)),
                index.is_some(),
            )
        };
        let total = found.total;
        let window = Window::new(args.offset, None, usize::MAX, usize::MAX);
        let mut value = page(fields, "results", found.results, total, window, next);
        value["total_files"] = json!(total);
        Ok(ok(self.mark_index(value, live)))
    }

    /// Ranked search: the most relevant notes for some words, each with a score and a short snippet (token-efficient); says how many notes match in all and pages with offset and limit.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn search_vault(&self, Parameters(args): Parameters<SearchVault>) -> Answer {
        let folder = attempt!(self.folder(args.folder.as_deref(), false));
        let window = Window::new(args.offset, args.limit, 10, 50);
        let context = args.context_length.unwrap_or(100).clamp(10, 1000);
        let query = crate::index::Query::parse(&args.query);
        let view = attempt!(self.index_view(&folder));
        let scope = crate::index::Scope::folder(&folder);
        let found = view.search(&query, &scope, window.offset, window.limit);
        let highlighter = crate::index::snippet::Highlighter::new(&query);
        let results: Vec<search::Ranked> = found
            .hits
            .iter()
            .map(|h| search::Ranked::of(self.vault.as_ref(), h, &highlighter, context))
            .collect();
        let live = view.is_live();
        drop(view);
        let total = found.total;
        let message = if total == 0 {
            format!("no note matches {:?}; try fewer or different words", args.query)
        } else {
            format!("{} {:?}", notes_match(total), args.query)
        };
        let next = json!({"query": args.query, "folder": args.folder, "contextLength": context});
        let value =
            page(json!({"query": args.query, "message": message}), "results", results, total, window, next);
        Ok(ok(self.mark_index(value, live)))
    }

    /// A note's metadata without its content: frontmatter, tags, headings, links, file stats (mtime, ctime, size), and from the index its backlinks (notes linking here) and outgoing links with where each resolves.
    #[tool(annotations(
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

    /// A note's full Markdown content, with its frontmatter and tags. Long notes come in parts: pass the returned next offset.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn get_note_content(&self, Parameters(args): Parameters<NoteContent>) -> Answer {
        let path = attempt!(self.resolve_note(&args.path));
        let text = attempt!(self.vault.read(&path).map_err(not_found_hint));
        let budget = args.length.unwrap_or(MAX_ANSWER_BYTES - 2048).min(MAX_ANSWER_BYTES - 2048);
        let (start, part, truncated) = super::reply::part_of(&text, args.offset, budget);
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

    /// Create or replace a Markdown note (seed 001). An existing note is replaced only with overwrite: true; its previous version goes to the vault's .trash/ and the answer names it.
    #[tool(annotations(
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
}

#[tool_router(router = edit_tools, vis = "pub(super)")]
impl Scholia {
    /// Create a new note (parent folders too) with optional frontmatter. An existing note is an error: use append_to_note or patch_note to change it.
    #[tool(annotations(
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

    /// Append Markdown to the end of a note, creating the note when it does not exist.
    #[tool(annotations(
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
    #[tool(annotations(
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

    /// Append Markdown to the daily note of today (or of year/month/day), creating it (from the daily-note template) when missing. Follows the Periodic Notes plugin's settings, else the core Daily notes settings.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn daily_note_append(
        &self,
        Parameters(args): Parameters<DailyNoteAppend>,
        ctx: RequestContext<RoleServer>,
    ) -> Answer {
        let today = jiff::Zoned::now().date();
        let date = attempt!(
            jiff::civil::Date::new(
                args.year.unwrap_or(today.year()),
                args.month.unwrap_or(today.month()),
                args.day.unwrap_or(today.day()),
            )
            .map_err(|_| "year, month and day do not make a date".to_string())
        );
        let (path, period) = attempt!(self.periodic_path(Period::Daily, date));
        if args.write.dry_run {
            let exists = self.vault.exists(&path);
            let before = attempt!(existing_text(self.vault.as_ref(), &path));
            let start =
                if exists { before.clone() } else { self.periodic_template(Period::Daily, &period, date) };
            let after = format!("{start}{}", line_suffix(&start, &args.content));
            let fields = json!({"would_create": !exists, "date": date.to_string()});
            return Ok(Self::dry_run_answer(&path, &before, &after, fields));
        }
        attempt!(
            self.ask_now(&ctx, Ask::edit(&format!("append to the daily note {path}"), args.write)).await
        );
        let seed = match self.vault.exists(&path) {
            true => String::new(),
            false => self.periodic_template(Period::Daily, &period, date),
        };
        let created = attempt!(append_lines(self.vault.as_ref(), &path, &seed, &args.content));
        let value = json!({"path": path.as_str(), "created": created, "date": date.to_string()});
        Ok(ok(self.link_checked(value, &path, &args.content)))
    }
}

impl Scholia {
    /// The vault's periodic-note settings (Periodic Notes plugin, else core Daily notes).
    pub(super) fn periodic_settings(&self) -> PeriodicSettings {
        let read =
            |p: &str| VaultPath::new(&format!(".obsidian/{p}")).ok().and_then(|p| self.vault.read(&p).ok());
        let periodic = read(periodic::PERIODIC_NOTES_DATA);
        let daily = read(periodic::DAILY_NOTES_DATA);
        PeriodicSettings::from_json(periodic.as_deref(), daily.as_deref()).0
    }
}

#[tool_router(router = metadata_tools, vis = "pub(super)")]
impl Scholia {
    /// List the files and folders directly inside a vault folder (seed 004); folder names end with `/`. Paged: the answer gives the total and, while entries remain, the next arguments.
    #[tool(annotations(
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

    /// Every frontmatter property of a note (seed 004), custom fields included.
    #[tool(annotations(
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

    /// Get, set or delete one frontmatter key of a note without touching the rest of the note: other keys, their order, comments and quoting stay byte-identical; a note without frontmatter gets a block.
    #[tool(annotations(
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

    /// Tags of the vault (or a folder) with how many notes use each and the first of them (tag_search lists them all): frontmatter and inline tags; a nested tag also counts for its parents (`a/b` counts for `a`). Paged: the answer gives the total and, while tags remain, the next arguments.
    #[tool(annotations(
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
}
