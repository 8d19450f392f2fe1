//! Resolving the graph's links and keeping the backlinks in step, after every change.
//!
//! A change that adds or removes a file, or changes a note's aliases, can only change where links
//! that could name it lead: links whose target's last part is its name (`Note`, `Folder/Note`,
//! `../Folder/Note.md`) or whose target is one of its aliases. Those are resolved again, with the
//! resolver updated in place, and nothing else; when the vault has files whose path keys collide
//! (`A.md` and `a.md`, or `x` and `x.md`, where the order files were added in decides), every
//! link is resolved again with a new resolver.

use foldhash::HashMap;
use std::borrow::Cow;
use std::sync::Arc;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

use super::{Graph, GraphLink, GraphNote};
use crate::note::{LinkResolver, Resolution};

/// Where links of the graph point, per target path: (linking note, index of the link).
pub(super) type Backlinks = HashMap<Arc<str>, Vec<(Arc<str>, usize)>>;

/// Names that appeared or disappeared (file names without `.md`, aliases), each as [`name_key`]
/// makes it, with its [`digest`].
#[derive(Debug, Default)]
pub(super) struct Names {
    keys: foldhash::HashSet<String>,
    digests: foldhash::HashSet<u16>,
}

impl Names {
    /// The name of the file at `path`, as links name it.
    pub(super) fn file(&mut self, path: &str) {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.add(strip_md(name));
    }

    /// Aliases of a note.
    pub(super) fn aliases(&mut self, aliases: &[String]) {
        for alias in aliases {
            self.add(alias.trim());
        }
    }

    fn add(&mut self, name: &str) {
        self.digests.insert(digest(name));
        self.keys.insert(name_key(name));
    }

    pub(super) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether some link of a note whose links have the digests `digests` may name one of
    /// these (if none does, none of its links needs a look).
    fn may_be_named_in(&self, digests: &[u16]) -> bool {
        // Whichever side is smaller is walked (one file changed, or a note of many aliases).
        digests.first() == Some(&ODD)
            || if self.digests.len() < digests.len() {
                self.digests.iter().any(|d| digests.binary_search(d).is_ok())
            } else {
                digests.iter().any(|d| self.digests.contains(d))
            }
    }

    /// Whether a link with `target` (as written) may lead to a file or alias named here: its
    /// last part (without `.md`) or the whole of it is one of the names.
    fn may_name(&self, target: &str) -> bool {
        named(target, |named| match named {
            Named::Nothing => false,
            Named::Walked => true,
            Named::Name { last, whole } => {
                self.keys.contains(&name_key(last)) || self.keys.contains(&name_key(whole))
            }
        })
    }
}

/// What a link target names, for [`Names`].
enum Named<'a> {
    /// Its own note (an empty target).
    Nothing,
    /// A path walked part by part (`Folder/Note/`, `a/../Note`): rare, so always checked.
    Walked,
    /// A name: the last part of the target without `.md`, or the whole target (an alias).
    Name { last: &'a str, whole: &'a str },
}

/// Calls `f` with what `target` (as written) names, as the resolver reads it (NFC, trimmed).
fn named<T>(target: &str, f: impl FnOnce(Named<'_>) -> T) -> T {
    let nfc = if target.is_ascii() || is_nfc_quick(target.chars()) == IsNormalized::Yes {
        Cow::Borrowed(target)
    } else {
        Cow::Owned(target.nfc().collect::<String>())
    };
    let mut whole = nfc.trim();
    while let Some(rest) = whole.strip_prefix("./") {
        whole = rest;
    }
    if whole.is_empty() {
        return f(Named::Nothing);
    }
    match whole.rsplit_once('/') {
        Some(_) if whole.split('/').any(|p| matches!(p, "" | "." | "..")) => f(Named::Walked),
        Some((_, last)) => f(Named::Name { last: strip_md(last), whole }),
        None => f(Named::Name { last: strip_md(whole), whole }),
    }
}

/// The digest that stands for "a link that must always be checked".
const ODD: u16 = 0;

/// 16 bits of a hash of `name_key(s)`, never [`ODD`].
fn digest(s: &str) -> u16 {
    let h =
        key_chars(s).fold(0u64, |h, c| (h.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x517c_c1b7_2722_0a95));
    ((h >> 48) as u16) | 1
}

/// The digests of what `links` may name (see [`Names`]), sorted, without repeats: a note whose
/// digests miss every name that changed keeps all its links as they are.
pub(super) fn link_digests(links: &[GraphLink]) -> Box<[u16]> {
    let mut out = Vec::new();
    for link in links {
        named(&link.target, |named| match named {
            Named::Nothing => {}
            Named::Walked => out.push(ODD),
            Named::Name { last, whole } => out.extend([digest(last), digest(whole)]),
        });
    }
    out.sort_unstable();
    out.dedup();
    out.into_boxed_slice()
}

/// `s` lowercased character by character, with the final sigma as `σ`: equal for any two
/// strings whose lowercase forms are equal, so a comparison through it may only err towards a
/// match.
fn name_key(s: &str) -> String {
    key_chars(s).collect()
}

fn key_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().flat_map(char::to_lowercase).map(|c| if c == 'ς' { 'σ' } else { c })
}

