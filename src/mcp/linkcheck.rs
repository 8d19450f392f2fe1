//! Seed 002's link check on write: a writing tool's answer lists the links of the text it wrote
//! that open no file, so an agent learns at once that `[[Smith 2020]]` should have been
//! `[[@smith2020]]`.

use serde_json::{Value, json};

use super::server::Scholia;
use crate::note::Note;
use crate::note::resolve::Resolution;
use crate::vault::VaultPath;

/// Unresolved links listed in one answer at most.
const MAX_LISTED: usize = 20;

impl Scholia {
    /// `value` (a writing tool's answer about `path`) with the links of `written` (the text the
    /// call put there) that resolve to no file: `unresolved_links` (line, link, target) and a
    /// `link_warning`. Links in code and external links are not checked; a link to a heading or
    /// block counts as resolved when its note exists. While the index is being built the check is
    /// skipped, and the answer says so.
    pub(super) fn link_checked(&self, mut value: Value, path: &VaultPath, written: &str) -> Value {
        let links: Vec<_> =
            Note::parse(written).links.into_iter().filter(|l| !l.external && !l.target.is_empty()).collect();
        if links.is_empty() {
            return value;
        }
        let Some(view) = self.live_index() else {
            value["link_check"] = json!("skipped: the index is still being built");
            return value;
        };
        let resolver = view.graph().resolver();
        let unresolved: Vec<Value> = links
            .iter()
            .filter(|l| resolver.resolve(&l.target, Some(path.as_str())) == Resolution::Missing)
            .map(|l| json!({"line": l.line, "link": &written[l.span.start..l.span.end], "target": l.target}))
            .collect();
        drop(view);
        if unresolved.is_empty() {
            return value;
        }
        let count = unresolved.len();
        value["link_warning"] = json!(format!(
            "{count} link{} in the written text open{} no file in the vault (Obsidian would create an empty note on click); fix the target or create the note",
            if count == 1 { "" } else { "s" },
            if count == 1 { "s" } else { "" }
        ));
        value["unresolved_links"] = Value::Array(unresolved.into_iter().take(MAX_LISTED).collect());
        value["unresolved_count"] = json!(count);
        value
    }
}

/// What [`Scholia::link_checked`] adds to a writing tool's answer.
#[derive(Debug, schemars::JsonSchema)]
#[allow(dead_code)] // declared for output schemas; the answer is built as JSON
pub struct LinkCheck {
    /// Why the written links were not checked.
    pub link_check: Option<String>,
    /// That some written links open no note, and what to do.
    pub link_warning: Option<String>,
    /// The written links that open no note.
    pub unresolved_links: Option<Vec<UnresolvedLink>>,
    /// How many written links open no note.
    pub unresolved_count: Option<usize>,
}

/// A written link that opens no note.
#[derive(Debug, schemars::JsonSchema)]
#[allow(dead_code)] // declared for output schemas; the answer is built as JSON
pub struct UnresolvedLink {
    /// Its line in the written text (1-based).
    pub line: usize,
    /// The link as written.
    pub link: String,
    /// The note it names.
    pub target: String,
}
