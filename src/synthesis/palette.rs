//! Which colour meanings the renderer reads annotations with, and says it used.
//!
//! The parser gives each annotation a meaning from the colour map (seed 001's table unless
//! `[colors]` says otherwise); `parse`'s `color` field keeps it. The renderer uses those meanings
//! only when the vault evidently follows them:
//! - the configuration names a palette (`[colors]`, the plugin's colour settings);
//! - the notes follow seed 001: written by its template (mark blocks), its section colours printed
//!   as headings at its levels (`##` blue, `###` purple, `####` magenta), or its comment prefixes
//!   on the colours the seed gives them (`CLAIM:` on green, `LIMITATION:` on red).
//!
//! Then section colours open headings and the other colours are the seed's groups. A vault that
//! uses only Zotero's default yellow, with no palette configured, has its highlights read as
//! findings, not as open questions (a `Q:` or `GAP:` prefix still asks). Any other vault states no
//! meaning for its colours: each colour is a group named by the template's legend (`# Blue 🔹
//! Definitions` above a colour's annotations: "Definitions"), else by its colour name ("Blue
//! highlights"); a seed prefix still gives its meaning, yellow is never a question by colour alone
//! and blue never a heading by colour alone. Whatever the palette, an annotation the export
//! printed as a heading line is a heading at that line's level (see [`super::outline`]).

use crate::annotations::colors::{self, OTHER, QUESTION};
use crate::annotations::{Annotation, AnnotationDoc, ColorCategory, ColorEntry, PrefixTable, TemplateStyle};

use super::items::Group;
use super::{NoteHeading, RenderOptions, SourceNote};

/// Zotero's default highlight colour.
const ZOTERO_YELLOW: &str = "#ffd400";

/// The colour reading chosen for one rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Palette {
    /// What the output says about it, e.g. `seed 001 (its template)`.
    pub label: String,
    reading: Reading,
    /// Colour names the sources' templates state (hex, name), first statement first.
    legend: Vec<(String, String)>,
}

/// How colours are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// The colour map's meanings; section colours open headings.
    Map,
    /// Only Zotero's default yellow: plain highlights are findings.
    YellowFindings,
    /// No stated meaning: one group per colour, named by the legend or the colour's name.
    Names,
}

impl Palette {
    /// The palette for `sources` under `options` (see the module's documentation).
    pub(crate) fn detect(sources: &[SourceNote], options: &RenderOptions) -> Self {
        let legend = legend_of(sources);
        let read = |reading, label: String| Self { label, reading, legend: legend.clone() };
        if let Some(name) = options.palette.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
            return read(Reading::Map, format!("configured ({name})"));
        }
        let anns: Vec<&Annotation> = sources.iter().flat_map(|s| &s.doc.annotations).collect();
        let hexes: Vec<&str> = anns.iter().filter_map(|a| a.color_hex.as_deref()).collect();
        if !hexes.is_empty() && hexes.iter().all(|h| h.eq_ignore_ascii_case(ZOTERO_YELLOW)) {
            let label = "Zotero default yellow only, no palette configured: highlights read as findings";
            return read(Reading::YellowFindings, label.into());
        }
        if let Some(why) = follows_seed(sources) {
            let unknown = anns.iter().any(|a| {
                a.color_category == ColorCategory::Semantic && a.color == OTHER && a.color_hex.is_some()
            });
            let rest = if unknown { "; unknown colours grouped by colour name" } else { "" };
            return read(Reading::Map, format!("seed 001 ({why}){rest}"));
        }
        let label = if hexes.is_empty() {
            "no colours in the export".to_string()
        } else if !legend.is_empty() {
            "the template's colour names; other colours by colour name".to_string()
        } else {
            "colour names (no palette configured, and the notes do not follow seed 001)".to_string()
        };
        read(Reading::Names, label)
    }

    /// Whether section colours open headings by colour alone.
    pub(crate) fn sections_from_colour(&self) -> bool {
        self.reading == Reading::Map
    }

    /// The group `ann` belongs to under this palette.
    pub(crate) fn group(&self, ann: &Annotation) -> Group {
        match self.reading {
            Reading::Map => match Group::of(ann) {
                Group::Other => ann.color_hex.as_deref().map_or(Group::Other, colour_group),
                group => group,
            },
            Reading::YellowFindings => match Group::of(ann) {
                Group::Question if !asks(ann) => Group::Positive,
                Group::Other => ann.color_hex.as_deref().map_or(Group::Other, colour_group),
                group => group,
            },
            Reading::Names => self.named_group(ann),
        }
    }

    /// The legend's name for the colour, else the prefix's meaning, else the colour's name.
    fn named_group(&self, ann: &Annotation) -> Group {
        let hex = ann.color_hex.as_deref();
        if let Some((_, name)) =
            self.legend.iter().find(|(h, _)| hex.is_some_and(|x| x.eq_ignore_ascii_case(h)))
        {
            return Group::Custom(name.clone());
        }
        if let Some(meaning) = prefix_meaning(ann) {
            return meaning;
        }
        hex.map_or(Group::Other, colour_group)
    }
}

