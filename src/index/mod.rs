//! A full-text index over a [`Vault`]'s notes, kept fresh by modification times: ranked search
//! (BM25, note names weighted) without reading every note on every query. Pure over the `Vault`
//! trait, so the plugin can use it too.

pub mod graph;

use std::collections::{BTreeMap, HashMap};

use crate::vault::{FileMeta, Vault, VaultError, VaultPath};

/// One indexed note.
#[derive(Debug, Clone)]
struct Doc {
    mtime_ms: i64,
    size: u64,
    /// Words in the note.
    len: u32,
    /// (term id, count), sorted by term id; words of the note's name count three times.
    terms: Vec<(u32, u32)>,
}

/// The index: term ids, per-note term counts, document frequencies.
#[derive(Debug, Default)]
pub struct TextIndex {
    ids: HashMap<String, u32>,
    df: Vec<u32>,
    docs: BTreeMap<VaultPath, Doc>,
    total_len: u64,
}

/// What a refresh did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refresh {
    /// Notes read and (re)indexed.
    pub indexed: usize,
    /// Notes dropped because they are gone.
    pub removed: usize,
    /// Notes in the index now.
    pub total: usize,
}

/// Lowercase words of `text` (letters and digits of any script).
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

impl TextIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many notes are indexed.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no note is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Brings the index up to date with the vault: reads only notes whose modification time or
    /// size changed, and drops notes that are gone.
    pub fn refresh(&mut self, vault: &dyn Vault) -> Result<Refresh, VaultError> {
        let files: Vec<FileMeta> =
            vault.list(&VaultPath::root())?.into_iter().filter(|f| f.path.is_markdown()).collect();
        let mut stats = Refresh::default();
        let present: std::collections::HashSet<&VaultPath> = files.iter().map(|f| &f.path).collect();
        let gone: Vec<VaultPath> = self.docs.keys().filter(|p| !present.contains(p)).cloned().collect();
        for path in gone {
            self.remove(&path);
            stats.removed += 1;
        }
        for file in &files {
            let fresh =
                self.docs.get(&file.path).is_some_and(|d| d.mtime_ms == file.mtime_ms && d.size == file.size);
            if fresh {
                continue;
            }
            let Ok(text) = vault.read(&file.path) else { continue };
            self.insert(file, &text);
            stats.indexed += 1;
        }
        stats.total = self.docs.len();
        Ok(stats)
    }

    fn remove(&mut self, path: &VaultPath) {
        if let Some(doc) = self.docs.remove(path) {
            for (term, _) in doc.terms {
                self.df[term as usize] -= 1;
            }
            self.total_len -= u64::from(doc.len);
        }
    }

    fn insert(&mut self, file: &FileMeta, text: &str) {
        self.remove(&file.path);
        let mut counts: HashMap<u32, u32> = HashMap::new();
        let mut len = 0u32;
        for word in words(text) {
            len += 1;
            *counts.entry(self.id(word)).or_default() += 1;
        }
        for word in words(file.path.stem()) {
            *counts.entry(self.id(word)).or_default() += 3;
        }
        let mut terms: Vec<(u32, u32)> = counts.into_iter().collect();
        terms.sort_unstable();
        for (term, _) in &terms {
            self.df[*term as usize] += 1;
        }
        self.total_len += u64::from(len);
        self.docs.insert(file.path.clone(), Doc { mtime_ms: file.mtime_ms, size: file.size, len, terms });
    }

    fn id(&mut self, word: String) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(word).or_insert_with(|| {
            self.df.push(0);
            next
        })
    }

    /// The `limit` notes under `folder` most relevant to `query` (BM25), best first, with scores.
    pub fn search(&self, query: &str, folder: &VaultPath, limit: usize) -> Vec<(VaultPath, f64)> {
        let terms: Vec<u32> = words(query).filter_map(|w| self.ids.get(&w).copied()).collect();
        if terms.is_empty() || self.docs.is_empty() {
            return Vec::new();
        }
        let n = self.docs.len() as f64;
        let avg = self.total_len as f64 / n;
        let idf: Vec<f64> = terms
            .iter()
            .map(|&t| {
                let df = f64::from(self.df[t as usize]);
                ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
            })
            .collect();
        let (k1, b) = (1.2, 0.75);
        let mut scored: Vec<(f64, &VaultPath)> = self
            .docs
            .iter()
            .filter(|(path, _)| path.is_within(folder))
            .filter_map(|(path, doc)| {
                let norm = k1 * (1.0 - b + b * f64::from(doc.len) / avg.max(1.0));
                let score: f64 = terms
                    .iter()
                    .zip(&idf)
                    .filter_map(|(t, idf)| {
                        let i = doc.terms.binary_search_by_key(t, |(id, _)| *id).ok()?;
                        let f = f64::from(doc.terms[i].1);
                        Some(idf * f * (k1 + 1.0) / (f + norm))
                    })
                    .sum();
                (score > 0.0).then_some((score, path))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        scored.into_iter().take(limit).map(|(s, p)| (p.clone(), s)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::MemVault;

    #[test]
    fn ranks_and_follows_changes() {
        let vault = MemVault::with_files([
            ("a/Seeds.md", "random seeds decide leaderboards; seeds matter"),
            ("b/Other.md", "spacing effects in learning"),
            ("b/Mixed.md", "a note about seeds and spacing"),
        ])
        .unwrap();
        let mut index = TextIndex::new();
        assert_eq!(index.refresh(&vault).unwrap().indexed, 3);
        let hits = index.search("seeds", &VaultPath::root(), 10);
        assert_eq!(hits[0].0.as_str(), "a/Seeds.md");
        assert_eq!(hits.len(), 2);
        assert_eq!(index.search("seeds", &VaultPath::new("b").unwrap(), 10).len(), 1);
        // Only changed notes are read again; removed notes leave the index.
        assert_eq!(index.refresh(&vault).unwrap().indexed, 0);
        vault.write(&VaultPath::new("b/Other.md").unwrap(), "now about seeds too").unwrap();
        vault.trash(&VaultPath::new("b/Mixed.md").unwrap()).unwrap();
        let stats = index.refresh(&vault).unwrap();
        assert_eq!((stats.indexed, stats.removed, stats.total), (1, 1, 2));
        assert_eq!(index.search("seeds", &VaultPath::root(), 10).len(), 2);
        assert!(index.search("spacing", &VaultPath::root(), 10).is_empty());
    }
}
