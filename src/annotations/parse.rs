//! The parser: note text → [`AnnotationDoc`]. One pass over the body's lines; each template
//! style is a reader in `styles`, each annotation a `Draft` finished in one place.

use std::sync::Arc;

use serde_json::Value;

use super::draft::Draft;
use super::lines::{Lines, callout_header, is_formatted_line, is_mark_start, unquote};
use super::model::TemplateStyle;
use super::styles;
use super::template::Template;
use super::text::{annotation_key, citekey_prefix, find, is_zotlit_id, strip_prefix_ci, zotero_link};
use super::{Annotation, AnnotationDoc, ParseOptions};
use crate::diag::Diagnostic;
use crate::note::frontmatter::{self, Frontmatter, scalar_string};

/// Parses an annotation note. `file_path` is recorded as given (absolute in the MCP answers).
/// Never fails: what cannot be read becomes a diagnostic in the result.
pub fn parse(text: &str, file_path: &str, options: &ParseOptions) -> AnnotationDoc {
    let fm = Frontmatter::parse(text);
    let body = frontmatter::body_start(text);
    let lines = Lines::new(text, body);
    let mut scan = Scan::default();
    let mut diagnostics = fm.diagnostics.clone();
    if super::zotero_html::present(text) {
        scan.annotations = super::zotero_html::read(text, body)
            .into_iter()
            .map(|(at, draft)| (at, draft.finish(options).0))
            .collect();
        scan.zotero_note = !scan.annotations.is_empty();
    }
    if !scan.zotero_note {
        scan.run(&lines);
        with_general_rule(&lines, text, options, &mut scan);
        // What the known styles said about their annotations, unless another reading replaced
        // them: the general rule's, or the template's where it read the note.
        if scan.general {
            scan.diagnostics.clear();
        }
        with_templates(&options.templates, text, body, options, &mut scan, &mut diagnostics);
        diagnostics.append(&mut scan.diagnostics);
        drop_repeated_titles(text, &mut scan.annotations);
        drop_user_blocks(text, &scan.export_blocks, &mut scan.annotations);
        join_repeated_links(&mut scan.annotations, options);
        join_same_annotation(&mut scan.annotations);
        if scan.general && scan.from_template == 0 {
            drop_lone_page_citation(text, &mut scan.annotations, &mut diagnostics);
        }
    }
    let first = scan.annotations.first().map_or(text.len(), |(at, _)| *at);
    let name = file_path.rsplit(['/', '\\']).next().unwrap_or(file_path);
    let stem = name.strip_suffix(".md").unwrap_or(name);
    let mut meta = super::meta::read(&fm, fm.unreadable_yaml(text), &lines, first, stem);
    // The template's own lines tell what the built-in reading did not find (`## {{title}}`).
    let from_template = std::mem::take(&mut scan.template_meta);
    meta.title = meta.title.or(from_template.title);
    meta.authors = meta.authors.or(from_template.authors);
    // The year: a field that names it, the template's year line, Zotero's citation of the item,
    // and last a bare `date` (which may be the note's own).
    meta.year = meta
        .year
        .or(from_template.year)
        .or_else(|| super::meta::citation_year(text))
        .or_else(|| meta.dated.take());
    let citekey = super::meta::citekey(&meta, scan.first_cite.as_deref(), file_path);
    let title = meta.title.clone().unwrap_or_else(|| citekey.clone());
    if scan.annotations.is_empty() {
        diagnostics.push(Diagnostic::info(0, "no annotation was found in this note"));
    }
    AnnotationDoc {
        citekey,
        title,
        file_path: file_path.to_string(),
        template: scan.style(),
        annotations: scan.annotations.into_iter().map(|(_, a)| a).collect(),
        zotero_link: zotero_link(text, "select").map(str::to_string),
        authors: meta.authors,
        year: meta.year,
        tags: fm.tags(),
        diagnostics,
    }
}

