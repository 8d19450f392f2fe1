//! Notes named the way people and agents name them: a vault path (`Projects/Alpha.md`), a note
//! name or alias (`Alpha`), or a wikilink (`[[Alpha]]`, `[[Alpha|shown]]`, `[[Projects/Alpha#Goals]]`),
//! resolved as Obsidian resolves links. An exact vault path wins; a name shared by several notes
//! is an error that lists them; a name that matches nothing says so and suggests the closest ones.
//! Also the note Obsidian shows (`.obsidian/workspace.json`) and its link format (`app.json`).

use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

use super::server::Scholia;
use crate::index::graph::Graph;
use crate::note::{LinkResolver, LinkStyle, Resolution};
use crate::suggest::closest_several;
use crate::vault::{Vault, VaultPath};

/// What a note reference names.
#[derive(Debug)]
pub(super) enum Lookup {
    /// An existing file.
    Found(VaultPath),
    /// Nothing: `path` is where a note of that name would be created (`None` when the reference
    /// cannot name a new file), `message` says so and suggests the closest names.
    Missing { path: Option<VaultPath>, message: String },
}

/// Suggestions in a "not found" answer.
const SUGGESTIONS: usize = 5;

/// The link target a reference holds: `[[Folder/Name#Heading|alias]]` and `![[…]]` give
/// `Folder/Name`; anything else is taken as written.
fn link_target(raw: &str) -> &str {
    let raw = raw.trim();
    let inner = raw.strip_prefix('!').unwrap_or(raw);
    match inner.strip_prefix("[[").and_then(|s| s.strip_suffix("]]")) {
        Some(link) => {
            let target = link.split('|').next().unwrap_or("");
            target.split('#').next().unwrap_or("").trim()
        }
        None => raw,
    }
}

impl Scholia {
    /// The existing file a reference names: a vault path, a note name or alias, or a wikilink.
    /// The error says what to do: which paths an ambiguous name could mean, or the closest names.
    pub(super) fn resolve_note(&self, raw: &str) -> Result<VaultPath, String> {
        match self.lookup_note(raw)? {
            Lookup::Found(path) => Ok(path),
            Lookup::Missing { message, .. } => Err(message),
        }
    }

    /// The note a reference names, or where a new note of that name goes (tools that create a
    /// missing note: append).
    pub(super) fn note_or_new(&self, raw: &str) -> Result<VaultPath, String> {
        match self.lookup_note(raw)? {
            Lookup::Found(path) | Lookup::Missing { path: Some(path), .. } => Ok(path),
            Lookup::Missing { message, .. } => Err(message),
        }
    }

    /// Looks a reference up: [`Lookup::Found`] for an existing file, [`Lookup::Missing`] with where
    /// it would be created; an error for an invalid path or an ambiguous name.
    pub(super) fn lookup_note(&self, raw: &str) -> Result<Lookup, String> {
        let target: String = link_target(raw).nfc().collect();
        let target = target.as_str();
        if target.is_empty() {
            return Err("the note is empty; give its vault path, its name or a [[link]] to it".into());
        }
        // An exact path wins: as written, then with `.md`.
        let exact = VaultPath::new(target).map_err(|e| e.to_string())?;
        if exact.is_root() {
            return Err("the vault root is a folder, not a note; give a note's path or name".into());
        }
        self.ensure_readable(&exact)?;
        // A folder of that name does not hide notes of that name (`Notes/` and `A/Notes.md`).
        let folder = self.vault.list_dir(&exact).is_ok();
        if self.vault.exists(&exact) && !folder {
            return Ok(Lookup::Found(exact));
        }
        let new_note = self.note_path(target).ok();
        if let Some(path) = new_note.as_ref().filter(|p| **p != exact && self.vault.exists(p)) {
            return self.file(path.clone());
        }
        // Then by name, as a link from the vault root resolves; aliases only when names miss.
        let name = target.split(['#', '|']).next().unwrap_or(target).trim();
        let (resolution, message) = match self.live_index() {
            // The index's resolver knows every file and alias, kept fresh by the watcher.
            Some(view) => {
                let resolution = view.graph().resolver().resolve(name, None);
                let message =
                    (resolution == Resolution::Missing).then(|| missing_message(target, view.graph()));
                (resolution, message)
            }
            // While the index is being built: a walk of the vault, the graph only when names miss.
            None => {
                let files = self.vault.list(&VaultPath::root()).map_err(|e| e.to_string())?;
                let by_name = LinkResolver::new(files.iter().map(|f| f.path.as_str().to_string()));
                match by_name.resolve(name, None) {
                    Resolution::Missing => {
                        let view = self.index_view(&VaultPath::root())?;
                        let resolution = view.graph().resolver().resolve(name, None);
                        let message = (resolution == Resolution::Missing)
                            .then(|| missing_message(target, view.graph()));
                        (resolution, message)
                    }
                    found => (found, None),
                }
            }
        };
        match resolution {
            Resolution::Resolved(path) => self.file(VaultPath::new(&path).map_err(|e| e.to_string())?),
            Resolution::Ambiguous(paths) => Err(format!(
                "{target:?} names {} files: {}; give the one you mean by its path",
                paths.len(),
                paths.join(", ")
            )),
            Resolution::Missing if folder => Err(format!(
                "{exact} is a folder, not a note; list it with obsidian_list_files to see its notes"
            )),
            Resolution::Missing => {
                let message = message.unwrap_or_default();
                // `Name#Heading` (written without brackets) names no new file.
                let path = new_note.filter(|_| !target.contains(['#', '|', '^']));
                Ok(Lookup::Missing { path, message })
            }
        }
    }

