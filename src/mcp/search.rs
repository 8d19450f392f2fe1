//! Search over the vault's notes by scanning them: a literal search that returns every match, and
//! a ranked search (BM25 over words, note names weighted) with snippets.

use std::collections::HashMap;

use serde::Serialize;

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

/// Lowercase words of `text` (letters and digits of any script).
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// The `limit` notes most relevant to `query` (BM25; a word in the note's name counts three times).
pub fn ranked(
    vault: &dyn Vault,
    folder: &VaultPath,
    query: &str,
    limit: usize,
    context: usize,
) -> Result<Vec<Ranked>, VaultError> {
    let terms: Vec<String> = words(query).collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut docs: Vec<(VaultPath, String, HashMap<String, f64>, f64)> = Vec::new();
    for meta in library::notes(vault, folder)? {
        let Ok(text) = vault.read(&meta.path) else { continue };
        let mut tf: HashMap<String, f64> = HashMap::new();
        let mut len = 0.0;
        for word in words(&text) {
            len += 1.0;
            if terms.contains(&word) {
                *tf.entry(word).or_default() += 1.0;
            }
        }
        for word in words(meta.path.stem()) {
            if terms.contains(&word) {
                *tf.entry(word).or_default() += 3.0;
            }
        }
        docs.push((meta.path, text, tf, len));
    }
    let n = docs.len() as f64;
    let avg = docs.iter().map(|d| d.3).sum::<f64>() / n.max(1.0);
    let idf: HashMap<&String, f64> = terms
        .iter()
        .map(|t| {
            let df = docs.iter().filter(|d| d.2.contains_key(t)).count() as f64;
            (t, ((n - df + 0.5) / (df + 0.5) + 1.0).ln())
        })
        .collect();
    let (k1, b) = (1.2, 0.75);
    let mut scored: Vec<(f64, usize)> = docs
        .iter()
        .enumerate()
        .map(|(i, (_, _, tf, len))| {
            let score = terms
                .iter()
                .filter_map(|t| {
                    tf.get(t).map(|f| idf[t] * f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * len / avg.max(1.0))))
                })
                .sum::<f64>();
            (score, i)
        })
        .filter(|(s, _)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(docs[a.1].0.cmp(&docs[b.1].0)));
    Ok(scored
        .into_iter()
        .take(limit)
        .map(|(score, i)| {
            let text = &docs[i].1;
            let lower = text.to_lowercase();
            let at = terms.iter().filter_map(|t| lower.find(t.as_str())).min();
            let snippet = if lower.len() == text.len() {
                around(&text.replace('\n', " "), at, context)
            } else {
                around(&text.replace('\n', " "), None, context)
            };
            Ranked { path: docs[i].0.as_str().to_string(), score: (score * 1000.0).round() / 1000.0, snippet }
        })
        .collect())
}
