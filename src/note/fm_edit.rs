//! Surgical frontmatter edits: one key changes; every other line — other keys, their order,
//! comments, quoting — stays byte-identical. A note without frontmatter gets a block.

use serde_json::Value;

use super::error::EditError;
use super::frontmatter::{self, locate};
use super::yaml;

/// A top-level key's lines in the YAML block: `[start, end)` byte offsets in the note's text.
pub(super) struct KeyLines {
    pub(super) start: usize,
    pub(super) end: usize,
    /// The text after `key:` on the key's own line.
    pub(super) inline_value: String,
    /// A comment at the end of the key's own line (`   # set by hand`), kept when a one-line value
    /// replaces a one-line value.
    pub(super) comment: String,
}

pub(super) fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// The key written at the start of a top-level line (`key:`, `"key":`, `'key':`), if any.
fn line_key(line: &str) -> Option<(String, &str)> {
    if line.starts_with([' ', '\t', '#', '-']) || line.trim().is_empty() {
        return None;
    }
    let (key, rest) = if let Some(quoted) = line.strip_prefix('"') {
        let end = quoted.find('"')?;
        (quoted[..end].to_string(), quoted[end + 1..].trim_start().strip_prefix(':')?)
    } else if let Some(quoted) = line.strip_prefix('\'') {
        let end = quoted.find('\'')?;
        (quoted[..end].to_string(), quoted[end + 1..].trim_start().strip_prefix(':')?)
    } else {
        let colon = line.find(": ").or_else(|| line.strip_suffix(':').map(|l| l.len()))?;
        (line[..colon].trim_end().to_string(), line.get(colon + 1..).unwrap_or(""))
    };
    Some((key, rest))
}

/// The lines of `key` in the frontmatter of `text`.
pub(super) fn find_key(text: &str, key: &str) -> Option<KeyLines> {
    let block = locate(text)?;
    let mut pos = block.yaml.start;
    let mut found: Option<KeyLines> = None;
    while pos < block.yaml.end {
        let end = text[pos..block.yaml.end].find('\n').map_or(block.yaml.end, |i| pos + i + 1);
        let line = text[pos..end].trim_end_matches(['\n', '\r']);
        match (&mut found, line_key(line)) {
            (None, Some((k, rest))) if k == key => {
                let value = strip_comment(rest);
                let kept = value.trim_end().len();
                found = Some(KeyLines {
                    start: pos,
                    end,
                    inline_value: value.trim().to_string(),
                    comment: if kept < value.len() || value.len() < rest.len() {
                        rest[kept..].to_string()
                    } else {
                        String::new()
                    },
                });
            }
            (Some(_), Some(_)) => break,
            (Some(_), None) if line.starts_with('#') => break,
            (Some(k), None) => k.end = end,
            _ => {}
        }
        pos = end;
    }
    // Blank lines at the end of a value belong to the layout, not to the key.
    if let Some(k) = &mut found {
        while k.end > k.start {
            let before = text[k.start..k.end - 1].rfind('\n').map_or(k.start, |i| k.start + i + 1);
            if before > k.start && text[before..k.end].trim().is_empty() {
                k.end = before;
            } else {
                break;
            }
        }
    }
    found
}

fn strip_comment(value: &str) -> &str {
    // Inside a quoted scalar `#` is text: look for a comment after the closing quote.
    let trimmed = value.trim_start();
    let from = match trimmed.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let lead = value.len() - trimmed.len();
            match trimmed[1..].find(q) {
                Some(i) => lead + 1 + i + 1,
                None => return value,
            }
        }
        _ => 0,
    };
    match value[from..].find(" #").or_else(|| value[from..].find("\t#")) {
        Some(i) => &value[..from + i],
        None => value,
    }
}

