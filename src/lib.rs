//! Scholia: Zotero annotations in Obsidian as structured data, summaries and syntheses.
//!
//! The core is pure: it reads text and writes text. [`annotations::parse`] turns a Zotero
//! Integration note into an [`annotations::AnnotationDoc`]; [`synthesis::summarize`] and
//! [`synthesis::synthesize`] render notes whose links all resolve; [`note`] models
//! Obsidian-flavoured Markdown and edits it surgically; [`vault`] is the only door to files.
//!
//! ```
//! use scholia::annotations::{parse, ParseOptions};
//! use scholia::synthesis::{summarize, RenderOptions, SourceNote};
//!
//! let text = "---\ncitekey: smithML2023\n---\n\
//! <mark style=\"background-color: #5fb236\">Highlight</mark>\n\
//! **FINDING: it works**\n\"The key finding was significant\"\n[@smithML2023 p. 12]\n";
//! let doc = parse(text, "/vault/References/@smithML2023.md", &ParseOptions::default());
//! assert_eq!(doc.annotations[0].color, "positive");
//! assert_eq!(doc.annotations[0].comment_prefix.as_deref(), Some("FINDING:"));
//! assert_eq!(doc.annotations[0].page.as_deref(), Some("12"));
//!
//! let source = SourceNote::from_doc(doc, "@smithML2023", text);
//! let options = RenderOptions { date: "2024-01-15".into(), ..RenderOptions::default() };
//! let summary = summarize(&source, &options);
//! assert!(summary.contains("## Key Points"));
//! assert!(summary.contains("[[@smithML2023|p. 12]]"));
//! ```

pub mod annotations;
pub(crate) mod cores;
pub mod dates;
pub mod diag;
pub mod index;
pub mod library;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod note;
pub mod periodic;
pub mod suggest;
pub mod synthesis;
pub mod vault;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use diag::{Diagnostic, Severity};
