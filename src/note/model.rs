//! The parsed note: plain data with byte offsets into the original text.

use std::ops::Range;

use serde::Serialize;

/// A byte range in the note's text.
pub type Span = Range<usize>;

/// An ATX heading (`## Text`) outside code, math and comments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heading {
    /// 1–6.
    pub level: u8,
    /// The heading text as written (trailing `#`s removed).
    pub text: String,
    /// The anchor Obsidian links it by (see [`super::anchor::heading_anchor`]).
    pub anchor: String,
    /// The heading line (without its line end).
    pub span: Span,
    /// 1-based line number.
    pub line: usize,
}

/// A wikilink, embed or Markdown link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// `[[…]]` or `[…](…)`.
    pub kind: LinkKind,
    /// `![[…]]` or `![…](…)`.
    pub embed: bool,
    /// The note or file linked (`""` for a link inside the same note, `[[#Heading]]`); Markdown
    /// link targets are percent-decoded.
    pub target: String,
    /// The part after `#`: a heading (`Methods`, `A#B` for nested) or a block (`^id`).
    pub subpath: Option<String>,
    /// The text shown (`|alias` or the Markdown link text); for embeds, a size such as `300`.
    pub alias: Option<String>,
    /// Whether it points outside the vault (`https:`, `zotero:`, `mailto:` …).
    pub external: bool,
    /// The whole link.
    pub span: Span,
    /// 1-based line number.
    pub line: usize,
}

/// Which syntax a link uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// `[[target#sub|alias]]`.
    Wiki,
    /// `[text](target#sub)`.
    Markdown,
}

/// A tag, from the frontmatter or inline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tag {
    /// The tag without `#` (`project/alpha`).
    pub name: String,
    /// Where it is written inline (`None` for frontmatter tags).
    pub span: Option<Span>,
    /// 1-based line (0 for frontmatter tags).
    pub line: usize,
}

/// A block id (`^id`) and the block it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockId {
    /// The id without `^`.
    pub id: String,
    /// The block: the paragraph or list item it ends, or the table before a lone `^id` line.
    pub block: Span,
    /// The ` ^id` marker itself.
    pub marker: Span,
    /// 1-based line of the marker.
    pub line: usize,
}

/// A task list item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// The character between the brackets (`' '` open, `'x'` done, others custom).
    pub status: char,
    /// The task text.
    pub text: String,
    /// The task line.
    pub span: Span,
    /// 1-based line number.
    pub line: usize,
}

/// A callout (`> [!type]+ Title`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Callout {
    /// The type, lowercase (`note`, `quote`, `info`, …), with any `|metadata` removed.
    pub kind: String,
    /// Text after `]` (`|metadata` removed), may be empty.
    pub title: String,
    /// `+` or `-` when the callout is foldable.
    pub fold: Option<char>,
    /// From the header to the last quoted line.
    pub span: Span,
    /// 1-based line of the header.
    pub line: usize,
}

/// A Dataview-style inline field: `Key:: value` on its own line, or `[key:: value]` inline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InlineField {
    /// The key as written.
    pub key: String,
    /// The value, trimmed.
    pub value: String,
    /// 1-based line number.
    pub line: usize,
}