/// Whether `text` is an annotation note: `category: Annotations` in its frontmatter, or the
/// parser recognises annotations in it.
pub fn is_annotation_note(text: &str, options: &ParseOptions) -> bool {
    let fm = Frontmatter::parse(text);
    if is_scholia_output(&fm) {
        return false;
    }
    let category = fm.get_ci("category").map(|v| match v {
        Value::Array(items) => items.iter().filter_map(scalar_string).collect::<Vec<_>>(),
        other => scalar_string(other).into_iter().collect(),
    });
    if category.is_some_and(|c| {
        c.iter().any(|c| c.trim().trim_matches(['[', ']']).eq_ignore_ascii_case("annotations"))
    }) {
        return true;
    }
    if super::zotero_html::present(text)
        && !super::zotero_html::read(text, frontmatter::body_start(text)).is_empty()
    {
        return true;
    }
    let lines = Lines::new(text, frontmatter::body_start(text));
    let mut scan = Scan { stop_at_first: true, ..Scan::default() };
    scan.run(&lines);
    if !scan.drafts.is_empty() {
        return true;
    }
    // Notes only the user's own template reads.
    if !options.templates.is_empty() {
        let doc = parse(text, "", options);
        if matches!(doc.template, TemplateStyle::UserTemplate | TemplateStyle::Mixed)
            && !doc.annotations.is_empty()
        {
            return true;
        }
    }
    // Notes only the general rule reads: each annotation bounded by its Zotero link.
    find(text, "zotero://open-pdf").is_some()
        && super::general::read(&lines, &options.colour_labels, &heading_colours(options), false)
            .iter()
            .any(|f| !f.draft.is_empty())
}

/// Whether the note is a summary or synthesis Scholia wrote (`type: summary` / `type: synthesis`):
/// it quotes annotations with their links, but it is not an annotation note.
pub fn is_scholia_output(fm: &Frontmatter) -> bool {
    fm.get_str("type").is_some_and(|t| t == "summary" || t == "synthesis")
}

#[derive(Default)]
struct Scan<'a> {
    /// Each annotation with the byte offset it starts at.
    annotations: Vec<(usize, Annotation)>,
    /// What the known styles read, not yet finished: most notes the general rule reads better,
    /// and then they never are.
    drafts: Vec<Pending<'a>>,
    /// Annotations read with the user's template.
    from_template: usize,
    /// Whether the general rule read the note.
    general: bool,
    /// Whether the note is Zotero's own note HTML.
    zotero_note: bool,
    diagnostics: Vec<Diagnostic>,
    styles: [usize; 4],
    first_cite: Option<String>,
    /// What the metadata lines of the template that read the note say.
    template_meta: super::template::TemplateMeta,
    /// The `persist` blocks in which that template prints its loops: the export's own.
    export_blocks: Vec<String>,
    stop_at_first: bool,
    /// The block quote read last by [`Scan::annotation_in_quote_after`]: its lines (after the one
    /// it was read from) and its last line holding an annotation.
    quote: Option<(std::ops::Range<usize>, Option<usize>)>,
}

