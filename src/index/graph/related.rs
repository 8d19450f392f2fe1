//! Related notes: links both ways, shared tags and shared link targets weighted by rarity, plus
//! any text similarity the caller gives; each result says why.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::{Graph, GraphLink};
use crate::vault::VaultPath;

/// A note related to another, with why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Related {
    /// The related note.
    pub path: VaultPath,
    /// Higher is closer: 1 per direct link each way, plus shared tags and shared link targets
    /// weighted by rarity, plus any text similarity given.
    pub score: f64,
    /// Why, in a fixed order: links to, linked from, shared tags, shared links, similar text.
    pub reasons: Vec<Reason>,
}

/// One reason two notes are related.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// The note links to it.
    LinksTo,
    /// It links to the note.
    LinkedFrom,
    /// Both carry these tags.
    SharedTags {
        /// The tags, sorted.
        tags: Vec<String>,
    },
    /// Both link to these notes.
    SharedLinks {
        /// The notes linked by both, sorted.
        notes: Vec<String>,
    },
    /// The caller's text similarity.
    Similar {
        /// The similarity score given.
        score: f64,
    },
}

impl Graph {
    /// The `limit` notes most related to the note at `path` by links and tags, best first
    /// (without a similarity no note is visited for one: an orphan's suggestion in
    /// `validate_vault` costs its links and tags, not the vault's size).
    pub fn related(&self, path: &VaultPath, limit: usize) -> Vec<Related> {
        self.related_scored(path, limit, std::iter::empty()).0
    }

    /// Like [`Graph::related`], adding `similarity(other)` (for example a text-search score; 0 for
    /// none) to each other note's score.
    pub fn related_with(
        &self,
        path: &VaultPath,
        limit: usize,
        similarity: impl Fn(&VaultPath) -> f64,
    ) -> Vec<Related> {
        let scores = self.notes.values().map(|n| (&n.path, similarity(&n.path)));
        self.related_scored(path, limit, scores).0
    }

    /// Like [`Graph::related_with`], with the similarity given as (note, score) pairs (notes not
    /// listed score 0): only the notes listed are looked at, not every note of the vault. Also
    /// returns how many notes are related in all.
    pub fn related_to_similar<'p>(
        &self,
        path: &VaultPath,
        limit: usize,
        similar: impl IntoIterator<Item = (&'p VaultPath, f64)>,
    ) -> (Vec<Related>, usize) {
        self.related_scored(path, limit, similar)
    }

