//! Words for the full-text index: Unicode-aware, so that a search finds a word however it is
//! written. A word is a run of letters, digits and combining marks; each Han, Kana or Hangul
//! character is a word of its own (a run of them is searched as a phrase, which gives bigram
//! precision without a dictionary). Every word is folded: lowercased, compatibility-decomposed
//! (`ﬁ` → `fi`, full-width `Ａ` → `a`) and stripped of diacritics (`Überblick` → `uberblick`),
//! with the letters that do not decompose mapped by hand (`ß` → `ss`, `ø` → `o`, `ł` → `l`).

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// One word of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// The word as written.
    pub raw: &'a str,
    /// Byte offset of the word in the text.
    pub start: usize,
    /// Byte offset just past the word.
    pub end: usize,
    /// Whether it is a single Han, Kana or Hangul character.
    pub cjk: bool,
}

/// Whether `c` is written without spaces between words (Han, Kana, Hangul): each such character
/// is indexed as a word.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF      // Hangul Jamo
        | 0x2E80..=0x2FDF    // CJK radicals, Kangxi radicals
        | 0x3005..=0x3007    // 々 〆 〇
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xA960..=0xA97F    // Hangul Jamo extended A
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xD7B0..=0xD7FF    // Hangul Jamo extended B
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x3134F  // CJK extensions B-G
    )
}

/// Whether `c` belongs to a word (letters, digits, and combining marks that continue a letter).
/// Accented Latin and Cyrillic letters, the most common outside ASCII, are decided by range
/// (tested against the general rule below).
fn is_word(c: char) -> bool {
    match c as u32 {
        0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x24F | 0x400..=0x481 | 0x48A..=0x52F => true,
        _ => c.is_alphanumeric() || is_combining_mark(c),
    }
}

/// The words of `text`, in order, with their byte offsets.
pub fn tokens(text: &str) -> Tokens<'_> {
    Tokens { text, at: 0 }
}

/// Iterator behind [`tokens`].
#[derive(Debug, Clone)]
pub struct Tokens<'a> {
    text: &'a str,
    at: usize,
}

/// What an ASCII byte is to the tokenizer: 1 a letter or digit (part of a word), 0 anything
/// else; bytes of characters outside ASCII are 2 (decoded to decide).
const CLASS: [u8; 256] = {
    let mut class = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        class[b] = if b >= 0x80 {
            2
        } else if (b as u8).is_ascii_alphanumeric() {
            1
        } else {
            0
        };
        b += 1;
    }
    class
};

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        let bytes = self.text.as_bytes();
        // Skip to the start of a word; ASCII bytes are decided without decoding.
        let start = loop {
            let skipped = bytes[self.at..].iter().position(|&b| CLASS[usize::from(b)] != 0)?;
            self.at += skipped;
            if bytes[self.at] < 0x80 {
                break self.at;
            }
            let c = self.text[self.at..].chars().next()?;
            if is_cjk(c) {
                let start = self.at;
                self.at += c.len_utf8();
                return Some(Token { raw: &self.text[start..self.at], start, end: self.at, cjk: true });
            }
            if is_word(c) {
                break self.at;
            }
            self.at += c.len_utf8();
        };
        loop {
            let run = bytes[self.at..].iter().position(|&b| CLASS[usize::from(b)] != 1);
            let Some(run) = run else {
                self.at = bytes.len();
                break;
            };
            self.at += run;
            if bytes[self.at] < 0x80 {
                break;
            }
            let Some(c) = self.text[self.at..].chars().next() else { break };
            if is_cjk(c) || !is_word(c) {
                break;
            }
            self.at += c.len_utf8();
        }
        Some(Token { raw: &self.text[start..self.at], start, end: self.at, cjk: false })
    }
}