/// An annotation a known style read, with what the reading said about it.
struct Pending<'a> {
    at: usize,
    line: usize,
    draft: Draft<'a>,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Scan<'a> {
    fn run(&mut self, lines: &Lines<'a>) {
        let mut i = 0;
        let mut fence: Option<&str> = None;
        while i < lines.len() {
            let line = lines.get(i);
            let t = line.trim_start();
            if let Some(marker) = fence {
                if t.starts_with(marker) {
                    fence = None;
                }
                i += 1;
                continue;
            }
            let next = match t.as_bytes().first() {
                Some(b'<') if is_mark_start(t) => self.read(lines, i, 0),
                Some(b'>') => self.quoted(lines, i),
                Some(b'"') if is_formatted_line(t) => self.read(lines, i, 3),
                Some(b'`') | Some(b'~') if t.starts_with("```") || t.starts_with("~~~") => {
                    fence = Some(&t[..3]);
                    None
                }
                Some(_) if t.starts_with('“') && is_formatted_line(t) => self.read(lines, i, 3),
                _ => None,
            };
            if self.stop_at_first && !self.drafts.is_empty() {
                return;
            }
            i = next.unwrap_or(i + 1).max(i + 1);
        }
    }

    /// A blockquote line: a callout annotation, a formatted-style line, a `<mark>` in a quote, or
    /// the `[!Cite]` callout and other quotes (which are not annotations).
    fn quoted(&mut self, lines: &Lines<'a>, i: usize) -> Option<usize> {
        let line = lines.get(i);
        if is_formatted_line(line) {
            return self.read(lines, i, 3);
        }
        if unquote(line, 1).trim_start().starts_with("<mark") {
            return self.read(lines, i, 4);
        }
        let header = callout_header(line)?;
        if strip_prefix_ci(header, "[!cite").is_some() {
            if let Some(key) = unquote(lines.get(i + 1), 1).trim().strip_prefix("[@").and_then(citekey_prefix)
            {
                self.first_cite.get_or_insert_with(|| key.to_string());
            }
            return None;
        }
        let close = header.find(']')?;
        // `> [!quote|#ffd400]`, `> [!quote] |yellow`: the metadata names a colour. Other
        // metadata (`> [!link|no-icon]`, `|wide`) is a theme's, not an annotation's.
        let metadata = header[..close].split_once('|').map(|(_, m)| m).or_else(|| {
            header[close + 1..].strip_prefix('|').map(|c| c.split_whitespace().next().unwrap_or(""))
        });
        let has_color = metadata.is_some_and(names_colour)
            || super::general::type_colour(header[2..close].trim()).is_some();
        let body_has_annotation = self.annotation_in_quote_after(lines, i);
        (has_color || body_has_annotation).then(|| self.read(lines, i, 2)).flatten()
    }

    /// Whether a quoted line after line `i`, in the block quote holding it, holds an annotation
    /// (`<mark`, a Zotero link). A quote is read once, however many callouts it holds.
    fn annotation_in_quote_after(&mut self, lines: &Lines, i: usize) -> bool {
        let last = match &self.quote {
            Some((rest, last)) if rest.contains(&i) => *last,
            _ => {
                let (mut end, mut last) = (i + 1, None);
                while end < lines.len() && lines.get(end).trim_start().starts_with('>') {
                    let line = lines.get(end);
                    if line.contains("<mark") || line.contains("zotero://open-pdf") {
                        last = Some(end);
                    }
                    end += 1;
                }
                self.quote = Some((i + 1..end, last));
                last
            }
        };
        last.is_some_and(|at| at > i)
    }

    /// Reads one annotation with the reader of `style` (0 mark, 2 callout, 3 formatted, 4 mark in
    /// a quote) and records its draft.
    fn read(&mut self, lines: &Lines<'a>, i: usize, style: usize) -> Option<usize> {
        let mut draft = Draft::default();
        let mut problems = Vec::new();
        let next = match style {
            0 | 4 => styles::mark_block(lines, i, usize::from(style == 4), &mut draft, &mut problems),
            2 => styles::callout(lines, i, &mut draft, &mut problems),
            _ => styles::formatted(lines, i, &mut draft),
        };
        let kind = match style {
            0 if draft.color.name.is_some() && draft.color.hex.is_none() => 1,
            4 => 2,
            s => s.min(3),
        };
        self.styles[kind] += 1;
        let mut diagnostics: Vec<Diagnostic> = problems
            .into_iter()
            .map(|(line, message)| Diagnostic::error(lines.number(line), message))
            .collect();
        if draft.is_empty() {
            diagnostics.push(Diagnostic::warning(
                lines.number(i),
                "an annotation with no text, comment or image was found; it is kept, empty",
            ));
        }
        if let Some(key) = draft.cite.take() {
            self.first_cite.get_or_insert(key);
        }
        self.drafts.push(Pending { at: lines.offset(i), line: lines.number(i), draft, diagnostics });
        Some(next)
    }

    /// The known styles' drafts finished, in order, with what each reading said.
    fn finish_drafts(&mut self, options: &ParseOptions) {
        for pending in self.drafts.drain(..) {
            self.diagnostics.extend(pending.diagnostics);
            let (annotation, warning) = pending.draft.finish(options);
            if let Some(warning) = warning {
                self.diagnostics.push(Diagnostic::warning(pending.line, warning));
            }
            self.annotations.push((pending.at, annotation));
        }
    }

    fn style(&self) -> TemplateStyle {
        if self.zotero_note {
            return TemplateStyle::ZoteroNote;
        }
        if self.general && self.from_template == 0 {
            return TemplateStyle::Anchored;
        }
        if self.from_template > 0 {
            return if self.from_template == self.annotations.len() {
                TemplateStyle::UserTemplate
            } else {
                TemplateStyle::Mixed
            };
        }
        let kinds = [
            TemplateStyle::MarkBlocks,
            TemplateStyle::Highlightr,
            TemplateStyle::Callout,
            TemplateStyle::Formatted,
        ];
        let used: Vec<usize> = (0..4).filter(|&k| self.styles[k] > 0).collect();
        match used.as_slice() {
            [] => TemplateStyle::Unknown,
            [one] => kinds[*one],
            _ => TemplateStyle::Mixed,
        }
    }
}

