//! `FsVault`: the vault on disk. The only module of the crate that touches `std::fs`.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::{DirEntry, FileMeta, Vault, VaultError, VaultPath, trash_name};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Whether the kernel lets this process use `openat2` (set to false at the first refusal).
#[cfg(target_os = "linux")]
static OPENAT2: AtomicBool = AtomicBool::new(true);

/// A vault folder on disk.
#[derive(Debug, Clone)]
pub struct FsVault {
    root: PathBuf,
    /// The root folder held open: notes are opened beneath it by the kernel (`openat2`).
    #[cfg(target_os = "linux")]
    root_dir: Option<Arc<std::os::fd::OwnedFd>>,
    /// The paths this process wrote, shared by clones (see [`FsVault::take_written`]).
    journal: Arc<Journal>,
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
    /// Opens the vault at `root` (which must be a folder); the root is canonicalised once.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, VaultError> {
        let given = root.as_ref();
        let root = fs::canonicalize(given)
            .map_err(|_| VaultError::NotAVault { path: given.display().to_string() })?;
        if !root.is_dir() {
            return Err(VaultError::NotAVault { path: given.display().to_string() });
        }
        #[cfg(target_os = "linux")]
        let root_dir = rustix::fs::open(
            &root,
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .ok()
        .map(Arc::new);
        Ok(Self {
            root,
            #[cfg(target_os = "linux")]
            root_dir,
            journal: Arc::default(),
        })
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
        let beneath = self.root_dir.as_ref().filter(|_| OPENAT2.load(Ordering::Relaxed)).map(|dir| {
            rustix::fs::openat2(
                &**dir,
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
            _ => VaultError::Io { path: path.to_string(), source },
        }
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

    /// Writes `content` to a fresh temporary file beside `dest` and syncs it; returns its path.
    fn write_temp(&self, path: &VaultPath, dest: &Path, content: &str) -> Result<PathBuf, VaultError> {
        let dir = dest.parent().unwrap_or(&self.root);
        fs::create_dir_all(dir).map_err(|e| Self::io(path, e))?;
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{}.scholia-{}-{n}.tmp", path.file_name(), std::process::id()));
        let result = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| f.write_all(content.as_bytes()).and_then(|()| f.sync_all()));
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(Self::io(path, e));
        }
        Ok(tmp)
    }

    /// Every file under `dir` (vault path `rel`), in no order; hidden ones left out. Symbolic
    /// links are followed only when they stay inside the vault; linked folders are not entered
    /// (no loops, no escapes). Folders are read on every core: each thread takes the next
    /// folder found and not yet read, until none is left and no thread is reading one.
    fn walk(&self, dir: &Path, rel: &str) -> Vec<FileMeta> {
        let mut out = Vec::new();
        let mut pending = Vec::new();
        self.walk_one(dir, rel, &mut out, &mut pending);
        let threads = crate::index::cores::cores().min(pending.len());
        if threads <= 1 {
            return self.walk_serial(out, pending);
        }
        // The folders waiting, and how many threads are reading one (and may find more).
        let queue = Mutex::new((pending, 0usize));
        let changed = std::sync::Condvar::new();
        let failed = AtomicBool::new(false);
        let work = || {
            let mut out = Vec::new();
            let mut found = Vec::new();
            loop {
                let mut state = queue.lock().unwrap_or_else(|e| e.into_inner());
                let (dir, rel) = loop {
                    if let Some(next) = state.0.pop() {
                        state.1 += 1;
                        break next;
                    }
                    if state.1 == 0 {
                        changed.notify_all();
                        return out;
                    }
                    state = changed.wait(state).unwrap_or_else(|e| e.into_inner());
                };
                drop(state);
                // A panic would leave this folder counted as being read forever: caught, and
                // the whole listing done again on one thread.
                let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.walk_one(&dir, &rel, &mut out, &mut found);
                }));
                failed.fetch_or(read.is_err(), Ordering::Relaxed);
                let mut state = queue.lock().unwrap_or_else(|e| e.into_inner());
                state.0.append(&mut found);
                state.1 -= 1;
                changed.notify_all();
            }
        };
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
            out.extend(work());
            for helper in helpers {
                match helper.join() {
                    Ok(files) => out.extend(files),
                    Err(_) => failed.store(true, Ordering::Relaxed),
                }
            }
        });
        if failed.load(Ordering::Relaxed) {
            return self.walk_serial(Vec::new(), vec![(dir.to_path_buf(), rel.to_string())]);
        }
        out
    }

    /// Adds to `out` the files of the `pending` folders and of every folder under them, on this
    /// thread.
    fn walk_serial(&self, mut out: Vec<FileMeta>, mut pending: Vec<(PathBuf, String)>) -> Vec<FileMeta> {
        while let Some((dir, rel)) = pending.pop() {
            self.walk_one(&dir, &rel, &mut out, &mut pending);
        }
        out
    }

    /// The files of one folder into `out`, its folders into `folders`.
    fn walk_one(&self, dir: &Path, rel: &str, out: &mut Vec<FileMeta>, folders: &mut Vec<(PathBuf, String)>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let child_rel = if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") };
            let Ok(vpath) = VaultPath::new(&child_rel) else { continue };
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                folders.push((entry.path(), vpath.as_str().to_string()));
            } else if kind.is_file() {
                if let Ok(md) = entry.metadata() {
                    out.push(Self::meta(vpath, &md));
                }
            } else if kind.is_symlink() {
                let full = entry.path();
                if self.vault_path_of(&full).is_some()
                    && let Ok(md) = fs::metadata(&full)
                    && md.is_file()
                {
                    out.push(Self::meta(vpath, &md));
                }
            }
        }
    }
}

