//! Zotero Integration's note path (`outputPathTemplate`, e.g. `References/@{{citekey}}.md`) turned
//! into a matcher: which notes it could have written, and the citekey their path names.
//!
//! `{{citekey}}` (with or without filters: `{{citekey | lower}}`) captures the citekey; any other
//! placeholder (`{{title}}`, `{{date | format("YYYY")}}`) matches any part of a name. A
//! placeholder never spans a `/`, and literal text is compared ignoring ASCII case.

use unicode_normalization::UnicodeNormalization;

/// One export format's note path, ready to match vault paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotePattern {
    /// The pattern as written in the settings.
    pub source: String,
    /// One entry per path segment.
    segments: Vec<Vec<Part>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Citekey,
    Any,
}

impl NotePattern {
    /// Reads an `outputPathTemplate`: a leading `/` is dropped and `.md` added when missing, as
    /// Zotero Integration does. Nunjucks tags (`{% if %}`) cannot be matched: an error says so.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let source = raw.trim().to_string();
        if source.is_empty() {
            return Err("an export format's note path is empty".into());
        }
        if source.contains("{%") {
            return Err(format!(
                "the note path {source:?} holds Nunjucks tags ({{% … %}}); notes are matched by plain paths with {{{{…}}}} placeholders only"
            ));
        }
        let mut path: String = source.trim_start_matches('/').nfc().collect();
        if !path.to_ascii_lowercase().ends_with(".md") {
            path.push_str(".md");
        }
        let segments = path.split('/').map(parts).collect::<Result<Vec<_>, _>>()?;
        if segments.iter().any(Vec::is_empty) {
            return Err(format!("the note path {source:?} has an empty folder name"));
        }
        Ok(Self { source, segments })
    }

    /// Whether the pattern names something beyond placeholders and `.md` (a folder, an `@`): a
    /// bare `{{citekey}}.md` matches every note at the top of the vault, so alone it proves little.
    pub fn is_specific(&self) -> bool {
        self.segments.len() > 1
            || self.segments[0].iter().any(|p| match p {
                Part::Literal(l) => !l.eq_ignore_ascii_case(".md"),
                _ => false,
            })
    }

    /// Whether `path` (vault-relative, NFC) is one this pattern writes. `Some(citekey)` when it
    /// matches: the text in the file name's `{{citekey}}` place (else the last folder's), or an
    /// empty string when the pattern has no `{{citekey}}`.
    pub fn matches(&self, path: &str) -> Option<String> {
        let names: Vec<&str> = path.split('/').collect();
        if names.len() != self.segments.len() {
            return None;
        }
        let mut key = None;
        for (name, parts) in names.iter().zip(&self.segments) {
            let mut captured = None;
            if !match_parts(name, parts, &mut captured) {
                return None;
            }
            key = captured.or(key);
        }
        Some(key.unwrap_or_default().to_string())
    }
}

/// Splits one path segment into literal text and placeholders.
fn parts(segment: &str) -> Result<Vec<Part>, String> {
    let mut out = Vec::new();
    let mut rest = segment;
    while !rest.is_empty() {
        let Some(open) = rest.find("{{") else {
            out.push(Part::Literal(rest.to_string()));
            break;
        };
        if open > 0 {
            out.push(Part::Literal(rest[..open].to_string()));
        }
        let close = rest[open..].find("}}").ok_or_else(|| format!("an unclosed {{{{ in {segment:?}"))?;
        let inner = rest[open + 2..open + close].trim();
        let name = inner.split(['|', ' ', '.', '(']).next().unwrap_or("");
        let part = if name.eq_ignore_ascii_case("citekey") { Part::Citekey } else { Part::Any };
        // Two placeholders side by side cannot be told apart; the second adds nothing.
        if !matches!((out.last(), &part), (Some(Part::Any), Part::Any)) {
            out.push(part);
        }
        rest = &rest[open + close + 2..];
    }
    Ok(out)
}

/// Matches `name` against `parts`; a placeholder takes as little as lets the rest match.
fn match_parts<'a>(name: &'a str, parts: &[Part], captured: &mut Option<&'a str>) -> bool {
    let Some((first, rest)) = parts.split_first() else { return name.is_empty() };
    match first {
        Part::Literal(lit) => {
            let n = lit.len();
            name.len() >= n
                && name.is_char_boundary(n)
                && name[..n].eq_ignore_ascii_case(lit)
                && match_parts(&name[n..], rest, captured)
        }
        Part::Citekey | Part::Any => {
            if name.is_empty() {
                return false;
            }
            for (end, _) in name.char_indices().skip(1).chain([(name.len(), ' ')]) {
                if match_parts(&name[end..], rest, captured) {
                    if *first == Part::Citekey {
                        *captured = Some(&name[..end]);
                    }
                    return true;
                }
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(pattern: &str, path: &str) -> Option<String> {
        NotePattern::parse(pattern).unwrap().matches(path)
    }

    #[test]
    fn the_citekey_place_captures_the_key() {
        assert_eq!(
            key("References/@{{citekey}}.md", "References/@smith2020.md").as_deref(),
            Some("smith2020")
        );
        assert_eq!(
            key("/Sources/{{citekey}}", "sources/Weber.etal2009.md").as_deref(),
            Some("Weber.etal2009")
        );
        assert_eq!(key("Z/{{citekey}}/{{citekey}}.md", "Z/a/b.md").as_deref(), Some("b"));
        assert_eq!(
            key("Lit/{{citekey | lower}} - {{title}}.md", "Lit/smith2020 - A - B.md").as_deref(),
            Some("smith2020")
        );
        assert_eq!(key("{{date | format(\"YYYY\")}}/{{citekey}}.md", "2024/x.md").as_deref(), Some("x"));
        assert_eq!(key("temp/cat_template.md", "temp/cat_template.md").as_deref(), Some(""));
    }

    #[test]
    fn other_paths_do_not_match() {
        assert_eq!(key("References/@{{citekey}}.md", "References/smith2020.md"), None);
        assert_eq!(key("References/@{{citekey}}.md", "References/Deep/@smith2020.md"), None);
        assert_eq!(key("References/@{{citekey}}.md", "References/@.md"), None);
        assert_eq!(key("{{citekey}}.md", "Notes/a.md"), None);
        assert_eq!(key("_zotero/{{citekey}}.md", "_zotero/a.png"), None);
    }

    #[test]
    fn bare_patterns_are_not_specific_and_tags_are_refused() {
        assert!(!NotePattern::parse("{{citekey}}.md").unwrap().is_specific());
        assert!(NotePattern::parse("@{{citekey}}.md").unwrap().is_specific());
        assert!(NotePattern::parse("Sources/{{citekey}}.md").unwrap().is_specific());
        assert!(NotePattern::parse("{% if x %}a{% endif %}.md").unwrap_err().contains("Nunjucks"));
        assert!(NotePattern::parse("a/{{citekey.md").unwrap_err().contains("unclosed"));
        assert!(NotePattern::parse("a//{{citekey}}.md").unwrap_err().contains("empty folder"));
    }
}
