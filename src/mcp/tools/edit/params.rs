//! Arguments of the edit tools (the file tools with seed 004's names), each field described for
//! the agent.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mcp::approval::Write;

/// `obsidian_read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFile {
    /// The note: a vault-relative path (`Projects/Alpha.md`), a note name or alias (`Alpha`), or a wikilink (`[[Alpha#Goals]]`).
    #[serde(rename = "filePath", alias = "filepath", alias = "path")]
    pub file_path: String,
    /// markdown (default): the text; json: a NoteJson with frontmatter, tags and file stats.
    #[serde(default)]
    pub format: Format,
    /// Byte offset to start the content at (long notes come in parts; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most bytes of content to return (default and maximum about 18 KB).
    pub length: Option<usize>,
}

/// How `obsidian_read_file` answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The Markdown text and its hash.
    #[default]
    Markdown,
    /// NoteJson: path, content, frontmatter, tags, stat {ctime, mtime, size}, hash.
    Json,
}

/// `obsidian_update_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UpdateFile {
    /// Which note: filePath (give targetIdentifier), activeFile (the note open in Obsidian; writing needs ifMatch), or periodicNote (give the period as targetIdentifier).
    #[serde(rename = "targetType")]
    pub target_type: UpdateTarget,
    /// For filePath: the note's vault path, name or [[link]]; for periodicNote: daily, weekly, monthly, quarterly or yearly (the current one). Not used for activeFile.
    #[serde(rename = "targetIdentifier", alias = "filePath", alias = "filepath", alias = "path")]
    pub target_identifier: Option<String>,
    /// The content: Markdown text; for a frontmatter patch, any JSON value (a list appends or prepends its items).
    pub content: Value,
    /// wholeFile (append, prepend or overwrite the whole note) or patch (edit under a heading, at a block or in a frontmatter key).
    #[serde(rename = "modificationType")]
    pub modification_type: ModificationType,
    /// For wholeFile: append (at the end), prepend (after the frontmatter) or overwrite.
    #[serde(rename = "wholeFileMode")]
    pub whole_file_mode: Option<WholeFileMode>,
    /// For wholeFile: create the note (and its folders; a periodic note from its template) when it does not exist. Default true.
    #[serde(rename = "createIfNeeded", default = "yes")]
    pub create_if_needed: bool,
    /// For wholeFile overwrite: allow replacing an existing note (its previous version goes to .trash/). Default false.
    #[serde(rename = "overwriteIfExists", default)]
    pub overwrite_if_exists: bool,
    /// For patch: append (end of the target), prepend (start of the target) or replace (the answer returns the replaced text).
    #[serde(rename = "patchOperation")]
    pub patch_operation: Option<PatchOperation>,
    /// For patch: what patchTarget names: heading, block or frontmatter.
    #[serde(rename = "patchTargetType")]
    pub patch_target_type: Option<TargetType>,
    /// For patch: a heading (`Notes`, or a path `Project::Notes`), a block id (`^abc`), or a frontmatter key.
    #[serde(rename = "patchTarget")]
    pub patch_target: Option<String>,
    /// For patch: separator of heading paths. Default `::`.
    #[serde(rename = "patchTargetDelimiter")]
    pub patch_target_delimiter: Option<String>,
    /// For patch: trim whitespace around each part of patchTarget. Default false.
    #[serde(rename = "patchTrimTargetWhitespace", default)]
    pub patch_trim_target_whitespace: bool,
    /// For patch: create the heading (under its existing parents) or frontmatter key when it is missing. Default false.
    #[serde(rename = "patchCreateTargetIfMissing", default)]
    pub patch_create_target_if_missing: bool,
    /// The `hash` obsidian_read_file gave: the change is refused when the note changed since. Required to write to the activeFile.
    #[serde(rename = "ifMatch")]
    pub if_match: Option<String>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

fn yes() -> bool {
    true
}

/// Which note `obsidian_update_file` changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum UpdateTarget {
    /// The note at targetIdentifier (a path, name or [[link]]).
    FilePath,
    /// The note open in Obsidian's active tab (from .obsidian/workspace.json).
    ActiveFile,
    /// The current periodic note of the period in targetIdentifier.
    PeriodicNote,
}

/// Whole note or part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ModificationType {
    /// Append, prepend or overwrite the whole note.
    WholeFile,
    /// Edit under a heading, at a block or in a frontmatter key.
    Patch,
}

/// A whole-file edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WholeFileMode {
    /// Add at the end, on a new line.
    Append,
    /// Add at the start, after the frontmatter.
    Prepend,
    /// Replace the whole note.
    Overwrite,
}

/// `obsidian_delete_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteFile {
    /// The note or file: a vault-relative path, a note name or alias, or a [[link]].
    #[serde(rename = "filePath", alias = "filepath", alias = "path")]
    pub file_path: String,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// `obsidian_move_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveFile {
    /// The note or file to move: a vault-relative path, a note name or alias, or a [[link]].
    #[serde(rename = "filePath", alias = "filepath", alias = "path")]
    pub file_path: String,
    /// Where it goes: a vault-relative path (`Archive/Alpha.md`), a folder ending with `/` (keeps the name), or a bare new name (`Alpha v2`, same folder). The extension is kept when left out.
    #[serde(rename = "newPath", alias = "newpath", alias = "newName", alias = "destination")]
    pub new_path: String,
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
