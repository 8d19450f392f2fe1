//! A [`LinkResolver`] seen as it would be with one file moved or deleted, without copying it:
//! what link rewriting for a move (and the links a delete breaks) resolve against.

use std::borrow::Cow;

use super::{
    Files, LinkResolver, LinkStyle, Resolution, first, key, link_text_in, name_of, resolve_in, strip_md,
};

/// What link rewriting resolves links with: a [`LinkResolver`], or one seen with a file moved.
pub trait Resolve {
    /// The file Obsidian opens for the link (see [`LinkResolver::first`]).
    fn first(&self, target: &str, from: Option<&str>) -> Option<String>;
    /// The text to write inside `[[…]]` (see [`LinkResolver::link_text`]).
    fn link_text(&self, target_path: &str, from: Option<&str>, style: LinkStyle) -> String;
}

impl Resolve for LinkResolver {
    fn first(&self, target: &str, from: Option<&str>) -> Option<String> {
        LinkResolver::first(self, target, from)
    }

    fn link_text(&self, target_path: &str, from: Option<&str>, style: LinkStyle) -> String {
        LinkResolver::link_text(self, target_path, from, style)
    }
}

/// A resolver with the file at one path moved to another (or deleted), its aliases following
/// it: resolves as [`LinkResolver::remove`] then [`LinkResolver::insert`] would leave it.
#[derive(Debug)]
pub struct Moved<'a> {
    base: &'a LinkResolver,
    /// The moved file's number: it stands for the file at its new path.
    at: usize,
    /// The path keys of the old path.
    old_keys: (String, Option<String>),
    /// The new path with its keys and name key; `None` for a delete.
    new: Option<(String, (String, Option<String>), String)>,
}

impl LinkResolver {
    /// This resolver as it would be with the file at `old` moved to `new` (`None`: deleted),
    /// its aliases following it; `None` when [`LinkResolver::remove`] or
    /// [`LinkResolver::insert`] would refuse the change (make a new resolver then).
    pub fn moved<'a>(&'a self, old: &str, new: Option<&str>) -> Option<Moved<'a>> {
        let old_keys = Self::keys(old);
        let at = *self.by_path.get(&old_keys.0)?;
        if self.collisions || self.paths[at] != old {
            return None;
        }
        let new = match new {
            Some(new) => {
                let keys = Self::keys(new);
                let freed = |k: &String| *k == old_keys.0 || old_keys.1.as_ref() == Some(k);
                let taken = |k: &String| self.by_path.contains_key(k) && !freed(k);
                if taken(&keys.0) || keys.1.as_ref().is_some_and(taken) {
                    return None;
                }
                let name = key(strip_md(name_of(new)));
                Some((new.to_string(), keys, name))
            }
            None => None,
        };
        Some(Moved { base: self, at, old_keys, new })
    }
}

impl Moved<'_> {
    /// Resolves a link target as [`LinkResolver::resolve`] would after the move.
    pub fn resolve(&self, target: &str, from: Option<&str>) -> Resolution {
        resolve_in(self, target, from)
    }
}

impl Resolve for Moved<'_> {
    fn first(&self, target: &str, from: Option<&str>) -> Option<String> {
        first(self.resolve(target, from))
    }

    fn link_text(&self, target_path: &str, from: Option<&str>, style: LinkStyle) -> String {
        link_text_in(self, target_path, from, style)
    }
}

