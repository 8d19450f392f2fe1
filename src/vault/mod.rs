//! All file access goes through the [`Vault`] trait; the core speaks vault-relative paths only.
//!
//! [`MemVault`] holds notes in memory (tests, wasm); [`FsVault`] (native only) is the one place in
//! the crate that touches `std::fs`. Both keep the same promises: paths never leave the vault,
//! writes are atomic, nothing is overwritten unless asked, and deleted notes go to `.trash/`.

#[cfg(feature = "mcp")]
pub mod config;
#[cfg(not(target_arch = "wasm32"))]
mod fs;
mod mem;
pub mod naming;
mod path;

#[cfg(not(target_arch = "wasm32"))]
pub use fs::FsVault;
pub use mem::MemVault;
pub use path::{PROTECTED, VaultPath};

use serde::Serialize;

/// What the vault knows about one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileMeta {
    /// Vault-relative path.
    pub path: VaultPath,
    /// Size in bytes.
    pub size: u64,
    /// Last modification, milliseconds since the Unix epoch.
    pub mtime_ms: i64,
    /// Creation (birth time where the system records it, else the modification time), ms.
    pub ctime_ms: i64,
}

/// One child of a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DirEntry {
    /// Vault-relative path.
    pub path: VaultPath,
    /// Whether it is a folder.
    pub is_dir: bool,
}

/// Why a vault operation failed. Every message says what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VaultError {
    /// The path is not a valid vault-relative path.
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// Why it was refused.
        reason: String,
    },
    /// The path lies in `.obsidian/`, `.trash/` or a `.git/` folder, which Scholia never writes.
    #[error(
        "{path} is inside a protected folder (.obsidian, .git, .trash); write somewhere else in the vault"
    )]
    Protected {
        /// The path.
        path: String,
    },
    /// The path is hidden (a name in it starts with `.`).
    #[error("{path} is hidden (a name in it starts with a dot); Scholia writes no hidden files or folders")]
    Hidden {
        /// The path.
        path: String,
    },
    /// Text can be written only to Markdown notes.
    #[error("{path} is not a Markdown note; Scholia writes only notes (.md files)")]
    NotANote {
        /// The path.
        path: String,
    },
    /// No file or folder at the path.
    #[error("{path} does not exist in the vault; check the path (list the folder to see what is there)")]
    NotFound {
        /// The path.
        path: String,
    },
    /// Something is already at the path and the call did not ask to replace it.
    #[error("{path} already exists; choose another name, or ask explicitly to overwrite it")]
    AlreadyExists {
        /// The path.
        path: String,
    },
    /// A file was expected and a folder found, or the other way round.
    #[error("{path} is a {found}, not a {expected}")]
    WrongKind {
        /// The path.
        path: String,
        /// What was expected (`file` or `folder`).
        expected: &'static str,
        /// What is there.
        found: &'static str,
    },
    /// The path leads outside the vault (through a symbolic link).
    #[error("{path} leads outside the vault (through a symbolic link); Scholia only works inside the vault")]
    OutsideVault {
        /// The path.
        path: String,
    },
    /// The file is not UTF-8 text.
    #[error("{path} is not UTF-8 text; Scholia reads Markdown notes only")]
    NotText {
        /// The path.
        path: String,
    },
    /// The vault root is missing or not a folder.
    #[error("vault {path} is not a folder; pass --vault with the folder that holds your .obsidian folder")]
    NotAVault {
        /// The root as given.
        path: String,
    },
    /// The write could not be made safely (a symbolic link where a folder was, a `.trash` that is
    /// a link, a folder changed while it was written), so it was not made.
    #[error("{path} was not changed: {reason}")]
    Unsafe {
        /// The path.
        path: String,
        /// Why it could not be written safely.
        reason: String,
    },
    /// The vault folder was moved, renamed or deleted since the server opened it.
    #[error(
        "the vault folder {root} is gone (moved, renamed or deleted since Scholia opened it); restart Scholia with the vault's new location"
    )]
    VaultGone {
        /// The vault folder as it was opened.
        root: String,
    },
    /// An operating-system error.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// A vault: a folder of notes. Paths are vault-relative; writes are atomic.
pub trait Vault: Send + Sync {
    /// Every file under `folder` (recursively), skipping hidden files and folders (`.obsidian`,
    /// `.git`, `.trash`, any name starting with `.`), sorted by path.
    fn list(&self, folder: &VaultPath) -> Result<Vec<FileMeta>, VaultError>;

    /// The direct children of `folder` (hidden ones skipped), folders first, then by name.
    fn list_dir(&self, folder: &VaultPath) -> Result<Vec<DirEntry>, VaultError>;

    /// The text of a file.
    fn read(&self, path: &VaultPath) -> Result<String, VaultError>;

    /// What the vault knows about a file.
    fn stat(&self, path: &VaultPath) -> Result<FileMeta, VaultError>;

    /// Whether a file or folder exists at `path`.
    fn exists(&self, path: &VaultPath) -> bool;

    /// Creates a new file (and its parent folders); fails with `AlreadyExists` if anything is there.
    fn create_new(&self, path: &VaultPath, content: &str) -> Result<(), VaultError>;

