//! The full-text index: an inverted index (term → the notes holding it, with weighted counts and
//! word positions, packed as variable-length integers: see [`postings`]) and per note its term
//! list.
//!
//! Notes get ids in the order they are added; a changed note is added again under a new id and
//! its old id is left dead until dead postings outweigh live ones, when every id is renumbered in
//! one pass. So postings stay sorted by note id, an edit touches only the edited note's terms, and
//! nothing is moved on every change.

mod postings;
mod rank;
#[cfg(test)]
mod tests;
mod vocab;

use postings::Postings;

use std::cmp::Ordering;

use super::tokenize::tokens;
use crate::vault::{FileMeta, VaultPath};

pub use rank::{Hit, Integrity, Page};
pub use vocab::{Vocab, WordHasher};

/// How much more a word of the note's name, aliases, title or citekey counts than a body word.
pub const TITLE_WEIGHT: u32 = 3;
/// Positions between the body and the title words, so that no phrase spans the two.
const TITLE_GAP: u32 = 8;
/// The body length of a dead note id.
const DEAD: u32 = u32::MAX;
/// The flag of a posting's count: the term is among the note's title words (or tags).
const IN_TITLE: u32 = 1 << 31;
/// The largest weighted count a posting holds.
const TF_MAX: u32 = IN_TITLE - 1;
/// What starts the term of a tag (no word holds it).
pub const TAG_MARK: char = '#';

/// A note tokenized and packed against a [`Vocab`] (a worker thread's own, or the index's),
/// ready for [`TextIndex::push`] once its term ids are the index's.
#[derive(Debug, Clone)]
pub struct Encoded {
    meta: FileMeta,
    /// Words in the body.
    len: u32,
    /// Per term: weighted count (with [`IN_TITLE`]) and where its positions are in `bytes`.
    terms: Vec<EncodedTerm>,
    /// Every term's positions, delta-packed, each term's in `start..end`.
    bytes: Vec<u8>,
}

impl Encoded {
    /// Tokenizes `text` (the whole note) and `title` (name, aliases, title, citekey) against
    /// `vocab`, and packs the positions of each term. Each of `tags` (lowercase) and its parents
    /// becomes a term `#tag`, which no word can be, for tag filters.
    pub fn new(vocab: &mut Vocab, meta: FileMeta, text: &str, title: &str, tags: &[String]) -> Self {
        Self::encode(vocab, meta, text, title, tags, None)
    }

    /// [`Encoded::new`] keeping only the words `keep` says yes to (asked with each word as
    /// written): every other word still counts, in the note's length and the positions, so the
    /// note ranks for the words kept as in a full index.
    pub fn only(
        vocab: &mut Vocab,
        meta: FileMeta,
        text: &str,
        title: &str,
        tags: &[String],
        keep: &mut dyn FnMut(&str) -> bool,
    ) -> Self {
        Self::encode(vocab, meta, text, title, tags, Some(keep))
    }

    fn encode(
        vocab: &mut Vocab,
        meta: FileMeta,
        text: &str,
        title: &str,
        tags: &[String],
        mut keep: Option<&mut dyn FnMut(&str) -> bool>,
    ) -> Self {
        let keep_all = keep.is_none();
        let mut kept = |raw: &str| keep.as_mut().is_none_or(|keep| keep(raw));
        // (term, position), in the order of positions.
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(if keep_all { text.len() / 6 } else { 8 });
        let mut len = 0;
        for t in tokens(text) {
            if kept(t.raw) {
                pairs.push((vocab.intern_raw(t.raw), len));
            }
            len += 1;
        }
        let mut last = len.checked_sub(1);
        for (i, t) in tokens(title).enumerate() {
            let pos = len + TITLE_GAP + i as u32;
            if kept(t.raw) {
                pairs.push((vocab.intern_raw(t.raw), pos));
            }
            last = Some(pos);
        }
        // Each tag and parent once, in the order first met.
        let mut seen = foldhash::HashSet::default();
        let mut term = String::new();
        let mut at = last.unwrap_or(0) + TITLE_GAP;
        for tag in tags
            .iter()
            .flat_map(|t| std::iter::once(t.as_str()).chain(t.match_indices('/').map(|(i, _)| &t[..i])))
        {
            if seen.insert(tag) {
                term.clear();
                term.push(TAG_MARK);
                term.push_str(tag);
                pairs.push((vocab.intern(&term), at));
                at += 1;
            }
        }
        // Each term's positions, grouped by term in id order (a counting sort: positions stay
        // in order within a term).
        let (order, starts) = vocab.group(&pairs);
        let mut bytes = Vec::with_capacity(pairs.len() + pairs.len() / 2);
        let mut terms = Vec::with_capacity(starts.len());
        for window in starts.windows(2) {
            let term = pairs[order[window[0] as usize] as usize].0;
            let start = bytes.len() as u32;
            let mut prev = 0;
            let mut tf = 0;
            for &at in &order[window[0] as usize..window[1] as usize] {
                let pos = pairs[at as usize].1;
                put_varint(&mut bytes, pos - prev);
                prev = pos;
                tf += if pos < len { 1 } else { TITLE_WEIGHT };
            }
            let in_title = prev >= len + TITLE_GAP;
            let tf = tf.min(TF_MAX) | if in_title { IN_TITLE } else { 0 };
            terms.push(EncodedTerm { term, tf, start, end: bytes.len() as u32 });
        }
        bytes.shrink_to_fit();
        Self { meta, len, terms, bytes }
    }

