//! The structure of one source: its section annotations and where each semantic one falls.
//!
//! Headings come from the export: an annotation the note prints as a heading line (its comment
//! or text is the heading's text) opens a heading at that line's level, whatever its colour.
//! Section colours (section1–3) open headings by colour alone only when the palette says the
//! vault follows them ([`Palette::sections_from_colour`]). Every other annotation falls under the
//! deepest heading open before it, or under none when it comes before the first.

use crate::annotations::colors::heading_level_of;
use crate::annotations::{Annotation, ColorCategory};
use crate::note::anchor::anchors_match;

use super::SourceNote;
use super::links::find_anchor;
use super::markdown::{nonempty, one_line};
use super::palette::Palette;

/// A section annotation, as a heading.
#[derive(Debug)]
pub(crate) struct Heading<'a> {
    /// The section annotation.
    pub ann: &'a Annotation,
    /// Its position in the note's annotations.
    pub pos: usize,
    /// 2, 3 or 4 (section1, section2, section3).
    pub level: usize,
    /// The heading text: the comment (with its prefix), else the text.
    pub title: String,
    /// The heading's name without prefix, for theme matching: the comment, else the text.
    pub name: String,
    /// Enclosing headings (indices), outermost first, this one last.
    pub path: Vec<usize>,
    /// The anchor links use for what falls under this heading: this heading's own when the note
    /// has it, else the nearest enclosing heading's that the note has.
    pub anchor: Option<&'a str>,
}

/// A semantic annotation and its place.
#[derive(Debug)]
pub(crate) struct Placed<'a> {
    /// The annotation.
    pub ann: &'a Annotation,
    /// Its position in the note's annotations.
    pub pos: usize,
    /// The heading it falls under (index into [`Outline::headings`]), if any.
    pub section: Option<usize>,
    /// The anchor its links use.
    pub anchor: Option<&'a str>,
}

/// One source's headings and placed annotations, both in note order.
#[derive(Debug)]
pub(crate) struct Outline<'a> {
    /// Section annotations.
    pub headings: Vec<Heading<'a>>,
    /// Semantic annotations.
    pub placed: Vec<Placed<'a>>,
}

impl<'a> Outline<'a> {
    /// Walks the annotations of `source` once, with headings as `palette` reads them.
    pub(crate) fn new(source: &'a SourceNote, palette: &Palette) -> Self {
        let mut outline = Outline { headings: Vec::new(), placed: Vec::new() };
        let mut stack: Vec<usize> = Vec::new();
        for (pos, (ann, level)) in source.doc.annotations.iter().zip(levels(source, palette)).enumerate() {
            if let Some(level) = level {
                while stack.last().is_some_and(|&i| outline.headings[i].level >= level) {
                    stack.pop();
                }
                let parent_anchor = stack.last().and_then(|&i| outline.headings[i].anchor);
                stack.push(outline.headings.len());
                let place = Place { pos, level, path: stack.clone(), parent_anchor };
                outline.headings.push(heading(source, ann, place));
            } else {
                let section = stack.last().copied();
                let anchor = section.and_then(|i| outline.headings[i].anchor);
                outline.placed.push(Placed { ann, pos, section, anchor });
            }
        }
        outline
    }

    /// The placed annotations under heading `section` (`None`: before the first heading).
    pub(crate) fn under(&self, section: Option<usize>) -> impl Iterator<Item = &Placed<'a>> {
        self.placed.iter().filter(move |p| p.section == section)
    }
}

/// Where a heading sits: its position, level, path and the anchor of its parent.
struct Place<'a> {
    pos: usize,
    level: usize,
    path: Vec<usize>,
    parent_anchor: Option<&'a str>,
}

fn heading<'a>(source: &'a SourceNote, ann: &'a Annotation, place: Place<'a>) -> Heading<'a> {
    let title = section_title(ann);
    let name = nonempty(ann.comment.as_deref()).or(nonempty(ann.text.as_deref())).map(one_line);
    let own = [Some(title.as_str()), ann.comment.as_deref(), ann.text.as_deref()]
        .into_iter()
        .flatten()
        .find_map(|candidate| find_anchor(source, &one_line(candidate)));
    Heading {
        ann,
        pos: place.pos,
        level: place.level,
        title,
        name: name.unwrap_or_default(),
        path: place.path,
        anchor: own.or(place.parent_anchor),
    }
}

/// Per annotation of `source`, the level of the heading it opens, if it opens one: its heading
/// line's level (shifted so the shallowest is `##`, under the summary's title), else
/// its section colour's level when the palette reads colours as sections. At most `#####`, so
/// the groups below it stay headings.
fn levels(source: &SourceNote, palette: &Palette) -> Vec<Option<usize>> {
    let lines: Vec<Option<u8>> = source.doc.annotations.iter().map(|a| heading_line(source, a)).collect();
    let top = lines.iter().flatten().min().map_or(2, |&top| i16::from(top));
    let shifted = |line: u8| u8::try_from(i16::from(line) + 2 - top).unwrap_or(2);
    let by_colour = |ann: &Annotation| {
        (palette.sections_from_colour() && ann.color_category == ColorCategory::Hierarchy).then(|| {
            ann.heading_level.or_else(|| heading_level_of(&ann.color.to_ascii_lowercase())).unwrap_or(2)
        })
    };
    let anns = source.doc.annotations.iter();
    lines
        .iter()
        .zip(anns)
        .map(|(line, ann)| line.map(shifted).or_else(|| by_colour(ann)))
        .map(|level| level.map(|l| usize::from(l).clamp(2, 5)))
        .collect()
}

