//! One pass over a note's lines: block structure (code fences, math, comments, headings,
//! callouts, tasks, block ids), then the inline syntax of each prose line (links, tags, fields).

use super::Note;
use super::anchor::heading_anchor;
use super::frontmatter::{self, Frontmatter};
use super::inline;
use super::model::{BlockId, Callout, Heading, InlineField, Span, Tag, Task};

/// Where a line sits in the block structure.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Prose,
    Fence(u8, usize),
    Math,
    /// Inside a `%%` comment opened at this byte.
    Comment(usize),
}

/// Reads `text` into a [`Note`]. Never fails.
pub fn parse(text: &str) -> Note {
    let frontmatter = Frontmatter::parse(text);
    let body_start = frontmatter::body_start(text);
    let mut note = Note { body_start, diagnostics: frontmatter.diagnostics.clone(), ..Note::default() };
    note.tags = frontmatter.tags().into_iter().map(|name| Tag { name, span: None, line: 0 }).collect();
    note.frontmatter = frontmatter;
    let mut state = Block::Prose;
    let mut line_no = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..body_start]).count();
    let mut pos = body_start;
    let mut paragraph_start: Option<usize> = None;
    let mut run_start: Option<usize> = None;
    let mut prev_block: Option<Span> = None;
    while pos < text.len() {
        let end = memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |i| pos + i);
        let content_end = if end > pos && text.as_bytes()[end - 1] == b'\r' { end - 1 } else { end };
        let line = &text[pos..content_end];
        let (was_prose, headings) = (state == Block::Prose, note.headings.len());
        state = match state {
            Block::Fence(ch, n) => {
                if close_fence(line, ch, n) {
                    Block::Prose
                } else {
                    state
                }
            }
            // The text after a closing `$$` or `%%` is prose again (`$$ and inline $x$.`).
            Block::Math => match inline::find(line, "$$") {
                Some(close) => rest_of_line(&mut note, line, pos, close + 2, line_no),
                None => state,
            },
            Block::Comment(start) => match inline::find(line, "%%") {
                Some(close) => {
                    note.comments.push(start..pos + close + 2);
                    rest_of_line(&mut note, line, pos, close + 2, line_no)
                }
                None => state,
            },
            Block::Prose => prose_line(&mut note, pos, line, line_no),
        };
        // Block tracking for block ids: a run of non-blank lines (what a lone `^id` line names),
        // and within it the paragraph, the prose lines since the last heading, fence or math line.
        let heading = note.headings.len() > headings;
        if line.trim().is_empty() || heading {
            if let Some(start) = run_start.take() {
                prev_block = Some(start..pos.saturating_sub(1));
            }
            paragraph_start = None;
        } else {
            run_start.get_or_insert(pos);
            if was_prose && state == Block::Prose {
                paragraph_start.get_or_insert(pos);
            } else {
                paragraph_start = None;
            }
        }
        if state == Block::Prose && !heading {
            let runs = Runs { paragraph: paragraph_start, run: run_start, prev: prev_block.clone() };
            block_id(&mut note, line, pos, line_no, runs);
        }
        pos = end + 1;
        line_no += 1;
    }
    if let Block::Comment(start) = state {
        note.comments.push(start..text.len());
    }
    finish_callouts(&mut note, text);
    note
}

fn close_fence(line: &str, ch: u8, n: usize) -> bool {
    let t = line.trim();
    t.len() >= n && t.bytes().all(|b| b == ch)
}

/// Handles a line in prose state; returns the state for the next line.
fn prose_line(note: &mut Note, pos: usize, line: &str, line_no: usize) -> Block {
    let indent = line.len() - line.trim_start().len();
    let t = line.trim_start();
    let first = t.as_bytes().first().copied();
    if matches!(first, Some(b'`') | Some(b'~')) && indent < 4 {
        let ch = t.as_bytes()[0];
        let n = t.bytes().take_while(|&b| b == ch).count();
        if n >= 3 && !(ch == b'`' && t[n..].contains('`')) {
            return Block::Fence(ch, n);
        }
    }
    if first == Some(b'#') && indent < 4 && heading(note, line, pos, line_no) {
        return Block::Prose;
    }
    if first == Some(b'>') {
        callout_header(note, t, pos + indent, line_no);
    }
    task(note, line, pos, line_no);
    let body = callout_or_quote_body(t);
    let offset = pos + (line.len() - body.len());
    let open = inline::scan(note, body, offset, line_no);
    field_inline(note, body, line_no, first != Some(b'>'));
    block_after(open)
}

