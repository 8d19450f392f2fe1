//! Writing YAML values the way a person would: plain scalars where YAML reads them back as the
//! same string, double quotes otherwise; lists in block style; anything nested in flow style
//! (JSON is valid YAML flow).

use serde_json::Value;

/// A scalar or flow rendering of `value` for the right-hand side of `key: …` or `- …`.
pub fn inline(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        other => other.to_string(),
    }
}

/// A string as a plain scalar when that reads back as the same string, else double-quoted.
pub fn string(s: &str) -> String {
    if is_plain_safe(s) { s.to_string() } else { quoted(s) }
}

/// A double-quoted YAML string (JSON escaping is valid YAML double-quoted escaping).
pub fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{}\"", s.replace('"', "\\\"")))
}

fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return false };
    if s.trim() != s || s.contains('\n') || s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if s.chars().any(|c| c.is_control()) {
        return false;
    }
    if is_bool_or_null_word(s) {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    // Anything YAML would read as a number stays a string only when quoted.
    let numeric = lower.trim_start_matches(['+', '-']);
    !(numeric.parse::<f64>().is_ok()
        || numeric.starts_with("0x")
        || numeric.starts_with("0o")
        || matches!(numeric, ".inf" | ".nan"))
}

/// Whether YAML readers take `s`, written plain, for a boolean or null (YAML 1.1's words
/// included: the frontmatter reader accepts them, as Obsidian does).
pub(crate) fn is_bool_or_null_word(s: &str) -> bool {
    ["true", "false", "yes", "no", "y", "n", "on", "off", "null", "~"]
        .iter()
        .any(|w| s.eq_ignore_ascii_case(w))
}

/// The lines (without line ends) of `key: value` for a top-level key.
pub fn key_lines(key: &str, value: &Value) -> Vec<String> {
    let key = string(key);
    match value {
        Value::Array(items) if items.is_empty() => vec![format!("{key}: []")],
        Value::Array(items) => {
            let mut lines = vec![format!("{key}:")];
            lines.extend(items.iter().map(|item| format!("  - {}", inline(item))));
            lines
        }
        Value::Object(map) if map.is_empty() => vec![format!("{key}: {{}}")],
        Value::Object(map) => {
            let mut lines = vec![format!("{key}:")];
            lines.extend(map.iter().map(|(k, v)| format!("  {}: {}", string(k), inline(v))));
            lines
        }
        scalar => vec![format!("{key}: {}", inline(scalar))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_through_a_yaml_reader() {
        for s in [
            "plain",
            "a: b",
            "#tag",
            "[[Note]]",
            "true",
            "12",
            "1e3",
            " padded",
            "x #y",
            "line\nbreak",
            "ok: ",
            "café",
            "y",
            "N",
            "",
        ] {
            let yaml = format!("k: {}", string(s));
            let back: Value = serde_saphyr::from_str(&yaml).unwrap();
            assert_eq!(back["k"], json!(s), "{yaml}");
        }
    }

    #[test]
    fn lists_and_maps() {
        assert_eq!(key_lines("tags", &json!(["a", "b c"])), ["tags:", "  - a", "  - b c"]);
        assert_eq!(key_lines("m", &json!({"x": 1})), ["m:", "  x: 1"]);
        assert_eq!(key_lines("n", &json!("y")), ["\"n\": \"y\""]);
        assert_eq!(key_lines("e", &json!([])), ["e: []"]);
    }
}