impl Files for Moved<'_> {
    fn count(&self) -> usize {
        self.base.paths.len()
    }

    fn path(&self, i: usize) -> Option<&str> {
        if i == self.at { self.new.as_ref().map(|(p, _, _)| p.as_str()) } else { self.base.path(i) }
    }

    fn by_path(&self, k: &str) -> Option<usize> {
        if let Some((_, (full, stripped), _)) = &self.new
            && (full == k || stripped.as_deref() == Some(k))
        {
            return Some(self.at);
        }
        if self.old_keys.0 == k || self.old_keys.1.as_deref() == Some(k) {
            return None;
        }
        self.base.by_path.get(k).copied()
    }

    fn by_name(&self, k: &str) -> Option<Cow<'_, [usize]>> {
        let mut list: Vec<usize> = self.base.by_name.get(k).cloned().unwrap_or_default();
        list.retain(|&i| i != self.at);
        if self.new.as_ref().is_some_and(|(_, _, name)| name == k) {
            list.push(self.at);
        }
        (!list.is_empty()).then_some(Cow::Owned(list))
    }

    fn by_alias(&self, k: &str) -> Option<Cow<'_, [usize]>> {
        let list = self.base.by_alias.get(k)?;
        if self.new.is_some() {
            return Some(Cow::Borrowed(list.as_slice()));
        }
        let kept: Vec<usize> = list.iter().copied().filter(|&i| i != self.at).collect();
        (!kept.is_empty()).then_some(Cow::Owned(kept))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> LinkResolver {
        let mut r = LinkResolver::new([
            "A/Notes.md",
            "B/Notes.md",
            "Top.md",
            "img/pic.png",
            "Deep/Folder/Page.md",
            "Deep/Other/Page.md",
            "Solo.md",
        ]);
        r.add_aliases("Top.md", ["The Top", "summit"]);
        r.add_aliases("Solo.md", ["alone"]);
        r
    }

    /// What `base` resolves after the change, made the slow way: a copy changed in place.
    fn changed(base: &LinkResolver, old: &str, new: Option<&str>, aliases: &[&str]) -> LinkResolver {
        let mut copy = base.clone();
        assert!(copy.remove(old, aliases.iter().copied()));
        if let Some(new) = new {
            assert!(copy.insert(new, aliases.iter().copied()));
        }
        copy
    }

    #[test]
    fn a_moved_view_resolves_as_a_changed_copy() {
        let base = vault();
        let targets = [
            "Notes",
            "Top",
            "the top",
            "SUMMIT",
            "alone",
            "Solo",
            "Page",
            "Folder/Page",
            "Other/Page",
            "pic.png",
            "Renamed",
            "Sub/Renamed",
            "../Top",
            "Top.md",
            "C/Top",
            "x/Solo",
            "",
            "Nothing",
        ];
        let froms = [None, Some("A/x.md"), Some("Deep/Folder/y.md"), Some("C/z.md")];
        let cases: [(&str, Option<&str>, &[&str]); 7] = [
            ("Top.md", Some("C/Top.md"), &["The Top", "summit"]),
            ("Top.md", Some("Renamed.md"), &["The Top", "summit"]),
            ("Top.md", Some("top.md"), &["The Top", "summit"]),
            ("A/Notes.md", Some("Sub/Renamed.md"), &[]),
            ("Deep/Folder/Page.md", Some("Page.md"), &[]),
            ("Solo.md", None, &["alone"]),
            ("img/pic.png", None, &[]),
        ];
        for (old, new, aliases) in cases {
            let slow = changed(&base, old, new, aliases);
            let fast = base.moved(old, new).expect("no collisions");
            for target in targets {
                for from in froms {
                    assert_eq!(
                        fast.resolve(target, from),
                        slow.resolve(target, from),
                        "{old} -> {new:?}: {target} from {from:?}"
                    );
                }
            }
            for path in
                ["Top.md", "C/Top.md", "Renamed.md", "Sub/Renamed.md", "B/Notes.md", "Page.md", "img/pic.png"]
            {
                for style in [LinkStyle::Shortest, LinkStyle::Relative, LinkStyle::Absolute] {
                    assert_eq!(
                        fast.link_text(path, Some("A/x.md"), style),
                        slow.link_text(path, Some("A/x.md"), style)
                    );
                }
            }
        }
    }

    #[test]
    fn a_moved_view_is_refused_where_a_changed_copy_would_be() {
        let base = vault();
        assert!(base.moved("Nope.md", None).is_none(), "not there");
        assert!(base.moved("top.md", None).is_none(), "another case than the file's");
        assert!(base.moved("Top.md", Some("Solo.md")).is_none(), "the new path is taken");
        assert!(base.moved("Top.md", Some("solo")).is_none(), "its key is taken");
        let colliding = LinkResolver::new(["x.md", "X.md"]);
        assert!(colliding.moved("x.md", Some("y.md")).is_none());
    }
}