/// Scans the rest of `line` (at `pos` in the note) from byte `from`, after a comment or display
/// math closed on it; returns the state for the next line.
fn rest_of_line(note: &mut Note, line: &str, pos: usize, from: usize, line_no: usize) -> Block {
    block_after(inline::scan(note, &line[from..], pos + from, line_no))
}

fn block_after(open: inline::Open) -> Block {
    match open {
        inline::Open::Nothing => Block::Prose,
        inline::Open::Comment(start) => Block::Comment(start),
        inline::Open::Math => Block::Math,
    }
}

fn callout_or_quote_body(t: &str) -> &str {
    let mut rest = t;
    while let Some(r) = rest.strip_prefix('>') {
        rest = r.trim_start();
    }
    rest
}

fn heading(note: &mut Note, line: &str, pos: usize, line_no: usize) -> bool {
    let t = line.trim_start();
    let level = t.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return false;
    }
    let rest = &t[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return false;
    }
    let mut text_part = rest.trim();
    let stripped = text_part.trim_end_matches('#');
    if stripped.is_empty() || stripped.ends_with([' ', '\t']) {
        text_part = stripped.trim_end();
    }
    note.headings.push(Heading {
        level: level as u8,
        text: text_part.to_string(),
        anchor: heading_anchor(text_part),
        span: pos..pos + line.len(),
        line: line_no,
    });
    true
}

fn callout_header(note: &mut Note, t: &str, pos: usize, line_no: usize) {
    let inner = t[1..].trim_start();
    let Some(rest) = inner.strip_prefix("[!") else { return };
    let Some(close) = rest.find(']') else { return };
    let kind = rest[..close].split('|').next().unwrap_or("").trim().to_lowercase();
    if kind.is_empty() || kind.contains(char::is_whitespace) {
        return;
    }
    let mut after = &rest[close + 1..];
    let fold = after.chars().next().filter(|c| *c == '+' || *c == '-');
    if fold.is_some() {
        after = &after[1..];
    }
    let title = match after.strip_prefix('|') {
        Some(meta) => meta.split_once(' ').map_or("", |(_, t)| t),
        None => after,
    };
    note.callouts.push(Callout {
        kind,
        title: title.trim().to_string(),
        fold,
        span: pos..pos + t.len(),
        line: line_no,
    });
}

/// Extends each callout's span over the quoted lines that follow its header. Callouts inside one
/// block quote share its end: the quote is walked once, not once per callout.
fn finish_callouts(note: &mut Note, text: &str) {
    // The end of the last quote walked.
    let mut walked = 0;
    for callout in &mut note.callouts {
        let header_end = text[callout.span.end..].find('\n').map_or(text.len(), |i| callout.span.end + i);
        // A header with quoted lines after it, inside the quote walked last, ends where it ends.
        if header_end >= walked {
            walked = quote_end(text, header_end, callout.span.end);
        }
        let end = walked;
        callout.span.end = end.min(text.len());
        if text[..callout.span.end].ends_with('\r') {
            callout.span.end -= 1;
        }
    }
}

/// Walks the lines after the one ending at `header_end` while they are quoted (`> …`): the end of
/// the last quoted line (`end` when there is none).
fn quote_end(text: &str, header_end: usize, mut end: usize) -> usize {
    let mut pos = header_end + 1;
    while pos < text.len() {
        let next = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        if !text[pos..next].trim_start().starts_with('>') {
            break;
        }
        end = next;
        pos = next + 1;
    }
    end
}

