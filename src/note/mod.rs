//! Obsidian-flavoured Markdown as data, with byte offsets into the original text.
//!
//! Pure and infallible: a note always parses; what could not be read becomes a diagnostic.
//! [`Note::parse`] reads the structure; `sections` edits it (heading paths, blocks, frontmatter
//! keys); `resolve` resolves links as Obsidian does.

pub mod anchor;
pub mod diff;
pub mod edit;
mod error;
pub mod fm_edit;
pub mod frontmatter;
mod inline;
pub mod meta_edit;
mod model;
mod parse;
pub mod resolve;
pub mod rewrite;
mod yaml;

pub use edit::{Operation, PatchOptions, Patched, Target, find_heading, patch};
pub use error::EditError;
pub use frontmatter::Frontmatter;
pub use inline::percent_decode;
pub use model::{BlockId, Callout, Heading, InlineField, Link, LinkKind, Span, Tag, Task};
pub use resolve::{LinkResolver, LinkStyle, Moved, Resolution, Resolve};

use crate::diag::Diagnostic;

/// A parsed note.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Note {
    /// The frontmatter (data, where it is, diagnostics).
    pub frontmatter: Frontmatter,
    /// Where the body starts (after the frontmatter and any BOM).
    pub body_start: usize,
    /// Headings in order.
    pub headings: Vec<Heading>,
    /// Wikilinks, embeds and Markdown links in order.
    pub links: Vec<Link>,
    /// Frontmatter tags first, then inline tags in order.
    pub tags: Vec<Tag>,
    /// Block ids.
    pub blocks: Vec<BlockId>,
    /// Tasks.
    pub tasks: Vec<Task>,
    /// `%%comments%%`, their markers included.
    pub comments: Vec<Span>,
    /// Callouts.
    pub callouts: Vec<Callout>,
    /// Inline fields.
    pub fields: Vec<InlineField>,
    /// What could not be read.
    pub diagnostics: Vec<Diagnostic>,
}

impl Note {
    /// Parses `text`. Never fails and never panics.
    pub fn parse(text: &str) -> Self {
        parse::parse(text)
    }

    /// The byte range of heading `index`'s section in `text` (the text this note was parsed
    /// from): from the heading line to the next heading of the same or a higher level.
    pub fn section(&self, index: usize, text: &str) -> Span {
        let heading = &self.headings[index];
        let end = self.headings[index + 1..]
            .iter()
            .find(|h| h.level <= heading.level)
            .map_or(text.len(), |h| h.span.start);
        heading.span.start..end
    }

    /// The heading path of heading `index`: its ancestors' texts then its own.
    pub fn heading_path(&self, index: usize) -> Vec<&str> {
        let mut path = vec![self.headings[index].text.as_str()];
        let mut level = self.headings[index].level;
        for h in self.headings[..index].iter().rev() {
            if h.level < level {
                path.push(h.text.as_str());
                level = h.level;
            }
        }
        path.reverse();
        path
    }

    /// Every tag name, frontmatter and inline, without duplicates (case-insensitive), in order.
    pub fn tag_names(&self) -> Vec<String> {
        let mut seen = foldhash::HashSet::default();
        self.tags.iter().filter(|tag| seen.insert(lowercase(&tag.name))).map(|tag| tag.name.clone()).collect()
    }

    /// [`Note::tag_names`] in lower case.
    pub fn tag_names_lowercase(&self) -> Vec<String> {
        let mut seen = foldhash::HashSet::default();
        let mut out = Vec::new();
        for tag in &self.tags {
            let name = lowercase(&tag.name);
            if seen.insert(name.clone()) {
                out.push(name.into_owned());
            }
        }
        out
    }

    /// The link anchors that exist: heading anchors and `^block` ids.
    pub fn anchors(&self) -> Vec<String> {
        self.headings
            .iter()
            .map(|h| h.anchor.clone())
            .chain(self.blocks.iter().map(|b| format!("^{}", b.id)))
            .collect()
    }
}

/// `s` in lower case, borrowed when it already is (ASCII without capitals: most tags).
fn lowercase(s: &str) -> std::borrow::Cow<'_, str> {
    if s.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        s.into()
    } else {
        s.to_lowercase().into()
    }
}

/// The link anchors that exist in `text`: every heading as [`anchor::heading_anchor`] writes it
/// (headings inside code fences, math blocks and comments are not headings) and every block id
/// with its `^`.
pub fn anchors(text: &str) -> Vec<String> {
    Note::parse(text).anchors()
}
