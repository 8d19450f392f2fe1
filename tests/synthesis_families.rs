//! Summaries and syntheses of the template families (`tests/cases/families/*/`): real-shaped
//! exports of many templates, each read with its vault's setup. Golden files in
//! `tests/cases/synthesis/families/` (`UPDATE_SNAPSHOTS=1` refreshes them); on every family:
//! each annotation's text and comment appear exactly once in the body, no line carries export
//! debris, and every link resolves.

use std::path::Path;

use scholia::library;
use scholia::synthesis::{RenderOptions, SourceNote, summarize_with_report, synthesize_with_report};
use scholia::vault::{FsVault, Vault, VaultPath};

use crate::check::{check, root};

/// Whitespace collapsed and backslash escapes removed, so escaped and re-indented text compares.
pub fn normalized(text: &str) -> String {
    text.replace('\\', "").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text after the frontmatter.
pub fn body_of(output: &str) -> &str {
    output.strip_prefix("---\n").and_then(|r| r.split_once("\n---\n")).map_or(output, |(_, b)| b)
}

/// No line holds `</br>`, an export callout marker, an HTML tag, or a Zotero or `file://` URL
/// outside a link destination (an image outside the vault is embedded by its URL).
pub fn assert_no_debris(output: &str, what: &str) {
    for line in body_of(output).lines() {
        let lower = line.to_lowercase();
        let bad = lower.match_indices("file://").any(|(i, _)| !line[..i].ends_with("]("))
            || lower.contains("</br>")
            || lower.contains("<br")
            || ["[!quote", "[!note", "[!cite", "[!annotation"].iter().any(|m| lower.contains(m))
            || has_html_tag(line)
            || lower.match_indices("zotero://").any(|(i, _)| !line[..i].ends_with("]("));
        assert!(!bad, "{what}: debris in {line:?}");
    }
}

fn has_html_tag(line: &str) -> bool {
    line.match_indices('<').any(|(i, _)| {
        let next = line[i + 1..].chars().next();
        next.is_some_and(|c| c.is_ascii_alphabetic() || c == '/') && line[i..].contains('>')
    })
}

/// The words of an annotation's text that are not export debris (paths, raw Zotero URLs,
/// callout markers, tags): what the output must carry.
fn content_of(text: &str) -> String {
    let text = text.replace("</br>", " ").replace("<br>", " ");
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !w.contains("file://") && !w.contains("zotero://") && !w.starts_with("[!"))
        .filter(|w| !(w.starts_with('<') && w.ends_with('>')))
        .collect();
    words.join(" ")
}

/// How often `needle` (without debris) occurs in `haystack`, both normalized.
pub fn occurrences(haystack: &str, needle: &str) -> usize {
    let needle = normalized(&content_of(needle));
    if needle.is_empty() {
        return 1;
    }
    let haystack = normalized(haystack);
    let word_char = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    haystack
        .match_indices(&needle)
        .filter(|(i, _)| {
            let before = haystack[..*i].chars().next_back();
            let after = haystack[i + needle.len()..].chars().next();
            !word_char(before) && !word_char(after)
        })
        .count()
}

/// Every annotation's text and comment appear in the body exactly once (a section's name may
/// repeat: themes are shared names; a part of fewer than six words may also be inside another).
pub fn assert_once(output: &str, sources: &[SourceNote], what: &str) {
    let body = body_of(output);
    let flat = normalized(body);
    for ann in sources.iter().flat_map(|s| &s.doc.annotations) {
        // A section colour, or an annotation the export printed as a heading: links name it as
        // their anchor.
        let title = ann.comment.as_deref().or(ann.text.as_deref()).map(normalized);
        let anchored =
            title.is_some_and(|t| flat.contains(&format!("#{t}|")) || flat.contains(&format!("#{t}]]")));
        let is_section = ann.heading_level.is_some() || anchored;
        let parts = if is_section && ann.comment.is_some() {
            vec![&ann.text]
        } else if is_section {
            vec![]
        } else {
            vec![&ann.text, &ann.comment]
        };
        for part in parts.into_iter().flatten() {
            let n = occurrences(body, part);
            // A short comment ("todo") may also be part of another annotation's words.
            let exact = content_of(part).split_whitespace().count() >= 6;
            assert!(n == 1 || (!exact && n > 1), "{what}: {part:?} appears {n} times\n{output}");
        }
    }
}

fn families() -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(root().join("tests/cases/families"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

fn load(dir: &Path) -> Vec<SourceNote> {
    let vault = FsVault::open(dir).unwrap();
    let setup = library::setup::discover(&vault, None);
    let options = setup.parse_options(&[]);
    let resolver = library::resolver(&vault.list(&VaultPath::root()).unwrap());
    let refs = VaultPath::new("References").unwrap();
    let mut notes: Vec<String> = vault
        .list(&refs)
        .unwrap()
        .into_iter()
        .map(|m| m.path.as_str().to_string())
        .filter(|p| p.ends_with(".md"))
        .collect();
    notes.sort();
    notes
        .iter()
        .map(|p| library::load_source(&vault, &resolver, &VaultPath::new(p).unwrap(), &options).unwrap())
        .collect()
}

#[test]
fn every_family_keeps_each_annotation_once_without_debris() {
    let render = RenderOptions { date: "2024-06-01".into(), ..RenderOptions::default() };
    let out_dir = root().join("tests/cases/synthesis/families");
    for dir in families() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let sources = load(&dir);
        assert!(!sources.is_empty(), "{name}: no notes");
        let mut summaries = String::new();
        for source in &sources {
            let rendered = summarize_with_report(source, &render);
            let what = format!("{name} summary of {}", source.link);
            assert_once(&rendered.markdown, std::slice::from_ref(source), &what);
            assert_no_debris(&rendered.markdown, &what);
            assert!(rendered.report.unresolved_links.is_empty(), "{what}: {:?}", rendered.report);
            summaries.push_str(&rendered.markdown);
            summaries.push_str("\n\n<!-- next summary -->\n\n");
        }
        check(&out_dir.join(format!("{name}.summary.md")), &summaries);
        let rendered = synthesize_with_report(&sources, &render).unwrap();
        let what = format!("{name} synthesis");
        assert_once(&rendered.markdown, &sources, &what);
        assert_no_debris(&rendered.markdown, &what);
        assert!(rendered.report.unresolved_links.is_empty(), "{what}: {:?}", rendered.report);
        check(&out_dir.join(format!("{name}.synthesis.md")), &rendered.markdown);
    }
}
