//! The user's own Zotero Integration template, compiled into a reader of the notes it wrote.
//!
//! [`Template::compile`] reads the Nunjucks text ([`syntax`]), evaluates it symbolically
//! ([`eval`]: constants computed, macros expanded, the annotation's fields left as slots, each
//! `if` an alternative with the facts its condition gives) and turns every loop over the
//! annotations into one regular expression ([`matcher`]). [`Template::read`] then finds each
//! iteration in a note: the template's constant text separates the fields, so labels, quotes and
//! links the template adds never end up in a field.

mod eval;
mod matcher;
mod pattern;
mod syntax;

use std::borrow::Cow;
use std::fmt;

pub use eval::Loader;
use pattern::{Fact, Field, Pat};

use super::colors::{self, ColorEntry};
use super::draft::Draft;
use super::text::{block_id_at, zotero_link};

/// A compiled template.
#[derive(Clone)]
pub struct Template {
    /// Where the template came from (a vault path), for messages.
    pub name: String,
    source: String,
    matcher: matcher::Matcher,
    /// Per loop body: the loops that share it (an unrolled outer loop repeats one body).
    bodies: Vec<Vec<usize>>,
    /// Per loop body: the constant text around the comment on its line (`> - **`, `**`), both
    /// sides, without the quote markers.
    comment_frames: Vec<Vec<(String, String)>>,
    loops: Vec<eval::LoopInfo>,
    /// Per loop: the constant line printed just before it (a heading naming a colour group).
    headers: Vec<Option<String>>,
    /// Per loop: the last constant line printed before it, where its output starts.
    anchors: Vec<Vec<String>>,
    /// Constructs the compiler did not understand: (template line or 0, message).
    pub problems: Vec<(usize, String)>,
    /// The `persist` blocks that hold an annotation loop (`%% begin results %%`): the export's.
    pub persisted_loops: Vec<String>,
    /// The lines that print the item's title, authors or year (`## {{title}}`): the field, and
    /// the constant text before and after it on its line.
    meta_lines: Vec<(Field, String, String)>,
    /// The lines that print a group's page, colour or type above its annotations (see
    /// [`group_lines`]): the field, and the constant text before and after it on its line.
    group_lines: Vec<(Field, String, String)>,
    /// The heading levels the template prints one colour's highlights as (see
    /// [`Template::heading_colours`]).
    heading_colours: Vec<(usize, String)>,
    /// Whether a branch of the loops prints a highlight's text alone, as a paragraph
    /// (`{% elif "Green" in annotation.colorCategory %}{{annotation.annotatedText}}`), with the
    /// colour of such branches when they tell one (see [`bare_text`]).
    bare_text: Option<Option<String>>,
    /// The constant words that start the line of a comment or of the tags (`_Note:_`,
    /// `_Tags:_`), per field (see [`line_labels`]).
    labels: Vec<(Field, String)>,
}

/// What the template's own metadata lines say in a note.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TemplateMeta {
    /// The item's title.
    pub title: Option<String>,
    /// Its authors.
    pub authors: Option<String>,
    /// Its year.
    pub year: Option<String>,
}

impl fmt::Debug for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Template").field("name", &self.name).field("loops", &self.loops.len()).finish()
    }
}

impl PartialEq for Template {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.source == other.source
    }
}

impl Eq for Template {}

/// Why a template could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// 1-based line in the template (0: the whole template).
    pub line: usize,
    /// What was not understood.
    pub message: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

/// One annotation the template's loop printed, found in a note.
#[derive(Debug)]
pub struct Found {
    /// Byte range of the iteration in the note.
    pub start: usize,
    /// End of the range.
    pub end: usize,
    /// What was read.
    pub draft: Draft<'static>,
}

impl Template {
    /// Compiles `source` (the template's text). `loader` reads templates it includes.
    pub fn compile(name: &str, source: &str, loader: Loader<'_>) -> Result<Template, TemplateError> {
        let nodes = syntax::parse(source).map_err(|e| TemplateError { line: e.line, message: e.message })?;
        let program = eval::evaluate(&nodes, loader);
        if program.loops.is_empty() {
            return Err(TemplateError {
                line: 0,
                message: "no loop over the annotations prints their text, comment or image \
                          (`{% for annotation in annotations %}` with `{{annotation.annotatedText}}`)"
                    .into(),
            });
        }
        let mut unique: Vec<Pat> = Vec::new();
        let mut bodies: Vec<Vec<usize>> = Vec::new();
        for (n, info) in program.loops.iter().enumerate() {
            match unique.iter().position(|b| *b == info.body) {
                Some(i) => bodies[i].push(n),
                None => {
                    unique.push(info.body.clone());
                    bodies.push(vec![n]);
                }
            }
        }
        let matcher = matcher::Matcher::new(&unique).map_err(|e| TemplateError { line: 0, message: e.0 })?;
        let (mut headers, anchors) = headers(&program.outer, program.loops.len());
        inner_headings(&program.loops, &mut headers);
        let meta_lines = meta_lines(&program.outer);
        let group_lines = group_lines(&program.outer);
        let bare_text = bare_text(&unique);
        let labels = line_labels(&unique);
        let comment_frames = unique.iter().map(comment_frames).collect();
        Ok(Template {
            name: name.to_string(),
            source: source.to_string(),
            matcher,
            bodies,
            loops: program.loops,
            headers,
            anchors,
            problems: program.problems,
            persisted_loops: program.persisted_loops,
            meta_lines,
            group_lines,
            heading_colours: heading_colours(source),
            bare_text,
            labels,
            comment_frames,
        })
    }

    /// The heading levels the template prints one colour's highlights as, with that colour:
    /// `{% if annotation.colorCategory == "Purple" %}###### {{annotation.annotatedText}}` gives
    /// (6, `#a28ae5`). A note an older version of the template wrote is read by the general rule,
    /// which takes the colour from such a heading.
    pub fn heading_colours(&self) -> &[(usize, String)] {
        &self.heading_colours
    }

