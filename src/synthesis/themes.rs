//! Words as the synthesis compares them: theme keys and salient terms.
//!
//! "Methods", "Method." and "2. Methods" are one theme: a key is the heading's words lowercased,
//! punctuation and numbering removed, stop words dropped and each word reduced by a small English
//! stemmer (plurals, `-ing`, `-ed`). The same words, without stop words, are the salient terms
//! that relate annotations across sources.

use unicode_normalization::UnicodeNormalization;

/// Common English words that say nothing about a topic (sorted, for binary search).
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
    "could", "did", "do", "does", "doing", "down", "during", "each", "either", "etc", "few", "for", "from",
    "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "however",
    "i", "if", "in", "into", "is", "it", "its", "itself", "just", "may", "me", "might", "more", "most",
    "much", "must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or", "other",
    "our", "ours", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that",
    "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "thus",
    "to", "too", "under", "until", "up", "upon", "us", "very", "via", "was", "we", "were", "what", "when",
    "where", "whether", "which", "while", "who", "whom", "why", "will", "with", "within", "without", "would",
    "yet", "you", "your",
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

/// The salient terms of `text`: (stem, first spelling), in order of first appearance, without
/// stop words, numbers and words shorter than three letters.
pub(crate) fn salient_terms(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for word in words(text) {
        if word.chars().count() < 3 || is_stop_word(&word) || word.chars().all(|c| c.is_ascii_digit()) {
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
    fn stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
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