/// The colour names the sources' templates state, each hex once (the first statement wins).
fn legend_of(sources: &[SourceNote]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for entry in sources.iter().flat_map(|s| &s.legend) {
        let hex = colors::normalize_hex(&entry.hex);
        if !entry.name.trim().is_empty() && !out.iter().any(|(h, _)| *h == hex) {
            out.push((hex, entry.name.trim().to_string()));
        }
    }
    out
}

/// The colour names a note's own headings state: a heading that opens with a Zotero colour name
/// set off by a symbol (`# Blue 🔹 Definitions`), for a colour the note's annotations have.
pub(crate) fn note_legend(doc: &AnnotationDoc, headings: &[NoteHeading]) -> Vec<ColorEntry> {
    let mut out: Vec<ColorEntry> = Vec::new();
    for heading in headings {
        let text = heading.text.trim();
        let first = text.split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
        let Some(hex) = colors::zotero_hex_of_name(first) else { continue };
        let used = doc.annotations.iter().any(|a| a.color_hex.as_deref() == Some(hex));
        let set_off = text[first.len()..].trim_start().starts_with(|c: char| !c.is_alphanumeric());
        if let Some(name) = colors::legend_name(text).filter(|_| used && set_off)
            && !out.iter().any(|e| e.hex == hex)
        {
            out.push(ColorEntry { hex: hex.to_string(), name });
        }
    }
    out
}

/// Why the sources evidently follow seed 001, if they do: its template wrote one of them, their
/// section colours are headings at its levels, or its comment prefixes sit on its colours.
fn follows_seed(sources: &[SourceNote]) -> Option<&'static str> {
    if sources.iter().any(|s| s.doc.template == TemplateStyle::MarkBlocks) {
        return Some("its template");
    }
    let levels: Vec<bool> = sources
        .iter()
        .flat_map(|s| s.doc.annotations.iter().map(move |a| (s, a)))
        .filter(|(_, a)| a.color_category == ColorCategory::Hierarchy)
        .filter_map(|(s, a)| super::outline::heading_line(s, a).map(|level| Some(level) == a.heading_level))
        .collect();
    if levels.len() >= 2 && levels.iter().all(|&at_seed_level| at_seed_level) {
        return Some("section colours are headings at its levels");
    }
    let (mut agree, mut prefixed) = (0, 0);
    for ann in sources.iter().flat_map(|s| &s.doc.annotations) {
        let Some(meanings) = prefix_colours(ann) else { continue };
        if colors::category_of(&ann.color) == ColorCategory::Hierarchy || ann.color == OTHER {
            continue;
        }
        prefixed += 1;
        agree += usize::from(meanings.iter().any(|m| m.eq_ignore_ascii_case(&ann.color)));
    }
    (agree >= 2 && agree * 3 >= prefixed * 2).then_some("comment prefixes on its colours")
}

/// The meanings seed 001 gives the annotation's comment prefix (`Q:` → question); `None` for
/// none, and for `THEME [x]`, a theme rather than a meaning.
fn prefix_colours(ann: &Annotation) -> Option<Vec<String>> {
    let prefix = ann.comment_prefix.as_deref()?.trim();
    if prefix.trim_end_matches(':').eq_ignore_ascii_case("THEME") {
        return None;
    }
    let table = PrefixTable::default();
    table.entries.into_iter().find(|e| e.prefix.eq_ignore_ascii_case(prefix)).map(|e| e.colors)
}

/// The group of the prefix's first meaning.
fn prefix_meaning(ann: &Annotation) -> Option<Group> {
    let meaning = prefix_colours(ann)?.into_iter().next()?;
    let probe = Annotation { color: meaning, ..ann.clone() };
    Some(Group::of(&probe))
}

/// Whether the comment prefix marks a question (`Q:`, `GAP:`, …).
fn asks(ann: &Annotation) -> bool {
    prefix_colours(ann).is_some_and(|m| m.iter().any(|c| c == QUESTION))
}

