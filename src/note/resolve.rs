//! Link resolution as Obsidian does it: a link names a file by path (from the vault root or the
//! linking note's folder, `.md` optional), else by name anywhere in the vault, else by an alias;
//! names compare case-insensitively. And the reverse: the link text to write for a file.

use foldhash::HashMap;
use std::borrow::Cow;

use serde::Serialize;

mod moved;
pub use moved::{Moved, Resolve};

/// How links are written (Obsidian's "New link format" setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LinkStyle {
    /// The shortest text that names the file unambiguously (Obsidian's default).
    #[default]
    Shortest,
    /// A path relative to the linking note's folder.
    Relative,
    /// The path from the vault root.
    Absolute,
}

/// What a link resolves to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "paths", rename_all = "lowercase")]
pub enum Resolution {
    /// One file.
    Resolved(String),
    /// Several files match by name; Obsidian picks the first of these (the one in the linking
    /// note's folder, else the shortest path), tools should say so.
    Ambiguous(Vec<String>),
    /// Nothing matches.
    Missing,
}

/// The vault's files, indexed for resolving links.
#[derive(Debug, Clone, Default)]
pub struct LinkResolver {
    paths: Vec<String>,
    by_path: HashMap<String, usize>,
    by_name: HashMap<String, Vec<usize>>,
    by_alias: HashMap<String, Vec<usize>>,
    /// Whether two files share a path key (case-insensitively, or `x` and `x.md`): then which
    /// one a path names depends on the order they were added in.
    collisions: bool,
}

fn key(s: &str) -> String {
    s.to_lowercase()
}

fn strip_md(path: &str) -> &str {
    // Bytes, not characters: the name may end in a character of several bytes.
    if path.len() > 3 && path.as_bytes()[path.len() - 3..].eq_ignore_ascii_case(b".md") {
        &path[..path.len() - 3]
    } else {
        path
    }
}

fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(f, _)| f)
}

impl LinkResolver {
    /// Indexes vault-relative `paths` (every file, notes and attachments).
    pub fn new<I, S>(paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut resolver = Self::default();
        for path in paths {
            resolver.add(path.into());
        }
        resolver
    }

    fn add(&mut self, path: String) {
        let i = self.paths.len();
        self.collisions |= self.by_path.insert(key(&path), i).is_some();
        if path.to_lowercase().ends_with(".md") {
            let stripped = key(strip_md(&path));
            self.collisions |= self.by_path.get(&stripped).is_some_and(|&j| j != i);
            self.by_path.entry(stripped).or_insert(i);
        }
        // Notes are named without `.md`, attachments with their extension.
        self.by_name.entry(key(strip_md(name_of(&path)))).or_default().push(i);
        self.paths.push(path);
    }

