//! Snippets: where a query matches a note's text, the window of text that shows the most of
//! it, and that window with every match set in `**bold**`.

use std::collections::{HashSet, VecDeque};
use std::ops::Range;

use serde::Serialize;

use super::query::{Clause, Query};
use super::tokenize::{fold_into, tokens, wildcard_match};

/// Finds the words and phrases of a query in text.
#[derive(Debug, Clone, Default)]
pub struct Highlighter {
    words: HashSet<String>,
    patterns: Vec<String>,
    phrases: Vec<Vec<String>>,
}

impl Highlighter {
    /// The highlighter of `query`'s words and phrases (not of what it excludes).
    pub fn new(query: &Query) -> Self {
        let mut out = Self::default();
        for clause in &query.must {
            match clause {
                Clause::Word(w) if w.contains('*') => out.patterns.push(w.clone()),
                Clause::Word(w) => {
                    out.words.insert(w.clone());
                }
                Clause::Phrase(words) => out.phrases.push(words.clone()),
            }
        }
        out
    }

    /// Whether there is nothing to find.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.patterns.is_empty() && self.phrases.is_empty()
    }

    /// Byte ranges of every match in `text`, in order, not overlapping.
    pub fn matches(&self, text: &str) -> Vec<Range<usize>> {
        if self.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<Range<usize>> = Vec::new();
        // The last folded words (as many as the longest phrase), for phrases to look back at;
        // their buffers are reused.
        let longest = self.phrases.iter().map(Vec::len).max().unwrap_or(0);
        let mut seen: VecDeque<(usize, String)> = VecDeque::with_capacity(longest);
        let mut buf = String::new();
        for t in tokens(text) {
            fold_into(t.raw, &mut buf);
            if self.words.contains(buf.as_str()) || self.patterns.iter().any(|p| wildcard_match(p, &buf)) {
                out.push(t.start..t.end);
            }
            if longest == 0 {
                continue;
            }
            let mut word = if seen.len() == longest { seen.pop_front().map(|(_, w)| w) } else { None }
                .unwrap_or_default();
            word.clone_from(&buf);
            seen.push_back((t.start, word));
            for phrase in &self.phrases {
                if let Some(start) = seen.len().checked_sub(phrase.len())
                    && seen.range(start..).zip(phrase).all(|((_, w), p)| w == p)
                {
                    out.push(seen[start].0..t.end);
                }
            }
        }
        merge(out)
    }
}

