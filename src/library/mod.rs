//! Annotation notes in a vault: listing, finding by citekey, loading for the renderer, writing
//! results. Pure over [`Vault`]: the CLI and the MCP server share it.

pub mod detect;
pub mod doctor;
pub mod handed;
pub mod moves;
pub mod pattern;
pub mod search;
pub mod setup;

use serde::Serialize;

use crate::annotations::{self, AnnotationDoc, ColorEntry, ParseOptions, TemplateStyle, colors};
use crate::note::{Frontmatter, LinkResolver, LinkStyle};
use crate::synthesis::SourceNote;
use crate::vault::{FileMeta, Vault, VaultError, VaultPath, naming};
use detect::{Examined, Facts};
use pattern::NotePattern;

/// One annotation note, as `obsidian_list_annotation_files` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnnotationFile {
    /// The citekey it is found by (see [`detect::Facts::citekey`]).
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
/// matches its nested tags: `ml` matches `ml/rag`), sorted by path. What makes a note an
/// annotation note is said in [`detect`]; the note paths come from Zotero Integration's settings.
pub fn list_annotation_files(
    vault: &dyn Vault,
    folder: &VaultPath,
    tags: &[String],
    options: &ParseOptions,
) -> Result<Vec<AnnotationFile>, VaultError> {
    list_with(vault, folder, tags, options, &setup::note_patterns(vault))
}

/// [`list_annotation_files`] with the note paths given (from a [`setup::Setup`]).
pub fn list_with(
    vault: &dyn Vault,
    folder: &VaultPath,
    tags: &[String],
    options: &ParseOptions,
    patterns: &[NotePattern],
) -> Result<Vec<AnnotationFile>, VaultError> {
    let mut out = Vec::new();
    for_each_note(vault, folder, options, patterns, |path, examined| {
        let Some(doc) = examined.doc.filter(|_| examined.evidence.any()) else { return };
        if tags.iter().all(|t| has_tag(&doc.tags, t)) {
            out.push(AnnotationFile {
                citekey: examined.citekey,
                title: doc.title,
                path: path.as_str().to_string(),
                tags: doc.tags,
            });
        }
    })?;
    Ok(out)
}

/// Examines every note under `folder` (one read each, parsed only when it could matter; see
/// [`detect::examine`]) and hands each to `visit`, by path. Notes that cannot be read are skipped.
pub fn for_each_note(
    vault: &dyn Vault,
    folder: &VaultPath,
    options: &ParseOptions,
    patterns: &[NotePattern],
    mut visit: impl FnMut(&VaultPath, Examined),
) -> Result<(), VaultError> {
    for meta in notes(vault, folder)? {
        let Ok(text) = vault.read(&meta.path) else { continue };
        let examined = detect::examine(&meta.path, &vault.absolute(&meta.path), &text, options, patterns);
        visit(&meta.path, examined);
    }
    Ok(())
}

fn has_tag(have: &[String], wanted: &str) -> bool {
    let wanted = wanted.trim_start_matches('#').to_lowercase();
    have.iter().any(|have| {
        let have = have.to_lowercase();
        have == wanted || have.starts_with(&format!("{wanted}/"))
    })
}

/// The note of `citekey` under `folder`, read with the built-in rules only; see
/// [`find_annotation_note`].
pub fn find_by_citekey(
    vault: &dyn Vault,
    folder: &VaultPath,
    citekey: &str,
) -> Result<Option<VaultPath>, VaultError> {
    find_annotation_note(vault, folder, citekey, &ParseOptions::default(), &setup::note_patterns(vault))
}

