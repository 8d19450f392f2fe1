//! The multi-document synthesis (seed 001, "Multi-Document Synthesis"), one place per annotation.
//!
//! Layout: Dataview frontmatter with the counts and the palette; `# Synthesis: {theme}` and a line
//! saying how many annotations from how many sources went in; an Overview (a generated digest,
//! marked as such, then a callout left for the reader or an agent); Common Themes and "Other notes
//! from each source", which together hold every annotation exactly once; Key Findings, Critical
//! Points and Open Questions as short references; Contradictions & Gaps; Next Steps as tasks.
//!
//! Unlike seed 001's layout, the cross-cutting lists do not repeat `{{text}}`: a passage printed
//! three or four times hides what is new; a reference (first words, source, page link) is enough
//! to find it.

use std::fmt::Write as _;

use super::contrast::{tensions, unanswered};
use super::corpus::Corpus;
use super::links::note_link;
use super::markdown::{one_line, push_heading, yaml_date, yaml_quoted, yaml_string};
use super::palette::Palette;
use super::report::{report, without_annotations};
use super::sections;
use super::summary::finish;
use super::themes::{is_generic, theme_key};
use super::{RenderOptions, Rendered, SourceNote, SynthesisError};

/// Renders the multi-document synthesis of `sources`.
///
/// The title theme is `options.theme`, else the strongest shared theme, else the citekeys.
/// Fails only when `sources` is empty.
pub fn synthesize(sources: &[SourceNote], options: &RenderOptions) -> Result<String, SynthesisError> {
    synthesize_with_report(sources, options).map(|r| r.markdown)
}

/// [`synthesize`], with the report of what went in, what was left out and any link that would
/// not resolve.
pub fn synthesize_with_report(
    sources: &[SourceNote],
    options: &RenderOptions,
) -> Result<Rendered, SynthesisError> {
    if sources.is_empty() {
        return Err(SynthesisError::NoSources);
    }
    let (corpus, theme) = corpus_and_theme(sources, options);
    let mut out = String::new();
    push_frontmatter(&mut out, &corpus, theme.as_deref(), options);
    let title = theme.clone().unwrap_or_else(|| citekeys(sources));
    push_heading(&mut out, 1, &format!("Synthesis: {title}"));
    push_counts(&mut out, sources);
    let tensions = tensions(&corpus);
    let open = unanswered(&corpus);
    sections::push_overview(&mut out, &corpus);
    sections::push_common_themes(&mut out, &corpus);
    sections::push_other_notes(&mut out, &corpus);
    sections::push_cross_cutting(&mut out, &corpus);
    sections::push_contradictions_and_gaps(&mut out, &corpus, &tensions, &open);
    sections::push_next_steps(&mut out, &corpus, &tensions, &open);
    let markdown = finish(out);
    let report = report(&markdown, sources, &corpus.palette.label);
    Ok(Rendered { markdown, report })
}

/// The title a synthesis of `sources` gets (what follows `# Synthesis: `): the requested theme,
/// else the strongest shared theme, else the citekeys. Front ends use it to name the note.
pub fn synthesis_title(sources: &[SourceNote], options: &RenderOptions) -> String {
    corpus_and_theme(sources, options).1.unwrap_or_else(|| citekeys(sources))
}

/// The corpus and the theme that names the note: the requested one, else the strongest shared
/// theme that is not a generic section name.
fn corpus_and_theme<'a>(sources: &'a [SourceNote], options: &RenderOptions) -> (Corpus<'a>, Option<String>) {
    let requested = options.theme.as_deref().map(one_line).filter(|t| !t.is_empty());
    let palette = Palette::detect(sources, options);
    let corpus = Corpus::new(sources, requested.as_deref(), palette);
    let strongest = corpus.themes.iter().find(|t| !is_generic(&theme_key(&t.name)));
    let theme = requested.or_else(|| strongest.map(|t| t.name.clone()));
    (corpus, theme)
}

fn push_frontmatter(out: &mut String, corpus: &Corpus, theme: Option<&str>, options: &RenderOptions) {
    out.push_str("---\ntype: synthesis\nsources:\n");
    for source in corpus.sources {
        let _ = writeln!(out, "  - {}", yaml_quoted(&note_link(source)));
    }
    if let Some(theme) = theme {
        let _ = writeln!(out, "theme: {}", yaml_string(theme));
    }
    push_yaml_list(out, "themes", corpus.themes.iter().map(|t| yaml_string(&t.name)));
    let count: usize = corpus.sources.iter().map(|s| s.doc.annotations.len()).sum();
    let _ = writeln!(out, "annotations: {count}");
    let empty = without_annotations(corpus.sources);
    push_yaml_list(out, "sources_without_annotations", empty.iter().map(|l| yaml_quoted(l)));
    let _ = writeln!(out, "palette: {}", yaml_quoted(&corpus.palette.label));
    let _ = writeln!(out, "created: {}", yaml_date(&options.date));
    out.push_str("---\n\n");
}

fn push_yaml_list(out: &mut String, key: &str, values: impl Iterator<Item = String>) {
    let values: Vec<String> = values.collect();
    if values.is_empty() {
        let _ = writeln!(out, "{key}: []");
        return;
    }
    let _ = writeln!(out, "{key}:");
    for value in values {
        let _ = writeln!(out, "  - {value}");
    }
}

/// `12 annotations from 3 sources; no annotations in [[x]].`
fn push_counts(out: &mut String, sources: &[SourceNote]) {
    let count: usize = sources.iter().map(|s| s.doc.annotations.len()).sum();
    let _ = write!(out, "{} from {}", plural(count, "annotation"), plural(sources.len(), "source"));
    let empty = without_annotations(sources);
    if !empty.is_empty() {
        let _ = write!(out, "; no annotations in {}", sections::and_list(&empty));
    }
    out.push_str(".\n\n");
}

/// `1 source`, `3 sources`.
pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

fn citekeys(sources: &[SourceNote]) -> String {
    let keys: Vec<&str> = sources
        .iter()
        .map(|s| if s.doc.citekey.trim().is_empty() { s.link.as_str() } else { s.doc.citekey.trim() })
        .collect();
    keys.join(", ")
}