    /// Registers the frontmatter aliases of the note at `path`.
    pub fn add_aliases<'a>(&mut self, path: &str, aliases: impl IntoIterator<Item = &'a str>) {
        if let Some(&i) = self.by_path.get(&key(path)) {
            for alias in aliases {
                self.by_alias.entry(key(alias.trim())).or_default().push(i);
            }
        }
    }

    /// Every indexed path.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// Whether two files share a path key (`A.md` and `a.md`, or `x` and `x.md`): which one
    /// such a path names depends on the order the files were added in, so
    /// [`LinkResolver::insert`] and [`LinkResolver::remove`] refuse to change such a resolver.
    pub fn has_collisions(&self) -> bool {
        self.collisions
    }

    /// The path keys of `path` (the second when it is a note).
    fn keys(path: &str) -> (String, Option<String>) {
        let stripped = path.to_lowercase().ends_with(".md").then(|| key(strip_md(path)));
        (key(path), stripped.filter(|s| *s != key(path)))
    }

    /// Adds the file `path` with the `aliases` of its note, as if it had been there when the
    /// resolver was made; returns `false` (and changes nothing) when that cannot be done
    /// without knowing the order of every file (a path key it would share, or collisions
    /// already there): then make a new resolver.
    pub fn insert<'a>(&mut self, path: &str, aliases: impl IntoIterator<Item = &'a str>) -> bool {
        let (full, stripped) = Self::keys(path);
        if self.collisions
            || self.by_path.contains_key(&full)
            || stripped.as_ref().is_some_and(|k| self.by_path.contains_key(k))
        {
            return false;
        }
        self.add(path.to_string());
        self.add_aliases(path, aliases);
        true
    }

    /// Drops the file `path` with the `aliases` its note had; returns `false` (and changes
    /// nothing) when it is not there or collisions make the result depend on the order files
    /// were added in: then make a new resolver.
    pub fn remove<'a>(&mut self, path: &str, aliases: impl IntoIterator<Item = &'a str>) -> bool {
        let (full, stripped) = Self::keys(path);
        let Some(&i) = self.by_path.get(&full) else { return false };
        if self.collisions || self.paths[i] != path {
            return false;
        }
        self.remove_aliases(path, aliases);
        self.by_path.remove(&full);
        if let Some(k) = &stripped {
            self.by_path.remove(k);
        }
        let name = key(strip_md(name_of(path)));
        Self::drop_index(&mut self.by_name, &name, i);
        // The last file takes the place of the one dropped.
        let last = self.paths.len() - 1;
        self.paths.swap_remove(i);
        if i != last {
            let moved = self.paths[i].clone();
            let (full, stripped) = Self::keys(&moved);
            for k in std::iter::once(full).chain(stripped) {
                if let Some(at) = self.by_path.get_mut(&k) {
                    *at = i;
                }
            }
            let renumber =
                |list: &mut Vec<usize>| list.iter_mut().filter(|j| **j == last).for_each(|j| *j = i);
            if let Some(list) = self.by_name.get_mut(&key(strip_md(name_of(&moved)))) {
                renumber(list);
            }
            self.by_alias.values_mut().for_each(renumber);
        }
        true
    }

    /// Forgets the `aliases` of the note at `path` (as registered by
    /// [`LinkResolver::add_aliases`]).
    pub fn remove_aliases<'a>(&mut self, path: &str, aliases: impl IntoIterator<Item = &'a str>) {
        if let Some(&i) = self.by_path.get(&key(path)) {
            for alias in aliases {
                Self::drop_index(&mut self.by_alias, &key(alias.trim()), i);
            }
        }
    }

    /// Drops one `i` from the list of `name` (the list too when it empties).
    fn drop_index(map: &mut HashMap<String, Vec<usize>>, name: &str, i: usize) {
        if let Some(list) = map.get_mut(name) {
            if let Some(at) = list.iter().position(|&j| j == i) {
                list.remove(at);
            }
            if list.is_empty() {
                map.remove(name);
            }
        }
    }

    /// Resolves a link target (the part before `#`) written in the note at `from`.
    pub fn resolve(&self, target: &str, from: Option<&str>) -> Resolution {
        resolve_in(self, target, from)
    }

    /// The file Obsidian opens for the link (for an ambiguous name, the first candidate).
    pub fn first(&self, target: &str, from: Option<&str>) -> Option<String> {
        first(self.resolve(target, from))
    }

    /// The text to write inside `[[…]]` to reach `target_path` from the note at `from`.
    pub fn link_text(&self, target_path: &str, from: Option<&str>, style: LinkStyle) -> String {
        link_text_in(self, target_path, from, style)
    }
}

/// What resolving links needs to look up: a [`LinkResolver`]'s files, or them with one file
/// moved ([`Moved`]). Files are numbered; a number may stand for no file (one deleted).
trait Files {
    /// How many file numbers there are.
    fn count(&self) -> usize;
    /// The path of file `i`, if there is one.
    fn path(&self, i: usize) -> Option<&str>;
    /// The file with the path key `key`.
    fn by_path(&self, key: &str) -> Option<usize>;
    /// The files named `key` (`None` when none is).
    fn by_name(&self, key: &str) -> Option<Cow<'_, [usize]>>;
    /// The notes with the alias `key` (`None` when none has it).
    fn by_alias(&self, key: &str) -> Option<Cow<'_, [usize]>>;
}

impl Files for LinkResolver {
    fn count(&self) -> usize {
        self.paths.len()
    }

    fn path(&self, i: usize) -> Option<&str> {
        self.paths.get(i).map(String::as_str)
    }

    fn by_path(&self, key: &str) -> Option<usize> {
        self.by_path.get(key).copied()
    }

    fn by_name(&self, key: &str) -> Option<Cow<'_, [usize]>> {
        self.by_name.get(key).map(|v| Cow::Borrowed(v.as_slice()))
    }

    fn by_alias(&self, key: &str) -> Option<Cow<'_, [usize]>> {
        self.by_alias.get(key).map(|v| Cow::Borrowed(v.as_slice()))
    }
}

/// The file a resolution opens (for an ambiguous name, the first candidate).
fn first(resolution: Resolution) -> Option<String> {
    match resolution {
        Resolution::Resolved(p) => Some(p),
        Resolution::Ambiguous(mut many) => Some(many.swap_remove(0)),
        Resolution::Missing => None,
    }
}

