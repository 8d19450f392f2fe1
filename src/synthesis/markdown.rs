//! Writing Markdown and YAML safely: user text must never break the structure of the note.
//!
//! The annotated text comes from PDFs and from the user's comments: it may start a line with `#`,
//! `- ` or `1.`, hold several paragraphs, contain quotes or colons. These helpers escape just what
//! would change the meaning of the surrounding Markdown or YAML, and nothing else.

use std::fmt::Write as _;

use crate::annotations::LINE_BREAKS;

/// A YAML scalar: plain when that is unambiguous, else double-quoted.
pub(crate) fn yaml_string(value: &str) -> String {
    if is_plain_yaml(value) { value.to_string() } else { yaml_quoted(value) }
}

/// A double-quoted YAML scalar; every character that needs it is escaped.
pub(crate) fn yaml_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A `YYYY-MM-DD` date written plain (YAML and Dataview read it as a date); anything else quoted.
pub(crate) fn yaml_date(value: &str) -> String {
    let b = value.as_bytes();
    let is_date = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
    if is_date { value.to_string() } else { yaml_quoted(value) }
}

/// Letters, digits, spaces and `-_.` only, starting with a letter, and not a YAML 1.1 keyword.
fn is_plain_yaml(value: &str) -> bool {
    const KEYWORDS: [&str; 11] = ["true", "false", "yes", "no", "on", "off", "null", "y", "n", "nan", "inf"];
    value.chars().next().is_some_and(char::is_alphabetic)
        && !value.ends_with(' ')
        && !value.contains("  ")
        && value.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'))
        && !KEYWORDS.contains(&value.to_lowercase().as_str())
}

/// An annotation's text or comment without the export's debris: `<br>` becomes a line break,
/// HTML tags go, and so do words that are `file://` paths, raw `zotero://` URLs (the annotation's
/// own link is written as a link beside it) or callout markers such as `[!quote|#ffd400]`.
pub(crate) fn clean_text(text: &str) -> String {
    let broken = LINE_BREAKS.iter().fold(text.to_string(), |t, b| t.replace(b, "\n"));
    let untagged = strip_tags(&broken);
    let lines: Vec<String> = untagged
        .lines()
        .map(|line| line.split(' ').filter(|w| !is_debris_word(w)).collect::<Vec<_>>().join(" "))
        .collect();
    lines.join("\n").trim().to_string()
}

fn is_debris_word(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.contains("file://")
        || lower.contains("zotero://")
        || lower.trim_start_matches(['>', ' ']).starts_with("[!")
}

