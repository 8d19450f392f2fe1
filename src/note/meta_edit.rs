//! Property and tag edits on top of [`super::fm_edit`]: several properties at once (lists merged
//! or replaced), tags added to the frontmatter in the note's own style (block list, flow list, or
//! a string), and tags removed from the frontmatter and from the text. Inline removal touches
//! only the tag spans the parser found, so code, links, URLs and comments never change. Every
//! edit is surgical: what is not edited stays byte-identical.

use serde::Serialize;
use serde_json::{Map, Value};

use super::Note;
use super::error::EditError;
use super::fm_edit::{self, find_key};
use super::frontmatter::Frontmatter;

/// What happened to one property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PropertyAction {
    /// The key was new.
    Added,
    /// The value was replaced.
    Set,
    /// New items were added to the list.
    Merged,
    /// The key was removed (the value given was `null`).
    Removed,
    /// Nothing to do: the value, or every list item, was already there.
    Unchanged,
}

/// One property of an update and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PropertyChange {
    /// The key.
    pub key: String,
    /// What happened.
    pub action: PropertyAction,
    /// The value now (`null` after a removal).
    pub value: Value,
}

/// Refuses frontmatter that does not parse: editing it could damage other keys.
fn check_readable(text: &str) -> Result<(), EditError> {
    match Frontmatter::parse(text).diagnostics.first() {
        Some(problem) => Err(EditError::InvalidFrontmatter {
            reason: format!("{}; fix it by hand first so no other key is damaged", problem.message),
        }),
        None => Ok(()),
    }
}

fn is_tag_key(key: &str) -> bool {
    key.eq_ignore_ascii_case("tags") || key.eq_ignore_ascii_case("tag")
}

/// Tags compare case-insensitively and without their `#`.
fn same_tag(a: &str, b: &str) -> bool {
    a.trim_start_matches('#').to_lowercase() == b.trim_start_matches('#').to_lowercase()
}

/// Whether `item` is already in `current` (a list, or a scalar; tags also in a tag string).
fn holds(current: &Value, item: &Value, key: &str) -> bool {
    let same = |a: &Value| match (a, item) {
        (Value::String(a), Value::String(b)) if is_tag_key(key) => same_tag(a, b),
        _ => a == item,
    };
    match current {
        Value::Array(items) => items.iter().any(same),
        Value::String(s) if is_tag_key(key) => {
            s.split([',', ' ', '\t']).any(|part| same(&Value::String(part.trim().to_string())))
        }
        other => same(other),
    }
}

/// Sets each of `properties`; a list value is merged into an existing value (only the items not
/// there yet are added, in the list's own style) unless `replace`; `null` removes the key. Returns
/// the new text and what happened to each key, in the order given.
pub fn update_properties(
    text: &str,
    properties: &Map<String, Value>,
    replace: bool,
) -> Result<(String, Vec<PropertyChange>), EditError> {
    check_readable(text)?;
    let mut text = text.to_string();
    let mut changes = Vec::new();
    for (key, value) in properties {
        let data = Frontmatter::parse(&text).data;
        let (next, action) = match (data.get(key.as_str()), value) {
            (None, Value::Null) => (None, PropertyAction::Unchanged),
            (Some(_), Value::Null) => (Some(fm_edit::delete(&text, key).0), PropertyAction::Removed),
            (Some(old), new) if old == new => (None, PropertyAction::Unchanged),
            (Some(old), Value::Array(items)) if !replace => {
                let mut fresh: Vec<Value> = Vec::new();
                for item in items {
                    if !holds(old, item, key) && !holds(&Value::Array(fresh.clone()), item, key) {
                        fresh.push(item.clone());
                    }
                }
                if fresh.is_empty() {
                    (None, PropertyAction::Unchanged)
                } else {
                    (Some(append_items(&text, key, &fresh)?), PropertyAction::Merged)
                }
            }
            (None, new) => (Some(fm_edit::set(&text, key, new)?), PropertyAction::Added),
            (Some(_), new) => (Some(fm_edit::set(&text, key, new)?), PropertyAction::Set),
        };
        if let Some(next) = next {
            text = next;
        }
        let now = Frontmatter::parse(&text).data.get(key.as_str()).cloned().unwrap_or(Value::Null);
        changes.push(PropertyChange { key: key.clone(), action, value: now });
    }
    Ok((text, changes))
}

