//! A folder of the vault held open (Linux): every operation is relative to its descriptor, on a
//! name in it (never a path), and never follows a symbolic link, so a folder swapped for a link
//! after it was opened cannot send a write elsewhere. Opened from the vault root one name at a
//! time (`O_NOFOLLOW`), the folder is beneath the root by construction.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd as _, OwnedFd};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, RenameFlags};

use super::{Kind, Stat};

/// A folder held open.
#[derive(Debug)]
pub(super) struct Dir(OwnedFd);

/// An exclusive lock on the vault, held until dropped.
#[derive(Debug)]
pub(super) struct Lock(#[allow(dead_code)] OwnedFd);

const DIR_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

impl Dir {
    /// Opens the vault root.
    pub fn open_root(root: &std::path::Path) -> io::Result<Self> {
        Ok(Self(rustix::fs::open(root, DIR_FLAGS, Mode::empty())?))
    }

    /// The descriptor, for `openat2`.
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.0.as_fd()
    }

    /// The same folder, opened again (its own open file, for a lock of its own).
    pub fn reopen(&self) -> io::Result<Self> {
        Ok(Self(rustix::fs::openat(self.0.as_fd(), ".", DIR_FLAGS, Mode::empty())?))
    }

    /// The sub-folder `name`; a symbolic link there is an error (`ELOOP`), never followed.
    pub fn child(&self, name: &str) -> io::Result<Self> {
        Ok(Self(rustix::fs::openat(self.0.as_fd(), name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())?))
    }

    /// Makes the sub-folder `name` (fine when it exists).
    pub fn make_child(&self, name: &str) -> io::Result<()> {
        match rustix::fs::mkdirat(self.0.as_fd(), name, Mode::from_raw_mode(0o777)) {
            Err(rustix::io::Errno::EXIST) => Ok(()),
            other => Ok(other?),
        }
    }

    /// What `name` is (a link is not followed).
    pub fn kind(&self, name: &str) -> io::Result<Kind> {
        let stat = rustix::fs::statat(self.0.as_fd(), name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(kind_of(stat.st_mode))
    }

    /// What `name` is, with its size and times (a link is not followed).
    pub fn stat(&self, name: &str) -> io::Result<Stat> {
        use rustix::fs::{StatxFlags, StatxTimestamp};
        let ms = |t: StatxTimestamp| t.tv_sec * 1000 + i64::from(t.tv_nsec / 1_000_000);
        let wanted = StatxFlags::BASIC_STATS | StatxFlags::BTIME;
        match rustix::fs::statx(self.0.as_fd(), name, AtFlags::SYMLINK_NOFOLLOW, wanted) {
            Ok(stat) => {
                let mtime_ms = ms(stat.stx_mtime);
                let born = stat.stx_mask & StatxFlags::BTIME.bits() != 0 && stat.stx_btime.tv_sec != 0;
                Ok(Stat {
                    kind: kind_of(u32::from(stat.stx_mode)),
                    size: stat.stx_size,
                    mtime_ms,
                    ctime_ms: if born { ms(stat.stx_btime) } else { mtime_ms },
                })
            }
            // No `statx` (an old kernel, a sandbox that refuses it): `fstatat`, without birth time.
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
                let stat = rustix::fs::statat(self.0.as_fd(), name, AtFlags::SYMLINK_NOFOLLOW)?;
                let mtime_ms =
                    stat.st_mtime * 1000 + i64::try_from(stat.st_mtime_nsec / 1_000_000).unwrap_or(0);
                Ok(Stat {
                    kind: kind_of(stat.st_mode),
                    size: stat.st_size as u64,
                    mtime_ms,
                    ctime_ms: mtime_ms,
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The names in the folder (`.` and `..` left out), as bytes on disk, lossily decoded.
    pub fn names(&self) -> io::Result<Vec<String>> {
        let mut dir = rustix::fs::Dir::read_from(self.0.as_fd())?;
        let mut names = Vec::new();
        while let Some(entry) = dir.read() {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name != "." && name != ".." {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// The text of the link `name`.
    pub fn read_link(&self, name: &str) -> io::Result<String> {
        let target: CString = rustix::fs::readlinkat(self.0.as_fd(), name, Vec::new())?;
        Ok(target.to_string_lossy().into_owned())
    }

    /// The bytes of the file `name` (a link is an error).
    pub fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY;
        let fd = rustix::fs::openat(self.0.as_fd(), name, flags, Mode::empty())?;
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut std::fs::File::from(fd), &mut bytes)?;
        Ok(bytes)
    }

    /// Creates the new file `name` with `mode`, writes `bytes` and syncs them; fails when
    /// anything (a link too) is there.
    pub fn create(&self, name: &str, mode: u32, bytes: &[u8]) -> io::Result<()> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(self.0.as_fd(), name, flags, Mode::from_raw_mode(mode))?;
        // The umask narrowed the mode: a note kept private stays private, one shared stays shared.
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
        let mut file = std::fs::File::from(fd);
        io::Write::write_all(&mut file, bytes)?;
        file.sync_all()
    }

    /// Renames `name` to `to` in `dir`, replacing what is there.
    pub fn rename_over(&self, name: &str, dir: &Dir, to: &str) -> io::Result<()> {
        Ok(rustix::fs::renameat(self.0.as_fd(), name, dir.0.as_fd(), to)?)
    }

    /// Renames `name` to `to` in `dir`; fails (`AlreadyExists`) when anything is there. Where the
    /// file system cannot rename without replacing, a hard link and an unlink do it.
    pub fn rename_new(&self, name: &str, dir: &Dir, to: &str) -> io::Result<()> {
        match rustix::fs::renameat_with(self.0.as_fd(), name, dir.0.as_fd(), to, RenameFlags::NOREPLACE) {
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                self.link(name, dir, to)?;
                self.remove(name)
            }
            other => Ok(other?),
        }
    }

    /// A second name `to` in `dir` for the file `name`; fails when anything is there.
    pub fn link(&self, name: &str, dir: &Dir, to: &str) -> io::Result<()> {
        Ok(rustix::fs::linkat(self.0.as_fd(), name, dir.0.as_fd(), to, AtFlags::empty())?)
    }

    /// Removes the file `name`.
    pub fn remove(&self, name: &str) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(self.0.as_fd(), name, AtFlags::empty())?)
    }

    /// Waits for, then holds, the vault's write lock: `flock` on a fresh open of this folder, so
    /// threads of one process exclude each other as processes do.
    pub fn lock(&self) -> io::Result<Lock> {
        let fd = self.reopen()?.0;
        rustix::fs::flock(&fd, FlockOperation::LockExclusive)?;
        Ok(Lock(fd))
    }

    /// The folder's identity (device, inode) and whether it is still linked in its parent.
    pub fn identity(&self) -> io::Result<(u64, u64, bool)> {
        let stat = rustix::fs::fstat(self.0.as_fd())?;
        Ok((stat.st_dev, stat.st_ino, stat.st_nlink > 0))
    }
}

/// The kind of a file of mode `mode`.
fn kind_of(mode: u32) -> Kind {
    match FileType::from_raw_mode(mode) {
        FileType::RegularFile => Kind::File(mode & 0o7777),
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Link,
        _ => Kind::Other,
    }
}

/// Whether `error` is a symbolic link met where a folder or file was opened without following.
pub(super) fn is_link_error(error: &io::Error) -> bool {
    error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

/// The identity (device, inode) of the folder at `path`, followed.
pub(super) fn identity_of(path: &std::path::Path) -> io::Result<(u64, u64)> {
    let stat = rustix::fs::stat(path)?;
    Ok((stat.st_dev, stat.st_ino))
}