/// A colour as a group named by Zotero's colour name, else by its hex.
fn colour_group(hex: &str) -> Group {
    const NAMES: [&str; 8] = ["yellow", "red", "green", "blue", "purple", "magenta", "orange", "gray"];
    let named =
        NAMES.iter().find(|n| colors::zotero_hex_of_name(n).is_some_and(|h| h.eq_ignore_ascii_case(hex)));
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
        SourceNote { doc, link: "k".into(), anchors: vec![], headings: vec![], legend: vec![] }
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
    fn seed_colours_keep_their_meaning_in_notes_its_template_wrote() {
        let red = highlight("negative", "#ff6666", None);
        let yellow = highlight(QUESTION, "#ffd400", None);
        let unknown = highlight(OTHER, "#123abc", None);
        let mut seed = source(vec![red.clone(), yellow.clone(), unknown.clone()]);
        seed.doc.template = TemplateStyle::MarkBlocks;
        let palette = Palette::detect(&[seed], &RenderOptions::default());
        assert_eq!(palette.label, "seed 001 (its template); unknown colours grouped by colour name");
        assert!(palette.sections_from_colour());
        assert_eq!(palette.group(&yellow), Group::Question);
        assert_eq!(palette.group(&red), Group::Negative);
        assert_eq!(palette.group(&unknown), Group::Custom("colour 123abc".into()));
    }

    #[test]
    fn a_vault_with_its_own_colours_is_read_by_colour_name_not_by_seed_001() {
        let blue = Annotation {
            color_category: ColorCategory::Hierarchy,
            heading_level: Some(2),
            ..highlight("section1", "#2ea8e5", None)
        };
        let yellow = highlight(QUESTION, "#ffd400", None);
        let asked = highlight(QUESTION, "#ffd400", Some("Q:"));
        let claim = highlight("negative", "#ff6666", Some("CLAIM:"));
        let sources = [source(vec![blue.clone(), yellow.clone(), asked.clone(), claim.clone()])];
        let palette = Palette::detect(&sources, &RenderOptions::default());
        assert!(palette.label.starts_with("colour names"), "{}", palette.label);
        assert!(!palette.sections_from_colour());
        assert_eq!(palette.group(&blue), Group::Custom("blue highlights".into()));
        assert_eq!(palette.group(&yellow), Group::Custom("yellow highlights".into()));
        assert_eq!(palette.group(&asked), Group::Question);
        assert_eq!(palette.group(&claim), Group::Positive);
        // A legend the template or the note's headings state names the colour.
        let mut named = source(vec![blue.clone(), yellow.clone()]);
        named.legend = vec![ColorEntry { hex: "#2EA8E5".into(), name: "Definitions".into() }];
        let palette = Palette::detect(&[named], &RenderOptions::default());
        assert_eq!(palette.group(&blue), Group::Custom("Definitions".into()));
        assert!(palette.label.starts_with("the template's colour names"), "{}", palette.label);
    }

    #[test]
    fn seed_prefixes_on_seed_colours_show_the_vault_follows_seed_001() {
        let claim = highlight("positive", "#5fb236", Some("CLAIM:"));
        let limit = highlight("negative", "#ff6666", Some("LIMITATION:"));
        let yellow = highlight(QUESTION, "#ffd400", None);
        let palette =
            Palette::detect(&[source(vec![claim, limit, yellow.clone()])], &RenderOptions::default());
        assert_eq!(palette.label, "seed 001 (comment prefixes on its colours)");
        assert_eq!(palette.group(&yellow), Group::Question);
        // Prefixes on other colours than the seed's say nothing.
        let off = highlight("negative", "#ff6666", Some("CLAIM:"));
        let off2 = highlight("positive", "#5fb236", Some("GAP:"));
        let palette = Palette::detect(&[source(vec![off, off2])], &RenderOptions::default());
        assert!(palette.label.starts_with("colour names"), "{}", palette.label);
    }

    #[test]
    fn a_note_heading_set_off_from_a_colour_name_is_a_legend() {
        let blue = highlight("section1", "#2ea8e5", None);
        let s = source(vec![blue]);
        let heading = |text: &str| NoteHeading { level: 1, text: text.into(), anchor: text.into() };
        let headings = [heading("Blue 🔹 Definitions"), heading("Red ❗ Disagree"), heading("Green energy")];
        let legend = note_legend(&s.doc, &headings);
        assert_eq!(legend, [ColorEntry { hex: "#2ea8e5".into(), name: "Definitions".into() }]);
    }
}
