//! [`NoteChanges`]: which notes one change of the index added, read again or dropped, so that
//! whoever follows the vault (the server's resource subscriptions) hears about exactly those.

use std::cmp::Ordering;

use super::graph::{Graph, GraphNote};
use crate::vault::VaultPath;

/// The notes one batch of changes touched, by path (attachments are left out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoteChanges {
    /// Notes new in the index.
    pub added: Vec<VaultPath>,
    /// Notes read again because their modification time or size changed.
    pub modified: Vec<VaultPath>,
    /// Notes gone from the index (deleted, or moved away: the new path is then in `added`).
    pub removed: Vec<VaultPath>,
}

impl NoteChanges {
    /// What applying `read` (notes parsed again) and `removed` (files gone, notes or not) to
    /// `graph` changes, told from `graph` as it is before they are applied.
    pub fn before_apply(graph: &Graph, read: &[GraphNote], removed: &[VaultPath]) -> Self {
        let mut changes = Self::default();
        for note in read.iter().filter(|n| !n.path.is_hidden() && !n.path.is_root()) {
            let list =
                if graph.note(&note.path).is_some() { &mut changes.modified } else { &mut changes.added };
            list.push(note.path.clone());
        }
        changes.removed = removed.iter().filter(|p| graph.note(p).is_some()).cloned().collect();
        changes
    }

    /// What differs between two indexes of the same vault (`old` and `new`), by each note's
    /// modification time and size.
    pub fn between(old: &Graph, new: &Graph) -> Self {
        let mut changes = Self::default();
        let (mut old, mut new) = (old.notes().peekable(), new.notes().peekable());
        loop {
            let order = match (old.peek(), new.peek()) {
                (None, None) => return changes,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some(a), Some(b)) => a.path.as_str().cmp(b.path.as_str()),
            };
            match order {
                Ordering::Less => changes.removed.extend(old.next().map(|n| n.path.clone())),
                Ordering::Greater => changes.added.extend(new.next().map(|n| n.path.clone())),
                Ordering::Equal => {
                    let (Some(a), Some(b)) = (old.next(), new.next()) else { return changes };
                    if (a.mtime_ms, a.size) != (b.mtime_ms, b.size) {
                        changes.modified.push(b.path.clone());
                    }
                }
            }
        }
    }

    /// Adds the changes of a later step of the same batch.
    pub fn merge(&mut self, later: NoteChanges) {
        self.added.extend(later.added);
        self.modified.extend(later.modified);
        self.removed.extend(later.removed);
    }

    /// Whether no note changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }

    /// Whether the set of notes changed (a note appeared or went away).
    pub fn list_changed(&self) -> bool {
        !self.added.is_empty() || !self.removed.is_empty()
    }

    /// Every path touched: added, modified or removed.
    pub fn paths(&self) -> impl Iterator<Item = &VaultPath> {
        self.added.iter().chain(&self.modified).chain(&self.removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::VaultIndex;
    use crate::vault::{MemVault, Vault};

    fn paths(list: &[&str]) -> Vec<VaultPath> {
        list.iter().map(|p| VaultPath::new(p).unwrap()).collect()
    }

    #[test]
    fn an_update_names_the_notes_it_added_read_again_and_dropped() {
        let vault = MemVault::with_files([("a.md", "a"), ("Notes/b.md", "b"), ("img.png", "png")]).unwrap();
        let root = VaultPath::root();
        let before = VaultIndex::build(&vault, &root).unwrap();
        let mut index = VaultIndex::build(&vault, &root).unwrap();
        vault.write(&VaultPath::new("a.md").unwrap(), "a, again").unwrap();
        vault.create_new(&VaultPath::new("c.md").unwrap(), "c").unwrap();
        vault
            .rename(&VaultPath::new("Notes/b.md").unwrap(), &VaultPath::new("Archive/b.md").unwrap())
            .unwrap();
        vault.write(&VaultPath::new("img.png").unwrap(), "png, again").unwrap();
        let changes = index.update_paths(&vault, &paths(&["a.md", "c.md", "Notes", "Archive", "img.png"]));
        let expected = NoteChanges {
            added: paths(&["c.md", "Archive/b.md"]),
            modified: paths(&["a.md"]),
            removed: paths(&["Notes/b.md"]),
        };
        assert_eq!(changes.notes, expected);
        assert!(changes.notes.list_changed());
        assert_eq!(changes.attachments, 1, "the attachment is counted, not named");
        assert!(index.refresh(&vault).unwrap().notes.is_empty());
        // Two indexes compared note by note tell the same, in path order.
        let between = NoteChanges::between(before.graph(), index.graph());
        assert_eq!(between.added, paths(&["Archive/b.md", "c.md"]));
        assert_eq!((between.modified, between.removed), (expected.modified, expected.removed));
        assert!(NoteChanges::between(index.graph(), index.graph()).is_empty());
    }

    #[test]
    fn an_edit_alone_leaves_the_list_as_it_was() {
        let vault = MemVault::with_files([("a.md", "a")]).unwrap();
        let mut index = VaultIndex::build(&vault, &VaultPath::root()).unwrap();
        vault.write(&VaultPath::new("a.md").unwrap(), "a, again").unwrap();
        let changes = index.refresh(&vault).unwrap();
        assert_eq!(changes.notes.paths().collect::<Vec<_>>(), [&VaultPath::new("a.md").unwrap()]);
        assert!(!changes.notes.list_changed());
    }
}
