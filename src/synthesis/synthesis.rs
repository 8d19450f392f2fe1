//! The multi-document synthesis (seed 001, "Multi-Document Synthesis").
//!
//! Layout: Dataview frontmatter; `# Synthesis: {theme}`; an Overview left for the reader or an
//! agent to write; Common Themes (annotations per source under each shared theme); Key Findings,
//! Critical Points and Open Questions across sources, then the other colour groups, so every
//! semantic annotation appears at least once; Contradictions & Gaps; Next Steps as tasks.

use std::fmt::Write as _;

use super::contrast::{Ground, Tension, tensions, unanswered};
use super::corpus::{Corpus, Item};
use super::items::{Body, Group, body, flat, push_body};
use super::links::{note_link, page_link};
use super::markdown::{one_line, push_heading, push_item, yaml_date, yaml_quoted, yaml_string};
use super::summary::finish;
use super::{RenderOptions, SourceNote, SynthesisError};

/// Renders the multi-document synthesis of `sources` (seed 001's layout).
///
/// The title theme is `options.theme`, else the strongest shared theme, else the citekeys.
/// Fails only when `sources` is empty.
pub fn synthesize(sources: &[SourceNote], options: &RenderOptions) -> Result<String, SynthesisError> {
    if sources.is_empty() {
        return Err(SynthesisError::NoSources);
    }
    let (corpus, theme) = corpus_and_theme(sources, options);
    let mut out = String::new();
    push_frontmatter(&mut out, &corpus, theme.as_deref(), options);
    let title = theme.clone().unwrap_or_else(|| citekeys(sources));
    push_heading(&mut out, 1, &format!("Synthesis: {title}"));
    push_heading(&mut out, 2, "Overview");
    out.push_str("> [!abstract] Overview\n> *To be written.*\n\n");
    push_common_themes(&mut out, &corpus);
    push_colour_sections(&mut out, &corpus, options);
    let tensions = tensions(&corpus);
    let open = unanswered(&corpus);
    push_contradictions_and_gaps(&mut out, &corpus, &tensions, &open);
    push_next_steps(&mut out, &corpus, &tensions, &open);
    Ok(finish(out))
}

/// The title a synthesis of `sources` gets (what follows `# Synthesis: `): the requested theme,
/// else the strongest shared theme, else the citekeys. Front ends use it to name the note.
pub fn synthesis_title(sources: &[SourceNote], options: &RenderOptions) -> String {
    corpus_and_theme(sources, options).1.unwrap_or_else(|| citekeys(sources))
}

fn corpus_and_theme<'a>(sources: &'a [SourceNote], options: &RenderOptions) -> (Corpus<'a>, Option<String>) {
    let requested = options.theme.as_deref().map(one_line).filter(|t| !t.is_empty());
    let corpus = Corpus::new(sources, requested.as_deref());
    let theme = requested.or_else(|| corpus.themes.first().map(|t| t.name.clone()));
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
    if corpus.themes.is_empty() {
        out.push_str("themes: []\n");
    } else {
        out.push_str("themes:\n");
        for theme in &corpus.themes {
            let _ = writeln!(out, "  - {}", yaml_string(&theme.name));
        }
    }
    let _ = writeln!(out, "created: {}", yaml_date(&options.date));
    out.push_str("---\n\n");
}

fn citekeys(sources: &[SourceNote]) -> String {
    let keys: Vec<&str> = sources
        .iter()
        .map(|s| if s.doc.citekey.trim().is_empty() { s.link.as_str() } else { s.doc.citekey.trim() })
        .collect();
    keys.join(", ")
}

/// `### {theme}` then `**From [[source]]:**` and its annotations, for each shared theme.
fn push_common_themes(out: &mut String, corpus: &Corpus) {
    push_heading(out, 2, "Common Themes");
    if corpus.themes.is_empty() {
        out.push_str("_No theme is shared by two or more sources._\n\n");
    }
    for theme in &corpus.themes {
        push_heading(out, 3, &theme.name);
        for &src in &theme.sources {
            let source = &corpus.sources[src];
            let items: Vec<&Item> =
                corpus.items.iter().filter(|i| i.src == src && i.themes.contains(&theme.key)).collect();
            let _ = write!(out, "**From {}:**", note_link(source));
            if items.is_empty() {
                out.push_str(" _the heading only, no annotations under it._\n\n");
                continue;
            }
            out.push('\n');
            for item in items {
                let link = page_link(source, item.anchor, item.ann.page.as_deref()).map(|l| format!("({l})"));
                push_body(out, 0, &theme_body(item), link.as_deref());
            }
            out.push('\n');
        }
    }
}

