//! Tool parameters: one struct per tool, each field described for the agent (JSON Schema).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::mcp::approval::Write;

/// `obsidian_read_annotations`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadAnnotations {
    /// Better BibTeX citekey of the paper (frontmatter `citekey:` is searched first, then a note named `@citekey.md`).
    pub citekey: String,
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

/// `obsidian_search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Search {
    /// Text to search for: a literal, case-insensitive match; every match is returned.
    pub query: String,
    /// Limit the search to this folder (vault-relative).
    pub folder: Option<String>,
    /// Skip this many matching files (for paging; the answer says what to pass next).
    #[serde(default)]
    pub offset: usize,
}

/// `search_vault`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchVault {
    /// Words to look for; results are ranked by relevance.
    pub query: String,
    /// Characters of context in each snippet (default 100).
    #[serde(rename = "contextLength")]
    pub context_length: Option<usize>,
    /// Most results to return (default 10, at most 50).
    pub limit: Option<usize>,
    /// Limit the search to this folder (vault-relative).
    pub folder: Option<String>,
    /// Skip this many results (paging; the answer gives the next offset and the total).
    #[serde(default)]
    pub offset: usize,
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

/// `append_to_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AppendToNote {
    /// Vault-relative path of the note (created when missing).
    pub path: String,
    /// Markdown to add at the end.
    pub content: String,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// `patch_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PatchNote {
    /// Vault-relative path of the note.
    pub path: String,
    /// append (end of the section / list), prepend (start), or replace.
    pub operation: PatchOperation,
    /// What `target` names.
    #[serde(rename = "targetType")]
    pub target_type: TargetType,
    /// A heading (`Notes`, or a path `Project::Notes` with `::`), a block id (`^abc`), or a frontmatter key.
    pub target: String,
    /// Markdown for headings and blocks; any JSON value for frontmatter keys.
    pub content: Value,
    /// Create the heading (under its existing parents) or key when it is missing. Default false.
    #[serde(default, rename = "createIfMissing")]
    pub create_if_missing: bool,
    /// Separator of heading paths (default `::`).
    pub delimiter: Option<String>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// Where patch content goes.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PatchOperation {
    /// At the end of the target (a section: before the next heading of the same or higher level).
    Append,
    /// At the start of the target (a section: right after its heading line).
    Prepend,
    /// Instead of the target's content (the answer returns the replaced text).
    Replace,
}

impl From<PatchOperation> for crate::note::Operation {
    fn from(op: PatchOperation) -> Self {
        match op {
            PatchOperation::Append => Self::Append,
            PatchOperation::Prepend => Self::Prepend,
            PatchOperation::Replace => Self::Replace,
        }
    }
}

/// What a patch targets.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TargetType {
    /// A heading's section.
    Heading,
    /// A block (`^id`).
    Block,
    /// A frontmatter key.
    Frontmatter,
}

/// `daily_note_append`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DailyNoteAppend {
    /// Markdown to append to the daily note.
    pub content: String,
    /// Year of the day (default: today).
    pub year: Option<i16>,
    /// Month 1-12 (default: today).
    pub month: Option<i8>,
    /// Day of the month (default: today).
    pub day: Option<i8>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
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

/// `obsidian_list_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListFiles {
    /// Vault-relative folder; `""` or `/` is the vault root.
    #[serde(rename = "dirPath", alias = "dirpath", alias = "path", default)]
    pub dir_path: String,
    /// Skip this many entries (paging; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most entries to return (default 1000, at most 5000); fewer when they would not fit one answer.
    pub limit: Option<usize>,
}

/// `obsidian_get_properties`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetProperties {
    /// Vault-relative path of the note.
    #[serde(rename = "filepath", alias = "filePath", alias = "path")]
    pub filepath: String,
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
