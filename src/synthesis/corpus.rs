//! All sources of a synthesis as one list of items, with the themes they share.
//!
//! A theme is a section heading, a `THEME [x]` comment or the user's own label opening a comment
//! (`Retrieval: …`, see [`comment_label`]). Two sources share a theme when their names have the
//! same [`theme_key`]. An annotation belongs to one shared theme: its `THEME [x]` theme, else its
//! comment's label, else the deepest heading above it that is shared.

use std::collections::{BTreeMap, BTreeSet};

use crate::annotations::Annotation;

use super::SourceNote;
use super::items::Group;
use super::markdown::nonempty;
use super::outline::Outline;
use super::palette::Palette;
use super::themes::{comment_label, display_name, is_generic, salient_terms, theme_key};

/// One annotation of one source, with what the synthesis compares.
#[derive(Debug)]
pub(crate) struct Item<'a> {
    /// Index of its source.
    pub src: usize,
    /// Position in the source's annotations.
    pub pos: usize,
    /// The annotation.
    pub ann: &'a Annotation,
    /// The anchor its links use.
    pub anchor: Option<&'a str>,
    /// `false` for a section annotation (a heading, with its highlighted text if any).
    pub semantic: bool,
    /// Its colour group under the rendering's palette.
    pub group: Group,
    /// Position of the section annotation it falls under, if any.
    pub section: Option<usize>,
    /// Theme keys of the headings above it, outermost first.
    heading_keys: Vec<String>,
    /// Theme keys of its `THEME [x]` comment, then of its comment's own label.
    theme_keys: Vec<String>,
    /// Keys of the shared themes it belongs to.
    pub themes: Vec<String>,
    /// Salient terms of its text and comment: (stem, spelling).
    pub terms: Vec<(String, String)>,
}

impl Item<'_> {
    /// Whether the deepest heading key above it (its own, for a section) is `key`.
    pub(crate) fn heading_keys_end_with(&self, key: &str) -> bool {
        self.heading_keys.last().is_some_and(|k| k == key)
    }

    /// How many salient stems it shares with `other`.
    pub(crate) fn shared_terms<'t>(&'t self, other: &Item) -> Vec<&'t str> {
        self.terms
            .iter()
            .filter(|(stem, _)| other.terms.iter().any(|(s, _)| s == stem))
            .map(|(_, word)| word.as_str())
            .collect()
    }
}

/// A theme at least two sources share (or the one the user asked for).
#[derive(Debug)]
pub(crate) struct Theme {
    /// The [`theme_key`].
    pub key: String,
    /// The spelling most sources use (the first seen on a tie).
    pub name: String,
    /// Sources that have it, in source order.
    pub sources: Vec<usize>,
    /// How many items belong to it.
    pub size: usize,
    first_seen: usize,
}

/// The sources, their items in source then note order, and the shared themes, strongest first.
#[derive(Debug)]
pub(crate) struct Corpus<'a> {
    /// The sources as given.
    pub sources: &'a [SourceNote],
    /// Every semantic annotation, and the text of section annotations titled by their comment.
    pub items: Vec<Item<'a>>,
    /// Shared themes: the requested theme first when a source has it, then by number of sources,
    /// number of items, first appearance.
    pub themes: Vec<Theme>,
    /// The colour reading used.
    pub palette: Palette,
}

#[derive(Default)]
struct Seen {
    spellings: Vec<(String, usize)>,
    sources: BTreeSet<usize>,
    first_seen: usize,
}

struct Collector<'a> {
    seen: BTreeMap<String, Seen>,
    items: Vec<Item<'a>>,
    count: usize,
    palette: Palette,
}

impl Collector<'_> {
    /// Notes that source `src` names a theme `name`; returns its key (`None` when empty).
    fn record(&mut self, name: &str, src: usize) -> Option<String> {
        let key = theme_key(name);
        if key.is_empty() {
            return None;
        }
        self.count += 1;
        let first = self.count;
        let seen =
            self.seen.entry(key.clone()).or_insert_with(|| Seen { first_seen: first, ..Seen::default() });
        seen.sources.insert(src);
        let spelling = display_name(name);
        match seen.spellings.iter_mut().find(|(s, _)| *s == spelling) {
            Some((_, n)) => *n += 1,
            None => seen.spellings.push((spelling, 1)),
        }
        Some(key)
    }

    /// Records the theme names `ann` gives itself: its `THEME [x]` tag and the label opening its
    /// comment (no label when the comment has one of seed 001's prefixes: that is a meaning).
    fn tags(&mut self, ann: &Annotation, src: usize) -> Vec<String> {
        let tag = nonempty(ann.theme.as_deref()).and_then(|t| self.record(t, src));
        let label = match ann.comment_prefix {
            Some(_) => None,
            None => ann.comment.as_deref().and_then(comment_label).and_then(|l| self.record(l, src)),
        };
        tag.into_iter().chain(label).collect()
    }
}