/// A semantic annotation's body; for a section annotation only its highlighted text (its
/// comment is the theme's heading).
fn theme_body(item: &Item) -> Body {
    if item.semantic {
        return body(item.ann);
    }
    Body { text: item.ann.text.as_deref().unwrap_or_default().trim().to_string(), code: None }
}

/// `([[source]], [[source#anchor|p. 5]])`.
fn citation(corpus: &Corpus, item: &Item) -> String {
    let source = &corpus.sources[item.src];
    match page_link(source, item.anchor, item.ann.page.as_deref()) {
        Some(page) => format!("({}, {page})", note_link(source)),
        None => format!("({})", note_link(source)),
    }
}

/// Key Findings, Critical Points, Open Questions (always), then the other colours present.
fn push_colour_sections(out: &mut String, corpus: &Corpus, options: &RenderOptions) {
    let fixed = [
        (Group::Positive, "Key Findings"),
        (Group::Negative, "Critical Points"),
        (Group::Question, "Open Questions"),
    ];
    for (group, title) in &fixed {
        push_heading(out, 2, title);
        push_items(out, corpus, &corpus.in_group(group));
    }
    let mut others: Vec<Group> = Vec::new();
    for item in corpus.items.iter().filter(|i| i.semantic) {
        let group = item.group();
        if !fixed.iter().any(|(g, _)| *g == group) && !others.contains(&group) {
            others.push(group);
        }
    }
    others.sort_by_key(Group::rank);
    for group in others {
        push_heading(out, 2, &group.title(&options.titles));
        push_items(out, corpus, &corpus.in_group(&group));
    }
}

fn push_items(out: &mut String, corpus: &Corpus, items: &[&Item]) {
    if items.is_empty() {
        out.push_str("_None._\n\n");
        return;
    }
    for item in items {
        push_body(out, 0, &body(item.ann), Some(&citation(corpus, item)));
    }
    out.push('\n');
}

fn push_contradictions_and_gaps(out: &mut String, corpus: &Corpus, tensions: &[Tension], open: &[&Item]) {
    push_heading(out, 2, "Contradictions & Gaps");
    push_heading(out, 3, "Contradictions");
    if tensions.is_empty() {
        out.push_str("_No positive and negative annotations from different sources meet on a theme._\n\n");
    }
    for tension in tensions {
        let _ = writeln!(out, "- On {}:", ground_label(&tension.ground));
        for (word, items) in [("Positive", &tension.positives), ("Negative", &tension.negatives)] {
            for item in items.iter() {
                let mut b = body(item.ann);
                b.text = format!("{word} in {}: {}", note_link(&corpus.sources[item.src]), b.text);
                let link = page_link(&corpus.sources[item.src], item.anchor, item.ann.page.as_deref());
                push_body(out, 2, &b, link.map(|l| format!("({l})")).as_deref());
            }
        }
    }
    if !tensions.is_empty() {
        out.push('\n');
    }
    push_heading(out, 3, "Unanswered Questions");
    if open.is_empty() {
        out.push_str("_Every open question shares its terms with another source._\n\n");
    } else {
        push_items(out, corpus, open);
    }
}

fn ground_label(ground: &Ground) -> String {
    match ground {
        Ground::Theme(name) => format!("the theme **{}**", one_line(name)),
        Ground::Terms(words) => {
            let words: Vec<String> = words.iter().map(|w| format!("*{w}*")).collect();
            format!("the shared terms {}", words.join(", "))
        }
    }
}

/// One task per tension and per unanswered question.
fn push_next_steps(out: &mut String, corpus: &Corpus, tensions: &[Tension], open: &[&Item]) {
    push_heading(out, 2, "Next Steps");
    if tensions.is_empty() && open.is_empty() {
        out.push_str("_No contradictions or unanswered questions to follow up._\n");
        return;
    }
    for tension in tensions {
        let links: Vec<String> = tension.sources().iter().map(|&s| note_link(&corpus.sources[s])).collect();
        let task =
            format!("Resolve the tension on {} between {}", ground_label(&tension.ground), and_list(&links));
        push_item(out, 0, "- [ ] ", &task);
    }
    for item in open {
        push_item(out, 0, "- [ ] ", &format!("Answer: {} {}", flat(item.ann), citation(corpus, item)));
    }
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
