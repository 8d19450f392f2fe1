//! The section engine: find a section by heading path (`A::B::C`) or a unique bare heading, a
//! block by `^id`, a frontmatter key; append, prepend or replace inside it, touching nothing
//! outside it. One implementation for the MCP tools and the plugin.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Note;
use super::anchor::anchors_match;
pub use super::error::EditError;
use super::fm_edit;

/// Where the new content goes relative to the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// At the end of the target.
    Append,
    /// At the start of the target.
    Prepend,
    /// Instead of the target's content.
    Replace,
}

/// What to edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A heading path (`A::B::C` with the delimiter) or a bare heading.
    Heading(String),
    /// A block id, with or without `^`.
    Block(String),
    /// A frontmatter key.
    Frontmatter(String),
}

/// How to read the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchOptions {
    /// Separates heading levels in a heading path (default `::`).
    pub delimiter: String,
    /// Trim whitespace around each part of the target.
    pub trim_target: bool,
    /// Create a missing heading (under its existing parents) or frontmatter key.
    pub create_if_missing: bool,
}

impl Default for PatchOptions {
    fn default() -> Self {
        Self { delimiter: "::".into(), trim_target: true, create_if_missing: false }
    }
}

/// The result of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patched {
    /// The whole new text.
    pub text: String,
    /// For replace: the text that was replaced.
    pub replaced: Option<String>,
    /// Whether the target had to be created.
    pub created: bool,
}

/// Applies `op` with `content` to `target` in `text`. Content for a frontmatter target is a
/// JSON value (a string is a string); for the others it is Markdown (a string).
pub fn patch(
    text: &str,
    target: &Target,
    op: Operation,
    content: &Value,
    options: &PatchOptions,
) -> Result<Patched, EditError> {
    match target {
        Target::Frontmatter(key) => patch_frontmatter(text, key, op, content, options),
        Target::Heading(path) => patch_heading(text, path, op, &markdown(content), options),
        Target::Block(id) => patch_block(text, id.trim().trim_start_matches('^'), op, &markdown(content)),
    }
}

fn markdown(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// Content with the note's line endings and no trailing line end.
fn normalize(content: &str, nl: &str) -> String {
    let unified = content.replace("\r\n", "\n");
    let trimmed = unified.trim_end_matches('\n');
    if nl == "\n" { trimmed.to_string() } else { trimmed.replace('\n', nl) }
}

/// The index of the heading `target` names: a path whose parts are the last parts of a
/// heading's path, compared exactly as given, then without the heading markers a caller may
/// write (`## Part`), then as link anchors (case and formatting ignored).
pub fn find_heading(note: &Note, target: &str, options: &PatchOptions) -> Result<usize, EditError> {
    let parts = split_path(target, options)?;
    let raw = raw_parts(target, options);
    let paths: Vec<Vec<&str>> = (0..note.headings.len()).map(|i| note.heading_path(i)).collect();
    let full = |i: usize| paths[i].join(&options.delimiter);
    // A heading named `#k` is named exactly first; `## k` and `k` then name the heading `k`.
    for pass in 0..3 {
        let wanted = if pass == 0 { &raw } else { &parts };
        let matches: Vec<usize> = (0..paths.len())
            .filter(|&i| {
                let path = &paths[i];
                path.len() >= wanted.len()
                    && path[path.len() - wanted.len()..].iter().zip(wanted).all(|(have, want)| {
                        if pass < 2 { have.trim() == *want } else { anchors_match(have, want) }
                    })
            })
            .collect();
        match matches.as_slice() {
            [one] => return Ok(*one),
            [] => continue,
            many => {
                return Err(EditError::AmbiguousHeading {
                    target: target.to_string(),
                    candidates: many.iter().map(|&i| full(i)).collect(),
                });
            }
        }
    }
    Err(EditError::HeadingNotFound {
        target: target.to_string(),
        available: (0..paths.len()).map(full).collect(),
    })
}

/// The parts of a heading path as given, heading markers kept.
fn raw_parts<'a>(target: &'a str, options: &PatchOptions) -> Vec<&'a str> {
    let delimiter = if options.delimiter.is_empty() { "::" } else { options.delimiter.as_str() };
    target.split(delimiter).map(|p| if options.trim_target { p.trim() } else { p }).collect()
}

