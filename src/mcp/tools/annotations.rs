//! The annotations toolset: Zotero annotation notes. Read one paper's annotations, list the
//! annotation notes, and write a summary of one paper or a synthesis of several; each tool's
//! arguments follow the router.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::shared::wikilink;
use crate::annotations::AnnotationDoc;
use crate::library;
use crate::mcp::approval::{Ask, Write};
use crate::mcp::reply::schema;
use crate::mcp::reply::{Answer, MAX_ANSWER_BYTES, Window, attempt, cut_text, fail, ok, ok_content, page};
use crate::mcp::server::Scholia;
use crate::note::Note;
use crate::synthesis::{self, RenderOptions, RenderReport};
use crate::vault::{Vault, VaultError, VaultPath, naming};

fn date_or_today(date: Option<&str>) -> Result<String, String> {
    match date {
        Some(d) => d
            .parse::<jiff::civil::Date>()
            .map(|d| d.to_string())
            .map_err(|_| format!("date {d:?} is not YYYY-MM-DD")),
        None => Ok(jiff::Zoned::now().date().to_string()),
    }
}

#[tool_router(router = annotations, vis = "pub(super)")]
impl Scholia {
    /// Read and parse the annotations of a paper's Zotero annotation note: every highlight with its colour meaning, comment, comment prefix, page and Zotero link. Paged: a long note's annotations come with the next arguments.
    #[tool(output_schema = schema::<answers::ObsidianReadAnnotationsAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_read_annotations(&self, Parameters(args): Parameters<ReadAnnotations>) -> Answer {
        let zotero = self.zotero();
        let keep = attempt!(library::color_filter(&args.colors, &zotero.options));
        let (path, read) = match (&args.path, &args.citekey) {
            (Some(raw), _) => (attempt!(self.resolve_note(raw)), None),
            (None, Some(citekey)) => attempt!(self.note_of_citekey(args.folder.as_deref(), citekey)),
            (None, None) => {
                return Ok(fail("give a citekey or a path (obsidian_list_annotation_files lists both)"));
            }
        };
        let live = self.index.is_ready();
        let mut doc = match read {
            Some(doc) => doc,
            None => {
                let text = attempt!(self.vault.read(&path));
                crate::annotations::parse(&text, &self.vault.absolute(&path), &zotero.options)
            }
        };
        library::keep_colors(&mut doc, &keep);
        let annotations = std::mem::take(&mut doc.annotations);
        let mut value = attempt!(serde_json::to_value(&doc));
        value["path"] = json!(path.as_str());
        let total = annotations.len();
        let window = Window::new(args.offset, args.limit, 200, 1000);
        let next =
            json!({"citekey": args.citekey, "path": args.path, "colors": args.colors, "folder": args.folder});
        let value =
            page(value, "annotations", annotations.into_iter().skip(window.offset), total, window, next);
        Ok(ok(self.mark_index(value, live)))
    }

    /// List the Zotero annotation notes of the vault (frontmatter `category: Annotations`, or recognised annotations), with citekey, title, path and tags. Paged: the answer gives the total and, while notes remain, the next arguments.
    #[tool(output_schema = schema::<answers::ObsidianListAnnotationFilesAnswer>(), annotations(
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
        let mut keys: Vec<&str> = files.iter().map(|f| f.citekey.as_str()).collect();
        keys.sort_unstable();
        let mut shared: Vec<String> =
            keys.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0].to_string()).collect();
        shared.dedup();
        let mut value = json!({"count": total});
        if !shared.is_empty() {
            value["shared_citekeys"] = json!(shared);
        }
        let window = Window::new(args.offset, args.limit, 200, 1000);
        let next = json!({"folder": args.folder, "tags": args.tags});
        let files = files.into_iter().skip(window.offset);
        Ok(ok(page(value, "files", files, total, window, next)))
    }

    /// Write a summary note of one paper's annotations into the synthesis folder (never over an existing note) and return its path and a digest.
    #[tool(output_schema = schema::<answers::Digest>(), annotations(
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
    #[tool(output_schema = schema::<answers::Digest>(), annotations(
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

    /// The annotation note with `citekey` in `folder` (default: the annotations folder): from the
    /// index's frontmatter citekeys when the note it names holds annotations, else as the listing
    /// finds notes known by another field, their note path or their citations (a paper's
    /// annotation note `@key.md` and a reading note with `citekey: key` but no annotation: the
    /// annotation note). With the note's reading when it was read to decide.
    fn note_of_citekey(
        &self,
        folder: Option<&str>,
        citekey: &str,
    ) -> Result<(VaultPath, Option<AnnotationDoc>), String> {
        let folder = self.folder(folder, true)?;
        let options = &self.zotero().options;
        let indexed = self.live_index().and_then(|i| i.find_citekey(&folder, citekey)).and_then(|path| {
            let text = self.vault.read(&path).ok()?;
            let doc = crate::annotations::parse(&text, &self.vault.absolute(&path), options);
            (!doc.annotations.is_empty()).then_some((path, Some(doc)))
        });
        let found = match indexed {
            Some(found) => Some(found),
            None => self.find_citekey(&folder, citekey).map_err(|e| e.to_string())?.map(|path| (path, None)),
        };
        found.ok_or_else(|| {
            format!("no annotation note with citekey {citekey:?} in {folder}; list them with obsidian_list_annotation_files")
        })
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

/// `obsidian_read_annotations`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadAnnotations {
    /// Better BibTeX citekey of the paper (frontmatter `citekey:` is searched first, then a note named `@citekey.md`); or give `path`.
    pub citekey: Option<String>,
    /// Vault-relative path of the annotation note (or give `citekey`): the way to read one of several notes that carry the same citekey.
    pub path: Option<String>,
    /// Keep only these colours: meanings (positive, negative, question, detail, code, section1-3, other), Zotero colour names (green, red, yellow, …) or hexes (#5fb236).
    #[serde(default)]
    pub colors: Vec<String>,
    /// Folder to look in (vault-relative); default: the configured annotations folder, else the whole vault.
    pub folder: Option<String>,
    /// Skip this many annotations (paging; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most annotations to return (default 200, at most 1000); fewer when they would not fit one answer.
    pub limit: Option<usize>,
}