fn strip_md(path: &str) -> &str {
    // Bytes, not characters: the name may end in a character of several bytes.
    if path.len() > 3 && path.as_bytes()[path.len() - 3..].eq_ignore_ascii_case(b".md") {
        &path[..path.len() - 3]
    } else {
        path
    }
}

/// A link's target as the resolver takes it (NFC).
fn nfc(target: &str) -> Cow<'_, str> {
    if target.is_ascii() { Cow::Borrowed(target) } else { Cow::Owned(target.nfc().collect()) }
}

impl Graph {
    /// Rebuilds the resolver and resolves every link again.
    pub(super) fn relink_all(&mut self) {
        let paths = self.notes.keys().chain(self.attachments.keys()).map(|p| p.to_string());
        let mut resolver = LinkResolver::new(paths);
        for (path, note) in &self.notes {
            resolver.add_aliases(path, note.aliases.iter().map(String::as_str));
        }
        self.resolver = resolver;
        // Every note's links resolved on every core (the resolver and the notes are only read).
        let notes: Vec<(&Arc<str>, &GraphNote)> = self.notes.iter().collect();
        let resolved = crate::cores::map(&notes, 2048, |(path, note)| self.resolve_links(path, note));
        for (note, links) in self.notes.values_mut().zip(resolved) {
            for (link, (resolution, anchor)) in note.links.iter_mut().zip(links) {
                link.resolution = resolution;
                link.anchor_found = anchor;
            }
        }
        self.index_backlinks();
    }

    /// Resolves again, after the resolver took a change of `names`, the links that may name one
    /// of them, in every note but those of `skip` (resolved again whole by the caller).
    pub(super) fn relink_names(&mut self, names: &Names, skip: &[Arc<str>]) {
        if names.is_empty() {
            return;
        }
        let mut work: Vec<(Arc<str>, usize, Resolution, Option<bool>)> = Vec::new();
        for (source, note) in &self.notes {
            if !names.may_be_named_in(&note.link_digests) || skip.contains(source) {
                continue;
            }
            for (i, link) in note.links.iter().enumerate() {
                if names.may_name(&link.target) {
                    let (resolution, anchor) = self.resolve_link(source, note, link, &nfc(&link.target));
                    if resolution != link.resolution || anchor != link.anchor_found {
                        work.push((Arc::clone(source), i, resolution, anchor));
                    }
                }
            }
        }
        for (source, i, resolution, anchor) in work {
            let Some(link) = self.notes.get_mut(&*source).and_then(|n| n.links.get_mut(i)) else { continue };
            let old = link.path().map(str::to_string);
            link.resolution = resolution;
            link.anchor_found = anchor;
            let new = link.path().map(str::to_string);
            if old != new {
                if let Some(old) = old.filter(|t| **t != *source) {
                    self.unlink(&old, &source, i);
                }
                if let Some(new) = new.filter(|t| **t != *source) {
                    self.link(&new, &source, i);
                }
            }
        }
    }

    /// Resolves the links of the note at `key` again, records the backlinks they give (its
    /// previous links' must be gone already) and checks the anchors of links into it.
    pub(super) fn relink_one(&mut self, key: &Arc<str>) {
        let Some(note) = self.notes.get(&**key) else { return };
        let resolved = self.resolve_links(key, note);
        let Some(note) = self.notes.get_mut(&**key) else { return };
        for (link, (resolution, anchor)) in note.links.iter_mut().zip(resolved) {
            link.resolution = resolution;
            link.anchor_found = anchor;
        }
        let targets: Vec<(String, usize)> = note
            .links
            .iter()
            .enumerate()
            .filter_map(|(i, link)| Some((link.path().filter(|t| **t != **key)?.to_string(), i)))
            .collect();
        for (target, i) in targets {
            self.link(&target, key, i);
        }
        let Some(target) = self.notes.get(&**key) else { return };
        let incoming = self.backlinks.get(&**key).map_or(&[][..], Vec::as_slice);
        let checked: Vec<Option<bool>> = incoming
            .iter()
            .map(|(source, i)| {
                let link = self.notes.get(&**source)?.links.get(*i)?;
                link.subpath.as_deref().map(|s| target.has_anchor(s))
            })
            .collect();
        let incoming = incoming.to_vec();
        for ((source, i), anchor) in incoming.into_iter().zip(checked) {
            if let Some(link) = self.notes.get_mut(&*source).and_then(|n| n.links.get_mut(i)) {
                link.anchor_found = anchor;
            }
        }
    }

