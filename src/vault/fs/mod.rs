//! `FsVault`: the vault on disk. The only module of the crate that touches `std::fs`.
//!
//! Reads open notes beneath the held root folder (`openat2` on Linux). Writes, moves and the
//! trash (`write.rs`) run one at a time under the vault's lock, shared with every other process
//! that opens the vault, in folders opened from the held root without following a link
//! (`dir.rs` on Linux; `dir_std.rs`, by path and best effort, elsewhere). Listing is `walk.rs`.

#[cfg(target_os = "linux")]
mod dir;
#[cfg_attr(target_os = "linux", allow(dead_code))]
mod dir_std;
mod walk;
mod write;

#[cfg(target_os = "linux")]
use dir as sys;
#[cfg(not(target_os = "linux"))]
use dir_std as sys;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::{Change, DirEntry, FileMeta, Updated, Vault, VaultError, VaultPath};

/// What a name in a folder is, without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A regular file, with its permission bits (0o644 where the system has none).
    File(u32),
    Dir,
    Link,
    Other,
}

/// What a name in a folder is (a link not followed), with its size and times.
#[derive(Debug, Clone, Copy)]
struct Stat {
    kind: Kind,
    size: u64,
    /// Last modification, ms since the Unix epoch.
    mtime_ms: i64,
    /// Birth time where the file system records it, else the modification time, ms.
    ctime_ms: i64,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Whether the kernel lets this process use `openat2` (set to false at the first refusal).
#[cfg(target_os = "linux")]
static OPENAT2: AtomicBool = AtomicBool::new(true);

/// A vault folder on disk.
#[derive(Debug, Clone)]
pub struct FsVault {
    root: PathBuf,
    /// The root folder held open: notes are read and written beneath it.
    dir: Arc<sys::Dir>,
    /// The paths this process wrote, shared by clones (see [`FsVault::take_written`]).
    journal: Arc<Journal>,
    /// The folders the last listing of the whole vault could not read.
    unreadable: Arc<Mutex<Vec<String>>>,
}

/// The paths written through a vault since they were last taken.
#[derive(Debug, Default)]
struct Journal {
    paths: Mutex<Vec<VaultPath>>,
    /// More than [`JOURNAL_CAP`] paths were written: the taker must check every file.
    overflowed: AtomicBool,
}

/// Paths the journal holds before it stops listing them (nobody is taking them).
const JOURNAL_CAP: usize = 4096;

impl FsVault {
    /// Opens the vault at `root` (which must be a folder); the root is canonicalised once and
    /// held open.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, VaultError> {
        let given = root.as_ref();
        let not_a_vault = || VaultError::NotAVault { path: given.display().to_string() };
        let root = fs::canonicalize(given).map_err(|_| not_a_vault())?;
        let dir = sys::Dir::open_root(&root).map_err(|_| not_a_vault())?;
        Ok(Self { root, dir: Arc::new(dir), journal: Arc::default(), unreadable: Arc::default() })
    }

    /// Fails with [`VaultError::VaultGone`] when the root folder is no longer where it was
    /// opened (moved, renamed or deleted).
    fn ensure_here(&self) -> Result<(), VaultError> {
        let gone = || VaultError::VaultGone { root: self.root.display().to_string() };
        let (dev, ino, linked) = self.dir.identity().map_err(|_| gone())?;
        match sys::identity_of(&self.root) {
            Ok(now) if linked && now == (dev, ino) => Ok(()),
            _ => Err(gone()),
        }
    }

    /// Runs `f` under the vault's write lock, the vault checked to be still there.
    fn locked<T>(
        &self,
        path: &VaultPath,
        f: impl FnOnce() -> Result<T, VaultError>,
    ) -> Result<T, VaultError> {
        self.ensure_here()?;
        let _lock = self.dir.lock().map_err(|e| self.fail(path, e))?;
        f()
    }

    /// The paths written, created, trashed or renamed (both ends) through this vault (or a clone)
    /// since the last call, so an index can apply its own process's writes without rescanning;
    /// `None` when there were too many to list (check every file).
    pub fn take_written(&self) -> Option<Vec<VaultPath>> {
        let mut paths = self.journal.paths.lock().unwrap_or_else(|e| e.into_inner());
        let paths = std::mem::take(&mut *paths);
        if self.journal.overflowed.swap(false, Ordering::SeqCst) { None } else { Some(paths) }
    }

