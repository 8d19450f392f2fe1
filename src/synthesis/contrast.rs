//! Contradictions and gaps: where sources pull apart, and what none of them answers.
//!
//! Heuristics, stated so a reader can check them: a *tension* is a positive annotation and a
//! negative one from different sources on the same shared theme, or sharing at least
//! [`MIN_SHARED_TERMS`] salient terms; an open question is *unanswered* when no other source has a
//! positive, detail or code annotation sharing that many terms with it.

use super::corpus::{Corpus, Item};
use super::items::Group;

/// Salient terms two annotations must share to be related.
pub(crate) const MIN_SHARED_TERMS: usize = 2;

/// What relates the two sides of a tension.
#[derive(Debug)]
pub(crate) enum Ground {
    /// A shared theme (its display name).
    Theme(String),
    /// Shared salient terms (as the positive side spells them).
    Terms(Vec<String>),
}

/// Positive and negative annotations from different sources on the same ground.
#[derive(Debug)]
pub(crate) struct Tension<'c, 'a> {
    /// What relates them.
    pub ground: Ground,
    /// The positive side.
    pub positives: Vec<&'c Item<'a>>,
    /// The negative side.
    pub negatives: Vec<&'c Item<'a>>,
}

impl Tension<'_, '_> {
    /// The sources involved, in source order.
    pub(crate) fn sources(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.positives.iter().chain(&self.negatives).map(|i| i.src).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Tensions on shared themes (in theme order), then on shared terms (positive side's order).
pub(crate) fn tensions<'c, 'a>(corpus: &'c Corpus<'a>) -> Vec<Tension<'c, 'a>> {
    let positives = corpus.in_group(&Group::Positive);
    let negatives = corpus.in_group(&Group::Negative);
    let mut out = Vec::new();
    for theme in &corpus.themes {
        let on = |items: &[&'c Item<'a>]| -> Vec<&'c Item<'a>> {
            items.iter().copied().filter(|i| i.themes.contains(&theme.key)).collect()
        };
        let (pos, neg) = (on(&positives), on(&negatives));
        if pos.iter().any(|p| neg.iter().any(|n| n.src != p.src)) {
            out.push(Tension { ground: Ground::Theme(theme.name.clone()), positives: pos, negatives: neg });
        }
    }
    for p in &positives {
        for n in &negatives {
            let same_theme = p.themes.iter().any(|k| n.themes.contains(k));
            let shared = p.shared_terms(n);
            if p.src != n.src && !same_theme && shared.len() >= MIN_SHARED_TERMS {
                let ground = Ground::Terms(shared.iter().map(|s| s.to_string()).collect());
                out.push(Tension { ground, positives: vec![p], negatives: vec![n] });
            }
        }
    }
    out
}

/// Open questions no other source seems to answer, in source then note order.
pub(crate) fn unanswered<'c, 'a>(corpus: &'c Corpus<'a>) -> Vec<&'c Item<'a>> {
    let answers: Vec<&Item> =
        [Group::Positive, Group::Detail, Group::Code].iter().flat_map(|g| corpus.in_group(g)).collect();
    corpus
        .in_group(&Group::Question)
        .into_iter()
        .filter(|q| !answers.iter().any(|a| a.src != q.src && a.shared_terms(q).len() >= MIN_SHARED_TERMS))
        .collect()
}
