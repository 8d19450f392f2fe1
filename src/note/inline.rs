//! Inline syntax of one prose line: code spans, `%%comments%%`, `$$display math$$` and HTML tags
//! (skipped), wikilinks, embeds, Markdown links and tags.

use super::Note;
use super::model::{Link, LinkKind, Tag};

/// Byte offset of the first `needle` in `haystack`.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes())
}

/// One line being scanned, with what is learnt about it once and reused for every opener on it:
/// looking afresh for the closer of each `[`, `[[`, `(`, `<` or backtick run would rescan the
/// rest of the line each time, quadratic on a line of openers that never close.
struct Line<'a> {
    text: &'a str,
    /// Where the line starts in the note.
    offset: usize,
    line_no: usize,
    /// The matching `]` of each `[` and `)` of each `(`, by the opener's position (made on first use).
    pairs: Option<Closers>,
    /// The end of the code span each backtick run opens, by the run's position (made on first use).
    code: Option<Closers>,
    wiki_close: Next,
    wiki_open: Next,
    angle_close: Next,
}

/// A position in the line for each position that opens something: one slot per byte, so a lookup
/// is an index (the openers are visited in order, so the slots are read front to back).
struct Closers(Vec<u32>);

impl Closers {
    const NONE: u32 = u32::MAX;

    fn new(len: usize) -> Self {
        Closers(vec![Self::NONE; len])
    }

    fn get(&self, at: usize) -> Option<usize> {
        self.0.get(at).copied().filter(|&c| c != Self::NONE).map(|c| c as usize)
    }

    fn insert(&mut self, at: usize, close: usize) {
        if let (Some(slot), Ok(close)) = (self.0.get_mut(at), u32::try_from(close)) {
            *slot = close;
        }
    }
}

/// The first occurrence of `needle` at or after a position that only grows: each part of the line
/// is searched once.
struct Next {
    needle: &'static str,
    from: usize,
    found: Option<usize>,
}

impl Next {
    fn new(needle: &'static str) -> Self {
        Next { needle, from: usize::MAX, found: None }
    }

    /// The first `needle` in `text` at or after byte `from`.
    fn at(&mut self, text: &str, from: usize) -> Option<usize> {
        let known = self.from <= from && self.found.is_none_or(|f| f >= from);
        if !known {
            self.found = find(&text[from..], self.needle).map(|i| from + i);
            self.from = from;
        }
        self.found
    }
}

/// What a line leaves open for the lines after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Nothing: the next line starts in prose.
    Nothing,
    /// A `%%` comment, opened at this byte of the note.
    Comment(usize),
    /// Display math: a `$$` with no `$$` after it on the line.
    Math,
}

/// Scans `line` (which starts at byte `offset` of the note) for links and tags, skipping code
/// spans, `%%comments%%`, `$$display math$$` and HTML tags. Returns what opens on this line and
/// does not close on it.
///
/// A `$$` opens or closes display math wherever it is in the line (Obsidian's own help writes
/// `$$\begin{vmatrix}a & b\\` and `\end{vmatrix}=ad-bc$$`), so the text before an opening and
/// after a closing `$$` is prose; `\$` is a literal dollar.
pub fn scan(note: &mut Note, line: &str, offset: usize, line_no: usize) -> Open {
    let mut l = Line {
        text: line,
        offset,
        line_no,
        pairs: None,
        code: None,
        wiki_close: Next::new("]]"),
        wiki_open: Next::new("[["),
        angle_close: Next::new(">"),
    };
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let at = i;
        i = match bytes[at] {
            b'`' => skip_code_span(&mut l, at),
            b'%' if bytes.get(at + 1) == Some(&b'%') => match find(&line[at + 2..], "%%") {
                Some(close) => {
                    note.comments.push(offset + at..offset + at + 2 + close + 2);
                    at + 2 + close + 2
                }
                None => return Open::Comment(offset + at),
            },
            b'$' if bytes.get(at + 1) == Some(&b'$') && (at == 0 || bytes[at - 1] != b'\\') => {
                match find(&line[at + 2..], "$$") {
                    Some(close) => at + 2 + close + 2,
                    None => return Open::Math,
                }
            }
            b'!' if line[at..].starts_with("![[") => wikilink(note, &mut l, at + 1, true),
            b'!' if line[at..].starts_with("![") => markdown_link(note, &mut l, at + 1, true),
            b'[' if line[at..].starts_with("[[") => wikilink(note, &mut l, at, false),
            b'[' => markdown_link(note, &mut l, at, false),
            b'#' => tag(note, line, at, offset, line_no),
            b'<' => skip_html_tag(bytes, at),
            _ => at + 1,
        };
    }
    Open::Nothing
}