/// [`LinkResolver::resolve`] over `files`.
fn resolve_in(files: &impl Files, target: &str, from: Option<&str>) -> Resolution {
    let target = target.trim().trim_start_matches("./");
    if target.is_empty() {
        return from.map_or(Resolution::Missing, |f| Resolution::Resolved(f.to_string()));
    }
    let from_folder = from.map(folder_of).unwrap_or("");
    let found = |i: usize| files.path(i).map(str::to_string);
    if let Some(found) = by_relative_path(files, target, from_folder) {
        return Resolution::Resolved(found);
    }
    if let Some(path) = files.by_path(&key(target.trim_start_matches('/'))).and_then(found) {
        return Resolution::Resolved(path);
    }
    let mut candidates: Vec<usize> = if target.contains('/') {
        // `Folder/Note` also matches `Deep/Folder/Note.md`.
        let suffix = format!("/{}", key(strip_md(target)));
        (0..files.count())
            .filter(|&i| files.path(i).is_some_and(|p| key(strip_md(p)).ends_with(&suffix)))
            .collect()
    } else {
        let name = key(strip_md(target));
        files.by_name(&name).or_else(|| files.by_alias(&key(target))).map(Cow::into_owned).unwrap_or_default()
    };
    candidates.retain(|&i| files.path(i).is_some());
    candidates.sort_by_key(|&i| {
        let p = files.path(i).unwrap_or_default();
        (folder_of(p) != from_folder, p.matches('/').count(), p.len(), p.to_string())
    });
    candidates.dedup();
    let mut paths = candidates.into_iter().filter_map(found);
    match (paths.next(), paths.next()) {
        (None, _) => Resolution::Missing,
        (Some(one), None) => Resolution::Resolved(one),
        (Some(one), Some(two)) => Resolution::Ambiguous([one, two].into_iter().chain(paths).collect()),
    }
}

fn by_relative_path(files: &impl Files, target: &str, from_folder: &str) -> Option<String> {
    if !(target.starts_with("../") || (target.contains('/') && !from_folder.is_empty())) {
        return None;
    }
    let mut parts: Vec<&str> =
        if from_folder.is_empty() { Vec::new() } else { from_folder.split('/').collect() };
    for part in target.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    files.by_path(&key(&joined)).and_then(|i| files.path(i)).map(str::to_string)
}

/// [`LinkResolver::link_text`] over `files`.
fn link_text_in(files: &impl Files, target_path: &str, from: Option<&str>, style: LinkStyle) -> String {
    let shown = if target_path.to_lowercase().ends_with(".md") { strip_md(target_path) } else { target_path };
    match style {
        LinkStyle::Absolute => shown.to_string(),
        LinkStyle::Relative => relative(shown, from.map(folder_of).unwrap_or("")),
        LinkStyle::Shortest => {
            let name = strip_md(name_of(target_path));
            let lookup = if target_path.to_lowercase().ends_with(".md") {
                name.to_string()
            } else {
                name_of(target_path).to_string()
            };
            let unique = files.by_name(&key(&lookup)).is_none_or(|v| v.len() <= 1);
            if unique { lookup } else { shown.to_string() }
        }
    }
}

fn relative(path: &str, from_folder: &str) -> String {
    let from: Vec<&str> = if from_folder.is_empty() { Vec::new() } else { from_folder.split('/').collect() };
    let to: Vec<&str> = path.split('/').collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out: Vec<&str> = vec![".."; from.len() - common];
    out.extend(&to[common..]);
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> LinkResolver {
        let mut r = LinkResolver::new([
            "A/Notes.md",
            "B/Notes.md",
            "References/@smith2023.md",
            "Top.md",
            "img/pic.png",
            "Deep/Folder/Page.md",
        ]);
        r.add_aliases("Top.md", ["The Top"]);
        r
    }

    #[test]
    fn resolves_like_obsidian() {
        let r = vault();
        assert_eq!(r.resolve("@SMITH2023", None), Resolution::Resolved("References/@smith2023.md".into()));
        assert_eq!(
            r.resolve("References/@smith2023.md", None),
            Resolution::Resolved("References/@smith2023.md".into())
        );
        assert_eq!(r.resolve("pic.png", None), Resolution::Resolved("img/pic.png".into()));
        assert_eq!(r.resolve("the top", None), Resolution::Resolved("Top.md".into()));
        assert_eq!(r.resolve("Folder/Page", None), Resolution::Resolved("Deep/Folder/Page.md".into()));
        assert_eq!(r.resolve("../Top", Some("A/Notes.md")), Resolution::Resolved("Top.md".into()));
        assert_eq!(r.resolve("Nothing", None), Resolution::Missing);
        // A name ending in a character of several bytes.
        assert_eq!(r.resolve("ΣΟΦΟΣ", None), Resolution::Missing);
        assert_eq!(
            r.resolve("Notes", Some("B/x.md")),
            Resolution::Ambiguous(vec!["B/Notes.md".into(), "A/Notes.md".into()])
        );
        assert_eq!(r.first("Notes", Some("A/y.md")).as_deref(), Some("A/Notes.md"));
    }

    #[test]
    fn writes_the_shortest_unambiguous_link() {
        let r = vault();
        assert_eq!(r.link_text("References/@smith2023.md", None, LinkStyle::Shortest), "@smith2023");
        assert_eq!(r.link_text("A/Notes.md", None, LinkStyle::Shortest), "A/Notes");
        assert_eq!(r.link_text("img/pic.png", None, LinkStyle::Shortest), "pic.png");
        assert_eq!(r.link_text("Top.md", Some("A/Notes.md"), LinkStyle::Relative), "../Top");
        assert_eq!(r.link_text("A/Notes.md", Some("x.md"), LinkStyle::Absolute), "A/Notes");
    }
}
