//! Search over the vault's notes: a literal scan that returns every match, and a ranked search over
//! the full-text index (BM25, note names weighted) with snippets.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::index::{TextIndex, words};
use crate::library;
use crate::vault::{Vault, VaultError, VaultPath};

/// One matching line.
#[derive(Debug, Serialize)]
pub struct LineMatch {
    /// 1-based line number.
    pub line: usize,
    /// The line, cut to 300 characters around the match.
    pub context: String,
}

/// Every match of a literal search in one file.
#[derive(Debug, Serialize)]
pub struct FileMatches {
    /// Vault-relative path.
    pub path: String,
    /// The matching lines.
    pub matches: Vec<LineMatch>,
}

/// Every line of every note under `folder` that contains `query` (case-insensitive), by path.
pub fn literal(vault: &dyn Vault, folder: &VaultPath, query: &str) -> Result<Vec<FileMatches>, VaultError> {
    let needle = query.to_lowercase();
    let mut out = Vec::new();
    for meta in library::notes(vault, folder)? {
        let Ok(text) = vault.read(&meta.path) else { continue };
        let lower = text.to_lowercase();
        if !lower.contains(&needle) {
            continue;
        }
        let matches: Vec<LineMatch> = text
            .lines()
            .enumerate()
            .filter(|(_, line)| line.to_lowercase().contains(&needle))
            .map(|(i, line)| LineMatch {
                line: i + 1,
                context: around(line, line.to_lowercase().find(&needle), 300),
            })
            .collect();
        if !matches.is_empty() {
            out.push(FileMatches { path: meta.path.as_str().to_string(), matches });
        }
    }
    Ok(out)
}

/// Up to `width` characters of `line` around byte `at`.
fn around(line: &str, at: Option<usize>, width: usize) -> String {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    if chars.len() <= width {
        return line.trim().to_string();
    }
    let center = at.map_or(0, |a| chars.iter().position(|(i, _)| *i >= a).unwrap_or(0));
    let start = center.saturating_sub(width / 2).min(chars.len() - width);
    let text: String = chars[start..start + width].iter().map(|(_, c)| c).collect();
    format!(
        "{}{}{}",
        if start > 0 { "…" } else { "" },
        text.trim(),
        if start + width < chars.len() { "…" } else { "" }
    )
}

/// One ranked result.
#[derive(Debug, Serialize)]
pub struct Ranked {
    /// Vault-relative path.
    pub path: String,
    /// Relevance (higher is better).
    pub score: f64,
    /// Text around the first match, `context` characters long.
    pub snippet: String,
}

/// The notes of the search index, refreshed by modification times at most once a second (and
/// at once after this server wrote something).
#[derive(Debug, Default)]
pub struct SearchState {
    index: TextIndex,
    refreshed: Option<Instant>,
}

impl SearchState {
    /// Notes in the index, and when it was last refreshed (`None`: not built yet; it is built
    /// by the first ranked search).
    pub fn status(&self) -> (usize, Option<Instant>) {
        (self.index.len(), self.refreshed)
    }
}

/// How stale the index may get before a query stats the vault again.
const FRESH_FOR: Duration = Duration::from_secs(1);

/// The `limit` notes most relevant to `query` (BM25 over the index; a word in the note's name
/// counts three times), each with a snippet of `context` characters around the first match.
pub fn ranked(
    vault: &dyn Vault,
    state: &Mutex<SearchState>,
    stale: bool,
    folder: &VaultPath,
    query: &str,
    limit: usize,
    context: usize,
) -> Result<Vec<Ranked>, VaultError> {
    let hits = {
        let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
        if stale || state.refreshed.is_none_or(|t| t.elapsed() > FRESH_FOR) {
            state.index.refresh(vault)?;
            state.refreshed = Some(Instant::now());
        }
        state.index.search(query, folder, limit)
    };
    let terms: Vec<String> = words(query).collect();
    Ok(hits
        .into_iter()
        .map(|(path, score)| {
            let text = vault.read(&path).unwrap_or_default().replace('\n', " ");
            let lower = text.to_lowercase();
            let at = terms
                .iter()
                .filter_map(|t| lower.find(t.as_str()))
                .min()
                .filter(|_| lower.len() == text.len());
            Ranked {
                path: path.as_str().to_string(),
                score: (score * 1000.0).round() / 1000.0,
                snippet: around(&text, at, context),
            }
        })
        .collect())
}
