//! The one response contract of every tool: structured content is an object with `status` and
//! `success`, lists under a named key, plus a text rendering; answers over the size cap are cut
//! with `truncated: true` and the arguments of the next call.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

/// Answers larger than this (bytes of JSON) are cut (seed 003: "suggested 20KB").
pub const MAX_ANSWER_BYTES: usize = 20 * 1024;

/// A successful answer: `fields` plus `status: "ok"`, `success: true`; `summary` is the first line of
/// the text rendering.
pub fn ok(summary: &str, fields: Value) -> CallToolResult {
    let mut object = match fields {
        Value::Object(map) => map,
        other => {
            let mut map = Map::new();
            map.insert("result".into(), other);
            map
        }
    };
    object.insert("status".into(), json!("ok"));
    object.insert("success".into(), json!(true));
    let value = Value::Object(object);
    let text = format!("{summary}\n{}", serde_json::to_string_pretty(&value).unwrap_or_default());
    let mut result = CallToolResult::structured(value);
    result.content = vec![ContentBlock::text(text)];
    result
}

/// A failed call: `status: "error"`, `success: false`, and a message that says what to do next.
pub fn fail(message: impl Into<String>) -> CallToolResult {
    let message = message.into();
    let value = json!({"status": "error", "success": false, "error": message});
    let mut result = CallToolResult::structured_error(value);
    result.content = vec![ContentBlock::text(message)];
    result
}

/// Keeps the longest prefix of `items` whose JSON fits in `budget` bytes. Returns the kept items and
/// whether some were left out.
pub fn fit<T: serde::Serialize>(items: Vec<T>, budget: usize) -> (Vec<T>, bool) {
    let mut used = 2;
    let mut kept = Vec::new();
    let total = items.len();
    for item in items {
        let size = serde_json::to_string(&item).map_or(0, |s| s.len()) + 1;
        if used + size > budget && !kept.is_empty() {
            break;
        }
        used += size;
        kept.push(item);
    }
    let cut = kept.len() < total;
    (kept, cut)
}

/// Cuts `text` to at most `budget` bytes at a char boundary; returns it and whether it was cut.
pub fn cut_text(text: &str, budget: usize) -> (&str, bool) {
    if text.len() <= budget {
        return (text, false);
    }
    let mut end = budget;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// The part of `text` an answer shows: from `offset` (moved back to a char boundary) at most
/// `budget` bytes. Returns where it starts, the part, and whether text remains after it.
pub fn part_of(text: &str, offset: usize, budget: usize) -> (usize, &str, bool) {
    let mut start = offset.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let (part, truncated) = cut_text(&text[start..], budget);
    (start, part, truncated)
}

/// "1 note matches", "3 notes match": a count with its noun and verb in agreement.
pub fn notes_match(count: usize) -> String {
    if count == 1 { "1 note matches".to_string() } else { format!("{count} notes match") }
}
