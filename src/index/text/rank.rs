//! Queries over the text index: ranked search (BM25 with a title boost), phrases, exclusions,
//! "more like this", the notes a literal search must read, and the integrity check.

use serde::Serialize;

use super::{DEAD, DocMeta, Postings, TAG_MARK, TITLE_WEIGHT, TextIndex, deltas};
use crate::cores::{self, cores};
use crate::index::query::{Clause, Query};
use crate::index::tokenize::{fold, tokens};
use crate::vault::VaultPath;

const K1: f32 = 1.2;
const B: f32 = 0.75;
/// At most this many clauses of a query count (one bit each).
const MAX_CLAUSES: usize = 64;
/// A cut word of a literal that could be more terms than this does not narrow its search.
const MAX_LITERAL_TERMS: usize = 64;

/// A ranked note.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// The note.
    pub path: VaultPath,
    /// BM25 with the title boost; 0 when the query only filters.
    pub score: f64,
}

/// One page of ranked notes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// The notes of the page, best first.
    pub hits: Vec<Hit>,
    /// How many notes match in all.
    pub total: usize,
    /// Whether no note matched every word, so notes matching any are listed.
    pub relaxed: bool,
}

/// What [`TextIndex::verify`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Integrity {
    /// Notes checked.
    pub notes: usize,
    /// (term, note) pairs checked.
    pub postings: usize,
    /// What is inconsistent (empty when the index is sound).
    pub problems: Vec<String>,
}

/// The rarest word of a phrase in at least this many notes: the notes are walked on every core.
pub(super) const PARALLEL_PHRASE: usize = 4_096;

/// A note holding every word of a phrase (see [`TextIndex::phrase_docs`]).
pub(super) struct PhraseDoc {
    pub doc: u32,
    /// The phrase's weighted count (0: the words are not in a row).
    pub count: u32,
    /// How many of the words are among the note's title words.
    pub titles: u32,
}

/// Scores per note id, which clauses each matched, and which ids were touched.
struct Acc {
    scores: Vec<f32>,
    masks: Vec<u64>,
    touched: Vec<u32>,
    /// How many of the query's words are among each note's title words.
    titles: Vec<u32>,
}

impl Acc {
    fn new(n: usize) -> Self {
        Self { scores: vec![0.0; n], masks: vec![0; n], touched: Vec::new(), titles: vec![0; n] }
    }

    fn add(&mut self, doc: u32, bit: usize, score: f32) {
        let d = doc as usize;
        if self.masks[d] == 0 {
            self.touched.push(doc);
        }
        self.masks[d] |= 1 << bit;
        self.scores[d] += score;
    }
}

impl TextIndex {
    /// The notes BM25 counts: those indexed and those left out.
    fn ranked_notes(&self) -> usize {
        self.by_path.len() + self.left_out.notes
    }

    fn avg_len(&self) -> f32 {
        let words = self.total_len + self.left_out.words;
        (words as f32 / self.ranked_notes().max(1) as f32).max(1.0)
    }