    /// What the template says its colours mean: a heading printed just before a loop over one
    /// colour's annotations names that colour (`## Key Terms & Background` above the yellow
    /// ones gives `#ffd400` → `Key Terms & Background`). A heading over loops of several colours
    /// (or of any colour) names none of them. Each colour once, in template order.
    pub fn legend(&self) -> Vec<ColorEntry> {
        let mut named: Vec<(String, &str)> = Vec::new();
        for (info, header) in self.loops.iter().zip(&self.headers) {
            let (Some(hex), Some(header)) = (loop_colour(&info.facts), header.as_deref()) else { continue };
            if !named.iter().any(|(h, line)| *h == hex && *line == header) {
                named.push((hex, header));
            }
        }
        // The colour each loop's output falls under: the loop's own, and the nearest constant
        // line before it (a heading followed by several loops heads them all).
        let under: Vec<(Option<String>, Option<&str>)> = (self.loops.iter().zip(&self.anchors))
            .map(|(info, lines)| (loop_colour(&info.facts), lines.first().map(String::as_str)))
            .collect();
        let mut out: Vec<ColorEntry> = Vec::new();
        for (hex, header) in &named {
            let shared =
                under.iter().any(|(h, line)| *line == Some(*header) && h.as_deref() != Some(hex.as_str()));
            let Some(name) = colors::legend_name(&heading_text(header)) else { continue };
            if !shared && !out.iter().any(|e| e.hex == *hex) {
                out.push(ColorEntry { hex: hex.clone(), name });
            }
        }
        for info in &self.loops {
            for (hex, name) in label_per_colour(&info.body) {
                if !out.iter().any(|e| e.hex == hex) {
                    out.push(ColorEntry { hex, name });
                }
            }
        }
        out
    }

    /// How many loops over the annotations the template has.
    pub fn loop_count(&self) -> usize {
        self.loops.len()
    }

    /// Every annotation the template's loops printed in `text[from..]`, in order.
    pub fn read(&self, text: &str, from: usize) -> Vec<Found> {
        let header_lines: std::collections::HashSet<&str> =
            self.headers.iter().flatten().map(String::as_str).collect();
        let stop = |line: &str| {
            let t = line.trim();
            t.starts_with('#') && t[t.bytes().take_while(|&b| b == b'#').count()..].starts_with(' ')
                || t.starts_with("%%")
                || matches!(t, "---" | "***" | "___")
                // A callout the template prints after the loop (`> [!context]-`).
                || t.starts_with("> [!") || t.starts_with(">[!")
                || header_lines.contains(t)
        };
        // Block ids the user added at line ends (` ^e9d974`) are not the template's: read as
        // spaces, unless the template prints carets itself (`^{{annotation.id}}`).
        let masked = if self.source.contains('^') { Cow::Borrowed(text) } else { mask_block_ids(text) };
        let text = masked.as_ref();
        let marks = self.header_marks(text, from);
        let groups = self.group_marks(text, from);
        let body = from;
        let from = self.region_start(text, from);
        let mut hits = self.matcher.find(text, from, text.len(), &stop);
        hits.retain(|hit| !is_decoration(&text[hit.start..hit.end]));
        drop_pageless(&mut hits);
        let mut found = Vec::new();
        let mut bare = Vec::new();
        if let Some(colour) = &self.bare_text {
            // A line the loose branches read as a text alone is one of those paragraphs.
            hits.retain(|hit| !text_alone(hit, text));
            // Below the loops' anchor line (`### Notes`), not above it.
            let first = (from > body).then(|| text[from..].find('\n').map_or(text.len(), |n| from + n + 1));
            bare = bare_paragraphs(text, first, &hits, &stop, colour.as_deref());
        }
        for hit in hits {
            let facts = self.loop_facts(hit.body, hit.start, &marks);
            let mut draft = draft_of(&hit, &facts, text);
            self.reframe_comment(hit.body, &mut draft);
            callout_colour(&text[hit.start..], &mut draft);
            if let Some((_, of_group)) = groups.iter().rev().find(|(at, _)| *at <= hit.start) {
                for (field, value) in of_group {
                    let slot = match field {
                        Field::Page | Field::PageLabel => &mut draft.page,
                        Field::Color => &mut draft.color.hex,
                        Field::ColorCategory => &mut draft.color.name,
                        Field::Type => &mut draft.label,
                        _ => continue,
                    };
                    slot.get_or_insert_with(|| value.clone());
                }
            }
            self.relabel(&mut draft);
            // The comment printed right after a bare text (no blank line between) is its own.
            let comment_only = draft.text.is_empty()
                && draft.image.is_none()
                && draft.link.is_none()
                && !draft.comment.is_empty();
            if comment_only && let Some(p) = bare.iter_mut().find(|p| p.end == hit.start) {
                p.draft.comment = std::mem::take(&mut draft.comment);
                p.end = hit.end;
                continue;
            }
            // A text printed alone over several lines, then its comment: the iteration matched
            // from its last line; the lines above it are its first ones.
            let mut start = hit.start;
            if text_first(&hit, text)
                && let Some(at) = bare.iter().position(|p| p.end == hit.start)
            {
                let p = bare.remove(at);
                start = p.start;
                draft.text.splice(0..0, p.draft.text);
            }
            let image = image_after_fields(&hit, &draft);
            let split = image.map(|at| {
                let image =
                    Draft { image: draft.image.take(), color: draft.color.clone(), ..Draft::default() };
                Found { start: at, end: hit.end, draft: image }
            });
            found.push(Found { start, end: split.as_ref().map_or(hit.end, |s| s.start), draft });
            found.extend(split);
        }
        found.extend(bare);
        found.sort_by_key(|f| f.start);
        found
    }