    /// The note's path.
    pub fn path(&self) -> &VaultPath {
        &self.meta.path
    }

    /// Rewrites term ids through `map` (the worker vocabulary's id → the index's, from
    /// [`TextIndex::adopt`]).
    pub fn remap(&mut self, map: &[u32]) {
        for t in &mut self.terms {
            t.term = map[t.term as usize];
        }
        self.terms.sort_unstable_by_key(|t| t.term);
    }
}

#[derive(Debug, Clone, Copy)]
struct EncodedTerm {
    term: u32,
    tf: u32,
    start: u32,
    end: u32,
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
fn get_varint(bytes: &[u8], at: &mut usize) -> u32 {
    match bytes.get(*at) {
        Some(&b) if b < 0x80 => {
            *at += 1;
            u32::from(b)
        }
        _ => get_long_varint(bytes, at),
    }
}

fn get_long_varint(bytes: &[u8], at: &mut usize) -> u32 {
    let mut v = 0u32;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        v |= u32::from(b & 0x7f) << shift;
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    v
}

/// Decodes delta-packed integers.
fn deltas(bytes: &[u8]) -> Deltas<'_> {
    Deltas { bytes, at: 0, value: 0 }
}

/// Iterator behind [`deltas`]; a one-byte delta (the common case) is decoded inline.
#[derive(Debug, Clone)]
struct Deltas<'a> {
    bytes: &'a [u8],
    at: usize,
    value: u32,
}

impl Iterator for Deltas<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let &b = self.bytes.get(self.at)?;
        if b < 0x80 {
            self.at += 1;
            self.value += u32::from(b);
        } else {
            self.value += get_varint(self.bytes, &mut self.at);
        }
        Some(self.value)
    }
}

/// Builds a [`TextIndex`] from notes packed by several workers, each against its own
/// [`Vocab`], as they come: each worker's new words are adopted as they arrive, and its notes
/// pushed (in path order, so that note ids follow the paths) without waiting for the others.
#[derive(Debug, Default)]
pub struct TextBuilder {
    index: TextIndex,
    /// Per worker, its term ids to the index's.
    maps: Vec<Vec<u32>>,
}

impl TextBuilder {
    /// A builder of an empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adopts the words worker `worker` added to its vocabulary since its last call (see
    /// [`Vocab::words_from`]), in the order of their ids.
    pub fn adopt<'a>(&mut self, worker: usize, words: impl IntoIterator<Item = &'a str>) {
        let Self { index, maps } = self;
        if maps.len() <= worker {
            maps.resize_with(worker + 1, Vec::new);
        }
        let words = words.into_iter();
        index.vocab.reserve(words.size_hint().0);
        maps[worker].extend(words.map(|w| index.vocab.intern(w)));
        index.grow();
    }

    /// Adds a note packed by worker `worker`, whose words it adopted first.
    pub fn push(&mut self, worker: usize, mut doc: Encoded) {
        doc.remap(&self.maps[worker]);
        self.index.push(doc);
    }

    /// The index as built so far.
    pub fn index(&self) -> &TextIndex {
        &self.index
    }

    /// The index, every table shrunk to fit.
    pub fn finish(mut self) -> TextIndex {
        self.index.shrink();
        self.index
    }
}