    fn idf(&self, term: u32) -> f32 {
        let n = self.ranked_notes() as f32;
        let df = self.df[term as usize] as f32;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    fn tf_norm(tf: u32, len: u32, avg: f32) -> f32 {
        let tf = tf as f32;
        tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len as f32 / avg))
    }

    fn path_of(&self, doc: u32) -> &VaultPath {
        static ROOT: std::sync::OnceLock<VaultPath> = std::sync::OnceLock::new();
        self.doc(doc).map_or_else(|| ROOT.get_or_init(VaultPath::root), |d| &d.path)
    }

    /// The notes that match `query` and pass `keep`, best first; `offset` and `limit` page them.
    /// Every word and phrase is required; when no note has them all, notes with any of them are
    /// ranked instead (`relaxed`). A query with no words lists the notes that pass its filters
    /// (`tag:` filters the index applies itself; `keep` applies the others), by path.
    pub fn search(
        &self,
        query: &Query,
        keep: &dyn Fn(DocMeta<'_>) -> bool,
        offset: usize,
        limit: usize,
    ) -> Page {
        self.search_in(query, Some(keep), offset, limit)
    }

    /// [`TextIndex::search`] over every note (no note to ask `keep` about: faster when most
    /// notes match).
    pub fn search_everywhere(&self, query: &Query, offset: usize, limit: usize) -> Page {
        self.search_in(query, None, offset, limit)
    }

    fn search_in(
        &self,
        query: &Query,
        keep: Option<&dyn Fn(DocMeta<'_>) -> bool>,
        offset: usize,
        limit: usize,
    ) -> Page {
        let must = &query.must[..query.must.len().min(MAX_CLAUSES)];
        let excluded = self.excluded(query);
        let out = |d: u32| excluded.get(d as usize).copied().unwrap_or(false);
        // Every id asked about is live (a posting's whose length is not `DEAD`, or listed).
        let kept = |d: u32| keep.is_none_or(|keep| self.meta(d).is_some_and(keep));
        if must.is_empty() {
            let ids: Vec<u32> = self.by_path.iter().copied().filter(|&d| !out(d) && kept(d)).collect();
            let hits = ids
                .iter()
                .skip(offset)
                .take(limit)
                .map(|&d| Hit { path: self.path_of(d).clone(), score: 0.0 })
                .collect();
            return Page { hits, total: ids.len(), relaxed: false };
        }
        let mut acc = Acc::new(self.docs.len());
        for (bit, clause) in must.iter().enumerate() {
            self.score(clause, bit, &mut acc);
        }
        let full = if must.len() == MAX_CLAUSES { u64::MAX } else { (1u64 << must.len()) - 1 };
        let words: usize = must.iter().map(|c| c.words().len()).sum();
        // 1 plus the share of the query's words found in the note's title words (so up to 2×).
        let boost = |d: u32| 1.0 + acc.titles[d as usize] as f32 / words as f32;
        let pick = |relaxed: bool| -> Vec<(f32, u32)> {
            acc.touched
                .iter()
                .copied()
                .filter(|&d| {
                    let m = acc.masks[d as usize];
                    (if relaxed { m != 0 } else { m == full }) && !out(d) && kept(d)
                })
                .map(|d| (acc.scores[d as usize] * boost(d), d))
                .collect()
        };
        let mut scored = pick(false);
        let mut relaxed = false;
        if scored.is_empty() && must.len() > 1 {
            scored = pick(true);
            relaxed = true;
        }
        let total = scored.len();
        let cmp = |a: &(f32, u32), b: &(f32, u32)| {
            b.0.total_cmp(&a.0).then_with(|| self.path_of(a.1).cmp(self.path_of(b.1)))
        };
        let k = offset.saturating_add(limit).min(total);
        if k == 0 {
            return Page { hits: Vec::new(), total, relaxed };
        }
        if k < total {
            scored.select_nth_unstable_by(k - 1, cmp);
            scored.truncate(k);
        }
        scored.sort_by(cmp);
        let hits = scored
            .into_iter()
            .skip(offset)
            .map(|(s, d)| Hit { path: self.path_of(d).clone(), score: f64::from(s) })
            .collect();
        Page { hits, total, relaxed }
    }

    /// The notes that match at least one of `query`'s words or phrases, its filters aside: every
    /// note a search for it may answer with, relaxed or not.
    pub fn matching_any(&self, query: &Query) -> Vec<VaultPath> {
        let mut acc = Acc::new(self.docs.len());
        for (bit, clause) in query.must.iter().take(MAX_CLAUSES).enumerate() {
            self.score(clause, bit, &mut acc);
        }
        acc.touched
            .iter()
            .filter(|&&d| acc.masks[d as usize] != 0)
            .map(|&d| self.path_of(d).clone())
            .collect()
    }

    /// Adds each note's score for `clause` and marks it with `bit`.
    fn score(&self, clause: &Clause, bit: usize, acc: &mut Acc) {
        let avg = self.avg_len();
        match clause {
            Clause::Word(word) => {
                // A word (not a pattern) counts for the title boost where it is a title word.
                let whole = !word.contains('*');
                for term in self.expand(word) {
                    let idf = self.idf(term);
                    for p in self.postings[term as usize].iter() {
                        let len = self.lens[p.doc as usize];
                        if len != DEAD {
                            acc.add(p.doc, bit, idf * Self::tf_norm(p.tf(), len, avg));
                            acc.titles[p.doc as usize] += u32::from(whole && p.in_title());
                        }
                    }
                }
            }
            Clause::Phrase(words) => {
                let Some(ids) = self.phrase_terms(words) else { return };
                let idf: f32 = ids.iter().map(|&t| self.idf(t)).sum();
                for found in self.phrase_docs(&ids) {
                    let doc = found.doc as usize;
                    acc.titles[doc] += found.titles;
                    if found.count > 0 {
                        acc.add(found.doc, bit, idf * Self::tf_norm(found.count, self.lens[doc], avg));
                    }
                }
            }
        }
    }

    pub(super) fn phrase_terms(&self, words: &[String]) -> Option<Vec<u32>> {
        words.iter().map(|w| self.vocab.get(w).filter(|&t| self.df[t as usize] > 0)).collect()
    }

    /// The live notes holding every term of `ids`: how many of the terms are among each
    /// one's title words, and the weighted count of the phrase (0 where the terms do not follow
    /// each other). The postings of every term are walked together (all are sorted by note
    /// id), from the rarest.
    pub(super) fn phrase_docs(&self, ids: &[u32]) -> Vec<PhraseDoc> {
        let rarest = ids.iter().map(|&t| self.postings[t as usize].len()).min().unwrap_or(0);
        let parts = if rarest < PARALLEL_PHRASE { 1 } else { cores().min(4) };
        if parts < 2 {
            return self.phrase_range(ids, 0, u32::MAX);
        }
        // Each core walks the notes of one range of ids; the ranges' answers follow each other.
        let n = self.docs.len() as u64;
        let ranges: Vec<(u32, u32)> = (0..parts as u64)
            .map(|i| ((n * i / parts as u64) as u32, (n * (i + 1) / parts as u64) as u32))
            .collect();
        cores::map(&ranges, 1, |&(from, to)| self.phrase_range(ids, from, to)).into_iter().flatten().collect()
    }

    /// [`Self::phrase_docs`] for the notes of ids `from..to`.
    pub(super) fn phrase_range(&self, ids: &[u32], from: u32, to: u32) -> Vec<PhraseDoc> {
        let lists: Vec<&Postings> = ids.iter().map(|&t| &self.postings[t as usize]).collect();
        let Some(rarest) = (0..ids.len()).min_by_key(|&k| lists[k].len()) else { return Vec::new() };
        let mut cursors: Vec<_> = lists.iter().map(|l| l.cursor()).collect();
        let mut starts: Vec<u32> = Vec::new();
        let mut bytes: Vec<&[u8]> = vec![&[]; ids.len()];
        let mut out = Vec::new();
        'docs: for p in lists[rarest].iter_from(from).take_while(|p| p.doc < to) {
            let len = self.lens[p.doc as usize];
            if len == DEAD {
                continue;
            }
            let mut titles = 0;
            for (k, cursor) in cursors.iter_mut().enumerate() {
                match cursor.seek(p.doc) {
                    Some(q) if q.doc == p.doc => {
                        bytes[k] = q.positions;
                        titles += u32::from(q.in_title());
                    }
                    _ => continue 'docs,
                }
            }
            // Phrase starts from the term with the fewest position bytes in this note, then
            // kept only where every other term follows at its offset.
            let Some(anchor) = (0..ids.len()).min_by_key(|&k| bytes[k].len()) else { continue };
            starts.clear();
            starts.extend(deltas(bytes[anchor]).filter_map(|pos| pos.checked_sub(anchor as u32)));
            for (k, &list) in bytes.iter().enumerate() {
                if k == anchor || starts.is_empty() {
                    continue;
                }
                let mut positions = deltas(list);
                let mut pos = positions.next();
                starts.retain(|&start| {
                    let want = start + k as u32;
                    while pos.is_some_and(|p| p < want) {
                        pos = positions.next();
                    }
                    pos == Some(want)
                });
            }
            let count: u32 = starts.iter().map(|&start| if start < len { 1 } else { TITLE_WEIGHT }).sum();
            out.push(PhraseDoc { doc: p.doc, count, titles });
        }
        out
    }

    /// Note ids `query` rules out, as a flag per id (empty when it rules out none): those
    /// matching a `-word` or `-"phrase"`, carrying a `-tag:`, or missing a `tag:`.
    fn excluded(&self, query: &Query) -> Vec<bool> {
        if query.not.is_empty() && query.tags.is_empty() && query.not_tags.is_empty() {
            return Vec::new();
        }
        let mut out = vec![false; self.docs.len()];
        let mark = |postings: &Postings, out: &mut Vec<bool>| {
            for p in postings.iter() {
                out[p.doc as usize] = true;
            }
        };
        for clause in &query.not {
            match clause {
                Clause::Word(word) => {
                    for term in self.expand(word) {
                        mark(&self.postings[term as usize], &mut out);
                    }
                }
                Clause::Phrase(words) => {
                    let found = self.phrase_terms(words).map(|ids| self.phrase_docs(&ids));
                    for phrase in found.unwrap_or_default().iter().filter(|p| p.count > 0) {
                        out[phrase.doc as usize] = true;
                    }
                }
            }
        }
        for tag in &query.not_tags {
            if let Some(term) = self.vocab.get(&format!("{TAG_MARK}{tag}")) {
                mark(&self.postings[term as usize], &mut out);
            }
        }
        for tag in &query.tags {
            let mut carried = vec![false; self.docs.len()];
            if let Some(term) = self.vocab.get(&format!("{TAG_MARK}{tag}")) {
                mark(&self.postings[term as usize], &mut carried);
            }
            for (o, c) in out.iter_mut().zip(carried) {
                *o |= !c;
            }
        }
        out
    }

    /// The notes most like the note at `path` by their distinctive words (its 25 highest by
    /// tf-idf, searched as one query), with a similarity in 0..=1 relative to the best.
    pub fn similar(&self, path: &VaultPath, limit: usize) -> Vec<(VaultPath, f64)> {
        let Some(id) = self.id_of(path) else { return Vec::new() };
        let Some(doc) = self.doc(id) else { return Vec::new() };
        let n = self.ranked_notes() as u32;
        let mut weights: Vec<(f32, u32)> = deltas(&doc.terms)
            .filter(|&t| {
                self.df[t as usize] > 1
                    && self.df[t as usize] * 2 <= n.max(2)
                    && !self.vocab.term(t).starts_with(TAG_MARK)
            })
            .filter_map(|t| {
                let p = self.postings[t as usize].find(id)?;
                Some((p.tf() as f32 * self.idf(t), t))
            })
            .collect();
        weights
            .sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| self.vocab.term(a.1).cmp(self.vocab.term(b.1))));
        weights.truncate(25);
        let mut acc = Acc::new(self.docs.len());
        let avg = self.avg_len();
        for &(_, term) in &weights {
            let idf = self.idf(term);
            for p in self.postings[term as usize].iter() {
                let len = self.lens[p.doc as usize];
                if len != DEAD && p.doc != id {
                    acc.add(p.doc, 0, idf * Self::tf_norm(p.tf(), len, avg));
                }
            }
        }
        let mut scored: Vec<(f32, u32)> = acc.touched.iter().map(|&d| (acc.scores[d as usize], d)).collect();
        // The best `limit` by score then path (a total order), then only those sorted.
        let order = |a: &(f32, u32), b: &(f32, u32)| {
            b.0.total_cmp(&a.0).then_with(|| self.path_of(a.1).cmp(self.path_of(b.1)))
        };
        if limit > 0 && scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, order);
            scored.truncate(limit);
        }
        scored.sort_by(order);
        let best = scored.first().map_or(1.0, |s| s.0.max(f32::MIN_POSITIVE));
        scored
            .into_iter()
            .take(limit)
            .map(|(s, d)| (self.path_of(d).clone(), f64::from((s / best * 1000.0).round() / 1000.0)))
            .collect()
    }

    /// The notes a case-insensitive literal search for `literal` has to read: every note that
    /// can hold it, by path; `None` when the words of `literal` cannot narrow the search (then
    /// every note must be read). The literal's words must be words of the note at consecutive
    /// positions: whole for the words inside the literal, ending or starting a word of the note
    /// for the first and last (the literal may cut them).
    pub fn literal_candidates(&self, literal: &str) -> Option<Vec<&VaultPath>> {
        // Per word of the literal, the terms it can be (`None`: too many to be worth checking).
        let mut sets: Vec<Option<Vec<u32>>> = Vec::new();
        for t in tokens(literal) {
            let left = t.cjk || t.start > 0;
            let right = t.cjk || t.end < literal.len();
            let word = fold(t.raw);
            if left && right {
                match self.vocab.get(&word) {
                    Some(term) => sets.push(Some(vec![term])),
                    None => return Some(Vec::new()),
                }
                continue;
            }
            if word.is_empty() {
                sets.push(None);
                continue;
            }
            let cut = match (left, right) {
                (true, _) => Cut::Prefix,
                (false, true) => Cut::Suffix,
                (false, false) => Cut::Inside,
            };
            let terms: Vec<u32> = self
                .vocab
                .iter()
                .filter(|(id, t)| self.df[*id as usize] > 0 && !t.starts_with(TAG_MARK))
                .filter(|(_, text)| match cut {
                    Cut::Prefix => text.starts_with(word.as_str()),
                    Cut::Suffix => text.ends_with(word.as_str()),
                    Cut::Inside => text.contains(word.as_str()),
                })
                .map(|(id, _)| id)
                .collect();
            if terms.is_empty() {
                return Some(Vec::new());
            }
            sets.push((terms.len() <= MAX_LITERAL_TERMS).then_some(terms));
        }
        let docs = self.consecutive(&sets)?;
        let kept = self.by_path.iter().filter(|id| docs.binary_search(id).is_ok());
        Some(kept.map(|&id| self.path_of(id)).collect())
    }

    /// The live note ids, sorted, where some term of each set of `sets` stands at consecutive
    /// positions (a `None` set: any word); `None` when no set constrains anything.
    fn consecutive(&self, sets: &[Option<Vec<u32>>]) -> Option<Vec<u32>> {
        let postings = |set: &Vec<u32>| set.iter().map(|&t| self.postings[t as usize].len()).sum::<usize>();
        let (anchor, seed) = sets
            .iter()
            .enumerate()
            .filter_map(|(k, s)| Some((k, s.as_ref()?)))
            .min_by_key(|(_, s)| postings(s))?;
        let mut docs: Vec<u32> = seed
            .iter()
            .flat_map(|&t| self.postings[t as usize].iter().map(|p| p.doc))
            .filter(|&d| self.lens[d as usize] != DEAD)
            .collect();
        docs.sort_unstable();
        docs.dedup();
        if sets.iter().flatten().count() == 1 {
            return Some(docs);
        }
        // Per set, a cursor on each term's postings: the notes are visited in id order.
        let mut cursors: Vec<Vec<_>> = sets
            .iter()
            .map(|set| set.iter().flatten().map(|&t| self.postings[t as usize].cursor()).collect())
            .collect();
        let mut at: Vec<Vec<u32>> = vec![Vec::new(); sets.len()];
        docs.retain(|&doc| {
            for (k, set) in sets.iter().enumerate() {
                at[k].clear();
                for cursor in &mut cursors[k] {
                    if let Some(p) = cursor.seek(doc).filter(|p| p.doc == doc) {
                        at[k].extend(p.positions());
                    }
                }
                if set.is_some() && at[k].is_empty() {
                    return false;
                }
                at[k].sort_unstable();
            }
            at[anchor].iter().any(|&p| {
                p >= anchor as u32
                    && sets.iter().enumerate().all(|(k, set)| {
                        set.is_none() || at[k].binary_search(&(p - anchor as u32 + k as u32)).is_ok()
                    })
            })
        });
        Some(docs)
    }

    /// Checks that the index agrees with itself: document frequencies, postings order and
    /// liveness, each note's terms against the postings, lengths and the path table.
    pub fn verify(&self) -> Integrity {
        let mut problems = Vec::new();
        let mut report = |p: String| {
            if problems.len() < 20 {
                problems.push(p);
            }
        };
        let mut checked = 0;
        for (term, list) in self.postings.iter().enumerate() {
            let live = list.iter().filter(|p| self.lens[p.doc as usize] != DEAD).count();
            checked += live;
            if live != self.df[term] as usize {
                report(format!(
                    "term `{}`: {live} live postings, document frequency {}",
                    self.vocab.term(term as u32),
                    self.df[term]
                ));
            }
            let docs: Vec<u32> = list.iter().map(|p| p.doc).collect();
            if docs.windows(2).any(|w| w[0] >= w[1]) {
                report(format!("term `{}`: postings out of order", self.vocab.term(term as u32)));
            }
        }
        let mut total_len = 0u64;
        let mut pairs = 0usize;
        let mut previous: Option<&VaultPath> = None;
        for &id in &self.by_path {
            let Some(doc) = self.doc(id) else {
                report(format!("note id {id} is listed but dead"));
                continue;
            };
            let path = &doc.path;
            if previous.is_some_and(|p| p >= path) || self.lens[id as usize] != doc.len {
                report(format!("{path}: the path table and the note disagree"));
            }
            previous = Some(path);
            total_len += u64::from(doc.len);
            for term in deltas(&doc.terms) {
                pairs += 1;
                if self.postings[term as usize].find(id).is_none() {
                    report(format!("{path}: term `{}` has no posting", self.vocab.term(term)));
                }
            }
        }
        if total_len != self.total_len {
            report(format!("total length {} but the notes hold {total_len}", self.total_len));
        }
        if pairs != self.live_postings || pairs != checked {
            report(format!(
                "{pairs} (term, note) pairs, {} counted, {checked} live postings",
                self.live_postings
            ));
        }
        let live_docs = self.docs.iter().flatten().count();
        if live_docs != self.by_path.len() {
            report(format!("{live_docs} live notes but {} paths", self.by_path.len()));
        }
        Integrity { notes: self.by_path.len(), postings: checked, problems }
    }
}

#[derive(Debug, Clone, Copy)]
enum Cut {
    Prefix,
    Suffix,
    Inside,
}