/// Adds `items` to the list under `key` in its own style; a space-separated tag string stays one.
fn append_items(text: &str, key: &str, items: &[Value]) -> Result<String, EditError> {
    let current = Frontmatter::parse(text).data.get(key).cloned();
    if let Some(Value::String(s)) = &current
        && is_tag_key(key)
        && !s.contains(',')
        && s.trim().contains(' ')
    {
        let mut joined = s.trim().to_string();
        for item in items {
            joined.push(' ');
            joined.push_str(item.as_str().unwrap_or_default());
        }
        return fm_edit::set(text, key, &Value::String(joined));
    }
    fm_edit::add_to_list(text, key, items, false)
}

/// Where a tag is written in a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TagUse {
    /// The tag as first written (without `#`).
    pub name: String,
    /// Whether the frontmatter lists it.
    pub frontmatter: bool,
    /// 1-based lines where it is written inline.
    pub lines: Vec<usize>,
}

/// Every tag of `note`, grouped case-insensitively, in order of first appearance.
pub fn tag_uses(note: &Note) -> Vec<TagUse> {
    let mut out: Vec<TagUse> = Vec::new();
    for tag in &note.tags {
        let i = match out.iter().position(|u| same_tag(&u.name, &tag.name)) {
            Some(i) => i,
            None => {
                out.push(TagUse { name: tag.name.clone(), frontmatter: false, lines: Vec::new() });
                out.len() - 1
            }
        };
        match tag.span {
            Some(_) => out[i].lines.push(tag.line),
            None => out[i].frontmatter = true,
        }
    }
    out
}

/// The result of a tag edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TagEdit {
    /// The note's new text (the same text when nothing changed).
    #[serde(skip)]
    pub text: String,
    /// Tags added or removed.
    pub changed: Vec<String>,
    /// Tags left alone: already there (add) or not there (remove).
    pub unchanged: Vec<String>,
    /// Inline `#tag`s removed from the text.
    pub inline_removed: usize,
}

/// A tag as written by a person (`#a/b`, ` a/b `) → `a/b`; refuses what Obsidian would not read
/// as one tag.
pub fn normalize_tag(raw: &str) -> Result<String, EditError> {
    let tag = raw.trim().trim_start_matches('#');
    let invalid = |reason: &str| EditError::InvalidTarget { target: raw.to_string(), reason: reason.into() };
    if tag.is_empty() {
        return Err(invalid("a tag needs at least one character after #"));
    }
    if let Some(c) = tag.chars().find(|&c| c.is_whitespace() || ",#[]{}\"'`|^:;!?()<>&*=+\\".contains(c)) {
        return Err(invalid(&format!(
            "tags cannot contain {c:?}; use letters, digits, _, - and / (for nesting), e.g. project/alpha"
        )));
    }
    if tag.chars().all(|c| c.is_ascii_digit() || c == '/') {
        return Err(invalid("a tag needs at least one character that is not a digit"));
    }
    Ok(tag.trim_end_matches('/').to_string())
}

fn normalize_all(tags: &[String]) -> Result<Vec<String>, EditError> {
    let mut out: Vec<String> = Vec::new();
    for raw in tags {
        let tag = normalize_tag(raw)?;
        if !out.iter().any(|t| same_tag(t, &tag)) {
            out.push(tag);
        }
    }
    Ok(out)
}

/// The frontmatter keys that hold tags (`tags`, `tag`, any case), in note order.
fn tag_keys(text: &str) -> Vec<String> {
    Frontmatter::parse(text).data.keys().filter(|k| is_tag_key(k)).cloned().collect()
}

/// Adds `tags` the note does not carry yet (frontmatter or inline) to its frontmatter tag list,
/// in the list's own style; a note without one gets a `tags:` block list.
pub fn add_tags(text: &str, tags: &[String]) -> Result<TagEdit, EditError> {
    check_readable(text)?;
    let have = Note::parse(text).tag_names();
    let (unchanged, fresh): (Vec<String>, Vec<String>) =
        normalize_all(tags)?.into_iter().partition(|t| have.iter().any(|h| same_tag(h, t)));
    let mut edit = TagEdit { text: text.to_string(), changed: fresh, unchanged, inline_removed: 0 };
    if !edit.changed.is_empty() {
        let key = tag_keys(text).into_iter().next().unwrap_or_else(|| "tags".into());
        let items: Vec<Value> = edit.changed.iter().map(|t| Value::String(t.clone())).collect();
        edit.text = append_items(text, &key, &items)?;
    }
    Ok(edit)
}