    fn wrote(&self, path: &VaultPath) {
        let mut paths = self.journal.paths.lock().unwrap_or_else(|e| e.into_inner());
        if paths.len() >= JOURNAL_CAP {
            paths.clear();
            self.journal.overflowed.store(true, Ordering::SeqCst);
        }
        if !self.journal.overflowed.load(Ordering::SeqCst) {
            paths.push(path.clone());
        }
    }

    /// Where `path` really is in the vault: symbolic links inside the vault followed (the path
    /// itself when nothing is there).
    pub fn real_path(&self, path: &VaultPath) -> Result<VaultPath, VaultError> {
        match self.locate(path, true, false) {
            Ok(place) => Ok(place.real),
            Err(VaultError::NotFound { .. }) => Ok(path.clone()),
            Err(err) => Err(err),
        }
    }

    /// The folders the last listing of the whole vault could not read, each with the reason
    /// (their notes are missing from the listing and the index).
    pub fn unreadable(&self) -> Vec<String> {
        self.unreadable.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Fails with [`VaultError::VaultGone`] when the vault folder was moved, renamed or deleted
    /// since it was opened.
    pub fn check_present(&self) -> Result<(), VaultError> {
        self.ensure_here()
    }

    /// The canonical root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The vault path of a filesystem path inside the vault (`None` when it is outside).
    pub fn vault_path_of(&self, file: &Path) -> Option<VaultPath> {
        let canonical = fs::canonicalize(file).ok()?;
        let rel = canonical.strip_prefix(&self.root).ok()?;
        VaultPath::new(&rel.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/")).ok()
    }

    /// The filesystem path of `path`, checked not to lead outside the vault through a symlink:
    /// the deepest existing ancestor is canonicalised and must lie under the root.
    fn resolve(&self, path: &VaultPath) -> Result<PathBuf, VaultError> {
        let full = self.root.join(path.as_str());
        let mut probe = full.as_path();
        loop {
            if let Ok(canonical) = fs::canonicalize(probe) {
                if !canonical.starts_with(&self.root) {
                    return Err(VaultError::OutsideVault { path: path.to_string() });
                }
                return Ok(full);
            }
            match probe.parent() {
                Some(parent) => probe = parent,
                None => return Ok(full),
            }
        }
    }

    /// The filesystem path of `path` ([`FsVault::resolve`]); when nothing is there and the path
    /// has names beyond ASCII, the file whose names have that NFC form (a name written
    /// decomposed, as macOS does), its own bytes kept.
    fn full(&self, path: &VaultPath) -> Result<PathBuf, VaultError> {
        let full = self.resolve(path)?;
        if path.as_str().is_ascii() || full.symlink_metadata().is_ok() {
            return Ok(full);
        }
        match self.locate(path, true, false) {
            Ok(place) if place.kind.is_some() => Ok(self.root.join(place.disk)),
            _ => Ok(full),
        }
    }

    /// The folder `folder`, opened beneath the held root to be listed (links inside the vault
    /// followed by hand); refused when a symbolic link leads it into a hidden folder (`.obsidian`,
    /// `.git`, …), whose names are listed by their own name only.
    fn listable(&self, folder: &VaultPath) -> Result<sys::Dir, VaultError> {
        let not_found = || VaultError::NotFound { path: folder.to_string() };
        if folder.is_root() {
            return self.dir.reopen().map_err(|e| self.fail(folder, e));
        }
        let place = self.locate(folder, true, false)?;
        if place.real != *folder && place.real.is_hidden() && !folder.is_hidden() {
            return Err(VaultError::InvalidPath {
                path: folder.to_string(),
                reason: format!(
                    "it is a symbolic link into the hidden folder {}; Scholia does not list hidden folders \
                     through links (list the folders that hold notes)",
                    place.real
                ),
            });
        }
        if place.kind != Some(Kind::Dir) {
            return Err(not_found());
        }
        place
            .dir
            .child(&place.name)
            .map_err(|e| if sys::is_link_error(&e) { not_found() } else { self.fail(folder, e) })
    }

    /// Reads the note at `path`, opened by the kernel beneath the root folder (`openat2` with
    /// `RESOLVE_BENEATH`: no `..` and no symlink may lead out of it): one call for the open and
    /// the vault check, which the index build pays for every note. Where that is refused (an
    /// absolute symlink, even one into the vault; a kernel before 5.6), the file is opened by
    /// its path and the kernel asked where the open file is (`/proc/self/fd`). `None` when the
    /// file cannot be opened or the kernel not asked: then [`FsVault::resolve`] decides, and
    /// says why.
    #[cfg(target_os = "linux")]
    fn read_opened(&self, path: &VaultPath) -> Option<Result<String, VaultError>> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        use std::os::fd::AsRawFd as _;
        let beneath = OPENAT2.load(Ordering::Relaxed).then(|| {
            rustix::fs::openat2(
                self.dir.fd(),
                path.as_str(),
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY,
                Mode::empty(),
                ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
            )
        });
        let file = match beneath {
            Some(Ok(fd)) => fs::File::from(fd),
            Some(Err(rustix::io::Errno::NOENT)) => return None,
            other => {
                if let Some(Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM)) = other {
                    OPENAT2.store(false, Ordering::Relaxed);
                }
                let file = fs::File::open(self.root.join(path.as_str())).ok()?;
                let real = fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
                if !real.starts_with(&self.root) {
                    return Some(Err(VaultError::OutsideVault { path: path.to_string() }));
                }
                file
            }
        };
        Some(Self::read_file(path, file))
    }