    /// Writes a file, replacing it if it exists, atomically (readers see the old or the new text).
    fn write(&self, path: &VaultPath, content: &str) -> Result<(), VaultError>;

    /// Moves a file into the vault's `.trash/` folder, as Obsidian does, and returns where it went.
    fn trash(&self, path: &VaultPath) -> Result<VaultPath, VaultError>;

    /// Moves a file to `.trash/` (as [`Vault::trash`]) only when `still` accepts its text
    /// (`None`: not text), read and moved as one step; `Ok(None)` when `still` refused.
    fn trash_if(
        &self,
        path: &VaultPath,
        still: &mut dyn FnMut(Option<&str>) -> bool,
    ) -> Result<Option<VaultPath>, VaultError> {
        let text = self.read(path).ok();
        if !still(text.as_deref()) {
            return Ok(None);
        }
        self.trash(path).map(Some)
    }

    /// Renames or moves a file (also out of `.trash/`, to restore it); fails with `AlreadyExists`
    /// if the target exists.
    fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<(), VaultError>;

    /// The absolute location of `path` as people see it (a filesystem path for [`FsVault`]).
    fn absolute(&self, path: &VaultPath) -> String;

    /// One read-modify-write of a note, as one step: `change` gets the note's text (`None` when
    /// there is none) and says what to write; no other write of the vault (from this process or
    /// another opening the same vault) comes between the read and the write. See
    /// [`VaultExt::update`], which lets `change` fail with the caller's error.
    fn update_with(
        &self,
        path: &VaultPath,
        change: &mut dyn FnMut(Option<&str>) -> Change,
    ) -> Result<Updated, VaultError> {
        let old = match self.read(path) {
            Ok(text) => Some(text),
            Err(VaultError::NotFound { .. }) => None,
            Err(err) => return Err(err),
        };
        let mut updated = Updated { written: true, created: old.is_none(), previous: None };
        match (change(old.as_deref()), old) {
            (Change::Keep, _) => updated.written = false,
            (Change::Write(text) | Change::Replace(text), None) => self.create_new(path, &text)?,
            (Change::Write(text), Some(_)) => self.write(path, &text)?,
            (Change::Replace(text), Some(_)) => {
                let previous = self.trash(path)?;
                self.create_new(path, &text)?;
                updated.previous = Some(previous);
            }
        }
        Ok(updated)
    }

    /// Appends `content` to a file, creating it when missing (one [`Vault::update_with`] step).
    fn append(&self, path: &VaultPath, content: &str) -> Result<(), VaultError> {
        let mut append = |old: Option<&str>| Change::Write(format!("{}{content}", old.unwrap_or("")));
        self.update_with(path, &mut append).map(|_| ())
    }
}

/// What an update writes over the text it read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Nothing: the note stays as it is.
    Keep,
    /// This text, in place of the note's (or as a new note); an edit.
    Write(String),
    /// This text, the old version kept in `.trash/` first; an overwrite.
    Replace(String),
}

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Updated {
    /// Whether the note was written.
    pub written: bool,
    /// Whether the note was new.
    pub created: bool,
    /// Where the replaced version went in `.trash/` ([`Change::Replace`] of an existing note).
    pub previous: Option<VaultPath>,
}

/// [`Vault::update_with`] with a change that may fail with the caller's own error (which is
/// returned, nothing written). Implemented for every vault.
pub trait VaultExt: Vault {
    /// Reads the note, asks `change` what to write and writes it, as one step.
    fn update<E: From<VaultError>>(
        &self,
        path: &VaultPath,
        change: impl FnOnce(Option<&str>) -> Result<Change, E>,
    ) -> Result<Updated, E> {
        let mut change = Some(change);
        let mut refused = None;
        let updated = self.update_with(path, &mut |old| match change.take().map(|f| f(old)) {
            Some(Ok(change)) => change,
            Some(Err(err)) => {
                refused = Some(err);
                Change::Keep
            }
            None => Change::Keep,
        });
        match (refused, updated) {
            (Some(err), _) => Err(err),
            (None, updated) => Ok(updated?),
        }
    }
}

impl<V: Vault + ?Sized> VaultExt for V {}

/// The `n`th name (from 1) a trashed file may get in `.trash/`: its file name with a timestamp
/// before the extension, e.g. `.trash/Note 2026-11-22 134405.md`, then `… 134405-2.md`, `-3`…
/// The name is cut (at a character boundary) to fit the file systems' 255 bytes.
pub(crate) fn trash_name(path: &VaultPath, stamp: &str, n: usize) -> VaultPath {
    let ext = path.extension();
    let dot = if ext.is_empty() { String::new() } else { format!(".{ext}") };
    let suffix = if n == 1 { String::new() } else { format!("-{n}") };
    let tail = format!(" {stamp}{suffix}{dot}");
    let mut stem = path.stem();
    while stem.len() + tail.len() > 255 {
        let mut end = stem.len() - 1;
        while !stem.is_char_boundary(end) {
            end -= 1;
        }
        stem = &stem[..end];
    }
    VaultPath::new(&format!(".trash/{stem}{tail}")).unwrap_or_else(|_| VaultPath::root())
}
