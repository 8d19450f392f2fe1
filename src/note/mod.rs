//! Obsidian-flavoured Markdown as data, with byte offsets into the original text.
//!
//! Pure and infallible: a note always parses; what could not be read becomes a diagnostic.

pub mod anchor;
pub mod frontmatter;

pub use frontmatter::Frontmatter;
