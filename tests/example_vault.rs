//! The bundled example vault end to end through the library: every note parses cleanly, and every
//! link a summary or synthesis writes resolves in the vault (target note and anchor exist).

use scholia::annotations::ParseOptions;
use scholia::library;
use scholia::note::Resolution;
use scholia::note::anchor::anchors_match;
use scholia::synthesis::{RenderOptions, summarize, synthesize};
use scholia::vault::{FsVault, MemVault, Vault, VaultPath};

use crate::check::root;

fn vault() -> FsVault {
    FsVault::open(root().join("examples/vault")).unwrap()
}

/// Every `[[target#anchor|alias]]` in `markdown` (embeds included).
fn wikilinks(markdown: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut rest = markdown;
    while let Some(start) = rest.find("[[") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("]]") else { break };
        let inner = &after[..end];
        let target = inner.split('|').next().unwrap_or("");
        let (note, anchor) = match target.split_once('#') {
            Some((n, a)) => (n, Some(a.to_string())),
            None => (target, None),
        };
        out.push((note.to_string(), anchor));
        rest = &after[end + 2..];
    }
    out
}

fn assert_links_resolve(vault: &FsVault, markdown: &str) {
    let resolver = library::resolver(&vault.list(&VaultPath::root()).unwrap());
    let links = wikilinks(markdown);
    assert!(!links.is_empty());
    for (target, anchor) in links {
        let Resolution::Resolved(path) = resolver.resolve(&target, None) else {
            panic!("link target {target:?} does not resolve to one file");
        };
        if let Some(anchor) = anchor {
            let text = vault.read(&VaultPath::new(&path).unwrap()).unwrap();
            let anchors = scholia::note::anchors(&text);
            assert!(
                anchors.iter().any(|a| anchors_match(a, &anchor)),
                "anchor #{anchor} missing in {target}"
            );
        }
    }
}

#[test]
fn every_note_parses_without_errors() {
    let vault = vault();
    let options = ParseOptions::default();
    let notes = library::list_annotation_files(&vault, &VaultPath::new("References").unwrap(), &[], &options)
        .unwrap();
    assert_eq!(notes.len(), 12);
    for note in notes {
        let path = VaultPath::new(&note.path).unwrap();
        let doc = scholia::annotations::parse(&vault.read(&path).unwrap(), &note.path, &options);
        assert!(doc.annotations.len() >= 3, "{}", note.path);
        assert!(doc.diagnostics.is_empty(), "{}: {:?}", note.path, doc.diagnostics);
        assert!(doc.annotations.iter().all(|a| a.color != "other"), "{}", note.path);
    }
}

#[test]
fn summaries_and_syntheses_write_only_links_that_resolve() {
    let vault = vault();
    let resolver = library::resolver(&vault.list(&VaultPath::root()).unwrap());
    let options = ParseOptions::default();
    let render = RenderOptions { date: "2024-06-01".into(), ..RenderOptions::default() };
    let mut sources = Vec::new();
    for note in library::list_annotation_files(&vault, &VaultPath::root(), &[], &options).unwrap() {
        let source =
            library::load_source(&vault, &resolver, &VaultPath::new(&note.path).unwrap(), &options).unwrap();
        assert_links_resolve(&vault, &summarize(&source, &render));
        sources.push(source);
    }
    let synthesis = synthesize(&sources, &render).unwrap();
    assert_links_resolve(&vault, &synthesis);
    // No annotation is lost: every semantic annotation's text appears in the synthesis.
    for source in &sources {
        for ann in source.doc.annotations.iter().filter(|a| a.heading_level.is_none()) {
            if let Some(text) = &ann.text {
                let first_line = text.lines().next().unwrap_or("");
                assert!(synthesis.contains(first_line), "missing from the synthesis: {first_line}");
            }
        }
    }
}

#[test]
fn a_note_obsidian_does_not_list_is_refused_rather_than_linked_to_nothing() {
    let note = "---\ncitekey: lee2020\n---\n> [!quote|#ffd400] Highlight ([p. 3](zotero://open-pdf/library/items/AB?page=3))\n> Soil keeps carbon.\n";
    let vault = MemVault::with_files([(".trash/@lee2020.md", note), ("Papers/@kim2021.md", note)]).unwrap();
    let resolver = library::resolver(&vault.list(&VaultPath::root()).unwrap());
    let options = ParseOptions::default();
    let hidden = VaultPath::new(".trash/@lee2020.md").unwrap();
    let err = library::load_source(&vault, &resolver, &hidden, &options).unwrap_err();
    assert!(err.to_string().contains(".trash/"), "{err}");
    let listed = VaultPath::new("Papers/@kim2021.md").unwrap();
    assert!(library::load_source(&vault, &resolver, &listed, &options).is_ok());
}