    /// Drops the backlinks the links of `note` (at `key`) gave.
    pub(super) fn unlink_note(&mut self, key: &str, note: &GraphNote) {
        for (i, link) in note.links.iter().enumerate() {
            if let Some(target) = link.path().filter(|t| *t != key) {
                self.unlink(target, key, i);
            }
        }
    }

    /// Records that link `i` of `source` leads to `target`, in order.
    fn link(&mut self, target: &str, source: &Arc<str>, i: usize) {
        let sources = match self.backlinks.get_mut(target) {
            Some(sources) => sources,
            None => self.backlinks.entry(self.shared_path(target)).or_default(),
        };
        let at = sources.partition_point(|(s, j)| (&**s, *j) < (&**source, i));
        sources.insert(at, (Arc::clone(source), i));
    }

    /// Forgets that link `i` of `source` leads to `target`.
    fn unlink(&mut self, target: &str, source: &str, i: usize) {
        if let Some(sources) = self.backlinks.get_mut(target) {
            sources.retain(|(s, j)| !(**s == *source && *j == i));
            if sources.is_empty() {
                self.backlinks.remove(target);
            }
        }
    }

    /// The graph's own copy of `path` (a note's or an attachment's key), shared.
    fn shared_path(&self, path: &str) -> Arc<str> {
        let key = self.notes.get_key_value(path).map(|(k, _)| k);
        let key = key.or_else(|| self.attachments.get_key_value(path).map(|(k, _)| k));
        key.map_or_else(|| Arc::from(path), Arc::clone)
    }

    pub(super) fn resolve_links(&self, from: &str, note: &GraphNote) -> Vec<(Resolution, Option<bool>)> {
        note.links.iter().map(|link| self.resolve_link(from, note, link, &nfc(&link.target))).collect()
    }

    /// Where `link` of `note` (at `from`; its target `target`, NFC) leads, and whether its anchor
    /// exists there.
    fn resolve_link(
        &self,
        from: &str,
        note: &GraphNote,
        link: &GraphLink,
        target: &str,
    ) -> (Resolution, Option<bool>) {
        let resolution = self.resolver.resolve(target, Some(from));
        let anchor = link.subpath.as_deref().and_then(|sub| {
            let path = match &resolution {
                Resolution::Resolved(p) => p,
                Resolution::Ambiguous(paths) => paths.first()?,
                Resolution::Missing => return None,
            };
            let target = if path == from { note } else { self.notes.get(path.as_str())? };
            Some(target.has_anchor(sub))
        });
        (resolution, anchor)
    }

    fn index_backlinks(&mut self) {
        let mut index = Backlinks::default();
        for (source, note) in &self.notes {
            for (i, link) in note.links.iter().enumerate() {
                if let Some(target) = link.path().filter(|t| *t != &**source) {
                    match index.get_mut(target) {
                        Some(sources) => sources.push((Arc::clone(source), i)),
                        None => {
                            index.insert(self.shared_path(target), vec![(Arc::clone(source), i)]);
                        }
                    }
                }
            }
        }
        self.backlinks = index;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_every_spelling_a_link_resolves() {
        let mut names = Names::default();
        names.file("Folder/Sub/My Note.md");
        names.file("img/Pic.PNG");
        names.aliases(&[" The ΣΟΦΟΣ ".to_string()]);
        for target in [
            "My Note",
            "my note.MD",
            "Sub/My Note",
            "../Folder/Sub/MY NOTE.md",
            "./My Note",
            "pic.png",
            "img/pic.png",
            "the σοφος",
            "THE ΣΟΦΟΣ",
            "Folder/Sub/",
            "/Folder/Sub/My Note",
        ] {
            assert!(names.may_name(target), "{target}");
        }
        for target in ["Other", "My Note 2", "pic", "", "Sub/Other.md", "My Note/x"] {
            assert!(!names.may_name(target), "{target}");
        }
    }
}
