//! The vocabulary of the text index: term ids by folded word, and back. Every word of every
//! note is looked up here while a note is packed, so the table is built for that: the words lie
//! one after another in one string, a slot holds an id and a tag of the word's hash (a probe
//! touches a word's bytes only when the tags agree), and the spellings that need folding
//! (`Überblick`, `Note`) remember their term, so each is folded once.

use std::hash::Hasher;

use crate::index::tokenize::{fold_into, is_folded};

/// A fast hasher for short words: the multiply-and-rotate scheme rustc uses for its own
/// tables. The index is private to the process, so resistance to crafted collisions (what the
/// standard hasher pays for) is not needed.
#[derive(Debug, Default, Clone, Copy)]
pub struct WordHasher(u64);

impl WordHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

fn hash(word: &str) -> u64 {
    let mut hasher = WordHasher::default();
    hasher.write(word.as_bytes());
    // The length, so that words differing only in trailing zero bytes differ.
    hasher.add(word.len() as u64);
    // A product's low bits depend only on the low bits of its factors: words that differ only
    // past their first few bytes (`t1234`, `t1235`) would share their low bits, hence their
    // slot. Folding the high half in spreads them.
    let h = hasher.finish();
    (h ^ (h >> 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Strings, each stored once, one after another, with a `u32` value each, found by an
/// open-addressing table (linear probing).
#[derive(Debug, Default, Clone)]
struct Table {
    /// Per slot: entry index + 1 (0: empty) and the high half of the entry's hash.
    slots: Vec<(u32, u32)>,
    /// Every entry's string, one after another.
    text: String,
    /// Where each entry's string ends in `text`.
    ends: Vec<u32>,
    values: Vec<u32>,
}

impl Table {
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Where entry `entry`'s string lies in `text`.
    fn span(&self, entry: usize) -> std::ops::Range<usize> {
        let start = if entry == 0 { 0 } else { self.ends[entry - 1] as usize };
        start..self.ends[entry] as usize
    }

    fn key(&self, entry: usize) -> &str {
        &self.text[self.span(entry)]
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn find(&self, key: &str, hash: u64) -> (usize, Option<u32>) {
        let mask = self.slots.len() - 1;
        let tag = (hash >> 32) as u32;
        let mut at = hash as usize & mask;
        loop {
            let (entry, slot_tag) = self.slots[at];
            if entry == 0 {
                return (at, None);
            }
            // Compared as bytes: no check that the span ends on characters (it does).
            if slot_tag == tag && self.text.as_bytes()[self.span(entry as usize - 1)] == *key.as_bytes() {
                return (at, Some(self.values[entry as usize - 1]));
            }
            at = (at + 1) & mask;
        }
    }

    fn get(&self, key: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        self.find(key, hash(key)).1
    }

    /// The value of `key`, or `value()` stored for it.
    fn get_or_insert(&mut self, key: &str, value: impl FnOnce(usize) -> u32) -> u32 {
        // At most half full: a word not there yet (every new word, every new spelling) is
        // found missing after 2.5 probes on average, against 32 at seven eighths.
        if self.ends.len() * 2 >= self.slots.len() {
            self.grow(self.slots.len() * 2);
        }
        let h = hash(key);
        let (at, found) = self.find(key, h);
        if let Some(v) = found {
            return v;
        }
        let v = value(self.len());
        self.text.push_str(key);
        self.ends.push(self.text.len() as u32);
        self.values.push(v);
        self.slots[at] = (self.ends.len() as u32, (h >> 32) as u32);
        v
    }

    /// Room for `more` entries without growing again.
    fn reserve(&mut self, more: usize) {
        let want = (self.len() + more) * 2 + 1;
        if want > self.slots.len() {
            self.grow(want.next_power_of_two());
        }
    }

    /// Rehashes every entry into `size` slots (a power of two).
    fn grow(&mut self, size: usize) {
        let size = size.max(64);
        self.slots = vec![(0, 0); size];
        let mask = size - 1;
        for entry in 0..self.ends.len() {
            let h = hash(self.key(entry));
            let mut at = h as usize & mask;
            while self.slots[at].0 != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = (entry as u32 + 1, (h >> 32) as u32);
        }
    }

    fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 8
            + self.text.capacity()
            + self.ends.capacity() * 4
            + self.values.capacity() * 4
    }

    fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.values.shrink_to_fit();
    }
}

/// Term ids by folded word, and back.
#[derive(Debug, Default, Clone)]
pub struct Vocab {
    /// The terms: the id of each is its entry's index (and its value).
    terms: Table,
    /// Spellings that are not folded (capitals, accents, other scripts), with their term.
    spellings: Table,
    /// Scratch space for folding.
    buf: String,
    /// Scratch space for [`Vocab::group`]: per term id, its run (`u32::MAX`: none).
    runs: Vec<u32>,
}

impl Vocab {
    /// An empty vocabulary.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `word` (folded), added when new.
    pub fn intern(&mut self, word: &str) -> u32 {
        self.terms.get_or_insert(word, |len| len as u32)
    }

    /// The id of the term `raw` (a word as written) folds to, added when new.
    pub fn intern_raw(&mut self, raw: &str) -> u32 {
        if is_folded(raw) {
            return self.intern(raw);
        }
        let Self { terms, spellings, buf, .. } = self;
        spellings.get_or_insert(raw, |_| {
            fold_into(raw, buf);
            terms.get_or_insert(buf, |len| len as u32)
        })
    }

    /// Makes room for `more` new words.
    pub fn reserve(&mut self, more: usize) {
        self.terms.reserve(more);
    }

    /// Forgets the spellings remembered by [`Vocab::intern_raw`] (the terms stay).
    pub fn forget_spellings(&mut self) {
        self.spellings = Table::default();
    }

    /// The id of `word` (folded), if it is known.
    pub fn get(&self, word: &str) -> Option<u32> {
        self.terms.get(word)
    }

    /// The word of `id`.
    pub fn term(&self, id: u32) -> &str {
        if (id as usize) < self.terms.len() { self.terms.key(id as usize) } else { "" }
    }

    /// How many words are known.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether no word is known.
    pub fn is_empty(&self) -> bool {
        self.terms.len() == 0
    }

    /// Every known word with its id.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &str)> {
        (0..self.terms.len()).map(|i| (i as u32, self.terms.key(i)))
    }

    /// The words of ids `from` and on, in the order of their ids.
    pub fn words_from(&self, from: usize) -> impl Iterator<Item = &str> {
        (from..self.terms.len()).map(|i| self.terms.key(i))
    }

    /// Groups `pairs` (term id, anything) by term (a counting sort): returns the indices of
    /// `pairs` ordered by term id, each term's in their order in `pairs`, and where each
    /// term's run starts in them (with one more entry: the end).
    pub(super) fn group(&mut self, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
        let runs = &mut self.runs;
        if runs.len() < self.terms.len() {
            runs.resize(self.terms.len(), u32::MAX);
        }
        let mut distinct: Vec<u32> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        for &(term, _) in pairs {
            let run = &mut runs[term as usize];
            if *run == u32::MAX {
                *run = distinct.len() as u32;
                distinct.push(term);
                counts.push(0);
            }
            counts[*run as usize] += 1;
        }
        let mut by_term: Vec<u32> = (0..distinct.len() as u32).collect();
        by_term.sort_unstable_by_key(|&run| distinct[run as usize]);
        let mut starts = Vec::with_capacity(distinct.len() + 1);
        let mut next = vec![0u32; distinct.len()];
        let mut at = 0;
        for &run in &by_term {
            starts.push(at);
            next[run as usize] = at;
            at += counts[run as usize];
        }
        starts.push(at);
        let mut order = vec![0u32; pairs.len()];
        for (i, &(term, _)) in pairs.iter().enumerate() {
            let cursor = &mut next[runs[term as usize] as usize];
            order[*cursor as usize] = i as u32;
            *cursor += 1;
        }
        for &term in &distinct {
            runs[term as usize] = u32::MAX;
        }
        (order, starts)
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.terms.heap_bytes() + self.spellings.heap_bytes() + self.buf.capacity() + self.runs.capacity() * 4
    }

    /// Gives back spare capacity.
    pub fn shrink(&mut self) {
        self.terms.shrink();
        self.spellings.shrink();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_words_and_spellings() {
        let mut vocab = Vocab::new();
        let words: Vec<String> = (0..5000).map(|i| format!("w{i}")).collect();
        let ids: Vec<u32> = words.iter().map(|w| vocab.intern(w)).collect();
        assert_eq!(ids, (0..5000).collect::<Vec<u32>>());
        for (w, id) in words.iter().zip(&ids) {
            assert_eq!(vocab.intern(w), *id);
            assert_eq!(vocab.get(w), Some(*id));
            assert_eq!(vocab.term(*id), w);
        }
        assert_eq!(vocab.get("missing"), None);
        assert_eq!(vocab.term(99_999), "");
        let a = vocab.intern_raw("Überblick");
        assert_eq!(vocab.term(a), "uberblick");
        assert_eq!(vocab.intern_raw("ÜBERBLICK"), a);
        assert_eq!(vocab.intern_raw("uberblick"), a);
        assert_eq!(vocab.len(), 5001);
        vocab.forget_spellings();
        assert_eq!(vocab.intern_raw("Überblick"), a);
        assert_eq!(vocab.iter().nth(3), Some((3, "w3")));
        // A word and the same word with a trailing NUL are different terms.
        assert_ne!(vocab.intern("ab"), vocab.intern("ab\0"));
    }
}
