//! The frontmatter most notes have, read without a YAML parser: a flat mapping of keys to
//! strings, whole numbers, nulls and lists of those, as Obsidian and Zotero write it. A full
//! YAML reader pays about 10 µs per block this small (it builds a token stream and an event
//! stream first); the index reads every note's block on start, so this path reads the common
//! shapes directly and gives up (`None`) at the first thing it does not know for certain reads
//! the same way in YAML — the caller then asks the YAML reader. Its answers are tested equal
//! to the YAML reader's (`tests::agrees_with_the_yaml_reader`).
//!
//! Read here: `key: value` lines at the left margin; values that are a plain scalar starting
//! with a letter (not one YAML reads as a boolean or null), a run of digits without a leading
//! zero, a date `YYYY-MM-DD`, a plain scalar starting with a digit that no number can be (a
//! Zotero key `5EVNH2TP`, a DOI, a timestamp), a quoted string without escapes, a flow list
//! `[a, "b"]` of such, nothing (null), or nothing followed by `- item` lines; whole-line comments
//! and blank lines.
//! Anything else — nested mappings, multi-line scalars, anchors, tags, escapes, comments after
//! a value, duplicate keys, tabs — is left to the YAML reader.

use serde_json::{Map, Value};

/// The mapping `yaml` holds, when it is of the shapes read here.
pub(super) fn parse(yaml: &str) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    let mut lines = yaml.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).peekable();
    while let Some(line) = lines.next() {
        if is_blank_or_comment(line) {
            continue;
        }
        let (key, rest) = split_key(line)?;
        if map.contains_key(key) {
            return None;
        }
        let rest = rest.trim_matches(' ');
        let value = if rest.is_empty() {
            block_list(&mut lines)?
        } else if let Some(inner) = rest.strip_prefix('[') {
            flow_list(inner.strip_suffix(']')?)?
        } else {
            scalar(rest)?
        };
        map.insert(key.to_string(), value);
    }
    Some(map)
}

fn is_blank_or_comment(line: &str) -> bool {
    let trimmed = line.trim_start_matches(' ');
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// `key` and what follows `key:` on a line at the left margin.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let (key, rest) = (&line[..colon], &line[colon + 1..]);
    // Zotero's own fields (`$version`, `$itemKey`): a `$` before a word is plain text in YAML.
    let word = key.strip_prefix('$').unwrap_or(key);
    if !(rest.is_empty() || rest.starts_with(' ')) || !is_plain_word(word) || key.ends_with(' ') {
        return None;
    }
    if key.contains([',', '[', ']', '{', '}']) || key.contains(" #") {
        return None;
    }
    Some((key, rest))
}

/// The value after `key:` with nothing on its line: `- item` lines (a list, all at one
/// indent), or null when the next line is another key or the end.
fn block_list<'a>(lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>) -> Option<Value> {
    let mut items = Vec::new();
    let mut indent = None;
    while let Some(&line) = lines.peek() {
        if line.trim_start_matches(' ').is_empty() {
            lines.next();
            continue;
        }
        let body = line.trim_start_matches(' ');
        let at = line.len() - body.len();
        if body.starts_with('#') {
            // A comment line in the list or before the next key: either way, skipped.
            lines.next();
            continue;
        }
        let Some(item) = body.strip_prefix("- ") else {
            // The next key (the list, if any, is over), or a shape not read here.
            return if at == 0 && !body.starts_with('-') {
                Some(if indent.is_none() { Value::Null } else { Value::Array(items) })
            } else {
                None
            };
        };
        if *indent.get_or_insert(at) != at {
            return None;
        }
        let item = item.trim_matches(' ');
        if item.starts_with('[') {
            return None;
        }
        items.push(scalar(item)?);
        lines.next();
    }
    Some(if indent.is_none() { Value::Null } else { Value::Array(items) })
}

/// A one-line flow list: `a, "b c", 'd'` between the brackets.
fn flow_list(inner: &str) -> Option<Value> {
    let mut items = Vec::new();
    let mut rest = inner.trim_matches(' ');
    while !rest.is_empty() {
        let (item, after) = match rest.as_bytes()[0] {
            b'"' | b'\'' => {
                let quote = rest.as_bytes()[0] as char;
                let end = rest[1..].find(quote)? + 2;
                (&rest[..end], rest[end..].trim_start_matches(' '))
            }
            _ => match rest.find(',') {
                Some(comma) => (rest[..comma].trim_end_matches(' '), &rest[comma..]),
                None => (rest.trim_end_matches(' '), ""),
            },
        };
        if item.contains(['[', ']', '{', '}', ':', '#']) && !item.starts_with(['"', '\'']) {
            return None;
        }
        items.push(scalar(item)?);
        rest = match after.strip_prefix(',') {
            Some(next) => {
                let next = next.trim_start_matches(' ');
                // `[a, ]` and `[a,,b]`: left to the YAML reader.
                if next.is_empty() || next.starts_with(',') {
                    return None;
                }
                next
            }
            None if after.is_empty() => after,
            None => return None,
        };
    }
    Some(Value::Array(items))
}