fn task(note: &mut Note, line: &str, pos: usize, line_no: usize) {
    let t = callout_or_quote_body(line.trim_start());
    let after_marker = if let Some(r) = t.strip_prefix(['-', '*', '+']) {
        r
    } else {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        match t[digits..].strip_prefix(['.', ')']) {
            Some(r) if digits > 0 => r,
            _ => return,
        }
    };
    let Some(rest) = after_marker.strip_prefix(' ').map(str::trim_start).and_then(|r| r.strip_prefix('['))
    else {
        return;
    };
    let mut chars = rest.chars();
    let (Some(status), Some(']')) = (chars.next(), chars.next()) else { return };
    let text = chars.as_str();
    if !(text.is_empty() || text.starts_with(' ')) {
        return;
    }
    note.tasks.push(Task {
        status,
        text: text.trim().to_string(),
        span: pos..pos + line.len(),
        line: line_no,
    });
}

/// Where the lines before a block id start.
struct Runs {
    /// The paragraph the line ends: prose lines since the last blank line, heading, fence or math.
    paragraph: Option<usize>,
    /// The run of non-blank lines since the last blank line or heading (a table, a fence).
    run: Option<usize>,
    /// The run before the last blank line.
    prev: Option<Span>,
}

fn block_id(note: &mut Note, line: &str, pos: usize, line_no: usize, runs: Runs) {
    let trimmed = line.trim_end();
    let Some(caret) = trimmed.rfind('^') else { return };
    let id = &trimmed[caret + 1..];
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return;
    }
    let before = &trimmed[..caret];
    let alone = before.trim().is_empty();
    if !alone && !before.ends_with([' ', '\t']) {
        return;
    }
    let marker_start = pos + before.trim_end().len();
    let marker = (if alone { pos } else { marker_start })..pos + trimmed.len();
    let block = if alone {
        // A lone `^id` line names the block before it (a table, typically).
        match runs.run.filter(|&start| start < pos) {
            Some(start) => start..pos.saturating_sub(1),
            None => runs.prev.unwrap_or(pos..pos),
        }
    } else if list_marker(line).is_some() {
        pos..pos + trimmed.len()
    } else {
        runs.paragraph.unwrap_or(pos)..pos + trimmed.len()
    };
    let block = block.start..block.end.max(block.start);
    note.blocks.push(BlockId { id: id.to_string(), block, marker, line: line_no });
}

/// The length of a list item's marker at the start of `line`: indentation, `-`, `*`, `+` or a
/// number with `.` or `)`, and the spaces after it; `None` when the line is not a list item.
pub(crate) fn list_marker(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let bullet = match t.as_bytes().get(digits) {
        Some(b'-' | b'*' | b'+') if digits == 0 => 1,
        Some(b'.' | b')') if (1..10).contains(&digits) => digits + 1,
        _ => return None,
    };
    let rest = &t[bullet..];
    let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    (spaces > 0 || rest.is_empty()).then(|| line.len() - t.len() + bullet + spaces)
}

/// `Key:: value` on its own line (`whole`), and `[key:: value]` / `(key:: value)` anywhere.
fn field_inline(note: &mut Note, body: &str, line_no: usize, whole: bool) {
    if !body.contains("::") {
        return;
    }
    if whole {
        let t = body.trim_start_matches(['-', '*', '+', ' ']);
        if let Some((key, value)) = t.split_once("::")
            && !key.is_empty()
            && !key.contains(['[', '(', '`'])
            && key.len() <= 64
        {
            note.fields.push(InlineField {
                key: key.trim().to_string(),
                value: value.trim().to_string(),
                line: line_no,
            });
            return;
        }
    }
    for (open, close) in [('[', ']'), ('(', ')')] {
        let mut rest = body;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + 1..];
            let Some(end) = after.find(close) else { break };
            if let Some((key, value)) = after[..end].split_once("::")
                && !key.trim().is_empty()
                && !key.contains(['[', '(', ' '])
            {
                note.fields.push(InlineField {
                    key: key.trim().to_string(),
                    value: value.trim().to_string(),
                    line: line_no,
                });
            }
            rest = &after[end + 1..];
        }
    }
}