/// Reads the note with the user's template: its annotations replace those the built-in rules
/// found in the same place; what the built-in rules found elsewhere (older imports written with
/// another template) is kept. A template that matches nothing leaves the built-in reading.
fn with_templates(
    templates: &[Arc<Template>],
    text: &str,
    body: usize,
    options: &ParseOptions,
    scan: &mut Scan,
    diagnostics: &mut Vec<Diagnostic>,
) {
    // Each template's reading, scored: a clean annotation counts one, one whose text or comment
    // still holds export markup (a link, a tag) counts against it. A note the template did not
    // write (the user's own note with pasted images) has none of its constant lines and no
    // Zotero link: that template's loose branches must not read it.
    let readings = templates.iter().map(|t| {
        let found: Vec<(usize, usize, Annotation, Option<String>)> = t
            .read(text, body)
            .into_iter()
            .map(|f| {
                let (a, warning) = f.draft.finish(options);
                (f.start, f.end, a, warning)
            })
            .collect();
        let mut found = without_stray_comments(found, text);
        // A heading the template prints over a group (`### {{group.heading}}`) that one of its
        // branches could print too (`### {{annotation.annotatedText}}`): its constant words.
        found.retain(|f| {
            let a = &f.2;
            let bare =
                a.comment.is_none() && a.zotero_link.is_none() && a.page.is_none() && a.image_path.is_none();
            !(bare && a.text.as_deref().is_some_and(|x| t.holds_literal(x)))
        });
        let wrote_it = t.region_start(text, body) > body
            || found.iter().any(|f| f.2.zotero_link.is_some() || f.2.page.is_some());
        let score = if wrote_it { quality(found.iter().map(|f| &f.2)) } else { i64::MIN };
        (t, found, score, wrote_it)
    });
    let Some((template, found, score, wrote_it)) =
        readings.reduce(|best, next| if next.2 > best.2 { next } else { best })
    else {
        return;
    };
    // The built-in rules' reading of the same part of the note: what they found above the
    // template's first annotation (its metadata, abstract, pasted notes) is no rival.
    // Nor is what the template prints over each annotation (`<mark …>Quote</mark>` read as a
    // highlight by the built-in rules).
    let region = template.region_start(text, body);
    let decoration = |a: &Annotation| {
        a.comment.is_none()
            && a.image_path.is_none()
            && a.text.as_deref().is_some_and(|t| template.prints_constant(t))
    };
    let rivals = || scan.annotations.iter().filter(|(at, a)| *at >= region && !decoration(a)).map(|(_, a)| a);
    let builtin = quality(rivals());
    // The template is the user's own: as many clean annotations as the built-in rules read is
    // enough, whatever colours and pages the built-in rules add besides (they read some where
    // the template prints none, a sticky note's).
    let worse = score < builtin && clean(found.iter().map(|f| &f.2)) < clean(rivals());
    if found.is_empty() || worse || !wrote_it {
        if !scan.annotations.is_empty() {
            diagnostics.push(Diagnostic::info(
                0,
                format!(
                    "the template {} does not match this note; it was read with the built-in rules",
                    template.name
                ),
            ));
        }
        return;
    }
    // A built-in reading is the template's when it starts inside one of its iterations or has
    // the same Zotero link (the built-in rules may start it a line earlier).
    let covered = |at: usize, a: &Annotation| {
        found.iter().any(|f| (f.0..f.1).contains(&at))
            || a.zotero_link
                .as_ref()
                .is_some_and(|l| found.iter().any(|f| f.2.zotero_link.as_ref() == Some(l)))
    };
    // Above the region, only an annotation with a Zotero annotation key of its own is kept (a
    // child note quoting a highlight, `[Go to annotation](…&annotation=KEY)`), unless the
    // template's reading holds the same key.
    let keys: Vec<&str> = found.iter().filter_map(|f| annotation_key(f.2.zotero_link.as_deref()?)).collect();
    scan.annotations.retain(|(at, a)| {
        let own_key = a.zotero_link.as_deref().and_then(annotation_key);
        (*at >= region || own_key.is_some_and(|k| !keys.contains(&k))) && !covered(*at, a)
    });
    let first_read = found.iter().map(|f| f.0).min().unwrap_or(text.len());
    scan.template_meta = template.read_meta(text, body, first_read);
    scan.export_blocks.clone_from(&template.persisted_loops);
    let line_of = |at: usize| 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count();
    let lines_read: Vec<(usize, usize)> = found.iter().map(|f| (line_of(f.0), line_of(f.1))).collect();
    scan.diagnostics.retain(|d| !lines_read.iter().any(|&(first, last)| (first..=last).contains(&d.line)));
    for (start, _, annotation, warning) in found {
        if let Some(warning) = warning {
            diagnostics.push(Diagnostic::warning(line_of(start), warning));
        }
        scan.annotations.push((start, annotation));
        scan.from_template += 1;
    }
    scan.annotations.sort_by_key(|(at, _)| *at);
}