/// The parts of a heading path without the heading markers a caller may write (`## Part`).
fn split_path<'a>(target: &'a str, options: &PatchOptions) -> Result<Vec<&'a str>, EditError> {
    let parts: Vec<&str> =
        raw_parts(target, options).into_iter().map(|p| p.trim_start_matches('#').trim_start()).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(EditError::InvalidTarget {
            target: target.into(),
            reason: "a heading path has an empty part".into(),
        });
    }
    Ok(parts)
}

fn patch_heading(
    text: &str,
    target: &str,
    op: Operation,
    content: &str,
    options: &PatchOptions,
) -> Result<Patched, EditError> {
    let note = Note::parse(text);
    let (text, index, created) = match find_heading(&note, target, options) {
        Ok(i) => (text.to_string(), i, false),
        Err(EditError::HeadingNotFound { .. }) if options.create_if_missing => {
            let created = create_heading(text, &note, target, options)?;
            let note = Note::parse(&created);
            let i = find_heading(&note, target, options)?;
            (created, i, true)
        }
        Err(e) => return Err(e),
    };
    let note = Note::parse(&text);
    let nl = line_ending(&text);
    let section = note.section(index, &text);
    let heading_end = note.headings[index].span.end;
    let body_start = (heading_end + nl.len()).min(section.end).max(heading_end);
    let content = normalize(content, nl);
    let (new, replaced) = match op {
        Operation::Prepend => (insert_lines(&text, body_start, &content, nl), None),
        Operation::Append => {
            let body = &text[body_start..section.end];
            let last = body_start + body.trim_end().len();
            if body.trim().is_empty() {
                (insert_lines(&text, body_start, &content, nl), None)
            } else {
                (format!("{}{nl}{content}{}", &text[..last], &text[last..]), None)
            }
        }
        Operation::Replace => {
            let old = text[body_start..section.end].to_string();
            let gap = if section.end < text.len() { nl } else { "" };
            let lead = if body_start == heading_end && heading_end == text.len() { nl } else { "" };
            (format!("{}{lead}{content}{nl}{gap}{}", &text[..body_start], &text[section.end..]), Some(old))
        }
    };
    Ok(Patched { text: new, replaced, created })
}

/// `content` as whole lines at `at` (a line start, or the end of a last line without a line end).
fn insert_lines(text: &str, at: usize, content: &str, nl: &str) -> String {
    let lead = if at > 0 && !text[..at].ends_with('\n') { nl } else { "" };
    let tail = if at < text.len() || text.ends_with('\n') { nl } else { "" };
    format!("{}{lead}{content}{tail}{}", &text[..at], &text[at..])
}

/// Adds the missing headings of `target` under its deepest existing parent.
fn create_heading(
    text: &str,
    note: &Note,
    target: &str,
    options: &PatchOptions,
) -> Result<String, EditError> {
    let parts = split_path(target, options)?;
    let nl = line_ending(text);
    let mut parent: Option<usize> = None;
    let mut existing = 0;
    for k in (1..parts.len()).rev() {
        if let Ok(i) = find_heading(note, &parts[..k].join(&options.delimiter), options) {
            parent = Some(i);
            existing = k;
            break;
        }
    }
    let (at, base_level) = match parent {
        Some(i) => (note.section(i, text).end, note.headings[i].level + 1),
        None => (text.len(), note.headings.iter().map(|h| h.level).min().unwrap_or(1)),
    };
    let mut block = String::new();
    for (depth, part) in parts[existing..].iter().enumerate() {
        let level = (base_level as usize + depth).min(6);
        block.push_str(&format!("{} {part}{nl}", "#".repeat(level)));
    }
    let before = &text[..at];
    let trimmed = before.trim_end_matches(['\n', '\r']);
    let sep = if trimmed.is_empty() { String::new() } else { format!("{nl}{nl}") };
    let rest = &text[at..];
    let after = if rest.is_empty() { "" } else { nl };
    Ok(format!("{trimmed}{sep}{block}{after}{rest}"))
}