/// The level of the heading line the note prints for `ann`: a heading whose text is the
/// annotation's heading title (its comment, with its prefix or without, else its text).
pub(crate) fn heading_line(source: &SourceNote, ann: &Annotation) -> Option<u8> {
    let candidates: Vec<String> = match nonempty(ann.comment.as_deref()) {
        Some(comment) => {
            let prefix = nonempty(ann.comment_prefix.as_deref()).map(|p| format!("{p} {comment}"));
            prefix.into_iter().chain([comment.to_string()]).collect()
        }
        None => nonempty(ann.text.as_deref()).map(str::to_string).into_iter().collect(),
    };
    candidates.iter().map(|c| one_line(c)).find_map(|candidate| {
        source.headings.iter().find(|h| anchors_match(&h.anchor, &candidate)).map(|h| h.level)
    })
}

/// The heading text of a section annotation: prefix and comment, else the text.
fn section_title(ann: &Annotation) -> String {
    let prefix = super::items::prefix_label(ann).map(|p| p.trim_matches('*').to_string());
    let main = nonempty(ann.comment.as_deref()).or(nonempty(ann.text.as_deref())).map(one_line);
    // A comment the user wrote as a heading (`# Part 1`) is titled without its marks.
    let main = main.map(|m| match m.trim_start_matches('#').strip_prefix(' ') {
        Some(rest) if m.starts_with('#') && !rest.trim().is_empty() => rest.trim().to_string(),
        _ => m,
    });
    match (prefix, main) {
        (Some(p), Some(m)) => format!("{p} {m}"),
        (Some(p), None) => p,
        (None, Some(m)) => m,
        (None, None) => "Untitled Section".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::{AnnotationDoc, AnnotationType, TemplateStyle};
    use crate::synthesis::{NoteHeading, RenderOptions};

    fn ann(color: &str, hex: &str, text: &str) -> Annotation {
        let level = heading_level_of(color);
        Annotation {
            kind: AnnotationType::Highlight,
            color: color.into(),
            color_hex: Some(hex.into()),
            color_category: crate::annotations::colors::category_of(color),
            text: Some(text.into()),
            comment: None,
            comment_prefix: None,
            theme: None,
            page: None,
            page_label: None,
            heading_level: level,
            image_path: None,
            zotero_link: None,
        }
    }

    fn source(annotations: Vec<Annotation>, headings: &[(u8, &str)], template: TemplateStyle) -> SourceNote {
        let doc = AnnotationDoc {
            citekey: "k".into(),
            title: "T".into(),
            file_path: "/v/k.md".into(),
            annotations,
            zotero_link: None,
            authors: None,
            year: None,
            tags: vec![],
            template,
            diagnostics: vec![],
        };
        let headings: Vec<NoteHeading> = headings
            .iter()
            .map(|(level, text)| NoteHeading {
                level: *level,
                text: text.to_string(),
                anchor: text.to_string(),
            })
            .collect();
        let anchors = headings.iter().map(|h| h.anchor.clone()).collect();
        SourceNote { doc, link: "k".into(), anchors, headings, legend: vec![] }
    }

    fn titles(source: &SourceNote) -> Vec<(usize, String)> {
        let palette = Palette::detect(std::slice::from_ref(source), &RenderOptions::default());
        Outline::new(source, &palette).headings.iter().map(|h| (h.level, h.title.clone())).collect()
    }

    #[test]
    fn a_section_colour_is_a_heading_only_where_the_export_has_its_heading_line() {
        let anns = vec![
            ann("section1", "#2ea8e5", "Retrieval quality"),
            ann("question", "#ffd400", "a plain highlight"),
            ann("section1", "#2ea8e5", "a blue passage the template did not print as a heading"),
        ];
        let own = source(anns.clone(), &[(1, "Notes"), (3, "Retrieval quality")], TemplateStyle::Callout);
        assert_eq!(titles(&own), [(2, "Retrieval quality".to_string())]);
        // Seed 001's template writes every section colour as a heading.
        let seed = source(anns, &[(2, "Retrieval quality")], TemplateStyle::MarkBlocks);
        assert_eq!(titles(&seed).len(), 2);
    }

    #[test]
    fn heading_lines_of_any_colour_keep_their_levels_below_the_title() {
        let anns = vec![
            ann("section3", "#e56eee", "Lecture one"),
            ann("question", "#ffd400", "Part A"),
            ann("negative", "#ff6666", "A detail"),
        ];
        let s =
            source(anns, &[(1, "Lecture one"), (2, "Part A"), (3, "A detail")], TemplateStyle::UserTemplate);
        let levels: Vec<usize> = titles(&s).iter().map(|(l, _)| *l).collect();
        assert_eq!(levels, [2, 3, 4]);
        let deep = vec![ann("negative", "#ff6666", "Only heading"), ann("question", "#ffd400", "under it")];
        let s = source(deep, &[(5, "Only heading")], TemplateStyle::UserTemplate);
        assert_eq!(titles(&s), [(2, "Only heading".to_string())]);
    }
}
