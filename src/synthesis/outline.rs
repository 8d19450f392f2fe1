//! The structure of one source: its section annotations and where each semantic one falls.
//!
//! Section colours (section1–3) open headings; every other annotation falls under the deepest
//! section open before it, or under none when it comes before the first section.

use crate::annotations::colors::heading_level_of;
use crate::annotations::{Annotation, ColorCategory};

use super::SourceNote;
use super::links::find_anchor;
use super::markdown::{nonempty, one_line};

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
    /// Walks the annotations of `source` once.
    pub(crate) fn new(source: &'a SourceNote) -> Self {
        let mut outline = Outline { headings: Vec::new(), placed: Vec::new() };
        let mut stack: Vec<usize> = Vec::new();
        for (pos, ann) in source.doc.annotations.iter().enumerate() {
            if is_section(ann) {
                let level = section_level(ann);
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

/// Whether the annotation opens a section (a hierarchy colour).
pub(crate) fn is_section(ann: &Annotation) -> bool {
    ann.color_category == ColorCategory::Hierarchy
}

fn section_level(ann: &Annotation) -> usize {
    let level = ann.heading_level.or_else(|| heading_level_of(&ann.color.to_ascii_lowercase())).unwrap_or(2);
    usize::from(level).clamp(2, 5)
}

/// The heading text of a section annotation: prefix and comment, else the text.
fn section_title(ann: &Annotation) -> String {
    let prefix = super::items::prefix_label(ann).map(|p| p.trim_matches('*').to_string());
    let main = nonempty(ann.comment.as_deref()).or(nonempty(ann.text.as_deref())).map(one_line);
    match (prefix, main) {
        (Some(p), Some(m)) => format!("{p} {m}"),
        (Some(p), None) => p,
        (None, Some(m)) => m,
        (None, None) => "Untitled Section".to_string(),
    }
}
