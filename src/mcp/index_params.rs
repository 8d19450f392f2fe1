//! Parameters of the index tools (search and graph), each field described for the agent.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::index::filter::{Condition, Op};
use crate::mcp::approval::Write;

/// `obsidian_global_search` (seed 004).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobalSearch {
    /// What to find. Text: every word must occur (any case, accents ignored), ranked by relevance; "exact phrase" in quotes, * inside a word as a wildcard (retriev*), -word or -"phrase" to exclude, tag:name, path:text, file:text to filter. Or a regular expression when regex is true or the query is written /pattern/flags (flags i, m, s, x).
    pub query: String,
    /// Treat query as a regular expression (Rust regex syntax, case-insensitive); every note is scanned and ranked by how many matches it holds.
    #[serde(default)]
    pub regex: bool,
    /// Characters of context shown around the matches of each line (default 100).
    #[serde(rename = "contextLength", alias = "context_length")]
    pub context_length: Option<usize>,
    /// Only notes modified at or after this: a date (2024-01-15), a date and time (2024-03-20 17:00), or a phrase (today, yesterday, 3 days ago, 2 weeks ago, last month).
    #[serde(alias = "modifiedSince")]
    pub modified_since: Option<String>,
    /// Only notes modified at or before this (a bare date includes the whole day); same forms as modified_since.
    #[serde(alias = "modifiedUntil")]
    pub modified_until: Option<String>,
    /// Limit the search to this folder (vault-relative).
    pub folder: Option<String>,
    /// Skip this many notes (paging; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most notes to return (default 10, at most 50).
    pub limit: Option<usize>,
}

/// `text_search` (seed 002).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TextSearch {
    /// Words to find, ranked by relevance (BM25; words in a note's name, aliases, title or citekey count more). Every word must occur, else notes with most of them are listed. Supports "exact phrase", wildcard* inside a word, -word / -"phrase" to exclude, tag:name, path:text and file:text filters.
    pub query: String,
    /// Limit the search to this folder (vault-relative).
    pub folder: Option<String>,
    /// Skip this many results (paging; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most results to return (default 10, at most 50).
    pub limit: Option<usize>,
    /// Characters of each snippet (default 160).
    #[serde(rename = "contextLength", alias = "context_length")]
    pub context_length: Option<usize>,
}

/// Whether a note must meet all conditions or any.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Match {
    /// Every condition (the default).
    #[default]
    All,
    /// At least one condition.
    Any,
}

/// `tag_search` (seed 002).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TagSearch {
    /// Tags to look for, with or without `#` (a list, or one string with tags separated by commas or spaces). A tag also matches its nested tags: `project` finds `project/alpha`.
    #[serde(deserialize_with = "one_or_many", alias = "tag")]
    #[schemars(with = "Vec<String>")]
    pub tags: Vec<String>,
    /// all (default): notes carrying every tag; any: notes carrying at least one.
    #[serde(default, rename = "match")]
    pub mode: Match,
    /// Limit the search to this folder (vault-relative).
    pub folder: Option<String>,
    /// Skip this many notes (paging).
    #[serde(default)]
    pub offset: usize,
    /// Most notes to return (default 50, at most 200).
    pub limit: Option<usize>,
}

/// One condition on a frontmatter key.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ConditionParam {
    /// The frontmatter key (case-insensitive; `a.b` reaches into a nested mapping).
    pub key: String,
    /// The comparison (default eq).
    #[serde(default)]
    pub op: Op,
    /// The value to compare with (not needed for exists and missing).
    #[serde(default)]
    pub value: Value,
}

impl From<ConditionParam> for Condition {
    fn from(c: ConditionParam) -> Self {
        Condition { key: c.key, op: c.op, value: c.value }
    }
}

/// `metadata_search` (seed 002).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MetadataSearch {
    /// Conditions on frontmatter keys, e.g. [{"key": "status", "value": "done"}, {"key": "year", "op": "gte", "value": 2020}].
    #[serde(default)]
    pub conditions: Vec<ConditionParam>,
    /// Shorthand for equality conditions: {"status": "done", "type": "paper"}.
    #[serde(default, rename = "where")]
    pub equals: Map<String, Value>,
    /// all (default): notes meeting every condition; any: at least one.
    #[serde(default, rename = "match")]
    pub mode: Match,
    /// Limit the search to this folder (vault-relative).
    pub folder: Option<String>,
    /// Skip this many notes (paging).
    #[serde(default)]
    pub offset: usize,
    /// Most notes to return (default 50, at most 200).
    pub limit: Option<usize>,
}

/// `find_related_notes` (seed 002).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindRelated {
    /// The note: its vault path, its name or alias, or a [[wikilink]] to it.
    #[serde(alias = "filePath", alias = "note")]
    pub path: String,
    /// Skip this many related notes (paging; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most related notes to return (default 10, at most 50); fewer when they would not fit one answer.
    pub limit: Option<usize>,
}

/// `validate_vault` (seed 002).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ValidateVault {
    /// Only these kinds of issue: broken_link, broken_embed, missing_heading, missing_block, ambiguous_link, orphan, unused_attachment, duplicate_name, bad_frontmatter, unreadable.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Only issues in notes under this folder (vault-relative).
    pub folder: Option<String>,
    /// Skip this many issues (paging).
    #[serde(default)]
    pub offset: usize,
    /// Most issues to return (default 50, at most 200).
    pub limit: Option<usize>,
}

/// `rebuild_index`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RebuildIndex {
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// A list of strings, or one string of items separated by commas or white space.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Form {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Form::deserialize(d)? {
        Form::One(s) => s.split([',', ' ', '\t']).filter(|t| !t.is_empty()).map(String::from).collect(),
        Form::Many(v) => v,
    })
}

/// `get_roots`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct GetRoots {
    /// Skip this many top-level folders (for paging; the answer says what to pass next).
    #[serde(default)]
    pub offset: usize,
    /// Most top-level folders to list (default 100, at most 500).
    pub limit: Option<usize>,
}
