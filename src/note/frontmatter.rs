//! YAML frontmatter: finding the block and reading it as data.
//!
//! The block is the text between a first line `---` and the next line that is `---` (or `...`).
//! A leading BOM and CRLF line ends are accepted. A block that does not parse as a YAML mapping
//! gives a diagnostic and no data: the rest of the note is still read.

use std::ops::Range;

use serde_json::{Map, Value};

use crate::diag::Diagnostic;

mod plain;

/// Where the frontmatter sits in a note, as byte ranges into the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterBlock {
    /// The whole block, from the opening `---` to the end of the closing line (its line end included).
    pub span: Range<usize>,
    /// The YAML between the fences (possibly empty).
    pub yaml: Range<usize>,
}

/// Finds the frontmatter block of `text`, if the note has one.
///
/// The body of the note starts at `block.span.end` (or at 0, or 3 after a BOM, when there is none).
pub fn locate(text: &str) -> Option<FrontmatterBlock> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let rest = &text[start..];
    let first_end = line_end(rest, 0);
    if trim_line(&rest[..first_end]) != "---" {
        return None;
    }
    let yaml_start = next_line(rest, first_end);
    let mut pos = yaml_start;
    while pos < rest.len() {
        let end = line_end(rest, pos);
        let line = trim_line(&rest[pos..end]);
        if line == "---" || line == "..." {
            return Some(FrontmatterBlock {
                span: start..start + next_line(rest, end),
                yaml: start + yaml_start..start + pos,
            });
        }
        pos = next_line(rest, end);
    }
    None
}

/// Byte offset where the body (everything after the frontmatter and any BOM) starts.
pub fn body_start(text: &str) -> usize {
    match locate(text) {
        Some(block) => block.span.end,
        None if text.starts_with('\u{feff}') => 3,
        None => 0,
    }
}

/// The frontmatter of a note read as data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// Where the block is, if there is one.
    pub block: Option<FrontmatterBlock>,
    /// The mapping, keys in source order; empty when missing or unreadable.
    pub data: Map<String, Value>,
    /// Why the block could not be read, if it could not.
    pub diagnostics: Vec<Diagnostic>,
}

impl Frontmatter {
    /// The text between the fences of a block that is not valid YAML (`citekey: @key`), for
    /// readers that take what they can from its lines.
    pub fn unreadable_yaml<'t>(&self, text: &'t str) -> Option<&'t str> {
        let block = self.block.as_ref().filter(|_| self.data.is_empty() && !self.diagnostics.is_empty())?;
        text.get(block.yaml.clone())
    }

    /// Reads the frontmatter of `text`. Never fails: problems become diagnostics.
    pub fn parse(text: &str) -> Self {
        let Some(block) = locate(text) else {
            return Self::default();
        };
        let yaml = &text[block.yaml.clone()];
        let (data, diagnostics) = parse_yaml_mapping(yaml);
        Self { block: Some(block), data, diagnostics }
    }

    /// The value of `key` as a string, if it is a string, number or boolean.
    pub fn get_str(&self, key: &str) -> Option<String> {
        scalar_string(self.data.get(key)?)
    }

    /// The value of `key` looked up case-insensitively.
    pub fn get_ci(&self, key: &str) -> Option<&Value> {
        self.data.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v)
    }

    /// Tags from `tags` or `tag`: a YAML list, or a string of comma- or space-separated tags.
    /// A leading `#` is dropped; empty entries are skipped. Order is kept, duplicates removed.
    pub fn tags(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for key in ["tags", "tag"] {
            if let Some(value) = self.get_ci(key) {
                collect_tags(value, &mut out);
            }
        }
        let mut seen = foldhash::HashSet::default();
        out.retain(|tag| seen.insert(tag.clone()));
        out
    }
}

fn collect_tags(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| collect_tags(item, out)),
        Value::String(s) => {
            for part in s.split([',', ' ', '\t', '\n']) {
                let tag = part.trim().trim_start_matches('#');
                if !tag.is_empty() {
                    out.push(tag.to_string());
                }
            }
        }
        Value::Number(n) => out.push(n.to_string()),
        _ => {}
    }
}

/// A scalar value as a string (strings as they are, numbers and booleans printed).
pub fn scalar_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Parses YAML text that should be a mapping. Empty text is an empty mapping.
pub fn parse_yaml_mapping(yaml: &str) -> (Map<String, Value>, Vec<Diagnostic>) {
    if yaml.trim().is_empty() {
        return (Map::new(), Vec::new());
    }
    if let Some(map) = plain::parse(yaml) {
        return (map, Vec::new());
    }
    // The error's first line is all a diagnostic shows: no source snippet is rendered for it.
    let options = serde_saphyr::options! { with_snippet: false };
    match serde_saphyr::from_str_with_options::<Value>(yaml, options) {
        Ok(Value::Object(map)) => (map, Vec::new()),
        Ok(Value::Null) => (Map::new(), Vec::new()),
        Ok(_) => (
            Map::new(),
            vec![Diagnostic::error(2, "frontmatter is not a mapping of keys to values; it was ignored")],
        ),
        Err(err) => {
            let first = err.to_string();
            let first = first.lines().next().unwrap_or("unreadable YAML").to_string();
            (
                Map::new(),
                vec![Diagnostic::error(
                    2,
                    format!("frontmatter is not valid YAML ({first}); it was ignored"),
                )],
            )
        }
    }
}

/// End of the line starting at `pos` (index of its `\n`, or of a `\r\n`, or the text's end).
fn line_end(text: &str, pos: usize) -> usize {
    match memchr::memchr(b'\n', &text.as_bytes()[pos..]) {
        Some(i) if i > 0 && text.as_bytes()[pos + i - 1] == b'\r' => pos + i - 1,
        Some(i) => pos + i,
        None => text.len(),
    }
}

/// Start of the line after the one ending at `end`.
fn next_line(text: &str, end: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes.get(end) {
        Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
        Some(_) => end + 1,
        None => end,
    }
}

fn trim_line(line: &str) -> &str {
    line.trim_end_matches([' ', '\t'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mapping_and_tags() {
        let text =
            "---\ncategory: Annotations\ncitekey: smithML2023\ntags: machine-learning, review\n---\n# A\n";
        let fm = Frontmatter::parse(text);
        assert_eq!(fm.get_str("citekey").as_deref(), Some("smithML2023"));
        assert_eq!(fm.tags(), vec!["machine-learning", "review"]);
        assert_eq!(&text[body_start(text)..], "# A\n");
    }

    #[test]
    fn bom_crlf_and_yaml_list() {
        let text = "\u{feff}---\r\ntags:\r\n  - a\r\n  - '#b/c'\r\n---\r\nbody";
        let fm = Frontmatter::parse(text);
        assert_eq!(fm.tags(), vec!["a", "b/c"]);
        assert_eq!(&text[body_start(text)..], "body");
    }

    #[test]
    fn broken_yaml_is_a_diagnostic() {
        let fm = Frontmatter::parse("---\nkey: [unclosed\n---\nbody");
        assert!(fm.data.is_empty());
        assert_eq!(fm.diagnostics.len(), 1);
        assert!(fm.block.is_some());
    }

    #[test]
    fn unclosed_block_is_no_frontmatter() {
        assert!(locate("---\nkey: v\nno end").is_none());
        assert_eq!(body_start("no frontmatter"), 0);
    }
}
