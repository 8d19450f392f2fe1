//! Listing: every file under a folder, read on every core; the temporary files a killed writer
//! left and the folders that could not be read are noted on the way. Folders are held open and
//! each sub-folder opened from its parent without following a link (`sys::Dir`), so a folder
//! swapped for a link while the vault is listed never lists names from outside it.

use std::fs;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::FsVault;
use super::Kind;
use super::sys::Dir;
use crate::vault::{FileMeta, VaultPath};

/// What a listing found: the files, and on the way the temporary files a writer left (vault
/// paths) and the folders it could not read (each with the reason).
#[derive(Debug, Default)]
pub(super) struct Found {
    pub files: Vec<FileMeta>,
    pub temps: Vec<String>,
    pub unreadable: Vec<String>,
}

impl Found {
    fn extend(&mut self, other: Found) {
        self.files.extend(other.files);
        self.temps.extend(other.temps);
        self.unreadable.extend(other.unreadable);
    }
}

/// The longest path the system opens (Linux's `PATH_MAX`, with its final NUL).
const PATH_MAX: usize = 4096;

/// Whether `name` is a temporary file of the write path (`.scholia-PID-N.tmp`).
pub(super) fn is_temp_name(name: &str) -> bool {
    let Some(middle) = name.strip_prefix(".scholia-").and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    middle.split_once('-').is_some_and(|(pid, n)| digits(pid) && digits(n))
}

/// Why a folder could not be read, as the user can act on it.
fn unreadable(rel: &str, error: &std::io::Error) -> String {
    let folder = if rel.is_empty() { "the vault folder" } else { rel };
    let reason = match error.kind() {
        std::io::ErrorKind::InvalidFilename => {
            "its path is too long for the system (over 4096 bytes); its notes are not indexed: move them higher up".into()
        }
        std::io::ErrorKind::PermissionDenied => {
            "permission denied; its notes are not indexed: let the user running Scholia read it".into()
        }
        _ => format!("{error}; its notes are not indexed"),
    };
    format!("{folder}: {reason}")
}

impl FsVault {
    /// Every file under `dir` (vault path `rel`), in no order; hidden ones left out. Symbolic
    /// links are followed only when they stay inside the vault; linked folders are not entered
    /// (no loops, no escapes). Folders are read on every core: each thread takes the next
    /// folder found and not yet read, until none is left and no thread is reading one.
    pub(super) fn walk(&self, dir: Dir, rel: &str) -> Found {
        let mut out = Found::default();
        let mut pending = Vec::new();
        self.walk_one(&dir, rel, &mut out, &mut pending);
        let threads = crate::cores::cores().min(pending.len());
        if threads <= 1 {
            return self.walk_serial(out, pending);
        }
        // The folders waiting, and how many threads are reading one (and may find more).
        let queue = Mutex::new((pending, 0usize));
        let changed = std::sync::Condvar::new();
        let failed = AtomicBool::new(false);
        let work = || {
            let mut out = Found::default();
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
                    Ok(found) => out.extend(found),
                    Err(_) => failed.store(true, Ordering::Relaxed),
                }
            }
        });
        if failed.load(Ordering::Relaxed) {
            return self.walk_serial(Found::default(), vec![(dir, rel.to_string())]);
        }
        out
    }

    /// Adds to `out` the files of the `pending` folders and of every folder under them, on this
    /// thread.
    fn walk_serial(&self, mut out: Found, mut pending: Vec<(Dir, String)>) -> Found {
        while let Some((dir, rel)) = pending.pop() {
            self.walk_one(&dir, &rel, &mut out, &mut pending);
        }
        out
    }

    /// The files of one folder into `out`, its folders (opened) into `folders`; a folder that
    /// cannot be read (gone meanwhile is fine) is noted in `out`.
    fn walk_one(&self, dir: &Dir, rel: &str, out: &mut Found, folders: &mut Vec<(Dir, String)>) {
        let names = match dir.names() {
            Ok(names) => names,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => return out.unreadable.push(unreadable(rel, &e)),
        };
        for name in names {
            let child_rel = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            if name.starts_with('.') {
                if is_temp_name(&name) {
                    out.temps.push(child_rel);
                }
                continue;
            }
            let Ok(vpath) = VaultPath::new(&child_rel) else { continue };
            let Ok(stat) = dir.stat(&name) else { continue };
            match stat.kind {
                // Its notes could be listed through the open folder but not read by their path.
                Kind::Dir if self.root.as_os_str().len() + 1 + child_rel.len() >= PATH_MAX => {
                    let error = std::io::Error::from(std::io::ErrorKind::InvalidFilename);
                    out.unreadable.push(unreadable(vpath.as_str(), &error));
                }
                Kind::Dir => match dir.child(&name) {
                    Ok(child) => folders.push((child, vpath.as_str().to_string())),
                    // Swapped for a link since it was looked at: not entered.
                    Err(e) if super::sys::is_link_error(&e) || e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => out.unreadable.push(unreadable(vpath.as_str(), &e)),
                },
                Kind::File(_) => out.files.push(FileMeta {
                    path: vpath,
                    size: stat.size,
                    mtime_ms: stat.mtime_ms,
                    ctime_ms: stat.ctime_ms,
                }),
                Kind::Link => {
                    let full = self.root.join(vpath.as_str());
                    if self.vault_path_of(&full).is_some()
                        && let Ok(md) = fs::metadata(&full)
                        && md.is_file()
                    {
                        out.files.push(Self::meta(vpath, &md));
                    }
                }
                Kind::Other => {}
            }
        }
    }
}