/// The end of the code span a backtick run at `at` opens (the next run of the same length closes
/// it); an unclosed run is literal text.
fn skip_code_span(l: &mut Line, at: usize) -> usize {
    let n = l.text.as_bytes()[at..].iter().take_while(|&&b| b == b'`').count();
    let code = l.code.get_or_insert_with(|| code_spans(l.text.as_bytes()));
    code.get(at).unwrap_or(at + n)
}

/// For each run of backticks, the end of the next run of the same length, if any.
fn code_spans(bytes: &[u8]) -> Closers {
    let mut runs = Vec::new();
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'`', &bytes[i..]) {
        let n = bytes[i + p..].iter().take_while(|&&b| b == b'`').count();
        runs.push((i + p, n));
        i += p + n;
    }
    // The end of the next run of each length, by length (runs are short; a long one is rare).
    let mut next_end_of_len: Vec<Option<usize>> = Vec::new();
    let mut out = Closers::new(bytes.len());
    for &(start, n) in runs.iter().rev() {
        if let Some(end) = next_end_of_len.get(n).copied().flatten() {
            out.insert(start, end);
        }
        if next_end_of_len.len() <= n {
            next_end_of_len.resize(n + 1, None);
        }
        next_end_of_len[n] = Some(start + n);
    }
    out
}

/// The matching `]` of every `[` and `)` of every `(` in `bytes`, by the opener's position:
/// what counting depth from each opener would find, in one pass.
fn bracket_pairs(bytes: &[u8]) -> Closers {
    let mut out = Closers::new(bytes.len());
    let (mut squares, mut rounds) = (Vec::new(), Vec::new());
    for (i, &b) in bytes.iter().enumerate() {
        let stack = match b {
            b'[' | b']' => &mut squares,
            b'(' | b')' => &mut rounds,
            _ => continue,
        };
        if matches!(b, b'[' | b'(') {
            stack.push(i);
        } else if let Some(open) = stack.pop() {
            out.insert(open, i);
        }
    }
    out
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
fn wikilink(note: &mut Note, l: &mut Line, at: usize, embed: bool) -> usize {
    let inner_start = at + 2;
    let Some(close) = l.wiki_close.at(l.text, inner_start) else { return at + 2 };
    if l.wiki_open.at(l.text, inner_start).is_some_and(|open| open + 2 <= close) {
        return at + 2;
    }
    let inner = &l.text[inner_start..close];
    let (dest, alias) = match inner.find('|') {
        // In a table the bar is escaped (`[[Note\|alias]]`, `![[pic.png\|300]]`); Obsidian reads
        // `\|` as the bar, the `\` belonging to neither side.
        Some(bar) => {
            let dest = &inner[..bar];
            (dest.strip_suffix('\\').unwrap_or(dest), Some(inner[bar + 1..].trim().to_string()))
        }
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
        span: l.offset + start..l.offset + close + 2,
        line: l.line_no,
    });
    close + 2
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
fn markdown_link(note: &mut Note, l: &mut Line, at: usize, embed: bool) -> usize {
    let (line, bytes) = (l.text, l.text.as_bytes());
    let pairs = l.pairs.get_or_insert_with(|| bracket_pairs(bytes));
    let Some(text_end) = pairs.get(at) else { return at + 1 };
    if bytes.get(text_end + 1) != Some(&b'(') {
        return at + 1;
    }
    let dest_start = text_end + 2;
    let (dest, end) = if bytes.get(dest_start) == Some(&b'<') {
        match l.angle_close.at(line, dest_start + 1) {
            Some(close) if bytes.get(close + 1) == Some(&b')') => (&line[dest_start + 1..close], close + 2),
            _ => return at + 1,
        }
    } else {
        // `[t](url "title")`: the destination ends at the space.
        let Some(k) = pairs.get(text_end + 1) else { return at + 1 };
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
        span: l.offset + start..l.offset + end,
        line: l.line_no,
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
