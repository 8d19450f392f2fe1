//! The one answer path of every tool. The response contract: structured content is an object with
//! `status` and `success`, plus a text rendering; a failure says what to do next ([`fail`], and
//! [`attempt!`] for a core error). No answer passes the 20 KB cap: a list pages ([`page`]: from
//! `offset`, at most `limit` items, as many as fit, with the true `total` and, while items remain,
//! `truncated` and `next`, the arguments of the call that continues exactly where this one
//! stopped); a text comes in parts ([`part_of`]); what a write reports is capped ([`fit`],
//! [`cut_text`]) with `truncated: true`. A tool declares the shape of its answers ([`schema`]).

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// Answers larger than this (bytes of JSON) are cut (seed 003: "suggested 20KB").
pub const MAX_ANSWER_BYTES: usize = 20 * 1024;

/// Room kept beside a page's items for what goes around them: `total`, `offset`, `truncated`,
/// the hint, `status` and the index's state.
const AROUND_ITEMS: usize = 1024;

/// The answer of a tool.
pub type Answer = Result<CallToolResult, rmcp::ErrorData>;

/// Turns an error into the failed answer (`fail(error.to_string())`, as the function returns it);
/// `Ok` passes through.
macro_rules! attempt {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Ok($crate::mcp::reply::fail(e.to_string()).into()),
        }
    };
}
pub(super) use attempt;

/// `fields` as an object with `status: "ok"` and `success: true`.
fn succeeded(fields: Value) -> Map<String, Value> {
    let mut object = match fields {
        Value::Object(map) => map,
        other => Map::from_iter([("result".to_string(), other)]),
    };
    object.insert("status".into(), json!("ok"));
    object.insert("success".into(), json!(true));
    object
}

/// A successful answer: `fields` plus `status: "ok"`, `success: true`, as structured content
/// and, for clients that read only text, as the same JSON, compact (seed 003, token efficiency).
pub fn ok(fields: Value) -> CallToolResult {
    let value = Value::Object(succeeded(fields));
    let text = serde_json::to_string(&value).unwrap_or_default();
    let mut result = CallToolResult::structured(value);
    result.content = vec![ContentBlock::text(text)];
    result
}

/// A successful answer that carries a note's text under `content`: structured content as
/// [`ok`]; the text rendering is the Markdown itself, then one line of compact JSON with every
/// other field, so nothing is sent three times and nothing is left out.
pub fn ok_content(fields: Value) -> CallToolResult {
    let mut object = succeeded(fields);
    let content = object.remove("content");
    let mut text = match &content {
        Some(Value::String(markdown)) => markdown.clone(),
        _ => String::new(),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text += &serde_json::to_string(&object).unwrap_or_default();
    if let Some(content) = content {
        object.insert("content".into(), content);
    }
    let mut result = CallToolResult::structured(Value::Object(object));
    result.content = vec![ContentBlock::text(text)];
    result
}

/// Adds the fields of the object `more` to the object `value`.
pub fn merge(value: &mut Value, more: Value) {
    if let (Value::Object(into), Value::Object(from)) = (value, more) {
        into.extend(from);
    }
}

/// A failed call: `status: "error"`, `success: false`, and a message that says what to do next.
pub fn fail(message: impl Into<String>) -> CallToolResult {
    let message = message.into();
    let value = json!({"status": "error", "success": false, "error": message});
    let mut result = CallToolResult::structured_error(value);
    result.content = vec![ContentBlock::text(message)];
    result
}

/// The `outputSchema` of a tool whose answers have the fields of `T` (an `Option` field may be
/// left out): with `status: "ok"` and `success: true` as [`ok`] and [`ok_content`] add them, or
/// the failure [`fail`] answers (clients such as the TypeScript SDK check a failure's structured
/// content against the schema too). Every in-process test checks the answers against it, with
/// no field left undeclared.
pub fn schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut answer = (*rmcp::handler::server::tool::schema_for_type::<T>()).clone();
    answer.values_mut().for_each(drop_number_formats);
    let (dialect, defs) = (answer.remove("$schema"), answer.remove("$defs"));
    answer.remove("title");
    answer.remove("description");
    if let Some(Value::Object(fields)) = answer.get_mut("properties") {
        fields.insert("status".into(), json!({"const": "ok"}));
        fields.insert("success".into(), json!({"const": true}));
    }
    match answer.get_mut("required") {
        Some(Value::Array(required)) => required.extend([json!("status"), json!("success")]),
        _ => {
            answer.insert("required".into(), json!(["status", "success"]));
        }
    }
    let failure = json!({
        "type": "object",
        "properties": {"status": {"const": "error"}, "success": {"const": false}, "error": {"type": "string"}},
        "required": ["status", "success", "error"],
    });
    let mut schema = JsonObject::new();
    if let Some(dialect) = dialect {
        schema.insert("$schema".into(), dialect);
    }
    schema.insert("type".into(), json!("object"));
    schema.insert("oneOf".into(), json!([answer, failure]));
    if let Some(defs) = defs {
        schema.insert("$defs".into(), defs);
    }
    Arc::new(schema)
}

