//! Words as the synthesis compares them: theme keys and salient terms.
//!
//! "Methods", "Method." and "2. Methods" are one theme: a key is the heading's words lowercased,
//! punctuation and numbering removed, stop words dropped and each word reduced by a small English
//! stemmer (plurals, `-ing`, `-ed`). The same words, without stop words, are the salient terms
//! that relate annotations across sources.

use unicode_normalization::UnicodeNormalization;

/// Common English words that say nothing about a topic, modal and change words (`possible`,
/// `becomes`) among them (sorted, for binary search).
const STOP_WORDS: &[&str] = &[
    "a", "able", "about", "above", "after", "again", "against", "all", "already", "also", "always", "am",
    "an", "and", "any", "are", "as", "at", "be", "became", "because", "become", "becomes", "becoming",
    "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does",
    "doing", "down", "during", "each", "either", "etc", "even", "few", "for", "from", "further", "get",
    "gets", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
    "however", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "made", "make", "makes", "many",
    "may", "me", "might", "more", "most", "much", "must", "my", "no", "nor", "not", "now", "of", "off",
    "often", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over", "own", "possible",
    "possibly", "quite", "rather", "really", "same", "she", "should", "so", "some", "still", "such", "than",
    "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through",
    "thus", "to", "too", "under", "until", "up", "upon", "us", "very", "via", "was", "we", "well", "were",
    "what", "when", "where", "whether", "which", "while", "who", "whom", "why", "will", "with", "within",
    "without", "would", "yet", "you", "your",
];

/// The words of `text`: NFKC, lowercased, apostrophes dropped, split on everything that is not a
/// letter or digit.
fn words(text: &str) -> Vec<String> {
    let lowered: String =
        text.nfkc().flat_map(char::to_lowercase).filter(|c| !matches!(c, '\'' | '’')).collect();
    lowered.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Words that come from the export's markup, links and paths, from colour names or from the
/// comment prefixes, never from the reader's topic (sorted, for binary search).
const DEBRIS: &[&str] = &[
    "blue",
    "callout",
    "cite",
    "color",
    "colour",
    "com",
    "file",
    "gray",
    "green",
    "grey",
    "highlight",
    "html",
    "http",
    "https",
    "image",
    "imported",
    "item",
    "items",
    "jpg",
    "library",
    "magenta",
    "mark",
    "note",
    "open",
    "orange",
    "page",
    "pdf",
    "png",
    "purple",
    "quote",
    "red",
    "select",
    "span",
    "style",
    "www",
    "yellow",
    "zotero",
];

/// Whether `word` (lowercase) is markup, path or citation debris rather than content: a word in
/// [`DEBRIS`], anything holding a digit (pages, years, hexes such as `ffd400`, citekeys), or a
/// bare hex colour.
fn is_debris(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        || (word.len() == 6 && word.chars().all(|c| c.is_ascii_hexdigit()))
        || DEBRIS.binary_search(&word).is_ok()
        || DEBRIS.binary_search(&stem(word).as_str()).is_ok()
}

/// Section names every paper has (after [`theme_key`]): they never name a synthesis and never
/// make two sources share a theme on their own.
const GENERIC_SECTIONS: &[&str] = &[
    "abstract",
    "acknowledgement",
    "acknowledgment",
    "appendix",
    "background",
    "conclusion",
    "discussion",
    "evaluation",
    "experiment",
    "experimental setup",
    "finding",
    "future work",
    "introduction",
    "limitation",
    "literature review",
    "material and method",
    "method",
    "methodology",
    "motivation",
    "overview",
    "preliminary",
    "reference",
    "related work",
    "result",
    "result and discussion",
    "setup",
    "study design",
    "summary",
];

/// Whether a theme key names a section every paper has ("Methods", "2. Results and Discussion",
/// "Limitations of this study" is not generic: it says more).
pub(crate) fn is_generic(key: &str) -> bool {
    let stems: Vec<String> = GENERIC_SECTIONS.iter().map(|g| theme_key(g)).collect();
    stems.iter().any(|g| g == key)
}

/// Labels that say what kind of remark a comment is, not what it is about (after
/// [`theme_key`]): a comment starting `Question:` or `Figure 2:` names no theme. Seed 001's
/// prefixes are among them: they are meanings, not themes.
const REMARK_LABELS: &[&str] = &[
    "a",
    "agree",
    "answer",
    "argument",
    "assumption",
    "cf",
    "claim",
    "code",
    "comment",
    "concern",
    "connection",
    "core",
    "critique",
    "criticism",
    "data",
    "definition",
    "detail",
    "disagree",
    "e g",
    "eg",
    "equation",
    "evidence",
    "example",
    "figure",
    "finding",
    "gap",
    "hypothesis",
    "i e",
    "idea",
    "ie",
    "important",
    "insight",
    "interesting",
    "issue",
    "key point",
    "limitation",
    "main idea",
    "me",
    "method",
    "nb",
    "note",
    "page",
    "point",
    "premise",
    "problem",
    "ps",
    "q",
    "question",
    "quote",
    "ref",
    "relevant",
    "remark",
    "see",
    "see also",
    "source",
    "stat",
    "summary",
    "table",
    "takeaway",
    "term",
    "thesis",
    "thought",
    "tldr",
    "todo",
    "translation",
    "unclear",
    "weakness",
    "why",
];

/// The user's own label that opens a comment (`Retrieval: the index is rebuilt …` gives
/// `Retrieval`): one to four words before a colon and a space, more text after it. `None` for a
/// label that only says what kind of remark it is ([`REMARK_LABELS`]), a generic section name
/// ([`is_generic`]), or anything else (a sentence, a link, a time).
pub(crate) fn comment_label(comment: &str) -> Option<&str> {
    let comment = comment.trim_start().trim_start_matches(['*', '_']);
    let (label, rest) = comment.split_once(':')?;
    let label = label.trim_end_matches(['*', '_']).trim();
    let rest = rest.trim_start_matches(['*', '_']);
    let words = label.split_whitespace().count();
    let well_formed = (1..=4).contains(&words)
        && label.chars().count() <= 40
        && label.chars().next().is_some_and(char::is_alphabetic)
        && label.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '&' | '/'))
        && rest.starts_with(char::is_whitespace)
        && !rest.trim().is_empty();
    if !well_formed {
        return None;
    }
    let key = theme_key(label);
    let remark = REMARK_LABELS.iter().any(|r| theme_key(r) == key);
    (!key.is_empty() && !remark && !is_generic(&key)).then_some(label)
}

