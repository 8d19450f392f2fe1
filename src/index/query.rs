//! The query language of the ranked search: words (all required, ranked by BM25), `"exact
//! phrases"`, `*` wildcards inside a word (`retriev*`, `*ization`), `-word` or `-"phrase"` to
//! exclude, and filters: `tag:name` (or `#name`; nested tags match their parent), `path:text`
//! (part of the path), `file:text` (part of the file name), each negated with a leading `-`.
//! A word that holds punctuation (`state-of-the-art`) or a run of Han, Kana or Hangul characters
//! is searched as a phrase.

use super::tokenize::{fold, tokens};

/// A part of a query that matches words of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Clause {
    /// One folded word, possibly with `*` wildcards.
    Word(String),
    /// Folded words that must follow each other.
    Phrase(Vec<String>),
}

impl Clause {
    /// The folded words of the clause.
    pub fn words(&self) -> &[String] {
        match self {
            Clause::Word(w) => std::slice::from_ref(w),
            Clause::Phrase(words) => words,
        }
    }
}

/// A parsed query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// Clauses a note must match (all of them, or any when the search is relaxed).
    pub must: Vec<Clause>,
    /// Clauses a note must not match.
    pub not: Vec<Clause>,
    /// Tags a note must carry (lowercase, without `#`; nested tags match).
    pub tags: Vec<String>,
    /// Tags a note must not carry.
    pub not_tags: Vec<String>,
    /// Texts the path must contain (lowercase).
    pub paths: Vec<String>,
    /// Texts the path must not contain.
    pub not_paths: Vec<String>,
    /// Texts the file name must contain (lowercase).
    pub files: Vec<String>,
    /// Texts the file name must not contain.
    pub not_files: Vec<String>,
}

impl Query {
    /// Parses `text`. Never fails: unbalanced quotes close at the end, empty parts are dropped.
    pub fn parse(text: &str) -> Self {
        let mut query = Query::default();
        for (negated, part) in split(text) {
            query.add(negated, part);
        }
        query
    }

    fn add(&mut self, negated: bool, part: Part) {
        match part {
            Part::Quoted(text) => {
                let words: Vec<String> = tokens(&text).map(|t| fold(t.raw)).collect();
                let clause = match words.len() {
                    0 => return,
                    1 => Clause::Word(words.into_iter().next().unwrap_or_default()),
                    _ => Clause::Phrase(words),
                };
                self.clause(negated, clause);
            }
            Part::Filter(key, value) => {
                let value = value.trim().to_lowercase();
                if value.is_empty() {
                    return;
                }
                let list = match (key, negated) {
                    (Filter::Tag, false) => &mut self.tags,
                    (Filter::Tag, true) => &mut self.not_tags,
                    (Filter::Path, false) => &mut self.paths,
                    (Filter::Path, true) => &mut self.not_paths,
                    (Filter::File, false) => &mut self.files,
                    (Filter::File, true) => &mut self.not_files,
                };
                let value =
                    if key == Filter::Tag { value.trim_start_matches('#').to_string() } else { value };
                list.push(value);
            }
            Part::Bare(text) => {
                if let Some(clause) = bare_clause(&text) {
                    self.clause(negated, clause);
                }
            }
        }
    }

    fn clause(&mut self, negated: bool, clause: Clause) {
        if negated { self.not.push(clause) } else { self.must.push(clause) }
    }

    /// Whether the query has words or phrases to rank by (else it only filters).
    pub fn has_terms(&self) -> bool {
        !self.must.is_empty()
    }

    /// Whether the query asks for nothing at all.
    pub fn is_empty(&self) -> bool {
        *self == Query::default()
    }

    /// Whether the tags of a note (lowercase) pass the tag filters.
    pub fn tags_match(&self, tags: &[String]) -> bool {
        let has = |want: &String| {
            tags.iter()
                .any(|t| t == want || (t.starts_with(want.as_str()) && t[want.len()..].starts_with('/')))
        };
        self.tags.iter().all(has) && !self.not_tags.iter().any(has)
    }

    /// Whether a vault path passes the `path:` and `file:` filters.
    pub fn path_matches(&self, path: &str) -> bool {
        if self.paths.is_empty()
            && self.not_paths.is_empty()
            && self.files.is_empty()
            && self.not_files.is_empty()
        {
            return true;
        }
        if !self.paths.iter().all(|p| contains_ci(path, p))
            || self.not_paths.iter().any(|p| contains_ci(path, p))
        {
            return false;
        }
        if self.files.is_empty() && self.not_files.is_empty() {
            return true;
        }
        let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
        self.files.iter().all(|f| contains_ci(name, f))
            && !self.not_files.iter().any(|f| contains_ci(name, f))
    }
}