    /// A text that starts with the comment's label (`_Note:_ words`: the regex gave an optional
    /// text line what the comment's line printed) is that comment; a comment whose last line
    /// starts with the tags' label (`_Tags:_ a, b`) ends before it.
    fn relabel(&self, draft: &mut Draft<'static>) {
        fn label_of<'l>(labels: &[(Field, String)], field: Field, line: &'l str) -> Option<&'l str> {
            labels
                .iter()
                .filter(|(f, _)| *f == field)
                .find_map(|(_, l)| line.trim_start().strip_prefix(l.as_str()))
        }
        let labelled = draft
            .text
            .first()
            .filter(|_| draft.comment.is_empty())
            .and_then(|first| label_of(&self.labels, Field::Comment, first))
            .map(|rest| rest.trim_start().to_string());
        if let Some(rest) = labelled {
            let mut lines = std::mem::take(&mut draft.text);
            lines[0] = Cow::Owned(rest);
            draft.comment = lines;
        }
        // The comment's last line: of its last element, which may hold several.
        if let Some(last) = draft.comment.iter().rposition(|l| !l.trim().is_empty()) {
            let element = draft.comment[last].trim_end();
            let cut = element.rfind('\n').map_or(0, |n| n + 1);
            if (cut > 0 || last > 0) && label_of(&self.labels, Field::Tags, &element[cut..]).is_some() {
                let kept = element[..cut].trim_end().to_string();
                draft.comment.truncate(last);
                if !kept.is_empty() {
                    draft.comment.push(Cow::Owned(kept));
                }
            }
        }
    }

    /// Whether `text` (a few words) is a constant the template prints as a whole (`Quote` in
    /// `<mark style="…">Quote</mark>`, a label over each annotation): decoration, never an
    /// annotation's text.
    pub fn prints_constant(&self, text: &str) -> bool {
        let t = text.trim();
        if t.is_empty() || t.split_whitespace().count() > 3 || t.contains(['{', '}']) {
            return false;
        }
        let bounded = |before: Option<char>, after: Option<char>| {
            !before.is_some_and(|c| c.is_alphanumeric() || "{.\"'_".contains(c))
                && !after.is_some_and(|c| c.is_alphanumeric() || "}\"'_".contains(c))
        };
        self.source.match_indices(t).any(|(at, _)| {
            bounded(self.source[..at].chars().next_back(), self.source[at + t.len()..].chars().next())
        })
    }

    /// Whether `text` is one of the template's own strings, whole: a constant it prints, or a
    /// quoted literal it may print (`{"heading": "💬 Evidence and arguments"}` over a group).
    pub fn holds_literal(&self, text: &str) -> bool {
        let t = text.trim();
        if t.is_empty() || t.contains(['{', '}', '"', '\n']) {
            return false;
        }
        self.prints_constant(t) || ['"', '\''].iter().any(|q| self.source.contains(&format!("{q}{t}{q}")))
    }

    /// Where the loops' output starts in `text[from..]`: at the first of their headers or anchor
    /// lines (text above it, such as a table of related items or the user's own notes, is not
    /// theirs); `from` when the note has none of them.
    pub fn region_start(&self, text: &str, from: usize) -> usize {
        // One pass over the note: where each line the template prints first stands (a template
        // with a loop per colour category has dozens of header lines).
        let wanted: std::collections::HashSet<&str> =
            self.headers.iter().flatten().chain(self.anchors.iter().flatten()).map(String::as_str).collect();
        if wanted.is_empty() {
            return from;
        }
        let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        let mut pos = from;
        for l in text[from..].split_inclusive('\n') {
            let t = l.trim();
            if wanted.contains(t) {
                first.entry(t).or_insert(pos);
            }
            pos += l.len();
        }
        let at = |line: &String| first.get(line.as_str()).copied();
        // Per loop, the nearest of its anchor lines the note still has (a user who edited a
        // template line since, such as a legend table's last row, leaves the ones above it).
        let anchored = self.anchors.iter().filter_map(|lines| lines.iter().find_map(at));
        self.headers.iter().flatten().filter_map(at).chain(anchored).min().unwrap_or(from)
    }

    /// The title, authors and year the template's metadata lines print in `text[from..to]`
    /// (the part of the note above its annotations): the first line of each shape, its value
    /// without the template's text around it.
    pub fn read_meta(&self, text: &str, from: usize, to: usize) -> TemplateMeta {
        let mut meta = TemplateMeta::default();
        for (field, before, after) in &self.meta_lines {
            let slot = match field {
                Field::MetaTitle => &mut meta.title,
                Field::MetaAuthors => &mut meta.authors,
                _ => &mut meta.year,
            };
            if slot.is_some() {
                continue;
            }
            *slot = text[from..to.max(from)].lines().find_map(|line| {
                let value = line.trim().strip_prefix(before.as_str())?.strip_suffix(after.as_str())?.trim();
                (!value.is_empty() && !value.contains("{{")).then(|| value.to_string())
            });
        }
        meta
    }

    /// Where each loop's header line appears in the note: (position, loop).
    fn header_marks(&self, text: &str, from: usize) -> Vec<(usize, usize)> {
        let mut marks = Vec::new();
        if self.headers.iter().all(Option::is_none) {
            return marks;
        }
        // Each header line's first loop (loops of one colour group share their header).
        let mut loop_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (n, header) in self.headers.iter().enumerate() {
            if let Some(h) = header {
                loop_of.entry(h.as_str()).or_insert(n);
            }
        }
        let mut pos = from;
        for line in text[from..].split_inclusive('\n') {
            if let Some(&n) = loop_of.get(line.trim()) {
                marks.push((pos, n));
            }
            pos += line.len();
        }
        marks
    }

    /// Where each group heading of the template stands in `text[from..]`, with the values it
    /// prints (an `undefined` page, Zotero's for none, is no value).
    fn group_marks(&self, text: &str, from: usize) -> Vec<(usize, Vec<(Field, String)>)> {
        let mut marks = Vec::new();
        if self.group_lines.is_empty() {
            return marks;
        }
        let mut pos = from;
        for line in text[from..].split_inclusive('\n') {
            let t = line.trim();
            let found: Vec<(Field, &str)> = self
                .group_lines
                .iter()
                .filter_map(|(field, before, after)| {
                    Some((*field, t.strip_prefix(before.as_str())?.strip_suffix(after.as_str())?.trim()))
                })
                .collect();
            // A heading with no value (`#### Page undefined`) still ends the group above it.
            if !found.is_empty() {
                let valid = |v: &str| !v.is_empty() && v != "undefined" && !v.contains("  ");
                let values = found.into_iter().filter(|(_, v)| valid(v)).map(|(f, v)| (f, v.to_string()));
                marks.push((pos, values.collect()));
            }
            pos += line.len();
        }
        marks
    }

    /// Lines an optional branch took from the branch after it. A Zotero link alone taken as the
    /// comment is the annotation's link and page (see below). A sticky note whose comment line
    /// the text's optional branch took (`> - **Why?**` where the template prints `> {{text}}`
    /// then `> - **{{comment}}**`, and the note has no text): a text that is exactly the
    /// comment's line, framed as the template frames the comment, is the comment.
    fn reframe_comment(&self, body: usize, draft: &mut Draft<'static>) {
        // `> [p. 2](zotero://open-pdf/…)` taken by the comment's optional line where the
        // template prints the page link's line after it in the same way (`>\n> {{comment}}`,
        // then `>\n> [p. {{pageLabel}}]({{desktopURI}})`): a Zotero link alone is the
        // annotation's link, never the user's words.
        if let [comment] = draft.comment.as_slice()
            && let Some((label, target)) = lone_link(comment.trim())
            && target.starts_with("zotero://")
        {
            let (label, target) = (label.to_string(), target.to_string());
            draft.comment.clear();
            draft.page = draft.page.take().or_else(|| crate::annotations::text::label_page(&label));
            draft.link.get_or_insert(target);
        }
        let [text] = draft.text.as_slice() else { return };
        if !draft.comment.is_empty() || text.contains('\n') {
            return;
        }
        let t = text.trim();
        let inner = self.comment_frames[body].iter().find_map(|(before, after)| {
            let inner = t.strip_prefix(before.trim())?.strip_suffix(after.trim())?.trim();
            (!inner.is_empty()).then_some(inner)
        });
        if let Some(inner) = inner {
            draft.comment.push(Cow::Owned(inner.to_string()));
            draft.text.clear();
        }
    }

    /// The facts of the loop a hit of `body` at `at` belongs to: the loop whose header came last
    /// before it (of those sharing the body, else that header's own), else what all loops sharing
    /// the body agree on.
    fn loop_facts(&self, body: usize, at: usize, marks: &[(usize, usize)]) -> Vec<Fact> {
        let loops = &self.bodies[body];
        if let Some(&(_, h)) = marks.iter().rev().find(|(p, _)| *p <= at) {
            // Under another loop's heading, an iteration that printed none of what tells the
            // loops apart (an image, where the loops differ only in the heading their first
            // iteration prints or an icon before the text) is that loop's.
            let n = loops.iter().find(|&&n| self.headers[n] == self.headers[h]).unwrap_or(&h);
            return self.loops[*n].facts.clone();
        }
        let first = &self.loops[loops[0]].facts;
        first.iter().filter(|f| loops.iter().all(|&n| self.loops[n].facts.contains(f))).cloned().collect()
    }
}