    /// `Found(path)` unless `path` is a folder.
    /// Refuses a file the tools may not read: anything in a `.git/` folder, and Obsidian's
    /// settings (`.obsidian/`, where plugins keep API keys) unless the server runs with
    /// `--read-config`; checked on the path and on where its links lead.
    pub(super) fn ensure_readable(&self, path: &VaultPath) -> Result<(), String> {
        let real = self.vault.real_path(path).map_err(|e| e.to_string())?;
        for p in [path, &real] {
            if p.as_str().split('/').any(|part| part.eq_ignore_ascii_case(".git")) {
                return Err(format!(
                    "{path} is in a .git folder, protected: Scholia never reads or writes it"
                ));
            }
            let settings =
                p.as_str().split('/').next().is_some_and(|top| top.eq_ignore_ascii_case(".obsidian"));
            if settings && !self.settings.read_config {
                return Err(format!(
                    "{path} is in Obsidian's settings folder (.obsidian), protected: plugins keep secrets such as API \
                     keys there; Scholia never writes it and reads it only when started with --read-config"
                ));
            }
        }
        Ok(())
    }

    fn file(&self, path: VaultPath) -> Result<Lookup, String> {
        self.ensure_readable(&path)?;
        if self.vault.list_dir(&path).is_ok() {
            return Err(format!(
                "{path} is a folder, not a note; list it with obsidian_list_files to see its notes"
            ));
        }
        Ok(Lookup::Found(path))
    }

    /// How Obsidian writes new links (`.obsidian/app.json` `newLinkFormat`; default shortest).
    pub(super) fn link_style(&self) -> LinkStyle {
        let format = self
            .obsidian_json("app.json")
            .and_then(|app| app.get("newLinkFormat").and_then(Value::as_str).map(str::to_ascii_lowercase));
        match format.as_deref() {
            Some("relative") => LinkStyle::Relative,
            Some("absolute") => LinkStyle::Absolute,
            _ => LinkStyle::Shortest,
        }
    }

    /// The note open in Obsidian's active tab, from `.obsidian/workspace.json` (Obsidian writes it
    /// whenever the layout changes): the active leaf's file, else the most recently opened note.
    pub(super) fn active_file(&self) -> Result<VaultPath, String> {
        let none = "Obsidian's workspace (.obsidian/workspace.json) names no open note; give the note with \
                    targetType filePath";
        let workspace = self.obsidian_json("workspace.json").ok_or(none)?;
        let active = workspace.get("active").and_then(Value::as_str).and_then(|id| leaf_file(&workspace, id));
        let recent = || {
            workspace
                .get("lastOpenFiles")?
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .find(|p| VaultPath::new(p).is_ok_and(|p| p.is_markdown() && self.vault.exists(&p)))
        };
        let file = active.or_else(recent).ok_or(none)?;
        let path = VaultPath::new(file).map_err(|e| e.to_string())?;
        if !self.vault.exists(&path) {
            return Err(format!(
                "the active note {path} (from .obsidian/workspace.json) does not exist any more; give the note \
                 with targetType filePath"
            ));
        }
        Ok(path)
    }

    /// A JSON file of the vault's `.obsidian/` folder, if it is there and parses.
    fn obsidian_json(&self, name: &str) -> Option<Value> {
        let path = VaultPath::new(&format!(".obsidian/{name}")).ok()?;
        serde_json::from_str(&self.vault.read(&path).ok()?).ok()
    }
}

/// The file shown in the workspace leaf `id` (searched anywhere in the layout tree).
fn leaf_file<'a>(node: &'a Value, id: &str) -> Option<&'a str> {
    match node {
        Value::Object(map) => {
            if map.get("id").and_then(Value::as_str) == Some(id) {
                return map.get("state")?.get("state")?.get("file")?.as_str();
            }
            map.values().find_map(|child| leaf_file(child, id))
        }
        Value::Array(items) => items.iter().find_map(|child| leaf_file(child, id)),
        _ => None,
    }
}

/// "Not found", with the paths of the closest note names, aliases and file names.
fn missing_message(target: &str, graph: &Graph) -> String {
    let notes = graph.notes().flat_map(|n| {
        std::iter::once(n.path.stem())
            .chain(n.aliases.iter().map(String::as_str))
            .map(move |name| (name, &n.path))
    });
    let files = graph.attachments().map(|a| (a.path.file_name(), &a.path));
    let notes = notes.map(|(name, path)| (name, path.as_str()));
    let files = files.map(|(name, path)| (name, path.as_str()));
    let mut near = closest_several(target, notes.chain(files), SUGGESTIONS);
    near.dedup();
    let hint = "find notes with search_vault or list a folder with obsidian_list_files";
    if near.is_empty() {
        format!("no note or file named {target:?} in the vault; {hint}")
    } else {
        format!(
            "no note or file named {target:?} in the vault; did you mean {}? Else {hint}",
            near.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_target_of_a_wikilink() {
        assert_eq!(link_target(" [[Folder/Name#Heading|shown]] "), "Folder/Name");
        assert_eq!(link_target("![[pic.png|300]]"), "pic.png");
        assert_eq!(link_target("[[Name]]"), "Name");
        assert_eq!(link_target("Projects/Alpha.md"), "Projects/Alpha.md");
    }
}