fn patch_block(text: &str, id: &str, op: Operation, content: &str) -> Result<Patched, EditError> {
    let note = Note::parse(text);
    let Some(block) = note.blocks.iter().find(|b| b.id == id) else {
        return Err(EditError::BlockNotFound {
            id: id.to_string(),
            available: note.blocks.iter().map(|b| b.id.clone()).collect(),
        });
    };
    let nl = line_ending(text);
    let content = normalize(content, nl);
    let inline_marker = block.marker.start >= block.block.start && block.marker.end <= block.block.end;
    let (new, replaced) = match op {
        Operation::Prepend => {
            (format!("{}{content}{nl}{}", &text[..block.block.start], &text[block.block.start..]), None)
        }
        Operation::Append => {
            let end = if inline_marker { block.block.end } else { block.marker.end };
            (format!("{}{nl}{content}{}", &text[..end], &text[end..]), None)
        }
        Operation::Replace if inline_marker => {
            let (start, prefix) = text_start(text, block.block.start, block.marker.start, &content);
            let content =
                if prefix.is_empty() { content } else { content.replace(nl, &format!("{nl}{prefix}")) };
            let old = text[start..block.marker.start].to_string();
            (format!("{}{content}{}", &text[..start], &text[block.marker.start..]), Some(old))
        }
        Operation::Replace => {
            let old = text[block.block.clone()].to_string();
            (format!("{}{content}{}", &text[..block.block.start], &text[block.block.end..]), Some(old))
        }
    };
    Ok(Patched { text: new, replaced, created: false })
}

/// Where the text of the block `start..end` begins, and the prefix its further lines carry: after
/// a list item's marker and task box, after a quote's `>` (a callout's header line is kept), so
/// that a replace keeps them. A marker or task box the new `content` brings replaces the old one.
fn text_start<'a>(text: &'a str, start: usize, end: usize, content: &str) -> (usize, &'a str) {
    let block = &text[start..end];
    let first = block.split('\n').next().unwrap_or_default();
    if let Some(marker) = super::parse::list_marker(first) {
        let indent = first.len() - first.trim_start().len();
        if super::parse::list_marker(content).is_some() {
            return (start + indent, "");
        }
        let boxed = task_box(&first[marker..]) && !task_box(content);
        return (start + marker + if boxed { 4 } else { 0 }, "");
    }
    let prefix = quote_prefix(first);
    if prefix.is_empty() || content.trim_start().starts_with('>') {
        return (start, "");
    }
    let header = first[prefix.len()..].starts_with("[!");
    match block.find('\n').filter(|_| header) {
        Some(nl) => {
            let second = &block[nl + 1..];
            (start + nl + 1 + quote_prefix(second).len(), quote_prefix(second))
        }
        None => (start + prefix.len(), prefix),
    }
}

/// Whether `text` starts with a task box: `[ ] `, `[x] ` or another status character.
fn task_box(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() >= 4 && b[0] == b'[' && b[1].is_ascii() && b[2] == b']' && b[3] == b' '
}

/// The quote markers at the start of `line` (`> `, `>> `, with the indentation before them).
fn quote_prefix(line: &str) -> &str {
    let rest = line.trim_start_matches(['>', ' ', '\t']);
    let prefix = &line[..line.len() - rest.len()];
    if prefix.contains('>') { prefix } else { "" }
}

fn patch_frontmatter(
    text: &str,
    key: &str,
    op: Operation,
    content: &Value,
    options: &PatchOptions,
) -> Result<Patched, EditError> {
    let key = if options.trim_target { key.trim() } else { key };
    let fm = super::Frontmatter::parse(text);
    if !fm.diagnostics.is_empty() {
        return Err(EditError::InvalidFrontmatter {
            reason: "its YAML does not parse; fix it by hand first so no other key is damaged".into(),
        });
    }
    let exists = fm.data.contains_key(key);
    if !exists && !options.create_if_missing {
        return Err(EditError::KeyNotFound { key: key.to_string() });
    }
    let items = |v: &Value| match v {
        Value::Array(items) => items.clone(),
        other => vec![other.clone()],
    };
    let new = match op {
        Operation::Replace => fm_edit::set(text, key, content)?,
        Operation::Append => fm_edit::add_to_list(text, key, &items(content), false)?,
        Operation::Prepend => fm_edit::add_to_list(text, key, &items(content), true)?,
    };
    let replaced = (op == Operation::Replace).then(|| fm.data.get(key).map(|v| v.to_string())).flatten();
    Ok(Patched { text: new, replaced, created: !exists })
}