/// The constant words each comment or tags slot has before it on its line (`_Note:_ {{comment}}`
/// gives (Comment, `_Note:_`)), when they are a label: punctuation or emphasis around words, not
/// a quote marker or a list marker alone.
fn line_labels(bodies: &[Pat]) -> Vec<(Field, String)> {
    let mut out: Vec<(Field, String)> = Vec::new();
    for (field, line) in bodies.iter().flat_map(Pat::line_prefixes) {
        let label = line.trim().to_string();
        let words = label.chars().any(char::is_alphabetic);
        let marked = label.chars().any(|c| matches!(c, ':' | '*' | '_'));
        // `#tags` are tags: one label for both.
        let field = if field == Field::HashTags { Field::Tags } else { field };
        if matches!(field, Field::Comment | Field::Tags)
            && words
            && marked
            && !out.iter().any(|(f, l)| *f == field && *l == label)
        {
            out.push((field, label));
        }
    }
    out
}

/// Whether the loop bodies print a highlight's text alone in one of their branches, and the colour
/// of such branches when they agree on one (`{% elif "Green" in a.colorCategory %}{{a.annotatedText}}`
/// beside an `{% else %}` that prints the same gives green). Such a branch cannot be matched as
/// the others are, with nothing of the template's around the text: see [`bare_paragraphs`].
fn bare_text(bodies: &[Pat]) -> Option<Option<String>> {
    fn bare(p: &Pat) -> bool {
        let text = |p: &Pat| matches!(p, Pat::Slot(s) if s.field == Field::Text);
        match p {
            Pat::Seq(items) => {
                items.iter().filter(|i| text(i)).count() == 1
                    && items.iter().all(|i| text(i) || matches!(i, Pat::Lit(l) if l.trim().is_empty()))
            }
            other => text(other),
        }
    }
    fn walk<'p>(p: &'p Pat, out: &mut Vec<&'p [Fact]>) {
        match p {
            Pat::Seq(items) => items.iter().for_each(|i| walk(i, out)),
            Pat::Alt(branches) => {
                for (facts, b) in branches {
                    if bare(b) {
                        out.push(facts);
                    } else {
                        walk(b, out);
                    }
                }
            }
            Pat::Repeat(inner) => walk(inner, out),
            Pat::Lit(_) | Pat::Slot(_) | Pat::Loop(_) => {}
        }
    }
    let mut branches = Vec::new();
    bodies.iter().for_each(|b| walk(b, &mut branches));
    if branches.is_empty() {
        return None;
    }
    let mut colours: Vec<String> = branches.iter().filter_map(|f| loop_colour(f)).collect();
    colours.dedup();
    Some(if colours.len() == 1 { colours.pop() } else { None })
}

