//! `VaultPath`: a vault-relative path that cannot leave the vault.

use std::fmt;

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::VaultError;

/// Top-level folders Scholia never writes into: Obsidian's settings, git's data, Obsidian's trash
/// (which only [`super::Vault::trash`] fills).
pub const PROTECTED: [&str; 3] = [".obsidian", ".git", ".trash"];

/// A validated vault-relative path: `/`-separated, NFC-normalised, without `.`/`..` components,
/// empty components or a leading or trailing `/`. The empty path is the vault root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct VaultPath(String);

impl VaultPath {
    /// The vault root.
    pub fn root() -> Self {
        Self(String::new())
    }

    /// Validates `raw`. `""`, `"/"` and `"."` are the root; `./a//b/` is `a/b`. Refused: `..`,
    /// absolute paths (`/etc`, `C:\`, `C:/`, `\\server`), backslashes, NUL and control characters.
    pub fn new(raw: &str) -> Result<Self, VaultError> {
        let invalid =
            |reason: &str| VaultError::InvalidPath { path: raw.to_string(), reason: reason.to_string() };
        if raw.chars().any(|c| c.is_control()) {
            return Err(invalid("it contains a control character"));
        }
        if raw.contains('\\') {
            return Err(invalid("use / to separate folders, not \\"));
        }
        let bytes = raw.as_bytes();
        if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
            return Err(invalid("it is an absolute path; give the path relative to the vault root"));
        }
        if raw.len() > 1 && raw.starts_with('/') {
            return Err(invalid("it is an absolute path; give the path relative to the vault root"));
        }
        let mut parts: Vec<String> = Vec::new();
        for part in raw.split('/') {
            match part {
                "" | "." => {}
                ".." => return Err(invalid("`..` would leave the vault")),
                _ => parts.push(part.nfc().collect()),
            }
        }
        Ok(Self(parts.join("/")))
    }

    /// The path as a string (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the vault root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// This folder joined with a relative path (validated like [`VaultPath::new`]).
    pub fn join(&self, rest: &str) -> Result<Self, VaultError> {
        if self.is_root() { Self::new(rest) } else { Self::new(&format!("{}/{rest}", self.0)) }
    }

    /// The containing folder (`None` for the root).
    pub fn parent(&self) -> Option<Self> {
        if self.is_root() {
            return None;
        }
        Some(Self(self.0.rsplit_once('/').map_or(String::new(), |(p, _)| p.to_string())))
    }

    /// The last component (`""` for the root).
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// The file name without its extension.
    pub fn stem(&self) -> &str {
        let name = self.file_name();
        match name.rfind('.') {
            Some(i) if i > 0 => &name[..i],
            _ => name,
        }
    }

    /// The extension, lowercase-insensitive comparison left to the caller (`""` when none).
    pub fn extension(&self) -> &str {
        let name = self.file_name();
        match name.rfind('.') {
            Some(i) if i > 0 => &name[i + 1..],
            _ => "",
        }
    }

    /// Whether this is a Markdown note (`.md`, any case).
    pub fn is_markdown(&self) -> bool {
        self.extension().eq_ignore_ascii_case("md")
    }

    /// The path without a `.md` extension (what wikilinks use).
    pub fn without_md(&self) -> &str {
        if self.is_markdown() { &self.0[..self.0.len() - 3] } else { &self.0 }
    }

    /// Whether the path lies in a protected folder (`.obsidian/`, `.git/`, `.trash/`).
    pub fn is_protected(&self) -> bool {
        let first = self.0.split('/').next().unwrap_or("");
        PROTECTED.iter().any(|p| first.eq_ignore_ascii_case(p))
    }

    /// Whether any component starts with `.` (Obsidian does not index such files).
    pub fn is_hidden(&self) -> bool {
        self.0.split('/').any(|part| part.starts_with('.'))
    }

    /// Whether this path is `folder` or lies inside it (the root contains everything).
    pub fn is_within(&self, folder: &VaultPath) -> bool {
        folder.is_root()
            || self.0 == folder.0
            || (self.0.starts_with(&folder.0) && self.0.as_bytes().get(folder.0.len()) == Some(&b'/'))
    }

    /// Refuses the root and `.obsidian/`/`.git/`, but not `.trash/`: the check for the source of a
    /// move, so a trashed note can be restored.
    pub fn ensure_movable(&self) -> Result<(), VaultError> {
        if self.as_str().split('/').next().is_some_and(|first| first.eq_ignore_ascii_case(".trash")) {
            return Ok(());
        }
        self.ensure_writable()
    }

    /// Refuses the root, protected folders (`.obsidian/`, `.trash/`, a `.git/` at any depth) and
    /// hidden paths (a name starting with `.`): the check every writing operation makes first,
    /// on the path as given and again on the real path (links followed).
    pub fn ensure_writable(&self) -> Result<(), VaultError> {
        if self.is_root() {
            return Err(VaultError::InvalidPath {
                path: String::new(),
                reason: "the vault root is a folder, not a note".into(),
            });
        }
        if self.is_protected() || self.0.split('/').any(|part| part.eq_ignore_ascii_case(".git")) {
            return Err(VaultError::Protected { path: self.0.clone() });
        }
        if self.is_hidden() {
            return Err(VaultError::Hidden { path: self.0.clone() });
        }
        Ok(())
    }

    /// [`VaultPath::ensure_writable`], and a Markdown note: the check before writing text.
    pub fn ensure_note(&self) -> Result<(), VaultError> {
        self.ensure_writable()?;
        if !self.is_markdown() {
            return Err(VaultError::NotANote { path: self.0.clone() });
        }
        Ok(())
    }

    /// Refuses a move from this path to `to` that changes the file's kind: a note stays a note,
    /// another file keeps its extension (a picture never becomes a script).
    pub fn ensure_same_kind(&self, to: &VaultPath) -> Result<(), VaultError> {
        if self.is_markdown() || to.is_markdown() {
            return match (self.is_markdown(), to.is_markdown()) {
                (true, true) => Ok(()),
                _ => Err(VaultError::NotANote { path: to.0.clone() }),
            };
        }
        if self.extension().eq_ignore_ascii_case(to.extension()) {
            return Ok(());
        }
        Err(VaultError::InvalidPath {
            path: to.0.clone(),
            reason: format!("a move keeps the file's kind: give it the extension .{}", self.extension()),
        })
    }
}

