//! A folder of the vault by its path, for systems without the Linux descriptor calls of
//! `dir.rs`: the same operations, best effort. Each checks that no symbolic link stands where
//! a folder is opened and never replaces a file it should not, but a folder swapped for a link
//! between that check and the operation is not caught (on Linux the kernel makes the check on
//! the open folder).

use std::io;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use super::{Kind, Stat};

/// A folder, by its path.
#[derive(Debug)]
pub(super) struct Dir(PathBuf);

/// An exclusive lock on the vault, held until dropped: the OS lock on the open folder, or where
/// a folder cannot be opened as a file (Windows), this process's own lock.
#[derive(Debug)]
#[allow(dead_code)]
pub(super) enum Lock {
    File(std::fs::File),
    Process(MutexGuard<'static, ()>),
}

static PROCESS_LOCK: Mutex<()> = Mutex::new(());

impl Dir {
    /// Opens the vault root.
    pub fn open_root(root: &std::path::Path) -> io::Result<Self> {
        if !std::fs::metadata(root)?.is_dir() {
            return Err(io::Error::from(io::ErrorKind::NotADirectory));
        }
        Ok(Self(root.to_path_buf()))
    }

    /// The same folder.
    pub fn reopen(&self) -> io::Result<Self> {
        Ok(Self(self.0.clone()))
    }

    /// The sub-folder `name`; a symbolic link there is an error.
    pub fn child(&self, name: &str) -> io::Result<Self> {
        let path = self.0.join(name);
        match self.kind(name)? {
            Kind::Dir => Ok(Self(path)),
            Kind::Link => Err(io::Error::other(LinkInTheWay)),
            _ => Err(io::Error::from(io::ErrorKind::NotADirectory)),
        }
    }

    /// Makes the sub-folder `name` (fine when it exists).
    pub fn make_child(&self, name: &str) -> io::Result<()> {
        match std::fs::create_dir(self.0.join(name)) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            other => other,
        }
    }

    /// What `name` is (a link is not followed).
    pub fn kind(&self, name: &str) -> io::Result<Kind> {
        Ok(self.stat(name)?.kind)
    }

    /// What `name` is, with its size and times (a link is not followed).
    pub fn stat(&self, name: &str) -> io::Result<Stat> {
        let md = std::fs::symlink_metadata(self.0.join(name))?;
        let kind = md.file_type();
        let kind = if kind.is_file() {
            Kind::File(mode_of(&md))
        } else if kind.is_dir() {
            Kind::Dir
        } else if kind.is_symlink() {
            Kind::Link
        } else {
            Kind::Other
        };
        let ms = |t: io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as i64)
        };
        let mtime_ms = ms(md.modified());
        let ctime_ms = match ms(md.created()) {
            0 => mtime_ms,
            born => born,
        };
        Ok(Stat { kind, size: md.len(), mtime_ms, ctime_ms })
    }

    /// The names in the folder, lossily decoded.
    pub fn names(&self) -> io::Result<Vec<String>> {
        let entries = std::fs::read_dir(&self.0)?;
        Ok(entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
    }

    /// The text of the link `name`.
    pub fn read_link(&self, name: &str) -> io::Result<String> {
        Ok(std::fs::read_link(self.0.join(name))?.to_string_lossy().into_owned())
    }

    /// The bytes of the file `name` (a link is an error).
    pub fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        match self.kind(name)? {
            Kind::File(_) => std::fs::read(self.0.join(name)),
            Kind::Link => Err(io::Error::other(LinkInTheWay)),
            _ => Err(io::Error::other("not a regular file")),
        }
    }

    /// Creates the new file `name`, writes `bytes` and syncs them; fails when anything is there.
    pub fn create(&self, name: &str, mode: u32, bytes: &[u8]) -> io::Result<()> {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(self.0.join(name))?;
        io::Write::write_all(&mut file, bytes)?;
        set_mode(&file, mode)?;
        file.sync_all()
    }

    /// Renames `name` to `to` in `dir`, replacing what is there.
    pub fn rename_over(&self, name: &str, dir: &Dir, to: &str) -> io::Result<()> {
        std::fs::rename(self.0.join(name), dir.0.join(to))
    }

    /// Renames `name` to `to` in `dir`; fails when anything is there (a hard link never replaces).
    pub fn rename_new(&self, name: &str, dir: &Dir, to: &str) -> io::Result<()> {
        self.link(name, dir, to)?;
        self.remove(name)
    }

    /// A second name `to` in `dir` for the file `name`; fails when anything is there.
    pub fn link(&self, name: &str, dir: &Dir, to: &str) -> io::Result<()> {
        std::fs::hard_link(self.0.join(name), dir.0.join(to))
    }

    /// Removes the file `name`.
    pub fn remove(&self, name: &str) -> io::Result<()> {
        std::fs::remove_file(self.0.join(name))
    }

    /// Waits for, then holds, the vault's write lock.
    pub fn lock(&self) -> io::Result<Lock> {
        match std::fs::File::open(&self.0) {
            Ok(file) => {
                file.lock()?;
                Ok(Lock::File(file))
            }
            Err(_) => Ok(Lock::Process(PROCESS_LOCK.lock().unwrap_or_else(|e| e.into_inner()))),
        }
    }

    /// Whether the folder is still there (no identity to compare without descriptors).
    pub fn identity(&self) -> io::Result<(u64, u64, bool)> {
        Ok((0, 0, self.0.is_dir()))
    }
}

/// A symbolic link where a folder or file was opened without following.
#[derive(Debug)]
struct LinkInTheWay;

impl std::fmt::Display for LinkInTheWay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a symbolic link stands where a folder or file should be")
    }
}

impl std::error::Error for LinkInTheWay {}

/// Whether `error` is a symbolic link met where a folder or file was opened without following.
pub(super) fn is_link_error(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|e| e.is::<LinkInTheWay>())
}

/// Without descriptors, a folder's identity is whether it is there.
pub(super) fn identity_of(path: &std::path::Path) -> io::Result<(u64, u64)> {
    std::fs::metadata(path).map(|_| (0, 0))
}

#[cfg(unix)]
fn mode_of(md: &std::fs::Metadata) -> u32 {
    std::os::unix::fs::PermissionsExt::mode(&md.permissions()) & 0o7777
}

#[cfg(not(unix))]
fn mode_of(_: &std::fs::Metadata) -> u32 {
    0o644
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, mode: u32) -> io::Result<()> {
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &std::fs::File, _: u32) -> io::Result<()> {
    Ok(())
}