    fn related_scored<'p>(
        &self,
        path: &VaultPath,
        limit: usize,
        similar: impl IntoIterator<Item = (&'p VaultPath, f64)>,
    ) -> (Vec<Related>, usize) {
        let key = path.as_str();
        let Some(note) = self.notes.get(key).filter(|_| limit > 0) else { return (Vec::new(), 0) };
        // Links both ways, shared link targets and similar text: few notes, by path.
        let mut acc: HashMap<&str, Closeness> = HashMap::new();
        let targets: BTreeSet<&str> = note
            .links
            .iter()
            .filter_map(GraphLink::path)
            .filter(|p| *p != key && self.notes.contains_key(*p))
            .collect();
        for &target in &targets {
            acc.entry(target).or_default().links_to = true;
            for (source, _) in self.backlinks.get(target).into_iter().flatten() {
                if **source != *key {
                    acc.entry(source).or_default().shared_links.insert(target);
                }
            }
        }
        for (source, _) in self.backlinks.get(key).into_iter().flatten() {
            acc.entry(source).or_default().linked_from = true;
        }
        for (other, score) in similar {
            if score > 0.0
                && *other != *path
                && let Some((k, _)) = self.notes.get_key_value(other.as_str())
            {
                acc.entry(k).or_default().similar = Some(score);
            }
        }
        // Shared tags: possibly every note, so walked in the tag table (no note's strings
        // touched). Scored without allocating; reasons only for the best `limit` (by score, then
        // path: a total order, so the same as sorting them all).
        let table = self.tag_table();
        let mine: Vec<u32> = note.tags.iter().filter_map(|t| table.id(t)).collect();
        let in_degree = |t: &str| self.in_degree(t);
        let mut scored: Vec<(f64, &str)> = Vec::new();
        if mine.is_empty() {
            scored.extend(acc.iter().map(|(k, c)| (c.score(None, in_degree), *k)));
        } else {
            let none = Closeness::default();
            let itself = table.ordinal(key);
            // The notes related by links or text, by ordinal, to meet them in the walk.
            let mut close: Vec<(usize, &Closeness)> =
                acc.iter().filter_map(|(k, c)| Some((table.ordinal(k)?, c))).collect();
            close.sort_unstable_by_key(|(o, _)| *o);
            let mut close = close.into_iter().peekable();
            for ordinal in (0..table.len()).filter(|o| Some(*o) != itself) {
                let mut shared = table.tags(ordinal).iter().filter(|id| mine.contains(id)).peekable();
                let tag_score = shared
                    .peek()
                    .is_some()
                    .then(|| shared.map(|id| rarity(table.carriers(*id))).sum::<f64>());
                let linked = close.next_if(|(o, _)| *o == ordinal).map(|(_, c)| c);
                if tag_score.is_some() || linked.is_some() {
                    let score = linked.unwrap_or(&none).score(tag_score, in_degree);
                    scored.push((score, table.path(ordinal)));
                }
            }
        }
        let order = |a: &(f64, &str), b: &(f64, &str)| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1));
        let total = scored.len();
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, order);
            scored.truncate(limit);
        }
        scored.sort_by(order);
        let related = scored
            .into_iter()
            .filter_map(|(score, k)| {
                let other = self.notes.get(k)?;
                let close = acc.remove(k).unwrap_or_default();
                let mut shared: Vec<String> =
                    other.tags.iter().filter(|t| note.tags.contains(t)).cloned().collect();
                shared.sort();
                Some(Related { path: other.path.clone(), score, reasons: close.reasons(shared) })
            })
            .collect();
        (related, total)
    }

    fn in_degree(&self, path: &str) -> usize {
        self.backlinks.get(path).map_or(0, Vec::len)
    }
}

/// How two notes are related by links and text, gathered before scoring (shared tags are
/// counted apart, in [`SharedTags`]).
#[derive(Default)]
struct Closeness<'a> {
    links_to: bool,
    linked_from: bool,
    shared_links: BTreeSet<&'a str>,
    similar: Option<f64>,
}

/// 1 / ln(1 + n): a shared tag or link target counts more the fewer notes (n) carry it.
fn rarity(n: usize) -> f64 {
    1.0 / ((1 + n.max(1)) as f64).ln()
}

impl Closeness<'_> {
    /// Scores: 1 per direct link each way; per shared tag or shared link target, 1 / ln(1 + n)
    /// where n is how many notes carry the tag or link to the target (rarer counts more);
    /// `tags` is the shared tags' part, `None` when no tag is shared.
    fn score(&self, tags: Option<f64>, in_degree: impl Fn(&str) -> usize) -> f64 {
        let mut score = 0.0;
        if self.links_to {
            score += 1.0;
        }
        if self.linked_from {
            score += 1.0;
        }
        if let Some(tags) = tags {
            score += tags;
        }
        if !self.shared_links.is_empty() {
            score += self.shared_links.iter().map(|t| rarity(in_degree(t))).sum::<f64>();
        }
        if let Some(s) = self.similar {
            score += s;
        }
        score
    }

    /// Why, in the order the score adds them up; `tags` are the shared tags, sorted.
    fn reasons(self, tags: Vec<String>) -> Vec<Reason> {
        let mut reasons = Vec::new();
        if self.links_to {
            reasons.push(Reason::LinksTo);
        }
        if self.linked_from {
            reasons.push(Reason::LinkedFrom);
        }
        if !tags.is_empty() {
            reasons.push(Reason::SharedTags { tags });
        }
        if !self.shared_links.is_empty() {
            reasons.push(Reason::SharedLinks {
                notes: self.shared_links.iter().map(|t| t.to_string()).collect(),
            });
        }
        if let Some(s) = self.similar {
            reasons.push(Reason::Similar { score: s });
        }
        reasons
    }
}
