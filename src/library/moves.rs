//! What moving or deleting a file does to the vault's links: the notes whose links a move
//! rewrites (and how), and the links a delete breaks. Worked out from a [`Graph`] of the vault
//! before anything is written.

use serde::Serialize;

use crate::index::graph::{Graph, GraphNote};
use crate::note::rewrite::{LinkChange, rebase_links, rewrite_links};
use crate::note::{LinkResolver, LinkStyle, Resolve};
use crate::vault::{Vault, VaultError, VaultPath};

/// A note whose links change.
#[derive(Debug, Serialize)]
pub struct NoteEdit {
    /// The note (for the moved note: its new path).
    pub path: VaultPath,
    /// Its text when the plan was made: the new text is written only over it.
    #[serde(skip)]
    pub before: String,
    /// Its new text.
    #[serde(skip)]
    pub text: String,
    /// The links changed, in order.
    pub changes: Vec<LinkChange>,
}

/// Every change a move makes.
#[derive(Debug)]
pub struct MovePlan {
    /// The moved note's own links, re-based for its new folder (when any changed).
    pub moved: Option<NoteEdit>,
    /// The other notes whose links to the moved file change.
    pub notes: Vec<NoteEdit>,
}

impl MovePlan {
    /// The moved note first, then the others.
    pub fn edits(&self) -> impl Iterator<Item = &NoteEdit> {
        self.moved.iter().chain(&self.notes)
    }

    /// How many notes and links change.
    pub fn counts(&self) -> (usize, usize) {
        (self.edits().count(), self.edits().map(|e| e.changes.len()).sum())
    }
}

/// The links to rewrite when `old` moves to `new`: in every note that links to it (frontmatter
/// links, embeds, aliases and `#heading`/`#^block` subpaths kept), and in the moved note itself.
/// New link text follows `style` (Obsidian's "New link format"). Notes that cannot be read as text
/// are left alone. Only notes that may link to `old` are read and parsed again: those the graph's
/// backlinks say link to it, and those with links the graph does not list (in headings).
pub fn plan_move(
    vault: &dyn Vault,
    graph: &Graph,
    old: &VaultPath,
    new: &VaultPath,
    style: LinkStyle,
) -> Result<MovePlan, VaultError> {
    let before = graph.resolver();
    let after = resolver_after(graph, old, Some(new));
    let mut candidates = linking_notes(graph, old);
    candidates.extend(graph.notes_with_unlisted_links());
    candidates.sort_by(|a, b| a.path.cmp(&b.path));
    candidates.dedup_by(|a, b| a.path == b.path);
    let mut notes = Vec::new();
    for note in candidates.into_iter().filter(|n| n.path != *old && n.unreadable.is_none()) {
        let text = match vault.read(&note.path) {
            Ok(text) => text,
            Err(VaultError::NotFound { .. } | VaultError::NotText { .. }) => continue,
            Err(err) => return Err(err),
        };
        let done =
            rewrite_links(&text, note.path.as_str(), old.as_str(), new.as_str(), before, &*after, style);
        if !done.changes.is_empty() {
            let edit =
                NoteEdit { path: note.path.clone(), before: text, text: done.text, changes: done.changes };
            notes.push(edit);
        }
    }
    let moved = if old.is_markdown() {
        let text = vault.read(old)?;
        let done = rebase_links(&text, old.as_str(), new.as_str(), before, &*after, style);
        (!done.changes.is_empty()).then(|| NoteEdit {
            path: new.clone(),
            before: text,
            text: done.text,
            changes: done.changes,
        })
    } else {
        None
    };
    Ok(MovePlan { moved, notes })
}

/// The notes with a link to `path` (as the graph resolves them), by path.
fn linking_notes<'g>(graph: &'g Graph, path: &VaultPath) -> Vec<&'g GraphNote> {
    let mut notes: Vec<&GraphNote> =
        graph.backlinks(path).iter().filter_map(|b| graph.note(&b.source)).collect();
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    notes.dedup_by(|a, b| a.path == b.path);
    notes
}

/// A link that deleting a file breaks, or turns to another file of the same name.
#[derive(Debug, Serialize)]
pub struct DeletedLink {
    /// The linking note.
    pub path: VaultPath,
    /// 1-based line of the link.
    pub line: usize,
    /// The link as written: its target and `#subpath`.
    pub link: String,
    /// Whether it is an embed (`![[…]]`).
    pub embed: bool,
    /// The file the link opens once the target is gone (a note of the same name), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now_opens: Option<String>,
}

/// The links from other notes to `deleted`, each with what it opens after the delete.
pub fn links_into(graph: &Graph, deleted: &VaultPath) -> Vec<DeletedLink> {
    let notes = linking_notes(graph, deleted);
    if notes.is_empty() {
        return Vec::new();
    }
    let after = resolver_after(graph, deleted, None);
    let mut out = Vec::new();
    for note in notes.into_iter().filter(|n| n.path != *deleted) {
        for link in note.links.iter().filter(|l| l.path() == Some(deleted.as_str())) {
            let shown = match &link.subpath {
                Some(sub) => format!("{}#{sub}", link.target),
                None => link.target.clone(),
            };
            out.push(DeletedLink {
                path: note.path.clone(),
                line: link.line,
                link: shown,
                embed: link.embed,
                now_opens: after.first(&link.target, Some(note.path.as_str())),
            });
        }
    }
    out
}

/// The graph's resolver once `old` is at `new` (or gone, for `None`), aliases following the note:
/// the graph's own seen with the file moved when it can be (no two files share a path key), else
/// made again from every path.
fn resolver_after<'g>(graph: &'g Graph, old: &VaultPath, new: Option<&VaultPath>) -> Box<dyn Resolve + 'g> {
    match graph.resolver().moved(old.as_str(), new.map(VaultPath::as_str)) {
        Some(moved) => Box::new(moved),
        None => Box::new(resolver_made_again(graph, old.as_str(), new.map(VaultPath::as_str))),
    }
}

/// [`resolver_after`], made again from every path of the graph.
fn resolver_made_again(graph: &Graph, old: &str, new: Option<&str>) -> LinkResolver {
    let here = |path: &str| if path == old { new.map(str::to_string) } else { Some(path.to_string()) };
    let paths = graph.notes().map(|n| n.path.as_str()).chain(graph.attachments().map(|a| a.path.as_str()));
    let mut all: Vec<String> = paths.filter_map(here).collect();
    // A file the graph does not list (a hidden one, restored from .trash/) still arrives.
    if let Some(new) = new.filter(|n| !all.iter().any(|p| p == n)) {
        all.push(new.to_string());
    }
    let mut resolver = LinkResolver::new(all);
    for note in graph.notes() {
        if let Some(at) = here(note.path.as_str()) {
            resolver.add_aliases(&at, note.aliases.iter().map(String::as_str));
        }
    }
    resolver
}
