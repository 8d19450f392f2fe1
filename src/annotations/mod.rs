//! Zotero Integration annotation notes → [`AnnotationDoc`] records.
//!
//! Pure: takes the note's text, returns data plus diagnostics, never fails and never panics.

pub mod colors;
mod draft;
mod general;
mod lines;
mod meta;
mod model;
pub mod prefixes;
pub mod template;

pub use colors::{ColorEntry, ColorMap};
pub use model::{Annotation, AnnotationDoc, AnnotationType, ColorCategory, TemplateStyle};
pub use prefixes::{PrefixEntry, PrefixTable};

use serde::{Deserialize, Serialize};

/// What the parser needs to know about the user's setup.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ParseOptions {
    /// Hex → meaning.
    pub colors: ColorMap,
    /// Recognised comment prefixes.
    pub prefixes: PrefixTable,
    /// Labels the vault's templates give Zotero's colours (ZotLit's `label[color]` headings):
    /// a group heading that is one of them gives its annotations that colour.
    pub colour_labels: Vec<ColorEntry>,
    /// The user's Zotero Integration templates, compiled: a note is read the way the template
    /// that matches most of it writes.
    #[serde(skip)]
    pub templates: Vec<std::sync::Arc<template::Template>>,
}

mod parse;
mod styles;
mod text;
mod zotero_html;
pub use parse::{is_annotation_note, is_scholia_output, parse};
pub(crate) use text::{LINE_BREAKS, citekey_prefix, is_zotero_key};
