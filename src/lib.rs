//! Scholia: Zotero annotations in Obsidian as structured data, summaries and syntheses.

pub mod annotations;
pub mod diag;
pub mod library;
pub mod note;
pub mod periodic;
pub mod synthesis;
pub mod vault;

pub use diag::{Diagnostic, Severity};
