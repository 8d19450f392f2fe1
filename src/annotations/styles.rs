//! The template styles. Each reader starts at the line an annotation begins on, fills a
//! [`Draft`], and returns the index of the first line it did not consume.

use std::borrow::Cow;

use super::draft::{ColorSource, Draft};
use super::lines::{
    Lines, callout_header, citation_line, heading, is_annotation_start, is_boundary, unquote,
};
use super::text::{
    citation, file_page_link, in_parens, label_page, link_page, mark_open, offset_in, rfind, strip_bold,
    strip_prefix_ci, zotero_link,
};

/// Type words the exports print inside `<mark>` or after the colour name.
const TYPE_WORDS: [&str; 8] =
    ["highlight", "note", "image", "underline", "text", "ink", "annotation", "sticky note"];

fn is_type_word(word: &str) -> bool {
    TYPE_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word.trim()))
}

/// Finds `</mark>` (any case) in `s`.
fn mark_close(s: &str) -> Option<usize> {
    let lower = s.as_bytes();
    (0..s.len().saturating_sub(6))
        .find(|&i| lower[i] == b'<' && s[i..].get(..7).is_some_and(|t| t.eq_ignore_ascii_case("</mark>")))
}

/// Reads what follows a page link on a line: `[Page 3](zotero://…)`, `([p. 3](zotero://…))` or a
/// `[@key p. 3]` citation, into the draft. Returns the line with that part removed.
fn take_locator<'a>(line: &'a str, draft: &mut Draft) -> Cow<'a, str> {
    if memchr::memchr2(b'[', b':', line.as_bytes()).is_none() {
        return Cow::Borrowed(line.trim_end());
    }
    let mut line = line.to_string();
    let mut located = false;
    if let Some(found) = zotero_link(&line, "open-pdf") {
        let (link_start, link) = (offset_in(&line, found), found.to_string());
        located = true;
        if let Some(label_open) = line[..link_start].rfind('[') {
            let label_end = line[label_open..link_start].find("](").map_or(link_start, |e| label_open + e);
            let label = &line[label_open + 1..label_end];
            draft.page = draft.page.take().or_else(|| label_page(label));
            let cut = in_parens(&line, label_open..(link_start + link.len() + 1).min(line.len()));
            line.replace_range(cut, "");
        }
        draft.link = Some(link);
    }
    // Zotero's own export prints the page in its citation of the item, before the annotation's
    // link: `([Tseng et al., 2021, p. 47](zotero://select/…)) ([pdf](zotero://open-pdf/…))`.
    if let Some(found) = zotero_link(&line, "select")
        && let (link_start, link) = (offset_in(&line, found), found.to_string())
        && let Some(label_open) = line[..link_start].rfind('[')
        && line[label_open..link_start].ends_with("](")
        && let Some(page) = label_page(&line[label_open + 1..link_start - 2])
    {
        draft.page = draft.page.take().or(Some(page));
        let cut = in_parens(&line, label_open..(link_start + link.len() + 1).min(line.len()));
        line.replace_range(cut, "");
        draft.link.get_or_insert(link);
        located = true;
    }
    if let Some((range, page)) = file_page_link(&line) {
        draft.page = draft.page.take().or(Some(page));
        line.replace_range(range, "");
        located = true;
    }
    // A date link after the page link (`[page 2](file://…) [[2024-05-19 19:14]]`,
    // `[page 1](zotero://…) [[23.10.25|2023-10-25#오후 4:27]]`).
    while located
        && let Some(open) = line.trim_end().strip_suffix("]]").and_then(|l| l.rfind("[["))
        && is_date_target(&line[open + 2..])
    {
        line.truncate(open);
        line.truncate(line.trim_end().len());
    }
    if let Some(open) = rfind(&line, "[@")
        && let Some((key, page)) = citation(&line[open..])
    {
        draft.cite.get_or_insert_with(|| key.to_string());
        draft.page = draft.page.take().or(page);
        line.truncate(open);
    }
    line.truncate(line.trim_end().len());
    Cow::Owned(line)
}

/// Whether a wikilink's target (`23.10.25|2023-10-25#…]]`) names a day: digits and date separators.
fn is_date_target(link: &str) -> bool {
    let target = link.split(['|', '#', ']']).next().unwrap_or("");
    target.starts_with(|c: char| c.is_ascii_digit())
        && target.bytes().all(|b| b.is_ascii_digit() || b".-_: ".contains(&b))
}