/// Sorts ranges and merges those that overlap.
fn merge(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// The byte offset `chars` characters after (or, negative, before) `at`, within `text`.
fn step(text: &str, at: usize, chars: isize) -> usize {
    if chars >= 0 {
        text[at..].char_indices().nth(chars as usize).map_or(text.len(), |(i, _)| at + i)
    } else {
        text[..at].char_indices().rev().nth((-chars - 1) as usize).map_or(0, |(i, _)| i)
    }
}

/// The window of about `width` characters of `text` that holds the most of `matches` (starting a
/// little before the first of them); the start of `from` when there is no match.
pub fn window(text: &str, matches: &[Range<usize>], width: usize, from: usize) -> Range<usize> {
    let lead = (width / 5) as isize;
    let Some(first) = matches.first() else {
        let start = from.min(text.len());
        let start = (0..=start).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        return start..step(text, start, width as isize);
    };
    let mut best = (0, first.start);
    for m in matches.iter().take(200) {
        let start = step(text, m.start, -lead);
        let end = step(text, start, width as isize);
        // Matches are sorted and apart, so their ends are sorted too.
        let inside = matches.partition_point(|r| r.end <= end);
        let count = inside.saturating_sub(matches.partition_point(|r| r.start < start));
        if count > best.0 {
            best = (count, start);
        }
    }
    best.1..step(text, best.1, width as isize)
}

/// `text[window]` on one line (runs of white space become one space), with `matches` inside it in
/// `**bold**` and `…` where it was cut.
pub fn render(text: &str, window: Range<usize>, matches: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(window.len() + 16);
    if window.start > 0 {
        out.push('…');
    }
    let mut at = window.start;
    let push = |out: &mut String, piece: &str| {
        for c in piece.chars() {
            if c.is_whitespace() {
                if !out.ends_with(' ') && !out.is_empty() && !out.ends_with('…') {
                    out.push(' ');
                }
            } else {
                out.push(c);
            }
        }
    };
    for m in matches.iter().filter(|m| m.start < window.end && m.end > window.start) {
        let (s, e) = (m.start.max(window.start), m.end.min(window.end));
        push(&mut out, &text[at..s]);
        out.push_str("**");
        push(&mut out, &text[s..e]);
        out.push_str("**");
        at = e;
    }
    push(&mut out, &text[at..window.end]);
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    if window.end < text.len() {
        out.push('…');
    }
    out
}

/// A snippet of at most `width` characters of `text` (the `**` marks included, the `…` marks
/// not) around the best matches, highlighted; from the body's start (`from`) when nothing
/// matches.
pub fn snippet(text: &str, matches: &[Range<usize>], width: usize, from: usize) -> String {
    let mut w = width;
    loop {
        let shown = render(text, window(text, matches, w, from), matches);
        let len =
            shown.chars().count() - usize::from(shown.starts_with('…')) - usize::from(shown.ends_with('…'));
        if len <= width || w <= 4 {
            return match shown.strip_prefix('…') {
                Some(rest) if matches.is_empty() => rest.to_string(),
                _ => shown,
            };
        }
        w -= (len - width).min(w - 4);
    }
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineMatch {
    /// 1-based line number.
    pub line: usize,
    /// About `width` characters of the line around its matches, matches in `**bold**`.
    pub context: String,
}

/// The lines holding `matches` (sorted byte ranges of `text`), each with its highlighted context;
/// at most `max` lines, and how many lines matched in all.
pub fn lines(text: &str, matches: &[Range<usize>], width: usize, max: usize) -> (Vec<LineMatch>, usize) {
    lines_of(text, matches.iter().cloned(), width, max)
}

/// [`lines`] over matches that come one by one (a regular expression's, say): they are read
/// once, never held beyond one line's, and at most `width` of one line (more cannot show in its
/// context), so memory does not grow with the matches.
pub fn lines_of(
    text: &str,
    matches: impl Iterator<Item = Range<usize>>,
    width: usize,
    max: usize,
) -> (Vec<LineMatch>, usize) {
    let mut matches = matches.peekable();
    let (mut out, mut count, mut line, mut counted) = (Vec::new(), 0, 1, 0);
    while let Some(first) = matches.next() {
        let start = first.start;
        let line_end = text[start..].find('\n').map_or(text.len(), |p| start + p);
        let ends = line_end.max(start + 1);
        count += 1;
        if out.len() >= max {
            // Counted; the rest of this line's matches skipped.
            while matches.next_if(|m| m.start < ends).is_some() {}
            continue;
        }
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..start]).count();
        counted = start;
        let line_start = text[..start].rfind('\n').map_or(0, |p| p + 1);
        let line_end = if text[..line_end].ends_with('\r') { line_end - 1 } else { line_end };
        let mut local = vec![first];
        while let Some(m) = matches.next_if(|m| m.start < ends) {
            if local.len() < width.max(1) {
                local.push(m);
            }
        }
        let local: Vec<Range<usize>> = local
            .iter()
            .map(|m| m.start - line_start..m.end.min(line_end).max(m.start) - line_start)
            .collect();
        out.push(LineMatch { line, context: snippet(&text[line_start..line_end], &local, width, 0) });
    }
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_words_phrases_and_wildcards() {
        let text = "---\ntitle: x\n---\nRandom seeds decide leaderboards.\nThe seeds matter; Retrieval too.";
        let h = Highlighter::new(&Query::parse("seeds \"random seeds\" retriev*"));
        let m = h.matches(text);
        let shown: Vec<&str> = m.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(shown, ["Random seeds", "seeds", "Retrieval"]);
        let s = snippet(text, &m, 40, 0);
        assert!(s.contains("**seeds** matter; **Retrieval**"), "{s}");
        assert!(snippet(text, &m, 200, 0).contains("**Random seeds** decide"));
        let (by_line, count) = lines(text, &m, 100, 10);
        assert_eq!(count, 2);
        assert_eq!(by_line[0].line, 4);
        assert_eq!(
            by_line[1],
            LineMatch { line: 5, context: "The **seeds** matter; **Retrieval** too.".into() }
        );
    }

    #[test]
    fn windows_cut_on_characters_and_say_so() {
        let text = "ä ".repeat(100) + "target" + &" ö".repeat(100);
        let m = std::slice::from_ref(&(300..306)).to_vec();
        let s = snippet(&text, &m, 30, 0);
        assert!(s.starts_with('…') && s.ends_with('…') && s.contains("**target**"), "{s}");
        assert!(s.chars().count() < 45);
        assert_eq!(snippet("short text", &[], 100, 0), "short text");
        assert_eq!(snippet("---\nfm\n---\nbody here", &[], 100, 11), "body here");
    }
}