/// Whether `hit` is a highlight's text alone (a branch that prints nothing else took it).
fn text_alone(hit: &matcher::Hit, text: &str) -> bool {
    let whole = text[hit.start..hit.end].trim();
    text_first(hit, text) && hit.captures.len() == 1 && hit.captures[0].span.1 >= hit.start + whole.len()
}

/// Whether `hit` starts with the highlight's text, nothing of the template's before it.
fn text_first(hit: &matcher::Hit, text: &str) -> bool {
    let lead = text[hit.start..hit.end].len() - text[hit.start..hit.end].trim_start().len();
    hit.captures.first().is_some_and(|c| c.field == Field::Text && c.span.0 <= hit.start + lead)
}

/// The highlights a bare-text branch printed: each paragraph (lines up to a blank one) between
/// the iterations the template's other branches matched, and after the last one, up to a line
/// that ends the loops' output (`stop`: a heading, a rule, `%%`). Above the first iteration (or
/// with none) only from `first`, the line after the loops' anchor, when the note has one. A paragraph that holds the
/// template's markup (a Zotero link, an embed, an HTML block, a table, a quote, an import stamp,
/// template code) is no such text.
fn bare_paragraphs(
    text: &str,
    first: Option<usize>,
    hits: &[matcher::Hit],
    stop: &dyn Fn(&str) -> bool,
    colour: Option<&str>,
) -> Vec<Found> {
    let mut gaps: Vec<(usize, usize)> = Vec::new();
    if let Some(start) = first {
        gaps.push((start, hits.first().map_or(text.len(), |hit| hit.start)));
    }
    gaps.extend(hits.windows(2).map(|w| (w[0].end, w[1].start)));
    if let Some(last) = hits.last() {
        gaps.push((last.end, text.len()));
    }
    let mut found = Vec::new();
    let mut push = |from: usize, to: usize, lines: Vec<Cow<'static, str>>| {
        let mut draft = Draft { text: lines, ..Draft::default() };
        draft.color.hex = colour.map(str::to_string);
        found.push(Found { start: from, end: to, draft });
    };
    for (start, end) in gaps {
        let mut pos = start;
        // The paragraph being read: where it starts, its lines, whether it holds markup.
        let mut paragraph: Option<(usize, Vec<Cow<'static, str>>, bool)> = None;
        for line in text[start..end.max(start)].split_inclusive('\n') {
            let t = line.trim();
            if t.is_empty() || stop(line) {
                if let Some((from, lines, false)) = paragraph.take() {
                    push(from, pos, lines);
                }
                if !t.is_empty() {
                    break;
                }
            } else {
                let markup = t.contains("zotero://")
                    || t.starts_with(['<', '>', '|', '!', '`', '%'])
                    || t.contains("{{")
                    || t.contains("{%")
                    || is_decoration(t);
                let (_, lines, tainted) = paragraph.get_or_insert((pos, Vec::new(), false));
                lines.push(Cow::Owned(t.to_string()));
                *tainted |= markup;
            }
            pos += line.len();
        }
        if let Some((from, lines, false)) = paragraph {
            push(from, pos, lines);
        }
    }
    found
}

/// The template's lines that print one metadata field between constant text of their own
/// (`## {{title}}`, `Author: {{authors}}`): the field and the text before and after it, trimmed.
/// A line with nothing around the field says nothing about where it is.
fn meta_lines(outer: &Pat) -> Vec<(Field, String, String)> {
    field_lines(outer, false, |f| matches!(f, Field::MetaTitle | Field::MetaAuthors | Field::MetaYear))
}

/// A colour the template printed where its reading gives none (a dictionary lookup with an
/// `else` that prints a colour's name): the one the iteration's callout header names, as the
/// built-in rules read it (`> [!annotation-yellow]`, `> [!quote|red]`).
fn callout_colour(iteration: &str, draft: &mut Draft<'static>) {
    if draft.color.hex.is_some() || draft.color.name.is_some() {
        return;
    }
    let first = iteration.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let Some(header) = crate::annotations::lines::callout_header(first) else { return };
    let inner = header.trim_start_matches("[!");
    let inner = &inner[..inner.find(']').unwrap_or(inner.len())];
    let (kind, meta) = inner.split_once('|').unwrap_or((inner, ""));
    let meta = meta.trim();
    let named = |c: &str| crate::annotations::colors::zotero_hex_of_name(c).is_some();
    if let Some(hex) = meta.starts_with('#').then(|| crate::annotations::colors::parse_hex(meta)).flatten() {
        draft.color.hex = Some(hex);
    } else if !meta.is_empty() && named(meta) {
        draft.color.name = Some(meta.to_string());
    } else if let Some(c) = crate::annotations::general::type_colour(kind) {
        draft.color.name = Some(c.to_string());
    }
}

/// `[label](target)` when that is all of `s`.
fn lone_link(s: &str) -> Option<(&str, &str)> {
    let (label, rest) = s.strip_prefix('[')?.split_once("](")?;
    let target = rest.strip_suffix(')')?;
    (!label.contains(']') && !target.contains([' ', ')'])).then_some((label, target))
}

/// The constant text around the comment on its line in `body`, when there is some on both sides
/// (`> - **{{comment}}**` gives (`- **`, `**`)); quote markers are left out.
fn comment_frames(body: &Pat) -> Vec<(String, String)> {
    fn flat<'p>(p: &'p Pat, out: &mut Vec<&'p Pat>) {
        match p {
            Pat::Seq(items) => items.iter().for_each(|i| flat(i, out)),
            Pat::Repeat(inner) => flat(inner, out),
            Pat::Alt(branches) => branches.iter().for_each(|(_, b)| flat(b, out)),
            other => out.push(other),
        }
    }
    let mut items = Vec::new();
    flat(body, &mut items);
    let mut frames = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Pat::Slot(slot) = item else { continue };
        let (Some(Pat::Lit(before)), Some(Pat::Lit(after))) =
            (i.checked_sub(1).map(|b| items[b]), items.get(i + 1))
        else {
            continue;
        };
        let before = before.rsplit('\n').next().unwrap_or("").trim_start_matches(['>', ' ', '\t']).trim();
        let after = after.split('\n').next().unwrap_or("").trim();
        if slot.field == Field::Comment && !before.is_empty() && !after.is_empty() {
            frames.push((before.to_string(), after.to_string()));
        }
    }
    frames
}

