//! Parameters of the vault tools (properties, tags, periodic notes, status, and the seed-002 note
//! tools), each field described for the agent.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::mcp::approval::Write;

use crate::periodic::Period;

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

/// A note period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PeriodName {
    /// The daily note.
    Daily,
    /// The weekly note.
    Weekly,
    /// The monthly note.
    Monthly,
    /// The quarterly note.
    Quarterly,
    /// The yearly note.
    Yearly,
}

impl From<PeriodName> for Period {
    fn from(p: PeriodName) -> Self {
        match p {
            PeriodName::Daily => Period::Daily,
            PeriodName::Weekly => Period::Weekly,
            PeriodName::Monthly => Period::Monthly,
            PeriodName::Quarterly => Period::Quarterly,
            PeriodName::Yearly => Period::Yearly,
        }
    }
}

/// How a note is returned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NoteFormat {
    /// The Markdown text.
    #[default]
    Markdown,
    /// The text plus frontmatter, tags and file stats.
    Json,
}

/// `obsidian_get_periodic_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetPeriodicNote {
    /// daily, weekly, monthly, quarterly or yearly.
    pub period: PeriodName,
    /// Any day of the period: YYYY-MM-DD, `today`, `yesterday` or `tomorrow` (default today).
    pub date: Option<String>,
    /// markdown (the text) or json (text, frontmatter, tags, stats). Default markdown.
    #[serde(default)]
    pub format: NoteFormat,
    /// Byte offset to start reading at, for long notes (the answer gives the next one).
    #[serde(default)]
    pub offset: usize,
}

/// `obsidian_delete_periodic_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeletePeriodicNote {
    /// daily, weekly, monthly, quarterly or yearly.
    pub period: PeriodName,
    /// Any day of the period: YYYY-MM-DD, `today`, `yesterday` or `tomorrow` (default today).
    pub date: Option<String>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
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