/// `schema` without schemars' formats of Rust's number types (`uint`, `int64`, `double`, ...):
/// they are no JSON Schema format, and validators such as the TypeScript SDK's warn of each one
/// (`minimum: 0` still says a count is not negative).
fn drop_number_formats(schema: &mut Value) {
    const NUMBER_FORMATS: [&str; 12] = [
        "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint", "float",
        "double",
    ];
    match schema {
        Value::Object(map) => {
            if map.get("format").and_then(Value::as_str).is_some_and(|f| NUMBER_FORMATS.contains(&f)) {
                map.remove("format");
            }
            map.values_mut().for_each(drop_number_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_number_formats),
        _ => {}
    }
}

/// What a paged answer says beside its page of items ([`page`]).
#[derive(Debug, JsonSchema)]
#[allow(dead_code)] // declared for output schemas; the answer is built as JSON
pub struct Paged {
    /// How many items the whole list holds.
    pub total: usize,
    /// Where this page starts in the list.
    pub offset: usize,
    /// Present (true) while items remain after this page.
    pub truncated: Option<bool>,
    /// The arguments of the call that continues where this page stopped.
    pub next: Option<Value>,
    /// Why the page stopped and how to go on.
    pub hint: Option<String>,
}

/// Which part of a list an answer shows: from `offset`, at most `limit` items.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// Items skipped (the `offset` argument).
    pub offset: usize,
    /// Most items to show.
    pub limit: usize,
    /// Whether the call gave the limit (else it is the tool's default).
    pub asked: bool,
}

impl Window {
    /// From `offset`, at most `limit` items: `default` when not given, never more than `max`.
    pub fn new(offset: usize, limit: Option<usize>, default: usize, max: usize) -> Self {
        Self { offset, limit: limit.unwrap_or(default).clamp(1, max), asked: limit.is_some() }
    }
}

/// Bytes of `value` as compact JSON.
pub fn size_of(value: &impl Serialize) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// Bytes left for a page's items in an answer made of `fields`, the items and `next`.
pub fn room(fields: &Value, next: &Value) -> usize {
    MAX_ANSWER_BYTES.saturating_sub(size_of(fields) + size_of(next) + AROUND_ITEMS)
}