/// A light English stemmer: plural and `-ing`/`-ed` endings, so "methods"/"method" and
/// "sampling"/"samples"/"sample" meet. Never shortens a word below three letters.
pub(crate) fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    let chars = w.chars().count();
    if chars <= 3 || !w.chars().all(char::is_alphabetic) {
        return w;
    }
    let strip = |suffix: &str, add: &str| -> Option<String> {
        let base = w.strip_suffix(suffix)?;
        (base.chars().count() >= 3).then(|| format!("{base}{add}"))
    };
    let plural = if w.ends_with("ss") || w.ends_with("us") || w.ends_with("is") {
        None
    } else if w.ends_with("ies") {
        strip("ies", "y")
    } else if ["sses", "xes", "ches", "shes", "zes"].iter().any(|s| w.ends_with(s)) {
        strip("es", "")
    } else {
        strip("s", "")
    };
    let w = plural.unwrap_or(w);
    let w = strip_verbal(&w).unwrap_or(w);
    match w.strip_suffix('e') {
        Some(base) if base.chars().count() >= 3 => base.to_string(),
        _ => w,
    }
}

/// `-ing` and `-ed` off, with a doubled final consonant undone ("planned" → "plan").
fn strip_verbal(w: &str) -> Option<String> {
    let base = w.strip_suffix("ing").or_else(|| w.strip_suffix("ed"))?;
    if base.chars().count() < 3 || !base.chars().any(|c| "aeiouy".contains(c)) {
        return None;
    }
    let mut chars: Vec<char> = base.chars().collect();
    let n = chars.len();
    if n >= 2 && chars[n - 1] == chars[n - 2] && !"lsz".contains(chars[n - 1]) {
        chars.pop();
    }
    Some(chars.into_iter().collect())
}

/// The key two theme names share when they name the same theme; empty when nothing is left.
pub(crate) fn theme_key(name: &str) -> String {
    let words: Vec<String> =
        words(name).into_iter().filter(|w| !w.chars().all(|c| c.is_ascii_digit())).collect();
    let content: Vec<&String> = words.iter().filter(|w| !is_stop_word(w)).collect();
    let kept: Vec<&String> = if content.is_empty() { words.iter().collect() } else { content };
    kept.iter().map(|w| stem(w)).collect::<Vec<_>>().join(" ")
}

