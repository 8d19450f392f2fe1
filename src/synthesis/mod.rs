//! Summaries of one annotation note and syntheses across several, as Markdown (seed 001).
//!
//! Pure: the renderer consumes [`SourceNote`]s (parsed annotations plus what it needs to write
//! links that resolve) and appends Markdown to a `String`. It never re-parses text.
//!
//! Guarantees, checked by the tests on every case:
//! - every annotation's text, comment and image appear exactly once in the body; the synthesis's
//!   cross-cutting lists hold short references (first words, source, page link), not the text;
//! - every link written resolves: `[[link]]` to a given note, an anchor only when it is in that
//!   note's [`SourceNote::anchors`], the page as the alias (`[[@smithML2023#Methods|p. 5]]`);
//! - the same input gives the same bytes (the date is injected; no hash-map order reaches the output).
//!
//! ```
//! use scholia::annotations::{Annotation, AnnotationDoc, AnnotationType, ColorCategory, TemplateStyle};
//! use scholia::synthesis::{RenderOptions, SourceNote, summarize};
//!
//! let finding = Annotation {
//!     kind: AnnotationType::Highlight,
//!     color: "positive".into(),
//!     color_hex: Some("#5fb236".into()),
//!     color_category: ColorCategory::Semantic,
//!     text: Some("The key finding was significant".into()),
//!     comment: None,
//!     comment_prefix: None,
//!     theme: None,
//!     page: Some("12".into()),
//!     page_label: None,
//!     heading_level: None,
//!     image_path: None,
//!     zotero_link: None,
//! };
//! let doc = AnnotationDoc {
//!     citekey: "smithML2023".into(),
//!     title: "Machine Learning Survey".into(),
//!     file_path: "/vault/References/@smithML2023.md".into(),
//!     annotations: vec![finding],
//!     zotero_link: None,
//!     authors: None,
//!     year: None,
//!     tags: vec![],
//!     template: TemplateStyle::MarkBlocks,
//!     diagnostics: vec![],
//! };
//! let note = "# Annotations\n";
//! let source = SourceNote::from_doc(doc, "@smithML2023", note);
//! let options = RenderOptions { date: "2024-01-15".into(), ..RenderOptions::default() };
//! let summary = summarize(&source, &options);
//! assert!(summary.contains("## Key Points\n\n- The key finding was significant ([[@smithML2023|p. 12]])"));
//! ```

use serde::{Deserialize, Serialize};

use crate::annotations::AnnotationDoc;
use crate::annotations::colors::ColorEntry;

/// One annotation note as the renderer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceNote {
    /// The parsed annotations.
    pub doc: AnnotationDoc,
    /// What to write inside `[[…]]` to reach this note: its basename (without `.md`) when that is
    /// unique in the vault, else its vault path without `.md`.
    pub link: String,
    /// Link anchors that exist in the note, as Obsidian links them: heading texts (formatting such
    /// as `**` removed, see [`crate::note`]) and block ids with their `^`.
    #[serde(default)]
    pub anchors: Vec<String>,
    /// The note's headings (level and anchor), so an annotation the export printed as a heading
    /// line is a heading of the summary at that level.
    #[serde(default)]
    pub headings: Vec<NoteHeading>,
    /// What the note's colours mean as its colour-group headings (`# Blue 🔹 Definitions`) and
    /// its template (`## Key Terms` above the yellow ones) state it (`#2ea8e5` → `Definitions`);
    /// empty when nothing states it.
    #[serde(default)]
    pub legend: Vec<ColorEntry>,
}

/// A heading line of an annotation note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteHeading {
    /// 1–6.
    pub level: u8,
    /// The heading's text as written.
    #[serde(default)]
    pub text: String,
    /// The anchor Obsidian links it by.
    pub anchor: String,
}

impl SourceNote {
    /// The source for `doc`, linked as `link`, with the anchors and headings that exist in the
    /// note's text (`note_text` is the annotation note the parser read). A link in a text or
    /// comment to the note itself (`[[#Heading]]`) is made to point at the note, so it still
    /// resolves wherever the text is copied.
    pub fn from_doc(doc: AnnotationDoc, link: impl Into<String>, note_text: &str) -> Self {
        let note = crate::note::Note::parse(note_text);
        let headings: Vec<NoteHeading> = note
            .headings
            .iter()
            .map(|h| NoteHeading { level: h.level, text: h.text.clone(), anchor: h.anchor.clone() })
            .collect();
        let legend = palette::note_legend(&doc, &headings);
        let (link, anchors) = (link.into(), note.anchors());
        let mut doc = doc;
        for ann in &mut doc.annotations {
            for field in [&mut ann.text, &mut ann.comment].into_iter().flatten() {
                if field.contains("[[#") {
                    *field = links::retarget_local_links(field, &link, &anchors);
                }
            }
        }
        Self { doc, link, anchors, headings, legend }
    }

    /// Adds the colour names the note's template states (see
    /// [`crate::annotations::template::Template::legend`]) after those the note's headings state.
    pub fn with_legend(mut self, legend: impl IntoIterator<Item = ColorEntry>) -> Self {
        self.legend.extend(legend);
        self
    }
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
    /// The group of annotations that come before the first section annotation.
    pub preamble: String,
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
            preamble: "Before the First Section".into(),
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
    /// The name of the colour palette the vault configured (`[colors]`, the plugin's colour
    /// map); `None` when the defaults are used. Without one, a vault whose highlights are all
    /// Zotero's default yellow has its highlights read as findings, not questions.
    pub palette: Option<String>,
}

/// What a rendering took in and could not place: the warnings a front end reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderReport {
    /// Annotations rendered (each exactly once in the body).
    pub annotations: usize,
    /// Sources given.
    pub sources: usize,
    /// Sources that contributed no annotation (their note links): named in the output.
    pub without_annotations: Vec<String>,
    /// Annotations with neither text, comment nor image: listed as empty, nothing to show.
    pub empty_annotations: usize,
    /// Links in the output that would not resolve (there should be none).
    pub unresolved_links: Vec<String>,
    /// The colour reading used, as the output names it.
    pub palette: String,
}

impl RenderReport {
    /// One sentence per thing left out or broken; empty when all went in.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.without_annotations.is_empty() {
            out.push(format!("no annotations in {}", self.without_annotations.join(", ")));
        }
        if self.empty_annotations > 0 {
            out.push(format!("{} annotations have no text, comment or image", self.empty_annotations));
        }
        for link in &self.unresolved_links {
            out.push(format!("the link {link} would not resolve"));
        }
        out
    }
}

/// A rendered note and its report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rendered {
    /// The Markdown.
    pub markdown: String,
    /// What went in and what was left out.
    pub report: RenderReport,
}

mod contrast;
mod corpus;
mod items;
mod links;
mod markdown;
mod outline;
mod palette;
mod report;
mod sections;
mod summary;
#[allow(clippy::module_inception)]
mod synthesis;
mod themes;

pub use summary::{summarize, summarize_with_report};
pub use synthesis::{synthesis_title, synthesize, synthesize_with_report};

/// Why a synthesis could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SynthesisError {
    /// No source notes were given.
    #[error("a synthesis needs at least one annotation note; none was given")]
    NoSources,
}