/// One scalar on one line: a quoted string without escapes, or a plain scalar whose type is
/// certain.
fn scalar(text: &str) -> Option<Value> {
    if let Some(inner) = text.strip_prefix('"') {
        let inner = inner.strip_suffix('"')?;
        return (!inner.contains(['"', '\\'])).then(|| Value::String(inner.to_string()));
    }
    if let Some(inner) = text.strip_prefix('\'') {
        let inner = inner.strip_suffix('\'')?;
        return (!inner.contains('\'')).then(|| Value::String(inner.to_string()));
    }
    if text.contains(": ") || text.ends_with(':') || text.contains(" #") {
        return None;
    }
    if is_plain_word(text) {
        return Some(Value::String(text.to_string()));
    }
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return None;
    }
    if bytes.iter().all(u8::is_ascii_digit) && (bytes.len() == 1 || bytes[0] != b'0') && bytes.len() <= 18 {
        return text.parse::<u64>().ok().map(Value::from);
    }
    let is_date = bytes.len() == 10
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 { *b == b'-' } else { b.is_ascii_digit() });
    if is_date {
        return Some(Value::String(text.to_string()));
    }
    // `5EVNH2TP`, `10.1000/xyz`, `2024-04-02T08:41:55Z`: a digit first, then a byte no number
    // of YAML's (decimal, hex, octal, exponent, `.inf`, sign, `_`, `:`) has.
    let number_byte = |b: &u8| b.is_ascii_hexdigit() || b"+-._:xXoOiInNfF".contains(b);
    let is_string = bytes[0].is_ascii_digit()
        && !bytes.iter().all(number_byte)
        && !text.chars().any(|c| c.is_control() || c == '$');
    is_string.then(|| Value::String(text.to_string()))
}

