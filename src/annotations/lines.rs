//! The note body as lines, with their numbers, and the line classes every style needs.

use super::text::{citation, mark_open, strip_prefix_ci, zotero_link};

/// The body of a note split into lines (line ends removed).
pub struct Lines<'a> {
    text: &'a str,
    spans: Vec<(usize, usize)>,
    first_number: usize,
}

impl<'a> Lines<'a> {
    /// The lines of `text[start..]`; `start` must be a char boundary.
    pub fn new(text: &'a str, start: usize) -> Self {
        let first_number = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..start]).count();
        let mut spans = Vec::with_capacity((text.len() - start) / 40 + 1);
        let mut pos = start;
        let bytes = text.as_bytes();
        while pos < text.len() {
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(text.len(), |i| pos + i);
            let content_end = if end > pos && bytes[end - 1] == b'\r' { end - 1 } else { end };
            spans.push((pos, content_end));
            pos = end + 1;
        }
        Self { text, spans, first_number }
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Line `i` (0-based), `""` past the end.
    pub fn get(&self, i: usize) -> &'a str {
        self.spans.get(i).map_or("", |&(s, e)| &self.text[s..e])
    }

    /// The byte offset of line `i` in the note (the note's length past the end).
    pub fn offset(&self, i: usize) -> usize {
        self.spans.get(i).map_or(self.text.len(), |&(s, _)| s)
    }

    /// The 1-based line number of line `i` in the whole note.
    pub fn number(&self, i: usize) -> usize {
        self.first_number + i
    }
}

/// Removes up to `depth` blockquote markers (`>` with an optional following space).
pub fn unquote(line: &str, depth: usize) -> &str {
    let mut rest = line.trim_start();
    for _ in 0..depth {
        match rest.strip_prefix('>') {
            Some(r) => rest = r.strip_prefix(' ').unwrap_or(r),
            None => break,
        }
    }
    rest
}

/// Whether the line (outside any quote) opens a `<mark>` annotation.
pub fn is_mark_start(line: &str) -> bool {
    let t = line.trim_start();
    t.len() >= 5 && t.as_bytes()[0] == b'<' && mark_open(t).is_some()
}

/// Whether `line` is a callout header `> [!type…]` (returns the text after `> `).
pub fn callout_header(line: &str) -> Option<&str> {
    let t = line.trim_start().strip_prefix('>')?.trim_start();
    t.starts_with("[!").then_some(t)
}

/// Whether the line is Zotero Integration's formatted-annotation style: quoted text and an
/// `open-pdf` link on one line, in or out of a blockquote.
pub fn is_formatted_line(line: &str) -> bool {
    let t = unquote(line, 2);
    (t.starts_with('“') || t.starts_with('"')) && zotero_link(t, "open-pdf").is_some()
}

/// Lines that end an annotation's block: markers of the export, the `# Annotations` heading and
/// `## Imported:` headings.
pub fn is_boundary(line: &str) -> bool {
    let t = line.trim();
    if let Some(comment) = t.strip_prefix("%%") {
        let c = comment.trim_start();
        return strip_prefix_ci(c, "end annotations").is_some()
            || strip_prefix_ci(c, "begin annotations").is_some()
            || strip_prefix_ci(c, "import date").is_some();
    }
    is_imported_heading(t) || (t.starts_with("# ") && !t.starts_with("##")) || is_thematic_break(line)
}

/// A line that is only a thematic break (`---`, `***`, `___`, unquoted): the end of what comes
/// before it, never part of a comment.
pub fn is_thematic_break(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && [b'-', b'*', b'_'].iter().any(|&c| t.bytes().all(|b| b == c))
}

/// `## Imported: …` (any level), which is not a section annotation.
pub fn is_imported_heading(line: &str) -> bool {
    let t = line.trim_start();
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    hashes > 0 && strip_prefix_ci(t[hashes..].trim_start(), "imported").is_some()
}

/// Whether any annotation starts at this line.
pub fn is_annotation_start(line: &str) -> bool {
    is_mark_start(line)
        || is_formatted_line(line)
        || callout_header(line).is_some_and(|h| {
            h[2..].find(']').is_some_and(|e| h[2..2 + e].contains('|') || h[3 + e..].starts_with('|'))
        })
        || unquote(line, 1).trim_start().starts_with("<mark")
}

/// The ATX heading level and text of a line, outside code.
pub fn heading(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let level = t.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &t[level..];
    (rest.is_empty() || rest.starts_with([' ', '\t']))
        .then(|| (level, rest.trim().trim_end_matches('#').trim_end()))
}

/// A Pandoc citation line's key and page.
pub fn citation_line(line: &str) -> Option<(&str, Option<String>)> {
    citation(unquote(line, 0))
}