/// The user's template and its relatives: a `<mark …>Label</mark>` line, then a heading or bold
/// comment, text, a fenced code block or an embedded image, and a `[@key p. N]` citation.
/// Also Highlightr-style `<mark class="hltr-…">text</mark>` spans.
pub fn mark_block<'a>(
    lines: &Lines<'a>,
    start: usize,
    depth: usize,
    draft: &mut Draft<'a>,
    problems: &mut Vec<(usize, String)>,
) -> usize {
    let first = unquote(lines.get(start), depth).trim_start();
    let Some(tag) = mark_open(first) else { return start + 1 };
    draft.color = ColorSource { hex: tag.hex, name: tag.class_color };
    let after = &first[tag.len..];
    let Some(close) = mark_close(after) else {
        problems.push((
            start,
            "a <mark> tag is not closed with </mark>; the annotation was read as if it were".into(),
        ));
        if is_type_word(after) {
            draft.label = Some(after.trim().to_string());
            return block_body(lines, start + 1, depth, draft);
        }
        let kept = take_locator(after, draft);
        draft.text.push(kept);
        return following_comment(lines, start + 1, depth, draft);
    };
    let inside = after[..close].trim();
    let rest = after[close + 7..].trim_start_matches("</br>").trim_start_matches("<br>").trim();
    if !is_type_word(inside) {
        // Highlightr-style: the mark wraps the text itself.
        draft.text.push(inside.into());
        let rest = take_locator(rest, draft);
        if !rest.is_empty() {
            draft.comment.push(rest);
        }
        return following_comment(lines, start + 1, depth, draft);
    }
    draft.label = Some(inside.to_string());
    if !rest.is_empty() {
        let rest = take_locator(rest, draft);
        draft.text.push(rest);
    }
    block_body(lines, start + 1, depth, draft)
}

/// The lines after a `<mark>Label</mark>` line, up to the citation or the next annotation.
fn block_body<'a>(lines: &Lines<'a>, mut i: usize, depth: usize, draft: &mut Draft<'a>) -> usize {
    // The comment comes first: a heading (section colours) or a bold line.
    let line = unquote(lines.get(i), depth);
    if let Some((_, title)) = heading(line).filter(|_| !is_boundary(line)) {
        draft.comment.push(title.into());
        i += 1;
    } else if line.trim_start().starts_with("**") {
        i = bold_comment(lines, i, depth, draft);
    }
    let mut located = false;
    while i < lines.len() {
        let raw = lines.get(i);
        if depth > 0 && !raw.trim_start().starts_with('>') && !raw.trim().is_empty() {
            break;
        }
        let line = unquote(raw, depth);
        if is_boundary(line) || is_annotation_start(line) || (heading(line).is_some() && !draft.is_empty()) {
            break;
        }
        i += 1;
        if let Some((key, page)) = citation_line(line) {
            draft.cite.get_or_insert_with(|| key.to_string());
            draft.page = draft.page.take().or(page);
            break;
        }
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            i = code_block(lines, i, depth, t, draft);
        } else if let Some(image) = t.strip_prefix("![[") {
            let end = image.find([']', '|']).unwrap_or(image.len());
            draft.image = Some(image[..end].to_string());
        } else if located {
            // Lines after the page link are the comment (`- comment` in most templates).
            let t = line.trim();
            let t = t.strip_prefix("- ").unwrap_or(t);
            if !t.is_empty() || !draft.comment.is_empty() {
                draft.comment.push(t.into());
            }
        } else {
            let had = (draft.link.is_some(), draft.page.is_some());
            let kept = take_locator(line, draft);
            if kept.trim().is_empty()
                && !draft.text.is_empty()
                && had != (draft.link.is_some(), draft.page.is_some())
            {
                located = true;
                continue;
            }
            if draft.label.as_deref().is_some_and(|l| l.eq_ignore_ascii_case("note")) {
                draft.comment.push(kept);
            } else {
                draft.text.push(kept);
            }
        }
    }
    i
}

/// A bold comment that may run over several lines (`**first\nsecond**`).
fn bold_comment<'a>(lines: &Lines<'a>, start: usize, depth: usize, draft: &mut Draft<'a>) -> usize {
    let first = unquote(lines.get(start), depth).trim();
    if first.len() > 2 && first.ends_with("**")
        || memchr::memmem::find_iter(first.as_bytes(), "**").nth(1).is_some()
    {
        draft.comment.push(first.into());
        return start + 1;
    }
    let mut i = start;
    let mut parts = Vec::new();
    while i < lines.len() && i < start + 20 {
        let line = unquote(lines.get(i), depth).trim();
        parts.push(line.to_string());
        i += 1;
        if i > start + 1 && line.ends_with("**") {
            draft.comment.push(parts.join("\n").into());
            return i;
        }
    }
    // No closing `**`: only the first line is the comment.
    draft.comment.push(first.into());
    start + 1
}

