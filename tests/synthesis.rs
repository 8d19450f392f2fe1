//! The summary and synthesis renderer.
//!
//! Cases: `tests/cases/synthesis/summary/*.json` and `tests/cases/synthesis/synthesis/*.json`
//! hold `{options, sources: [{link, anchors, doc}]}` (doc: an `AnnotationDoc`); the expected
//! Markdown is the `.md` beside each. The invariants (no annotation lost, every anchor exists,
//! same bytes twice) are checked on every case and on generated documents.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use scholia::annotations::{Annotation, AnnotationDoc, AnnotationType, ColorCategory, TemplateStyle};
use scholia::synthesis::{RenderOptions, SourceNote, SynthesisError, summarize, synthesize};
use serde::Deserialize;

use crate::check::{cases, check, root};

#[derive(Deserialize)]
struct Case {
    #[serde(default)]
    options: RenderOptions,
    sources: Vec<SourceNote>,
}

fn dir(kind: &str) -> PathBuf {
    root().join("tests/cases/synthesis").join(kind)
}

fn load(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn all_cases() -> Vec<(PathBuf, Case)> {
    let mut out = Vec::new();
    for kind in ["summary", "synthesis"] {
        out.extend(cases(&dir(kind), ".json").into_iter().map(|p| {
            let case = load(&p);
            (p, case)
        }));
    }
    out
}

#[test]
fn summary_cases() {
    let paths = cases(&dir("summary"), ".json");
    assert!(paths.len() >= 7, "summary cases are missing");
    for path in paths {
        let case = load(&path);
        assert_eq!(case.sources.len(), 1, "{}: a summary case has one source", path.display());
        check(&path.with_extension("md"), &summarize(&case.sources[0], &case.options));
    }
}

#[test]
fn synthesis_cases() {
    let paths = cases(&dir("synthesis"), ".json");
    assert!(paths.len() >= 6, "synthesis cases are missing");
    for path in paths {
        let case = load(&path);
        let actual = synthesize(&case.sources, &case.options).expect("the case has sources");
        check(&path.with_extension("md"), &actual);
    }
}

/// Whitespace collapsed and backslash escapes removed, so escaped and re-indented text compares.
fn normalized(text: &str) -> String {
    text.replace('\\', "").split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_semantic(ann: &Annotation) -> bool {
    ann.color_category == ColorCategory::Semantic
}

/// Every text, comment and image of every semantic annotation of `sources` is in `output`.
fn assert_nothing_lost(output: &str, sources: &[SourceNote], what: &str) {
    let haystack = normalized(output);
    for source in sources {
        for ann in source.doc.annotations.iter().filter(|a| is_semantic(a)) {
            let image = ann.image_path.as_ref().map(|p| p.replace(['|', '[', ']'], ""));
            for part in [&ann.text, &ann.comment, &image].into_iter().flatten() {
                let found = haystack.contains(&normalized(part));
                assert!(found, "{what}: {part:?} of {} is missing", source.link);
            }
        }
    }
}

/// The frontmatter parses as YAML and links every source as a quoted wikilink.
fn assert_frontmatter(output: &str, sources: &[SourceNote], what: &str) {
    let yaml = output.strip_prefix("---\n").and_then(|r| r.split_once("\n---\n")).map(|(y, _)| y);
    let yaml = yaml.unwrap_or_else(|| panic!("{what}: no frontmatter"));
    let (map, diagnostics) = scholia::note::frontmatter::parse_yaml_mapping(yaml);
    assert!(diagnostics.is_empty(), "{what}: {diagnostics:?}\n{yaml}");
    let links: Vec<String> = sources.iter().map(|s| format!("[[{}]]", s.link)).collect();
    let written: Vec<String> = match (map.get("source"), map.get("sources")) {
        (Some(one), None) => vec![one.as_str().unwrap_or_default().to_string()],
        (None, Some(list)) => list
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => panic!("{what}: neither source nor sources in\n{yaml}"),
    };
    assert_eq!(written, links, "{what}");
    assert!(map.contains_key("created") && map.contains_key("type"), "{what}");
}

/// The text after the frontmatter.
fn body_of(output: &str) -> &str {
    output.strip_prefix("---\n").and_then(|r| r.split_once("\n---\n")).map_or(output, |(_, b)| b)
}

/// Every `[[…]]` the renderer wrote (embeds aside) targets a source, and its anchor, if any, is
/// one of that source's anchors, spelled as listed.
fn assert_links_resolve(output: &str, sources: &[SourceNote], what: &str) {
    let mut rest = output;
    while let Some(start) = rest.find("[[") {
        let is_embed = rest[..start].ends_with('!');
        let after = &rest[start + 2..];
        let end = after.find("]]").unwrap_or_else(|| panic!("{what}: unclosed link in {after:?}"));
        let inner = &after[..end];
        rest = &after[end + 2..];
        if is_embed {
            continue;
        }
        let target_anchor = inner.split('|').next().unwrap_or_default();
        let (target, anchor) = match target_anchor.split_once('#') {
            Some((t, a)) => (t, Some(a)),
            None => (target_anchor, None),
        };
        let Some(source) = sources.iter().find(|s| s.link == target) else {
            // A wikilink the user wrote in a comment is theirs, not the renderer's.
            assert!(
                sources.iter().any(|s| s
                    .doc
                    .annotations
                    .iter()
                    .any(|a| a.comment.as_deref().is_some_and(|c| c.contains(inner)))),
                "{what}: [[{inner}]] targets no source"
            );
            continue;
        };
        if let Some(anchor) = anchor {
            assert!(
                source.anchors.iter().any(|a| a == anchor),
                "{what}: [[{inner}]]: no such anchor in {}",
                source.link
            );
        }
        // A page is never an anchor unless a heading of that name exists (checked just above):
        // seed 001's `[[key#p. 5|p. 5]]` would be a broken link.
        assert!(
            anchor.is_none_or(|a| !a.starts_with("p. ") || source.anchors.iter().any(|x| x == a)),
            "{what}: [[{inner}]]"
        );
    }
}

/// List items at the start of a line: a summary lists each semantic annotation exactly once.
fn top_level_items(output: &str) -> usize {
    output.lines().filter(|l| l.starts_with("- ")).count()
}

fn assert_summary_invariants(source: &SourceNote, options: &RenderOptions, what: &str) {
    let once = summarize(source, options);
    assert_eq!(once, summarize(source, options), "{what}: two renderings differ");
    let sources = std::slice::from_ref(source);
    assert_nothing_lost(&once, sources, what);
    assert_links_resolve(body_of(&once), sources, what);
    assert_frontmatter(&once, sources, what);
    // A section colour is an item, not a heading, when the vault does not read colours as
    // sections (seed 001's template does) and the export printed no heading line for it.
    let headings: Vec<String> =
        once.lines().filter(|l| l.starts_with("##")).map(|l| normalized(l.trim_start_matches('#'))).collect();
    let headed = |a: &Annotation| {
        let title = a.comment.as_deref().filter(|c| !c.trim().is_empty()).or(a.text.as_deref());
        title.map(normalized).is_some_and(|t| headings.iter().any(|h| h.ends_with(&t)))
    };
    let seed = source.doc.template == TemplateStyle::MarkBlocks;
    let semantic = source.doc.annotations.iter().filter(|a| is_semantic(a) || !(seed || headed(a))).count();
    assert_eq!(top_level_items(&once), semantic, "{what}: each semantic annotation is one item");
}

fn assert_synthesis_invariants(sources: &[SourceNote], options: &RenderOptions, what: &str) {
    let once = synthesize(sources, options).expect("sources were given");
    assert_eq!(
        once,
        synthesize(sources, options).expect("sources were given"),
        "{what}: two renderings differ"
    );
    assert_nothing_lost(&once, sources, what);
    assert_links_resolve(body_of(&once), sources, what);
    assert_frontmatter(&once, sources, what);
}

#[test]
fn invariants_hold_on_every_case() {
    for (path, case) in all_cases() {
        let what = path.display().to_string();
        for source in &case.sources {
            assert_summary_invariants(source, &case.options, &what);
        }
        assert_synthesis_invariants(&case.sources, &case.options, &what);
    }
}

#[test]
fn a_synthesis_needs_sources() {
    assert_eq!(synthesize(&[], &RenderOptions::default()), Err(SynthesisError::NoSources));
}

#[test]
fn sources_take_their_anchors_from_the_note() {
    let case = load(&dir("summary").join("without_sections.json"));
    let note = "---\ncitekey: x\n---\n# Annotations\n## **Methods: design**\n```\n## not a heading\n```\ntext ^block-1\n";
    let source = SourceNote::from_doc(case.sources[0].doc.clone(), "@x", note);
    assert_eq!(source.link, "@x");
    assert_eq!(source.anchors, ["Annotations", "Methods design", "^block-1"]);
}

#[test]
fn an_anchor_missing_from_the_note_is_not_written() {
    let mut case = load(&dir("summary").join("template_with_sections.json"));
    let source = &mut case.sources[0];
    source.anchors.clear();
    let summary = summarize(source, &case.options);
    assert!(!summary.contains("[[@smithML2023#"), "{summary}");
    assert!(summary.contains("[[@smithML2023|p. 8]]"), "{summary}");
}

#[test]
fn group_titles_are_configurable() {
    let case = load(&dir("summary").join("without_sections.json"));
    let mut options = case.options.clone();
    options.titles.positive = "Evidence For".into();
    let summary = summarize(&case.sources[0], &options);
    assert!(summary.contains("\n## Evidence For\n"), "{summary}");
    assert!(!summary.contains("Key Points"), "{summary}");
}

// ---- generated documents ----------------------------------------------------------------------

const COLORS: [&str; 11] = [
    "section1", "section2", "section3", "positive", "negative", "question", "detail", "code", "other",
    "mine", "positive",
];

fn text_strategy() -> impl Strategy<Value = Option<String>> {
    proptest::option::of("[a-z #>|*_`~.:1\\-\n]{0,24}")
}

fn annotation_strategy() -> impl Strategy<Value = Annotation> {
    (
        0..COLORS.len(),
        text_strategy(),
        text_strategy(),
        proptest::option::of("[0-9a-z|\\]\\-]{0,4}"),
        any::<bool>(),
    )
        .prop_map(|(color, text, comment, page, image)| {
            let color = COLORS[color].to_string();
            let level = match color.as_str() {
                "section1" => Some(2),
                "section2" => Some(3),
                "section3" => Some(4),
                _ => None,
            };
            Annotation {
                kind: if image { AnnotationType::Image } else { AnnotationType::Highlight },
                color_category: if level.is_some() {
                    ColorCategory::Hierarchy
                } else {
                    ColorCategory::Semantic
                },
                color,
                color_hex: None,
                text,
                comment,
                comment_prefix: None,
                theme: None,
                page,
                page_label: None,
                heading_level: level,
                image_path: image.then(|| "image-1-x1-y2.png".to_string()),
                zotero_link: None,
            }
        })
}

fn source_strategy(link: &'static str) -> impl Strategy<Value = SourceNote> {
    (proptest::collection::vec(annotation_strategy(), 0..12), "[a-z #|]{0,12}").prop_map(
        move |(annotations, title)| {
            let mut anchors = vec!["Annotations".to_string()];
            for ann in annotations.iter().filter(|a| a.color_category == ColorCategory::Hierarchy) {
                if let Some(heading) = ann.comment.as_deref().or(ann.text.as_deref()) {
                    anchors.push(scholia::note::anchor::heading_anchor(heading));
                }
            }
            anchors.retain(|a| !a.is_empty());
            let doc = AnnotationDoc {
                citekey: link.trim_start_matches('@').to_string(),
                title,
                file_path: format!("/v/{link}.md"),
                annotations,
                zotero_link: None,
                authors: None,
                year: None,
                tags: vec![],
                template: TemplateStyle::MarkBlocks,
                diagnostics: vec![],
            };
            SourceNote { doc, link: link.to_string(), anchors, headings: vec![], legend: vec![] }
        },
    )
}

/// Section names from a small set, so generated sources share themes (generic ones included).
const HEADINGS: [&str; 5] =
    ["Methods", "Judge reliability", "Seed variance", "Results", "Judge Reliability."];

/// `source` with a unique marker word at the end of every semantic text and comment, and of
/// every section's text under a comment, and a unique image file, so each can be counted; section
/// comments come from [`HEADINGS`] and some annotations carry a Zotero deep link.
fn marked(mut source: SourceNote, tag: &str) -> SourceNote {
    for (i, ann) in source.doc.annotations.iter_mut().enumerate() {
        let is_section = ann.color_category == ColorCategory::Hierarchy;
        if is_section {
            ann.comment = Some(HEADINGS[i % HEADINGS.len()].to_string());
        } else if let Some(comment) = &mut ann.comment {
            comment.push_str(&format!(" c{tag}x{i}q"));
        }
        if let Some(text) = &mut ann.text {
            text.push_str(&format!(" t{tag}x{i}q"));
        }
        if ann.image_path.is_some() {
            ann.image_path = Some(format!("image-{tag}-{i}.png"));
        }
        if i % 3 == 0 {
            ann.zotero_link = Some(format!("zotero://open-pdf/library/items/K{tag}?page=2&annotation=A{i}"));
        }
    }
    source.anchors = vec!["Annotations".to_string()];
    source.anchors.extend(HEADINGS.iter().map(|h| scholia::note::anchor::heading_anchor(h)));
    source
}

/// Each marker of `sources` (marked with tags `first`, `first + 1`, …) appears exactly once in
/// the body of `output`.
fn assert_each_once(output: &str, sources: &[SourceNote], first: usize, what: &str) {
    let body = body_of(output);
    for (n, source) in sources.iter().enumerate().map(|(n, s)| (n + first, s)) {
        for (i, ann) in source.doc.annotations.iter().enumerate() {
            let mut markers = Vec::new();
            if ann.text.is_some() {
                markers.push(format!("t{n}x{i}q"));
            }
            if ann.comment.is_some() && ann.color_category == ColorCategory::Semantic {
                markers.push(format!("c{n}x{i}q"));
            }
            markers.extend(ann.image_path.clone());
            for marker in markers {
                let count = body.matches(&marker).count();
                assert_eq!(count, 1, "{what}: {marker} appears {count} times\n{output}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_annotation_sets_appear_once_without_debris(
        a in source_strategy("@alpha2020"),
        b in source_strategy("@beta2021"),
        c in source_strategy("@gamma2022"),
    ) {
        let options = RenderOptions { date: "2024-01-15".into(), ..RenderOptions::default() };
        let sources = [marked(a, "0"), marked(b, "1"), marked(c, "2")];
        let synthesis = scholia::synthesis::synthesize_with_report(&sources, &options).unwrap();
        assert_each_once(&synthesis.markdown, &sources, 0, "generated synthesis");
        crate::synthesis_families::assert_no_debris(&synthesis.markdown, "generated synthesis");
        prop_assert!(synthesis.report.unresolved_links.is_empty(), "{:?}", synthesis.report);
        for (n, source) in sources.iter().enumerate() {
            let summary = summarize(source, &options);
            assert_each_once(&summary, std::slice::from_ref(source), n, &format!("generated summary {n}"));
            crate::synthesis_families::assert_no_debris(&summary, "generated summary");
        }
    }

    #[test]
    fn generated_documents_keep_the_invariants(
        a in source_strategy("@alpha2020"),
        b in source_strategy("@beta2021"),
    ) {
        let options = RenderOptions { date: "2024-01-15".into(), ..RenderOptions::default() };
        assert_summary_invariants(&a, &options, "generated summary");
        assert_synthesis_invariants(&[a, b], &options, "generated synthesis");
    }
}

#[test]
fn a_link_to_the_note_itself_in_a_comment_points_at_the_source_note() {
    let note = "---\ncitekey: lee2020\n---\n## Methods\n\n> [!quote|#ffd400] Highlight ([p. 3](zotero://open-pdf/library/items/AB?page=3))\n> Soil keeps carbon for decades.\n";
    let mut doc =
        scholia::annotations::parse(note, "/v/@lee2020.md", &scholia::annotations::ParseOptions::default());
    assert_eq!(doc.annotations.len(), 1, "{doc:?}");
    doc.annotations[0].comment = Some("as [[#methods|the method]] says; cf. [[#^gone]]".into());
    let source = SourceNote::from_doc(doc, "@lee2020", note);
    let options = RenderOptions { date: "2024-06-01".into(), ..RenderOptions::default() };
    let summary = scholia::synthesis::summarize(&source, &options);
    assert!(summary.contains("as [[@lee2020#Methods|the method]] says; cf. gone"), "{summary}");
    assert_links_resolve(&summary, std::slice::from_ref(&source), "local link");
}
