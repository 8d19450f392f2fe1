//! The annotation records: the response shape of seeds 000/001, as plain data.

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;

/// What kind of Zotero annotation a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnnotationType {
    /// Highlighted text.
    Highlight,
    /// Underlined text.
    Underline,
    /// A sticky note: a comment with no text.
    Note,
    /// An image (area) annotation, exported as an embedded picture.
    Image,
    /// A free-text annotation.
    Text,
    /// An ink drawing.
    Ink,
}

/// Whether a colour marks document structure or content meaning (seed 001).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorCategory {
    /// section1–3: the colour creates a heading; it gives the summary its structure.
    Hierarchy,
    /// positive, negative, question, detail, code, other: what the passage means.
    Semantic,
}

/// One annotation, as exported by Zotero Integration and read back by the parser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    /// highlight, underline, note, image, text or ink.
    #[serde(rename = "type")]
    pub kind: AnnotationType,
    /// The colour's meaning: `section1`…`section3`, `positive`, `detail`, `negative`, `code`,
    /// `question`, a name from the user's colour map, or `other` when the colour is unknown.
    pub color: String,
    /// The colour as lowercase `#rrggbb`, when the export shows one (or a named colour maps to one).
    pub color_hex: Option<String>,
    /// `hierarchy` for section colours, `semantic` otherwise.
    pub color_category: ColorCategory,
    /// The annotated text, quotes stripped; `None` for notes and images.
    pub text: Option<String>,
    /// The user's comment without its prefix.
    pub comment: Option<String>,
    /// The recognised prefix as seed 001 writes it (`THESIS:`, `Q:`, `THEME`), if any.
    pub comment_prefix: Option<String>,
    /// For `THEME [x]:` comments, the `x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// The page as the note prints it (`5`, `12-14`, `xii`, `S12`); when the note prints none, the
    /// page of the annotation's Zotero link, else of its image's file name.
    pub page: Option<String>,
    /// The page in the annotation's Zotero link (the PDF's page label) when it differs from
    /// `page`: a template may print the page index while its link carries the label.
    pub page_label: Option<String>,
    /// 2, 3 or 4 for section1, section2, section3; `None` for semantic colours.
    pub heading_level: Option<u8>,
    /// The embedded image for image annotations (`image-9-x52-y300.png`).
    pub image_path: Option<String>,
    /// The `zotero://open-pdf/…` deep link of this annotation, when the export has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zotero_link: Option<String>,
}

/// The template style a note was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplateStyle {
    /// Seed 001's template: `<mark style="background-color: #hex">Highlight</mark>` blocks.
    MarkBlocks,
    /// `> [!quote|#hex]` callouts with a `([p. 3](zotero://…))` page link.
    Callout,
    /// Zotero Integration's built-in `{{formattedAnnotations}}` output.
    Formatted,
    /// Highlightr `<mark class="hltr-…">` spans.
    Highlightr,
    /// The user's own Zotero Integration template, compiled.
    UserTemplate,
    /// Read by the general rule: one annotation per Zotero link, printed page or image.
    Anchored,
    /// Zotero's own note HTML (`<span class="highlight" data-annotation=…>`), left unconverted.
    ZoteroNote,
    /// Several styles in one note.
    Mixed,
    /// No annotation found.
    Unknown,
}

/// A parsed annotation note: the answer of `scholia parse` and `obsidian_read_annotations`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnotationDoc {
    /// The Better BibTeX citekey.
    pub citekey: String,
    /// The document's title (frontmatter `title`, `Title::`, first H1 that is not "Annotations",
    /// else the citekey).
    pub title: String,
    /// The note's absolute path (as given to the parser).
    pub file_path: String,
    /// Every annotation, in note order.
    pub annotations: Vec<Annotation>,
    /// The item's Zotero deep link (`zotero://select/…`), when the note has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zotero_link: Option<String>,
    /// Authors, from frontmatter (`authors`, `author`) or an `Author::` inline field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authors: Option<String>,
    /// Year, from frontmatter (`year`, `date`) or a `Year::` inline field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<String>,
    /// Frontmatter tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The template style the parser recognised.
    pub template: TemplateStyle,
    /// What the parser could not read, so a user can check their template.
    #[serde(default)]
    pub diagnostics: Vec<Diagnostic>,
}