/// A fenced code block starting at line `i - 1` (`fence` is its opening line). Its info string is
/// the comment unless it looks like a language name.
fn code_block<'a>(
    lines: &Lines<'a>,
    mut i: usize,
    depth: usize,
    fence: &'a str,
    draft: &mut Draft<'a>,
) -> usize {
    let marker = &fence[..3];
    let info = fence.trim_start_matches(marker.chars().next().unwrap_or('`')).trim();
    if !info.is_empty() && !is_language(info) {
        draft.comment.push(info.into());
    }
    let mut code = Vec::new();
    while i < lines.len() {
        let line = unquote(lines.get(i), depth);
        i += 1;
        if line.trim_start().starts_with(marker) {
            break;
        }
        code.push(line);
    }
    draft.code = Some(code.join("\n"));
    i
}

fn is_language(info: &str) -> bool {
    !info.contains(' ')
        && !info.contains(':')
        && info.chars().all(|c| c.is_ascii_alphanumeric() || "+-#._".contains(c))
}

/// Comment lines directly under an annotation (no blank line between), as Highlightr and
/// callout templates put them.
///
/// Past a blank line, a paragraph that ends with the annotation's own link again
/// (`comment [Page 2](…&annotation=KEY)`) is its comment too.
fn following_comment<'a>(lines: &Lines<'a>, mut i: usize, depth: usize, draft: &mut Draft<'a>) -> usize {
    while i < lines.len() {
        let line = unquote(lines.get(i), depth);
        let t = line.trim();
        if t.is_empty() {
            let mut j = i;
            while j < lines.len() && unquote(lines.get(j), depth).trim().is_empty() {
                j += 1;
            }
            let next = lines.get(j);
            let own_link = draft.link.as_deref().filter(|l| super::text::annotation_key(l).is_some());
            if j < lines.len()
                && j <= i + 2
                && draft.comment.is_empty()
                && let Some(link) = own_link
                && unquote(next, depth).trim_end().ends_with(&format!("({link})"))
                && !is_annotation_start(unquote(next, depth))
            {
                // The page link is read off as on the annotation's own line.
                let kept = take_locator(unquote(next, depth).trim(), draft);
                if !kept.trim().is_empty() {
                    draft.comment.push(Cow::Owned(kept.trim().to_string()));
                }
                return j + 1;
            }
            break;
        }
        if is_boundary(line) || is_annotation_start(line) || heading(line).is_some() {
            break;
        }
        if let Some((key, page)) = citation_line(line) {
            draft.cite.get_or_insert_with(|| key.to_string());
            draft.page = draft.page.take().or(page);
        } else {
            let t = t.strip_prefix("- ").unwrap_or(t);
            let t = strip_bold(t);
            let t = strip_prefix_ci(t, "comment:").unwrap_or(t).trim();
            if !t.is_empty() {
                draft.comment.push(t.into());
            }
        }
        i += 1;
    }
    i
}

