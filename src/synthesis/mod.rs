//! Summaries of one annotation note and syntheses across several, as Markdown (seed 001).
//!
//! Pure: the renderer consumes [`SourceNote`]s (parsed annotations plus what it needs to write
//! links that resolve) and appends Markdown to a `String`. It never re-parses text.

use serde::{Deserialize, Serialize};

use crate::annotations::AnnotationDoc;

/// One annotation note as the renderer sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceNote {
    /// The parsed annotations.
    pub doc: AnnotationDoc,
    /// What to write inside `[[…]]` to reach this note: its basename (without `.md`) when that is
    /// unique in the vault, else its vault path without `.md`.
    pub link: String,
    /// Link anchors that exist in the note, as Obsidian links them: heading texts (formatting such
    /// as `**` removed, see [`crate::note`]) and block ids with their `^`.
    pub anchors: Vec<String>,
}

/// Titles of the semantic groups; the defaults are seed 001's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroupTitles {
    /// Green.
    pub positive: String,
    /// Red.
    pub negative: String,
    /// Yellow.
    pub question: String,
    /// Grey.
    pub detail: String,
    /// Orange.
    pub code: String,
    /// Colours outside the map.
    pub other: String,
}

impl Default for GroupTitles {
    fn default() -> Self {
        Self {
            positive: "Key Points".into(),
            negative: "Critical Notes".into(),
            question: "Questions & Gaps".into(),
            detail: "Methodology & Context".into(),
            code: "Data & Code".into(),
            other: "Other Annotations".into(),
        }
    }
}

/// Rendering choices.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RenderOptions {
    /// The `created` date, `YYYY-MM-DD`. Injected so the output is deterministic.
    pub date: String,
    /// Group titles.
    pub titles: GroupTitles,
    /// The synthesis theme; `None` picks the strongest shared theme.
    pub theme: Option<String>,
}

mod render;
pub use render::{summarize, synthesize};

/// Why a synthesis could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SynthesisError {
    /// No source notes were given.
    #[error("a synthesis needs at least one annotation note; none was given")]
    NoSources,
}