/// A template that may print an annotation as its comment alone (`{% if annotation.comment %}>{{annotation.comment}}{% endif %}`,
/// for a sticky note) matches any quoted line of a note it did not write: such a bare comment —
/// no text, image, link, page or colour — is one of the template's only in a run of iterations
/// (matches with nothing but blank lines between them) that holds an annotation with more, and
/// only while such comments are not most of what the template read (sticky notes are a few
/// among highlights; every line of a callout read as one is not).
fn without_stray_comments<T>(
    found: Vec<(usize, usize, Annotation, T)>,
    text: &str,
) -> Vec<(usize, usize, Annotation, T)> {
    let bare = |a: &Annotation| {
        a.text.is_none()
            && a.image_path.is_none()
            && a.zotero_link.is_none()
            && a.page.is_none()
            && a.color_hex.is_none()
    };
    let stray = found.iter().filter(|f| bare(&f.2)).count();
    if stray == 0 {
        return found;
    }
    if 2 * stray > found.len() {
        return found.into_iter().filter(|f| !bare(&f.2)).collect();
    }
    // Each match's run: runs[i] is the index of the run match i is in.
    let mut runs = Vec::with_capacity(found.len());
    let mut run = 0;
    for (i, f) in found.iter().enumerate() {
        if i > 0 {
            let gap = text.get(found[i - 1].1..f.0).unwrap_or("x");
            if !gap.trim().is_empty() {
                run += 1;
            }
        }
        runs.push(run);
    }
    let mut anchored = vec![false; run + 1];
    for (f, &r) in found.iter().zip(&runs) {
        anchored[r] |= !bare(&f.2);
    }
    found.into_iter().zip(runs).filter(|(f, r)| anchored[*r] || !bare(&f.2)).map(|(f, _)| f).collect()
}