/// The lines outside the annotation loops that print an annotation's page, colour or type
/// between constant text: the heading of a group of annotations (`#### Page {{page}}` over a loop
/// over `annotations | groupby("page")` or `groupby("pageLabel")`), which gives that field to the
/// annotations under it (the page label as their page: it is the page the note prints).
/// Only the bodies of loops that hold an annotation loop are group loops: a line like
/// `page-no:: {{pageLabel}}` printed by a loop of its own over the annotations is no heading.
fn group_lines(outer: &Pat) -> Vec<(Field, String, String)> {
    fn holds_loop(p: &Pat) -> bool {
        match p {
            Pat::Loop(_) => true,
            Pat::Seq(items) => items.iter().any(holds_loop),
            Pat::Alt(branches) => branches.iter().any(|(_, b)| holds_loop(b)),
            Pat::Repeat(inner) => holds_loop(inner),
            Pat::Lit(_) | Pat::Slot(_) => false,
        }
    }
    fn group_bodies<'p>(p: &'p Pat, out: &mut Vec<&'p Pat>) {
        match p {
            Pat::Repeat(inner) if holds_loop(inner) => out.push(inner),
            Pat::Seq(items) => items.iter().for_each(|i| group_bodies(i, out)),
            Pat::Alt(branches) => branches.iter().for_each(|(_, b)| group_bodies(b, out)),
            _ => {}
        }
    }
    let mut bodies = Vec::new();
    group_bodies(outer, &mut bodies);
    let wanted =
        |f| matches!(f, Field::Page | Field::PageLabel | Field::Color | Field::ColorCategory | Field::Type);
    bodies.into_iter().flat_map(|b| field_lines(b, true, wanted)).collect()
}

/// The lines of `outer` (and of the loops over other lists and the branches in it, with
/// `in_repeats`) that print one `wanted` field, untransformed, between constant text of their own.
fn field_lines(
    outer: &Pat,
    in_repeats: bool,
    wanted: impl Fn(Field) -> bool,
) -> Vec<(Field, String, String)> {
    fn flat<'p>(p: &'p Pat, in_repeats: bool, out: &mut Vec<&'p Pat>) {
        match p {
            Pat::Seq(items) => items.iter().for_each(|i| flat(i, in_repeats, out)),
            Pat::Repeat(inner) if in_repeats => flat(inner, in_repeats, out),
            Pat::Alt(branches) if in_repeats => branches.iter().for_each(|(_, b)| flat(b, in_repeats, out)),
            other => out.push(other),
        }
    }
    let mut items = Vec::new();
    flat(outer, in_repeats, &mut items);
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Pat::Slot(slot) = item else { continue };
        if !wanted(slot.field) || !slot.transforms.is_empty() {
            continue;
        }
        // The constant text on the slot's line: after the last line break before it, up to the
        // next one after it; a slot beside another value on its line is left out.
        let before = match i.checked_sub(1).map(|b| items[b]) {
            Some(Pat::Lit(s)) if s.contains('\n') || i == 1 => s.rsplit('\n').next().unwrap_or(""),
            None => "",
            _ => continue,
        };
        let after = match items.get(i + 1) {
            Some(Pat::Lit(s)) if s.contains('\n') => s.split('\n').next().unwrap_or(""),
            _ => continue,
        };
        let (before, after) = (before.trim_start(), after.trim_end());
        if before.chars().any(|c| !c.is_whitespace()) || after.chars().any(|c| !c.is_whitespace()) {
            out.push((slot.field, before.to_string(), after.to_string()));
        }
    }
    out
}

/// A loop with no header line before it whose body prints a heading no other loop prints (`{% if
/// loop.first %}## ⛔ Disagree{% endif %}` in a loop over the red annotations): that heading is its
/// header.
fn inner_headings(loops: &[eval::LoopInfo], headers: &mut [Option<String>]) {
    fn lits<'p>(p: &'p Pat, out: &mut Vec<&'p str>) {
        match p {
            Pat::Lit(s) => out.push(s),
            Pat::Seq(items) => items.iter().for_each(|i| lits(i, out)),
            Pat::Alt(branches) => branches.iter().for_each(|(_, b)| lits(b, out)),
            Pat::Repeat(inner) => lits(inner, out),
            Pat::Slot(_) | Pat::Loop(_) => {}
        }
    }
    let is_heading = |l: &str| {
        let level = l.bytes().take_while(|&b| b == b'#').count();
        (1..=6).contains(&level)
            && l[level..].starts_with(' ')
            && l[level..].chars().filter(|c| c.is_alphanumeric()).count() >= 2
    };
    let headings: Vec<Vec<String>> = loops
        .iter()
        .map(|info| {
            let mut out = Vec::new();
            lits(&info.body, &mut out);
            out.iter()
                .flat_map(|s| s.lines())
                .map(str::trim)
                .filter(|l| is_heading(l))
                .map(String::from)
                .collect()
        })
        .collect();
    for (n, header) in headers.iter_mut().enumerate() {
        if header.is_none() {
            let unique =
                |l: &&String| headings.iter().enumerate().all(|(m, other)| m == n || !other.contains(l));
            *header = headings[n].iter().find(unique).cloned();
        }
    }
}