/// A theme's display name: the heading or `THEME [x]` text on one line, trailing punctuation
/// and leading numbering removed.
pub(crate) fn display_name(name: &str) -> String {
    let line = super::markdown::one_line(name);
    let trimmed = line.trim_end_matches(['.', ':', ';', ',', '!', '?']);
    let unnumbered = trimmed.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
    if unnumbered.is_empty() { trimmed.to_string() } else { unnumbered.to_string() }
}

/// Whether a whitespace-separated token is a link, a path or a citation rather than prose.
fn is_path_or_link(token: &str) -> bool {
    token.contains("://")
        || token.contains(":\\")
        || token.starts_with('/')
        || token.contains("[@")
        || token.starts_with('@')
        || token.contains('<')
}

/// The salient terms of `text`: (stem, first spelling), in order of first appearance, without
/// stop words, debris (markup, paths, links, colour names, numbers) and words shorter than three
/// letters.
pub(crate) fn salient_terms(text: &str) -> Vec<(String, String)> {
    let prose: Vec<&str> = text.split_whitespace().filter(|t| !is_path_or_link(t)).collect();
    let mut out: Vec<(String, String)> = Vec::new();
    for word in words(&prose.join(" ")) {
        if word.chars().count() < 3 || is_stop_word(&word) || is_debris(&word) {
            continue;
        }
        let stemmed = stem(&word);
        if !out.iter().any(|(s, _)| *s == stemmed) {
            out.push((stemmed, word));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(DEBRIS.windows(2).all(|w| w[0] < w[1]), "{DEBRIS:?}");
    }

    #[test]
    fn debris_is_not_a_term() {
        let terms =
            salient_terms("file:///Users/x/Zotero/items/AB12.pdf page 5 [!quote|#ffd400] yellow judges");
        let stems: Vec<&str> = terms.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(stems, ["judg"]);
    }

    #[test]
    fn generic_sections_are_known_in_their_variants() {
        for name in ["Methods", "2. Results and Discussion", "Conclusions.", "Limitations", "Abstract"] {
            assert!(is_generic(&theme_key(name)), "{name}");
        }
        assert!(!is_generic(&theme_key("Judge reliability")));
        assert!(!is_generic(&theme_key("Limitations of seed studies")));
    }

    #[test]
    fn a_users_own_comment_label_is_a_theme_name_but_remark_kinds_are_not() {
        assert_eq!(comment_label("Retrieval: the index is rebuilt nightly"), Some("Retrieval"));
        assert_eq!(comment_label("**Query rewriting:** helps short queries"), Some("Query rewriting"));
        for not_a_theme in [
            "Question: what about edge cases?",
            "Figure 2: the pipeline",
            "Methods: three seeds",
            "see https://example.org for more",
            "At 10:30 the run stopped",
            "Retrieval:",
            "This sentence is far too long to be a label: so it is not one",
        ] {
            assert_eq!(comment_label(not_a_theme), None, "{not_a_theme}");
        }
    }

    #[test]
    fn singular_and_plural_headings_meet() {
        assert_eq!(theme_key("Methods"), theme_key("Method."));
        assert_eq!(theme_key("2. Results and Discussion"), theme_key("results & discussions"));
        assert_eq!(theme_key("Studies"), theme_key("study"));
        assert_eq!(theme_key("The"), "the");
        assert_ne!(theme_key("Methods"), theme_key("Results"));
        assert_eq!(theme_key("Authors' Bias"), theme_key("author bias"));
    }

    #[test]
    fn the_stemmer_joins_word_forms() {
        assert_eq!(stem("sampling"), stem("samples"));
        assert_eq!(stem("sample"), stem("sampled"));
        assert_eq!(stem("planned"), "plan");
        assert_eq!(stem("analysis"), "analysis");
        assert_eq!(stem("classes"), "class");
        assert_eq!(stem("data"), "data");
        assert_eq!(stem("need"), "need");
    }

    #[test]
    fn salient_terms_skip_stop_words() {
        let terms = salient_terms("The sample size was too small for the samples");
        let stems: Vec<&str> = terms.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(stems, ["sampl", "siz", "small"]);
        assert_eq!(display_name("3. Methods."), "Methods");
    }
}