/// Removes `tags` from the frontmatter tag lists and every inline `#tag` of them (exact names,
/// case-insensitive: removing `a` keeps `a/b`). A line left holding nothing but the removed
/// tags goes too.
pub fn remove_tags(text: &str, tags: &[String]) -> Result<TagEdit, EditError> {
    check_readable(text)?;
    let wanted = normalize_all(tags)?;
    let removes = |name: &str| wanted.iter().any(|w| same_tag(w, name));
    let before = tag_uses(&Note::parse(text));
    let mut out = text.to_string();
    for key in tag_keys(text) {
        if let Some(next) = remove_from_key(&out, &key, &removes)? {
            out = next;
        }
    }
    let (out, inline_removed) = remove_inline(&out, &removes);
    let (changed, unchanged) = wanted.into_iter().partition(|w| before.iter().any(|u| same_tag(&u.name, w)));
    Ok(TagEdit { text: out, changed, unchanged, inline_removed })
}

/// Removes the matching items of the tag list under `key`; `None` when none matched.
fn remove_from_key(
    text: &str,
    key: &str,
    removes: &dyn Fn(&str) -> bool,
) -> Result<Option<String>, EditError> {
    let Some(k) = find_key(text, key) else { return Ok(None) };
    let block = &text[k.start..k.end];
    match Frontmatter::parse(text).data.get(key) {
        Some(Value::Array(_)) if k.inline_value.starts_with('[') => {
            let (Some(open), Some(close)) = (block.find('['), flow_end(block)) else { return Ok(None) };
            let items = split_flow(&block[open + 1..close]);
            let kept: Vec<&str> =
                items.iter().map(|i| i.trim()).filter(|i| !i.is_empty() && !removes(&unquote(i))).collect();
            if kept.len() == items.iter().filter(|i| !i.trim().is_empty()).count() {
                return Ok(None);
            }
            let at = k.start + open + 1;
            Ok(Some(format!("{}{}{}", &text[..at], kept.join(", "), &text[k.start + close..])))
        }
        Some(Value::Array(_)) => {
            let mut kept = String::new();
            let mut dropped = false;
            for (i, line) in block.split_inclusive('\n').enumerate() {
                let item = line.trim_start().strip_prefix('-').filter(|_| i > 0);
                if item.is_some_and(|v| removes(&unquote(strip_comment(v)))) {
                    dropped = true;
                } else {
                    kept.push_str(line);
                }
            }
            Ok(dropped.then(|| format!("{}{kept}{}", &text[..k.start], &text[k.end..])))
        }
        Some(Value::String(s)) => {
            let sep = if s.contains(',') { ", " } else { " " };
            let parts: Vec<&str> =
                s.split([',', ' ', '\t']).map(str::trim).filter(|p| !p.is_empty()).collect();
            let kept: Vec<&str> = parts.iter().copied().filter(|p| !removes(p)).collect();
            if kept.len() == parts.len() {
                return Ok(None);
            }
            let value =
                if kept.is_empty() { Value::Array(Vec::new()) } else { Value::String(kept.join(sep)) };
            fm_edit::set(text, key, &value).map(Some)
        }
        _ => Ok(None),
    }
}

/// The byte offset (in `block`) of the `]` closing the first `[`, quotes respected.
fn flow_end(block: &str) -> Option<usize> {
    let open = block.find('[')?;
    let mut quote: Option<char> = None;
    for (i, c) in block[open + 1..].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, ']') => return Some(open + 1 + i),
            _ => {}
        }
    }
    None
}

/// The items of a flow list's inside, split at commas outside quotes.
fn split_flow(inner: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quote) = (0, None::<char>);
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, ',') => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
}

fn strip_comment(value: &str) -> &str {
    let v = value.trim();
    match v.find(" #") {
        Some(i) if !v.starts_with(['"', '\'']) => &v[..i],
        _ => v,
    }
}

/// A YAML scalar item as text: quotes removed (double-quoted escapes read), `#` dropped.
fn unquote(item: &str) -> String {
    let item = item.trim();
    let inner = if item.len() >= 2 && item.starts_with('"') && item.ends_with('"') {
        serde_json::from_str::<String>(item).unwrap_or_else(|_| item[1..item.len() - 1].to_string())
    } else if item.len() >= 2 && item.starts_with('\'') && item.ends_with('\'') {
        item[1..item.len() - 1].replace("''", "'")
    } else {
        item.to_string()
    };
    inner.trim().trim_start_matches('#').to_string()
}