impl Vault for FsVault {
    fn list(&self, folder: &VaultPath) -> Result<Vec<FileMeta>, VaultError> {
        let dir = self.resolve(folder)?;
        if !dir.is_dir() {
            return Err(VaultError::NotFound { path: folder.to_string() });
        }
        let mut out = self.walk(&dir, folder.as_str());
        out.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn list_dir(&self, folder: &VaultPath) -> Result<Vec<DirEntry>, VaultError> {
        let dir = self.resolve(folder)?;
        let entries = fs::read_dir(&dir).map_err(|e| Self::io(folder, e))?;
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Ok(path) = folder.join(&name) else { continue };
            if self.resolve(&path).is_err() {
                continue;
            }
            let is_dir = fs::metadata(entry.path()).is_ok_and(|m| m.is_dir());
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
        let full = self.resolve(path)?;
        if full.is_dir() {
            return Err(VaultError::WrongKind { path: path.to_string(), expected: "file", found: "folder" });
        }
        let bytes = fs::read(&full).map_err(|e| Self::io(path, e))?;
        String::from_utf8(bytes).map_err(|_| VaultError::NotText { path: path.to_string() })
    }

    fn stat(&self, path: &VaultPath) -> Result<FileMeta, VaultError> {
        let full = self.resolve(path)?;
        let md = fs::metadata(&full).map_err(|e| Self::io(path, e))?;
        Ok(Self::meta(path.clone(), &md))
    }

    fn exists(&self, path: &VaultPath) -> bool {
        self.resolve(path).is_ok_and(|full| full.exists())
    }

    fn create_new(&self, path: &VaultPath, content: &str) -> Result<(), VaultError> {
        path.ensure_writable()?;
        let dest = self.resolve(path)?;
        if dest.exists() {
            return Err(VaultError::AlreadyExists { path: path.to_string() });
        }
        let tmp = self.write_temp(path, &dest, content)?;
        // A hard link never replaces an existing file: the no-clobber half of an atomic create.
        let linked = fs::hard_link(&tmp, &dest);
        let _ = fs::remove_file(&tmp);
        self.wrote(path);
        match linked {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Err(VaultError::AlreadyExists { path: path.to_string() })
            }
            Err(_) => {
                // File systems without hard links: fall back to an exclusive create.
                let mut file = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&dest)
                    .map_err(|e| Self::io(path, e))?;
                file.write_all(content.as_bytes()).map_err(|e| Self::io(path, e))
            }
        }
    }

    fn write(&self, path: &VaultPath, content: &str) -> Result<(), VaultError> {
        path.ensure_writable()?;
        let dest = self.resolve(path)?;
        if dest.is_dir() {
            return Err(VaultError::WrongKind { path: path.to_string(), expected: "file", found: "folder" });
        }
        let tmp = self.write_temp(path, &dest, content)?;
        fs::rename(&tmp, &dest).map_err(|e| {
            let _ = fs::remove_file(&tmp);
            Self::io(path, e)
        })?;
        self.wrote(path);
        Ok(())
    }

    fn trash(&self, path: &VaultPath) -> Result<VaultPath, VaultError> {
        path.ensure_writable()?;
        let src = self.resolve(path)?;
        if !src.is_file() {
            return Err(VaultError::NotFound { path: path.to_string() });
        }
        let stamp = jiff::Zoned::now().strftime("%Y-%m-%d %H%M%S").to_string();
        let target = trash_name(path, &stamp, |p| self.root.join(p.as_str()).exists());
        let dest = self.root.join(target.as_str());
        fs::create_dir_all(self.root.join(".trash")).map_err(|e| Self::io(&target, e))?;
        fs::rename(&src, &dest).map_err(|e| Self::io(path, e))?;
        self.wrote(path);
        Ok(target)
    }

    fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<(), VaultError> {
        from.ensure_movable()?;
        to.ensure_writable()?;
        let src = self.resolve(from)?;
        let dest = self.resolve(to)?;
        if dest.exists() {
            return Err(VaultError::AlreadyExists { path: to.to_string() });
        }
        if !src.exists() {
            return Err(VaultError::NotFound { path: from.to_string() });
        }
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent).map_err(|e| Self::io(to, e))?;
        }
        fs::rename(&src, &dest).map_err(|e| Self::io(from, e))?;
        self.wrote(from);
        self.wrote(to);
        Ok(())
    }

    fn absolute(&self, path: &VaultPath) -> String {
        self.root.join(path.as_str()).display().to_string()
    }
}