/// Zotero Integration keeps a `{% persist "notes" %}` block between imports for the user's own
/// writing (`%% begin notes %%` … `%% end notes %%`): what stands in one is never an annotation,
/// unless it carries its own Zotero link. The `annotations` block is the export's, and so is each
/// block in `exported` (the template that read the note prints a loop in it), and a block whose
/// name is not one of the user's writing (`results`, `study-context`) holding two annotations or
/// more, each with its page (`- (p. 3) text`): a template that keeps each section's loop
/// between imports.
fn drop_user_blocks(text: &str, exported: &[String], annotations: &mut Vec<(usize, Annotation)>) {
    const WRITING: [&str; 14] = [
        "note", "thought", "comment", "idea", "reflect", "summar", "remark", "todo", "my", "own", "notiz",
        "笔记", "想法", "感想",
    ];
    let mut blocks: Vec<std::ops::Range<usize>> = Vec::new();
    let mut from = 0;
    while let Some(open) = find(&text[from..], "%% begin ").map(|o| from + o) {
        let name_start = open + "%% begin ".len();
        let Some(name_len) = find(&text[name_start..], " %%") else { break };
        let name = &text[name_start..name_start + name_len];
        from = name_start + name_len;
        let name_trim = name.trim();
        if name.contains('\n')
            || name_trim.eq_ignore_ascii_case("annotations")
            || exported.iter().any(|e| e == name_trim)
        {
            continue;
        }
        let end_marker = format!("%% end {name} %%");
        if let Some(end) = find(&text[from..], &end_marker).map(|e| from + e) {
            // A block holding ZotLit's annotation block ids (`^KEYaATTpN`) is its export.
            let exported = text[from..end]
                .split('^')
                .skip(1)
                .any(|id| is_zotlit_id(id.split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or("")));
            let writing = {
                let lower = name_trim.to_lowercase();
                WRITING.iter().any(|w| lower.contains(w))
            };
            let paged =
                annotations.iter().filter(|(at, a)| (from..end).contains(at) && a.page.is_some()).count();
            let loop_kept = !writing && paged >= 2;
            if !exported && !loop_kept {
                blocks.push(from..end);
            }
            from = end + end_marker.len();
        }
    }
    if !blocks.is_empty() {
        annotations.retain(|(at, a)| a.zotero_link.is_some() || !blocks.iter().any(|b| b.contains(at)));
    }
}

/// `<mark>text</mark> [Page 2](…&annotation=KEY)`, then on a line of its own `comment [Page 2](…&annotation=KEY)`:
/// a template that prints the comment with the annotation's link again. One annotation key is one
/// annotation: words alone under the same key are its comment.
fn join_repeated_links(annotations: &mut Vec<(usize, Annotation)>, options: &ParseOptions) {
    let mut k = 0;
    while k + 1 < annotations.len() {
        let (prev, next) = (&annotations[k].1, &annotations[k + 1].1);
        let key = prev.zotero_link.as_deref().and_then(annotation_key);
        let words = match (&next.text, &next.comment) {
            (Some(t), None) | (None, Some(t)) if next.comment_prefix.is_none() => Some(t.clone()),
            _ => None,
        };
        let joins = key.is_some()
            && next.zotero_link == prev.zotero_link
            && next.image_path.is_none()
            && prev.image_path.is_none()
            && (prev.text.is_some() || prev.comment.is_some());
        let (true, Some(words)) = (joins, words) else {
            k += 1;
            continue;
        };
        annotations.remove(k + 1);
        let prev = &mut annotations[k].1;
        match prev.comment.as_mut() {
            Some(c) => {
                c.push_str("\n\n");
                c.push_str(&words);
            }
            None if prev.comment_prefix.is_none() => {
                let split = super::text::split_comment(&words, &options.prefixes);
                prev.comment = split.rest;
                prev.comment_prefix = split.prefix;
                prev.theme = split.theme;
            }
            None => prev.comment = Some(words),
        }
    }
}