impl fmt::Display for VaultPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_root() { "/" } else { &self.0 })
    }
}

impl TryFrom<String> for VaultPath {
    type Error = VaultError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::new(&value)
    }
}

impl From<VaultPath> for String {
    fn from(value: VaultPath) -> Self {
        value.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises() {
        assert_eq!(VaultPath::new("./a//b/").unwrap().as_str(), "a/b");
        assert!(VaultPath::new("/").unwrap().is_root());
        assert!(VaultPath::new("").unwrap().is_root());
        // NFD "é" becomes NFC.
        assert_eq!(VaultPath::new("Caf\u{65}\u{301}.md").unwrap().as_str(), "Caf\u{e9}.md");
    }

    #[test]
    fn refuses_escapes() {
        for bad in ["../x.md", "a/../../x", "/etc/passwd", "C:\\x", "c:/x", "a\\b", "a\0b", "\\\\srv\\x"] {
            assert!(VaultPath::new(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn parts() {
        let p = VaultPath::new("References/@smith.2023.md").unwrap();
        assert_eq!(p.file_name(), "@smith.2023.md");
        assert_eq!(p.stem(), "@smith.2023");
        assert_eq!(p.without_md(), "References/@smith.2023");
        assert_eq!(p.parent().unwrap().as_str(), "References");
        assert!(p.is_within(&VaultPath::new("References").unwrap()));
        assert!(!p.is_within(&VaultPath::new("Ref").unwrap()));
        assert!(VaultPath::new(".obsidian/app.json").unwrap().is_protected());
        assert!(VaultPath::new(".trash/x.md").unwrap().ensure_writable().is_err());
    }
}
