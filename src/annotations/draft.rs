//! An annotation being read: what a style found, turned into the seed's record by one function.

use std::borrow::Cow;

use super::colors::{self, ColorMap};
use super::model::{Annotation, AnnotationType};
use super::text::{
    image_page, link_page, split_comment, strip_bold, strip_inline_html, strip_quotes, strip_trailing_debris,
};
use super::{ParseOptions, colors::category_of};

/// Where the colour of an annotation came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColorSource {
    /// `#rrggbb` from a style attribute or a callout.
    pub hex: Option<String>,
    /// A colour name: a Highlightr class, a callout's `|yellow`, the formatted style's `Yellow`.
    pub name: Option<String>,
}

/// What a template style read for one annotation.
#[derive(Debug, Default)]
pub struct Draft<'a> {
    /// The type word (`Highlight`, `Note`, `Image`, …), if the export printed one.
    pub label: Option<String>,
    /// The colour.
    pub color: ColorSource,
    /// Lines of annotated text.
    pub text: Vec<Cow<'a, str>>,
    /// Code from a fenced block (orange annotations).
    pub code: Option<String>,
    /// Comment lines.
    pub comment: Vec<Cow<'a, str>>,
    /// The page from a citation or a link label.
    pub page: Option<String>,
    /// The `zotero://open-pdf/…` link.
    pub link: Option<String>,
    /// The embedded image.
    pub image: Option<String>,
    /// The citekey of the annotation's `[@key …]` citation, if it has one.
    pub cite: Option<String>,
    /// The comment stands after the template's own comment label: every word of it is the user's,
    /// a line of `#tags` too (elsewhere such a last line is the tags the template prints).
    pub labelled_comment: bool,
}

/// Resolves a colour to (meaning, hex); `None` meaning the colour is unknown (→ `other`).
pub fn resolve_color(source: &ColorSource, map: &ColorMap) -> (String, Option<String>, bool) {
    if let Some(hex) = source.hex.as_deref().and_then(colors::parse_hex) {
        let name = map.name_of(&hex).to_string();
        let known = name != colors::OTHER;
        return (name, Some(hex), known);
    }
    if let Some(name) = source.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        if let Some(hex) = map.hex_of(name) {
            return (map.name_of(&hex).to_string(), Some(hex), true);
        }
        if let Some(hex) = colors::zotero_hex_of_name(name) {
            let meaning = map.name_of(hex).to_string();
            let known = meaning != colors::OTHER;
            return (meaning, Some(hex.to_string()), known);
        }
    }
    (colors::OTHER.to_string(), None, false)
}

fn kind_of(label: Option<&str>) -> AnnotationType {
    match label.map(|l| l.trim().to_ascii_lowercase()).as_deref() {
        Some("note") | Some("sticky note") => AnnotationType::Note,
        Some("image") => AnnotationType::Image,
        Some("underline") => AnnotationType::Underline,
        Some("text") | Some("free text") => AnnotationType::Text,
        Some("ink") => AnnotationType::Ink,
        _ => AnnotationType::Highlight,
    }
}

