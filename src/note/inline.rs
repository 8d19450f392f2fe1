//! Inline syntax of one prose line: code spans, `%%comments%%` and HTML tags (skipped), wikilinks,
//! embeds, Markdown links and tags.

use super::Note;
use super::model::{Link, LinkKind, Tag};

/// Byte offset of the first `needle` in `haystack`.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes())
}

/// Scans `line` (which starts at byte `offset` of the note). Returns true when a `%%` comment
/// opens on this line and does not close on it.
pub fn scan(note: &mut Note, line: &str, offset: usize, line_no: usize) -> bool {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let at = i;
        i = match bytes[at] {
            b'`' => skip_code_span(bytes, at),
            b'%' if bytes.get(at + 1) == Some(&b'%') => match find(&line[at + 2..], "%%") {
                Some(close) => {
                    note.comments.push(offset + at..offset + at + 2 + close + 2);
                    at + 2 + close + 2
                }
                None => return true,
            },
            b'!' if line[at..].starts_with("![[") => wikilink(note, line, at + 1, true, offset, line_no),
            b'!' if line[at..].starts_with("![") => markdown_link(note, line, at + 1, true, offset, line_no),
            b'[' if line[at..].starts_with("[[") => wikilink(note, line, at, false, offset, line_no),
            b'[' => markdown_link(note, line, at, false, offset, line_no),
            b'#' => tag(note, line, at, offset, line_no),
            b'<' => skip_html_tag(bytes, at),
            _ => at + 1,
        };
    }
    false
}

fn skip_code_span(bytes: &[u8], at: usize) -> usize {
    let n = bytes[at..].iter().take_while(|&&b| b == b'`').count();
    let mut j = at + n;
    while j < bytes.len() {
        if bytes[j] == b'`' {
            let m = bytes[j..].iter().take_while(|&&b| b == b'`').count();
            if m == n {
                return j + m;
            }
            j += m;
        } else {
            j += 1;
        }
    }
    // An unclosed run of backticks is literal text.
    at + n
}

/// An inline HTML tag (`<mark style="background-color: #ffd400">`, `</mark>`, `<!-- … -->`)
/// starting at `at`: its attributes hold no tags or links for Obsidian (a Zotero highlight colour
/// is not a tag). Anything else (`a < b`, an unclosed tag) is literal text.
fn skip_html_tag(bytes: &[u8], at: usize) -> usize {
    let rest = &bytes[at + 1..];
    if rest.starts_with(b"!--") {
        return memchr::memmem::find(&rest[3..], b"-->").map_or(at + 1, |end| at + 1 + 3 + end + 3);
    }
    let opens = match rest.first() {
        Some(b'/') => rest.get(1).is_some_and(u8::is_ascii_alphabetic),
        Some(c) => c.is_ascii_alphabetic(),
        None => false,
    };
    if !opens {
        return at + 1;
    }
    let mut quote = None;
    for (i, &b) in rest.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return at + 1 + i + 1,
            (None, b'<') => return at + 1,
            _ => {}
        }
    }
    at + 1
}

/// `[[target#sub|alias]]` starting at `at` (the first `[`); `embed` when preceded by `!`.
fn wikilink(note: &mut Note, line: &str, at: usize, embed: bool, offset: usize, line_no: usize) -> usize {
    let inner_start = at + 2;
    let Some(close) = find(&line[inner_start..], "]]") else { return at + 2 };
    let inner = &line[inner_start..inner_start + close];
    if inner.contains('\n') || inner.contains("[[") {
        return at + 2;
    }
    let (dest, alias) = match inner.find('|') {
        Some(bar) => (&inner[..bar], Some(inner[bar + 1..].trim().to_string())),
        None => (inner, None),
    };
    let (target, subpath) = split_subpath(dest.trim());
    let start = if embed { at - 1 } else { at };
    note.links.push(Link {
        kind: LinkKind::Wiki,
        embed,
        target: target.to_string(),
        subpath,
        alias,
        external: false,
        span: offset + start..offset + inner_start + close + 2,
        line: line_no,
    });
    inner_start + close + 2
}