/// Text that YAML reads as the same string when written plain: it starts with a letter, holds
/// no tab, control character or `$` (interpolation in some readers), and is not a word YAML
/// reads as a boolean or null.
fn is_plain_word(text: &str) -> bool {
    text.chars().next().is_some_and(char::is_alphabetic)
        && !text.chars().any(|c| c.is_control() || c == '$')
        && !super::super::yaml::is_bool_or_null_word(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn yaml_reader(yaml: &str) -> Option<Map<String, Value>> {
        match serde_saphyr::from_str::<Value>(yaml) {
            Ok(Value::Object(map)) => Some(map),
            Ok(Value::Null) => Some(Map::new()),
            _ => None,
        }
    }

    fn agree(yaml: &str) -> bool {
        match parse(yaml) {
            Some(fast) => {
                assert_eq!(Some(&fast), yaml_reader(yaml).as_ref(), "differs on {yaml:?}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn reads_the_common_shapes() {
        for yaml in [
            "title: Note 9753\ntags: [学习, übersicht]\naliases: [n9753]\n",
            "category: Annotations\nstatus: Pending\ncitekey: paper8\ntags: review, project/beta\n",
            "tags:\n  - a\n  - 'b c'\n  - \"[[Link]]\"\nup: \"[[Home]]\"\n",
            "tags:\n- a\n- b\nempty:\nyear: 2024\ncreated: 2024-01-15\n# a comment\n\nlast: x\n",
            "zotero-key: 5EVNH2TP\ndoi: 10.48550/arXiv.2403.01234\nimport-date: 2024-04-02T08:41:55.000Z\n",
            "$version: 812\n$libraryID: 1\n$itemKey: 7TQ2M4ZA\n",
            "tags: []\nname: 'quoted: colon'\nurl: https://example.org/a?b=c\r\nlist: [\"a, b\", c]\n",
            "",
            "# only a comment\n",
        ] {
            assert!(agree(yaml), "not read: {yaml:?}");
        }
    }

    #[test]
    fn leaves_everything_else_to_the_yaml_reader() {
        for yaml in [
            "flag: yes\n",
            "flag: Y\n",
            "n: 1\n",
            "x: null\n",
            "x: ~\n",
            "x: 0123\n",
            "x: 1.5\n",
            "x: -3\n",
            "x: 0x1F\n",
            "x: 0b101\n",
            "x: 1_000\n",
            "x: 1e3\n",
            "x: 1:30\n",
            "x: 5EV$X\n",
            "x: .inf\n",
            "x: a # comment\n",
            "x: a: b\n",
            "x: \"esc\\n\"\n",
            "x: &anchor a\n",
            "x: !tag a\n",
            "x: |\n  block\n",
            "x: long\n  continued\n",
            "x:\n  nested: map\n",
            "x:\n  - a\n   - b\n",
            "x:\n  -\n",
            "x: [a, [b]]\n",
            "x: [a, ]\n",
            "x: [a\n",
            "x: a\nx: b\n",
            "- a\n",
            "x:\ta\n",
            "x: ${HOME}\n",
            "${HOME}: a\n",
            "$$x: a\n",
            "\"quoted key\": a\n",
            "key:value\n",
            "  indented: a\n",
            "? complex\n",
        ] {
            assert!(parse(yaml).is_none(), "read here but should not be: {yaml:?}");
        }
    }

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_string()),
            Just("yes".to_string()),
            Just("No".to_string()),
            Just("null".to_string()),
            Just("True".to_string()),
            Just("y".to_string()),
            Just("0".to_string()),
            Just("007".to_string()),
            Just("2024-01-15".to_string()),
            Just("12345".to_string()),
            Just("1e3".to_string()),
            Just("inf".to_string()),
            Just("résumé".to_string()),
            Just("学习".to_string()),
            Just("[[Link]]".to_string()),
            Just("a b".to_string()),
            Just("a, b".to_string()),
            Just("a:b".to_string()),
            Just("a: b".to_string()),
            Just("a #b".to_string()),
            Just("a#b".to_string()),
            Just("'q'".to_string()),
            Just("\"q\"".to_string()),
            Just("\"a, b\"".to_string()),
            Just("'it''s'".to_string()),
            Just("-x".to_string()),
            Just("5EVNH2TP".to_string()),
            Just("10.48550/arXiv.2403.01234".to_string()),
            Just("2024-04-02T08:41:55.000Z".to_string()),
            Just("2024-04-02 08:41".to_string()),
            Just("0x1F".to_string()),
            Just("0o17".to_string()),
            Just("0b101".to_string()),
            Just("1_000".to_string()),
            Just("1:30".to_string()),
            Just("1.5e-3".to_string()),
            Just("12abc".to_string()),
            Just("3 mice".to_string()),
            Just("1$x".to_string()),
            Just("$version".to_string()),
            Just("${x}".to_string()),
            Just("x-".to_string()),
            Just("".to_string()),
            "[a-zA-Zé0-9 :#,'\"\\[\\]{}&*!|>%@`~_.-]{0,12}",
            "[0-9][0-9a-zA-Z.:/_+-]{0,10}",
        ]
    }

    fn line() -> impl Strategy<Value = String> {
        (word(), word(), prop::collection::vec(word(), 0..4), 0..8u8, 0..3usize).prop_map(
            |(key, value, items, shape, indent)| {
                let key = if key.is_empty() { "k".to_string() } else { key };
                let pad = " ".repeat(indent);
                match shape {
                    0 => format!("{key}:\n"),
                    1 => format!("{key}: [{}]\n", items.join(", ")),
                    2 => {
                        let mut s = format!("{key}:\n");
                        for item in &items {
                            s.push_str(&format!("{pad}- {item}\n"));
                        }
                        s
                    }
                    3 => format!("# {value}\n"),
                    4 => format!("{pad}{key}: {value}\n"),
                    _ => format!("{key}: {value}\n"),
                }
            },
        )
    }

    /// Random blocks of the shapes read here and of many that are not (YAML's special words,
    /// numbers, indicators, quotes, comments, indents): every block read here is read the same
    /// by the YAML reader, and a good share of them is read here.
    #[test]
    fn agrees_with_the_yaml_reader() {
        use proptest::strategy::ValueTree as _;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let blocks = prop::collection::vec(line(), 0..6);
        let (mut read, total) = (0, 3_000);
        for _ in 0..total {
            let block = blocks.new_tree(&mut runner).unwrap().current().concat();
            read += usize::from(agree(&block));
        }
        assert!(read * 5 > total, "only {read} of {total} blocks read here");
    }
}
