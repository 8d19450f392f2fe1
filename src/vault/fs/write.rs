//! Writes, moves and the trash. Each runs under the vault's write lock (see `sys::Dir::lock`)
//! and works in folders opened from the held root one name at a time without following a
//! link, so nothing written can land outside the vault; symbolic links inside the vault are
//! resolved by hand first, so the checks (protected folders, hidden paths, notes only) are made
//! on the real path.

use std::io;

use super::Kind;
use super::sys::Dir;
use super::{FsVault, TEMP_COUNTER};
use crate::vault::{Change, Updated, VaultError, VaultPath, trash_name};

/// Where a file is: its folder held open, its name there (as on disk) and its real vault path.
pub(super) struct Place {
    pub dir: Dir,
    pub name: String,
    pub real: VaultPath,
    /// The real path as the names are on disk (maybe not NFC).
    pub disk: String,
    /// What is there now (`None`: nothing).
    pub kind: Option<Kind>,
}

/// Symbolic links followed in one path before giving up (as the kernel's `ELOOP`).
const MAX_LINKS: usize = 40;

impl FsVault {
    /// Finds `path`: symbolic links inside the vault followed (the last one only when
    /// `follow_last`), names matched by their NFC form when not found as written, missing
    /// folders made when `make_dirs` (each checked writable first).
    pub(super) fn locate(
        &self,
        path: &VaultPath,
        follow_last: bool,
        make_dirs: bool,
    ) -> Result<Place, VaultError> {
        let mut todo: Vec<String> = path.as_str().rsplit('/').map(str::to_string).collect();
        let (mut dir, mut real) = (self.dir.reopen().map_err(|e| self.fail(path, e))?, Vec::<String>::new());
        let mut links = 0;
        while let Some(part) = todo.pop() {
            let name = on_disk(&dir, &part);
            let kind = match dir.kind(&name) {
                Ok(kind) => Some(kind),
                Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                Err(e) => return Err(self.fail(path, e)),
            };
            let last = todo.is_empty();
            match kind {
                Some(Kind::Link) if !last || follow_last => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(unsafe_write(path, "too many symbolic links on the way"));
                    }
                    let target = dir.read_link(&name).map_err(|e| self.fail(path, e))?;
                    let joined = self.link_target(path, &real, &target)?;
                    todo.extend(joined.into_iter().rev());
                    (dir, real) = (self.dir.reopen().map_err(|e| self.fail(path, e))?, Vec::new());
                }
                _ if last => {
                    real.push(name.clone());
                    let disk = real.join("/");
                    return Ok(Place { dir, name, real: VaultPath::new(&disk)?, disk, kind });
                }
                Some(Kind::Dir) => {}
                None if make_dirs => {
                    VaultPath::new(&real.join("/"))?.join(&name)?.ensure_writable()?;
                    dir.make_child(&name).map_err(|e| self.fail(path, e))?;
                }
                None => return Err(VaultError::NotFound { path: path.to_string() }),
                Some(_) => {
                    return Err(VaultError::WrongKind {
                        path: path.to_string(),
                        expected: "folder",
                        found: "file",
                    });
                }
            }
            if !matches!(kind, Some(Kind::Link)) {
                dir = dir.child(&name).map_err(|e| self.fail(path, e))?;
                real.push(name);
            }
        }
        Err(VaultError::InvalidPath {
            path: String::new(),
            reason: "the vault root is a folder, not a note".into(),
        })
    }

    /// The vault path (as components) a link in the folder `real` points to; outside the vault
    /// is an error.
    fn link_target(
        &self,
        path: &VaultPath,
        real: &[String],
        target: &str,
    ) -> Result<Vec<String>, VaultError> {
        let outside = || VaultError::OutsideVault { path: path.to_string() };
        let (mut parts, rest) = match target.strip_prefix('/') {
            Some(_) => {
                let rel = std::path::Path::new(target).strip_prefix(&self.root).map_err(|_| outside())?;
                (Vec::new(), rel.to_string_lossy().into_owned())
            }
            None => (real.to_vec(), target.to_string()),
        };
        for part in rest.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop().ok_or_else(outside)?;
                }
                _ => parts.push(part.to_string()),
            }
        }
        Ok(parts)
    }

    /// The update step of [`crate::vault::Vault::update_with`], under the lock.
    pub(super) fn update_locked(
        &self,
        path: &VaultPath,
        change: &mut dyn FnMut(Option<&str>) -> Change,
    ) -> Result<Updated, VaultError> {
        path.ensure_note()?;
        let place = match self.locate(path, true, false) {
            Err(VaultError::NotFound { .. }) => None,
            other => Some(other?),
        };
        if let Some(place) = &place {
            place.real.ensure_note()?;
        }
        let old = match &place {
            Some(Place { dir, name, kind: Some(Kind::File(_)), .. }) => {
                let bytes = dir.read(name).map_err(|e| self.fail(path, e))?;
                Some(String::from_utf8(bytes).map_err(|_| VaultError::NotText { path: path.to_string() })?)
            }
            Some(Place { kind: Some(Kind::Dir), .. }) => {
                return Err(VaultError::WrongKind {
                    path: path.to_string(),
                    expected: "file",
                    found: "folder",
                });
            }
            Some(Place { kind: Some(_), .. }) => return Err(unsafe_write(path, "it is not a regular file")),
            _ => None,
        };
        let mut updated = Updated { written: true, created: old.is_none(), previous: None };
        let (text, keep) = match change(old.as_deref()) {
            Change::Keep => return Ok(Updated { written: false, ..updated }),
            Change::Write(text) => (text, false),
            Change::Replace(text) => (text, old.is_some()),
        };
        let place = match place {
            Some(place) if place.kind.is_some() => place,
            _ => self.locate(path, true, true)?,
        };
        place.real.ensure_note()?;
        match &place.kind {
            None => self.put_new(path, &place, &text)?,
            Some(Kind::File(mode)) => {
                if keep {
                    updated.previous = Some(self.keep_previous(path, &place, *mode)?);
                }
                self.put_over(path, &place, *mode, &text)?;
            }
            Some(_) => return Err(VaultError::AlreadyExists { path: path.to_string() }),
        }
        self.wrote(path);
        if place.real != *path {
            self.wrote(&place.real);
        }
        Ok(updated)
    }

    /// Writes `text` as the new file of `place`, never replacing anything.
    fn put_new(&self, path: &VaultPath, place: &Place, text: &str) -> Result<(), VaultError> {
        let tmp = self.temp(path, &place.dir, 0o666, text)?;
        let done = place.dir.rename_new(&tmp, &place.dir, &place.name);
        if done.is_err() {
            let _ = place.dir.remove(&tmp);
        }
        done.map_err(|e| self.fail(path, e))
    }

    /// Replaces the file of `place` by `text` (with its mode) in one rename.
    fn put_over(&self, path: &VaultPath, place: &Place, mode: u32, text: &str) -> Result<(), VaultError> {
        let tmp = self.temp(path, &place.dir, mode, text)?;
        let done = place.dir.rename_over(&tmp, &place.dir, &place.name);
        if done.is_err() {
            let _ = place.dir.remove(&tmp);
        }
        done.map_err(|e| self.fail(path, e))
    }

    /// A new temporary file in `dir` holding `text`, synced; its name is short (a long note name
    /// stays creatable) and hidden.
    fn temp(&self, path: &VaultPath, dir: &Dir, mode: u32, text: &str) -> Result<String, VaultError> {
        loop {
            let n = TEMP_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let name = format!(".scholia-{}-{n}.tmp", std::process::id());
            match dir.create(&name, mode, text.as_bytes()) {
                Ok(()) => return Ok(name),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    let _ = dir.remove(&name);
                    return Err(self.fail(path, e));
                }
            }
        }
    }

    /// Keeps the note of `place` as it is in `.trash/` (a hard link, else a copy) and returns
    /// where; the note stays at its path.
    fn keep_previous(&self, path: &VaultPath, place: &Place, mode: u32) -> Result<VaultPath, VaultError> {
        let trash = self.trash_dir(path)?;
        let mut copy = None;
        self.with_trash_name(path, |name| {
            if copy.is_none() {
                match place.dir.link(&place.name, &trash, name) {
                    Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {}
                    other => return other,
                }
                copy = Some(place.dir.read(&place.name)?);
            }
            trash.create(name, mode, copy.as_deref().unwrap_or_default())
        })
    }

    /// Moves the file (or link) at `path` to `.trash/`, under a name nothing has there.
    pub(super) fn trash_locked(&self, path: &VaultPath) -> Result<VaultPath, VaultError> {
        path.ensure_writable()?;
        let place = self.locate(path, false, false)?;
        place.real.ensure_writable()?;
        match place.kind {
            Some(Kind::File(_) | Kind::Link) => {}
            Some(Kind::Dir) => {
                return Err(VaultError::WrongKind {
                    path: path.to_string(),
                    expected: "file",
                    found: "folder",
                });
            }
            _ => return Err(VaultError::NotFound { path: path.to_string() }),
        }
        let trash = self.trash_dir(path)?;
        let target = self.with_trash_name(path, |name| place.dir.rename_new(&place.name, &trash, name))?;
        self.wrote(path);
        Ok(target)
    }

    /// Runs `put` with `.trash/` names for `path` until one is free (`put` fails with
    /// `AlreadyExists` on a taken one); returns the name used.
    fn with_trash_name(
        &self,
        path: &VaultPath,
        mut put: impl FnMut(&str) -> io::Result<()>,
    ) -> Result<VaultPath, VaultError> {
        let stamp = jiff::Zoned::now().strftime("%Y-%m-%d %H%M%S").to_string();
        for n in 1.. {
            let target = trash_name(path, &stamp, n);
            match put(target.file_name()) {
                Ok(()) => return Ok(target),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(self.fail(path, e)),
            }
        }
        unreachable!("the names run out after usize::MAX tries")
    }

    /// The vault's `.trash/` folder, made when missing; a link there is refused.
    fn trash_dir(&self, path: &VaultPath) -> Result<Dir, VaultError> {
        let refuse = || {
            unsafe_write(
                path,
                "the vault's .trash is not a folder (a symbolic link?); Scholia keeps old versions only in a real \
                 .trash folder inside the vault: make .trash a folder",
            )
        };
        match self.dir.kind(".trash") {
            Ok(Kind::Dir) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.dir.make_child(".trash").map_err(|e| self.fail(path, e))?;
            }
            _ => return Err(refuse()),
        }
        self.dir.child(".trash").map_err(|_| refuse())
    }

    /// Removes the temporary files a listing found (`paths`, vault paths), under the write lock:
    /// every writer holds it while its temporary file exists, so one still there was left by a
    /// writer that was killed. Best effort: one that cannot be removed stays hidden.
    pub(super) fn sweep_temps(&self, paths: &[String]) {
        let Ok(_lock) = self.dir.lock() else { return };
        for path in paths.iter().filter_map(|p| VaultPath::new(p).ok()) {
            if let Ok(place @ Place { kind: Some(Kind::File(_)), .. }) = self.locate(&path, false, false)
                && super::walk::is_temp_name(&place.name)
            {
                let _ = place.dir.remove(&place.name);
            }
        }
    }

    /// Moves `from` to `to` (which must be free) under the lock.
    pub(super) fn rename_locked(&self, from: &VaultPath, to: &VaultPath) -> Result<(), VaultError> {
        from.ensure_movable()?;
        to.ensure_writable()?;
        from.ensure_same_kind(to)?;
        let src = self.locate(from, false, false)?;
        src.real.ensure_movable()?;
        if src.kind.is_none() {
            return Err(VaultError::NotFound { path: from.to_string() });
        }
        let dst = self.locate(to, false, true)?;
        dst.real.ensure_writable()?;
        if dst.kind.is_some() {
            return Err(VaultError::AlreadyExists { path: to.to_string() });
        }
        src.dir.rename_new(&src.name, &dst.dir, &dst.name).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => VaultError::AlreadyExists { path: to.to_string() },
            _ => self.fail(from, e),
        })?;
        self.wrote(from);
        self.wrote(to);
        Ok(())
    }
}

/// The name of `part` in `dir`: as written when something has that name, else the name there
/// whose NFC form it is (a name written decomposed, as macOS does), else as written.
fn on_disk(dir: &Dir, part: &str) -> String {
    use unicode_normalization::UnicodeNormalization as _;
    if !matches!(dir.kind(part), Err(e) if e.kind() == io::ErrorKind::NotFound) || part.is_ascii() {
        return part.to_string();
    }
    let names = dir.names().unwrap_or_default();
    names.into_iter().find(|name| name.nfc().eq(part.chars())).unwrap_or_else(|| part.to_string())
}

fn unsafe_write(path: &VaultPath, reason: &str) -> VaultError {
    VaultError::Unsafe { path: path.to_string(), reason: reason.to_string() }
}