/// One indexed note.
#[derive(Debug, Clone)]
struct Doc {
    path: VaultPath,
    /// Where the path is in the index's `path_text`.
    path_at: u32,
    mtime_ms: i64,
    size: u64,
    /// Words in the body.
    len: u32,
    /// Its term ids, sorted, delta-packed.
    terms: Box<[u8]>,
}

/// The file of an indexed note, as filters see it.
#[derive(Debug, Clone, Copy)]
pub struct DocMeta<'a> {
    /// Vault-relative path.
    pub path: &'a str,
    /// Last modification, ms since the Unix epoch.
    pub mtime_ms: i64,
    /// Size in bytes.
    pub size: u64,
}

/// The index.
#[derive(Debug, Default, Clone)]
pub struct TextIndex {
    vocab: Vocab,
    df: Vec<u32>,
    /// Per term, the notes holding it with the word positions.
    postings: Vec<Postings>,
    docs: Vec<Option<Doc>>,
    /// Body words per note id; `DEAD` for a dead id.
    lens: Vec<u32>,
    /// The live note ids, by path.
    by_path: Vec<u32>,
    /// Every note's path, one after another in id order (dead ones' too, until compaction):
    /// filters read them here, close together, instead of one allocation per note.
    path_text: String,
    total_len: u64,
    live_postings: usize,
    dead_postings: usize,
    /// Notes the ranking counts that the index leaves out: see [`TextIndex::count_left_out`].
    left_out: LeftOut,
}

/// Notes read but not indexed (none holds a word of the queries the index answers), and the
/// words they hold: BM25's note count and average length include them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LeftOut {
    /// How many notes.
    pub notes: usize,
    /// How many words they hold in all (as [`tokens`] counts them).
    pub words: u64,
}