/// `obsidian_list_annotation_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListAnnotationFiles {
    /// Folder to search (vault-relative; `""` or `/` is the whole vault); default: the annotations folder.
    pub folder: Option<String>,
    /// Only notes with all of these frontmatter tags (a tag also matches its nested tags).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Skip this many notes (paging; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most notes to return (default 200, at most 1000); fewer when they would not fit one answer.
    pub limit: Option<usize>,
}

/// `obsidian_summarize`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Summarize {
    /// Citekey of the paper (or give `path`).
    pub citekey: Option<String>,
    /// Vault-relative path of the annotation note (or give `citekey`).
    pub path: Option<String>,
    /// The `created` date, YYYY-MM-DD (default: today).
    pub date: Option<String>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// `obsidian_synthesize`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Synthesize {
    /// Citekeys of the papers.
    #[serde(default)]
    pub citekeys: Vec<String>,
    /// Vault-relative paths of annotation notes (in addition to, or instead of, citekeys).
    #[serde(default)]
    pub paths: Vec<String>,
    /// The synthesis theme (default: the strongest theme the papers share).
    pub theme: Option<String>,
    /// The `created` date, YYYY-MM-DD (default: today).
    pub date: Option<String>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// What the tools answer, as their output schemas declare it: the tools build their answers as
/// JSON, and the tests check every answer against these.
#[allow(dead_code)]
mod answers {
    use schemars::JsonSchema;
    use serde_json::Value;

    use crate::mcp::indexed::IndexMarks;
    use crate::mcp::reply::Paged;

    /// An item of `annotations` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianReadAnnotationsAnnotations {
        #[serde(rename = "type")]
        pub r#type: String,
        pub color: String,
        pub color_hex: String,
        pub color_category: String,
        pub text: String,
        pub comment: Option<String>,
        pub comment_prefix: Option<String>,
        pub page: String,
        pub page_label: Option<Value>,
        pub heading_level: Option<usize>,
        pub image_path: Option<Value>,
        pub theme: Option<String>,
        pub zotero_link: Option<String>,
    }

    /// An item of `diagnostics` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianReadAnnotationsDiagnostics {
        pub severity: String,
        pub line: usize,
        pub message: String,
    }

    /// What `obsidian_read_annotations` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianReadAnnotationsAnswer {
        #[serde(flatten)]
        pub page: Paged,
        #[serde(flatten)]
        pub index: IndexMarks,
        pub citekey: String,
        pub title: String,
        pub file_path: String,
        pub annotations: Vec<ObsidianReadAnnotationsAnnotations>,
        pub zotero_link: Option<String>,
        pub authors: Option<String>,
        pub year: Option<String>,
        pub tags: Vec<String>,
        pub template: String,
        pub diagnostics: Vec<ObsidianReadAnnotationsDiagnostics>,
        pub path: String,
    }

    /// An item of `files` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianListAnnotationFilesFiles {
        pub citekey: String,
        pub title: String,
        pub path: String,
        pub tags: Vec<String>,
    }

    /// What `obsidian_list_annotation_files` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianListAnnotationFilesAnswer {
        #[serde(flatten)]
        pub page: Paged,
        pub count: usize,
        /// Citekeys that more than one listed note carries: read those notes by `path`.
        pub shared_citekeys: Option<Vec<String>>,
        pub files: Vec<ObsidianListAnnotationFilesFiles>,
    }

    /// What `obsidian_summarize` and `obsidian_synthesize` answer: the digest of the written note ([`digest`](super::digest)), with its text on a dry run.
    #[derive(Debug, JsonSchema)]
    pub struct Digest {
        pub path: String,
        pub file_path: String,
        pub wikilink: String,
        pub sources: String,
        pub sections: Vec<String>,
        pub items: usize,
        pub bytes: usize,
        pub annotations: usize,
        pub palette: String,
        pub warnings: Vec<Value>,
        pub dry_run: Option<bool>,
        pub content: Option<String>,
    }
}