/// Sets `key` to `value`, replacing its lines in place or adding it at the end of the block.
pub fn set(text: &str, key: &str, value: &Value) -> Result<String, EditError> {
    check_key(key)?;
    let nl = line_ending(text);
    let lines = yaml::key_lines(key, value);
    if let Some(k) = find_key(text, key) {
        let one_line = lines.len() == 1 && !text[k.start..k.end].trim_end().contains('\n');
        let comment =
            if one_line && k.comment.trim_start().starts_with('#') { k.comment.as_str() } else { "" };
        let rendered = lines.join(nl) + comment + nl;
        return Ok(format!("{}{}{}", &text[..k.start], rendered, &text[k.end..]));
    }
    let rendered = lines.join(nl) + nl;
    insert(text, &rendered)
}

/// Removes `key`; returns the new text and whether the key was there.
pub fn delete(text: &str, key: &str) -> (String, bool) {
    match find_key(text, key) {
        Some(k) => (format!("{}{}", &text[..k.start], &text[k.end..]), true),
        None => (text.to_string(), false),
    }
}

/// Adds `items` to the list under `key`, in the list's own style (block `- a`, flow `[a, b]`,
/// or a comma-separated string as Obsidian writes `tags`); a scalar becomes a list; a missing key
/// becomes a new list. `front` puts them first.
pub fn add_to_list(text: &str, key: &str, items: &[Value], front: bool) -> Result<String, EditError> {
    check_key(key)?;
    let Some(k) = find_key(text, key) else {
        return set(text, key, &Value::Array(items.to_vec()));
    };
    let current: Value = frontmatter::Frontmatter::parse(text).data.get(key).cloned().unwrap_or(Value::Null);
    let nl = line_ending(text);
    let rendered: Vec<String> = items.iter().map(yaml::inline).collect();
    let inline = k.inline_value.as_str();
    let replacement = if inline.starts_with('[') && inline.ends_with(']') {
        let inner = inline[1..inline.len() - 1].trim();
        let joined = match (inner.is_empty(), front) {
            (true, _) => rendered.join(", "),
            (false, false) => format!("{inner}, {}", rendered.join(", ")),
            (false, true) => format!("{}, {inner}", rendered.join(", ")),
        };
        format!("{}: [{joined}]{nl}", yaml::string(key))
    } else if inline.is_empty() && matches!(current, Value::Array(_) | Value::Null) {
        let block = &text[k.start..k.end];
        let item_indent = block
            .lines()
            .skip(1)
            .find(|l| l.trim_start().starts_with('-'))
            .map_or("  ", |l| &l[..l.len() - l.trim_start().len()]);
        let new_lines: String = rendered.iter().map(|r| format!("{item_indent}- {r}{nl}")).collect();
        let body_start = k.start + block.find('\n').map_or(block.len(), |i| i + 1);
        if front {
            format!("{}{new_lines}{}", &text[k.start..body_start], &text[body_start..k.end])
        } else {
            let existing = &text[k.start..k.end];
            let sep = if existing.ends_with('\n') { "" } else { nl };
            format!("{existing}{sep}{new_lines}")
        }
    } else if let Value::String(s) = &current
        && (s.contains(',') || ["tags", "tag", "aliases", "alias", "cssclasses", "cssclass"].contains(&key))
    {
        let plain: Vec<String> =
            items.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).collect();
        let joined =
            if front { format!("{}, {s}", plain.join(", ")) } else { format!("{s}, {}", plain.join(", ")) };
        yaml::key_lines(key, &Value::String(joined)).join(nl) + nl
    } else {
        let mut list = vec![current];
        if front {
            list.splice(0..0, items.iter().cloned());
        } else {
            list.extend(items.iter().cloned());
        }
        yaml::key_lines(key, &Value::Array(list)).join(nl) + nl
    };
    Ok(format!("{}{}{}", &text[..k.start], replacement, &text[k.end..]))
}

fn check_key(key: &str) -> Result<(), EditError> {
    if key.trim().is_empty() || key.contains(['\n', '\r']) {
        return Err(EditError::InvalidTarget {
            target: key.to_string(),
            reason: "a frontmatter key must be a non-empty single line".into(),
        });
    }
    Ok(())
}

