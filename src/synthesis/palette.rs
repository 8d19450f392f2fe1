//! Which colour meanings the renderer reads annotations with, and says it used.
//!
//! The parser gives each annotation a meaning from the vault's colour map (seed 001's table by
//! default; `[colors]` in the configuration goes first). Three cases need more than that map:
//! - a vault that uses only Zotero's default yellow and configured no palette: its highlights
//!   are plain highlights, so they are read as findings, not as open questions (a `Q:` or `GAP:`
//!   prefix still makes a question);
//! - colours the map does not know are grouped by their colour name (`Purple`, `Colour #123abc`);
//! - otherwise the map's meaning is used as is.

use crate::annotations::colors::{OTHER, QUESTION};
use crate::annotations::{Annotation, ColorCategory, PrefixTable};

use super::items::Group;
use super::{RenderOptions, SourceNote};

/// Zotero's default highlight colour.
const ZOTERO_YELLOW: &str = "#ffd400";

/// The colour reading chosen for one rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Palette {
    /// What the output says about it, e.g. `seed 001`.
    pub label: String,
    /// Plain yellow highlights are findings (a yellow-only vault without a palette).
    yellow_findings: bool,
}

impl Palette {
    /// The palette for `sources`: the configured one when `options.palette` names it, else
    /// seed 001's, read as findings when every coloured annotation is Zotero's default yellow.
    pub(crate) fn detect(sources: &[SourceNote], options: &RenderOptions) -> Self {
        if let Some(name) = options.palette.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
            return Self { label: format!("configured ({name})"), yellow_findings: false };
        }
        let anns: Vec<&Annotation> = sources.iter().flat_map(|s| &s.doc.annotations).collect();
        let hexes: Vec<&str> = anns.iter().filter_map(|a| a.color_hex.as_deref()).collect();
        if !hexes.is_empty() && hexes.iter().all(|h| h.eq_ignore_ascii_case(ZOTERO_YELLOW)) {
            let label = "Zotero default yellow only, no palette configured: highlights read as findings";
            return Self { label: label.into(), yellow_findings: true };
        }
        if anns
            .iter()
            .any(|a| a.color_category == ColorCategory::Semantic && a.color == OTHER && a.color_hex.is_some())
        {
            return Self {
                label: "seed 001; unknown colours grouped by colour name".into(),
                yellow_findings: false,
            };
        }
        Self { label: "seed 001".into(), yellow_findings: false }
    }

    /// The group `ann` belongs to under this palette.
    pub(crate) fn group(&self, ann: &Annotation) -> Group {
        let group = Group::of(ann);
        match group {
            Group::Question if self.yellow_findings && !asks(ann) => Group::Positive,
            Group::Other => ann.color_hex.as_deref().map_or(Group::Other, colour_group),
            group => group,
        }
    }
}

/// Whether the comment prefix marks a question (`Q:`, `GAP:`, …).
fn asks(ann: &Annotation) -> bool {
    let Some(prefix) = ann.comment_prefix.as_deref() else { return false };
    let table = PrefixTable::default();
    table
        .entries
        .iter()
        .any(|e| e.prefix.eq_ignore_ascii_case(prefix.trim()) && e.colors.iter().any(|c| c == QUESTION))
}

/// An unknown colour as a group named by Zotero's colour name, else by its hex.
fn colour_group(hex: &str) -> Group {
    const NAMES: [&str; 8] = ["yellow", "red", "green", "blue", "purple", "magenta", "orange", "gray"];
    let named = NAMES.iter().find(|n| {
        crate::annotations::colors::zotero_hex_of_name(n).is_some_and(|h| h.eq_ignore_ascii_case(hex))
    });
    match named {
        Some(name) => Group::Custom(format!("{name} highlights")),
        None => Group::Custom(format!("colour {}", hex.trim_start_matches('#'))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::{AnnotationDoc, AnnotationType, TemplateStyle};

    fn highlight(color: &str, hex: &str, prefix: Option<&str>) -> Annotation {
        Annotation {
            kind: AnnotationType::Highlight,
            color: color.into(),
            color_hex: Some(hex.into()),
            color_category: ColorCategory::Semantic,
            text: Some("text".into()),
            comment: None,
            comment_prefix: prefix.map(str::to_string),
            theme: None,
            page: None,
            page_label: None,
            heading_level: None,
            image_path: None,
            zotero_link: None,
        }
    }

    fn source(annotations: Vec<Annotation>) -> SourceNote {
        let doc = AnnotationDoc {
            citekey: "k".into(),
            title: "T".into(),
            file_path: "/v/k.md".into(),
            annotations,
            zotero_link: None,
            authors: None,
            year: None,
            tags: vec![],
            template: TemplateStyle::Callout,
            diagnostics: vec![],
        };
        SourceNote { doc, link: "k".into(), anchors: vec![] }
    }

    #[test]
    fn yellow_only_vaults_read_highlights_as_findings_unless_configured() {
        let plain = highlight(QUESTION, "#ffd400", None);
        let asked = highlight(QUESTION, "#ffd400", Some("Q:"));
        let sources = [source(vec![plain.clone(), asked.clone()])];
        let palette = Palette::detect(&sources, &RenderOptions::default());
        assert!(palette.label.starts_with("Zotero default yellow only"), "{}", palette.label);
        assert_eq!(palette.group(&plain), Group::Positive);
        assert_eq!(palette.group(&asked), Group::Question);
        let options = RenderOptions { palette: Some("[colors]".into()), ..RenderOptions::default() };
        let configured = Palette::detect(&sources, &options);
        assert_eq!(configured.label, "configured ([colors])");
        assert_eq!(configured.group(&plain), Group::Question);
    }

    #[test]
    fn seed_colours_keep_their_meaning_and_unknown_ones_group_by_name() {
        let red = highlight("negative", "#ff6666", None);
        let yellow = highlight(QUESTION, "#ffd400", None);
        let unknown = highlight(OTHER, "#123abc", None);
        let sources = [source(vec![red.clone(), yellow.clone(), unknown.clone()])];
        let palette = Palette::detect(&sources, &RenderOptions::default());
        assert_eq!(palette.group(&yellow), Group::Question);
        assert_eq!(palette.group(&red), Group::Negative);
        assert_eq!(palette.group(&unknown), Group::Custom("colour 123abc".into()));
        assert!(palette.label.contains("colour name"));
    }
}
