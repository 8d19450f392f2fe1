//! Contradictions and gaps: where sources pull apart, and what none of them answers.
//!
//! The rule, stated so a reader can check it: two annotations from different sources are a
//! *tension* when
//! - their polarities are opposite: positive against negative (by colour meaning, else by
//!   comment prefix), or two positive claims of which exactly one is explicitly negated; and
//! - they are close in topic: at least [`MIN_TENSION_TERMS`] content words in common and a Dice
//!   overlap of their content words of at least [`MIN_CLOSENESS`]. Content words leave out stop
//!   words, markup, links, paths, numbers and colour names (see [`super::themes`]).
//!
//! The threshold was chosen on the labelled pairs in `tests/cases/synthesis/tensions.json`
//! (the unit test below reports precision and recall). At most [`MAX_TENSIONS`] pairs are kept,
//! closest first. An open question is *unanswered* when no other source has a positive, detail
//! or code annotation sharing [`MIN_SHARED_TERMS`] content words with it.

use crate::annotations::{Annotation, PrefixTable};

use super::corpus::{Corpus, Item};
use super::items::Group;

/// Content words two annotations must share to be related (an open question and its answer).
pub(crate) const MIN_SHARED_TERMS: usize = 2;

/// Content words the two sides of a tension must share.
pub(crate) const MIN_TENSION_TERMS: usize = 3;

/// The least Dice overlap of content words for a tension.
pub(crate) const MIN_CLOSENESS: f64 = 0.2;

/// Most tensions a synthesis lists.
pub(crate) const MAX_TENSIONS: usize = 5;

/// Words that negate a claim.
const NEGATIONS: &[&str] = &[
    "cannot", "didnt", "doesnt", "dont", "fail", "failed", "fails", "isnt", "lack", "lacks", "neither",
    "never", "no", "none", "nor", "not", "unlike", "wasnt", "without", "wont",
];

/// A positive and a negative annotation from different sources on the same topic.
#[derive(Debug)]
pub(crate) struct Tension<'c, 'a> {
    /// The positive (or unnegated) side.
    pub positive: &'c Item<'a>,
    /// The negative (or negated) side.
    pub negative: &'c Item<'a>,
    /// The content words they share, as the positive side spells them.
    pub shared: Vec<String>,
    /// Their Dice overlap.
    pub closeness: f64,
}

/// +1 for a positive claim, -1 for a negative one, 0 for neither: the colour group, else the
/// comment prefix's colours in seed 001's table.
pub(crate) fn polarity(group: &Group, ann: &Annotation) -> i8 {
    match group {
        Group::Positive => 1,
        Group::Negative => -1,
        _ => prefix_polarity(ann),
    }
}

fn prefix_polarity(ann: &Annotation) -> i8 {
    let Some(prefix) = ann.comment_prefix.as_deref() else { return 0 };
    let table = PrefixTable::default();
    let Some(entry) = table.entries.iter().find(|e| e.prefix.eq_ignore_ascii_case(prefix.trim())) else {
        return 0;
    };
    match (entry.colors.iter().any(|c| c == "positive"), entry.colors.iter().any(|c| c == "negative")) {
        (true, false) => 1,
        (false, true) => -1,
        _ => 0,
    }
}

/// Whether the annotation's text or comment holds an explicit negation.
pub(crate) fn negated(ann: &Annotation) -> bool {
    let words =
        [ann.text.as_deref(), ann.comment.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ");
    words
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .map(|w| w.to_lowercase().replace(['\'', '’'], ""))
        .any(|w| NEGATIONS.contains(&w.as_str()))
}

/// Which side is positive when `a` and `b` have opposite polarity: `Some(true)` when `a` is.
pub(crate) fn opposed(a: (&Group, &Annotation), b: (&Group, &Annotation)) -> Option<bool> {
    let (pa, pb) = (polarity(a.0, a.1), polarity(b.0, b.1));
    match (pa, pb) {
        (1, -1) => Some(true),
        (-1, 1) => Some(false),
        (1, 1) if negated(a.1) != negated(b.1) => Some(!negated(a.1)),
        _ => None,
    }
}

/// The shared content words (as `a` spells them) and the Dice overlap of two texts' content words.
pub(crate) fn closeness(a: &[(String, String)], b: &[(String, String)]) -> (Vec<String>, f64) {
    let shared: Vec<String> =
        a.iter().filter(|(s, _)| b.iter().any(|(t, _)| t == s)).map(|(_, w)| w.clone()).collect();
    let total = a.len() + b.len();
    let dice = if total == 0 { 0.0 } else { 2.0 * shared.len() as f64 / total as f64 };
    (shared, dice)
}

/// The content words of an annotation's text and comment.
#[cfg(test)]
fn terms_of(ann: &Annotation) -> Vec<(String, String)> {
    let words =
        [ann.text.as_deref(), ann.comment.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ");
    super::themes::salient_terms(&words)
}

/// The tensions between sources, closest first (ties in source then note order), at most
/// [`MAX_TENSIONS`].
pub(crate) fn tensions<'c, 'a>(corpus: &'c Corpus<'a>) -> Vec<Tension<'c, 'a>> {
    let claims: Vec<&Item> =
        corpus.items.iter().filter(|i| i.semantic && polarity(&i.group, i.ann) != 0).collect();
    let mut out = Vec::new();
    for (n, a) in claims.iter().enumerate() {
        for b in claims.iter().skip(n + 1).filter(|b| b.src != a.src) {
            let Some(a_positive) = opposed((&a.group, a.ann), (&b.group, b.ann)) else { continue };
            let (positive, negative) = if a_positive { (*a, *b) } else { (*b, *a) };
            let (shared, score) = closeness(&positive.terms, &negative.terms);
            if shared.len() >= MIN_TENSION_TERMS && score >= MIN_CLOSENESS {
                out.push(Tension { positive, negative, shared, closeness: score });
            }
        }
    }
    out.sort_by(|x, y| y.closeness.total_cmp(&x.closeness));
    out.truncate(MAX_TENSIONS);
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

#[cfg(test)]
mod tests;