/// Per loop: the constant line printed right before it (if a whole line), and the last few
/// constant lines printed anywhere before it (slots in between allowed), nearest first, which mark
/// where its output starts.
fn headers(outer: &Pat, count: usize) -> (Vec<Option<String>>, Vec<Vec<String>>) {
    #[derive(Default)]
    struct Walk {
        last: Option<String>,
        /// The distinct whole lines printed so far, in order.
        lines: Vec<String>,
        headers: Vec<Option<String>>,
        anchors: Vec<Vec<String>>,
        /// Whether a slot's value was printed since the last line break: the next literal's
        /// first line is the end of that line, not a line of its own.
        open_line: bool,
    }
    fn walk(p: &Pat, w: &mut Walk) {
        match p {
            Pat::Lit(text) => {
                let open = w.open_line;
                w.open_line =
                    if text.contains('\n') { !text.ends_with('\n') } else { open || !text.is_empty() };
                let s = if open { text.find('\n').map_or("", |i| &text[i..]) } else { text.as_str() };
                if s.is_empty() {
                    if !text.trim().is_empty() {
                        w.last = None;
                    }
                    return;
                }
                let whole_lines = s.trim_end().contains('\n') || s.ends_with('\n');
                let mut lines: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
                if whole_lines {
                    if s.ends_with('\n') || s.trim_end().contains('\n') {
                        // The last line of the literal is whole when a line break follows it.
                        let tail_whole = s.trim_end_matches([' ', '\t']).ends_with('\n');
                        if !tail_whole {
                            lines.pop();
                        }
                    }
                    let distinct = |l: &str| l.chars().filter(|c| c.is_alphanumeric()).count() >= 2;
                    // Lines with no words after the header (`- [[]]` a user fills in, `---`)
                    // leave it the loop's header.
                    w.last = lines.iter().rev().find(|l| distinct(l)).map(|l| l.to_string());
                    w.lines.extend(lines.iter().filter(|l| distinct(l)).map(|l| l.to_string()));
                } else if !s.trim().is_empty() {
                    w.last = None;
                }
            }
            Pat::Loop(n) => {
                w.open_line = false;
                if let Some(slot) = w.headers.get_mut(*n) {
                    *slot = w.last.clone();
                }
                if let Some(slot) = w.anchors.get_mut(*n) {
                    // The last few, nearest first.
                    *slot = w.lines.iter().rev().take(ANCHOR_LINES).cloned().collect();
                }
            }
            Pat::Seq(items) => items.iter().for_each(|i| walk(i, w)),
            Pat::Alt(branches) => branches.iter().for_each(|(_, b)| walk(b, w)),
            Pat::Repeat(inner) => walk(inner, w),
            Pat::Slot(_) => {
                w.last = None;
                w.open_line = true;
            }
        }
    }
    let mut w = Walk { headers: vec![None; count], anchors: vec![Vec::new(); count], ..Walk::default() };
    walk(outer, &mut w);
    (w.headers, w.anchors)
}

/// The one colour a loop's facts give (`filterby("color", …)`, `colorCategory`), as `#rrggbb`.
fn loop_colour(facts: &[Fact]) -> Option<String> {
    let mut colours = facts.iter().filter_map(|f| match f {
        Fact::Is(Field::Color, v) => colors::parse_hex(v),
        Fact::Is(Field::ColorCategory, v) => colors::zotero_hex_of_name(v.trim()).map(str::to_string),
        _ => None,
    });
    let first = colours.next()?;
    colours.all(|c| c == first).then_some(first)
}

/// The label a loop prints per colour (`{% if a.colorCategory == "Red" %}Weak spot{% elif … %}`,
/// or a `set` in such branches printed later): of the choices by colour in `body` whose branches
/// print only words, the one with the longest words (a title over a callout type: `Main claim`
/// over `tip`). Each colour with its label.
fn label_per_colour(body: &Pat) -> Vec<(String, String)> {
    fn walk<'a>(p: &'a Pat, out: &mut Vec<&'a [(Vec<Fact>, Pat)]>) {
        match p {
            Pat::Seq(items) => items.iter().for_each(|i| walk(i, out)),
            Pat::Alt(branches) => {
                out.push(branches);
                branches.iter().for_each(|(_, b)| walk(b, out));
            }
            Pat::Repeat(inner) => walk(inner, out),
            Pat::Lit(_) | Pat::Slot(_) | Pat::Loop(_) => {}
        }
    }
    let mut choices = Vec::new();
    walk(body, &mut choices);
    let labels = |branches: &[(Vec<Fact>, Pat)]| -> Option<Vec<(String, String)>> {
        let mut out: Vec<(String, String)> = Vec::new();
        for (facts, p) in branches {
            let Some(hex) = loop_colour(facts) else { continue };
            let Pat::Lit(text) = p else { return None };
            let name = colors::legend_name(text)?;
            if !name.chars().any(char::is_alphabetic) || colors::parse_hex(&name).is_some() {
                return None;
            }
            if !out.iter().any(|(h, _)| *h == hex) {
                out.push((hex, name));
            }
        }
        (out.len() >= 2).then_some(out)
    };
    let mean = |l: &[(String, String)]| l.iter().map(|(_, n)| n.chars().count()).sum::<usize>() / l.len();
    choices.into_iter().filter_map(labels).max_by_key(|l| mean(l)).unwrap_or_default()
}

/// `text` with each Obsidian block id at a line's end (` ^id`) turned into spaces: the same
/// length, so every offset stays.
fn mask_block_ids(text: &str) -> Cow<'_, str> {
    if !text.contains(" ^") {
        return Cow::Borrowed(text);
    }
    let mut out = text.as_bytes().to_vec();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end();
        if let Some(space) = block_id_at(body) {
            out[start + space + 1..start + body.len()].fill(b' ');
        }
        start += line.len();
    }
    // Only ASCII bytes were replaced by ASCII spaces.
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| text.to_string()))
}

/// A Markdown heading line's text without its `#`s and bold marks; empty when the line is not
/// a heading.
fn heading_text(line: &str) -> String {
    let t = line.trim();
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if hashes == 0 || hashes > 6 || !t[hashes..].starts_with(' ') {
        return String::new();
    }
    t[hashes..].replace("**", "")
}