/// `text` without `<tag …>` and `</tag>` (a `<` before a letter or `/`, up to the next `>`).
fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        let after = &rest[i + 1..];
        let is_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match after.find('>').filter(|_| is_tag) {
            Some(end) => {
                out.push_str(&rest[..i]);
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[..=i]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` on one line: every run of whitespace, line breaks included, becomes one space.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text for a heading or a callout line: on one line, a trailing `#` escaped (it would be
/// taken as a closing sequence), a leading block marker escaped.
pub(crate) fn heading_text(text: &str) -> String {
    let mut line = no_comment_marks(&escape_line_start(&one_line(text)));
    let before_run = line.trim_end_matches('#');
    if before_run.len() < line.len() && (before_run.is_empty() || before_run.ends_with(' ')) {
        line.pop();
        line.push_str("\\#");
    }
    line
}

/// Escapes what would turn the start of `line` into block syntax: a heading, a quote or callout,
/// a list item, a thematic break or setext underline, a code fence, a link reference definition.
/// Leading whitespace is removed (it could make an indented code block).
pub(crate) fn escape_line_start(line: &str) -> String {
    let line = line.trim_start();
    let Some(first) = line.chars().next() else { return String::new() };
    let rest = &line[first.len_utf8()..];
    let only_marker = line.chars().all(|c| c == first || c == ' ' || c == '\t');
    let escape = match first {
        '#' | '>' => true,
        '-' | '+' | '*' => rest.is_empty() || rest.starts_with([' ', '\t']) || only_marker,
        '_' | '=' => only_marker,
        '`' | '~' => line.starts_with("```") || line.starts_with("~~~"),
        '[' => rest.contains("]:"),
        _ => false,
    };
    if escape {
        return format!("\\{line}");
    }
    escape_ordered_marker(line)
}

/// `1. text` or `1) text` would start an ordered list: escape the delimiter.
fn escape_ordered_marker(line: &str) -> String {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let after = &line[digits..];
    let is_marker = (1..=9).contains(&digits)
        && (after.starts_with(". ") || after.starts_with(") ") || after == "." || after == ")");
    if is_marker { format!("{}\\{}", &line[..digits], after) } else { line.to_string() }
}

/// `line` with every `%%` written `%\%`: Obsidian reads `%%` as the start of a comment that
/// hides the rest of the note until the next one (an export's `%% … %%` block, cut in two by the
/// parser, would hide the summary's end).
fn no_comment_marks(line: &str) -> String {
    line.replace("%%", "%\\%")
}

/// The lines of `text`, each trimmed and escaped, runs of blank lines collapsed to one, no blank
/// line first or last.
pub(crate) fn block_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for raw in text.lines() {
        let line = no_comment_marks(&escape_line_start(raw.trim()));
        if line.is_empty() && lines.last().is_none_or(String::is_empty) {
            continue;
        }
        lines.push(line);
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// Appends a list item: `marker` (`- `, `- [ ] `) after `indent` spaces, then `content`; further
/// lines of the content are indented under the marker so they stay inside the item.
pub(crate) fn push_item(out: &mut String, indent: usize, marker: &str, content: &str) {
    let lines = block_lines(content);
    let pad = " ".repeat(indent);
    let inner = " ".repeat(indent + marker.len());
    let _ = write!(out, "{pad}{marker}");
    for (i, line) in lines.iter().enumerate() {
        if i > 0 && !line.is_empty() {
            out.push_str(&inner);
        }
        out.push_str(line);
        out.push('\n');
    }
    if lines.is_empty() {
        out.push('\n');
    }
}

/// Appends a fenced code block holding `code` verbatim, indented by `indent` spaces. The fence is
/// longer than any backtick run in the code.
pub(crate) fn push_fence(out: &mut String, indent: usize, code: &str) {
    let fence = "`".repeat(longest_run(code, '`').max(2) + 1);
    let pad = " ".repeat(indent);
    let _ = writeln!(out, "{pad}{fence}");
    for line in code.trim_matches('\n').lines() {
        let line = line.trim_end();
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{pad}{line}");
        }
    }
    let _ = writeln!(out, "{pad}{fence}");
}

/// An inline code span holding `code` (one line), with a backtick run longer than any inside.
pub(crate) fn code_span(code: &str) -> String {
    let ticks = "`".repeat(longest_run(code, '`') + 1);
    let pad = if code.starts_with('`') || code.ends_with('`') { " " } else { "" };
    format!("{ticks}{pad}{code}{pad}{ticks}")
}

/// Appends a paragraph: the lines of `text` escaped, blank lines kept as paragraph breaks.
pub(crate) fn push_paragraph(out: &mut String, text: &str) {
    for line in block_lines(text) {
        out.push_str(&line);
        out.push('\n');
    }
}

/// Appends `#`×`level` heading (level clamped to 1–6) and the blank line after it.
pub(crate) fn push_heading(out: &mut String, level: usize, text: &str) {
    let _ = writeln!(out, "{} {}\n", "#".repeat(level.clamp(1, 6)), heading_text(text));
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// `Some(text)` when it holds more than whitespace.
pub(crate) fn nonempty(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_scalars_are_quoted_when_needed() {
        assert_eq!(yaml_string("methodology"), "methodology");
        assert_eq!(yaml_string("Data Collection"), "Data Collection");
        assert_eq!(yaml_string("yes"), "\"yes\"");
        assert_eq!(yaml_string("Methods: a review"), "\"Methods: a review\"");
        assert_eq!(yaml_string("2024"), "\"2024\"");
        assert_eq!(yaml_quoted("a \"b\" \\ c\nd"), r#""a \"b\" \\ c\nd""#);
        assert_eq!(yaml_date("2024-01-15"), "2024-01-15");
        assert_eq!(yaml_date(""), "\"\"");
        assert_eq!(yaml_date("2024-1-15: x"), "\"2024-1-15: x\"");
    }

    #[test]
    fn line_starts_that_would_become_blocks_are_escaped() {
        assert_eq!(escape_line_start("# Not a heading"), "\\# Not a heading");
        assert_eq!(escape_line_start("> quote"), "\\> quote");
        assert_eq!(escape_line_start("- item"), "\\- item");
        assert_eq!(escape_line_start("---"), "\\---");
        assert_eq!(escape_line_start("**bold** start"), "**bold** start");
        assert_eq!(escape_line_start("-5 degrees"), "-5 degrees");
        assert_eq!(escape_line_start("12. Twelfth"), "12\\. Twelfth");
        assert_eq!(escape_line_start("2024 was"), "2024 was");
        assert_eq!(escape_line_start("```rust"), "\\```rust");
        assert_eq!(escape_line_start("~~struck~~"), "~~struck~~");
        assert_eq!(escape_line_start("[1]: ref"), "\\[1]: ref");
        assert_eq!(heading_text("C# and F#"), "C# and F#");
        assert_eq!(heading_text("Trailing ##"), "Trailing #\\#");
        assert_eq!(
            block_lines("cut %% begin annotations\n100%% sure"),
            ["cut %\\% begin annotations", "100%\\% sure"]
        );
        assert_eq!(heading_text("%% heading"), "%\\% heading");
    }

    #[test]
    fn list_items_keep_their_continuation_lines_inside() {
        let mut out = String::new();
        push_item(&mut out, 0, "- ", "First\n\n\n# second\n  third  \n");
        assert_eq!(out, "- First\n\n  \\# second\n  third\n");
        let mut nested = String::new();
        push_item(&mut nested, 2, "- ", "a\nb");
        assert_eq!(nested, "  - a\n    b\n");
    }

    #[test]
    fn export_debris_is_cleaned_from_annotation_text() {
        assert_eq!(clean_text("(file:///Users/x/a.pdf#page=4) photo"), "photo");
        assert_eq!(clean_text("a</br>b <span class=\"x\">c</span>"), "a\nb c");
        assert_eq!(clean_text("[!quote|#ffd400] text zotero://open-pdf/x"), "text");
        assert_eq!(clean_text("x < 5 and y > 3"), "x < 5 and y > 3");
    }

    #[test]
    fn code_is_fenced_longer_than_its_backticks() {
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        let mut out = String::new();
        push_fence(&mut out, 2, "x = 1\n```\ny");
        assert_eq!(out, "  ````\n  x = 1\n  ```\n  y\n  ````\n");
    }
}