impl TextIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Gives back spare capacity of every table.
    pub fn shrink(&mut self) {
        self.vocab.shrink();
        for list in &mut self.postings {
            list.shrink();
        }
        self.docs.shrink_to_fit();
        self.lens.shrink_to_fit();
        self.path_text.shrink_to_fit();
    }

    fn grow(&mut self) {
        let n = self.vocab.len();
        self.df.resize(n, 0);
        self.postings.resize_with(n, Postings::default);
    }

    /// How many notes are indexed.
    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    /// Whether no note is indexed.
    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// Makes the ranking count `left_out` too: for an index of only the notes that can match
    /// a query (see [`crate::index::scan`]), whose scores then are those of an index of every
    /// note read.
    pub fn count_left_out(&mut self, left_out: LeftOut) {
        self.left_out = left_out;
    }

    /// The vocabulary.
    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// How many (term, note) pairs are indexed.
    pub fn postings(&self) -> usize {
        self.live_postings
    }

    /// The modification time and size the note at `path` had when indexed.
    pub fn stamp(&self, path: &VaultPath) -> Option<(i64, u64)> {
        let doc = self.doc(self.id_of(path)?)?;
        Some((doc.mtime_ms, doc.size))
    }

    /// Every indexed note, by path.
    pub fn paths(&self) -> impl Iterator<Item = &VaultPath> {
        self.by_path.iter().filter_map(|&id| self.doc(id)).map(|d| &d.path)
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        let vocab = self.vocab.heap_bytes();
        let postings: usize = self.postings.iter().map(|p| p.heap_bytes() + 56).sum();
        let docs: usize =
            self.docs.iter().flatten().map(|d| d.terms.len() + d.path.as_str().len() * 2 + 150).sum();
        vocab
            + postings
            + docs
            + self.docs.capacity() * 8
            + self.lens.capacity() * 4
            + self.path_text.capacity()
    }

    /// Adds or replaces the note `meta` with its text, title words (name, aliases, …) and tags.
    pub fn insert(&mut self, meta: FileMeta, text: &str, title: &str, tags: &[String]) {
        let encoded = Encoded::new(&mut self.vocab, meta, text, title, tags);
        self.grow();
        self.push(encoded);
    }

    /// Adds a packed note (replacing the note at its path). Its term ids must be the index's,
    /// sorted (as [`Encoded::remap`] leaves them).
    pub fn push(&mut self, encoded: Encoded) {
        let Encoded { meta, len, terms, bytes } = encoded;
        let id = self.docs.len() as u32;
        match self.find_path(&meta.path) {
            Ok(at) => {
                let old = std::mem::replace(&mut self.by_path[at], id);
                self.kill(old);
            }
            Err(at) => self.by_path.insert(at, id),
        }
        let mut term_list = Vec::with_capacity(terms.len() * 2);
        let mut prev = 0;
        for t in &terms {
            put_varint(&mut term_list, t.term - prev);
            prev = t.term;
        }
        let path_at = self.path_text.len() as u32;
        self.path_text.push_str(meta.path.as_str());
        let doc = Doc {
            path: meta.path,
            path_at,
            mtime_ms: meta.mtime_ms,
            size: meta.size,
            len,
            terms: term_list.into_boxed_slice(),
        };
        for t in terms {
            self.df[t.term as usize] += 1;
            self.postings[t.term as usize].push(id, t.tf, &bytes[t.start as usize..t.end as usize]);
            self.live_postings += 1;
        }
        self.total_len += u64::from(doc.len);
        self.lens.push(doc.len);
        self.docs.push(Some(doc));
        self.maybe_compact();
    }

    /// Drops the note at `path`; returns whether it was indexed.
    pub fn remove(&mut self, path: &VaultPath) -> bool {
        let Ok(at) = self.find_path(path) else { return false };
        let id = self.by_path.remove(at);
        self.kill(id);
        self.maybe_compact();
        true
    }

    fn kill(&mut self, id: u32) {
        let Some(doc) = self.docs.get_mut(id as usize).and_then(Option::take) else { return };
        for term in deltas(&doc.terms) {
            self.df[term as usize] -= 1;
            self.live_postings -= 1;
            self.dead_postings += 1;
        }
        self.total_len -= u64::from(doc.len);
        self.lens[id as usize] = DEAD;
    }

    fn maybe_compact(&mut self) {
        if self.dead_postings > 4096 && self.dead_postings > self.live_postings {
            self.compact();
        }
    }

    /// Renumbers the live notes and drops the postings and positions of dead ids.
    fn compact(&mut self) {
        let mut map = vec![DEAD; self.docs.len()];
        let mut docs = Vec::with_capacity(self.by_path.len());
        let mut lens = Vec::with_capacity(self.by_path.len());
        for (old, doc) in self.docs.drain(..).enumerate() {
            if let Some(doc) = doc {
                map[old] = docs.len() as u32;
                lens.push(doc.len);
                docs.push(Some(doc));
            }
        }
        for list in &mut self.postings {
            let mut kept = Postings::default();
            for p in list.iter() {
                let doc = map[p.doc as usize];
                if doc != DEAD {
                    kept.push(doc, p.flags(), p.positions);
                }
            }
            kept.shrink();
            *list = kept;
        }
        self.path_text = String::with_capacity(self.path_text.len());
        for doc in docs.iter_mut().flatten() {
            doc.path_at = self.path_text.len() as u32;
            self.path_text.push_str(doc.path.as_str());
        }
        for id in &mut self.by_path {
            *id = map[*id as usize];
        }
        self.docs = docs;
        self.lens = lens;
        self.dead_postings = 0;
    }

    /// Where the note at `path` is in `by_path` (or would be).
    fn find_path(&self, path: &VaultPath) -> Result<usize, usize> {
        // Every id listed is live.
        self.by_path.binary_search_by(|&id| self.doc(id).map_or(Ordering::Less, |d| d.path.cmp(path)))
    }

    /// The id of the note at `path`.
    fn id_of(&self, path: &VaultPath) -> Option<u32> {
        self.find_path(path).ok().map(|at| self.by_path[at])
    }

    fn doc(&self, id: u32) -> Option<&Doc> {
        self.docs.get(id as usize)?.as_ref()
    }

    fn meta(&self, id: u32) -> Option<DocMeta<'_>> {
        let d = self.doc(id)?;
        let at = d.path_at as usize;
        let path = &self.path_text[at..at + d.path.as_str().len()];
        Some(DocMeta { path, mtime_ms: d.mtime_ms, size: d.size })
    }

    /// The term ids a folded word (with `*` wildcards) stands for, among terms in use.
    pub fn expand(&self, word: &str) -> Vec<u32> {
        if !word.contains('*') {
            return self.vocab.get(word).filter(|&t| self.df[t as usize] > 0).into_iter().collect();
        }
        self.vocab
            .iter()
            .filter(|(id, t)| {
                super::tokenize::wildcard_match(word, t)
                    && !t.starts_with(TAG_MARK)
                    && self.df[*id as usize] > 0
            })
            .map(|(id, _)| id)
            .collect()
    }
}