#[test]
fn citekeys_are_found_by_frontmatter_then_file_name() {
    let vault = vault();
    let refs = VaultPath::new("References").unwrap();
    let found = library::find_by_citekey(&vault, &refs, "weber2022seeds").unwrap().unwrap();
    assert_eq!(found.as_str(), "References/@weber2022seeds.md");
    assert_eq!(
        library::find_by_citekey(&vault, &VaultPath::root(), "@RUIZ2021FORGETTING")
            .unwrap()
            .map(|p| p.as_str().to_string()),
        Some("References/@ruiz2021forgetting.md".into())
    );
    assert!(library::find_by_citekey(&vault, &refs, "nobody1999").unwrap().is_none());
}

/// The example vault's sources named by citekey, read as the CLI reads them.
fn sources_of(keys: &[&str]) -> Vec<scholia::synthesis::SourceNote> {
    let vault = vault();
    let resolver = library::resolver(&vault.list(&VaultPath::root()).unwrap());
    let options = ParseOptions::default();
    keys.iter()
        .map(|k| {
            let path = VaultPath::new(&format!("References/@{k}.md")).unwrap();
            library::load_source(&vault, &resolver, &path, &options).unwrap()
        })
        .collect()
}

/// The lines of the Contradictions section.
fn contradictions(synthesis: &str) -> Vec<&str> {
    let start = synthesis.find("### Contradictions\n").expect("a Contradictions section");
    let rest = &synthesis[start + "### Contradictions\n".len()..];
    let end = rest.find("\n### ").unwrap_or(rest.len());
    rest[..end].lines().filter(|l| !l.trim().is_empty()).collect()
}

#[test]
fn the_judge_finding_and_the_judges_claim_are_a_tension() {
    let render = RenderOptions { date: "2024-06-01".into(), ..RenderOptions::default() };
    let synthesis = synthesize(&sources_of(&["moreau2024ragsurvey", "okafor2023judges"]), &render).unwrap();
    let lines = contradictions(&synthesis);
    let found = lines.iter().any(|l| {
        l.contains("“LLM judges agree with humans on…” ([[@moreau2024ragsurvey]]")
            && l.contains("“LLM judges systematically over-rate fluent…” ([[@okafor2023judges]]")
            && l.contains("*judge*")
    });
    assert!(found, "{lines:#?}");
    assert!(lines.len() <= 5, "{lines:#?}");
}

#[test]
fn the_rag_survey_and_the_seed_paper_have_no_tension() {
    let render = RenderOptions { date: "2024-06-01".into(), ..RenderOptions::default() };
    let synthesis = synthesize(&sources_of(&["moreau2024ragsurvey", "weber2022seeds"]), &render).unwrap();
    assert_eq!(contradictions(&synthesis), ["_No contradiction was found between the sources._"]);
    // "Evaluation", "Methods", "Limitations" are shared section names, not themes.
    assert!(synthesis.contains("# Synthesis: moreau2024ragsurvey, weber2022seeds\n"), "{synthesis}");
}

#[test]
fn the_whole_example_vault_has_a_golden_synthesis() {
    let vault = vault();
    let options = ParseOptions::default();
    let notes = library::list_annotation_files(&vault, &VaultPath::new("References").unwrap(), &[], &options)
        .unwrap();
    let keys: Vec<String> = notes
        .iter()
        .map(|n| {
            n.path
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .trim_start_matches('@')
                .trim_end_matches(".md")
                .to_string()
        })
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let render = RenderOptions { date: "2024-06-01".into(), ..RenderOptions::default() };
    let sources = sources_of(&keys);
    let rendered = scholia::synthesis::synthesize_with_report(&sources, &render).unwrap();
    assert!(rendered.report.warnings().is_empty(), "{:?}", rendered.report);
    crate::synthesis_families::assert_once(&rendered.markdown, &sources, "example vault");
    crate::synthesis_families::assert_no_debris(&rendered.markdown, "example vault");
    let dir = root().join("tests/cases/synthesis/example_vault");
    crate::check::check(&dir.join("synthesis.md"), &rendered.markdown);
    for source in &sources {
        let name = format!("summary-{}.md", source.doc.citekey);
        crate::check::check(&dir.join(name), &summarize(source, &render));
    }
}