/// One Zotero annotation printed in two places (`annotation=KEY` in both links): a template that
/// lists the highlights in one section and their comments in another (`> [!note] Personal
/// notes`). The later reading gives the first the text or comment it lacks and is dropped, when
/// the two agree on every field both have. Two readings that differ (another text, another
/// comment), a copy that adds nothing (the note holds the same passage twice) and an image beside
/// a text stay apart.
fn join_same_annotation(annotations: &mut Vec<(usize, Annotation)>) {
    let mut keys: Vec<Option<String>> = annotations
        .iter()
        .map(|(_, a)| a.zotero_link.as_deref().and_then(annotation_key).map(str::to_string))
        .collect();
    // Most notes print each key once: nothing to do.
    let mut sorted: Vec<&str> = keys.iter().flatten().map(String::as_str).collect();
    sorted.sort_unstable();
    if !sorted.windows(2).any(|w| w[0] == w[1]) {
        return;
    }
    let mut k = 0;
    while k < annotations.len() {
        let Some(own) = keys[k].clone() else {
            k += 1;
            continue;
        };
        let twin = (k + 1..annotations.len())
            .find(|&j| keys[j].as_deref() == Some(own.as_str()))
            .filter(|&j| complements(&annotations[k].1, &annotations[j].1));
        let Some(j) = twin else {
            k += 1;
            continue;
        };
        keys.remove(j);
        let (_, other) = annotations.remove(j);
        let first = &mut annotations[k].1;
        if first.text.is_none() && other.text.is_some() {
            first.text = other.text;
            first.kind = other.kind;
        }
        if first.comment.is_none() && other.comment.is_some() {
            first.comment = other.comment;
            first.comment_prefix = other.comment_prefix;
            first.theme = other.theme;
        }
        if first.color_hex.is_none() && other.color_hex.is_some() {
            first.color = other.color;
            first.color_hex = other.color_hex;
            first.color_category = other.color_category;
            first.heading_level = other.heading_level;
        }
        first.image_path = first.image_path.take().or(other.image_path);
        first.page = first.page.take().or(other.page);
    }
}

/// Whether `b`, a second reading of the annotation `a` reads, gives it its missing text or
/// comment and says nothing against it.
fn complements(a: &Annotation, b: &Annotation) -> bool {
    fn same(x: &Option<String>, y: &Option<String>) -> bool {
        match (x, y) {
            (Some(x), Some(y)) => x.split_whitespace().eq(y.split_whitespace()),
            _ => true,
        }
    }
    let adds = a.text.is_none() && b.text.is_some() || a.comment.is_none() && b.comment.is_some();
    let image_and_text =
        a.text.is_some() && b.image_path.is_some() || b.text.is_some() && a.image_path.is_some();
    adds && !image_and_text
        && same(&a.text, &b.text)
        && same(&a.comment, &b.comment)
        && same(&a.color_hex, &b.color_hex)
        && same(&a.image_path, &b.image_path)
        && same(&a.page, &b.page)
}

/// A callout title the template prints for every annotation of a colour (`> [!quote|#f19837]+
/// exact idea/term/example`) is the template's label, not the user's comment: a title-made
/// comment shared by three annotations or more is dropped.
fn drop_repeated_titles(text: &str, annotations: &mut [(usize, Annotation)]) {
    let title_of = |at: usize, comment: &str| {
        let line = text[at..].lines().next().unwrap_or("");
        line.trim_start().starts_with('>') && line.contains("[!") && line.contains(comment)
    };
    let mut counts: Vec<(String, usize)> = Vec::new();
    for (at, a) in annotations.iter() {
        if let Some(c) = a.comment.as_deref().filter(|c| title_of(*at, c)) {
            match counts.iter_mut().find(|(k, _)| k == c) {
                Some((_, n)) => *n += 1,
                None => counts.push((c.to_string(), 1)),
            }
        }
    }
    for (at, a) in annotations.iter_mut() {
        let repeated = a
            .comment
            .as_deref()
            .is_some_and(|c| counts.iter().any(|(k, n)| k == c && *n >= 3) && title_of(*at, c));
        if repeated {
            a.comment = None;
            a.comment_prefix = None;
            a.theme = None;
        }
    }
}

/// A general reading that is one passage anchored by nothing but a printed page (`… (page 1)`,
/// `(pp. 115–142)` in a reference): a page cited in the user's prose, not an export. Every real
/// export of that shape seen holds many such annotations; one alone is dropped, with a note.
fn drop_lone_page_citation(
    text: &str,
    annotations: &mut Vec<(usize, Annotation)>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let [(at, a)] = annotations.as_slice() else { return };
    // ZotLit's block id (`^KEYaATTACHMp2`) is an annotation's own key.
    let zotlit_key = memchr::memchr_iter(b'^', text.as_bytes()).any(|i| {
        let id = &text[i + 1..];
        is_zotlit_id(&id[..id.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(id.len())])
    });
    let weak = a.page.is_some()
        && a.zotero_link.is_none()
        && a.color_hex.is_none()
        && a.image_path.is_none()
        && a.kind == super::AnnotationType::Highlight
        && !zotlit_key;
    if weak {
        let line = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..*at]).count();
        diagnostics.push(Diagnostic::info(
            line,
            "a lone passage with a printed page, and nothing else of an export (no Zotero link, colour or image), was not read as an annotation",
        ));
        annotations.clear();
    }
}

