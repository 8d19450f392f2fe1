//! The notes' tags as numbers, for walks over every note (shared tags in [`super::related`]) that
//! must not touch each note's strings: made on first use after a change of the graph, kept until
//! the next.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::GraphNote;

/// Every note's tags as tag ids, by note ordinal (the note's place in path order).
#[derive(Debug, Default)]
pub(super) struct TagTable {
    /// The notes' paths in path order: a note's ordinal is its index here.
    paths: Vec<Arc<str>>,
    /// The tags of note `o` are `flat[starts[o]..starts[o + 1]]`, in the note's order.
    starts: Vec<u32>,
    flat: Vec<u32>,
    /// Tag name → id.
    ids: HashMap<String, u32>,
    /// Per tag id, how many notes carry it.
    carriers: Vec<usize>,
}

impl TagTable {
    /// The table of `notes`.
    pub(super) fn build(notes: &BTreeMap<Arc<str>, GraphNote>) -> Self {
        let mut table = Self {
            paths: Vec::with_capacity(notes.len()),
            starts: Vec::with_capacity(notes.len() + 1),
            ..Self::default()
        };
        table.starts.push(0);
        for (path, note) in notes {
            table.paths.push(Arc::clone(path));
            for tag in &note.tags {
                let next = table.carriers.len() as u32;
                let id = *table.ids.entry(tag.clone()).or_insert(next);
                if id == next {
                    table.carriers.push(0);
                }
                table.carriers[id as usize] += 1;
                table.flat.push(id);
            }
            table.starts.push(table.flat.len() as u32);
        }
        table
    }

    /// How many notes.
    pub(super) fn len(&self) -> usize {
        self.paths.len()
    }

    /// The path of the note at `ordinal`.
    pub(super) fn path(&self, ordinal: usize) -> &str {
        &self.paths[ordinal]
    }

    /// The ordinal of the note at `path`.
    pub(super) fn ordinal(&self, path: &str) -> Option<usize> {
        self.paths.binary_search_by(|p| (**p).cmp(path)).ok()
    }

    /// The tag ids of the note at `ordinal`, in the note's order.
    pub(super) fn tags(&self, ordinal: usize) -> &[u32] {
        &self.flat[self.starts[ordinal] as usize..self.starts[ordinal + 1] as usize]
    }

    /// The id of `tag` (lowercase, as notes hold it), if a note carries it.
    pub(super) fn id(&self, tag: &str) -> Option<u32> {
        self.ids.get(tag).copied()
    }

    /// How many notes carry the tag `id`.
    pub(super) fn carriers(&self, id: u32) -> usize {
        self.carriers[id as usize]
    }
}
