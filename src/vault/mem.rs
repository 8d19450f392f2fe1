//! `MemVault`: a vault in memory, for tests and for the wasm front end.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::{Change, DirEntry, FileMeta, Updated, Vault, VaultError, VaultPath, trash_name};

#[derive(Debug, Clone)]
struct Entry {
    text: String,
    mtime: i64,
    ctime: i64,
}

/// A vault held in memory. Its clock is a counter: every write gets a later "time" than the last.
#[derive(Debug, Default)]
pub struct MemVault {
    files: Mutex<BTreeMap<VaultPath, Entry>>,
    clock: Mutex<i64>,
}

impl MemVault {
    /// An empty vault.
    pub fn new() -> Self {
        Self::default()
    }

    /// A vault holding `files` (path, text), as a folder on disk may hold them (hidden files
    /// and settings too); invalid paths are refused.
    pub fn with_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, VaultError> {
        let vault = Self::new();
        for (path, text) in files {
            let now = vault.tick();
            let entry = Entry { text: text.to_string(), mtime: now, ctime: now };
            vault.files().insert(VaultPath::new(path)?, entry);
        }
        Ok(vault)
    }

    fn tick(&self) -> i64 {
        let mut clock = self.clock.lock().unwrap_or_else(|e| e.into_inner());
        *clock += 1;
        *clock
    }

    fn files(&self) -> std::sync::MutexGuard<'_, BTreeMap<VaultPath, Entry>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn is_dir(files: &BTreeMap<VaultPath, Entry>, path: &VaultPath) -> bool {
        path.is_root() || files.keys().any(|p| p != path && p.is_within(path))
    }

    fn meta(path: &VaultPath, entry: &Entry) -> FileMeta {
        FileMeta {
            path: path.clone(),
            size: entry.text.len() as u64,
            mtime_ms: entry.mtime,
            ctime_ms: entry.ctime,
        }
    }
}

impl Vault for MemVault {
    fn list(&self, folder: &VaultPath) -> Result<Vec<FileMeta>, VaultError> {
        let files = self.files();
        if !Self::is_dir(&files, folder) {
            return Err(VaultError::NotFound { path: folder.to_string() });
        }
        Ok(files
            .iter()
            .filter(|(p, _)| p.is_within(folder) && !p.is_hidden())
            .map(|(p, e)| Self::meta(p, e))
            .collect())
    }

    fn list_dir(&self, folder: &VaultPath) -> Result<Vec<DirEntry>, VaultError> {
        let files = self.files();
        if !Self::is_dir(&files, folder) {
            return Err(VaultError::NotFound { path: folder.to_string() });
        }
        let mut out: Vec<DirEntry> = Vec::new();
        for path in files.keys().filter(|p| p.is_within(folder) && *p != folder) {
            let rest =
                if folder.is_root() { path.as_str() } else { &path.as_str()[folder.as_str().len() + 1..] };
            let (name, is_dir) = match rest.split_once('/') {
                Some((dir, _)) => (dir, true),
                None => (rest, false),
            };
            if name.starts_with('.') {
                continue;
            }
            let child = folder.join(name)?;
            if !out.iter().any(|e| e.path == child) {
                out.push(DirEntry { path: child, is_dir });
            }
        }
        out.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.path.cmp(&b.path)));
        Ok(out)
    }

    fn read(&self, path: &VaultPath) -> Result<String, VaultError> {
        let files = self.files();
        match files.get(path) {
            Some(entry) => Ok(entry.text.clone()),
            None if Self::is_dir(&files, path) => {
                Err(VaultError::WrongKind { path: path.to_string(), expected: "file", found: "folder" })
            }
            None => Err(VaultError::NotFound { path: path.to_string() }),
        }
    }

    fn stat(&self, path: &VaultPath) -> Result<FileMeta, VaultError> {
        let files = self.files();
        files
            .get(path)
            .map(|e| Self::meta(path, e))
            .ok_or_else(|| VaultError::NotFound { path: path.to_string() })
    }

    fn exists(&self, path: &VaultPath) -> bool {
        let files = self.files();
        files.contains_key(path) || Self::is_dir(&files, path)
    }

    fn create_new(&self, path: &VaultPath, content: &str) -> Result<(), VaultError> {
        path.ensure_writable()?;
        let now = self.tick();
        let mut files = self.files();
        if files.contains_key(path) || Self::is_dir(&files, path) {
            return Err(VaultError::AlreadyExists { path: path.to_string() });
        }
        files.insert(path.clone(), Entry { text: content.to_string(), mtime: now, ctime: now });
        Ok(())
    }

    fn write(&self, path: &VaultPath, content: &str) -> Result<(), VaultError> {
        path.ensure_writable()?;
        let now = self.tick();
        let mut files = self.files();
        if Self::is_dir(&files, path) {
            return Err(VaultError::WrongKind { path: path.to_string(), expected: "file", found: "folder" });
        }
        let ctime = files.get(path).map_or(now, |e| e.ctime);
        files.insert(path.clone(), Entry { text: content.to_string(), mtime: now, ctime });
        Ok(())
    }

    fn update_with(
        &self,
        path: &VaultPath,
        change: &mut dyn FnMut(Option<&str>) -> Change,
    ) -> Result<Updated, VaultError> {
        path.ensure_writable()?;
        let now = self.tick();
        let mut files = self.files();
        if Self::is_dir(&files, path) {
            return Err(VaultError::WrongKind { path: path.to_string(), expected: "file", found: "folder" });
        }
        let old = files.get(path).cloned();
        let mut updated = Updated { written: true, created: old.is_none(), previous: None };
        let text = match (change(old.as_ref().map(|e| e.text.as_str())), old.clone()) {
            (Change::Keep, _) => return Ok(Updated { written: false, ..updated }),
            (Change::Write(text), _) | (Change::Replace(text), None) => text,
            (Change::Replace(text), Some(entry)) => {
                let stamp = format!("{now:06}");
                let target = (1..).map(|n| trash_name(path, &stamp, n)).find(|p| !files.contains_key(p));
                let target = target.unwrap_or_else(VaultPath::root);
                files.insert(target.clone(), entry);
                updated.previous = Some(target);
                text
            }
        };
        let ctime = old.map_or(now, |e| e.ctime);
        files.insert(path.clone(), Entry { text, mtime: now, ctime });
        Ok(updated)
    }

    fn trash(&self, path: &VaultPath) -> Result<VaultPath, VaultError> {
        path.ensure_writable()?;
        let stamp = format!("{:06}", self.tick());
        let mut files = self.files();
        let entry = files.remove(path).ok_or_else(|| VaultError::NotFound { path: path.to_string() })?;
        let target = (1..).map(|n| trash_name(path, &stamp, n)).find(|p| !files.contains_key(p));
        let target = target.unwrap_or_else(VaultPath::root);
        files.insert(target.clone(), entry);
        Ok(target)
    }

    fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<(), VaultError> {
        from.ensure_movable()?;
        to.ensure_writable()?;
        let mut files = self.files();
        if files.contains_key(to) || Self::is_dir(&files, to) {
            return Err(VaultError::AlreadyExists { path: to.to_string() });
        }
        let entry = files.remove(from).ok_or_else(|| VaultError::NotFound { path: from.to_string() })?;
        files.insert(to.clone(), entry);
        Ok(())
    }

    fn absolute(&self, path: &VaultPath) -> String {
        format!("/{}", path.as_str())
    }
}
