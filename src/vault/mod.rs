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
    /// The path lies in `.obsidian/`, `.git/` or `.trash/`, which Scholia never writes.
    #[error(
        "{path} is inside a protected folder (.obsidian, .git, .trash); write somewhere else in the vault"
    )]
    Protected {
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

    /// Renames or moves a file (also out of `.trash/`, to restore it); fails with `AlreadyExists`
    /// if the target exists.
    fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<(), VaultError>;

    /// The absolute location of `path` as people see it (a filesystem path for [`FsVault`]).
    fn absolute(&self, path: &VaultPath) -> String;

    /// Appends `content` to a file, creating it when missing.
    fn append(&self, path: &VaultPath, content: &str) -> Result<(), VaultError> {
        match self.read(path) {
            Ok(mut text) => {
                text.push_str(content);
                self.write(path, &text)
            }
            Err(VaultError::NotFound { .. }) => self.create_new(path, content),
            Err(err) => Err(err),
        }
    }
}

/// The name a trashed file gets in `.trash/`: its file name with a timestamp before the extension,
/// e.g. `.trash/Note 2026-11-22 134405.md`; `-2`, `-3`… if that is taken too.
pub(crate) fn trash_name(path: &VaultPath, stamp: &str, taken: impl Fn(&VaultPath) -> bool) -> VaultPath {
    let ext = path.extension();
    let dot = if ext.is_empty() { String::new() } else { format!(".{ext}") };
    let mut n = 1;
    loop {
        let suffix = if n == 1 { String::new() } else { format!("-{n}") };
        let name = format!(".trash/{} {stamp}{suffix}{dot}", path.stem());
        let candidate = VaultPath::new(&name).unwrap_or_else(|_| VaultPath::root());
        if !taken(&candidate) {
            return candidate;
        }
        n += 1;
    }
}
