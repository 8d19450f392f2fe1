//! Related notes: links both ways, shared tags and shared link targets weighted by rarity, plus
//! any text similarity the caller gives; each result says why.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::{Graph, GraphLink, GraphNote};
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
    /// The `limit` notes most related to the note at `path` by links and tags, best first.
    pub fn related(&self, path: &VaultPath, limit: usize) -> Vec<Related> {
        self.related_with(path, limit, |_| 0.0)
    }

    /// Like [`Graph::related`], adding `similarity(other)` (for example a text-search score; 0 for
    /// none) to each other note's score.
    pub fn related_with(
        &self,
        path: &VaultPath,
        limit: usize,
        similarity: impl Fn(&VaultPath) -> f64,
    ) -> Vec<Related> {
        let key = path.as_str();
        let Some(note) = self.notes.get(key) else { return Vec::new() };
        let mut acc: BTreeMap<&str, Closeness> = BTreeMap::new();
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
        self.add_shared_tags(note, &mut acc);
        for other in self.notes.values().filter(|n| n.path != *path) {
            let score = similarity(&other.path);
            if score > 0.0 {
                acc.entry(other.path.as_str()).or_default().similar = Some(score);
            }
        }
        let mut out: Vec<Related> = acc
            .into_iter()
            .filter_map(|(p, c)| Some(c.into_related(&self.notes.get(p)?.path, |t| self.in_degree(t))))
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
        out.truncate(limit);
        out
    }

    fn add_shared_tags<'a>(&'a self, note: &GraphNote, acc: &mut BTreeMap<&'a str, Closeness<'a>>) {
        if note.tags.is_empty() {
            return;
        }
        let mut carried: HashMap<&str, usize> = HashMap::new();
        for other in self.notes.values() {
            for tag in other.tags.iter().filter(|t| note.tags.contains(t)) {
                *carried.entry(tag).or_default() += 1;
            }
        }
        for (key, other) in &self.notes {
            if other.path == note.path {
                continue;
            }
            for tag in other.tags.iter().filter(|t| note.tags.contains(t)) {
                acc.entry(key)
                    .or_default()
                    .shared_tags
                    .push((tag, carried.get(tag.as_str()).copied().unwrap_or(1)));
            }
        }
    }

    fn in_degree(&self, path: &str) -> usize {
        self.backlinks.get(path).map_or(0, Vec::len)
    }
}

/// How two notes are related, gathered before scoring.
#[derive(Default)]
struct Closeness<'a> {
    links_to: bool,
    linked_from: bool,
    /// (tag, how many notes carry it).
    shared_tags: Vec<(&'a str, usize)>,
    shared_links: BTreeSet<&'a str>,
    similar: Option<f64>,
}

impl Closeness<'_> {
    /// Scores: 1 per direct link each way; per shared tag or shared link target, 1 / ln(1 + n)
    /// where n is how many notes carry the tag or link to the target (rarer counts more).
    fn into_related(self, path: &VaultPath, in_degree: impl Fn(&str) -> usize) -> Related {
        let rarity = |n: usize| 1.0 / ((1 + n.max(1)) as f64).ln();
        let mut score = 0.0;
        let mut reasons = Vec::new();
        if self.links_to {
            score += 1.0;
            reasons.push(Reason::LinksTo);
        }
        if self.linked_from {
            score += 1.0;
            reasons.push(Reason::LinkedFrom);
        }
        if !self.shared_tags.is_empty() {
            score += self.shared_tags.iter().map(|(_, n)| rarity(*n)).sum::<f64>();
            let mut tags: Vec<String> = self.shared_tags.iter().map(|(t, _)| t.to_string()).collect();
            tags.sort();
            reasons.push(Reason::SharedTags { tags });
        }
        if !self.shared_links.is_empty() {
            score += self.shared_links.iter().map(|t| rarity(in_degree(t))).sum::<f64>();
            reasons.push(Reason::SharedLinks {
                notes: self.shared_links.iter().map(|t| t.to_string()).collect(),
            });
        }
        if let Some(s) = self.similar {
            score += s;
            reasons.push(Reason::Similar { score: s });
        }
        Related { path: path.clone(), score, reasons }
    }
}
