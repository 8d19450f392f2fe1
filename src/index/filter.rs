//! Frontmatter conditions (`status = done`, `year >= 2020`, `tags contains ml`, `due exists`):
//! what `metadata_search` matches notes with. Lenient the way people write YAML: comparisons
//! ignore case, a number and the same number written as a string are equal, a list matches when
//! one of its items does, and dates in ISO form compare in time order.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a frontmatter value is compared (the tools' JSON Schema shows these descriptions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Equal, ignoring case; a list matches when one item is equal (the default).
    #[default]
    Eq,
    /// Not equal (also true when the key is missing).
    Ne,
    /// A text contains the value, or a list has an item equal to it.
    Contains,
    /// Not [`Op::Contains`].
    NotContains,
    /// A text starts with the value (a list: one item does).
    StartsWith,
    /// The key is present and not null.
    Exists,
    /// The key is missing or null.
    Missing,
    /// Greater than: numbers by value, ISO dates in time order, other texts alphabetically.
    Gt,
    /// Greater than or equal.
    Gte,
    /// Less than.
    Lt,
    /// Less than or equal.
    Lte,
}

/// One condition on a note's frontmatter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    /// The key; looked up exactly, then ignoring case, then as a dotted path (`author.name`).
    pub key: String,
    /// The comparison.
    pub op: Op,
    /// The value compared with (unused by `exists` and `missing`).
    #[serde(default)]
    pub value: Value,
}

impl Condition {
    /// Whether `frontmatter` (a JSON object) meets the condition.
    pub fn matches(&self, frontmatter: &Value) -> bool {
        let field = lookup(frontmatter, &self.key).filter(|v| !v.is_null());
        match self.op {
            Op::Exists => field.is_some(),
            Op::Missing => field.is_none(),
            Op::Ne => !field.is_some_and(|f| any(f, |v| equal(v, &self.value))),
            Op::NotContains => !field.is_some_and(|f| contains(f, &self.value)),
            Op::Eq => field.is_some_and(|f| any(f, |v| equal(v, &self.value))),
            Op::Contains => field.is_some_and(|f| contains(f, &self.value)),
            Op::StartsWith => field.is_some_and(|f| {
                let want = text(&self.value).to_lowercase();
                any(f, |v| text(v).to_lowercase().starts_with(&want))
            }),
            Op::Gt | Op::Gte | Op::Lt | Op::Lte => field.is_some_and(|f| {
                any(f, |v| {
                    compare(v, &self.value).is_some_and(|o| match self.op {
                        Op::Gt => o.is_gt(),
                        Op::Gte => o.is_ge(),
                        Op::Lt => o.is_lt(),
                        _ => o.is_le(),
                    })
                })
            }),
        }
    }
}

fn lookup<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    let map = object.as_object()?;
    if let Some(v) = map.get(key) {
        return Some(v);
    }
    if let Some((_, v)) = map.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
        return Some(v);
    }
    let (head, rest) = key.split_once('.')?;
    lookup(lookup(object, head)?, rest)
}

/// Whether `f` holds for the value, or for one item of a list.
fn any(value: &Value, f: impl Fn(&Value) -> bool) -> bool {
    match value {
        Value::Array(items) => items.iter().any(&f),
        other => f(other),
    }
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.trim().trim_start_matches('#').to_string(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn equal(a: &Value, b: &Value) -> bool {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => text(a).to_lowercase() == text(b).to_lowercase(),
    }
}

fn contains(field: &Value, want: &Value) -> bool {
    match field {
        Value::Array(items) => items.iter().any(|v| equal(v, want)),
        other => text(other).to_lowercase().contains(&text(want).to_lowercase()),
    }
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x.partial_cmp(&y);
    }
    let (x, y) = (text(a), text(b));
    if x.is_empty() || y.is_empty() {
        return None;
    }
    Some(x.to_lowercase().cmp(&y.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(op: Op, key: &str, value: Value) -> bool {
        let fm = json!({"Status": "Done", "year": 2021, "tags": ["ml", "#rag"], "due": "2024-03-05",
            "author": {"name": "Ana"}, "empty": null});
        Condition { key: key.into(), op, value }.matches(&fm)
    }

    #[test]
    fn compares_as_people_write_yaml() {
        assert!(check(Op::Eq, "status", json!("done")));
        assert!(check(Op::Eq, "year", json!("2021")));
        assert!(check(Op::Eq, "tags", json!("rag")));
        assert!(check(Op::Contains, "tags", json!("ML")));
        assert!(!check(Op::Contains, "tags", json!("m")));
        assert!(check(Op::Contains, "status", json!("on")));
        assert!(check(Op::Gte, "year", json!(2020)) && !check(Op::Gt, "year", json!(2021)));
        assert!(check(Op::Lt, "due", json!("2024-04-01")));
        assert!(check(Op::Exists, "author.name", Value::Null));
        assert!(check(Op::Missing, "empty", Value::Null) && check(Op::Missing, "nope", Value::Null));
        assert!(check(Op::Ne, "nope", json!("x")) && !check(Op::Ne, "status", json!("DONE")));
        assert!(check(Op::StartsWith, "author.name", json!("an")));
        assert!(check(Op::NotContains, "tags", json!("stats")));
    }
}
