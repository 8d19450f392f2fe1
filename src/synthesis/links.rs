//! Wikilinks that resolve in Obsidian.
//!
//! The target is always the source note ([`SourceNote::link`]); an anchor is written only when it
//! names a heading or block listed in [`SourceNote::anchors`], spelled as listed there; the page is
//! the alias. Seed 001's `[[key#p. 5|p. 5]]` would name a heading that does not exist, so pages
//! never become anchors.

use crate::annotations::Annotation;
use crate::note::anchor::anchors_match;

use super::SourceNote;

/// `[[target]]`, `[[target#anchor]]`, `[[target|alias]]` or `[[target#anchor|alias]]`.
pub(crate) fn wikilink(target: &str, anchor: Option<&str>, alias: Option<&str>) -> String {
    let mut out = format!("[[{target}");
    if let Some(anchor) = anchor {
        out.push('#');
        out.push_str(anchor);
    }
    if let Some(alias) = alias {
        out.push('|');
        out.push_str(&alias_text(alias));
    }
    out.push_str("]]");
    out
}

/// The link to the whole note: `[[@smithML2023]]`.
pub(crate) fn note_link(source: &SourceNote) -> String {
    wikilink(&source.link, None, None)
}

/// The page link: `[[@smithML2023#Heading|p. 5]]` (or without the anchor); `None` without a page.
pub(crate) fn page_link(source: &SourceNote, anchor: Option<&str>, page: Option<&str>) -> Option<String> {
    let alias = page_alias(page?)?;
    Some(wikilink(&source.link, anchor, Some(&alias)))
}

/// Zotero's deep link to the annotation, `[Zotero, p. 5](zotero://open-pdf/…&annotation=ID)`, when
/// the export has one that can be written as a link destination.
pub(crate) fn zotero_link(ann: &Annotation) -> Option<String> {
    let url = ann.zotero_link.as_deref()?.trim();
    if !url.starts_with("zotero://") || url.contains(char::is_whitespace) || url.contains(['<', '>']) {
        return None;
    }
    let url = url.replace('(', "%28").replace(')', "%29");
    let label = match ann.page.as_deref().and_then(page_alias) {
        Some(page) => format!("Zotero, {}", alias_text(&page)),
        None => "Zotero".to_string(),
    };
    Some(format!("[{label}]({url})"))
}

/// The links of one item, in parentheses: the source note (when `with_source`), the page link
/// to the passage's heading, and Zotero's deep link; `None` when there is none.
pub(crate) fn item_links(
    source: &SourceNote,
    anchor: Option<&str>,
    ann: &Annotation,
    with_source: bool,
) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if with_source {
        parts.push(note_link(source));
    }
    parts.extend(page_link(source, anchor, ann.page.as_deref()));
    parts.extend(zotero_link(ann));
    (!parts.is_empty()).then(|| format!("({})", parts.join(", ")))
}

/// `p. 5`, `pp. 12-14`; a label that already says `p.`/`pp.` is kept. `None` when empty or
/// without a letter or digit (Zotero prints `-` for a slide without a page label).
pub(crate) fn page_alias(page: &str) -> Option<String> {
    let page = page.trim();
    if !page.chars().any(char::is_alphanumeric) {
        return None;
    }
    let lower = page.to_lowercase();
    if lower.starts_with("p.") || lower.starts_with("pp.") || lower.starts_with("page") {
        return Some(page.to_string());
    }
    let range = page.contains(['-', '–', '—', ',']);
    Some(format!("{} {page}", if range { "pp." } else { "p." }))
}

/// Alias text that cannot end the link early: `|` and brackets replaced, on one line.
pub(crate) fn alias_text(alias: &str) -> String {
    let replaced: String = alias
        .chars()
        .map(|c| match c {
            '|' => '/',
            '[' => '(',
            ']' => ')',
            c if c.is_whitespace() => ' ',
            c => c,
        })
        .collect();
    super::markdown::one_line(&replaced)
}

/// The anchor of `source` that `candidate` names, as spelled in the note's anchor list.
pub(crate) fn find_anchor<'a>(source: &'a SourceNote, candidate: &str) -> Option<&'a str> {
    if candidate.trim().is_empty() {
        return None;
    }
    source
        .anchors
        .iter()
        .find(|a| !a.starts_with('^') && anchors_match(a, candidate))
        .map(String::as_str)
        .filter(|a| is_link_safe(a))
}

