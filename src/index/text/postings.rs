//! One term's posting list, packed: per note holding the term, its id (as the gap from the
//! previous note's), its weighted count with the title flag, and its word positions (their
//! byte length, then the positions themselves as gaps), all variable-length integers in one
//! byte string. Notes only join at the end (ids grow), so a list is appended to and never
//! rewritten but by compaction. Every [`SKIP`]th posting holds its note id whole and is listed
//! with where it starts, so a search can jump ahead instead of reading every posting.

use super::{Deltas, IN_TITLE, TF_MAX, deltas, get_varint, put_varint};

/// Postings between two skip entries.
const SKIP: usize = 64;

/// The notes holding one term.
#[derive(Debug, Default, Clone)]
pub(super) struct Postings {
    bytes: Vec<u8>,
    /// (note id, where its posting starts in `bytes`) of every [`SKIP`]th posting.
    skips: Vec<(u32, u32)>,
    /// The id of the last posting's note.
    last: u32,
    /// Postings, live and dead.
    len: u32,
}

/// A note holding a term.
#[derive(Debug, Clone, Copy)]
pub(super) struct Posting<'a> {
    /// The note's id.
    pub doc: u32,
    /// The weighted count, with [`IN_TITLE`] when the term is among the note's title words
    /// (or tags).
    flags: u32,
    /// The term's positions in the note, packed.
    pub positions: &'a [u8],
}

impl Posting<'_> {
    /// The weighted count with the title flag, as pushed.
    pub fn flags(&self) -> u32 {
        self.flags
    }

    /// The weighted count.
    pub fn tf(&self) -> u32 {
        self.flags & TF_MAX
    }

    /// Whether the term is among the note's title words (or tags).
    pub fn in_title(&self) -> bool {
        self.flags & IN_TITLE != 0
    }

    /// The term's positions in the note, in order.
    pub fn positions(&self) -> Deltas<'_> {
        deltas(self.positions)
    }
}

impl Postings {
    /// Postings, live and dead.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Adds the posting of note `doc` (above every id in the list): its weighted count with
    /// the title flag and its packed positions.
    pub fn push(&mut self, doc: u32, flags: u32, positions: &[u8]) {
        debug_assert!(self.len == 0 || doc > self.last, "postings out of order");
        if self.len().is_multiple_of(SKIP) {
            self.skips.push((doc, self.bytes.len() as u32));
            put_varint(&mut self.bytes, doc);
        } else {
            put_varint(&mut self.bytes, doc - self.last);
        }
        put_varint(&mut self.bytes, flags);
        put_varint(&mut self.bytes, positions.len() as u32);
        self.bytes.extend_from_slice(positions);
        self.last = doc;
        self.len += 1;
    }

    /// Every posting, by note id.
    pub fn iter(&self) -> Iter<'_> {
        Iter { list: self, at: 0, i: 0, doc: 0 }
    }

    /// The postings of notes `doc` and above, by note id (jumping ahead by the skip entries).
    pub fn iter_from(&self, doc: u32) -> impl Iterator<Item = Posting<'_>> {
        let mut iter = self.iter();
        iter.skip_to(doc);
        iter.skip_while(move |p| p.doc < doc)
    }

    /// A cursor on the first posting.
    pub fn cursor(&self) -> Cursor<'_> {
        let mut iter = self.iter();
        let current = iter.next();
        Cursor { iter, current }
    }

    /// The posting of note `doc`, if it holds the term.
    pub fn find(&self, doc: u32) -> Option<Posting<'_>> {
        self.cursor().seek(doc).filter(|p| p.doc == doc)
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.skips.capacity() * 8
    }

    /// Gives back spare capacity.
    pub fn shrink(&mut self) {
        self.bytes.shrink_to_fit();
        self.skips.shrink_to_fit();
    }
}

/// Iterator over a [`Postings`].
#[derive(Debug, Clone)]
pub(super) struct Iter<'a> {
    list: &'a Postings,
    /// Where the next posting starts.
    at: usize,
    /// The next posting's index.
    i: usize,
    /// The last note id read.
    doc: u32,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Posting<'a>;

    #[inline]
    fn next(&mut self) -> Option<Posting<'a>> {
        let bytes = &self.list.bytes;
        if self.at >= bytes.len() {
            return None;
        }
        let gap = get_varint(bytes, &mut self.at);
        self.doc = if self.i.is_multiple_of(SKIP) { gap } else { self.doc + gap };
        let flags = get_varint(bytes, &mut self.at);
        let len = get_varint(bytes, &mut self.at) as usize;
        let positions = &bytes[self.at..self.at + len];
        self.at += len;
        self.i += 1;
        Some(Posting { doc: self.doc, flags, positions })
    }
}

impl Iter<'_> {
    /// Jumps to the skip entry of the last block starting at or before note `doc`, when that
    /// block is ahead.
    fn skip_to(&mut self, doc: u32) {
        let skips = &self.list.skips;
        let next_block = self.i.div_ceil(SKIP);
        if skips.get(next_block).is_none_or(|s| s.0 > doc) {
            return;
        }
        let block = next_block + skips[next_block..].partition_point(|s| s.0 <= doc) - 1;
        self.i = block * SKIP;
        self.at = skips[block].1 as usize;
    }
}

/// A position in a [`Postings`], moved forward by [`Cursor::seek`].
#[derive(Debug, Clone)]
pub(super) struct Cursor<'a> {
    iter: Iter<'a>,
    current: Option<Posting<'a>>,
}

impl<'a> Cursor<'a> {
    /// The first posting at or after the current one whose note id is at least `doc`.
    pub fn seek(&mut self, doc: u32) -> Option<Posting<'a>> {
        if self.current?.doc >= doc {
            return self.current;
        }
        self.iter.skip_to(doc);
        self.current = self.iter.find(|p| p.doc >= doc);
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_seeks_and_finds() {
        let mut list = Postings::default();
        let docs: Vec<u32> = (0..1000).map(|i| i * 8 + (i % 7)).collect();
        for &d in &docs {
            let mut positions = Vec::new();
            put_varint(&mut positions, d % 5);
            put_varint(&mut positions, 200);
            list.push(d, (d % 4 + 1) | if d % 2 == 0 { IN_TITLE } else { 0 }, &positions);
        }
        assert_eq!(list.len(), 1000);
        let read: Vec<u32> = list.iter().map(|p| p.doc).collect();
        assert_eq!(read, docs);
        for p in list.iter() {
            assert_eq!(p.tf(), p.doc % 4 + 1);
            assert_eq!(p.in_title(), p.doc % 2 == 0);
            assert_eq!(p.positions().collect::<Vec<_>>(), [p.doc % 5, p.doc % 5 + 200]);
        }
        let mut cursor = list.cursor();
        for target in (0..8100).step_by(37) {
            let want = docs.iter().copied().find(|&d| d >= target);
            assert_eq!(cursor.seek(target).map(|p| p.doc), want, "{target}");
            assert_eq!(list.find(target).map(|p| p.doc), docs.contains(&target).then_some(target));
        }
        assert!(Postings::default().find(0).is_none());
    }
}