    /// Reads an open file to its end, as text.
    #[cfg(target_os = "linux")]
    fn read_file(path: &VaultPath, mut file: fs::File) -> Result<String, VaultError> {
        use std::io::Read as _;
        let md = file.metadata().map_err(|e| Self::io(path, e))?;
        if md.is_dir() {
            return Err(VaultError::WrongKind { path: path.to_string(), expected: "file", found: "folder" });
        }
        // Read to the end by hand: `read_to_end` would ask the file's size and position again.
        let mut bytes = vec![0; md.len() as usize + 1];
        let mut len = 0;
        loop {
            if len == bytes.len() {
                bytes.resize(len * 2, 0);
            }
            match file.read(&mut bytes[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Self::io(path, e)),
            }
        }
        bytes.truncate(len);
        String::from_utf8(bytes).map_err(|_| VaultError::NotText { path: path.to_string() })
    }

    fn io(path: &VaultPath, source: std::io::Error) -> VaultError {
        match source.kind() {
            std::io::ErrorKind::NotFound => VaultError::NotFound { path: path.to_string() },
            std::io::ErrorKind::AlreadyExists => VaultError::AlreadyExists { path: path.to_string() },
            std::io::ErrorKind::InvalidFilename => VaultError::InvalidPath {
                path: path.to_string(),
                reason: "a name in it is too long for the file system (at most 255 bytes)".into(),
            },
            _ => VaultError::Io { path: path.to_string(), source },
        }
    }

    /// The error of a write that failed with `source`: the vault gone, a symbolic link that
    /// appeared where a folder was (never followed), or the system's error.
    fn fail(&self, path: &VaultPath, source: std::io::Error) -> VaultError {
        if let Err(gone) = self.ensure_here() {
            return gone;
        }
        if sys::is_link_error(&source) {
            return VaultError::Unsafe {
                path: path.to_string(),
                reason:
                    "a symbolic link stands where a folder was (or it appeared while writing); Scholia never \
                         writes through one"
                        .into(),
            };
        }
        Self::io(path, source)
    }

    fn meta(path: VaultPath, md: &fs::Metadata) -> FileMeta {
        let ms = |t: std::io::Result<SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as i64)
        };
        let mtime_ms = ms(md.modified());
        let ctime = ms(md.created());
        FileMeta { path, size: md.len(), mtime_ms, ctime_ms: if ctime == 0 { mtime_ms } else { ctime } }
    }
}

