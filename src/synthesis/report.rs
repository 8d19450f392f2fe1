//! The report of a rendering: counts, sources without annotations, and a check that every link
//! the renderer wrote resolves to a source and, when anchored, to one of its anchors.

use super::links::note_link;
use super::markdown::nonempty;
use super::{RenderReport, SourceNote};

/// Counts and the link check for `markdown` rendered from `sources` with palette `palette`.
pub(crate) fn report(markdown: &str, sources: &[SourceNote], palette: &str) -> RenderReport {
    let annotations = sources.iter().map(|s| s.doc.annotations.len()).sum();
    let empty_annotations = sources
        .iter()
        .flat_map(|s| &s.doc.annotations)
        .filter(|a| [&a.text, &a.comment, &a.image_path].iter().all(|p| nonempty(p.as_deref()).is_none()))
        .count();
    RenderReport {
        annotations,
        sources: sources.len(),
        without_annotations: without_annotations(sources),
        empty_annotations,
        unresolved_links: unresolved_links(markdown, sources),
        palette: palette.to_string(),
    }
}

/// The note links of the sources that have no annotation.
pub(crate) fn without_annotations(sources: &[SourceNote]) -> Vec<String> {
    sources.iter().filter(|s| s.doc.annotations.is_empty()).map(note_link).collect()
}

/// Every `[[target#anchor|alias]]` (not an embed) whose target is no source, or whose anchor the
/// source does not have. A link the user wrote in a comment is theirs and is not checked.
pub(crate) fn unresolved_links(markdown: &str, sources: &[SourceNote]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = markdown;
    while let Some(start) = rest.find("[[") {
        let is_embed = rest[..start].ends_with('!');
        let after = &rest[start + 2..];
        let Some(end) = after.find("]]") else { break };
        let inner = &after[..end];
        rest = &after[end + 2..];
        if is_embed || resolves(inner, sources) || users_own(inner, sources) {
            continue;
        }
        out.push(format!("[[{inner}]]"));
    }
    out.sort();
    out.dedup();
    out
}

fn resolves(inner: &str, sources: &[SourceNote]) -> bool {
    let target = inner.split('|').next().unwrap_or_default();
    let (target, anchor) = target.split_once('#').map_or((target, None), |(t, a)| (t, Some(a)));
    sources.iter().any(|s| s.link == target && anchor.is_none_or(|a| s.anchors.iter().any(|x| x == a)))
}

fn users_own(inner: &str, sources: &[SourceNote]) -> bool {
    sources
        .iter()
        .flat_map(|s| &s.doc.annotations)
        .any(|a| [&a.comment, &a.text].iter().any(|t| t.as_deref().is_some_and(|t| t.contains(inner))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::{AnnotationDoc, TemplateStyle};

    fn source(link: &str, anchors: &[&str]) -> SourceNote {
        let doc = AnnotationDoc {
            citekey: link.into(),
            title: "T".into(),
            file_path: format!("/v/{link}.md"),
            annotations: vec![],
            zotero_link: None,
            authors: None,
            year: None,
            tags: vec![],
            template: TemplateStyle::Unknown,
            diagnostics: vec![],
        };
        SourceNote {
            doc,
            link: link.into(),
            anchors: anchors.iter().map(|a| a.to_string()).collect(),
            headings: vec![],
            legend: vec![],
        }
    }

    #[test]
    fn sources_without_annotations_and_broken_links_are_warnings() {
        let sources = [source("a", &["Methods"])];
        let markdown = "[[a#Methods|p. 1]] [[a#Results|p. 2]] [[b]] ![[img.png]]";
        let report = report(markdown, &sources, "seed 001");
        assert_eq!(report.unresolved_links, ["[[a#Results|p. 2]]", "[[b]]"]);
        assert_eq!(report.without_annotations, ["[[a]]"]);
        assert_eq!(
            report.warnings(),
            [
                "no annotations in [[a]]",
                "the link [[a#Results|p. 2]] would not resolve",
                "the link [[b]] would not resolve"
            ]
        );
    }
}