/// Callout style: `> [!quote|#ffd400]` (or `> [!quote]|#ffd400`, `|yellow`), text lines, a
/// `([p. 3](zotero://open-pdf/…))` link; nested `> > text` and `>>- comment` forms; a `<mark>`
/// inside the callout; comment lines right after it.
pub fn callout<'a>(
    lines: &Lines<'a>,
    start: usize,
    draft: &mut Draft<'a>,
    problems: &mut Vec<(usize, String)>,
) -> usize {
    let header = callout_header(lines.get(start)).unwrap_or("");
    let close = header.find(']').unwrap_or(header.len());
    let meta = &header[2..close];
    let after = header.get(close + 1..).unwrap_or("");
    let color = meta
        .split_once('|')
        .map(|(_, c)| c.trim())
        .or_else(|| after.strip_prefix('|').map(|c| c.split_whitespace().next().unwrap_or("")));
    let color = color.or_else(|| super::general::type_colour(meta.trim()));
    if let Some(color) = color {
        if color.starts_with('#') {
            draft.color.hex = Some(color.to_string());
        } else {
            draft.color.name = Some(color.to_string());
        }
    }
    let title = after.trim_start_matches(['|', '+', '-']).trim();
    let title = if color.is_some() && after.starts_with('|') {
        title.split_once(' ').map_or("", |(_, t)| t.trim())
    } else {
        title
    };
    // `> [!quote|#ffd400] Highlight`: the title names the annotation's type, as Zotero
    // Integration's example template prints it.
    let title = if is_type_word(title) || title.eq_ignore_ascii_case("strikethrough") {
        draft.label = Some(title.to_ascii_lowercase());
        ""
    } else {
        title
    };
    if !title.is_empty() {
        draft.comment.push(title.into());
    }
    let mut i = start + 1;
    let mut after_link = false;
    // Whether the last line read ended with a line break `nl2br` printed (`<br />`): the value's
    // next line follows without the quote marker, which the filter does not repeat.
    let mut broken: Option<bool> = None;
    while i < lines.len() {
        let line = lines.get(i);
        let quoted = line.trim_start().starts_with('>');
        let inner = match broken {
            Some(in_comment) if !quoted && !line.trim().is_empty() => {
                i += 1;
                let t = line.trim();
                broken = ends_with_break(t).then_some(in_comment);
                let t = without_breaks(t);
                if in_comment {
                    draft.comment.push(t.into())
                } else {
                    draft.text.push(t.into())
                }
                continue;
            }
            _ if !quoted => break,
            _ => unquote(line, 1),
        };
        i += 1;
        let t = inner.trim();
        broken = None;
        if t.is_empty() || only_breaks(t) {
            draft.text.push(Cow::Borrowed(""));
            continue;
        }
        if let Some(nested) = t.strip_prefix('>') {
            let nested = nested.trim_start();
            // `>>` after the text and a blank quoted line: the comment, as the example template
            // nests it; right under the header, the text.
            let after_text = draft.text.last().is_some_and(|l| l.trim().is_empty())
                && draft.text.iter().any(|l| !l.trim().is_empty());
            if let Some(comment) = nested.strip_prefix('-') {
                draft.comment.push(comment.trim().into());
            } else if after_text && !nested.is_empty() {
                broken = ends_with_break(nested).then_some(true);
                draft.comment.push(without_breaks(nested).into());
            } else {
                let kept = take_locator(nested, draft);
                draft.text.push(kept);
            }
            continue;
        }
        if ends_with_break(t) && !t.contains("zotero://") {
            broken = Some(false);
            draft.text.push(without_breaks(t).into());
            continue;
        }
        if t.starts_with("<mark") {
            let mut sub = Draft::default();
            let _ = mark_line(t, &mut sub, problems, i - 1);
            if draft.color.hex.is_none() && draft.color.name.is_none() {
                draft.color = sub.color;
            }
            draft.label = sub.label;
            draft.text.extend(sub.text.into_iter().filter(|l| !l.trim().is_empty()));
            continue;
        }
        if let Some(image) = t.strip_prefix("![[") {
            let end = image.find([']', '|']).unwrap_or(image.len());
            draft.image = Some(image[..end].to_string());
            continue;
        }
        if after_link {
            draft.comment.push(t.into());
            continue;
        }
        let had_link = draft.link.is_some();
        let kept = take_locator(t, draft);
        after_link = !had_link && draft.link.is_some();
        if !kept.is_empty() {
            draft.text.push(kept);
        }
    }
    if draft.comment.is_empty() || !title.is_empty() && draft.comment.len() == 1 {
        following_paragraph(lines, i, draft)
    } else {
        i
    }
}

/// Whether a line ends with an HTML line break (`<br />`, `<br>`): `nl2br` printed it.
fn ends_with_break(t: &str) -> bool {
    let t = t.trim_end().as_bytes();
    [&b"<br />"[..], b"<br/>", b"<br>"]
        .iter()
        .any(|b| t.len() >= b.len() && t[t.len() - b.len()..].eq_ignore_ascii_case(b))
}

/// `t` without the HTML line break that ends it.
fn without_breaks(t: &str) -> &str {
    let mut t = t.trim_end();
    while ends_with_break(t) {
        let cut = t.rfind('<').unwrap_or(0);
        t = t[..cut].trim_end();
    }
    t
}

/// Whether a line holds only line breaks (`</br></br>`, `<br/>`), as image callouts print.
fn only_breaks(t: &str) -> bool {
    t.split('<').skip(1).all(|tag| {
        let (name, tail) = tag.split_once('>').unwrap_or((tag, "x"));
        matches!(name.trim().trim_matches('/').trim(), "br" | "BR") && tail.trim().is_empty()
    }) && t.starts_with('<')
}