/// Adds `rendered` (whole lines) at the end of the frontmatter block, creating the block when
/// the note has none.
fn insert(text: &str, rendered: &str) -> Result<String, EditError> {
    let nl = line_ending(text);
    match locate(text) {
        Some(block) => {
            let at = block.yaml.end;
            let sep = if at > block.yaml.start && !text[..at].ends_with('\n') { nl } else { "" };
            Ok(format!("{}{sep}{rendered}{}", &text[..at], &text[at..]))
        }
        None => {
            let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
            if text[bom..].starts_with("---") && frontmatter::locate(text).is_none() {
                return Err(EditError::InvalidFrontmatter {
                    reason: "the note starts with --- but the frontmatter block is never closed; close it with a --- line first".into(),
                });
            }
            Ok(format!("{}---{nl}{rendered}---{nl}{}", &text[..bom], &text[bom..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOTE: &str = "---\n# comment\ntitle: 'Odd: quoting'   # keep\ntags: [a, b]\naliases:\n  - x\nstatus: draft\n---\nbody\n";

    #[test]
    fn set_replaces_only_the_key() {
        let out = set(NOTE, "status", &json!("done")).unwrap();
        assert_eq!(out, NOTE.replace("status: draft", "status: done"));
        let out = set(NOTE, "aliases", &json!(["y"])).unwrap();
        assert_eq!(out, NOTE.replace("aliases:\n  - x\n", "aliases:\n  - \"y\"\n"));
        let out = set(NOTE, "new key", &json!(3)).unwrap();
        assert_eq!(out, NOTE.replace("status: draft\n", "status: draft\nnew key: 3\n"));
    }

    #[test]
    fn a_comment_on_the_line_survives_a_new_value() {
        let out = set(NOTE, "title", &json!("Plain")).unwrap();
        assert_eq!(out, NOTE.replace("title: 'Odd: quoting'   # keep", "title: Plain   # keep"));
        // A value on several lines cannot carry the one-line comment; it goes with the old value.
        let out = set(NOTE, "title", &json!(["a", "b"])).unwrap();
        assert!(out.contains("title:\n  - a\n  - b\ntags:"), "{out}");
        // `#` inside quotes is not a comment.
        let quoted = "---\nk: \"a #b\"\n---\n";
        assert_eq!(set(quoted, "k", &json!("c")).unwrap(), "---\nk: c\n---\n");
    }

    #[test]
    fn lists_grow_in_their_own_style() {
        assert!(add_to_list(NOTE, "tags", &[json!("c")], false).unwrap().contains("tags: [a, b, c]\n"));
        assert!(
            add_to_list(NOTE, "aliases", &[json!("z")], false)
                .unwrap()
                .contains("aliases:\n  - x\n  - z\nstatus")
        );
        assert!(
            add_to_list(NOTE, "aliases", &[json!("w")], true).unwrap().contains("aliases:\n  - w\n  - x\n")
        );
        let comma = "---\ntags: one, two\n---\n";
        assert_eq!(
            add_to_list(comma, "tags", &[json!("three")], false).unwrap(),
            "---\ntags: one, two, three\n---\n"
        );
        let out = add_to_list(NOTE, "status", &[json!("x")], false).unwrap();
        assert!(out.contains("status:\n  - draft\n  - x\n"), "{out}");
    }

    #[test]
    fn delete_and_create_blocks() {
        let (out, existed) = delete(NOTE, "tags");
        assert!(existed);
        assert_eq!(out, NOTE.replace("tags: [a, b]\n", ""));
        assert_eq!(set("body\n", "k", &json!("v")).unwrap(), "---\nk: v\n---\nbody\n");
        assert_eq!(set("a\r\nb", "k", &json!(true)).unwrap(), "---\r\nk: true\r\n---\r\na\r\nb");
        assert!(set("---\nopen: block\nbody", "k", &json!(1)).is_err());
    }
}