/// Writes the folded form of `word` into `out` (cleared first): what the index stores and
/// queries compare.
pub fn fold_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
        return;
    }
    for c in word.chars() {
        if let Some(mapped) = special(c) {
            out.push_str(mapped);
            continue;
        }
        for lower in c.to_lowercase() {
            decompose_compatible(lower, |d| {
                if !is_combining_mark(d) {
                    // A decomposition may yield a capital (e.g. `ℌ` → `H`).
                    out.extend(d.to_lowercase());
                }
            });
        }
    }
}

/// The folded form of `word`.
pub fn fold(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    fold_into(word, &mut out);
    out
}

/// Letters that neither lowercase nor decompose to their base letter, and the final sigma
/// (which `str::to_lowercase` writes in place of `σ` at the end of a word).
fn special(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' | 'ẞ' => "ss",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'ø' | 'Ø' => "o",
        'đ' | 'Đ' => "d",
        'ł' | 'Ł' => "l",
        'ı' => "i",
        'ħ' | 'Ħ' => "h",
        'ŧ' | 'Ŧ' => "t",
        'þ' | 'Þ' => "th",
        'ð' | 'Ð' => "d",
        'ς' => "σ",
        _ => return None,
    })
}

/// Whether `word` is already folded and can be used as it is (ASCII without capitals).
pub fn is_folded(word: &str) -> bool {
    word.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase())
}

/// The folded words of `text`, in order.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    tokens(text).map(|t| fold(t.raw))
}

/// Whether `pattern` (folded, with `*` for any run of characters) matches the whole of `term`.
pub fn wildcard_match(pattern: &str, term: &str) -> bool {
    let Some((first, after)) = pattern.split_once('*') else { return pattern == term };
    let Some(mut rest) = term.strip_prefix(first) else { return false };
    let (middle, last) = after.rsplit_once('*').unwrap_or(("", after));
    for part in middle.split('*') {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> Vec<String> {
        words(text).collect()
    }

    #[test]
    fn folds_case_and_diacritics() {
        assert_eq!(folded("Überblick über CAFÉ naïve"), ["uberblick", "uber", "cafe", "naive"]);
        assert_eq!(folded("Straße STRASSE"), ["strasse", "strasse"]);
        assert_eq!(folded("ﬁle Ｆｕｌｌ"), ["file", "full"]);
        assert_eq!(folded("ΣΟΦΟΣ σοφος σοφός"), ["σοφοσ", "σοφοσ", "σοφοσ"]);
        // A decomposed accent stays inside its word.
        assert_eq!(folded("cafe\u{301} x"), ["cafe", "x"]);
    }

    #[test]
    fn splits_words_and_cjk_characters() {
        let t: Vec<(&str, bool)> =
            tokens("RAG-based 知识图谱, 検索 and 평가!").map(|t| (t.raw, t.cjk)).collect();
        assert_eq!(
            t,
            [
                ("RAG", false),
                ("based", false),
                ("知", true),
                ("识", true),
                ("图", true),
                ("谱", true),
                ("検", true),
                ("索", true),
                ("and", false),
                ("평", true),
                ("가", true)
            ]
        );
        let first = tokens("  smithML2023 p. 5").next().unwrap();
        assert_eq!((first.raw, first.start, first.end), ("smithML2023", 2, 13));
        assert_eq!(tokens("abc知").map(|t| t.raw).collect::<Vec<_>>(), ["abc", "知"]);
    }

    #[test]
    fn word_characters_by_range_follow_the_general_rule() {
        for c in ('\u{80}'..='\u{600}').chain(['\u{2000}', 'ß', '×', '÷']) {
            assert_eq!(is_word(c), c.is_alphanumeric() || is_combining_mark(c), "{c:?}");
        }
    }

    #[test]
    fn wildcards() {
        assert!(wildcard_match("retriev*", "retrieval"));
        assert!(wildcard_match("*tion", "generation"));
        assert!(wildcard_match("r*e*l", "retrieval"));
        assert!(wildcard_match("*", "x"));
        assert!(!wildcard_match("retriev*", "retro"));
        assert!(!wildcard_match("*tion", "tio"));
        assert!(!wildcard_match("a*a", "a"));
        assert!(wildcard_match("a*a", "aa"));
    }
}