/// An image embed that ends the last non-blank line of `lines` (`![[…/image-3-x1-y2.png]]`):
/// where a template's optional slots could not tell a comment from the image after it, the embed
/// is the annotation's image, never words of its comment. Removed from the line and returned.
fn take_trailing_image(lines: &mut [Cow<'_, str>]) -> Option<String> {
    let last = lines.iter().rposition(|l| !l.trim().is_empty())?;
    let line = lines[last].trim_end();
    let inner = line.strip_suffix("]]")?;
    let open = inner.rfind("![[")?;
    let path = inner[open + 3..].split('|').next()?.trim();
    let lower = path.to_ascii_lowercase();
    if path.contains(['[', ']'])
        || ![".png", ".jpg", ".jpeg", ".gif", ".webp"].iter().any(|e| lower.ends_with(e))
    {
        return None;
    }
    let path = path.to_string();
    lines[last] = Cow::Owned(line[..open].trim_end().to_string());
    Some(path)
}

/// Joins lines, trimming blank lines at both ends (blank lines inside are paragraph breaks).
fn join(lines: &[Cow<'_, str>]) -> Option<String> {
    let first = lines.iter().position(|l| !l.trim().is_empty())?;
    let last = lines.iter().rposition(|l| !l.trim().is_empty())?;
    let mut joined = String::with_capacity(lines[first..=last].iter().map(|l| l.len() + 1).sum());
    for (n, line) in lines[first..=last].iter().enumerate() {
        if n > 0 {
            joined.push('\n');
        }
        joined.push_str(line.trim_end());
    }
    Some(joined)
}

impl Draft<'_> {
    /// Whether the draft holds anything at all.
    pub fn is_empty(&self) -> bool {
        join(&self.text).is_none()
            && self.code.is_none()
            && join(&self.comment).is_none()
            && self.image.is_none()
    }

    /// The seed's record. Returns the annotation and, when the colour is unknown, a warning text.
    pub fn finish(mut self, options: &ParseOptions) -> (Annotation, Option<String>) {
        if self.image.is_none() {
            self.image =
                take_trailing_image(&mut self.comment).or_else(|| take_trailing_image(&mut self.text));
        }
        let (color, color_hex, known) = resolve_color(&self.color, &options.colors);
        let mut kind = kind_of(self.label.as_deref());
        if self.image.is_some() {
            kind = AnnotationType::Image;
        }
        let mut text = self.code.clone().or_else(|| {
            join(&self.text).map(|t| strip_inline_html(&t).into_owned()).map(|t| {
                let t = strip_trailing_debris(&t);
                if strip_quotes(t).len() == t.len() { t.to_string() } else { strip_quotes(t).to_string() }
            })
        });
        let mut comment = join(&self.comment).map(|c| strip_inline_html(&c).into_owned()).map(|c| {
            let kept = if self.labelled_comment { c.trim_end() } else { strip_trailing_debris(&c) };
            strip_bold(kept).to_string()
        });
        // A sticky note holds only a comment, and so does an image: Zotero gives neither a text.
        if matches!(kind, AnnotationType::Note | AnnotationType::Image) && comment.is_none() {
            comment = text.take();
        }
        text = text.filter(|t| !t.is_empty());
        // Zotero's highlights always hold text: a comment alone, with no label saying otherwise,
        // is a note.
        if self.label.is_none() && kind == AnnotationType::Highlight && text.is_none() && comment.is_some() {
            kind = AnnotationType::Note;
        }
        let split = comment.as_deref().map(|c| split_comment(c, &options.prefixes)).unwrap_or_default();
        // The page as the note prints it; the link's page (Zotero's page label) when it differs;
        // with nothing printed, the link's page, else the page in an image's file name.
        let linked = self.link.as_deref().and_then(link_page);
        let page =
            self.page.or_else(|| linked.clone()).or_else(|| self.image.as_deref().and_then(image_page));
        let page_label = linked.filter(|l| page.as_ref() != Some(l));
        let warning = (!known).then(|| match (&color_hex, &self.color.name) {
            (Some(hex), _) => {
                format!("colour {hex} is not in the colour map; the annotation is kept as \"other\"")
            }
            (None, Some(name)) => {
                format!("colour \"{name}\" is not in the colour map; the annotation is kept as \"other\"")
            }
            (None, None) => {
                "the annotation has no colour Scholia can read; it is kept as \"other\"".to_string()
            }
        });
        let annotation = Annotation {
            kind,
            heading_level: colors::heading_level_of(&color),
            color_category: category_of(&color),
            color,
            color_hex,
            text,
            comment: split.rest,
            comment_prefix: split.prefix,
            theme: split.theme,
            page,
            page_label,
            image_path: self.image,
            zotero_link: self.link,
        };
        (annotation, warning)
    }
}