impl Vault for FsVault {
    fn list(&self, folder: &VaultPath) -> Result<Vec<FileMeta>, VaultError> {
        self.ensure_here()?;
        let dir = self.listable(folder)?;
        let mut found = self.walk(dir, folder.as_str());
        if !found.temps.is_empty() {
            self.sweep_temps(&found.temps);
        }
        found.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        found.files.dedup_by(|b, a| {
            let twin = a.path == b.path;
            if twin {
                found.unreadable.push(format!(
                    "{}: two files here have this name, written in different Unicode forms (composed and \
                     decomposed); Scholia reads and writes the composed one only: rename the other",
                    a.path
                ));
            }
            twin
        });
        if folder.is_root() {
            *self.unreadable.lock().unwrap_or_else(|e| e.into_inner()) = found.unreadable;
        }
        Ok(found.files)
    }

    fn list_dir(&self, folder: &VaultPath) -> Result<Vec<DirEntry>, VaultError> {
        self.ensure_here()?;
        let dir = self.listable(folder)?;
        let names = dir.names().map_err(|e| Self::io(folder, e))?;
        let mut out = Vec::new();
        for name in names {
            if name.starts_with('.') {
                continue;
            }
            let Ok(path) = folder.join(&name) else { continue };
            let is_dir = match dir.kind(&name) {
                Ok(Kind::Dir) => true,
                Ok(Kind::File(_)) => false,
                // A link: listed when it stays inside the vault, as what it leads to.
                Ok(Kind::Link) => match self.resolve(&path) {
                    Ok(full) => fs::metadata(full).is_ok_and(|m| m.is_dir()),
                    Err(_) => continue,
                },
                _ => continue,
            };
            out.push(DirEntry { path, is_dir });
        }
        out.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.path.cmp(&b.path)));
        Ok(out)
    }

    fn read(&self, path: &VaultPath) -> Result<String, VaultError> {
        #[cfg(target_os = "linux")]
        if let Some(read) = self.read_opened(path) {
            return read;
        }
        let full = self.full(path)?;
        if full.is_dir() {
            return Err(VaultError::WrongKind { path: path.to_string(), expected: "file", found: "folder" });
        }
        let bytes = fs::read(&full).map_err(|e| self.fail(path, e))?;
        String::from_utf8(bytes).map_err(|_| VaultError::NotText { path: path.to_string() })
    }

    fn stat(&self, path: &VaultPath) -> Result<FileMeta, VaultError> {
        let full = self.full(path)?;
        let md = fs::metadata(&full).map_err(|e| self.fail(path, e))?;
        Ok(Self::meta(path.clone(), &md))
    }

    fn exists(&self, path: &VaultPath) -> bool {
        self.full(path).is_ok_and(|full| full.exists())
    }

    fn create_new(&self, path: &VaultPath, content: &str) -> Result<(), VaultError> {
        let mut create = |old: Option<&str>| match old {
            None => Change::Write(content.to_string()),
            Some(_) => Change::Keep,
        };
        match self.update_with(path, &mut create)? {
            Updated { written: false, .. } => Err(VaultError::AlreadyExists { path: path.to_string() }),
            _ => Ok(()),
        }
    }

    fn write(&self, path: &VaultPath, content: &str) -> Result<(), VaultError> {
        self.update_with(path, &mut |_| Change::Write(content.to_string())).map(|_| ())
    }

    fn update_with(
        &self,
        path: &VaultPath,
        change: &mut dyn FnMut(Option<&str>) -> Change,
    ) -> Result<Updated, VaultError> {
        self.locked(path, || self.update_locked(path, change))
    }

    fn trash(&self, path: &VaultPath) -> Result<VaultPath, VaultError> {
        self.locked(path, || self.trash_locked(path))
    }

    fn trash_if(
        &self,
        path: &VaultPath,
        still: &mut dyn FnMut(Option<&str>) -> bool,
    ) -> Result<Option<VaultPath>, VaultError> {
        self.locked(path, || {
            let text = self.read(path).ok();
            if still(text.as_deref()) { self.trash_locked(path).map(Some) } else { Ok(None) }
        })
    }

    fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<(), VaultError> {
        self.locked(from, || self.rename_locked(from, to))
    }

    fn absolute(&self, path: &VaultPath) -> String {
        self.root.join(path.as_str()).display().to_string()
    }
}