/// Zotero gives every annotation of a PDF its page: where a template prints the page only `{% if
/// annotation.page %}` and most iterations in the note took that branch, an iteration that did
/// not, with no link or image either, is the user's own list item among the annotations (persist
/// blocks the user writes in), not one the loop printed.
fn drop_pageless(hits: &mut Vec<matcher::Hit>) {
    let paged = hits.iter().filter(|h| h.facts.contains(&Fact::Has(Field::Page))).count();
    let pageless = |h: &matcher::Hit| {
        h.facts.contains(&Fact::Lacks(Field::Page))
            && !h.captures.iter().any(|c| matches!(c.field, Field::Link | Field::Image | Field::PageLabel))
    };
    let unpaged = hits.iter().filter(|h| pageless(h)).count();
    if paged >= 3 && paged > unpaged {
        hits.retain(|h| !pageless(h));
    }
}

/// Lines a loop's region holds that no annotation printed: an Obsidian comment (`%% begin
/// annotations %%`, which Zotero Integration's `persist` writes), the import stamp
/// (`*Imported on [[2024-04-04]] at 15:34*`) or a thematic break (`---` between sections, read
/// as `- ` and `--` by a list item's loop).
fn is_decoration(span: &str) -> bool {
    let t = span.trim();
    if t.contains('\n') {
        return false;
    }
    if crate::annotations::lines::is_thematic_break(t) {
        return true;
    }
    let bare = t.trim_matches(['*', '_', ' ']).to_lowercase();
    (t.starts_with("%%") && t.ends_with("%%"))
        || (bare.starts_with("imported") || bare.starts_with("import date"))
            && bare.chars().any(|c| c.is_ascii_digit())
}

/// How many of the constant lines printed before a loop may mark where its output starts.
const ANCHOR_LINES: usize = 4;

/// Where the image of an iteration that also read a highlight's text starts, when it comes after
/// every other field: Zotero's highlights hold no image and its image annotations no text, so these
/// are two annotations (an image printed after a highlight where the template's branches allow
/// both in one iteration), the image with no field of its own but its colour.
fn image_after_fields(hit: &matcher::Hit, draft: &Draft<'_>) -> Option<usize> {
    if draft.text.is_empty() || draft.image.is_none() {
        return None;
    }
    let image = hit.captures.iter().find(|c| c.field == Field::Image && !c.value.is_empty())?;
    let others_end = hit
        .captures
        .iter()
        .filter(|c| c.field != Field::Image && !c.value.is_empty())
        .map(|c| c.span.1)
        .max()
        .unwrap_or(hit.start);
    (image.span.0 > others_end).then_some(image.span.0)
}

fn draft_of(hit: &matcher::Hit, loop_facts: &[Fact], text: &str) -> Draft<'static> {
    let mut d = Draft::default();
    let span = &text[hit.start..hit.end];
    let link = zotero_link(span, "open-pdf").or_else(|| zotero_link(span, "select"));
    let link_span = link.and_then(|l| span.find(l).map(|i| (hit.start + i, hit.start + i + l.len())));
    let mut printed_page = None;
    for c in &hit.captures {
        let value = c.value.clone();
        match c.field {
            Field::Text if !value.is_empty() => d.text.push(Cow::Owned(value)),
            Field::Comment if !value.is_empty() => d.comment.push(Cow::Owned(value)),
            Field::Color if !value.is_empty() => d.color.hex = Some(value),
            Field::ColorCategory if !value.is_empty() => d.color.name = Some(value),
            Field::Type if !value.is_empty() => d.label = Some(value),
            Field::Image if !value.is_empty() => d.image = Some(value),
            Field::Link if !value.is_empty() => d.link = Some(value),
            Field::Page | Field::PageLabel if !value.is_empty() => {
                let in_link = link_span.is_some_and(|(s, e)| c.span.0 >= s && c.span.1 <= e);
                if !in_link && printed_page.is_none() {
                    printed_page = Some(value);
                }
            }
            _ => {}
        }
    }
    for fact in hit.facts.iter().chain(loop_facts) {
        match fact {
            Fact::Is(Field::Color, v) if d.color.hex.is_none() => d.color.hex = Some(v.clone()),
            Fact::Is(Field::ColorCategory, v) if d.color.name.is_none() => d.color.name = Some(v.clone()),
            Fact::Is(Field::Type, v) if d.label.is_none() => d.label = Some(v.clone()),
            _ => {}
        }
    }
    if d.link.is_none() {
        d.link = link.map(str::to_string);
    }
    d.page = printed_page;
    d
}

/// The (heading level, colour) pairs of `source`: a branch on one colour (`colorCategory == "Purple"`,
/// `"Red" in annotation.colorCategory`, `a.color == "#ff6666"`) whose output starts with a
/// heading marker. A level two colours share tells no colour and is left out.
fn heading_colours(source: &str) -> Vec<(usize, String)> {
    static BRANCH: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?:colorCategory\s*===?\s*["']([A-Za-z]+)["']|["']([A-Za-z]+)["']\s+in\s+\w+\.colorCategory|\bcolor\s*===?\s*["'](#[0-9A-Fa-f]{6})["'])\s*\)?\s*-?%\}\s*(#{1,6})[ \t]"#,
        )
        .expect("the branch pattern compiles")
    });
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut shared: Vec<usize> = Vec::new();
    for caps in BRANCH.captures_iter(source) {
        let hex = match (caps.get(1).or(caps.get(2)), caps.get(3)) {
            (Some(name), _) => {
                colors::zotero_hex_of_name(&name.as_str().to_ascii_lowercase()).map(str::to_string)
            }
            (None, Some(hex)) => colors::parse_hex(hex.as_str()),
            _ => None,
        };
        let (Some(hex), level) = (hex, caps[4].len()) else { continue };
        match out.iter().find(|(l, _)| *l == level) {
            Some((_, h)) if *h != hex => shared.push(level),
            Some(_) => {}
            None => out.push((level, hex)),
        }
    }
    out.retain(|(l, _)| !shared.contains(l));
    out
}

#[cfg(test)]
mod tests;