/// `text` (an annotation's text or comment, written in the source note) with its links to the
/// note itself, `[[#Heading]]` and `[[#^block|alias]]`, pointing at the source note from wherever
/// the text is copied: `[[@smithML2023#Heading|Heading]]`. A link to an anchor the note does not
/// hold becomes its alias (else its anchor) as plain text.
pub(crate) fn retarget_local_links(text: &str, link: &str, anchors: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[[#") {
        let after = &rest[start + 3..];
        let Some(end) = after.find("]]").filter(|&e| !after[..e].contains(['[', '\n'])) else {
            out.push_str(&rest[..start + 3]);
            rest = after;
            continue;
        };
        let (anchor, alias) = match after[..end].split_once('|') {
            Some((anchor, alias)) => (anchor.trim(), Some(alias.trim())),
            None => (after[..end].trim(), None),
        };
        let shown = alias.filter(|a| !a.is_empty()).unwrap_or(anchor.trim_start_matches('^'));
        let held = anchors.iter().find(|a| {
            if let Some(block) = anchor.strip_prefix('^') {
                a.strip_prefix('^').is_some_and(|b| b.eq_ignore_ascii_case(block))
            } else {
                !a.starts_with('^') && anchors_match(a, anchor)
            }
        });
        out.push_str(&rest[..start]);
        match held.filter(|a| is_link_safe(a)) {
            Some(held) => out.push_str(&wikilink(link, Some(held), Some(shown))),
            None => out.push_str(&alias_text(shown)),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// An anchor that cannot break the link it sits in.
fn is_link_safe(anchor: &str) -> bool {
    !anchor.trim().is_empty() && !anchor.contains(['|', '[', ']', '#', '\n', '\r'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::{AnnotationDoc, TemplateStyle};

    fn source(anchors: &[&str]) -> SourceNote {
        let doc = AnnotationDoc {
            citekey: "smithML2023".into(),
            title: "T".into(),
            file_path: "/v/@smithML2023.md".into(),
            annotations: vec![],
            zotero_link: None,
            authors: None,
            year: None,
            tags: vec![],
            template: TemplateStyle::MarkBlocks,
            diagnostics: vec![],
        };
        SourceNote {
            doc,
            link: "@smithML2023".into(),
            anchors: anchors.iter().map(|s| s.to_string()).collect(),
            headings: vec![],
            legend: vec![],
        }
    }

    #[test]
    fn pages_are_aliases_and_anchors_must_exist() {
        let s = source(&["Annotations", "Methods and data"]);
        let anchor = find_anchor(&s, "**Methods and Data**");
        assert_eq!(anchor, Some("Methods and data"));
        assert_eq!(
            page_link(&s, anchor, Some("5")).as_deref(),
            Some("[[@smithML2023#Methods and data|p. 5]]")
        );
        assert_eq!(find_anchor(&s, "Results"), None);
        assert_eq!(page_link(&s, None, Some("12–14")).as_deref(), Some("[[@smithML2023|pp. 12–14]]"));
        assert_eq!(page_link(&s, None, Some(" ")), None);
        assert_eq!(page_link(&s, None, Some("-")), None);
        assert_eq!(page_link(&s, None, Some("iv")).as_deref(), Some("[[@smithML2023|p. iv]]"));
        assert_eq!(note_link(&s), "[[@smithML2023]]");
    }

    #[test]
    fn links_to_the_note_itself_point_at_the_source_note() {
        let anchors: Vec<String> = ["Methods", "^k3x9"].iter().map(|s| s.to_string()).collect();
        let text = "see [[#methods]] and [[#^k3x9|the table]], not [[#^gone|this]] or [[#Nowhere]]";
        assert_eq!(
            retarget_local_links(text, "@smithML2023", &anchors),
            "see [[@smithML2023#Methods|methods]] and [[@smithML2023#^k3x9|the table]], not this or Nowhere"
        );
        assert_eq!(retarget_local_links("[[Other#Part]] [[#", "n", &anchors), "[[Other#Part]] [[#");
    }

    #[test]
    fn aliases_cannot_close_the_link() {
        assert_eq!(wikilink("n", None, Some("a|b]] c")), "[[n|a/b)) c]]");
    }
}