/// Whether `text` contains `lower` (already lowercase), ignoring case; without allocating when
/// both are ASCII.
fn contains_ci(text: &str, lower: &str) -> bool {
    if lower.is_ascii() && text.is_ascii() {
        let (t, l) = (text.as_bytes(), lower.as_bytes());
        let Some((&first, rest)) = l.split_first() else { return true };
        return t.len() >= l.len()
            && (0..=t.len() - l.len()).any(|i| {
                t[i].to_ascii_lowercase() == first && t[i + 1..i + l.len()].eq_ignore_ascii_case(rest)
            });
    }
    text.to_lowercase().contains(lower)
}

/// A bare word of the query: one word (wildcards kept), or a phrase when it splits into several.
fn bare_clause(text: &str) -> Option<Clause> {
    if text.contains('*') {
        // Wildcards apply inside one word: keep letters, digits and `*`.
        let pattern: String = text
            .split('*')
            .map(|piece| tokens(piece).map(|t| fold(t.raw)).collect::<String>())
            .collect::<Vec<_>>()
            .join("*");
        let mut collapsed = String::new();
        for c in pattern.chars() {
            if !(c == '*' && collapsed.ends_with('*')) {
                collapsed.push(c);
            }
        }
        return (!collapsed.is_empty()).then_some(Clause::Word(collapsed));
    }
    let words: Vec<String> = tokens(text).map(|t| fold(t.raw)).collect();
    match words.len() {
        0 => None,
        1 => words.into_iter().next().map(Clause::Word),
        _ => Some(Clause::Phrase(words)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filter {
    Tag,
    Path,
    File,
}

#[derive(Debug, PartialEq, Eq)]
enum Part {
    Quoted(String),
    Filter(Filter, String),
    Bare(String),
}

/// Splits a query into parts, each with whether it was negated by a leading `-`.
fn split(text: &str) -> Vec<(bool, Part)> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        let negated = first == '-' && {
            chars.next();
            chars.peek().is_some_and(|c| !c.is_whitespace())
        };
        if chars.next_if_eq(&'"').is_some() {
            out.push((negated, Part::Quoted(quoted(&mut chars))));
            continue;
        }
        let mut word = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
            word.push(c);
            // `path:"a b"`: a quoted filter value.
            if c == ':' && chars.peek() == Some(&'"') && filter_of(&word[..word.len() - 1]).is_some() {
                chars.next();
                word.push_str(&quoted(&mut chars));
                break;
            }
        }
        let part = if let Some(tag) = word.strip_prefix('#').filter(|t| !t.is_empty()) {
            Part::Filter(Filter::Tag, tag.to_string())
        } else if let Some((key, value)) = word.split_once(':')
            && let Some(filter) = filter_of(key)
        {
            Part::Filter(filter, value.to_string())
        } else {
            Part::Bare(word)
        };
        out.push((negated, part));
    }
    out
}

fn quoted(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut text = String::new();
    for c in chars.by_ref() {
        if c == '"' {
            break;
        }
        text.push(c);
    }
    text
}

fn filter_of(key: &str) -> Option<Filter> {
    match key.to_ascii_lowercase().as_str() {
        "tag" => Some(Filter::Tag),
        "path" => Some(Filter::Path),
        "file" => Some(Filter::File),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(w: &str) -> Clause {
        Clause::Word(w.into())
    }

    fn phrase(words: &[&str]) -> Clause {
        Clause::Phrase(words.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn parses_words_phrases_exclusions_and_filters() {
        let q =
            Query::parse(r#"Retrieval "knowledge graph" -draft -"old idea" tag:#ML path:Projects -file:log"#);
        assert_eq!(q.must, [word("retrieval"), phrase(&["knowledge", "graph"])]);
        assert_eq!(q.not, [word("draft"), phrase(&["old", "idea"])]);
        assert_eq!(q.tags, ["ml"]);
        assert_eq!(q.paths, ["projects"]);
        assert_eq!(q.not_files, ["log"]);
    }

    #[test]
    fn punctuation_and_cjk_make_phrases_and_wildcards_stay_in_words() {
        let q = Query::parse("state-of-the-art 知识 Retriev* *IZATION a**b");
        assert_eq!(
            q.must,
            [
                phrase(&["state", "of", "the", "art"]),
                phrase(&["知", "识"]),
                word("retriev*"),
                word("*ization"),
                word("a*b")
            ]
        );
    }

    #[test]
    fn odd_input_never_fails() {
        assert!(Query::parse("").is_empty());
        assert!(Query::parse(" - \"  ").is_empty());
        let q = Query::parse("\"unclosed phrase");
        assert_eq!(q.must, [phrase(&["unclosed", "phrase"])]);
        let q = Query::parse(r#"path:"My Folder/sub" #project/alpha"#);
        assert_eq!(q.paths, ["my folder/sub"]);
        assert_eq!(q.tags, ["project/alpha"]);
        assert!(q.tags_match(&["project/alpha/x".into()]));
        assert!(!q.tags_match(&["project/alphabet".into()]));
        assert!(q.path_matches("My Folder/sub/Note.md"));
        // An unknown key is a word.
        assert_eq!(Query::parse("foo:bar").must, [phrase(&["foo", "bar"])]);
    }
}