/// Whether a callout's metadata names a colour: a hex (`#ffd400`) or a colour's name, alone or
/// in a class-like word (`yellow`, `hl-yellow`).
fn names_colour(metadata: &str) -> bool {
    let m = metadata.trim();
    m.starts_with('#') || m.split(['-', '_', ' ']).any(super::general::is_colour_word)
}

/// The general rule's reading replaces the known styles' when it explains the note better. It is
/// not tried when the styles read every annotation whole (clean, with colour and page) and no
/// Zotero annotation link is left over: most notes, and the general rule costs more than they do.
/// The known styles' drafts are finished only when their reading may be kept: a general reading
/// that scores more than the best they could (six points each) replaces them unread.
fn with_general_rule(lines: &Lines, text: &str, options: &ParseOptions, scan: &mut Scan) {
    let read = scan.drafts.len();
    let links = memchr::memmem::find_iter(text.as_bytes(), "zotero://open").count();
    if read > 0 && links <= read {
        scan.finish_drafts(options);
        if quality(scan.annotations.iter().map(|(_, a)| a)) == 6 * read as i64 {
            return;
        }
    }
    let general: Vec<(usize, Annotation)> = super::general::read(
        lines,
        &options.colour_labels,
        &heading_colours(options),
        !options.templates.is_empty(),
    )
    .into_iter()
    .map(|f| (f.at, f.draft.finish(options).0))
    .collect();
    let score = quality(general.iter().map(|(_, a)| a));
    if score <= 6 * read as i64 {
        scan.finish_drafts(options);
    }
    if score > quality(scan.annotations.iter().map(|(_, a)| a)) {
        scan.drafts.clear();
        scan.annotations = general;
        scan.general = true;
    }
}

/// The heading levels the user's templates print one colour's highlights as.
fn heading_colours(options: &ParseOptions) -> Vec<(usize, String)> {
    options.templates.iter().flat_map(|t| t.heading_colours().iter().cloned()).collect()
}

/// The clean annotations of a reading less those that kept export markup ([`quality`]).
fn clean<'a>(annotations: impl Iterator<Item = &'a Annotation>) -> i64 {
    annotations.map(|a| if quality(std::iter::once(a)) > 0 { 1 } else { -1 }).sum()
}

/// How well a reading explains a note, in quarter points: an annotation counts four, one whose
/// text or comment kept export markup (a Zotero or file link, an HTML tag, a heading line) counts
/// minus four, and a colour or a page read adds one each.
fn quality<'a>(annotations: impl Iterator<Item = &'a Annotation>) -> i64 {
    annotations
        .map(|a| {
            let dirty = [a.text.as_deref(), a.comment.as_deref()].into_iter().flatten().any(|t| {
                // Each marker is looked for only when its first byte is in the text.
                let has = |m: &str| find(t, m).is_some();
                let bytes = t.as_bytes();
                (memchr::memchr(b'<', bytes).is_some() && ["<mark", "<span", "</", "<br"].iter().any(|m| has(m)))
                    || (memchr::memchr(b':', bytes).is_some() && (has("zotero://") || has("file://")))
                    || (memchr::memchr2(b'\n', b'%', bytes).is_some() && (has("\n#") || has("%%")))
                    // A heading above other lines was swallowed; a one-line `##` comment is the
                    // user's (Zotero comments that mark a highlight as a heading).
                    || t.starts_with('#') && t.contains('\n')
            });
            if dirty { -4 } else { 4 + i64::from(a.color_hex.is_some()) + i64::from(a.page.is_some()) }
        })
        .sum()
}