/// Removes the inline tags `removes` wants, with the space before each (or after, at a line's
/// start); a line left blank by it is removed. Returns the text and how many were removed.
fn remove_inline(text: &str, removes: &dyn Fn(&str) -> bool) -> (String, usize) {
    let note = Note::parse(text);
    let spans: Vec<_> =
        note.tags.iter().filter(|t| removes(&t.name)).filter_map(|t| t.span.clone()).collect();
    let mut out = text.to_string();
    for span in spans.iter().rev() {
        let (mut start, mut end) = (span.start, span.end);
        let line_start = out[..start].rfind('\n').map_or(0, |i| i + 1);
        if start > line_start && out[..start].ends_with([' ', '\t']) {
            start -= 1;
        } else if out[end..].starts_with([' ', '\t']) {
            end += 1;
        }
        out.replace_range(start..end, "");
        let line_end = out[line_start..].find('\n').map_or(out.len(), |i| line_start + i + 1);
        if out[line_start..line_end].trim().is_empty() && line_end > line_start {
            let had_end = out[line_start..line_end].ends_with('\n');
            if had_end || line_start == 0 {
                out.replace_range(line_start..line_end, "");
            }
        }
    }
    (out, spans.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOTE: &str = "---\n# keep me\ntitle: 'Odd: quoting'   # and me\ntags: [alpha, \"beta\", '#gamma']\nstatus: draft\n---\nText #alpha and `#alpha` and [x](https://a.b/#alpha).\n#alpha\n```\n#alpha\n```\nEnd #alpha/child.\n";

    fn props(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn properties_change_only_their_keys() {
        let (out, changes) = update_properties(
            NOTE,
            &props(json!({"status": "done", "tags": ["beta", "delta"], "n": 2})),
            false,
        )
        .unwrap();
        let expected = NOTE
            .replace("status: draft\n", "status: done\n\"n\": 2\n")
            .replace("'#gamma']", "'#gamma', delta]");
        assert_eq!(out, expected);
        let actions: Vec<PropertyAction> = changes.iter().map(|c| c.action).collect();
        assert_eq!(actions, [PropertyAction::Set, PropertyAction::Merged, PropertyAction::Added]);
        let (same, changes) = update_properties(NOTE, &props(json!({"status": "draft"})), false).unwrap();
        assert_eq!((same.as_str(), changes[0].action), (NOTE, PropertyAction::Unchanged));
        let (out, _) = update_properties(NOTE, &props(json!({"tags": ["z"], "status": null})), true).unwrap();
        assert!(out.contains("tags:\n  - z\n") && !out.contains("status"), "{out}");
    }

    #[test]
    fn tags_are_added_in_the_notes_style() {
        let edit = add_tags(NOTE, &["#Alpha".into(), "new/tag".into(), "new/tag".into()]).unwrap();
        assert_eq!((edit.changed, edit.unchanged), (vec!["new/tag".to_string()], vec!["Alpha".to_string()]));
        assert_eq!(edit.text, NOTE.replace("'#gamma']", "'#gamma', new/tag]"));
        let spaced = add_tags("---\ntags: a b\n---\n", &["c".into()]).unwrap();
        assert_eq!(spaced.text, "---\ntags: a b c\n---\n");
        let bare = add_tags("\u{feff}Body\r\n", &["x".into()]).unwrap();
        assert_eq!(bare.text, "\u{feff}---\r\ntags:\r\n  - x\r\n---\r\nBody\r\n");
        assert!(add_tags(NOTE, &["two words".into()]).is_err());
        assert!(add_tags(NOTE, &["2024".into()]).is_err());
    }

    #[test]
    fn tags_are_removed_but_never_from_code_or_links() {
        let edit = remove_tags(NOTE, &["alpha".into(), "gamma".into(), "nope".into()]).unwrap();
        assert_eq!(
            edit.text,
            NOTE.replace("[alpha, \"beta\", '#gamma']", "[\"beta\"]")
                .replace("Text #alpha and", "Text and")
                .replacen("\n#alpha\n```", "\n```", 1)
        );
        assert_eq!(edit.inline_removed, 2);
        assert_eq!(edit.unchanged, ["nope"]);
        let block = "---\ntags:\n  - a   # first\n  - \"b\"\nx: 1\n---\n#b text\n";
        assert_eq!(
            remove_tags(block, &["b".into()]).unwrap().text,
            "---\ntags:\n  - a   # first\nx: 1\n---\ntext\n"
        );
        let string = "---\ntags: a, b\n---\n";
        assert_eq!(remove_tags(string, &["a".into()]).unwrap().text, "---\ntags: b\n---\n");
    }
}