/// A `<mark …>Label</mark></br></br>text` line inside a callout.
fn mark_line<'a>(
    t: &'a str,
    draft: &mut Draft<'a>,
    problems: &mut Vec<(usize, String)>,
    line: usize,
) -> Option<()> {
    let tag = mark_open(t)?;
    draft.color = ColorSource { hex: tag.hex, name: tag.class_color };
    let after = &t[tag.len..];
    let Some(close) = mark_close(after) else {
        problems.push((line, "a <mark> tag is not closed with </mark>".into()));
        return None;
    };
    let inside = after[..close].trim();
    if is_type_word(inside) {
        draft.label = Some(inside.to_string());
    } else {
        draft.text.push(inside.into());
    }
    let rest = after[close + 7..].replace("</br>", "\n").replace("<br>", "\n");
    for part in rest.split('\n').map(str::trim).filter(|p| !p.is_empty()) {
        let part = part.strip_prefix('>').map_or(part, str::trim_start);
        draft.text.push(part.to_string().into());
    }
    Some(())
}

/// The paragraph after an annotation (at most one blank line between) as its comment, unless it
/// starts another annotation, a heading, a callout or an export marker.
fn following_paragraph<'a>(lines: &Lines<'a>, mut i: usize, draft: &mut Draft<'a>) -> usize {
    let mut probe = i;
    if lines.get(probe).trim().is_empty() {
        probe += 1;
    }
    let first = lines.get(probe);
    if first.trim().is_empty()
        || is_boundary(first)
        || is_annotation_start(first)
        || heading(first).is_some()
        || first.trim_start().starts_with('>')
        || first.trim_start().starts_with("%%")
        || first.trim_start().starts_with("![[")
    {
        return i;
    }
    i = probe;
    while i < lines.len()
        && !lines.get(i).trim().is_empty()
        && !is_annotation_start(lines.get(i))
        && !is_boundary(lines.get(i))
    {
        draft.comment.push(lines.get(i).trim().into());
        i += 1;
    }
    i
}

/// Zotero Integration's built-in formatted style: `> “text” Yellow Highlight [Page 3](zotero://…)`
/// (also without the `>` or the colour words), with the comment as the next paragraph.
pub fn formatted<'a>(lines: &Lines<'a>, start: usize, draft: &mut Draft<'a>) -> usize {
    let line = unquote(lines.get(start), 2);
    let kept = take_locator(line, draft);
    let (text, after) = split_quoted(&kept);
    draft.text.push(text.to_string().into());
    let mut words = after.split_whitespace().filter(|w| !w.starts_with('(') && !w.starts_with('['));
    // `“text” ([pdf](…)) the user's words`: Zotero's note prints a comment after the link; a
    // colour and type (`“text” Yellow Highlight`) are one or two words of a colour or type.
    let after = after.trim();
    let first_word = after.split_whitespace().next().unwrap_or("");
    let comment_after = !after.is_empty()
        && !is_type_word(first_word)
        && crate::annotations::colors::zotero_hex_of_name(first_word).is_none()
        && (after.split_whitespace().count() > 2 || !first_word.chars().all(|c| c.is_ascii_alphanumeric()));
    if comment_after {
        draft.comment.push(after.replace("\\>", ">").into());
    } else if let Some(first) = words.next() {
        if is_type_word(first) {
            draft.label = Some(first.to_string());
        } else {
            draft.color.name = Some(first.to_string());
            if let Some(second) = words.next().filter(|w| is_type_word(w)) {
                draft.label = Some(second.to_string());
            }
        }
    }
    if draft.page.is_none() {
        draft.page = draft.link.as_deref().and_then(link_page);
    }
    let mut i = start + 1;
    // Further quoted lines of the same blockquote belong to the comment.
    while i < lines.len() && lines.get(i).trim_start().starts_with('>') && !is_annotation_start(lines.get(i))
    {
        let t = unquote(lines.get(i), 2).trim();
        if !t.is_empty() {
            draft.comment.push(t.into());
        }
        i += 1;
    }
    if draft.comment.is_empty() { following_paragraph(lines, i, draft) } else { i }
}

/// `“text” rest` → (`text`, `rest`): the longest quoted span at the start.
fn split_quoted(s: &str) -> (&str, &str) {
    let t = s.trim();
    let (open, close) = if t.starts_with('“') { ('“', '”') } else { ('"', '"') };
    let Some(body) = t.strip_prefix(open) else { return (t, "") };
    match body.rfind(close) {
        Some(end) => (&body[..end], &body[end + close.len_utf8()..]),
        None => (body, ""),
    }
}