/// `fields` with one page of a list under `key`: `items` (the list from `window.offset` on), of
/// which at most `window.limit` and as many as fit the cap, always at least one; `total` (the
/// length of the whole list) and `offset`. While items remain: `truncated: true`, `next` (the
/// arguments `next` of the call that continues, with the offset and limit set) and a hint saying
/// whether the limit or the cap ended the page.
pub fn page<T: Serialize>(
    mut fields: Value,
    key: &str,
    items: impl IntoIterator<Item = T>,
    total: usize,
    window: Window,
    mut next: Value,
) -> Value {
    let budget = room(&fields, &next);
    let (mut shown, mut used, mut full) = (Vec::new(), 2, false);
    for item in items {
        if shown.len() == window.limit {
            break;
        }
        let item = serde_json::to_value(item).unwrap_or(Value::Null);
        let size = size_of(&item) + 1;
        if used + size > budget && !shown.is_empty() {
            full = true;
            break;
        }
        used += size;
        shown.push(item);
    }
    let count = shown.len();
    let end = window.offset + count;
    fields[key] = Value::Array(shown);
    fields["total"] = json!(total);
    fields["offset"] = json!(window.offset);
    if end < total {
        next["offset"] = json!(end);
        if window.asked {
            next["limit"] = json!(window.limit);
        }
        fields["truncated"] = json!(true);
        fields["next"] = next;
        let why = match (full, window.asked) {
            (true, true) => format!("{count} of the {} asked for fit in one answer (20 KB)", window.limit),
            (true, false) => format!("{count} fit in one answer (20 KB)"),
            (false, _) => format!("{count} shown"),
        };
        fields["hint"] = json!(format!(
            "{why}, from offset {} of {total}; call again with the arguments in `next` for the rest",
            window.offset
        ));
    }
    fields
}

/// Keeps the longest prefix of `items` whose JSON fits in `budget` bytes (for what an answer
/// reports beside its result, which cannot page: the links a delete breaks). Returns the kept items and
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Follows `next` through a list of `items` from offset 0; returns each page's items.
    fn pages(items: &[Value], limit: Option<usize>) -> Vec<Vec<Value>> {
        let mut out = Vec::new();
        let mut offset = 0;
        loop {
            let window = Window::new(offset, limit, 50, 500);
            let answer =
                page(json!({"query": "q"}), "items", items[offset..].iter(), items.len(), window, json!({}));
            assert!(size_of(&answer) <= MAX_ANSWER_BYTES, "{} bytes", size_of(&answer));
            assert_eq!(answer["total"], items.len());
            out.push(answer["items"].as_array().unwrap().clone());
            match answer.get("next") {
                Some(next) => {
                    assert_eq!(answer["truncated"], true);
                    assert_eq!(next["limit"], limit.map_or(Value::Null, |l| json!(l)));
                    offset = next["offset"].as_u64().unwrap() as usize;
                }
                None => return out,
            }
        }
    }

    #[test]
    fn paging_through_gives_every_item_once_whatever_ends_the_pages() {
        let items: Vec<Value> = (0..700).map(|i| json!({"id": i, "text": "x".repeat(i * 7 % 400)})).collect();
        for limit in [None, Some(1), Some(7), Some(500)] {
            let pages = pages(&items, limit);
            let all: Vec<Value> = pages.iter().flatten().cloned().collect();
            assert_eq!(all, items, "limit {limit:?}");
            assert!(pages.iter().all(|p| p.len() <= limit.unwrap_or(50)));
        }
        // Cut by the cap, not the limit: fewer than asked, and the hint says why.
        let answer =
            page(json!({}), "items", &items, items.len(), Window::new(0, Some(500), 50, 500), json!({}));
        let shown = answer["items"].as_array().unwrap().len();
        assert!(shown < 500 && answer["next"]["offset"] == shown, "{shown}");
        let hint = answer["hint"].as_str().unwrap();
        assert!(hint.starts_with(&format!("{shown} of the 500 asked for fit in one answer")), "{hint}");
    }

    #[test]
    fn an_item_larger_than_the_cap_still_moves_the_page_on() {
        let items = vec![json!("y".repeat(MAX_ANSWER_BYTES)), json!("small")];
        let first = page(json!({}), "items", &items, 2, Window::new(0, None, 10, 10), json!({}));
        assert_eq!((first["items"].as_array().unwrap().len(), &first["next"]["offset"]), (1, &json!(1)));
        let last = page(json!({}), "items", &items[1..], 2, Window::new(1, None, 10, 10), json!({}));
        assert_eq!(last["items"], json!(["small"]));
        assert!(last.get("next").is_none() && last.get("truncated").is_none());
    }
}