impl<'a> Corpus<'a> {
    /// Collects items and themes; `requested` is the theme the user asked for, if any.
    /// Generic section names ([`is_generic`]) are shared only when requested.
    pub(crate) fn new(sources: &'a [SourceNote], requested: Option<&str>, palette: Palette) -> Self {
        let mut c = Collector { seen: BTreeMap::new(), items: Vec::new(), count: 0, palette };
        for (src, source) in sources.iter().enumerate() {
            collect_source(&mut c, src, source);
        }
        let requested = requested.map(theme_key).filter(|k| c.seen.contains_key(k));
        let shared: BTreeSet<String> = c
            .seen
            .iter()
            .filter(|(key, seen)| {
                requested.as_ref() == Some(*key) || (seen.sources.len() >= 2 && !is_generic(key))
            })
            .map(|(key, _)| key.clone())
            .collect();
        for item in &mut c.items {
            item.themes = memberships(item, &shared);
        }
        let mut themes: Vec<Theme> = shared.iter().map(|key| theme(key, &c.seen[key], &c.items)).collect();
        themes.sort_by_key(|t| {
            (requested.as_ref() != Some(&t.key), std::cmp::Reverse((t.sources.len(), t.size)), t.first_seen)
        });
        Corpus { sources, items: c.items, themes, palette: c.palette }
    }

    /// The items of the semantic colour `group`, in source then note order.
    pub(crate) fn in_group(&self, group: &Group) -> Vec<&Item<'a>> {
        self.items.iter().filter(|i| i.semantic && i.group == *group).collect()
    }

    /// The items of source `src` that belong to no shared theme, in note order.
    pub(crate) fn unthemed(&self, src: usize) -> Vec<&Item<'a>> {
        self.items.iter().filter(|i| i.src == src && i.themes.is_empty()).collect()
    }
}

fn collect_source<'a>(c: &mut Collector<'a>, src: usize, source: &'a SourceNote) {
    let outline = Outline::new(source, &c.palette);
    let mut heading_keys: Vec<Option<String>> = Vec::new();
    for h in &outline.headings {
        let key = c.record(&h.name, src);
        heading_keys.push(key);
        let theme_keys = c.tags(h.ann, src);
        let keys = h.path.iter().filter_map(|&i| heading_keys[i].clone()).collect();
        let parent = h.path.len().checked_sub(2).map(|i| outline.headings[h.path[i]].pos);
        let place = Where { src, pos: h.pos, anchor: h.anchor, section: parent };
        let group = c.palette.group(h.ann);
        c.items.push(item(place, h.ann, (false, group), keys, theme_keys));
    }
    for p in &outline.placed {
        let path = p.section.map(|s| outline.headings[s].path.clone()).unwrap_or_default();
        let keys = path.iter().filter_map(|&i| heading_keys[i].clone()).collect();
        let theme_keys = c.tags(p.ann, src);
        let section = p.section.map(|s| outline.headings[s].pos);
        let place = Where { src, pos: p.pos, anchor: p.anchor, section };
        let group = c.palette.group(p.ann);
        c.items.push(item(place, p.ann, (true, group), keys, theme_keys));
    }
    let start = c.items.iter().position(|i| i.src == src).unwrap_or(c.items.len());
    c.items[start..].sort_by_key(|i| i.pos);
}

/// Where an item sits: its source, position, anchor and enclosing section's position.
struct Where<'a> {
    src: usize,
    pos: usize,
    anchor: Option<&'a str>,
    section: Option<usize>,
}

fn item<'a>(
    place: Where<'a>,
    ann: &'a Annotation,
    (semantic, group): (bool, Group),
    heading_keys: Vec<String>,
    theme_keys: Vec<String>,
) -> Item<'a> {
    let words =
        [ann.text.as_deref(), ann.comment.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ");
    let terms = salient_terms(&words);
    let Where { src, pos, anchor, section } = place;
    Item {
        src,
        pos,
        ann,
        anchor,
        semantic,
        group,
        section,
        heading_keys,
        theme_keys,
        themes: Vec::new(),
        terms,
    }
}

/// Its `THEME [x]` theme, its comment's label and the deepest shared heading above it, when shared.
fn memberships(item: &Item, shared: &BTreeSet<String>) -> Vec<String> {
    let mut out: Vec<String> = item.theme_keys.iter().filter(|k| shared.contains(*k)).cloned().collect();
    if let Some(key) = item.heading_keys.iter().rev().find(|k| shared.contains(*k))
        && !out.contains(key)
    {
        out.push(key.clone());
    }
    // One place per annotation: its `THEME [x]` theme wins over its label, which wins over its
    // heading.
    out.truncate(1);
    out
}

fn theme(key: &str, seen: &Seen, items: &[Item]) -> Theme {
    let best = seen.spellings.iter().rev().max_by_key(|(_, n)| *n).map(|(s, _)| s.clone());
    Theme {
        key: key.to_string(),
        name: best.unwrap_or_else(|| key.to_string()),
        sources: seen.sources.iter().copied().collect(),
        size: items.iter().filter(|i| i.themes.iter().any(|k| k == key)).count(),
        first_seen: seen.first_seen,
    }
}