/// The note of `citekey` under `folder`, chosen in this order: a note named `@citekey.md` whose
/// frontmatter `citekey` says the same; the first note (by path) whose frontmatter `citekey` is
/// it, exactly, else ignoring case; the first annotation note [`list_with`] lists under that
/// citekey, exactly, else ignoring case; a note named `@citekey.md` in any case. Every note the
/// listing lists is found by the citekey it is listed under (when two notes share a citekey, the
/// first by this order). One read per note; a note is parsed only when its citekey matches and
/// nothing cheaper says it is an annotation note.
pub fn find_annotation_note(
    vault: &dyn Vault,
    folder: &VaultPath,
    citekey: &str,
    options: &ParseOptions,
    patterns: &[NotePattern],
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
    // An annotation note with this very citekey wins; then one whose citekey differs in case; a
    // note that only carries the citekey (a reading note with `citekey:` and no annotation) last.
    let lower = citekey.to_lowercase();
    let (mut near, mut plain, mut plain_near) = (None, None, None);
    for meta in &notes {
        let Ok(text) = vault.read(&meta.path) else { continue };
        let facts = Facts::read(&meta.path, &text, patterns);
        let written =
            facts.frontmatter().get_str("citekey").map(|k| k.trim().trim_start_matches('@').to_string());
        let (listed, _) = facts.citekey(&meta.path, &text);
        let keys = [written.as_deref(), Some(listed.as_str())];
        let exact = keys.contains(&Some(citekey));
        if !exact && !keys.iter().flatten().any(|k| k.to_lowercase() == lower) {
            continue;
        }
        let holds = facts.evidence().any()
            || (facts.may_hold_annotations()
                && !annotations::parse(&text, &vault.absolute(&meta.path), options).annotations.is_empty());
        // Without annotations, only a citekey written in the frontmatter names a note (not the
        // name the listing would fall back to).
        let written_near = written.as_deref().is_some_and(|k| k.to_lowercase() == lower);
        match (holds, exact) {
            (true, true) => return Ok(Some(meta.path.clone())),
            (true, false) => near = near.or_else(|| Some(meta.path.clone())),
            (false, _) if written.as_deref() == Some(citekey) => {
                plain = plain.or_else(|| Some(meta.path.clone()))
            }
            (false, _) if written_near => plain_near = plain_near.or_else(|| Some(meta.path.clone())),
            (false, _) => {}
        }
    }
    if let Some(found) = near.or(plain).or(plain_near) {
        return Ok(Some(found));
    }
    Ok(notes.into_iter().find(|m| m.path.file_name().eq_ignore_ascii_case(&file_name)).map(|m| m.path))
}

/// A link resolver over the vault's files (for the link text of written notes).
pub fn resolver(files: &[FileMeta]) -> LinkResolver {
    LinkResolver::new(files.iter().map(|f| f.path.as_str().to_string()))
}

/// Reads and parses the annotation note at `path` for the renderer; links to it are written in
/// the shortest form that resolves in the vault. The doc's `file_path` is the absolute path.
///
/// A note no link can reach is refused: one Obsidian does not list (a hidden name, or inside a
/// hidden folder such as `.trash/`), whose summary could only link to nothing.
pub fn load_source(
    vault: &dyn Vault,
    resolver: &LinkResolver,
    path: &VaultPath,
    options: &ParseOptions,
) -> Result<SourceNote, VaultError> {
    if path.is_hidden() {
        return Err(VaultError::InvalidPath {
            path: path.to_string(),
            reason: "Obsidian does not list notes with a hidden name or in a hidden folder such as .trash/, \
                     so a summary could not link to it; move the note out (or restore it from the trash) first"
                .into(),
        });
    }
    let text = vault.read(path)?;
    let link = resolver.link_text(path.as_str(), None, LinkStyle::Shortest);
    Ok(source_of(&text, &vault.absolute(path), link, options))
}

/// A note read as a source of a summary or synthesis: parsed, with the legend of its colours the
/// templates give (a template's own legend when the note was read with it, and the labels the
/// vault's templates give the colours it uses).
pub fn source_of(text: &str, file_path: &str, link: String, options: &ParseOptions) -> SourceNote {
    let doc = annotations::parse(text, file_path, options);
    let templated = matches!(doc.template, TemplateStyle::UserTemplate | TemplateStyle::Mixed);
    let mut legend: Vec<ColorEntry> =
        options.templates.iter().filter(|_| templated).flat_map(|t| t.legend()).collect();
    legend.extend(
        options
            .colour_labels
            .iter()
            .filter(|l| {
                doc.annotations
                    .iter()
                    .any(|a| a.color_hex.as_deref().is_some_and(|h| h.eq_ignore_ascii_case(&l.hex)))
            })
            .cloned(),
    );
    SourceNote::from_doc(doc, link, text).with_legend(legend)
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
