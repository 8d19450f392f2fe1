//! The single-document summary (seed 001, "Single Document Summary").
//!
//! Structure-aware when the note has section colours: each section annotation becomes a heading
//! at its level and the semantic annotations under it are grouped by colour one level below.
//! Without section colours the semantic groups are the `##` sections.

use std::fmt::Write as _;

use super::items::{Group, body, grouped, push_body};
use super::links::{note_link, page_link};
use super::markdown::{one_line, push_heading, push_paragraph, yaml_date, yaml_quoted};
use super::outline::{Outline, Placed, nonempty};
use super::{RenderOptions, SourceNote};

/// Renders the single-document summary of `source` (seed 001's layout).
///
/// Every semantic annotation appears once; links resolve (see [`SourceNote::anchors`]).
pub fn summarize(source: &SourceNote, options: &RenderOptions) -> String {
    let mut out = String::new();
    push_frontmatter(&mut out, source, options);
    let title = nonempty(Some(&source.doc.title)).unwrap_or(&source.link);
    push_heading(&mut out, 1, &format!("Summary: {title}"));
    push_source_callout(&mut out, source);
    let outline = Outline::new(source);
    if outline.headings.is_empty() && outline.placed.is_empty() {
        out.push_str("_No annotations found._\n\n");
    } else if outline.headings.is_empty() {
        push_groups(&mut out, source, options, 2, outline.under(None).collect());
    } else {
        let preamble: Vec<&Placed> = outline.under(None).collect();
        if !preamble.is_empty() {
            push_heading(&mut out, 2, &options.titles.preamble);
            push_groups(&mut out, source, options, 3, preamble);
        }
        for (i, heading) in outline.headings.iter().enumerate() {
            push_heading(&mut out, heading.level, &heading.title);
            push_section_text(&mut out, source, heading);
            push_groups(&mut out, source, options, heading.level + 1, outline.under(Some(i)).collect());
        }
    }
    finish(out)
}

fn push_frontmatter(out: &mut String, source: &SourceNote, options: &RenderOptions) {
    out.push_str("---\ntype: summary\n");
    let _ = writeln!(out, "source: {}", yaml_quoted(&note_link(source)));
    let _ = writeln!(out, "created: {}", yaml_date(&options.date));
    out.push_str("status: draft\n---\n\n");
}

/// `> [!info] Source` with the note link, authors and year when known, and the Zotero link.
fn push_source_callout(out: &mut String, source: &SourceNote) {
    let doc = &source.doc;
    let details: Vec<String> =
        [doc.authors.as_deref(), doc.year.as_deref()].into_iter().flat_map(nonempty).map(one_line).collect();
    let mut line = note_link(source);
    if !details.is_empty() {
        let _ = write!(line, " - {}", details.join(", "));
    }
    let _ = writeln!(out, "> [!info] Source\n> {line}");
    if let Some(link) = nonempty(doc.zotero_link.as_deref()).filter(|l| !l.contains(char::is_whitespace)) {
        let _ = writeln!(out, "> [Open in Zotero](<{}>)", link.replace(['<', '>'], ""));
    }
    out.push('\n');
}

/// Under a heading that came from the section's comment, the highlighted text with its page.
fn push_section_text(out: &mut String, source: &SourceNote, heading: &super::outline::Heading) {
    if nonempty(heading.ann.comment.as_deref()).is_none() {
        return;
    }
    let Some(text) = nonempty(heading.ann.text.as_deref()) else { return };
    let text = match page_link(source, heading.anchor, heading.ann.page.as_deref()) {
        Some(link) => format!("{text} ({link})"),
        None => text.to_string(),
    };
    push_paragraph(out, &text);
    out.push('\n');
}

/// The semantic groups of `placed`, each under a heading at `level`.
fn push_groups(
    out: &mut String,
    source: &SourceNote,
    options: &RenderOptions,
    level: usize,
    placed: Vec<&Placed>,
) {
    for (group, items) in grouped(placed, |p| p.ann) {
        push_heading(out, level, &Group::title(&group, &options.titles));
        for p in items {
            let link = page_link(source, p.anchor, p.ann.page.as_deref()).map(|l| format!("({l})"));
            push_body(out, 0, &body(p.ann), link.as_deref());
        }
        out.push('\n');
    }
}

/// Exactly one newline at the end.
pub(crate) fn finish(mut out: String) -> String {
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