fn split_subpath(dest: &str) -> (&str, Option<String>) {
    match dest.find('#') {
        Some(hash) => {
            let sub = dest[hash + 1..].trim();
            (dest[..hash].trim(), (!sub.is_empty()).then(|| sub.to_string()))
        }
        None => (dest, None),
    }
}

/// `[text](destination)` starting at `at` (the `[`).
fn markdown_link(
    note: &mut Note,
    line: &str,
    at: usize,
    embed: bool,
    offset: usize,
    line_no: usize,
) -> usize {
    let bytes = line.as_bytes();
    let mut depth = 0;
    let mut j = at;
    let text_end = loop {
        match bytes.get(j) {
            None => return at + 1,
            Some(b'[') => depth += 1,
            Some(b']') => {
                depth -= 1;
                if depth == 0 {
                    break j;
                }
            }
            _ => {}
        }
        j += 1;
    };
    if bytes.get(text_end + 1) != Some(&b'(') {
        return at + 1;
    }
    let dest_start = text_end + 2;
    let (dest, end) = if bytes.get(dest_start) == Some(&b'<') {
        match line[dest_start + 1..].find('>') {
            Some(close) if bytes.get(dest_start + 1 + close + 1) == Some(&b')') => {
                (&line[dest_start + 1..dest_start + 1 + close], dest_start + 1 + close + 2)
            }
            _ => return at + 1,
        }
    } else {
        let mut depth = 1;
        let mut k = dest_start;
        loop {
            match bytes.get(k) {
                None => return at + 1,
                Some(b'(') => depth += 1,
                Some(b')') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Some(b' ') => {
                    // `[t](url "title")`: the destination ends at the space.
                }
                _ => {}
            }
            k += 1;
        }
        let raw = &line[dest_start..k];
        (raw.split(" \"").next().unwrap_or(raw).trim(), k + 1)
    };
    let external = dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with("obsidian:");
    let (target, subpath) = if external { (dest, None) } else { split_subpath(dest) };
    let start = if embed { at - 1 } else { at };
    note.links.push(Link {
        kind: LinkKind::Markdown,
        embed,
        target: if external { target.to_string() } else { percent_decode(target) },
        subpath,
        alias: Some(line[at + 1..text_end].to_string()),
        external,
        span: offset + start..offset + end,
        line: line_no,
    });
    end
}

/// Decodes `%20`-style escapes (Markdown links to notes with spaces).
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Whether `c` may appear in a tag (letters and digits of any script, `_`, `-`, `/`).
pub fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(c, '_' | '-' | '/')
        || (!c.is_ascii() && !c.is_whitespace() && !c.is_ascii_punctuation() && !is_unicode_punct(c))
}

fn is_unicode_punct(c: char) -> bool {
    matches!(
        c,
        '“' | '”'
            | '‘'
            | '’'
            | '…'
            | '—'
            | '–'
            | '«'
            | '»'
            | '。'
            | '、'
            | '，'
            | '：'
            | '；'
            | '！'
            | '？'
            | '（'
            | '）'
    )
}

/// `#tag` at `at`: only at the line start or after whitespace; letters, digits, `_`, `-`, `/`;
/// not all digits.
fn tag(note: &mut Note, line: &str, at: usize, offset: usize, line_no: usize) -> usize {
    let before = line[..at].chars().next_back();
    if before.is_some_and(|c| !c.is_whitespace()) {
        return at + 1;
    }
    let rest = &line[at + 1..];
    let len: usize = rest.chars().take_while(|&c| is_tag_char(c)).map(char::len_utf8).sum();
    let name = rest[..len].trim_end_matches('/');
    if name.is_empty() || name.chars().all(|c| c.is_ascii_digit()) {
        return at + 1 + len;
    }
    note.tags.push(Tag {
        name: name.to_string(),
        span: Some(offset + at..offset + at + 1 + name.len()),
        line: line_no,
    });
    at + 1 + len
}
