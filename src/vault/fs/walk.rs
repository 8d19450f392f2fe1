//! Listing: every file under a folder, read on every core.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::FsVault;
use crate::vault::{FileMeta, VaultPath};

impl FsVault {
    /// Every file under `dir` (vault path `rel`), in no order; hidden ones left out. Symbolic
    /// links are followed only when they stay inside the vault; linked folders are not entered
    /// (no loops, no escapes). Folders are read on every core: each thread takes the next
    /// folder found and not yet read, until none is left and no thread is reading one.
    pub(super) fn walk(&self, dir: &Path, rel: &str) -> Vec<FileMeta> {
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
