//! Annotation notes in a vault: listing, finding by citekey, loading for the renderer, writing
//! results. Pure over [`Vault`]: the CLI and the MCP server share it.

pub mod pattern;
pub mod setup;

use serde::Serialize;

use crate::annotations::{self, AnnotationDoc, ParseOptions, colors};
use crate::note::{Frontmatter, LinkResolver, LinkStyle};
use crate::synthesis::SourceNote;
use crate::vault::{FileMeta, Vault, VaultError, VaultPath, naming};

/// One annotation note, as `obsidian_list_annotation_files` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnnotationFile {
    /// The citekey (frontmatter `citekey`, else from the note).
    pub citekey: String,
    /// The document's title.
    pub title: String,
    /// Vault-relative path.
    pub path: String,
    /// Frontmatter tags.
    pub tags: Vec<String>,
}

/// The Markdown notes under `folder`.
pub fn notes(vault: &dyn Vault, folder: &VaultPath) -> Result<Vec<FileMeta>, VaultError> {
    Ok(vault.list(folder)?.into_iter().filter(|f| f.path.is_markdown()).collect())
}

/// Every annotation note under `folder` carrying all of `tags` (case-insensitive; a tag also
/// matches its nested tags: `ml` matches `ml/rag`), sorted by path.
pub fn list_annotation_files(
    vault: &dyn Vault,
    folder: &VaultPath,
    tags: &[String],
    options: &ParseOptions,
) -> Result<Vec<AnnotationFile>, VaultError> {
    let mut out = Vec::new();
    for meta in notes(vault, folder)? {
        let Ok(text) = vault.read(&meta.path) else { continue };
        if !annotations::is_annotation_note(&text, options) {
            continue;
        }
        let doc = annotations::parse(&text, &vault.absolute(&meta.path), options);
        let wanted = |t: &String| {
            let t = t.trim_start_matches('#').to_lowercase();
            doc.tags.iter().any(|have| {
                let have = have.to_lowercase();
                have == t || have.starts_with(&format!("{t}/"))
            })
        };
        if tags.iter().all(wanted) {
            out.push(AnnotationFile {
                citekey: doc.citekey,
                title: doc.title,
                path: meta.path.as_str().to_string(),
                tags: doc.tags,
            });
        }
    }
    Ok(out)
}

/// The annotation note of `citekey` under `folder`: the note whose frontmatter `citekey` matches
/// (exactly, else case-insensitively), else a note named `@citekey.md`.
pub fn find_by_citekey(
    vault: &dyn Vault,
    folder: &VaultPath,
    citekey: &str,
) -> Result<Option<VaultPath>, VaultError> {
    let citekey = citekey.trim().trim_start_matches('@');
    let notes = notes(vault, folder)?;
    let file_name = format!("@{citekey}.md");
    // Fast path: a note named `@citekey.md` whose frontmatter says the same citekey is the answer
    // the full scan would give, without reading every note.
    for meta in notes.iter().filter(|m| m.path.file_name() == file_name) {
        let same = vault.read(&meta.path).ok().and_then(|t| Frontmatter::parse(&t).get_str("citekey"));
        if same.is_some_and(|k| k.trim().trim_start_matches('@') == citekey) {
            return Ok(Some(meta.path.clone()));
        }
    }
    let mut loose = None;
    for meta in &notes {
        let Ok(text) = vault.read(&meta.path) else { continue };
        if let Some(key) = Frontmatter::parse(&text).get_str("citekey") {
            let key = key.trim().trim_start_matches('@');
            if key == citekey {
                return Ok(Some(meta.path.clone()));
            }
            if loose.is_none() && key.to_lowercase() == citekey.to_lowercase() {
                loose = Some(meta.path.clone());
            }
        }
    }
    if loose.is_some() {
        return Ok(loose);
    }
    Ok(notes.into_iter().find(|m| m.path.file_name().eq_ignore_ascii_case(&file_name)).map(|m| m.path))
}

/// A link resolver over the vault's files (for the link text of written notes).
pub fn resolver(files: &[FileMeta]) -> LinkResolver {
    LinkResolver::new(files.iter().map(|f| f.path.as_str().to_string()))
}

/// Reads and parses the annotation note at `path` for the renderer; links to it are written in
/// the shortest form that resolves in the vault. The doc's `file_path` is the absolute path.
pub fn load_source(
    vault: &dyn Vault,
    resolver: &LinkResolver,
    path: &VaultPath,
    options: &ParseOptions,
) -> Result<SourceNote, VaultError> {
    let text = vault.read(path)?;
    let doc = annotations::parse(&text, &vault.absolute(path), options);
    let link = resolver.link_text(path.as_str(), None, LinkStyle::Shortest);
    Ok(SourceNote::from_doc(doc, link, &text))
}

/// Writes `content` as a new note named by `pattern` and `vars` in `folder`, numbering the name
/// rather than overwriting anything. Returns the path written.
pub fn write_result(
    vault: &dyn Vault,
    folder: &str,
    pattern: &str,
    vars: &[(&str, &str)],
    content: &str,
) -> Result<VaultPath, VaultError> {
    loop {
        let path = naming::result_path(folder, pattern, vars, |p| vault.exists(p))?;
        match vault.create_new(&path, content) {
            // Someone created the same name in between: take the next number.
            Err(VaultError::AlreadyExists { .. }) => continue,
            other => return other.map(|()| path),
        }
    }
}

/// The colour meanings (lowercase) and hexes (`#rrggbb`) named in `wanted` (meanings, Zotero's
/// colour names such as `red`, or hexes; any case). An unknown name is an error that lists the
/// valid ones. Empty means every colour.
pub fn color_filter(wanted: &[String], options: &ParseOptions) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = colors::MEANINGS.iter().map(|s| s.to_string()).collect();
    names.push(colors::OTHER.to_string());
    for entry in &options.colors.entries {
        let name = entry.name.to_lowercase();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let mut keep = Vec::new();
    for item in wanted.iter().map(|w| w.trim()).filter(|w| !w.is_empty()) {
        if let Some(hex) = colors::parse_hex(item).filter(|_| item.starts_with('#')) {
            keep.push(hex);
        } else if names.contains(&item.to_lowercase()) {
            keep.push(item.to_lowercase());
        } else if let Some(hex) = colors::zotero_hex_of_name(item) {
            keep.push(hex.to_string());
        } else {
            return Err(format!(
                "unknown colour {item:?}; use a meaning ({}), a Zotero colour name (yellow, red, green, \
                 blue, purple, magenta, orange, gray) or a hex such as #5fb236",
                names.join(", ")
            ));
        }
    }
    Ok(keep)
}

/// Keeps the annotations whose meaning or hex is in `keep` (from [`color_filter`]); empty keeps all.
pub fn keep_colors(doc: &mut AnnotationDoc, keep: &[String]) {
    if !keep.is_empty() {
        doc.annotations.retain(|a| {
            keep.iter().any(|k| *k == a.color.to_lowercase() || a.color_hex.as_deref() == Some(k.as_str()))
        });
    }
}
